// Package policy owns the command-safety builtins of docs/spec/builtins.md
// §5 (Safety/policy): command_risk_scan, command_result_scan,
// command_llm_risk_scan, command_policy, command_policy_push,
// command_policy_pop, command_policy_check and egress_policy,
// egress_policy_check. The spec names them only; the rule table, the
// policy value and the decisions are this implementation's choices,
// documented in docs/policy.md. egress_policy installs the run's egress
// guard (lib.SetEgressGuard), which every network builtin consults;
// command policies are advisory: exec and shell do not consult them, a
// program (or an agent's tool hook) asks command_policy_check first.
package policy

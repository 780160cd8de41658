// Package trust owns the trust graph builtins (trust_record,
// trust_graph_record, trust_graph_query, trust_graph_policy_for,
// trust_graph_verify_chain, trust_query): a run's log of trust records, in
// the shape the orchestrator writes for tiered bindings and
// harn.trust.query returns, hash-chained so that a list of records can be
// checked for edits, removals and reordering (docs/trust.md).
package trust

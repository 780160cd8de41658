// Package workflow owns the workflow graph builtins of docs/spec/builtins.md
// §5 "Workflows" (workflow_graph, workflow_validate, workflow_inspect,
// workflow_clone, workflow_insert_node, workflow_replace_node,
// workflow_rewire, the workflow_set_*_policy family, workflow_policy_report,
// workflow_diff, workflow_commit, workflow_execute) and continue_as_new.
//
// A graph is a plain, immutable dict tagged `_type: "workflow"`; every edit
// returns a new graph. The reference names the builtins only, so their
// shapes and rules are this implementation's choices, documented in
// docs/workflow.md.
package workflow

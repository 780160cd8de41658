// Package triggers owns the in-script triggers (trigger_register,
// trigger_list, trigger_fire, trigger_replay, trigger_inspect_dlq,
// trigger_inspect_lifecycle, trigger_inspect_action_graph,
// trigger_test_harness, handler_context; docs/spec/builtins.md §5
// "Triggers"): the orchestrator's trigger bindings, synthetic events,
// retries, dead-letter queue, replays and action graph
// (docs/spec/orchestrator.md §2, §3, §5), run inside one script run, in
// memory, with no event log (docs/triggers.md).
//
// A binding is validated by the rules of a harn.toml [[triggers]] table,
// with the same messages: both read them from internal/triggerspec, so
// the library never imports the orchestrator.
package triggers

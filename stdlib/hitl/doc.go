// Package hitl is the human-in-the-loop area of the standard library
// (docs/hitl.md; docs/spec/builtins.md §5 names the builtins only, so the
// semantics are this implementation's design): ask_user, request_approval,
// dual_control, escalate_to, hitl_pending and the waitpoint_* builtins.
//
// Questions and approvals read their answers through the same stdin path as
// read_line (stdlib/console): mock_stdin's text while it is active, else the
// VM's standard input, with the prompt written to stdout only when stdin is
// a terminal. At the end of input an answer falls back to the `default`
// option or fails with a clear error, so a non-interactive run never hangs
// on a missing human. HARN_AUTO_APPROVE answers approvals without input.
//
// Waitpoints are one-shot rendezvous values: waitpoint_wait blocks the
// calling task (other tasks keep running, and deadlock detection sees the
// wait) until another task, or the host through CompleteWaitpoint,
// completes or cancels it.
package hitl

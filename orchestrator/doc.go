// Package orchestrator is the trigger runtime behind `harn mcp serve`
// and `harn orchestrator` (docs/spec/orchestrator.md §3–§5): bindings read from
// the manifest, events accepted into the durable inbox of an
// eventlog.Log, a worker loop that leases deliveries and runs their
// handlers, retries with the binding's backoff, the dead-letter queue,
// replays, flow control, and the read-only views (trigger list, queue,
// DLQ, inspect, recorded events) the MCP tools and the operator CLI
// print.
//
// The model. An Orchestrator is one node. Every event — a cron tick, a
// webhook delivery, a manual fire, a replay — becomes a Delivery accepted
// into the log's inbox together with its records (the recorded event on
// triggers.events, the envelope on trigger.inbox.envelopes) in one
// transaction, keyed by an idempotency key. Workers claim due deliveries
// under a lease (an event fired through the node while one of its
// workers is free is accepted already leased to it, and runs at once),
// run one attempt and end it with Complete (done or
// dead-lettered) or Retry (pending again, due after the backoff), which
// append the attempt, outbox and DLQ records in the same transaction as
// the state change. So an accepted event is never lost, a completed one
// never runs again, and a node that dies mid-attempt only delays its
// deliveries until their leases expire; several nodes on one PostgreSQL
// log split the inbox the same way.
//
// The views are folds of the log (view.go): per-binding metrics,
// pending DLQ entries, recorded events and recent dispatches are read
// incrementally from the topics, so every node and the operator CLI see
// the same numbers. Flow-control gates (flow.go) are per node.
//
// Handlers: a local function runs on the project's Runtime (runtime.go,
// the Harn interpreter); worker:// enqueues a job on worker.<queue>;
// a2a:// sends an A2A message/send request.
package orchestrator

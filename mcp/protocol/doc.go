// Package protocol is Harn's MCP server protocol layer: everything an
// MCP server says on the wire that does not depend on what it serves.
// Both MCP servers sit on it — `harn serve mcp` (adapter/mcp, the
// projection of a tool registry) and `harn mcp serve` (orchestrator,
// the control plane) — so the rules of docs/spec/mcp-projection.md §2–§3, §7,
// §9, §10 and §13 and docs/spec/orchestrator.md §8 live in one place. It knows
// nothing of registries, package tool or the VM; JSON values are
// package jsonv's (ordered objects, json.Number numbers).
//
// # Provider
//
// A server serves one Provider: its identity (ServerInfo, Instructions,
// Capabilities) and its content — the tools/list documents and a Tool
// for each tools/call, resources, resource templates and reads, prompts
// and prompts/get, and completion candidates. Providers return whole
// lists; the server pages them (cursor = base64 of the decimal offset,
// page size HARN_MCP_LIST_PAGE_SIZE, default 100). A provider answers
// with a result object (*jsonv.Object), an *Error, or, for reads and
// prompts, a Handler that runs later on the executor. A Tool says its
// execution.taskSupport, validates arguments, and is called with a Call.
//
// # Connection, reader, executor, writer
//
// Each stdio connection (Serve) has one reader goroutine, one executor
// and one writer. The reader decodes each line and answers at once
// everything that runs no provider handler code: lifecycle, ping, lists,
// completion, logging/setLevel, subscriptions, tasks/get|update|cancel,
// errors, notifications/cancelled, and the client's answers to the
// server's own requests. Handler code — tools/call, task work, and
// Handlers — goes to the executor, which runs jobs one at a time in
// arrival order (a single-VM provider needs exactly that), so the reader
// stays free to take cancellations and input answers while a handler
// runs. Options.Parallel instead gives every job a goroutine of its own
// and runs task work in the background, for providers whose handlers
// are safe to run concurrently. The writer serializes every outgoing
// line, whichever goroutine produced it. A connection initialized at
// 2025-03-26, the one version with JSON-RPC batches, also takes a batch
// line and answers it with one array (batch.go). Server.Quiesce runs a
// function while no job of any connection runs (a provider swapping what
// it serves), and NotifyListChanged pushes list-changed notifications to
// the stdio connections that are ready for them.
//
// # Profiles
//
// Every request is answered in one of two profiles. The released
// profile belongs to a connection that sent `initialize` (2024-11-05 …
// 2025-11-25): the identity and capabilities of the handshake apply to
// every later request and results carry no envelope. The 2026-07-28
// profile belongs to `server/discover` and to any request on an
// uninitialized connection that carries `_meta`: each request names its
// protocol version, client info and capabilities, so identity never
// leaks from one request to the next, and every result gets resultType
// (plus ttlMs and cacheScope on lists and reads). Only the 2026 profile
// has tasks and multi-round-trip input. Request exposes the profile to
// the provider (Modern, Version, Identity, Capabilities, TasksOptIn).
//
// # Calls, tasks and input
//
// A Call is one run of handler code. Through it the handler reports
// progress (notifications/progress for the request's token), logs
// (notifications/message), notifies resource subscribers, observes
// cancellation (OnCancel, Context), and asks the client for input
// (Input): in the 2026 profile by input_required results and retries
// carrying requestState and inputResponses; in the released profile by
// a real server-to-client request (elicitation/create, roots/list,
// sampling/createMessage) whose answer the reader delivers. A
// tools/call that opts in to the tasks extension for a tool that
// supports it becomes a task: the create answer is written first, the
// work runs next, and tasks/get, tasks/update, tasks/cancel and
// tasks/list reach it from any connection of the same owner: the client
// identity, qualified on HTTP by the principal the Authenticator
// returned.
//
// # HTTP
//
// HTTPHandler is the session-free Streamable HTTP transport: one
// JSON-RPC message per POST, answered on a connection of its own in the
// 2026-07-28 profile, as JSON or, for clients that accept only
// text/event-stream, as an SSE stream (priming event, progress, then the
// message); the stream starts with the request's first message, so a
// refusal of HTTP 400 that comes first is a JSON response. It checks
// Origin, authenticates through an Authenticator, and checks the routing
// headers against the body. Such a connection
// has no reader loop and no executor: its one request's handler job
// runs on the goroutine net/http serves the request on, and its
// messages go to the response as they are written; only a task's work,
// which outlives the request, runs on a goroutine of its own. A request
// in progress is cancelled when its client goes away, and by a
// notifications/cancelled POST naming its id from the same principal
// (and client identity, when the notification names one): the server
// keeps the HTTP requests in progress for that (httpcancel.go). APIKeys
// matches the API keys a request presents; each server's Authenticator
// uses it and answers a refusal in its own way.
package protocol

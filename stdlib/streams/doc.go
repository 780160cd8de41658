// Package streams is the streaming-transport area of the standard
// library: Server-Sent Events (the sse_* client, the sse_server_*
// response an HTTP handler streams, and the sse_mock double), streamed
// HTTP response bodies (http_stream_*), and WebSocket clients and
// loopback servers (websocket_*, with the websocket_mock double).
//
// docs/spec/builtins.md §5 only names these builtins; the design is this
// implementation's and is described in docs/streams.md. Every blocking
// call (a receive, an accept, a connect) waits through vm.Thread.Wait, so
// other tasks keep running while it waits and cancellation or a
// `deadline` stops it; a network goroutine fills a queue that the waits
// read.
//
// The area is in the full build only (cmd/harn/lite_fullonly.go): it
// needs net/http, TLS and the WebSocket library.
package streams

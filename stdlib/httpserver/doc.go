// Package httpserver owns the HTTP server of Harn scripts: http_server and
// its route, middleware, readiness, security-header and shutdown
// builtins, the http_response constructors, http_header, the in-process
// http_server_request and http_server_test, and the http_server_tls_*
// settings (docs/spec/builtins.md §5 names them only; the behaviour is
// this implementation's, described in docs/http-server.md). The handlers
// of network requests run as tasks of the script's VM (concurrency.Spawn),
// so a Go goroutine of the listener never touches a Harn value.
package httpserver

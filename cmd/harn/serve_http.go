package main

import (
	"fmt"
	"io"
	"net"

	"github.com/harnlang/harn/adapter/mcp"
	"github.com/harnlang/harn/mcp/protocol"
)

// serveHTTP runs the session-free Streamable HTTP transport
// (docs/spec/mcp-projection.md §12) until the listener fails.
func serveHTTP(srv *mcp.Server, f *serveFlags, stderr io.Writer) int {
	if f.hmac != "" {
		fmt.Fprintln(stderr, "error: --hmac-secret is not supported yet; use --api-key")
		return 2
	}
	ln, err := net.Listen("tcp", f.bind)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "[harn] serve mcp: listening on http://%s%s\n", ln.Addr(), f.path)
	h := srv.HTTPHandler(mcp.HTTPOptions{Path: f.path, APIKeys: f.apiKeys})
	if err := protocol.NewHTTPServer(h, protocol.HTTPServerOptions{}).Serve(ln); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

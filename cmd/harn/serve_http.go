package main

import (
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/harnlang/harn/adapter/mcp"
)

// serveHTTP runs the session-free Streamable HTTP transport
// (mcp-projection.md §12) until the listener fails.
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
	if err := http.Serve(ln, h); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

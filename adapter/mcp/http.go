package mcp

import (
	"net/http"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
)

// HTTPOptions configures the session-free Streamable HTTP transport of
// `harn serve mcp` (docs/spec/mcp-projection.md §12).
type HTTPOptions struct {
	// Path is the endpoint path (default /mcp).
	Path string
	// APIKeys, when set, are required on every POST (Authorization:
	// Bearer or X-API-Key).
	APIKeys []string
}

// HTTPHandler serves the surface to 2026-07-28 clients over HTTP: the
// protocol layer's transport, plus GET /.well-known/mcp-card with
// --card. It publishes no discovery or OAuth metadata documents.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	// Bodies as large as a stdio line (64 MiB) are accepted, as before
	// the protocol layer had a default limit.
	po := protocol.HTTPOptions{Path: o.Path, MaxBody: 64 << 20}
	if len(o.APIKeys) > 0 {
		po.Auth = apiKeys{protocol.NewAPIKeys(o.APIKeys)}
	}
	mcp := s.proto.HTTPHandler(po)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/mcp-card" && r.Method == http.MethodGet && s.opts.Card != nil {
			w.Header().Set("MCP-Protocol-Version", protocol.Version20260728)
			w.Header().Set("Content-Type", "application/json")
			w.Write(jsonv.Marshal(s.opts.Card))
			return
		}
		mcp.ServeHTTP(w, r)
	})
}

// apiKeys is the --api-key authenticator: a missing or wrong key is
// HTTP 401 with a -32001 JSON-RPC error (docs/spec/mcp-projection.md §12).
type apiKeys struct{ keys protocol.APIKeys }

func (k apiKeys) Authenticate(w http.ResponseWriter, r *http.Request, _ string) (string, bool) {
	if k.keys.Match(r) > 0 {
		return "api-key", true
	}
	protocol.WriteJSON(w, http.StatusUnauthorized, protocol.ErrorResponse(nil, protocol.Errorf(protocol.CodeUnauthorized, "unauthorized")))
	return "", false
}

func (apiKeys) ServeMetadata(w http.ResponseWriter, r *http.Request, _ string) { http.NotFound(w, r) }

func (apiKeys) ResourceMetadataURL(string) string { return "" }

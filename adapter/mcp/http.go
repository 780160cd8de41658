package mcp

import (
	"net/http"
	"strconv"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
)

// HTTPOptions configures the session-free Streamable HTTP transport of
// `harn serve mcp` (docs/spec/mcp-projection.md §12).
type HTTPOptions struct {
	// Path is the endpoint path (default /mcp).
	Path string
	// APIKeys and HMACSecret, when either is set, make every POST carry
	// a credential: one of the keys (Authorization: Bearer or X-API-Key)
	// or a body signed with the secret (Authorization: HMAC-SHA256,
	// protocol.HMACScheme); either passes.
	APIKeys    []string
	HMACSecret string
	// HSTS adds Strict-Transport-Security to every response: the
	// clients reach the server over HTTPS (its own TLS, or an edge's).
	HSTS bool
}

// hstsValue is the Strict-Transport-Security of a server reached over
// HTTPS, as stdlib's http_server_security_headers sends it.
const hstsValue = "max-age=31536000; includeSubDomains"

// HTTPHandler serves the surface to 2026-07-28 clients over HTTP: the
// protocol layer's transport, plus GET /.well-known/mcp-card with
// --card. It publishes no discovery or OAuth metadata documents.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	// Bodies as large as a stdio line (64 MiB) are accepted, as before
	// the protocol layer had a default limit.
	po := protocol.HTTPOptions{Path: o.Path, MaxBody: 64 << 20}
	if len(o.APIKeys) > 0 || o.HMACSecret != "" {
		c := credentials{keys: protocol.NewAPIKeys(o.APIKeys)}
		if o.HMACSecret != "" {
			c.hmac = protocol.NewHMACSecret(o.HMACSecret, nil)
		}
		po.Auth = c
	}
	mcp := s.proto.HTTPHandler(po)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.HSTS {
			w.Header().Set("Strict-Transport-Security", hstsValue)
		}
		if r.URL.Path == "/.well-known/mcp-card" && r.Method == http.MethodGet && s.opts.Card != nil {
			w.Header().Set("MCP-Protocol-Version", protocol.Version20260728)
			w.Header().Set("Content-Type", "application/json")
			w.Write(jsonv.Marshal(s.opts.Card))
			return
		}
		mcp.ServeHTTP(w, r)
	})
}

// credentials is the --api-key / --hmac-secret authenticator: a request
// passes with one of the keys, or with a fresh HMAC-SHA256 Authorization
// that signs its body (checked once the body is read); anything else is
// HTTP 401 with a -32001 JSON-RPC error (docs/spec/mcp-projection.md §12).
type credentials struct {
	keys protocol.APIKeys
	hmac *protocol.HMACSecret // nil without --hmac-secret
}

// signedIdentity is the provisional identity of a request whose
// signature is checked with its body.
const signedIdentity = "hmac"

func (c credentials) Authenticate(w http.ResponseWriter, r *http.Request, _ string) (string, bool) {
	if c.keys.Len() > 0 {
		// Each key is a principal of its own ("api-key#N", as the
		// orchestrator names it): tasks and cancellations never cross
		// from one key's holder to another's.
		if n := c.keys.Match(r); n > 0 {
			return "api-key#" + strconv.Itoa(n), true
		}
	}
	if c.hmac != nil && c.hmac.Fresh(r) {
		return signedIdentity, true
	}
	unauthorized(w)
	return "", false
}

func (c credentials) AuthenticateBody(w http.ResponseWriter, r *http.Request, _, identity string, body []byte) bool {
	if identity != signedIdentity || c.hmac.Verify(r, body) {
		return true
	}
	unauthorized(w)
	return false
}

func unauthorized(w http.ResponseWriter) {
	protocol.WriteJSON(w, http.StatusUnauthorized, protocol.ErrorResponse(nil, protocol.Errorf(protocol.CodeUnauthorized, "unauthorized")))
}

func (credentials) ServeMetadata(w http.ResponseWriter, r *http.Request, _ string) {
	http.NotFound(w, r)
}

func (credentials) ResourceMetadataURL(string) string { return "" }

package auth

import (
	"encoding/json"
	"net/http"

	"github.com/harnlang/harn/mcp/protocol"
)

// ResourceMetadataURL is where the metadata of the MCP endpoint is
// published (the WWW-Authenticate resource_metadata value and the
// discovery document's authorization.resourceMetadata), by the rule of
// protocol.ResourceMetadataURL; "" when OAuth mode is off.
func (c *Config) ResourceMetadataURL(endpoint string) string {
	if c == nil || c.oauth == nil {
		return ""
	}
	return protocol.ResourceMetadataURL(endpoint)
}

// ProtectedResourceMetadata is the RFC 9728 document.
type ProtectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
}

// Metadata returns the document for the MCP endpoint, or nil when OAuth
// mode is off. resource is HARN_MCP_OAUTH_RESOURCE, else the endpoint.
func (c *Config) Metadata(endpoint string) *ProtectedResourceMetadata {
	if c == nil || c.oauth == nil {
		return nil
	}
	m := &ProtectedResourceMetadata{
		Resource:               c.oauth.resource,
		AuthorizationServers:   c.oauth.authorizationServers,
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        c.oauth.scopes,
	}
	if m.Resource == "" {
		m.Resource = endpoint
	}
	return m
}

// ServeMetadata answers GET (or HEAD) on either well-known path with the
// metadata document: 404 when OAuth mode is off, 405 for other methods.
// It is public (no authentication) and readable cross-origin, since
// browser-based clients fetch it before they hold a token.
func (c *Config) ServeMetadata(w http.ResponseWriter, r *http.Request, endpoint string) {
	m := c.Metadata(endpoint)
	if m == nil {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := json.Marshal(m)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

package auth

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/harnlang/harn/mcp/protocol"
)

// Authenticate decides whether r may reach the MCP endpoint, in the
// order of §9: a valid API key; else, with an HMAC secret, a fresh
// HMAC-SHA256 Authorization (accepted provisionally: AuthenticateBody
// checks its signature once the body is read); else, in OAuth mode, a
// valid bearer token (401 when missing or invalid, 403 when a scope is
// missing); else, with API keys or an HMAC secret configured, 401; else
// anonymous access. When it returns false it has written the response.
// identity names the caller for logs and never contains a secret:
// "api-key#N" (the key's 1-based position in the list), "hmac", the
// token's sub or client_id, or "anonymous".
func (c *Config) Authenticate(w http.ResponseWriter, r *http.Request, endpoint string) (identity string, ok bool) {
	if c.apiKeys.Len() > 0 {
		if n := c.apiKeys.Match(r); n > 0 {
			return c.apiKeyIDs[n-1], true
		}
	}
	if c.hmac != nil && c.hmac.Fresh(r) {
		return signedIdentity, true
	}
	if o := c.oauth; o != nil {
		token, present := protocol.BearerToken(r)
		if !present {
			c.refuse(w, endpoint, &failure{status: http.StatusUnauthorized})
			return "", false
		}
		cl, f := o.validate(r.Context(), token)
		if f == nil {
			f = o.check(cl)
		}
		if f != nil {
			c.refuse(w, endpoint, f)
			return "", false
		}
		return cl.identity(), true
	}
	if c.apiKeys.Len() > 0 || c.hmac != nil {
		c.refuse(w, endpoint, &failure{status: http.StatusUnauthorized})
		return "", false
	}
	return "anonymous", true
}

// signedIdentity is the identity of a request signed with the HMAC
// secret.
const signedIdentity = "hmac"

// AuthenticateBody checks, once the body is read, the signature of a
// request Authenticate accepted provisionally (identity "hmac" and an
// HMAC-SHA256 Authorization: a bearer token's sub may be "hmac" too):
// 401 when it does not sign body. Other requests pass.
func (c *Config) AuthenticateBody(w http.ResponseWriter, r *http.Request, endpoint, identity string, body []byte) bool {
	if c.hmac == nil || identity != signedIdentity || !protocol.HMACSigned(r) || c.hmac.Verify(r, body) {
		return true
	}
	c.refuse(w, endpoint, &failure{status: http.StatusUnauthorized})
	return false
}

// validate checks the token with the configured mode: introspection
// when set, else JWKS.
func (o *oauthConfig) validate(ctx context.Context, token string) (claims, *failure) {
	ctx, cancel := context.WithTimeout(ctx, outboundTimeout)
	defer cancel()
	if o.introspection != nil {
		return o.introspection.introspect(ctx, token)
	}
	return o.jwks.verify(ctx, token)
}

// refuse writes a refusal. In OAuth mode it carries the RFC 6750 / RFC
// 9728 challenge; the body is the plain text upstream sends.
func (c *Config) refuse(w http.ResponseWriter, endpoint string, f *failure) {
	if c.oauth != nil && f.status != http.StatusServiceUnavailable {
		w.Header().Set("WWW-Authenticate", c.challenge(endpoint, f))
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(f.status)
	if f.status == http.StatusServiceUnavailable {
		fmt.Fprintln(w, "auth unavailable")
		return
	}
	fmt.Fprintln(w, "auth failed")
}

// challenge renders the WWW-Authenticate value of §9, e.g.
// `Bearer error="invalid_token", resource_metadata="…", scope="…",
// error_description="…"`.
func (c *Config) challenge(endpoint string, f *failure) string {
	var params []string
	if f.code != "" {
		params = append(params, authParam("error", f.code))
	}
	params = append(params, authParam("resource_metadata", c.ResourceMetadataURL(endpoint)))
	if len(c.oauth.scopes) > 0 {
		params = append(params, authParam("scope", strings.Join(c.oauth.scopes, " ")))
	}
	if f.code != "" && f.desc != "" {
		params = append(params, authParam("error_description", f.desc))
	}
	return "Bearer " + strings.Join(params, ", ")
}

// authParam renders name="value" as an RFC 9110 quoted string.
func authParam(name, value string) string {
	value = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", " ", "\n", " ").Replace(value)
	return name + `="` + value + `"`
}

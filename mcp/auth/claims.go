package auth

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// claims is what the policy needs from an access token, whichever way
// it was validated (JWT or introspection).
type claims struct {
	issuer    string
	audiences []string // aud ∪ resource
	scopes    []string // scope (space-separated) ∪ scp
	subject   string
	clientID  string

	expires     time.Time // exp, when known
	cachedUntil time.Time // set by the verified-token cache
}

// identity names the caller for logs: the subject, else the client id.
func (c claims) identity() string {
	switch {
	case c.subject != "":
		return c.subject
	case c.clientID != "":
		return c.clientID
	}
	return "oauth"
}

// failure is a refused request: the HTTP status and, for OAuth, the
// RFC 6750 error code and description carried in WWW-Authenticate.
type failure struct {
	status int
	code   string // "invalid_token", "insufficient_scope", or "" (no credentials)
	desc   string
}

func invalidToken(desc string) *failure {
	return &failure{status: http.StatusUnauthorized, code: "invalid_token", desc: desc}
}

// unavailable reports that the token could not be checked because the
// JWKS or introspection endpoint failed: a server-side problem, so 503
// rather than a 401 that would send the client to re-authenticate.
func unavailable(err error) *failure {
	return &failure{status: http.StatusServiceUnavailable, desc: err.Error()}
}

// check applies the issuer, audience and scope requirements shared by
// both validation modes; time claims and activity were checked by the
// mode itself.
func (o *oauthConfig) check(c claims) *failure {
	if o.issuer != "" && c.issuer != o.issuer {
		return invalidToken("access token issuer is not accepted")
	}
	if !slices.ContainsFunc(o.audiences, func(a string) bool { return slices.Contains(c.audiences, a) }) {
		return invalidToken("access token audience does not include this resource")
	}
	for _, s := range o.scopes {
		if !slices.Contains(c.scopes, s) {
			return &failure{status: http.StatusForbidden, code: "insufficient_scope", desc: "Token does not include the required MCP scope"}
		}
	}
	return nil
}

// stringList reads a JSON claim that may be one string or an array of
// strings; spaceSeparated splits strings on spaces (scope lists).
func stringList(v any, spaceSeparated bool) []string {
	var out []string
	add := func(s string) {
		if spaceSeparated {
			out = append(out, strings.Fields(s)...)
		} else if s != "" {
			out = append(out, s)
		}
	}
	switch v := v.(type) {
	case string:
		add(v)
	case []string:
		for _, s := range v {
			add(s)
		}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	return out
}

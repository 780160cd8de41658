package auth

import (
	"math"
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

// claimsOf reads the policy's claims from a token's claims set (a JWT
// payload or an introspection response; both use the same names).
func claimsOf(doc map[string]any) claims {
	c := claims{
		audiences: append(stringList(doc["aud"], false), stringList(doc["resource"], false)...),
		scopes:    append(stringList(doc["scope"], true), stringList(doc["scp"], true)...),
	}
	c.issuer, _ = doc["iss"].(string)
	c.subject, _ = doc["sub"].(string)
	c.clientID, _ = doc["client_id"].(string)
	return c
}

// The NumericDates beyond which a claim is clamped: about 146 billion
// years either way, far past any real date, yet inside what time.Time
// holds (time.Unix overflows past math.MaxInt64 minus 62135596800
// seconds and then compares as a date in the past).
var (
	maxNumericDate = time.Unix(1<<62, 0)
	minNumericDate = time.Unix(-1<<62, 0)
)

// unixSeconds is the time f seconds after the epoch, f a NumericDate
// (RFC 7519 §2: a JSON number, maybe fractional). It never goes through
// nanoseconds or time.Duration, which overflow int64 past 2262 (an exp
// of 9999999999 would read as a date in the past); dates beyond the
// clamps are the clamps, so a far-future exp stays in the future.
func unixSeconds(f float64) time.Time {
	switch {
	case f >= 1<<62:
		return maxNumericDate
	case f <= -1<<62:
		return minNumericDate
	}
	sec := math.Floor(f)
	return time.Unix(int64(sec), int64((f-sec)*float64(time.Second)))
}

// numericDate reads the NumericDate claim name of a claims set decoded
// by encoding/json. present: the claim is there (and not null); ok: it
// is a number.
func numericDate(doc map[string]any, name string) (t time.Time, present, ok bool) {
	v, present := doc[name]
	if !present || v == nil {
		return time.Time{}, false, false
	}
	f, ok := v.(float64)
	if !ok {
		return time.Time{}, true, false
	}
	return unixSeconds(f), true, true
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

package protocol

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/hmacsig"
)

// HMACScheme is the Authorization scheme of a signed request:
//
//	Authorization: HMAC-SHA256 timestamp=<unix seconds>,signature=<hex>
//
// where the signature is the hex HMAC-SHA256, under the shared secret, of
// "<timestamp>.<body>" (the exact bytes of the request body), the
// signature a harn-scheme webhook sender computes (internal/hmacsig); a
// "sha256=" prefix is accepted, as in X-Harn-Signature. The scheme name
// is case-insensitive, the two parameters may come in either order, with
// spaces after the comma. A timestamp more than HMACReplayWindow away
// from the server's clock is refused (docs/mcp.md, HTTP authentication).
const HMACScheme = "HMAC-SHA256"

// HMACReplayWindow bounds how far a signed request's timestamp may be
// from the server's clock, either way.
const HMACReplayWindow = 5 * time.Minute

// HMACSecret is the secret signed requests are checked with. Both
// servers' authenticators use it: the timestamp is checked with the
// headers (Fresh), the signature once the body is read (Verify).
type HMACSecret struct {
	secret []byte
	now    func() time.Time
}

// NewHMACSecret holds secret; now is the clock (nil: time.Now).
func NewHMACSecret(secret string, now func() time.Time) *HMACSecret {
	if now == nil {
		now = time.Now
	}
	return &HMACSecret{secret: []byte(secret), now: now}
}

// Fresh reports whether r carries an HMAC-SHA256 Authorization whose
// timestamp lies inside the replay window: the part of the check that
// needs no body.
func (s *HMACSecret) Fresh(r *http.Request) bool {
	ts, _, ok := hmacAuthorization(r)
	return ok && hmacsig.Fresh(ts, s.now(), HMACReplayWindow) == nil
}

// Verify reports whether r's HMAC-SHA256 Authorization is fresh and
// signs body. The comparison takes the same time however much of the
// signature matches.
func (s *HMACSecret) Verify(r *http.Request, body []byte) bool {
	ts, sig, ok := hmacAuthorization(r)
	if !ok || hmacsig.Fresh(ts, s.now(), HMACReplayWindow) != nil {
		return false
	}
	return hmacsig.Equal(sig, hmacsig.Timestamped(s.secret, ts, body))
}

// HMACSigned reports whether r's Authorization uses the HMAC-SHA256
// scheme, well formed or not.
func HMACSigned(r *http.Request) bool {
	scheme, _, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return strings.EqualFold(scheme, HMACScheme)
}

// SignHMAC is the Authorization value of body sent at ts under secret,
// for clients and tests.
func SignHMAC(secret string, ts time.Time, body []byte) string {
	t := strconv.FormatInt(ts.Unix(), 10)
	return HMACScheme + " timestamp=" + t + ",signature=" + hmacsig.Timestamped([]byte(secret), t, body)
}

// hmacAuthorization parses an HMAC-SHA256 Authorization header into its
// timestamp and lower-case signature; ok is false for another scheme or
// a parameter missing, repeated or unknown.
func hmacAuthorization(r *http.Request) (ts, sig string, ok bool) {
	scheme, params, found := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !found || !strings.EqualFold(scheme, HMACScheme) {
		return "", "", false
	}
	for _, p := range strings.Split(params, ",") {
		name, value, found := strings.Cut(strings.TrimSpace(p), "=")
		value = strings.TrimSpace(value)
		switch {
		case !found || value == "":
			return "", "", false
		case name == "timestamp" && ts == "":
			ts = value
		case name == "signature" && sig == "":
			sig = strings.TrimPrefix(strings.ToLower(value), "sha256=")
		default:
			return "", "", false
		}
	}
	return ts, sig, ts != "" && sig != ""
}

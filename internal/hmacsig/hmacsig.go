// Package hmacsig owns the HMAC-SHA256 signature over a timestamp and a
// body that the project's HTTP endpoints share: a harn-scheme webhook
// delivery to the orchestrator (X-Harn-Signature, docs/orchestrator.md)
// and a signed MCP request over HTTP (Authorization: HMAC-SHA256,
// docs/mcp.md). Both sign "<timestamp>.<body>", the timestamp in unix
// seconds, and refuse a timestamp outside a replay window.
package hmacsig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Hex is the lower-case hex HMAC-SHA256 under secret of the parts, one
// after the other.
func Hex(secret []byte, parts ...[]byte) string {
	mac := hmac.New(sha256.New, secret)
	for _, p := range parts {
		mac.Write(p)
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// Timestamped is the hex signature of body sent at ts (unix seconds, as
// sent): the HMAC-SHA256 of "<ts>.<body>".
func Timestamped(secret []byte, ts string, body []byte) string {
	return Hex(secret, []byte(ts+"."), body)
}

// Equal compares two signatures in constant time.
func Equal(got, want string) bool { return hmac.Equal([]byte(got), []byte(want)) }

// ErrNotSeconds is Fresh's refusal of a timestamp that is not decimal
// unix seconds.
var ErrNotSeconds = errors.New("not unix seconds")

// OutsideWindow is Fresh's refusal of a timestamp too old or too far
// ahead of now.
type OutsideWindow struct{ Window time.Duration }

func (e *OutsideWindow) Error() string {
	return fmt.Sprintf("timestamp outside the replay window of %s", e.Window)
}

// Fresh checks that ts, unix seconds in decimal, lies within window of
// now on either side (clocks differ a little both ways).
func Fresh(ts string, now time.Time, window time.Duration) error {
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrNotSeconds
	}
	if d := now.Sub(time.Unix(secs, 0)); d > window || d < -window {
		return &OutsideWindow{window}
	}
	return nil
}

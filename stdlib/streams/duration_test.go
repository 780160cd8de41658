package streams

import (
	"testing"
	"time"
)

// Stream timeouts name their duration as the language displays one, the
// way the MCP client's do.
func TestFmtDurationMatchesDisplay(t *testing.T) {
	for d, want := range map[time.Duration]string{
		50 * time.Millisecond:   "50ms",
		1500 * time.Millisecond: "1500ms",
		30 * time.Second:        "30s",
		60 * time.Second:        "1m",
		90 * time.Second:        "90s",
	} {
		if got := fmtDuration(d); got != want {
			t.Errorf("fmtDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

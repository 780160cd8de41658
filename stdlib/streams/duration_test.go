package streams

import (
	"errors"
	"testing"
	"time"

	"github.com/harnlang/harn/vm"
)

// Stream timeouts name their duration as the language displays one, the
// way the MCP client's do.
func TestTimeoutNamesDurationAsDisplayed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		50 * time.Millisecond:   "50ms",
		1500 * time.Millisecond: "1500ms",
		30 * time.Second:        "30s",
		60 * time.Second:        "1m",
		90 * time.Second:        "90s",
	} {
		var ve *vm.Error
		if !errors.As(errTimeout("ws_receive", d), &ve) {
			t.Fatalf("errTimeout(%v) is not a vm error", d)
		}
		msg, _ := ve.Caught().AsDict()
		if got, _ := msg.Get("message"); vm.ToDisplay(got) != "ws_receive: timed out after "+want {
			t.Errorf("errTimeout(%v) message = %q, want the duration %q", d, vm.ToDisplay(got), want)
		}
	}
}

package protocol

import (
	"net/http"
	"strings"
	"testing"

	"github.com/harnlang/harn/mcp/loadtest"
)

// BenchmarkHTTPToolsCall is the server's work for one session-free
// tools/call, without the network: routing headers, decoding, dispatch,
// the tool and the answer. mcp/loadtest measures the same path under
// load over loopback; this isolates its CPU and allocations per call.
func BenchmarkHTTPToolsCall(b *testing.B) {
	for _, parallel := range []bool{false, true} {
		name := "serial"
		if parallel {
			name = "parallel"
		}
		b.Run(name, func(b *testing.B) {
			h := NewServer(newFake(), Options{Parallel: parallel}).HTTPHandler(HTTPOptions{})
			if status, answer := loadtest.BenchToolsCall(b, h, "echo", `{"text":"hi"}`); status != http.StatusOK || !strings.Contains(string(answer), `"text":"hi"`) {
				b.Fatalf("answer %d %s", status, answer)
			}
		})
	}
}

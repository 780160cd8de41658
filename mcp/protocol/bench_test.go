package protocol

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
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
			body := []byte(js(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call",
				"params": modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, nil)}))
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, "/mcp", nil)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", Version20260728)
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "echo")
			w := &discardWriter{header: http.Header{}}
			rd := bytes.NewReader(body)
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				clear(w.header)
				w.status, w.body = 0, w.body[:0]
				h.ServeHTTP(w, req)
			}
			if w.status != http.StatusOK || !strings.Contains(string(w.body), `"text":"hi"`) {
				b.Fatalf("answer %d %s", w.status, w.body)
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps the last answer and
// costs nothing else.
type discardWriter struct {
	header http.Header
	status int
	body   []byte
}

func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) WriteHeader(status int) {
	w.status = status
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

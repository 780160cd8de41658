//go:build unix

package loadtest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// BenchToolsCall is the serial, network-free half of the measurement the
// MCP servers' benchmarks share: h answers one session-free tools/call of
// tool with arguments (JSON) b.N times, through a ResponseWriter that costs
// nothing, and the benchmark reports allocations and CPU per call
// (cpu-ns/op), which the 64-client load multiplies. It returns the last
// answer for the caller to check.
func BenchToolsCall(b *testing.B, h http.Handler, tool, arguments string) (status int, answer []byte) {
	b.Helper()
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + arguments + `,` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.ContentLength = int64(len(body)) // as net/http sets it
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	w := &discardWriter{header: http.Header{}}
	rd := bytes.NewReader(body)
	b.ReportAllocs()
	cpu := ProcessCPU()
	for b.Loop() {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		clear(w.header)
		w.status, w.body = 0, w.body[:0]
		h.ServeHTTP(w, req)
	}
	b.ReportMetric(float64(ProcessCPU()-cpu)/float64(b.N), "cpu-ns/op")
	return w.status, w.body
}

// ProcessCPU is the CPU time (user and system) this process used so far:
// on a shared machine it measures a call's work where wall-clock time
// measures the other load.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// discardWriter is a ResponseWriter that keeps the last answer and
// costs nothing else.
type discardWriter struct {
	header http.Header
	status int
	body   []byte
}

func (w *discardWriter) Header() http.Header    { return w.header }
func (w *discardWriter) WriteHeader(status int) { w.status = status }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

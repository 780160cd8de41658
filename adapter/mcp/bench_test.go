package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/mcp/loadtest"
)

const trivialScript = `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "echo", description: "Echo n.", parameters: {n: {schema: {type: "integer"}, required: true}}, handler: {x -> x.n}},
  ]))
}
`

// stdioRun drives a server over OS pipes with a pipelined client (up to
// window calls in flight) and returns the throughput and the latency of
// every call.
func stdioRun(tb testing.TB, sf *Surface, calls, window int) (perSec float64, lat []time.Duration) {
	srv := NewServer(sf, Options{Stderr: io.Discard})
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	go func() { srv.Serve(inR, outW); outW.Close() }()
	defer inW.Close()
	w := bufio.NewWriter(inW)
	fmt.Fprintln(w, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	w.Flush()
	r := bufio.NewReaderSize(outR, 1<<16)
	if _, err := r.ReadBytes('\n'); err != nil {
		tb.Fatal(err)
	}
	sent := make([]time.Time, calls)
	lat = make([]time.Duration, calls)
	done := make(chan struct{})
	credit := make(chan struct{}, window)
	for i := 0; i < window; i++ {
		credit <- struct{}{}
	}
	go func() {
		defer close(done)
		for i := 0; i < calls; i++ {
			line, err := r.ReadBytes('\n')
			if err != nil {
				tb.Error(err)
				return
			}
			var m struct {
				ID     int `json:"id"`
				Result struct {
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			if err := json.Unmarshal(line, &m); err != nil || m.Result.IsError || m.ID < 1 || m.ID > calls {
				tb.Errorf("bad response %s", line)
				return
			}
			lat[m.ID-1] = time.Since(sent[m.ID-1])
			credit <- struct{}{}
		}
	}()
	begin := time.Now()
	for i := 0; i < calls; i++ {
		<-credit
		sent[i] = time.Now()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d}}}`+"\n", i+1, i)
		if len(credit) == 0 {
			w.Flush()
		}
	}
	w.Flush()
	<-done
	elapsed := time.Since(begin)
	return float64(calls) / elapsed.Seconds(), lat
}

func percentile(lat []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), lat...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

// BenchmarkStdioToolsCall measures tools/call of a trivial tool over OS
// pipes from one pipelining client: calls/s and p50/p99 latency.
func BenchmarkStdioToolsCall(b *testing.B) {
	sf := loadSurface(&testing.T{}, writeBenchScript(b), io.Discard)
	b.ResetTimer()
	perSec, lat := stdioRun(b, sf, max(b.N, 1000), 16)
	b.ReportMetric(perSec, "calls/s")
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
}

func writeBenchScript(tb testing.TB) string {
	dir, err := os.MkdirTemp("", "harn-mcp-bench")
	if err != nil {
		tb.Fatal(err)
	}
	p := dir + "/bench.harn"
	os.WriteFile(p, []byte(trivialScript), 0o644)
	return p
}

// TestThroughputFloor checks the 20,000 calls/s floor when
// HARN_MCP_PERF is set (a loaded CI machine would make it flaky).
func TestThroughputFloor(t *testing.T) {
	if os.Getenv("HARN_MCP_PERF") == "" {
		t.Skip("set HARN_MCP_PERF=1 to check the throughput floor")
	}
	sf := loadSurface(t, writeScript(t, trivialScript), io.Discard)
	perSec, lat := stdioRun(t, sf, 100000, 16)
	t.Logf("%.0f calls/s, p50 %v, p99 %v", perSec, percentile(lat, 0.5), percentile(lat, 0.99))
	if perSec < 20000 {
		t.Errorf("%.0f calls/s < 20000", perSec)
	}
}

// BenchmarkStdioToolsCallSerial is the same with one call in flight:
// the round-trip latency a non-pipelining client sees.
func BenchmarkStdioToolsCallSerial(b *testing.B) {
	sf := loadSurface(&testing.T{}, writeBenchScript(b), io.Discard)
	b.ResetTimer()
	perSec, lat := stdioRun(b, sf, max(b.N, 1000), 1)
	b.ReportMetric(perSec, "calls/s")
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
}

// BenchmarkHTTPToolsCall64 is issue 11's load — session-free HTTP
// tools/call from 64 concurrent clients over loopback — on this
// package's HTTP handler in this process, so `-cpuprofile` sees the
// server's side (mcp/loadtest's BenchmarkHarnServeMCP64 loads the
// built binary). CPU per call includes the load generator's.
func BenchmarkHTTPToolsCall64(b *testing.B) {
	sf := loadSurface(&testing.T{}, writeBenchScript(b), io.Discard)
	h := NewServer(sf, Options{}).HTTPHandler(HTTPOptions{})
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	res, err := loadtest.RunHandler(context.Background(), h, loadtest.Options{Tool: "echo", Arguments: json.RawMessage(`{"n":1}`),
		Clients: 64, Requests: max(b.N, 640)})
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if err != nil || res.Errors > 0 {
		b.Fatalf("%v %s", err, res.FirstError)
	}
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/float64(res.Requests), "cpu-us/call")
	b.ReportMetric(float64(res.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(res.P99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(res.PerSecond(), "calls/s")
	b.ReportMetric(float64(res.Passed99), "p99-passed")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkHTTPToolsCall is one session-free HTTP tools/call of the
// trivial tool through `harn serve mcp`'s handler, without the network:
// the server's CPU and allocations per call, which the 64-client load
// above multiplies.
func BenchmarkHTTPToolsCall(b *testing.B) {
	sf := loadSurface(&testing.T{}, writeBenchScript(b), io.Discard)
	h := NewServer(sf, Options{Stderr: io.Discard}).HTTPHandler(HTTPOptions{})
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"n":1},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "echo")
	w := &discardWriter{header: http.Header{}}
	rd := bytes.NewReader(body)
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		clear(w.header)
		w.status, w.body = 0, w.body[:0]
		h.ServeHTTP(w, req)
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	if w.status != http.StatusOK || !bytes.Contains(w.body, []byte(`"text":"1"`)) {
		b.Fatalf("answer %d %s", w.status, w.body)
	}
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

// processCPU is the CPU time this process used so far, user and system:
// on a shared machine it measures a call's work where wall-clock time
// measures the other load.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

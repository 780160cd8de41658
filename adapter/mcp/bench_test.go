package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
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
	before := loadtest.ProcessCPU()
	b.ResetTimer()
	res, err := loadtest.RunHandler(context.Background(), h, loadtest.Options{Tool: "echo", Arguments: json.RawMessage(`{"n":1}`),
		Clients: 64, Requests: max(b.N, 640)})
	b.StopTimer()
	if err != nil || res.Errors > 0 {
		b.Fatalf("%v %s", err, res.FirstError)
	}
	cpu := loadtest.ProcessCPU() - before
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
	if status, answer := loadtest.BenchToolsCall(b, h, "echo", `{"n":1}`); status != http.StatusOK || !bytes.Contains(answer, []byte(`"text":"1"`)) {
		b.Fatalf("answer %d %s", status, answer)
	}
}

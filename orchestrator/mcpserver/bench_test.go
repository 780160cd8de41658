package mcpserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator"
)

// BenchmarkToolFire is issue 11's dispatch rate measured at the MCP
// tool: session-free HTTP tools/call of harn.trigger.fire (a trivial
// local handler) through the server's handler, on a SQLite log, with
// GOMAXPROCS*16 concurrent callers and no network. Each call is the
// whole path — routing headers, argument checks, accept into the inbox,
// the handler, completion records, the stderr line and action-graph
// record (written off the call path) — that orchestrator's
// BenchmarkFire* measures below the protocol. cpu-us/op is the
// process's CPU time per call, which a shared machine does not skew.
func BenchmarkToolFire(b *testing.B) {
	benchTool(b, "harn.trigger.fire", `{"trigger_id":"cron-ok","payload":{}}`, `"status":"succeeded"`)
}

// BenchmarkToolTrustQuery and BenchmarkToolSecretScan are the calls
// mcp/loadtest's BenchmarkHarnMcpServe64 makes, without the network:
// what the orchestrator adds to the protocol layer's floor (a read, and
// a call that appends an audit record synchronously), besides the
// action-graph record each call appends.
func BenchmarkToolTrustQuery(b *testing.B) {
	benchTool(b, "harn.trust.query", `{}`, `"structuredContent":{"results":[]}`)
}

func BenchmarkToolSecretScan(b *testing.B) {
	benchTool(b, "harn.secret_scan", `{"content":"token = \"ghp_1234567890abcdefghijklmnopqrstuvwxyzAB\""}`, `"fingerprint"`)
}

// benchTool calls tool with args from GOMAXPROCS*16 concurrent callers
// through the HTTP handler of a server on a SQLite log; every answer
// must contain want.
func benchTool(b *testing.B, tool, args, want string) {
	dir := writeFixture(b)
	log, err := sqlite.Open(context.Background(), filepath.Join(dir, "events.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	srv, err := New(context.Background(), Options{ManifestPath: filepath.Join(dir, "harn.toml"), StateDir: dir, Log: log, Version: "bench", Bind: "127.0.0.1:0",
		Stderr: io.Discard, Node: orchestrator.Options{Workers: 32}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	h := srv.HTTPHandler("/mcp", nil)
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	call := func() {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(want)) {
			b.Fatalf("answer %d %s", w.Code, w.Body.Bytes())
		}
	}
	call() // the runtime is loaded
	// As harn sets it (cmd/harn), so the collector costs what it costs
	// the server.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	b.ResetTimer()
	start, cpu := time.Now(), processCPU()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
	srv.Flush() // the records of the calls are part of their cost
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-us/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package mcpserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"harn.trigger.fire","arguments":{"trigger_id":"cron-ok","payload":{}},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	call := func() {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "harn.trigger.fire")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"status":"succeeded"`)) {
			b.Fatalf("answer %d %s", w.Code, w.Body.Bytes())
		}
	}
	call() // the runtime is loaded
	b.ResetTimer()
	start, cpu := time.Now(), processCPU()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "dispatches/s")
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-us/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

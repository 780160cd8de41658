package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator/mcpserver"
)

// BenchmarkOrchestratorInProcess64 loads the orchestrator's MCP server
// (package orchestrator/mcpserver, what `harn mcp serve` runs) in this
// process, so `-cpuprofile` and `-memprofile` see the server's side of
// each call. Its figures include the load generator's CPU.
func BenchmarkOrchestratorInProcess64(b *testing.B) {
	for _, backend := range []string{"sqlite", "memory"} {
		b.Run(backend, func(b *testing.B) {
			dir := b.TempDir()
			var log eventlog.Log = memory.New()
			if backend == "sqlite" {
				l, err := sqlite.Open(context.Background(), filepath.Join(dir, "events.sqlite"))
				if err != nil {
					b.Fatal(err)
				}
				log = l
			}
			defer log.Close()
			manifest, _ := filepath.Abs("testdata/harn.toml")
			srv, err := mcpserver.New(context.Background(), mcpserver.Options{ManifestPath: manifest, StateDir: dir, Log: log,
				Version: "bench", Bind: "127.0.0.1:0", Stderr: io.Discard})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			h := srv.HTTPHandler("/mcp", nil)
			for _, c := range benchCalls {
				b.Run(c.tool, func(b *testing.B) {
					load(b, func(o Options) (Result, error) { return RunHandler(context.Background(), h, o) },
						Options{Tool: c.tool, Arguments: json.RawMessage(c.args)}, selfCPU)
				})
			}
		})
	}
}

// BenchmarkOrchestratorToolsCall is one session-free HTTP tools/call
// through the orchestrator's handler on the in-memory log, without the
// network: the server's CPU and allocations per call, which the
// 64-client load above multiplies.
func BenchmarkOrchestratorToolsCall(b *testing.B) {
	dir := b.TempDir()
	log := memory.New()
	defer log.Close()
	manifest, _ := filepath.Abs("testdata/harn.toml")
	srv, err := mcpserver.New(context.Background(), mcpserver.Options{ManifestPath: manifest, StateDir: dir, Log: log,
		Version: "bench", Bind: "127.0.0.1:0", Stderr: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	h := srv.HTTPHandler("/mcp", nil)
	for _, c := range benchCalls {
		b.Run(c.tool, func(b *testing.B) {
			body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":` + c.args + `,` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", c.tool)
			w := &discardWriter{header: http.Header{}}
			rd := bytes.NewReader(body)
			b.ReportAllocs()
			cpu := selfCPU.read()
			for b.Loop() {
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				clear(w.header)
				w.status, w.body = 0, w.body[:0]
				h.ServeHTTP(w, req)
			}
			b.ReportMetric(float64(selfCPU.read()-cpu)/float64(b.N), "cpu-ns/op")
			if w.status != http.StatusOK || bytes.Contains(w.body, []byte(`"isError":true`)) {
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

func (w *discardWriter) Header() http.Header    { return w.header }
func (w *discardWriter) WriteHeader(status int) { w.status = status }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/eventlog/postgres"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator/mcpserver"
)

// BenchmarkOrchestratorInProcess64 loads the orchestrator's MCP server
// (package orchestrator/mcpserver, what `harn mcp serve` runs) in this
// process, so `-cpuprofile` and `-memprofile` see the server's side of
// each call. Its figures include the load generator's CPU.
func BenchmarkOrchestratorInProcess64(b *testing.B) {
	for _, backend := range []string{"sqlite", "memory", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			dir := b.TempDir()
			var log eventlog.Log = memory.New()
			var err error
			switch backend {
			case "sqlite":
				log, err = sqlite.Open(context.Background(), filepath.Join(dir, "events.sqlite"))
			case "postgres":
				log, err = postgres.Open(context.Background(), postgresURL(b))
			}
			if err != nil {
				b.Fatal(err)
			}
			h := orchestratorHandler(b, dir, log)
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
	h := orchestratorHandler(b, b.TempDir(), memory.New())
	for _, c := range benchCalls {
		b.Run(c.tool, func(b *testing.B) {
			if status, answer := BenchToolsCall(b, h, c.tool, c.args); status != http.StatusOK || bytes.Contains(answer, []byte(`"isError":true`)) {
				b.Fatalf("answer %d %s", status, answer)
			}
		})
	}
}

// orchestratorHandler is the HTTP handler of an orchestrator MCP server on
// log, with the test manifest and dir as its state dir; the server, then
// the log, are closed when the benchmark ends.
func orchestratorHandler(b *testing.B, dir string, log eventlog.Log) http.Handler {
	b.Helper()
	b.Cleanup(func() { log.Close() })
	manifest, _ := filepath.Abs("testdata/harn.toml")
	srv, err := mcpserver.New(context.Background(), mcpserver.Options{ManifestPath: manifest, StateDir: dir, Log: log,
		Version: "bench", Bind: "127.0.0.1:0", Stderr: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv.HTTPHandler("/mcp", nil)
}

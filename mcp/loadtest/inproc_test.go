package loadtest

import (
	"context"
	"encoding/json"
	"io"
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

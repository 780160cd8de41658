//go:build !harnlite

package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/eventlog/backend"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator"
)

// TestMCPServeFailedBindLeavesLogUntouched: a server whose --bind port is
// taken refuses to start before it registers its bindings, so the shared
// event log gets no binding_registered records.
func TestMCPServeFailedBindLeavesLogUntouched(t *testing.T) {
	t.Setenv("HARN_EVENT_LOG_BACKEND", "sqlite")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	state := t.TempDir()
	log, err := sqlite.Open(context.Background(), filepath.Join(state, backend.DefaultSQLiteFile))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	var out, errb bytes.Buffer
	code := run([]string{"mcp", "serve", "--config", fixtureManifest, "--state-dir", state, "--transport", "http", "--bind", busy.Addr().String()}, nil, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "address already in use") {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if n, _ := log.Count(context.Background(), orchestrator.TopicLifecycle); n != 0 {
		t.Fatalf("a failed start wrote %d lifecycle records", n)
	}
}

package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator"
)

// BenchmarkTrustQuery is one harn.trust.query on a SQLite log holding
// n trust records, without the protocol around it.
func BenchmarkTrustQuery(b *testing.B) {
	for _, n := range []int{0, 100, 1000} {
		ctx := context.Background()
		dir := writeFixture(b)
		log, err := sqlite.Open(ctx, filepath.Join(dir, "events.db"))
		if err != nil {
			b.Fatal(err)
		}
		recs := make([]eventlog.TopicRecord, n)
		for i := range recs {
			p, _ := json.Marshal(orchestrator.TrustRecord{Agent: "triage", Tier: "act_auto", Outcome: "success", EventID: fmt.Sprintf("e%d", i)})
			recs[i] = eventlog.TopicRecord{Topic: orchestrator.TopicTrust, Record: eventlog.Record{Kind: "trust_success", Payload: p}}
		}
		if n > 0 {
			if _, err := log.AppendAll(ctx, recs...); err != nil {
				b.Fatal(err)
			}
		}
		srv, err := New(ctx, Options{ManifestPath: filepath.Join(dir, "harn.toml"), StateDir: dir, Log: log, Version: "9.9.9", Bind: "stdio", Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range []struct {
			name string
			args map[string]any
		}{{"all", map[string]any{"outcome": "success"}}, {"limit10", map[string]any{"limit": json.Number("10")}}} {
			b.Run(fmt.Sprintf("records=%d/%s", n, q.name), func(b *testing.B) {
				c := &callCtx{ctx: ctx}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := srv.trustQuery(c, q.args); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		srv.Close()
		log.Close()
	}
}

// Concurrent queries share the cached records while a writer appends
// (run with -race).
func TestTrustQueryConcurrent(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := &callCtx{ctx: ctx}
			for range 20 {
				got, err := c.srv.trustQuery(cc, map[string]any{"outcome": "success", "limit": json.Number("5")})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := jsonMarshal(got); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 40 {
		p, _ := json.Marshal(orchestrator.TrustRecord{Agent: "triage", Tier: "act_auto", Outcome: "success", EventID: fmt.Sprintf("e%d", i)})
		if _, err := c.log.Append(ctx, orchestrator.TopicTrust, eventlog.Record{Kind: "trust_success", Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	got, err := c.srv.trustQuery(&callCtx{ctx: ctx}, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.(map[string]any)["results"].([]any)); n != 40 {
		t.Errorf("%d records, want 40", n)
	}
}

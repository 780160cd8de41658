package postgres

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestFailingStepInGroup: a step the database refuses fails alone; the
// steps submitted with it (and so first committed in its group) succeed,
// and ids stay dense.
func TestFailingStepInGroup(t *testing.T) {
	ctx := context.Background()
	l, err := Open(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const n = 32
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if i%8 != 3 {
				_, errs[i] = l.Append(ctx, "t", eventlog.Record{Kind: fmt.Sprint("ok", i)})
				return
			}
			// A step whose statement fails, with records of its own.
			errs[i] = l.write(ctx, &step{
				queue:   func(b *pgx.Batch, _ string) { b.Queue(`SELECT 1 / 0`) },
				records: []eventlog.TopicRecord{{Topic: "t", Record: eventlog.Record{Kind: "never"}}},
			})
		}(i)
	}
	wg.Wait()
	bad := 0
	for i, err := range errs {
		if i%8 == 3 {
			bad++
			if err == nil {
				t.Errorf("step %d: the failing statement did not fail it", i)
			}
		} else if err != nil {
			t.Errorf("append %d: %v", i, err)
		}
	}
	recs, err := l.Read(ctx, "t", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.ID != int64(i+1) || r.Kind == "never" {
			t.Fatalf("record %d: id %d kind %q; want dense ids and no record of a failed step", i, r.ID, r.Kind)
		}
	}
	if len(recs) != n-bad {
		t.Errorf("%d records, want %d", len(recs), n-bad)
	}
}

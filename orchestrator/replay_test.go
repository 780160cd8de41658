package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/orchestrator/manifest"
)

const replayManifestV1 = `
[package]
name = "replay"

[[triggers]]
id = "t"
kind = "manual"
handler = "h1"
when = "w1"

[[triggers]]
id = "r"
kind = "manual"
handler = "boom"
retry = { max = 0 }
`

const replayManifestV2 = `
[package]
name = "replay"

[[triggers]]
id = "t"
kind = "manual"
handler = "h2"
when = "w2"

[[triggers]]
id = "r"
kind = "manual"
handler = "boom"
retry = { max = 3, backoff = "linear", base = "1h" }
`

const replayLib = `
fn h1(event) { return "h1" }
fn h2(event) { return "h2" }
fn w1(event) { return true }
fn w2(event) { return event.payload.go == true }
fn boom(event) { throw "boom" }
`

// TestReplayAsOfRunsTheBindingAsItWas: a replay as of an instant runs
// the binding version in force then — its handler, predicate and retry
// policy as recorded — with the code loaded now
// (docs/spec/orchestrator.md §3, docs/orchestrator.md); without as_of it
// runs today's binding.
func TestReplayAsOfRunsTheBindingAsItWas(t *testing.T) {
	ctx := context.Background()
	log := memory.New()
	path := writeProject(t, replayManifestV1, replayLib, "")
	o := start(t, log, path)
	reload := func(src, lib string) {
		t.Helper()
		if lib != "" {
			if err := os.WriteFile(filepath.Join(filepath.Dir(path), "lib.harn"), []byte(lib), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		m, err := manifest.Parse(path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Reload(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	before := time.Now().Add(-time.Hour)
	h := fire(t, o, "t", map[string]any{"payload": map[string]any{"go": false}})
	hr := fire(t, o, "r", nil)
	if h.Status != "succeeded" || h.Result != "h1" || hr.Status != "dlq" {
		t.Fatalf("v1: %s %s", js(h), js(hr))
	}
	time.Sleep(5 * time.Millisecond)
	asOf := time.Now()
	time.Sleep(5 * time.Millisecond)
	reload(replayManifestV2, "")
	if o.Binding("t").Version != 2 || o.Binding("r").Version != 2 {
		t.Fatalf("versions %d %d", o.Binding("t").Version, o.Binding("r").Version)
	}

	// Today's binding: w2 refuses the event; r retries in an hour.
	now, err := o.Replay(ctx, h.EventID, nil, Caller{})
	if err != nil {
		t.Fatal(err)
	}
	if now := now.(Handle); now.Status != "skipped" || now.BindingVersion != 2 {
		t.Fatalf("current: %s", js(now))
	}
	if now, _ := o.Replay(ctx, hr.EventID, nil, Caller{}); now.(Handle).Status != "failed" {
		t.Fatalf("current r: %s", js(now))
	}

	// As of then: w1 and h1, version 1.
	rep, err := o.Replay(ctx, h.EventID, &asOf, Caller{})
	if err != nil {
		t.Fatal(err)
	}
	rr := rep.(ReplayReport)
	if rr.Handle.Status != "succeeded" || rr.Handle.Result != "h1" || rr.Handle.BindingVersion != 1 || *rr.BindingVersionAsOf != 1 ||
		rr.BindingVersionCurrent != 2 || rr.HandlerAsOf != "h1" || rr.HandlerCurrent != "h2" || !rr.DefinitionChanged || *rr.Handle.ReplayOfEventID != h.EventID {
		t.Fatalf("as of: %s", js(rr))
	}
	ev, err := o.Event(ctx, rr.Handle.EventID)
	if err != nil || ev == nil || ev.BindingVersion != 1 {
		t.Fatalf("recorded replay %s %v", js(ev), err)
	}
	// retry = { max = 0 } as recorded: dead-lettered at once.
	rep, err = o.Replay(ctx, hr.EventID, &asOf, Caller{})
	if err != nil {
		t.Fatal(err)
	}
	if rr := rep.(ReplayReport); rr.Handle.Status != "dlq" || rr.Handle.BindingVersion != 1 {
		t.Fatalf("as of r: %s", js(rr))
	}

	// No binding then: an error, not today's binding.
	if _, err := o.Replay(ctx, h.EventID, &before, Caller{}); err == nil || !strings.Contains(err.Error(), "binding 't' was not registered at") {
		t.Fatalf("before registration: %v", err)
	}

	// The code loaded now no longer has h1: an error naming it.
	reload(replayManifestV2, strings.Replace(replayLib, `fn h1(event) { return "h1" }`, "", 1))
	_, err = o.Replay(ctx, h.EventID, &asOf, Caller{})
	if err == nil || !strings.Contains(err.Error(), "binding 't' version 1: handler h1 is not in the code loaded now: function h1 is not defined in lib.harn") {
		t.Fatalf("missing handler: %v", err)
	}
}

// TestReplayAsOfEchoesTheInstantUsed: the report's as_of is the instant
// the binding was resolved at, to the millisecond (the log's precision),
// not cut to whole seconds; a whole second has no fraction.
func TestReplayAsOfEchoesTheInstantUsed(t *testing.T) {
	ctx := context.Background()
	o := start(t, memory.New(), writeProject(t, replayManifestV1, replayLib, ""))
	h := fire(t, o, "t", map[string]any{"payload": map[string]any{"go": false}})
	// a whole second at least one second after the registration, so both
	// instants asked for (it and a fraction past it) come after it
	second := time.Now().UTC().Truncate(time.Second).Add(2 * time.Second)
	fraction := second.Add(123*time.Millisecond + 456*time.Microsecond)
	time.Sleep(time.Until(fraction) + 10*time.Millisecond)
	for asOf, want := range map[time.Time]string{
		fraction:                       fraction.Format("2006-01-02T15:04:05") + ".123Z",
		fraction.Truncate(time.Second): fraction.Format("2006-01-02T15:04:05") + "Z",
	} {
		rep, err := o.Replay(ctx, h.EventID, &asOf, Caller{})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.(ReplayReport).AsOf; got != want {
			t.Errorf("as_of %s reported as %s, want %s", asOf.Format(time.RFC3339Nano), got, want)
		}
	}
}

package orchestrator

import (
	"context"
	"strings"
	"testing"

	"github.com/harnlang/harn/eventlog/memory"
)

// The manifest fields that shape dispatch beyond the handler: each test
// fails when its field is accepted but ignored.

const fieldsManifest = `
[package]
name = "fields"

[[triggers]]
id = "orders"
kind = "manual"
handler = "echo"
dedupe_key = "payload.order"
filter = "payload.amount > ` + "`10`" + `"
`

const fieldsLib = `
fn echo(event) { return event.payload }
`

func TestDedupeKeyAndFilter(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, fieldsManifest, fieldsLib, ""))
	first := fire(t, o, "orders", map[string]any{"payload": map[string]any{"order": "A-1", "amount": 20}})
	if first.Status != "succeeded" || first.Duplicate {
		t.Fatalf("first: %s", js(first))
	}
	again := fire(t, o, "orders", map[string]any{"payload": map[string]any{"order": "A-1", "amount": 30}})
	if !again.Duplicate || again.EventID != first.EventID || again.Status != "succeeded" {
		t.Fatalf("same dedupe key: %s", js(again))
	}
	small := fire(t, o, "orders", map[string]any{"payload": map[string]any{"order": "A-2", "amount": 5}})
	if small.Status != "skipped" || !strings.Contains(js(small.Result), "did not match") {
		t.Fatalf("filtered: %s", js(small))
	}
	// No dedupe value: every event is its own.
	a := fire(t, o, "orders", map[string]any{"payload": map[string]any{"amount": 11}})
	b := fire(t, o, "orders", map[string]any{"payload": map[string]any{"amount": 11}})
	if a.Duplicate || b.Duplicate || a.EventID == b.EventID {
		t.Fatalf("no key: %s %s", js(a), js(b))
	}
	// A replay runs again even though its event has the same dedupe value.
	r, err := o.Replay(context.Background(), first.EventID, nil, Caller{})
	if err != nil || r.(Handle).Duplicate || r.(Handle).Status != "succeeded" {
		t.Fatalf("replay: %s %v", js(r), err)
	}
	claims, _ := log.Count(context.Background(), TopicInboxClaims)
	if claims != 2 {
		t.Fatalf("claims: %d", claims)
	}
}

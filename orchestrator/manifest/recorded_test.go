package manifest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestRecorded: a binding's Definition, kept in the event log as JSON
// (integers become floats), validates back to the same binding — the
// binding as it was, for a replay as of a past instant
// (docs/spec/orchestrator.md §3) — resolved through the [exports] of the
// manifest given.
func TestRecorded(t *testing.T) {
	m, err := Parse("harn.toml", []byte(good+`
[[triggers]]
id = "full"
kind = "manual"
handler = "handlers::on_ok"
when = "handlers::wanted"
when_budget = { timeout = "2s" }
timeout = 30
dedupe_key = "payload.id"
filter = "payload.ok"
retry = { max = 5, backoff = "linear", base = "1s", retention_days = 3 }
priority = { key = "payload.level", order = ["a", "b"] }
budget = { max_cost_usd = 1.5, max_tokens = 100 }
rate_limit = { max = 4, period = "1m" }
batch = { size = 3, timeout = "500ms", key = "payload.repo" }
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range m.Triggers {
		b, err := json.Marshal(tr.Definition)
		if err != nil {
			t.Fatal(err)
		}
		var def map[string]any
		if err := json.Unmarshal(b, &def); err != nil {
			t.Fatal(err)
		}
		got, err := m.Recorded(def)
		if err != nil {
			t.Fatalf("%s: %v", tr.ID, err)
		}
		// Compiled JMESPath and the lines of the file are not compared.
		for _, x := range []*Trigger{got, tr} {
			x.Dedupe, x.Match, x.Index, x.Line, x.Definition = nil, nil, 0, 0, nil
		}
		if !reflect.DeepEqual(got, tr) {
			t.Errorf("%s:\n got %+v\nwant %+v", tr.ID, got, tr)
		}
	}
	// A module alias the manifest no longer exports, or a field that no
	// longer validates, is an error naming the field.
	noExports, err := Parse("harn.toml", []byte("[package]\nname = \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noExports.Recorded(m.Trigger("cron-ok").Definition); err == nil || !strings.Contains(err.Error(), "handler: ") {
		t.Errorf("unknown alias: %v", err)
	}
	if _, err := m.Recorded(map[string]any{"id": "x", "kind": "manual", "handler": "h", "retry": map[string]any{"max": 1000.0}}); err == nil ||
		!strings.Contains(err.Error(), "the recorded definition no longer validates: retry.max: ") {
		t.Errorf("bad retry: %v", err)
	}
}

package trust_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/orchestrator"
)

func run(t *testing.T, src string) string {
	t.Helper()
	var stderr bytes.Buffer
	res := interp.RunProgram(filepath.Join(t.TempDir(), "trust.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
	if res.Err != nil {
		t.Fatalf("%v\n%s", res.Err, stderr.String())
	}
	return string(res.Stdout)
}

// A record's JSON form decodes into the orchestrator's TrustRecord with
// every field the orchestrator writes, so records from a script and from
// the trust.records topic have one shape.
func TestRecordMatchesOrchestratorShape(t *testing.T) {
	out := run(t, `
mock_time(1754000000000)
let r = trust_record("cron-ok", "handlers::on_ok", "act_auto", "failure", {event_id: "trigger_evt_1", trace_id: "tr", binding_version: 2, attempts: 3, error_class: "handler_panic", error: "boom", cost_usd_micros: 7, tokens: 9})
println(json_stringify(r))
`)
	var got orchestrator.TrustRecord
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	tr := "tr"
	boom := "boom"
	want := orchestrator.TrustRecord{Agent: "cron-ok", Action: "handlers::on_ok", Tier: "act_auto", Outcome: "failure", EventID: "trigger_evt_1",
		TraceID: &tr, BindingVersion: 2, Attempts: 3, ErrorClass: "handler_panic", Error: &boom, CostUSDMicros: 7, Tokens: 9, At: "2025-07-31T22:13:20Z"}
	if *got.TraceID != *want.TraceID || *got.Error != *want.Error {
		t.Fatalf("got %+v", got)
	}
	got.TraceID, got.Error, want.TraceID, want.Error = nil, nil, nil, nil
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// And the orchestrator's own JSON of a record is accepted back as
	// fields of trust_graph_record.
	b, _ := json.Marshal(orchestrator.TrustRecord{Agent: "a", Action: "b", Tier: "suggest", Outcome: "success", At: "2026-01-01T00:00:00Z"})
	out = run(t, `let r = trust_graph_record(json_parse(`+strconv.Quote(string(b))+`))
println(r.agent + " " + r.at + " " + to_string(r.chain_index))`)
	if out != "a 2026-01-01T00:00:00Z 0\n" {
		t.Errorf("orchestrator record: %q", out)
	}
}

// Tasks recording at once build one unbroken chain (run with -race).
func TestConcurrentRecordsKeepTheChain(t *testing.T) {
	out := run(t, `
let ts = range(8).map({ i -> spawn {
  for j in range(25) { trust_record("agent" + to_string(i), "job", "suggest", "success") }
} })
for t in ts { await(t) }
let v = trust_graph_verify_chain()
println(to_string(v.valid) + " " + to_string(v.checked))
println(trust_graph_query().map({ r -> r.chain_index }) == range(200).to_list())
`)
	if out != "true 200\ntrue\n" {
		t.Errorf("%q", out)
	}
}

// Every kind of tampering breaks the chain at the right record.
func TestVerifyDetectsTampering(t *testing.T) {
	out := run(t, `
for i in range(5) { trust_record("bot", "job" + to_string(i), "suggest", "success") }
let recs = trust_graph_query()
fn at(rs) { let v = trust_graph_verify_chain(rs)
  return to_string(v.broken_at) + " " + to_string(v.reason) }
println(at(recs))
println(at([recs[0], recs[2]]))
println(at([recs[1], recs[0]]))
println(at(recs.slice(2, 5)))
println(at([recs[0].merge({previous_hash: "abc"}).merge({entry_hash: recs[0].entry_hash})]))
var forged = recs[1].merge({previous_hash: "00"})
forged = forged.merge({entry_hash: sha256(json_stringify(forged.remove("entry_hash")))})
println(at([recs[0], forged]))
println(at([recs[0].remove("entry_hash")]))
`)
	want := `nil nil
1 record 1: chain_index 2 does not follow 0
1 record 1: chain_index 0 does not follow 1
nil nil
0 record 0: entry_hash does not match the record's content
1 record 1: previous_hash does not match the entry_hash of the record before it
0 record 0: no entry_hash
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// The first record of a whole chain has no previous_hash: a rehashed
// first record claiming one is caught.
func TestVerifyFirstRecord(t *testing.T) {
	out := run(t, `
let r = trust_record("bot", "job", "suggest", "success")
var f = r.merge({previous_hash: "ff"})
f = f.merge({entry_hash: sha256(json_stringify(f.remove("entry_hash")))})
println(trust_graph_verify_chain([f]).reason)
`)
	if out != "record 0: the first record of a chain has a previous_hash\n" {
		t.Errorf("%q", out)
	}
}

// Each run has a trust graph of its own.
func TestGraphIsPerRun(t *testing.T) {
	src := `println(len(trust_graph_query())); trust_record("a", "b", "shadow", "success")`
	if a, b := run(t, src), run(t, src); a != "0\n" || b != "0\n" {
		t.Errorf("%q %q", a, b)
	}
}

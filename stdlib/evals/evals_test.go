package evals_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
)

func run(t *testing.T, dir, src string) (string, error) {
	t.Helper()
	var stderr bytes.Buffer
	res := interp.RunProgram(filepath.Join(dir, "evals.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
	return string(res.Stdout), res.Err
}

func mustRun(t *testing.T, dir, src string) string {
	t.Helper()
	out, err := run(t, dir, src)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A record saved without a path lands in <state root>/runs/<id>.json as
// JSON, with no temporary file left beside it, and loads back by id.
func TestSaveLoadByIDUnderStateRoot(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	t.Setenv("HARN_STATE_DIR", state)
	out := mustRun(t, dir, `
mock_time(1754000000000)
let r = run_record({id: "abc", inputs: {q: 1}, outputs: {a: [1, 2]}})
println(run_record_save(r))
println(run_record_load("abc") == r)
println(load_run_tree().runs.map({ x -> x.id }))
`)
	want := filepath.Join(state, "runs", "abc.json")
	if got := strings.Split(out, "\n"); got[0] != want || got[1] != "true" || got[2] != "[abc]" {
		t.Fatalf("output %q, want path %s", out, want)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec["id"] != "abc" || rec["started_at"] != "2025-07-31T22:13:20Z" || rec["status"] != "completed" {
		t.Errorf("saved %s", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(want))
	if len(entries) != 1 {
		t.Errorf("runs dir holds %d entries, want only the record", len(entries))
	}
}

// Saving again replaces the file.
func TestSaveReplaces(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HARN_STATE_DIR", filepath.Join(dir, "state"))
	out := mustRun(t, dir, `
run_record_save({id: "x", status: "running"})
run_record_save({id: "x", status: "failed"})
println(run_record_load("x").status)
`)
	if out != "failed\n" {
		t.Fatalf("got %q", out)
	}
}

// Loading an id that was never saved names the path it looked at.
func TestLoadMissingID(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HARN_STATE_DIR", filepath.Join(dir, "state"))
	_, err := run(t, dir, `run_record_load("nope")`)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "state", "runs", "nope.json")) {
		t.Fatalf("err %v", err)
	}
}

// Friction events and counters are per run: a second program starts empty.
func TestLogsArePerRun(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		out := mustRun(t, dir, `
friction_record("a")
println(len(friction_events()))
println(metrics_inc("n"))
println(event_log_emit("t").seq)
`)
		if out != "1\n1\n1\n" {
			t.Fatalf("run %d: %q", i, out)
		}
	}
}

// Tasks of one run share its logs; concurrent increments are not lost.
func TestMetricsIncConcurrent(t *testing.T) {
	out := mustRun(t, t.TempDir(), `
let tasks = range(8).map({ i -> spawn { for j in range(50) { metrics_inc("n") } } })
for t in tasks { await(t) }
println(metrics_inc("n", 0))
`)
	if out != "400\n" {
		t.Fatalf("got %q", out)
	}
}

// A metric that throws fails its case with the message; the run goes on.
func TestMetricThrowIsCaseError(t *testing.T) {
	out := mustRun(t, t.TempDir(), `
let r = eval_suite_run({name: "s", cases: [{name: "a", input: 1, expected: 1}], target: { x -> x },
  metrics: [eval_metric("m", { o, e, c -> throw "metric broke" })]})
println(r.results[0].error)
println(r.results[0].passed)
`)
	if out != "metric `m`: metric broke\nfalse\n" {
		t.Fatalf("got %q", out)
	}
}

// metrics_inc refuses to wrap around.
func TestMetricsIncOverflow(t *testing.T) {
	_, err := run(t, t.TempDir(), `
metrics_inc("n", 9223372036854775807)
metrics_inc("n")
`)
	if err == nil || !strings.Contains(err.Error(), "metrics_inc: counter `n` would overflow") {
		t.Fatalf("err %v", err)
	}
}

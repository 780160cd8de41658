package checkpoints_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harnlang/harn/interp"
)

// run runs src as dir/name and returns what it printed.
func run(t *testing.T, dir, name, src string) (string, error) {
	t.Helper()
	var stderr bytes.Buffer
	res := interp.RunProgram(filepath.Join(dir, name), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
	return string(res.Stdout), res.Err
}

// A second run of the same script sees what the first saved: the point
// of checkpoints.
func TestResumeAcrossRuns(t *testing.T) {
	state := t.TempDir()
	t.Setenv("HARN_STATE_DIR", state)
	src := `
let done = checkpoint_list()
println(done)
if !checkpoint_exists("a") { checkpoint("a", {rows: [1, 2.0]}) }
else { checkpoint("b", checkpoint_get("a").rows) }
`
	dir := t.TempDir()
	for i, want := range []string{"[]\n", "[a]\n", "[a, b]\n"} {
		out, err := run(t, dir, "job.harn", src)
		if err != nil || out != want {
			t.Fatalf("run %d: %q, %v; want %q", i+1, out, err, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(state, "checkpoints", "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": {\n    \"rows\": [\n      1,\n      2.0\n    ]\n  },\n  \"b\": [\n    1,\n    2.0\n  ]\n}\n"
	if string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	// A script of another name has checkpoints of its own.
	if out, err := run(t, dir, "other.harn", `println(checkpoint_list())`); err != nil || out != "[]\n" {
		t.Errorf("other pipeline: %q, %v", out, err)
	}
}

// Runs saving different keys at once into one pipeline's file lose none
// of them: every change re-reads the file under the lock (run with -race).
func TestConcurrentRunsKeepEveryKey(t *testing.T) {
	state := t.TempDir()
	t.Setenv("HARN_STATE_DIR", state)
	dir := t.TempDir()
	const runs, keys = 4, 10
	var wg sync.WaitGroup
	for r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := fmt.Sprintf(`for i in range(%d) { checkpoint("r%d_" + to_string(i), i) }`, keys, r)
			if _, err := run(t, dir, "shared.harn", src); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	out, err := run(t, dir, "shared.harn", `println(len(checkpoint_list()))`)
	if err != nil || out != fmt.Sprintf("%d\n", runs*keys) {
		t.Fatalf("keys saved: %q, %v", out, err)
	}
	entries, _ := os.ReadDir(filepath.Join(state, "checkpoints"))
	if len(entries) != 1 {
		t.Errorf("files left in the checkpoints directory: %v", entries)
	}
}

// Tasks of one run share the pipeline's checkpoints.
func TestTasksShareCheckpoints(t *testing.T) {
	t.Setenv("HARN_STATE_DIR", t.TempDir())
	out, err := run(t, t.TempDir(), "tasks.harn", `
let ts = [1, 2, 3, 4].map({ i -> spawn { checkpoint("t" + to_string(i), i * i) } })
for t in ts { await(t) }
println(checkpoint_list())
println(checkpoint_get("t3"))
`)
	if err != nil || out != "[t1, t2, t3, t4]\n9\n" {
		t.Fatalf("%q, %v", out, err)
	}
}

// checkpoint_clear removes a damaged file, which every other builtin
// reports.
func TestClearRecoversDamagedFile(t *testing.T) {
	state := t.TempDir()
	t.Setenv("HARN_STATE_DIR", state)
	dir := t.TempDir()
	p := filepath.Join(state, "checkpoints", "broken.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("{not json"), 0o644)
	_, err := run(t, dir, "broken.harn", `checkpoint("k", 1)`)
	if err == nil || !strings.Contains(err.Error(), "checkpoint: checkpoints/broken.json is not valid JSON") {
		t.Fatalf("save over a damaged file: %v", err)
	}
	out, err := run(t, dir, "broken.harn", `println(checkpoint_clear()); checkpoint("k", 1); println(checkpoint_list())`)
	if err != nil || out != "0\n[k]\n" {
		t.Fatalf("%q, %v", out, err)
	}
}

// Reading, deleting and clearing a pipeline that saved nothing leave the
// state root untouched.
func TestNoFileNoDirectories(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv("HARN_STATE_DIR", state)
	out, err := run(t, t.TempDir(), "idle.harn", `
println(checkpoint_get("k", 1))
println(checkpoint_exists("k"))
println(checkpoint_delete("k"))
println(checkpoint_clear())
println(checkpoint_list())`)
	if err != nil || out != "1\nfalse\nfalse\n0\n[]\n" {
		t.Fatalf("%q, %v", out, err)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the state root was created: %v", err)
	}
}

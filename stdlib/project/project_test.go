package project_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
	_ "github.com/harnlang/harn/stdlib" // the full library
)

// run runs src as dir/main.harn (the execution root is the process's
// working directory) and returns what it printed.
func run(t *testing.T, dir, src string) (string, error) {
	t.Helper()
	var stderr bytes.Buffer
	res := interp.RunProgram(filepath.Join(dir, "main.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
	return string(res.Stdout), res.Err
}

func mustRun(t *testing.T, dir, src string) string {
	t.Helper()
	out, err := run(t, dir, src)
	if err != nil {
		t.Fatalf("%v\nprogram:\n%s", err, src)
	}
	return out
}

func mtime() time.Time { return time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC) }

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func q(s string) string { return fmt.Sprintf("%q", s) }

// A symlink loop followed by follow_symlinks is noted and not entered;
// the walk ends.
func TestSymlinkLoopIsNotedNotFollowed(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a/file.txt": "x"})
	if err := os.Symlink("..", filepath.Join(root, "a", "up")); err != nil {
		t.Skip("no symlinks:", err)
	}
	out := mustRun(t, root, `
let w = project_walk_tree_native(`+q(root)+`, {follow_symlinks: true})
println(w.entries.map({ e -> e.path + ":" + e.kind + ":" + (e.note ?? "") }))
println(w.skipped)
println(scan_directory(`+q(root)+`).map({ e -> e.path + ":" + e.kind }))
`)
	want := "[a:dir:, a/file.txt:file:, a/up:dir:symlink loop]\n[{path: a/up, reason: symlink loop}]\n[a:dir, a/file.txt:file, a/up:symlink]\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// A broken symlink is listed as a symlink; following it notes it.
func TestBrokenSymlink(t *testing.T) {
	root := t.TempDir()
	if err := os.Symlink("nowhere", filepath.Join(root, "dangling")); err != nil {
		t.Skip("no symlinks:", err)
	}
	out := mustRun(t, root, `
let w = project_walk_tree_native(`+q(root)+`, {follow_symlinks: true})
println(w.entries.map({ e -> e.kind }))
println(w.skipped[0].reason.starts_with("broken symlink"))
println(len(project_fingerprint(`+q(root)+`)))
`)
	if out != "[symlink]\ntrue\n64\n" {
		t.Errorf("got %q", out)
	}
}

// An unreadable directory is skipped with a note (root can read
// anything, so the test needs an ordinary user).
func TestUnreadableDirectoryIsSkipped(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	root := t.TempDir()
	write(t, root, map[string]string{"locked/secret.txt": "x", "open.txt": "y"})
	locked := filepath.Join(root, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	out := mustRun(t, root, `
let w = project_walk_tree_native(`+q(root)+`)
println(w.entries.map({ e -> e.path }))
println(w.skipped.map({ s -> s.path }))
`)
	if out != "[locked, open.txt]\n[locked]\n" {
		t.Errorf("got %q", out)
	}
}

// .gitignore rules: negation, directory-only patterns, anchored patterns,
// ** and nested files.
func TestGitignoreRules(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".gitignore":        "# comment\n*.log\n!important.log\n/top-only.txt\nout/\ndocs/**/draft.md\n",
		"important.log":     "",
		"x.log":             "",
		"top-only.txt":      "",
		"sub/top-only.txt":  "",
		"out/a":             "",
		"sub/out":           "a file named out is not a directory",
		"docs/a/b/draft.md": "",
		"docs/draft.md":     "",
		"docs/keep.md":      "",
		"pkg/.gitignore":    "gen.go\n",
		"pkg/gen.go":        "",
		"pkg/main.go":       "",
		"gen.go":            "",
	})
	out := mustRun(t, root, `println(project_walk_tree_native(`+q(root)+`, {include: "*"}).entries.map({ e -> e.path }))`)
	want := "[.gitignore, docs/keep.md, gen.go, important.log, pkg/.gitignore, pkg/main.go, sub/out, sub/top-only.txt]\n"
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// The fingerprint ignores modification times and changes with content.
func TestFingerprintContentOnly(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a.txt": "one", "d/b.txt": "two"})
	src := `println(project_fingerprint(` + q(root) + `))`
	first := mustRun(t, root, src)
	p := filepath.Join(root, "a.txt")
	os.Chtimes(p, mtime(), mtime())
	if again := mustRun(t, root, src); again != first {
		t.Errorf("a touched file changed the fingerprint")
	}
	write(t, root, map[string]string{"d/b.txt": "TWO"})
	if changed := mustRun(t, root, src); changed == first {
		t.Errorf("an edited file kept the fingerprint")
	}
}

// The metadata store survives across runs, lives under the state root
// and records source paths relative to the project root.
func TestMetadataAcrossRuns(t *testing.T) {
	state := t.TempDir()
	t.Setenv("HARN_STATE_DIR", state)
	root := t.TempDir()
	write(t, root, map[string]string{"harn.toml": "[package]\nname = \"p\"\n", "src/in.txt": "v1"})
	t.Chdir(root)
	mustRun(t, root, `metadata_set("k", [1, 2.5, "x"], {source_paths: ["src/in.txt", "src/in.txt"]})`)
	b, err := os.ReadFile(filepath.Join(state, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"src/in.txt": "`) || !strings.Contains(string(b), `"version": 1`) {
		t.Errorf("file:\n%s", b)
	}
	out := mustRun(t, root, `println(metadata_get("k")); println(metadata_stale())`)
	if out != "[1, 2.5, x]\n[]\n" {
		t.Errorf("second run: %q", out)
	}
	write(t, root, map[string]string{"src/in.txt": "v2"})
	out = mustRun(t, root, `println(metadata_stale()); println(metadata_entries()[0].changed)`)
	if out != "[k]\n[src/in.txt]\n" {
		t.Errorf("after an edit: %q", out)
	}
	out = mustRun(t, root, `println(invalidate_facts(["./src/../src/in.txt"]))`)
	if out != "[k]\n" {
		t.Errorf("invalidate by a path spelled differently: %q", out)
	}
	if _, err := os.Stat(filepath.Join(state, "metadata.json")); !os.IsNotExist(err) {
		t.Errorf("an empty store keeps its file: %v", err)
	}
}

// A damaged file is reported; invalidate_facts("*") starts afresh.
func TestMetadataDamagedFile(t *testing.T) {
	state := t.TempDir()
	t.Setenv("HARN_STATE_DIR", state)
	os.WriteFile(filepath.Join(state, "metadata.json"), []byte("{oops"), 0o644)
	root := t.TempDir()
	_, err := run(t, root, `metadata_get("k")`)
	if err == nil || !strings.Contains(err.Error(), "metadata_get: metadata.json under the state root is damaged (not valid JSON)") {
		t.Fatalf("got %v", err)
	}
	out := mustRun(t, root, `println(invalidate_facts("*")); metadata_set("k", 1); println(metadata_get("k"))`)
	if out != "[]\n1\n" {
		t.Errorf("got %q", out)
	}
}

// Reading an empty store creates nothing under the state root.
func TestMetadataReadsCreateNothing(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv("HARN_STATE_DIR", state)
	out := mustRun(t, t.TempDir(), `
println(metadata_get("k"))
println(metadata_entries())
println(metadata_stale())
println(metadata_refresh_hashes())
println(invalidate_facts("*"))
println(metadata_status().exists)`)
	if out != "nil\n[]\n[]\n[]\n[]\nfalse\n" {
		t.Errorf("got %q", out)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the state root was created: %v", err)
	}
}

// Runs setting different keys at once lose none (run with -race): every
// change re-reads the file under the lock.
func TestMetadataConcurrentRuns(t *testing.T) {
	state := t.TempDir()
	t.Setenv("HARN_STATE_DIR", state)
	root := t.TempDir()
	const runs, keys = 4, 8
	var wg sync.WaitGroup
	for r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := fmt.Sprintf(`for i in range(%d) { metadata_set("r%d/" + to_string(i), i) }`, keys, r)
			if _, err := run(t, root, src); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	out := mustRun(t, root, `println(len(metadata_entries())); println(metadata_save())`)
	if want := fmt.Sprintf("%d\n%d\n", runs*keys, runs*keys); out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	entries, _ := os.ReadDir(state)
	if len(entries) != 1 {
		t.Errorf("files left in the state root: %v", entries)
	}
}

// Tasks of one run share the store.
func TestMetadataTasks(t *testing.T) {
	t.Setenv("HARN_STATE_DIR", t.TempDir())
	out := mustRun(t, t.TempDir(), `
let ts = [1, 2, 3, 4].map({ i -> spawn { metadata_resolve("t" + to_string(i), { -> i * i }) } })
for t in ts { await(t) }
println(metadata_entries().map({ e -> e.value }))`)
	if out != "[1, 4, 9, 16]\n" {
		t.Errorf("got %q", out)
	}
}

// With an include filter the tree still nests files under their
// directories.
func TestScanTreeWithInclude(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a/b/x.go": "", "a/y.txt": "", "z.go": ""})
	out := mustRun(t, root, `
fn paths(n) {
  if n.kind != "dir" { return [n.path] }
  var out = [n.path + "/"]
  for c in n.children { out = out + paths(c) }
  return out
}
let tr = project_scan_tree_native(`+q(root)+`, {include: "*.go"})
println(paths(tr))
println("${tr.file_count} ${tr.dir_count}")`)
	if out != "[/, a/, a/b/, a/b/x.go, z.go]\n2 2\n" {
		t.Errorf("got %q", out)
	}
}

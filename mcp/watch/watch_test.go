package watch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func harnFiles(root string) *Watcher {
	return &Watcher{
		Root:    root,
		SkipDir: func(_, name string) bool { return strings.HasPrefix(name, ".") },
		Follow:  func(_, name string) bool { return strings.HasSuffix(name, ".harn") },
		Poll:    10 * time.Millisecond, Settle: 10 * time.Millisecond,
	}
}

// A snapshot follows what the filters keep, and Changed names the files
// added, modified and removed.
func TestSnapshotAndChanged(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a.harn"), "a")
	write(t, filepath.Join(root, "notes.txt"), "n")
	write(t, filepath.Join(root, "sub", "b.harn"), "b")
	write(t, filepath.Join(root, ".git", "c.harn"), "c")
	w := harnFiles(root)
	before := w.Snapshot()
	var got []string
	for p := range before {
		got = append(got, p)
	}
	slices.Sort(got)
	if want := []string{filepath.Join(root, "a.harn"), filepath.Join(root, "sub", "b.harn")}; !slices.Equal(got, want) {
		t.Fatalf("followed %v, want %v", got, want)
	}
	write(t, filepath.Join(root, "a.harn"), "a, longer")
	os.Remove(filepath.Join(root, "sub", "b.harn"))
	write(t, filepath.Join(root, "d.harn"), "d")
	changed := Changed(before, w.Snapshot())
	slices.Sort(changed)
	if want := []string{filepath.Join(root, "a.harn"), filepath.Join(root, "d.harn"), filepath.Join(root, "sub", "b.harn")}; !slices.Equal(changed, want) {
		t.Fatalf("changed %v, want %v", changed, want)
	}
	if c := Changed(before, before); len(c) != 0 {
		t.Fatalf("no change reported as %v", c)
	}
}

// Run reports a change made after since with the state before and
// after it, and returns when stop is closed.
func TestRunReportsAChange(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.harn")
	write(t, path, "a")
	w := harnFiles(root)
	since := w.Snapshot()
	write(t, path, "a, edited")
	type change struct{ before, after Snapshot }
	changes := make(chan change, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		w.Run(since, stop, func(before, after Snapshot) { changes <- change{before, after} })
		close(done)
	}()
	var c change
	select {
	case c = <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported")
	}
	close(stop)
	<-done
	if c.before[path].Size != 1 || c.after[path].Size != int64(len("a, edited")) {
		t.Fatalf("before %v, after %v", c.before, c.after)
	}
}

package atomicfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Write leaves the new content and no temporary file behind.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	for _, s := range []string{`{"a":1}`, `{"a":2}`} {
		if err := Write(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != `{"a":2}` {
		t.Fatalf("content %q, %v", b, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
}

// A reader never sees a half-written file while a writer replaces it.
func TestWriteAtomicReaders(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	big := func(i int) []byte {
		return []byte(`{"i":` + strings.Repeat(" ", 64<<10) + string(rune('0'+i%10)) + `}`)
	}
	if err := Write(p, big(0)); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
				return
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("reader saw a partial file (%d bytes): %v", len(b), err)
				return
			}
		}
	}()
	for i := 1; i < 50; i++ {
		if err := Write(p, big(i)); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
}

// LockDir excludes a second holder (flock locks belong to the open file,
// so a second open in the same process contends like another process).
func TestLockDirExcludes(t *testing.T) {
	dir := t.TempDir()
	assertExcludes(t, func() (func(), error) { return LockDir(dir) })
}

// assertExcludes takes lock, then checks a second lock from another
// goroutine is granted only once the first is released.
func assertExcludes(t *testing.T, lock func() (unlock func(), err error)) {
	t.Helper()
	unlock, err := lock()
	if err != nil {
		t.Fatal(err)
	}
	var released atomic.Bool
	got := make(chan bool)
	go func() {
		u, err := lock()
		if err != nil {
			t.Error(err)
			got <- false
			return
		}
		got <- released.Load()
		u()
	}()
	released.Store(true)
	unlock()
	if !<-got {
		t.Fatal("the second lock was granted while the first was held")
	}
}

// CreateAndLockDir creates the directory and excludes a second holder
// until the first unlocks.
func TestCreateAndLockDirExcludes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	assertExcludes(t, func() (func(), error) { return CreateAndLockDir(dir) })
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("the directory was not created: %v", err)
	}
}

// A directory that cannot be created is an error, and leaves no lock
// held.
func TestCreateAndLockDirFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := CreateAndLockDir(filepath.Join(file, "d")); err == nil {
			t.Fatal("a directory below a file was locked")
		}
	}
}

package store

// Named JSON documents under the state root, the storage of std/agent_state
// and std/memory (docs/agents.md, "Agent state" and "Memory"): one file
// per agent session or memory namespace, read on every use and rewritten
// whole (atomicfile.Write) under one lock per VM and a flock on the
// directory, so that tasks and processes updating the same document never
// lose a change.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/harnlang/harn/internal/atomicfile"
	stdfs "github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/stdlib/templates"
	"github.com/harnlang/harn/vm"
)

type docsKey struct{}

// docsLock serializes the read-modify-write of the documents of one VM.
func docsLock(th *vm.Thread) *sync.Mutex {
	return th.VM().Local(docsKey{}, func() any { return new(sync.Mutex) }).(*sync.Mutex)
}

// maxDocName is the longest session id or namespace a document may have.
const maxDocName = 128

// docName checks the session id or namespace that names a document: a
// file name of letters, digits, '_', '-' and '.', not starting with '.'.
func docName(fn, what string, v vm.Value) (string, error) {
	s, ok := v.AsString()
	if !ok {
		return "", vm.Typef("%s: %s must be a string, got %s", fn, what, v.Type())
	}
	name := s.Go()
	valid := name != "" && len(name) <= maxDocName && name[0] != '.'
	for i := 0; valid && i < len(name); i++ {
		c := name[i]
		valid = c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
	}
	if !valid {
		return "", vm.Runtimef("%s: %s must be 1 to %d letters, digits, '_', '-' or '.' (not starting with '.'), got %q", fn, what, maxDocName, name)
	}
	return name, nil
}

// docPath is the file of the document name in dir, a directory given
// by the script (relative to the execution root), else sub of the state
// root.
func docPath(th *vm.Thread, fn string, dir vm.Value, sub, name string) (string, error) {
	if dir.IsNil() || !dir.IsValid() {
		return filepath.Join(process.StateRoot(th), sub, name+".json"), nil
	}
	d, ok := dir.AsString()
	if !ok || d.Go() == "" {
		return "", vm.Typef("%s: root must be a non-empty directory path, got %s", fn, vm.ToDisplay(dir))
	}
	return filepath.Join(stdfs.ResolvePath(th, d.Go()), name+".json"), nil
}

// readDoc is the document at path, and whether the file exists; the
// caller holds the lock.
func readDoc(fn, path string) (*vm.Dict, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return vm.NewDict(), false, nil
	}
	if err != nil {
		return nil, false, vm.Runtimef("%s: cannot read %s: %s", fn, path, stdfs.OSErrorText(err))
	}
	v, err := json.Parse(string(b))
	d, ok := v.AsDict()
	if err != nil || !ok {
		return nil, false, vm.Runtimef("%s: %s does not hold a JSON object", fn, path)
	}
	return d, true, nil
}

// writeDoc replaces the document at path; the caller holds the locks
// (so its directory exists).
func writeDoc(fn, path string, d *vm.Dict) error {
	// atomicfile.Write: a temporary file of its own (other VMs of the
	// process, or other processes, may be writing the same document),
	// renamed over the document, so readers see the old or the new one whole.
	if err := atomicfile.Write(path, []byte(templates.SerdeJSON(vm.Of(d), "  ")+"\n")); err != nil {
		return vm.Runtimef("%s: cannot write %s: %s", fn, path, stdfs.OSErrorText(err))
	}
	return nil
}

// updateDoc reads the document at path (empty when the file does not
// exist), lets change rework it and writes what change returns (unless
// it returns nil); it returns change's result value. The VM's lock
// orders its tasks; a flock on the document's directory orders other
// processes (and other VMs) using the same root. A directory that does
// not exist yet is created only when change wants to write, and change
// then runs again under the lock.
func updateDoc(th *vm.Thread, fn, path string, change func(d *vm.Dict, exists bool) (*vm.Dict, vm.Value, error)) (vm.Value, error) {
	mu := docsLock(th)
	mu.Lock()
	defer mu.Unlock()
	dir := filepath.Dir(path)
	unlock, err := atomicfile.LockDir(dir)
	switch {
	case err == nil:
		defer unlock()
	case errors.Is(err, fs.ErrNotExist):
		next, out, err := change(vm.NewDict(), false)
		if err != nil || next == nil {
			return out, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return vm.Value{}, vm.Runtimef("%s: cannot create %s: %s", fn, dir, stdfs.OSErrorText(err))
		}
		if unlock, err = atomicfile.LockDir(dir); err != nil {
			return vm.Value{}, vm.Runtimef("%s: cannot lock %s: %s", fn, dir, stdfs.OSErrorText(err))
		}
		defer unlock()
	default:
		return vm.Value{}, vm.Runtimef("%s: cannot lock %s: %s", fn, dir, stdfs.OSErrorText(err))
	}
	d, exists, err := readDoc(fn, path)
	if err != nil {
		return vm.Value{}, err
	}
	next, out, err := change(d, exists)
	if err != nil {
		return vm.Value{}, err
	}
	if next != nil {
		if err := writeDoc(fn, path, next); err != nil {
			return vm.Value{}, err
		}
	}
	return out, nil
}

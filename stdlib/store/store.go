package store

// The persistent key-value store (docs/spec/builtins.md §4.4): string keys to
// JSON-able values in <state root>/store.json, loaded on first use and
// rewritten (pretty JSON) on every change. A store file that exists but
// cannot be read, or is not a JSON object, is an error for every builtin
// but store_clear (this implementation's choice, docs/builtins.md): read as
// empty, the next store_set would overwrite what it held.

import (
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/stdlib/templates"
	"github.com/harnlang/harn/vm"
)

type storeKey struct{}

type kvStore struct {
	mu     sync.Mutex
	path   string
	loaded bool
	data   *vm.Dict
}

// runStore is the run's store, loaded or not.
func runStore(th *vm.Thread) *kvStore {
	return th.VM().Local(storeKey{}, func() any { return &kvStore{} }).(*kvStore)
}

func storePath(th *vm.Thread) string {
	return filepath.Join(process.StateRoot(th), "store.json")
}

// readStore reads the store file at path: empty when there is none (or
// its directory cannot be reached: saving reports that).
func readStore(path string) (*vm.Dict, error) {
	if _, err := os.Stat(path); err != nil {
		return vm.NewDict(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, vm.Runtimef("store read error: %s: %s", path, fs.OSErrorText(err))
	}
	v, err := json.Parse(string(b))
	if err != nil {
		return nil, vm.Runtimef("store read error: %s: invalid JSON: %s", path, err.Error())
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Runtimef("store read error: %s: expected a JSON object", path)
	}
	return d, nil
}

// locked runs f on the run's store with its lock held, loading the store
// on first use. The error is the store file's when it exists but does not
// hold a JSON object; the load is tried again on the next call, so a
// script may repair the file.
func locked(th *vm.Thread, f func(s *kvStore) (vm.Value, error)) (vm.Value, error) {
	s := runStore(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		s.path = storePath(th)
		data, err := readStore(s.path)
		if err != nil {
			return vm.Value{}, err
		}
		s.data, s.loaded = data, true
	}
	return f(s)
}

// save rewrites the store file; the caller holds s.mu.
func (s *kvStore) save() error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return vm.Runtimef("store write error: %s", fs.OSErrorText(err))
	}
	if err := os.WriteFile(s.path, []byte(templates.SerdeJSON(vm.Of(s.data), "  ")), 0o644); err != nil {
		return vm.Runtimef("store write error: %s", fs.OSErrorText(err))
	}
	return nil
}

// jsonCopy is the copy of v the store (store_set) and the documents of
// std/agent_state and std/memory keep.
func jsonCopy(v vm.Value) vm.Value { return storedCopy(json.Data(v)) }

// storedCopy is the JSON data v (already reduced by json.Data) with NaN and
// ±inf replaced by nil. The file writes them as null, as serde_json does, so
// the copy store_get returns in this run must say nil too: otherwise the
// value would change between runs (docs/spec/builtins.md §4.4 "a JSON-able
// copy"). The recursion is bounded because json.Data refuses deeper values.
func storedCopy(v vm.Value) vm.Value {
	switch v.Kind() {
	case vm.KFloat:
		if f, _ := v.AsFloat(); math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return vm.Nil
		}
		return v
	case vm.KNil, vm.KBool, vm.KInt, vm.KString:
		return v
	}
	switch x := v.Object().(type) {
	case *vm.List:
		out := make([]vm.Value, x.Len())
		for i, it := range x.Items() {
			out[i] = storedCopy(it)
		}
		return vm.Of(vm.NewList(out))
	case *vm.Dict:
		b := vm.NewDictBuilder(x.Len())
		x.Range(func(k string, val vm.Value) bool {
			b.Set(k, storedCopy(val))
			return true
		})
		return vm.Of(b.Build())
	}
	return v
}

func init() {
	lib.Def("store_get", "store_get(key)", "the stored value, or nil; like every store builtin but store_clear, a store file that cannot be read or is not a JSON object is an error (never overwritten)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return locked(th, func(s *kvStore) (vm.Value, error) {
			if v, ok := s.data.Get(a.Text(0)); ok {
				return v, nil
			}
			return vm.Nil, nil
		})
	})
	lib.Def("store_set", "store_set(key, value)", "store a JSON-able copy and save; kinds JSON cannot hold (closures, durations, …, and NaN and ±inf floats) are stored as nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return locked(th, func(s *kvStore) (vm.Value, error) {
			s.data = s.data.Set(a.Text(0), jsonCopy(a.At(1)))
			return vm.Nil, s.save()
		})
	})
	lib.Def("store_delete", "store_delete(key)", "remove a key and save", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return locked(th, func(s *kvStore) (vm.Value, error) {
			s.data = s.data.Delete(a.Text(0))
			return vm.Nil, s.save()
		})
	})
	lib.Def("store_clear", "store_clear()", "remove every key and save (also over a store file that is not a JSON object)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s := runStore(th)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.path = storePath(th)
		s.data, s.loaded = vm.NewDict(), true
		return vm.Nil, s.save()
	})
	lib.Def("store_save", "store_save()", "write the store file", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return locked(th, func(s *kvStore) (vm.Value, error) { return vm.Nil, s.save() })
	})
	lib.Def("store_list", "store_list()", "the stored keys, sorted", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return locked(th, func(s *kvStore) (vm.Value, error) {
			return vm.Of(lib.StrList(append([]string(nil), s.data.Keys()...))), nil
		})
	})
}

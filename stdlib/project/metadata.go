package project

// The per-project metadata store (docs/project.md, "Metadata").
//
// Facts are one JSON file, <state root>/metadata.json (process.StateRoot:
// $HARN_STATE_DIR, else .harn under the project root), shaped
//
//	{"version": 1, "entries": {KEY: {"value": V, "sources": {PATH: SHA256|null}, "updated_at": MS}}}
//
// Nothing is cached: every read reads the file, so other scripts and
// processes see a fact as soon as it is set. Every change re-reads the
// file, changes it and writes it back under an exclusive lock on the state
// root (a mutex within the process, flock across processes), through a
// synced temporary file renamed over the old one. When the last entry
// goes the file is removed.
//
// Source paths are stored relative to the project root (process
// ProjectRoot, else the execution root) with '/' separators, so any
// script of the project reads them alike; a path outside it stays
// absolute.

import (
	"errors"
	"github.com/harnlang/harn/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	hfs "github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/stdlib/templates"
	"github.com/harnlang/harn/vm"
)

// MetadataFile is the store's file name under the state root.
const MetadataFile = "metadata.json"

// fact is one entry of the store.
type fact struct {
	key       string
	value     vm.Value
	sources   []string          // sorted
	hashes    map[string]string // "" for a file that was missing
	updatedAt int64
}

type metaStore struct {
	dir  string // the state root
	base string // the project root source paths are relative to
	// resetDamaged makes update treat a damaged file as an empty store
	// and replace it (invalidate_facts("*")).
	resetDamaged bool
}

func openMeta(th *vm.Thread) metaStore {
	base := process.ProjectRoot(th)
	if base == "" {
		base = hfs.ExecutionRoot(th)
	}
	return metaStore{dir: process.StateRoot(th), base: base}
}

func (s metaStore) path() string { return filepath.Join(s.dir, MetadataFile) }

// abs is where a stored source path points.
func (s metaStore) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.base, filepath.FromSlash(p))
}

// sourceKey is how a source path given by a script is stored.
func (s metaStore) sourceKey(th *vm.Thread, given string) string {
	p := filepath.Clean(hfs.ResolvePath(th, given))
	if r, ok := slashRel(s.base, p); ok {
		return r
	}
	return filepath.ToSlash(p)
}

// hashOf is the current hash of a stored source path ("" when missing or
// unreadable).
func (s metaStore) hashOf(p string) string {
	h, err := fileHash(s.abs(p))
	if err != nil {
		return ""
	}
	return h
}

// changed lists the sources of f whose content differs from the recorded
// hash (a file that appeared, vanished or was edited).
func (s metaStore) changed(f *fact) []string {
	var out []string
	for _, p := range f.sources {
		if s.hashOf(p) != f.hashes[p] {
			out = append(out, p)
		}
	}
	return out
}

// read returns the saved facts, sorted by key; no file is no facts.
func (s metaStore) read(name string) ([]*fact, error) {
	b, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, vm.Runtimef("%s: cannot read %s: %s", name, MetadataFile, hfs.OSErrorText(err))
	}
	damaged := func(why string) error {
		return vm.Runtimef("%s: %s under the state root is damaged (%s); invalidate_facts(\"*\") starts afresh", name, MetadataFile, why)
	}
	v, err := json.Parse(string(b))
	if err != nil {
		return nil, damaged("not valid JSON")
	}
	doc, ok := v.AsDict()
	if !ok {
		return nil, damaged("not a JSON object")
	}
	ev, _ := doc.Get("entries")
	entries, ok := ev.AsDict()
	if !ok {
		return nil, damaged("no entries object")
	}
	var out []*fact
	entries.Range(func(k string, ev vm.Value) bool {
		e, ok := ev.AsDict()
		if !ok {
			err = damaged("entry " + strconv.Quote(k) + " is not an object")
			return false
		}
		f := &fact{key: k, hashes: map[string]string{}}
		f.value, _ = e.Get("value")
		if !f.value.IsValid() {
			f.value = vm.Nil
		}
		if sv, ok := e.Get("sources"); ok {
			if sd, ok := sv.AsDict(); ok {
				sd.Range(func(p string, h vm.Value) bool {
					f.sources = append(f.sources, p)
					if hs, ok := h.AsString(); ok {
						f.hashes[p] = hs.Go()
					} else {
						f.hashes[p] = ""
					}
					return true
				})
			}
		}
		if t, ok := e.Get("updated_at"); ok {
			if n, ok := t.AsInt(); ok {
				f.updatedAt = int64(n)
			}
		}
		out = append(out, f)
		return true
	})
	return out, err
}

// encode is the file's text.
func encode(facts []*fact) string {
	entries := vm.NewDict()
	for _, f := range facts {
		sources := vm.NewDict()
		for _, p := range f.sources {
			if h := f.hashes[p]; h != "" {
				sources = sources.Set(p, vm.Str(h))
			} else {
				sources = sources.Set(p, vm.Nil)
			}
		}
		entries = entries.Set(f.key, vm.Of(lib.DictOf("value", f.value, "sources", sources, "updated_at", vm.IntOf(f.updatedAt))))
	}
	doc := lib.DictOf("version", vm.IntOf(1), "entries", entries)
	return templates.SerdeJSON(vm.Of(doc), "  ") + "\n"
}

// update reads the facts, lets change compute the new ones (nil: nothing
// to write) and writes them, all under the lock. force writes even an
// unchanged store (metadata_save).
func (s metaStore) update(name string, change func([]*fact) ([]*fact, error), force bool) error {
	if _, err := os.Stat(s.path()); errors.Is(err, fs.ErrNotExist) && !force {
		// Changing a store that has no file must not create the state
		// root unless the change adds something.
		next, err := change(nil)
		if err != nil || len(next) == 0 {
			return err
		}
		// Only a pure change (metadata_set's) adds to an empty store, so
		// running it again on what the file holds by now is safe.
		return s.update(name, change, true)
	}
	fail := func(err error) error {
		return vm.Runtimef("%s: cannot save %s: %s", name, MetadataFile, hfs.OSErrorText(err))
	}
	unlock, err := atomicfile.CreateAndLockDir(s.dir)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	cur, err := s.read(name)
	reset := false
	if err != nil {
		if !s.resetDamaged {
			return err
		}
		cur, reset = nil, true // a damaged file is what invalidating everything is for
	}
	next, err := change(cur)
	if err != nil {
		return err
	}
	if next == nil && reset {
		next = []*fact{}
	}
	if next == nil && !force {
		return nil
	}
	if next == nil {
		next = cur
	}
	if len(next) == 0 {
		if err := os.Remove(s.path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(err)
		}
		return nil
	}
	sort.Slice(next, func(i, j int) bool { return next[i].key < next[j].key })
	if err := atomicfile.Write(s.path(), []byte(encode(next))); err != nil {
		return fail(err)
	}
	return nil
}

// keyArg is argument i, a non-empty string key.
func keyArg(name string, a vm.Args, i int) (string, error) {
	if !a.Has(i) {
		return "", vm.Runtimef("%s: missing argument %d (a key)", name, i+1)
	}
	s, ok := a.At(i).AsString()
	if !ok {
		return "", vm.Typef("%s: expected a string key at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	if s.Go() == "" {
		return "", vm.Runtimef("%s: key must not be empty", name)
	}
	return s.Go(), nil
}

// keyTextArg is optional argument i, a string named what ("a key
// pattern", "a key prefix"), "" when absent.
func keyTextArg(name, what string, a vm.Args, i int) (string, error) {
	if !a.Given(i) {
		return "", nil
	}
	s, ok := a.At(i).AsString()
	if !ok {
		return "", vm.Typef("%s: expected %s (string) at argument %d, got %s", name, what, i+1, a.At(i).Type())
	}
	return s.Go(), nil
}

// readFacts opens the store and reads its facts for a builtin whose
// optional argument 1 is what ("a key prefix", "a key pattern"), read
// first.
func readFacts(th *vm.Thread, name, what string, a vm.Args) (metaStore, []*fact, string, error) {
	text, err := keyTextArg(name, what, a, 0)
	if err != nil {
		return metaStore{}, nil, "", err
	}
	s := openMeta(th)
	facts, err := s.read(name)
	return s, facts, text, err
}

// sourcePaths reads the source_paths option: a path or a list of paths.
func sourcePaths(th *vm.Thread, s metaStore, name string, a vm.Args, i int) ([]string, bool, error) {
	if !a.Given(i) {
		return nil, false, nil
	}
	opts, ok := a.Dict(i)
	if !ok {
		return nil, false, lib.BadOptions(name, a.At(i))
	}
	if err := lib.CheckOptions(name, opts, []string{"source_paths"}); err != nil {
		return nil, false, err
	}
	var out []string
	given := false
	var err error
	opts.Range(func(k string, v vm.Value) bool {
		given = true
		var ps []string
		ps, err = pathList(name, "source_paths", v)
		for _, p := range ps {
			out = append(out, s.sourceKey(th, p))
		}
		return err == nil
	})
	return sortedUnique(out), given, err
}

// pathList reads a path or a list of paths.
func pathList(name, what string, v vm.Value) ([]string, error) {
	if s, ok := v.AsString(); ok {
		if s.Go() == "" {
			return nil, vm.Runtimef("%s: %s must not hold an empty path", name, what)
		}
		return []string{s.Go()}, nil
	}
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Typef("%s: %s must be a path or a list of paths, got %s", name, what, v.Type())
	}
	var out []string
	for _, it := range l.Items() {
		s, ok := it.AsString()
		if !ok {
			return nil, vm.Typef("%s: %s must be a path or a list of paths, found %s", name, what, it.Type())
		}
		if s.Go() == "" {
			return nil, vm.Runtimef("%s: %s must not hold an empty path", name, what)
		}
		out = append(out, s.Go())
	}
	return out, nil
}

// set stores value under key with the given sources.
func (s metaStore) set(name, key string, value vm.Value, sources []string) error {
	f := &fact{key: key, value: value, sources: sources, hashes: map[string]string{}, updatedAt: time.Now().UnixMilli()}
	for _, p := range sources {
		f.hashes[p] = s.hashOf(p)
	}
	return s.update(name, func(cur []*fact) ([]*fact, error) {
		next := make([]*fact, 0, len(cur)+1)
		for _, c := range cur {
			if c.key != key {
				next = append(next, c)
			}
		}
		return append(next, f), nil
	}, false)
}

func find(facts []*fact, key string) *fact {
	for _, f := range facts {
		if f.key == key {
			return f
		}
	}
	return nil
}

func factDict(s metaStore, f *fact) *vm.Dict {
	changed := s.changed(f)
	return lib.DictOf(
		"key", vm.Str(f.key),
		"value", f.value,
		"source_paths", lib.StrList(append([]string{}, f.sources...)),
		"stale", vm.BoolOf(len(changed) > 0),
		"changed", lib.StrList(append([]string{}, changed...)),
		"updated_at", vm.IntOf(f.updatedAt),
	)
}

func init() {
	lib.Def("metadata_get", "metadata_get(key: string, default?)", "the fact stored under key in this project's metadata, or default (nil)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "metadata_get"
			key, err := keyArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			facts, err := openMeta(th).read(name)
			if err != nil {
				return vm.Value{}, err
			}
			if f := find(facts, key); f != nil {
				return f.value, nil
			}
			if a.Has(1) {
				return a.At(1), nil
			}
			return vm.Nil, nil
		})
	lib.Def("metadata_set", "metadata_set(key: string, value, options?: {source_paths})", "store value (JSON data) under key, recording the content hashes of the files it depends on (source_paths); returns value",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "metadata_set"
			key, err := keyArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			if !a.Has(1) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 2 (the value)", name)
			}
			v := a.At(1)
			if err := checkData(name, v); err != nil {
				return vm.Value{}, err
			}
			s := openMeta(th)
			sources, _, err := sourcePaths(th, s, name, a, 2)
			if err != nil {
				return vm.Value{}, err
			}
			return v, s.set(name, key, v, sources)
		})
	lib.Def("metadata_save", "metadata_save() -> int", "write the metadata file again (it is saved on every change; this makes sure it exists); returns the number of facts",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			n := 0
			err := openMeta(th).update("metadata_save", func(cur []*fact) ([]*fact, error) {
				n = len(cur)
				return nil, nil
			}, true)
			return lib.IntOf(n), err
		})
	lib.Def("metadata_entries", "metadata_entries(prefix?: string) -> list", "the facts whose key starts with prefix, by key: [{key, value, source_paths, stale, changed, updated_at}]",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "metadata_entries"
			s, facts, prefix, err := readFacts(th, name, "a key prefix", a)
			if err != nil {
				return vm.Value{}, err
			}
			var out []vm.Value
			for _, f := range facts {
				if len(f.key) >= len(prefix) && f.key[:len(prefix)] == prefix {
					out = append(out, vm.Of(factDict(s, f)))
				}
			}
			return vm.Of(lib.List(out)), nil
		})
	lib.Def("metadata_resolve", "metadata_resolve(key: string, compute_fn, options?: {source_paths})", "the fact under key when it is stored and not stale; else compute_fn() stored (with options' source_paths) and returned",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "metadata_resolve"
			key, err := keyArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			fn, ok := a.Callable(1)
			if !ok {
				if !a.Has(1) {
					return vm.Value{}, vm.Runtimef("%s: missing argument 2 (a function computing the value)", name)
				}
				return vm.Value{}, vm.Typef("%s: expected a function at argument 2, got %s", name, a.At(1).Type())
			}
			s := openMeta(th)
			sources, given, err := sourcePaths(th, s, name, a, 2)
			if err != nil {
				return vm.Value{}, err
			}
			facts, err := s.read(name)
			if err != nil {
				return vm.Value{}, err
			}
			if f := find(facts, key); f != nil && len(s.changed(f)) == 0 {
				return f.value, nil
			} else if f != nil && !given {
				sources = f.sources // recompute a stale fact against the same files
			}
			v, err := th.Call(fn)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkData(name, v); err != nil {
				return vm.Value{}, err
			}
			return v, s.set(name, key, v, sources)
		})
	lib.Def("metadata_stale", "metadata_stale(pattern?: string) -> list", "the keys (matching the key pattern, * and ?) of facts whose source files changed since they were recorded, sorted",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "metadata_stale"
			s, facts, pat, err := readFacts(th, name, "a key pattern", a)
			if err != nil {
				return vm.Value{}, err
			}
			var out []string
			match := keyMatcher(pat)
			for _, f := range facts {
				if (pat == "" || match(f.key)) && len(s.changed(f)) > 0 {
					out = append(out, f.key)
				}
			}
			return vm.Of(lib.StrList(out)), nil
		})
	lib.Def("metadata_status", "metadata_status(prefix?: string) -> dict", "a summary of the facts whose key starts with prefix: {entries, stale, stale_keys, sources, missing_sources, exists}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "metadata_status"
			s, facts, prefix, err := readFacts(th, name, "a key prefix", a)
			if err != nil {
				return vm.Value{}, err
			}
			_, statErr := os.Stat(s.path())
			n := 0
			var stale, sources, missing []string
			for _, f := range facts {
				if len(f.key) < len(prefix) || f.key[:len(prefix)] != prefix {
					continue
				}
				n++
				if len(s.changed(f)) > 0 {
					stale = append(stale, f.key)
				}
				sources = append(sources, f.sources...)
			}
			sources = sortedUnique(sources)
			for _, p := range sources {
				if _, err := os.Stat(s.abs(p)); err != nil {
					missing = append(missing, p)
				}
			}
			return vm.Of(lib.DictOf(
				"exists", vm.BoolOf(statErr == nil),
				"entries", lib.IntOf(n),
				"stale", lib.IntOf(len(stale)),
				"stale_keys", lib.StrList(stale),
				"sources", lib.IntOf(len(sources)),
				"missing_sources", lib.StrList(missing),
			)), nil
		})
	lib.Def("metadata_refresh_hashes", "metadata_refresh_hashes(pattern?: string) -> list", "record the current content hashes of the source files of the facts matching the key pattern (all by default), making them fresh; returns the keys that were stale, sorted",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "metadata_refresh_hashes"
			pat, err := keyTextArg(name, "a key pattern", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			s := openMeta(th)
			var refreshed []string
			match := keyMatcher(pat)
			err = s.update(name, func(cur []*fact) ([]*fact, error) {
				for _, f := range cur {
					if pat != "" && !match(f.key) {
						continue
					}
					if len(s.changed(f)) == 0 {
						continue
					}
					refreshed = append(refreshed, f.key)
					for _, p := range f.sources {
						f.hashes[p] = s.hashOf(p)
					}
				}
				if len(refreshed) == 0 {
					return nil, nil
				}
				return cur, nil
			}, false)
			return vm.Of(lib.StrList(refreshed)), err
		})
	lib.Def("invalidate_facts", "invalidate_facts(pattern_or_paths) -> list", "drop facts: a string is a key pattern (* and ?), a list holds source paths (facts depending on any go), {keys, paths} gives both; returns the dropped keys, sorted",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "invalidate_facts"
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 1 (a key pattern or a list of paths)", name)
			}
			s := openMeta(th)
			var pats []string
			var paths []string
			arg := a.At(0)
			if str, ok := arg.AsString(); ok {
				pats = []string{str.Go()}
			} else if _, ok := arg.AsList(); ok {
				ps, err := pathList(name, "the paths", arg)
				if err != nil {
					return vm.Value{}, err
				}
				paths = ps
			} else if d, ok := arg.AsDict(); ok {
				var err error
				d.Range(func(k string, v vm.Value) bool {
					switch k {
					case "keys":
						if str, ok := v.AsString(); ok {
							pats = append(pats, str.Go())
						} else {
							var ks []string
							ks, err = pathList(name, "keys", v)
							pats = append(pats, ks...)
						}
					case "paths":
						var ps []string
						ps, err = pathList(name, "paths", v)
						paths = append(paths, ps...)
					default:
						err = vm.Runtimef("%s: unknown field %q (known: keys, paths)", name, k)
					}
					return err == nil
				})
				if err != nil {
					return vm.Value{}, err
				}
			} else {
				return vm.Value{}, vm.Typef("%s: expected a key pattern (string), a list of paths or {keys, paths} at argument 1, got %s", name, arg.Type())
			}
			for _, p := range pats {
				if p == "*" {
					s.resetDamaged = true
				}
			}
			drop := map[string]bool{}
			for _, p := range paths {
				drop[s.sourceKey(th, p)] = true
			}
			var matchers []func(string) bool
			for _, p := range pats {
				matchers = append(matchers, keyMatcher(p))
			}
			var dropped []string
			err := s.update(name, func(cur []*fact) ([]*fact, error) {
				var next []*fact
				for _, f := range cur {
					gone := false
					for _, m := range matchers {
						if m(f.key) {
							gone = true
						}
					}
					for _, p := range f.sources {
						if drop[p] {
							gone = true
						}
					}
					if gone {
						dropped = append(dropped, f.key)
					} else {
						next = append(next, f)
					}
				}
				if len(dropped) == 0 {
					return nil, nil
				}
				if next == nil {
					next = []*fact{}
				}
				return next, nil
			}, false)
			return vm.Of(lib.StrList(dropped)), err
		})
}

// checkData accepts the values a fact gives back unchanged: nil, bools,
// ints, finite floats, strings, and lists and dicts of them.
func checkData(name string, v vm.Value) error {
	verb, holds := "store", "facts hold"
	if name == "compute_content_hash" {
		verb, holds = "hash", "it hashes"
	}
	bad, at, deep := lib.NonData(v, "value", false)
	switch {
	case deep:
		return vm.Runtimef("%s: value nested too deeply (at %s)", name, at)
	case !bad.IsValid():
		return nil
	case bad.Kind() == vm.KFloat:
		return vm.Typef("%s: cannot %s %s (at %s): JSON has no NaN or infinity", name, verb, vm.ToDisplay(bad), at)
	}
	if h, ok := bad.Object().(*harness.Handle); ok {
		return vm.Typef("%s: cannot %s a %s handle (at %s): it is authority, not data", name, verb, h.Type(), at)
	}
	return vm.Typef("%s: cannot %s a %s (at %s): %s JSON data (nil, bool, int, float, string, list, dict)", name, verb, bad.Type(), at, holds)
}

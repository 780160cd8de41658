package checkpoints

// Checkpoints (docs/spec/builtins.md §5, Checkpoints/metadata; layout and
// concurrency in docs/checkpoints.md).
//
// A pipeline's checkpoints are one JSON object, key → value, in
// <state root>/checkpoints/<pipeline>.json, where the state root is the
// persistent store's (process.StateRoot: $HARN_STATE_DIR, else .harn under
// the project root) and <pipeline> is the base name, without extension, of
// the file whose code makes the call. Nothing is cached: every read reads
// the file, so a second process (or a second run) sees what the first
// saved. Every change reads the file, changes it and writes it back under
// an exclusive lock on the checkpoints directory (flock, so processes
// exclude each other too), through a temporary file in the same directory
// that is synced and renamed over the old one: a reader, or a run that
// crashes half-way, sees the old file or the new one, never a mix.

import (
	"errors"
	"github.com/harnlang/harn/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	hfs "github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/stdlib/templates"
	"github.com/harnlang/harn/vm"
)

// Dir is the directory under the state root that holds the checkpoint
// files.
const Dir = "checkpoints"

// DefaultPipeline names the checkpoints of code that has no file (a
// REPL entry, `harn run -e`).
const DefaultPipeline = "default"

func init() {
	lib.Def("checkpoint", "checkpoint(key: string, value)", "save value (JSON data) under key in this pipeline's checkpoints, durably; returns value",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			key, err := keyArg("checkpoint", a)
			if err != nil {
				return vm.Value{}, err
			}
			if !a.Has(1) {
				return vm.Value{}, vm.Runtimef("checkpoint: missing argument 2")
			}
			v := a.At(1)
			if err := checkData("checkpoint", v); err != nil {
				return vm.Value{}, err
			}
			err = open(th).update("checkpoint", func(d *vm.Dict) (*vm.Dict, error) { return d.Set(key, v), nil })
			if err != nil {
				return vm.Value{}, err
			}
			return v, nil
		})
	lib.Def("checkpoint_get", "checkpoint_get(key: string, default?)", "the value saved under key, or default (nil) when there is none",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			key, err := keyArg("checkpoint_get", a)
			if err != nil {
				return vm.Value{}, err
			}
			d, err := open(th).read("checkpoint_get")
			if err != nil {
				return vm.Value{}, err
			}
			if v, ok := d.Get(key); ok {
				return v, nil
			}
			if a.Has(1) {
				return a.At(1), nil
			}
			return vm.Nil, nil
		})
	lib.Def("checkpoint_exists", "checkpoint_exists(key: string) -> bool", "whether a value is saved under key",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			key, err := keyArg("checkpoint_exists", a)
			if err != nil {
				return vm.Value{}, err
			}
			d, err := open(th).read("checkpoint_exists")
			if err != nil {
				return vm.Value{}, err
			}
			_, ok := d.Get(key)
			return vm.BoolOf(ok), nil
		})
	lib.Def("checkpoint_delete", "checkpoint_delete(key: string) -> bool", "remove the value saved under key; true when there was one",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			key, err := keyArg("checkpoint_delete", a)
			if err != nil {
				return vm.Value{}, err
			}
			found := false
			err = open(th).update("checkpoint_delete", func(d *vm.Dict) (*vm.Dict, error) {
				if _, found = d.Get(key); !found {
					return nil, nil // nothing to write
				}
				return d.Delete(key), nil
			})
			if err != nil {
				return vm.Value{}, err
			}
			return vm.BoolOf(found), nil
		})
	lib.Def("checkpoint_list", "checkpoint_list() -> list<string>", "the keys of this pipeline's checkpoints, sorted",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			d, err := open(th).read("checkpoint_list")
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(lib.StrList(slices.Clone(d.Keys()))), nil
		})
	lib.Def("checkpoint_clear", "checkpoint_clear() -> int", "remove every checkpoint of this pipeline (deletes its file); returns how many there were",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			n := 0
			err := open(th).update("checkpoint_clear", func(d *vm.Dict) (*vm.Dict, error) {
				n = d.Len()
				return vm.NewDict(), nil
			})
			if err != nil {
				return vm.Value{}, err
			}
			return lib.IntOf(n), nil
		})
}

// keyArg is argument 1, a non-empty string.
func keyArg(name string, a vm.Args) (string, error) {
	if !a.Has(0) {
		return "", vm.Runtimef("%s: missing argument 1", name)
	}
	s, ok := a.At(0).AsString()
	if !ok {
		return "", vm.Runtimef("%s: expected string at argument 1, got %s", name, a.At(0).Type())
	}
	if s.Go() == "" {
		return "", vm.Runtimef("%s: key must not be empty", name)
	}
	return s.Go(), nil
}

// checkData accepts exactly the values a checkpoint gives back unchanged:
// nil, bools, ints, finite floats, strings, and lists and dicts of them.
// Anything else (a closure, a set, a struct, a harness handle, …) is
// refused rather than saved as something else.
func checkData(name string, v vm.Value) error {
	bad, at, deep := lib.NonData(v, "value", false)
	switch {
	case deep:
		return vm.Runtimef("%s: value nested too deeply (at %s)", name, at)
	case !bad.IsValid():
		return nil
	case bad.Kind() == vm.KFloat:
		return vm.Typef("%s: cannot save %s (at %s): JSON has no NaN or infinity", name, vm.ToDisplay(bad), at)
	}
	if h, ok := bad.Object().(*harness.Handle); ok {
		return vm.Typef("%s: cannot save a %s handle (at %s): it is authority, not data", name, h.Type(), at)
	}
	return vm.Typef("%s: cannot save a %s (at %s): checkpoints hold JSON data (nil, bool, int, float, string, list, dict)", name, bad.Type(), at)
}

// store is one pipeline's checkpoint file.
type store struct {
	dir  string // <state root>/checkpoints
	file string // <pipeline>.json
}

func open(th *vm.Thread) store {
	return store{dir: filepath.Join(process.StateRoot(th), Dir), file: Pipeline(th.CallerFile()) + ".json"}
}

// Pipeline names the checkpoints of code in file: its base name without
// extension (DefaultPipeline for code read from no file), with every character other than a letter, digit, '.', '_'
// or '-' replaced by '_'.
func Pipeline(file string) string {
	base := filepath.Base(file)
	if file == "" || base == "." || base == string(filepath.Separator) || strings.HasPrefix(base, "<") {
		return DefaultPipeline // no file: `<-e>`, `<repl>`
	}
	base = strings.TrimSuffix(base, filepath.Ext(base))
	base = strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, base)
	if strings.Trim(base, ".") == "" {
		return DefaultPipeline
	}
	return base
}

// rel is the file as messages name it: relative to the state root.
func (s store) rel() string { return Dir + "/" + s.file }

func (s store) path() string { return filepath.Join(s.dir, s.file) }

// read returns the saved checkpoints; no file is no checkpoints.
func (s store) read(name string) (*vm.Dict, error) {
	b, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return vm.NewDict(), nil
	}
	if err != nil {
		return nil, vm.Runtimef("%s: cannot read %s: %s", name, s.rel(), hfs.OSErrorText(err))
	}
	v, err := json.Parse(string(b))
	if err != nil {
		return nil, vm.Runtimef("%s: %s is not valid JSON (%s); checkpoint_clear() starts afresh", name, s.rel(), errText(err))
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Runtimef("%s: %s does not hold a JSON object; checkpoint_clear() starts afresh", name, s.rel())
	}
	return d, nil
}

func errText(err error) string {
	var e *vm.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// update reads the checkpoints, lets change compute the new ones (nil:
// nothing to write) and writes them, all under the directory's lock. An
// empty result removes the file. clear tolerates a file it cannot parse.
func (s store) update(name string, change func(*vm.Dict) (*vm.Dict, error)) error {
	if name != "checkpoint" {
		// Deleting from a pipeline that has no file changes nothing, and
		// must not create the state directories either.
		if _, err := os.Stat(s.path()); errors.Is(err, fs.ErrNotExist) {
			_, err := change(vm.NewDict())
			return err
		}
	}
	fail := func(err error) error {
		return vm.Runtimef("%s: cannot save %s: %s", name, s.rel(), hfs.OSErrorText(err))
	}
	unlock, err := atomicfile.CreateAndLockDir(s.dir)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	var cur *vm.Dict
	if name == "checkpoint_clear" {
		cur, err = s.read(name)
		if err != nil {
			cur = vm.NewDict() // a damaged file is what clearing is for
		}
	} else if cur, err = s.read(name); err != nil {
		return err
	}
	next, err := change(cur)
	if err != nil || next == nil {
		return err
	}
	if next.Len() == 0 {
		if err := os.Remove(s.path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(err)
		}
		return nil
	}
	if err := atomicfile.Write(s.path(), []byte(templates.SerdeJSON(vm.Of(next), "  ")+"\n")); err != nil {
		return fail(err)
	}
	return nil
}

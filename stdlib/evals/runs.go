package evals

import (
	"crypto/rand"
	"encoding/hex"
	"github.com/harnlang/harn/internal/atomicfile"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/process"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// RunsDir is the directory under the state root that run records are
// saved in by default.
const RunsDir = "runs"

// recordFields are the fields of a run record, in order, with the kind
// each must hold.
var recordFields = []struct{ name, kind string }{
	{"id", "string"},
	{"started_at", "string"},
	{"status", "string"},
	{"inputs", "dict"},
	{"outputs", "dict"},
	{"steps", "list"},
	{"metrics", "dict"},
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return "run-" + hex.EncodeToString(b[:])
}

// makeRecord completes d into a run record: the missing fields get their
// defaults, the given ones are checked; other keys are kept.
func makeRecord(th *vm.Thread, name string, d *vm.Dict) (*vm.Dict, error) {
	for _, f := range recordFields {
		v, ok := d.Get(f.name)
		if !ok || v.IsNil() {
			switch f.name {
			case "id":
				v = vm.Str(newID())
			case "started_at":
				v = vm.Str(htime.VMNow(th).UTC().Format(time.RFC3339))
			case "status":
				v = vm.Str("completed")
			case "steps":
				v = vm.Of(vm.NewList(nil))
			default:
				v = vm.Of(vm.NewDict())
			}
			d = d.Set(f.name, v)
			continue
		}
		if v.Type() != f.kind {
			return nil, vm.Runtimef("%s: `%s` must be a %s, got %s", name, f.name, f.kind, v.Type())
		}
	}
	if id, _ := str(d, "id"); id == "" {
		return nil, vm.Runtimef("%s: `id` must not be empty", name)
	}
	steps, _ := lib.Get(d, "steps").AsList()
	for i, s := range steps.Items() {
		if s.Type() != "dict" {
			return nil, vm.Runtimef("%s: step %d must be a dict, got %s", name, i, s.Type())
		}
	}
	return d, nil
}

func recordArg(th *vm.Thread, name string, a vm.Args, i int) (*vm.Dict, error) {
	d, err := dictArg(name, a, i)
	if err != nil {
		return nil, err
	}
	return makeRecord(th, name, d)
}

// recordPath is where a record with id is saved by default.
func recordPath(th *vm.Thread, id string) string {
	return filepath.Join(process.StateRoot(th), RunsDir, id+".json")
}

func safeID(name, id string) error {
	if id == "." || id == ".." || strings.ContainsAny(id, "/\\\x00") {
		return vm.Runtimef("%s: id `%s` cannot name a file; give a path", name, id)
	}
	return nil
}

func init() {
	lib.Def("run_record", "run_record(data: dict) -> dict",
		"a run record {id, started_at, status, inputs, outputs, steps, metrics} from data: missing fields get defaults (a fresh id, now, \"completed\", empty), other keys are kept",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			d, err := recordArg(th, "run_record", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(d), nil
		})
	lib.Def("run_record_save", "run_record_save(record: dict, path?: string) -> string",
		"write the run record as JSON (atomically) to path, default <state root>/runs/<id>.json; returns the path written",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "run_record_save"
			d, err := recordArg(th, name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			var path string
			if a.Given(1) {
				p, err := stringArg(name, a, 1)
				if err != nil {
					return vm.Value{}, err
				}
				path = fs.ResolvePath(th, p)
			} else {
				id, _ := str(d, "id")
				if err := safeID(name, id); err != nil {
					return vm.Value{}, err
				}
				path = recordPath(th, id)
			}
			if err := json.RefuseHandle(name, vm.Of(d)); err != nil {
				return vm.Value{}, err
			}
			data := json.Stringify(vm.Of(d))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return vm.Value{}, vm.Runtimef("%s: %v", name, err)
			}
			if err := atomicfile.Write(path, []byte(data+"\n")); err != nil {
				return vm.Value{}, vm.Runtimef("%s: %v", name, err)
			}
			return vm.Str(path), nil
		})
	lib.Def("run_record_load", "run_record_load(id_or_path: string) -> dict",
		"read a run record saved by run_record_save: a bare id is looked up under <state root>/runs/, anything with a / or ending in .json is a path",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "run_record_load"
			s, err := stringArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			var path string
			if strings.ContainsAny(s, "/\\") || strings.HasSuffix(s, ".json") {
				path = fs.ResolvePath(th, s)
			} else {
				if err := safeID(name, s); err != nil {
					return vm.Value{}, err
				}
				path = recordPath(th, s)
			}
			d, err := loadFile(th, name, path)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(d), nil
		})
	lib.Def("run_record_fixture", "run_record_fixture(record: dict) -> dict",
		"a replayable fixture of the run: {kind: \"run_fixture\", source_id, inputs, expected_outputs, expected_status, steps: [{name, expected}]}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			d, err := recordArg(th, "run_record_fixture", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			steps, _ := lib.Get(d, "steps").AsList()
			var fs []vm.Value
			for i, s := range steps.Items() {
				sd, _ := s.AsDict()
				n, ok := sd.Get("name")
				if !ok {
					n = lib.IntOf(i)
				}
				fs = append(fs, vm.Of(lib.DictOf("name", n, "expected", lib.Get(sd, "output"))))
			}
			return vm.Of(lib.DictOf(
				"kind", vm.Str("run_fixture"),
				"source_id", lib.Get(d, "id"),
				"inputs", lib.Get(d, "inputs"),
				"expected_outputs", lib.Get(d, "outputs"),
				"expected_status", lib.Get(d, "status"),
				"steps", vm.Of(vm.NewList(fs)),
			)), nil
		})
	lib.Def("run_record_diff", "run_record_diff(a: dict, b: dict) -> dict",
		"what changed from run a to run b: {identical, fields: [{path, before, after}], steps: [{index, change, before, after}]} (id and started_at are not compared)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "run_record_diff"
			x, err := recordArg(th, name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			y, err := recordArg(th, name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(diff(x, y)), nil
		})
	lib.Def("load_run_tree", "load_run_tree(dir?: string) -> dict",
		"every run record (*.json) under dir, default <state root>/runs: {runs (by path), roots (ids without a known parent_id), children: {parent id: [ids]}, skipped: [{path, error}]}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "load_run_tree"
			dir := filepath.Join(process.StateRoot(th), RunsDir)
			if a.Given(0) {
				s, err := stringArg(name, a, 0)
				if err != nil {
					return vm.Value{}, err
				}
				dir = fs.ResolvePath(th, s)
			}
			return loadTree(th, name, dir)
		})
}

func loadFile(th *vm.Thread, name, path string) (*vm.Dict, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, vm.Runtimef("%s: no run record at %s", name, path)
		}
		return nil, vm.Runtimef("%s: %v", name, err)
	}
	v, err := json.ParseOn(th, string(b))
	if err != nil {
		return nil, vm.Runtimef("%s: %s is not JSON: %v", name, path, err)
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Runtimef("%s: %s does not hold a run record (a JSON object), got %s", name, path, v.Type())
	}
	return makeRecord(th, name, d)
}

func loadTree(th *vm.Thread, name, dir string) (vm.Value, error) {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return vm.Value{}, vm.Runtimef("%s: %s is not a directory", name, dir)
	}
	var paths []string
	err = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".json") && !strings.HasPrefix(e.Name(), ".") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return vm.Value{}, vm.Runtimef("%s: %v", name, err)
	}
	sort.Strings(paths)
	var runs, skipped []vm.Value
	ids := map[string]bool{}
	var recs []*vm.Dict
	for _, p := range paths {
		d, err := loadFile(th, name, p)
		if err != nil {
			msg := err.Error()
			if e := vm.AsError(err); e != nil {
				msg = e.Msg
			}
			skipped = append(skipped, vm.Of(lib.DictOf("path", vm.Str(p), "error", vm.Str(msg))))
			continue
		}
		recs = append(recs, d)
		runs = append(runs, vm.Of(d))
		id, _ := str(d, "id")
		ids[id] = true
	}
	children := vm.NewDict()
	var roots []vm.Value
	for _, d := range recs {
		id, _ := str(d, "id")
		parent, ok := str(d, "parent_id")
		if !ok || !ids[parent] {
			roots = append(roots, vm.Str(id))
			continue
		}
		l := vm.NewList(nil)
		if v, ok := children.Get(parent); ok {
			l, _ = v.AsList()
		}
		children = children.Set(parent, vm.Of(l.Push(vm.Str(id))))
	}
	return vm.Of(lib.DictOf(
		"runs", vm.Of(vm.NewList(runs)),
		"roots", vm.Of(vm.NewList(roots)),
		"children", vm.Of(children),
		"skipped", vm.Of(vm.NewList(skipped)),
	)), nil
}

// diff compares the fields of two records (dict fields key by key).
func diff(x, y *vm.Dict) *vm.Dict {
	var fields []vm.Value
	keys := map[string]bool{}
	for _, k := range x.Keys() {
		keys[k] = true
	}
	for _, k := range y.Keys() {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		if k != "id" && k != "started_at" && k != "steps" {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	add := func(path string, b, c vm.Value) {
		fields = append(fields, vm.Of(lib.DictOf("path", vm.Str(path), "before", b, "after", c)))
	}
	for _, k := range ks {
		b, c := lib.Get(x, k), lib.Get(y, k)
		if vm.Equal(b, c) {
			continue
		}
		bd, ok1 := b.AsDict()
		cd, ok2 := c.AsDict()
		if !ok1 || !ok2 {
			add(k, b, c)
			continue
		}
		sub := map[string]bool{}
		for _, s := range bd.Keys() {
			sub[s] = true
		}
		for _, s := range cd.Keys() {
			sub[s] = true
		}
		var ss []string
		for s := range sub {
			ss = append(ss, s)
		}
		sort.Strings(ss)
		for _, s := range ss {
			if bv, cv := lib.Get(bd, s), lib.Get(cd, s); !vm.Equal(bv, cv) {
				add(k+"."+s, bv, cv)
			}
		}
	}
	xs, _ := lib.Get(x, "steps").AsList()
	ys, _ := lib.Get(y, "steps").AsList()
	var steps []vm.Value
	for i := 0; i < max(xs.Len(), ys.Len()); i++ {
		var b, c vm.Value = vm.Nil, vm.Nil
		change := "changed"
		switch {
		case i >= xs.Len():
			c, change = ys.At(i), "added"
		case i >= ys.Len():
			b, change = xs.At(i), "removed"
		default:
			b, c = xs.At(i), ys.At(i)
			if vm.Equal(b, c) {
				continue
			}
		}
		steps = append(steps, vm.Of(lib.DictOf("index", lib.IntOf(i), "change", vm.Str(change), "before", b, "after", c)))
	}
	return lib.DictOf(
		"identical", vm.BoolOf(len(fields) == 0 && len(steps) == 0),
		"fields", vm.Of(vm.NewList(fields)),
		"steps", vm.Of(vm.NewList(steps)),
	)
}

// Package stdlib assembles Harn's standard library: every builtin function,
// the method tables of each value kind, the host globals (pi, e, argv,
// harness) and the embedded std/* modules.
//
// The library itself lives in one area package per concern under stdlib/
// (docs/builtins-areas.md maps each area to its package). Each area
// registers its entries at init time into the one descriptor table of
// stdlib/internal/lib — name, signature, one-line doc, implementation —
// which the VM calls through, the REPL completes from and `harn doc`-style
// listings read. This package imports every area (full.go those the
// lite build of harn leaves out) and builds a run's universe from the
// table.
package stdlib

import (
	"math"
	"sort"
	"sync"

	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/stdlib/std"
	"github.com/harnlang/harn/vm"

	// The areas register their builtins and methods when imported. The
	// areas the lite build of harn leaves out are imported by full.go;
	// the files it leaves out of these carry a !harnlite build tag.
	_ "github.com/harnlang/harn/stdlib/collections"
	_ "github.com/harnlang/harn/stdlib/concurrency"
	_ "github.com/harnlang/harn/stdlib/console"
	_ "github.com/harnlang/harn/stdlib/core"
	_ "github.com/harnlang/harn/stdlib/crypto"
	_ "github.com/harnlang/harn/stdlib/encoding"
	_ "github.com/harnlang/harn/stdlib/harness"
	_ "github.com/harnlang/harn/stdlib/math"
	_ "github.com/harnlang/harn/stdlib/text"
	_ "github.com/harnlang/harn/stdlib/time"
)

// Config carries the per-run host globals.
type Config struct {
	// Argv is bound as the global `argv` when non-nil (only `harn run`
	// defines it, docs/spec/language.md §3.2).
	Argv []string
}

// NewUniverse builds the predeclared environment for one run.
func NewUniverse(cfg Config) *vm.Universe {
	u := vm.Over(baseUniverse())
	u.AddGlobal("pi", vm.FloatOf(float64(math.Pi)))
	u.AddGlobal("e", vm.FloatOf(float64(math.E)))
	if cfg.Argv != nil {
		items := make([]vm.Value, len(cfg.Argv))
		for i, a := range cfg.Argv {
			items[i] = vm.Str(a)
		}
		u.AddGlobal("argv", vm.Of(vm.NewList(items)))
	}
	_, _, hooks := lib.Table()
	for _, g := range hooks {
		g(u)
	}
	return u
}

// baseUniverse holds every builtin and method, registered once per
// process; each run's universe (NewUniverse) reads through to it. It is never modified after it is built,
// so sessions on different goroutines can clone it concurrently.
var baseUniverse = sync.OnceValue(buildBase)

func buildBase() *vm.Universe {
	builtins, methods, _ := lib.Table()
	return vm.NewUniverseOf(builtins, methods)
}

// Builtins lists every registered builtin, sorted by name (for docs and
// REPL completion).
func Builtins() []*vm.Builtin {
	builtins, _, _ := lib.Table()
	out := append([]*vm.Builtin(nil), builtins...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// NamespaceMembers lists the members of the namespace globals (`stream`,
// `event_log`, `workflow`) by namespace, each sorted by name.
func NamespaceMembers() map[string][]*vm.Builtin {
	out := map[string][]*vm.Builtin{}
	for name, ms := range lib.Namespaces() {
		l := append([]*vm.Builtin(nil), ms...)
		sort.Slice(l, func(i, j int) bool { return l[i].Name() < l[j].Name() })
		out[name] = l
	}
	return out
}

// Methods lists every registered method, sorted by receiver then name.
func Methods() []*vm.Method {
	_, methods, _ := lib.Table()
	out := append([]*vm.Method(nil), methods...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Recv != out[j].Recv {
			return out[i].Recv < out[j].Recv
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// The names the rest of the interpreter reaches the library through; each
// is owned by its area package.

// NewBytes wraps b as a Harn bytes value; the caller must not modify b.
func NewBytes(b []byte) *lib.Bytes { return lib.NewBytes(b) }

// OSErrorText renders an OS error the way every builtin reports one (stdlib/fs).
func OSErrorText(err error) string { return fs.OSErrorText(err) }

// ParseJSON parses JSON text into Harn values (stdlib/json).
func ParseJSON(text string) (vm.Value, error) { return json.Parse(text) }

// StdModule returns the source of the embedded module std/NAME (stdlib/std).
func StdModule(name string) ([]byte, bool) { return std.Module(name) }

// Finish runs the program's pipeline_on_finish callbacks over its result
// (stdlib/process); hosts call it after the entry module returned.
func Finish(th *vm.Thread, result vm.Value) (vm.Value, error) { return process.Finish(th, result) }

// Package stdlib owns Harn's standard library: every builtin function, the
// method tables of each value kind, the host globals (pi, e, argv,
// harness) and the embedded std/* modules.
//
// Each area of the library lives in its own file and registers its entries
// at init time with def (functions) and method (methods). Those calls feed
// one descriptor table — name, signature, one-line doc, implementation —
// which the VM calls through, the REPL completes from and `harn doc`-style
// listings read. Builtins read their arguments through vm.Args, the one
// argument-unpacking helper, so every builtin treats missing and
// wrong-typed arguments the same lenient way (builtins.md §0).
package stdlib

import (
	"math"
	"sort"

	"github.com/harnlang/harn/vm"
)

var (
	builtinTable []*vm.Builtin
	methodTable  []*vm.Method
)

// def registers a builtin function. Call it from an init function.
func def(name, sig, doc string, fn vm.BuiltinFunc) {
	builtinTable = append(builtinTable, vm.NewBuiltin(name, sig, doc, fn))
}

// method registers a method for the receiver kind recv (a type_of name).
// Name "*" registers the kind's fallback for unknown method names; it
// receives the method name as its first argument.
func method(recv, name, sig, doc string, fn vm.MethodFunc) {
	methodTable = append(methodTable, &vm.Method{Recv: recv, Name: name, Sig: sig, Doc: doc, Fn: fn})
}

// Config carries the per-run host globals.
type Config struct {
	// Argv is bound as the global `argv` when non-nil (only `harn run`
	// defines it, language.md §3.2).
	Argv []string
}

// NewUniverse builds the predeclared environment for one run.
func NewUniverse(cfg Config) *vm.Universe {
	u := vm.NewUniverse()
	for _, b := range builtinTable {
		u.AddBuiltin(b)
	}
	for _, m := range methodTable {
		u.AddMethod(m)
	}
	u.AddGlobal("pi", vm.Float(math.Pi))
	u.AddGlobal("e", vm.Float(math.E))
	if cfg.Argv != nil {
		items := make([]vm.Value, len(cfg.Argv))
		for i, a := range cfg.Argv {
			items[i] = vm.Str(a)
		}
		u.AddGlobal("argv", vm.NewList(items))
	}
	for _, g := range globalHooks {
		g(u)
	}
	return u
}

// globalHooks add host globals that need more than a constant (harness).
var globalHooks []func(u *vm.Universe)

// Builtins lists every registered builtin, sorted by name (for docs and
// REPL completion).
func Builtins() []*vm.Builtin {
	out := append([]*vm.Builtin(nil), builtinTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Methods lists every registered method, sorted by receiver then name.
func Methods() []*vm.Method {
	out := append([]*vm.Method(nil), methodTable...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Recv != out[j].Recv {
			return out[i].Recv < out[j].Recv
		}
		return out[i].Name < out[j].Name
	})
	return out
}

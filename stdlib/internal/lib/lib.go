// Package lib is the part of the standard library every area shares: the
// one descriptor table that each area package fills at init time (Def for
// functions, Method for methods, AddGlobal for host globals that need more
// than a constant), the Bytes value kind and the small value helpers the
// areas have in common.
//
// Builtins read their arguments through vm.Args, the one argument-unpacking
// helper, so every builtin treats missing and wrong-typed arguments the same
// lenient way (docs/spec/builtins.md §0).
package lib

import (
	"sync"

	"github.com/harnlang/harn/vm"
)

var (
	builtinTable = make([]*vm.Builtin, 0, tableHint)
	methodTable  = make([]*vm.Method, 0, tableHint)
	globalHooks  []func(u *vm.Universe)

	// The descriptors themselves are carved out of slabs: every harn
	// process registers several hundred of them at init, and one
	// allocation per slab instead of per descriptor spares each start
	// most of that work and the heap pages it touched.
	builtinSlab []vm.Builtin
	methodSlab  []vm.Method
)

// tableHint covers the lite build's table (about 400 builtins) without
// regrowth; slabSize is the number of descriptors per slab.
const (
	tableHint = 512
	slabSize  = 128
)

// Def registers a builtin function and returns it. Call it from an init
// function.
func Def(name, sig, doc string, fn vm.BuiltinFunc) *vm.Builtin {
	if len(builtinSlab) == cap(builtinSlab) {
		builtinSlab = make([]vm.Builtin, 0, slabSize)
	}
	builtinSlab = append(builtinSlab, vm.MakeBuiltin(name, sig, doc, fn))
	b := &builtinSlab[len(builtinSlab)-1]
	builtinTable = append(builtinTable, b)
	return b
}

// Method registers a method for the receiver kind recv (a type_of name).
// Name "*" registers the kind's fallback for unknown method names; it
// receives the method name as its first argument.
func Method(recv, name, sig, doc string, fn vm.MethodFunc) {
	if len(methodSlab) == cap(methodSlab) {
		methodSlab = make([]vm.Method, 0, slabSize)
	}
	methodSlab = append(methodSlab, vm.Method{Recv: recv, Name: name, Sig: sig, Doc: doc, Fn: fn})
	methodTable = append(methodTable, &methodSlab[len(methodSlab)-1])
}

// AddGlobal registers a hook that adds host globals to every universe
// (harness). Call it from an init function.
func AddGlobal(hook func(u *vm.Universe)) { globalHooks = append(globalHooks, hook) }

// namespaces are the members of the namespace globals (`stream`,
// `event_log`, `workflow`), for the reference docs.
var namespaces = map[string][]*vm.Builtin{}

// DocNamespace records the members of the namespace global name (each a
// builtin named "name.member") for the reference docs. The global itself
// is added by an AddGlobal hook. Call it from an init function.
func DocNamespace(name string, members []*vm.Builtin) { namespaces[name] = members }

// Namespace makes the library namespace global name (`stream`,
// `event_log`, `workflow`) of members and records it for the docs. The
// dict is built once per process, on the first universe that asks,
// and shared: it is read-only (an update yields a new plain dict), as
// the builtins it holds are.
func Namespace(name string, members []*vm.Builtin) {
	global := sync.OnceValue(func() vm.Value { return vm.Of(vm.NewLibraryNamespace(name, members)) })
	AddGlobal(func(u *vm.Universe) { u.AddGlobal(name, global()) })
	DocNamespace(name, members)
}

// Namespaces returns the recorded namespace members by namespace name.
// The map must not be modified.
func Namespaces() map[string][]*vm.Builtin { return namespaces }

// Table returns the registered builtins, methods and global hooks in
// registration order. The slices must not be modified.
func Table() ([]*vm.Builtin, []*vm.Method, []func(u *vm.Universe)) {
	resolveOnce.Do(resolveAliases)
	return builtinTable, methodTable, globalHooks
}

// Alias registers newName as a second name of the method recv.oldName
// (newer upstream renamed several value methods; both names stay
// callable). The old method may be registered later, by any area: aliases
// are resolved when the table is first read.
func Alias(recv, newName, oldName, sig string) {
	aliases = append(aliases, alias{recv, newName, oldName, sig})
}

type alias struct{ recv, newName, oldName, sig string }

var (
	aliases     []alias
	resolveOnce sync.Once
)

func resolveAliases() {
	for _, a := range aliases {
		var found *vm.Method
		for _, m := range methodTable {
			if m.Recv == a.recv && m.Name == a.oldName {
				found = m
				break
			}
		}
		if found == nil {
			panic("lib.Alias: no method " + a.recv + "." + a.oldName)
		}
		Method(a.recv, a.newName, a.sig, found.Doc, found.Fn)
	}
}

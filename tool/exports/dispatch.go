package exports

import (
	"fmt"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/hydrate"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/load"
	"github.com/harnlang/harn/vm"
)

// Library is a module loaded for export-backed dispatch: its exports
// catalog as a normalized registry whose handlers call the public
// functions. Prepare it with tool.Prepare and invoke its tools with
// PreparedTool.Invoke on a thread of the library's VM, exactly as a
// script registry (tool/load): arguments are validated against the
// prepared input schema before the function runs, results and declared
// throws are classified against the same prepared catalog.
type Library struct {
	Path    string
	Session *interp.Session
	Module  *interp.Module
	// Registry holds one tool per export, in catalog order. Each handler
	// takes the validated argument object, hydrates struct and enum
	// arguments (docs/spec/registry.md §8.4), supplies the host-injected leading
	// Harness parameters and calls the function with positional
	// arguments.
	Registry *tool.Registry
}

// VM is the library's VM.
func (l *Library) VM() *vm.VM { return l.Session.VM }

// Thread returns a new thread of the library's VM.
func (l *Library) Thread() *vm.Thread { return l.Session.VM.NewThread() }

// Load compiles the module at path as Catalog does, then initialises it —
// its imports, top-level bindings and function declarations; never `main`
// or any other top-level statement (docs/spec/language.md §11.2) — so that its
// public functions can be called. Failures are *load.Error values.
func Load(path string, opts Options) (*Library, error) {
	lib, err := compile(path, opts)
	if err != nil {
		return nil, err
	}
	sess := lib.sess
	// A wait nothing can end fails as a deadlock, as for a script
	// (tool/load).
	sess.VM.DetectDeadlocks()
	if err := sess.InitModule(lib.mod); err != nil {
		return nil, load.LocatedRunError(sess, "module", err)
	}
	root, _ := sess.Universe.Global("harness")
	reg := &tool.Registry{Catalog: lib.catalog, Tools: make([]*tool.Tool, len(lib.exports))}
	for i, ex := range lib.exports {
		fn, ok := lib.mod.VM.Global(ex.name)
		if !ok || !fn.IsValid() || fn.IsNil() {
			return nil, &load.Error{Msg: fmt.Sprintf("export %q has no value after module initialisation", ex.name), Status: 1}
		}
		reg.Tools[i] = &tool.Tool{Entry: ex.entry, Handler: ex.handler(fn, root), Executor: "harn"}
	}
	return &Library{Path: path, Session: sess, Module: lib.mod, Registry: reg}, nil
}

// handler is the registry handler of an export: a builtin taking the
// validated argument object.
func (ex *export) handler(fn, root vm.Value) vm.Value {
	return vm.Of(vm.NewBuiltin(ex.name, ex.name+"(args)", "export-backed dispatch of "+ex.name,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			args, err := ex.arguments(a.At(0), root)
			if err != nil {
				return vm.Value{}, err
			}
			return th.CallPlain(fn, args)
		}))
}

// arguments turns the validated argument object into the positional
// arguments of the call: the injected handles, then each public
// parameter up to the last one given. A parameter left out before a
// given one gets its constant default, or nil when its type admits nil
// (the input schema requires the others).
func (ex *export) arguments(v vm.Value, root vm.Value) ([]vm.Value, error) {
	obj, _ := v.AsDict()
	if obj == nil {
		obj = vm.NewDict()
	}
	out := make([]vm.Value, 0, len(ex.inject)+len(ex.params))
	for _, h := range ex.inject {
		hv, err := harness.Injected(root, h.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, hv)
	}
	last, lazyMissing := -1, false
	for i, p := range ex.params {
		given := obj.Has(p.name)
		switch {
		case given:
			last = i
		case p.rest && !lazyMissing:
			last = i // an empty list rather than nil, unless that would skip a default
		case p.lazy:
			lazyMissing = true
		}
	}
	for i := 0; i <= last; i++ {
		p := ex.params[i]
		given, ok := obj.Get(p.name)
		switch {
		case ok && p.rest:
			out = append(out, given)
		case p.rest:
			out = append(out, vm.Of(vm.NewList(nil)))
		case ok:
			out = append(out, hydrate.Value(p.typ, given))
		case p.hasDef:
			out = append(out, hydrate.Value(p.typ, tool.FromJSON(p.def)))
		default:
			out = append(out, vm.Nil)
		}
	}
	return out, nil
}

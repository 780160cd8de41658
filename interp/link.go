package interp

import (
	"fmt"

	"github.com/harnlang/harn/vm"
)

// The run phase of module loading: binding imports and initialising
// modules (docs/spec/language.md §11.2–11.3).

// lateBinding is an import that reached a module still initialising (an
// import cycle); its names are bound once that module has finished.
type lateBinding struct {
	into *Module
	imp  *Import
}

// link binds the imports of an entry (a program or REPL entry) into its
// globals, initialising the modules they name first. It runs once per
// compiled entry.
func (s *Session) link(m *Module) error {
	if m.bound {
		return nil
	}
	m.bound = true
	return s.bindImports(m)
}

// initModule initialises an imported module once per session: it binds
// the module's own imports, then runs its init code (top-level bindings
// and function declarations).
//
// A module whose initialisation fails is reset, so a later import (the
// next REPL entry) tries again with a fresh instance; imports of it that
// wait to be bound late stay pending until it has loaded.
func (s *Session) initModule(m *Module) (err error) {
	if m.init != initNone {
		return nil // done, or still running further up an import cycle
	}
	m.init = initRunning
	defer func() {
		if err != nil {
			m.init, m.VM = initNone, nil
		}
	}()
	if m.VM == nil {
		m.VM = s.VM.NewModule(m.Program)
	}
	if err := s.bindImports(m); err != nil {
		return err
	}
	th := s.VM.NewThread()
	_, err = th.RunModule(m.VM)
	// The module's thread has ended: the deadlock detector must not
	// count it as one that may still act (it let the lock go last).
	s.VM.Forget(th)
	if err != nil {
		return err
	}
	m.init = initDone
	return s.bindLate()
}

// bindImports binds each import of m in source order.
func (s *Session) bindImports(m *Module) error {
	for _, imp := range m.Imports {
		t := imp.Module
		if err := s.initModule(t); err != nil {
			return addSite(err, m, imp.Decl)
		}
		if t.init != initDone {
			s.late = append(s.late, lateBinding{into: m, imp: imp})
			continue
		}
		if err := bind(m, imp); err != nil {
			return err
		}
	}
	return nil
}

// bindLate binds the pending cyclic imports whose module has finished.
func (s *Session) bindLate() error {
	pending := s.late[:0]
	var ready []lateBinding
	for _, lb := range s.late {
		if lb.imp.Module.init == initDone {
			ready = append(ready, lb)
		} else {
			pending = append(pending, lb)
		}
	}
	s.late = pending
	for _, lb := range ready {
		if err := bind(lb.into, lb.imp); err != nil {
			return err
		}
	}
	return nil
}

// bind copies the values an import names from its module's globals into
// the importer's. Names without a run-time value (enums, type aliases,
// interfaces) bind nothing.
func bind(into *Module, imp *Import) error {
	t := imp.Module
	collide := func(name string, ns bool) error {
		e := vm.Runtimef("%s", importCollision(name, imp.Decl.Path, ns))
		e.Line, e.Col = imp.Decl.PathPos.Line, imp.Decl.PathPos.Col
		e.Trace = []vm.TraceFrame{{File: into.Name, Line: e.Line, Col: e.Col}}
		return e
	}
	if ns := imp.Decl.Namespace; ns != nil {
		v := vm.Of(namespace(t))
		if old, ok := into.VM.Global(ns.Name); ok && importBound(old) && !rebinding(into, old, v) {
			return collide(ns.Name, true)
		}
		into.VM.SetGlobal(ns.Name, v)
		return nil
	}
	for _, name := range imp.Names {
		v, ok := t.VM.Global(name)
		if !ok {
			continue
		}
		if old, ok := into.VM.Global(name); ok && isFunction(v) && (isFunction(old) || isNamespace(old)) && !rebinding(into, old, v) {
			return collide(name, false)
		}
		into.VM.SetGlobal(name, v)
	}
	return nil
}

// rebinding reports whether binding v where old is bound is an import a
// REPL entry runs again: the module loaded once, so the name gets the
// value it already has, and nothing collides (docs/repl.md). In a file
// the second import is the collision of docs/spec/language.md §11.3.
func rebinding(into *Module, old, v vm.Value) bool {
	if !into.interactive {
		return false
	}
	a, nsA := old.AsDict()
	b, nsB := v.AsDict()
	if !nsA || !nsB || !a.IsModuleNamespace() || !b.IsModuleNamespace() {
		return vm.Identical(old, v)
	}
	// a namespace is made afresh by each import: the same module's
	// holds the same functions
	if a.Len() != b.Len() {
		return false
	}
	same := true
	a.Range(func(k string, x vm.Value) bool {
		y, ok := b.Get(k)
		same = ok && vm.Identical(x, y)
		return same
	})
	return same
}

// importCollision is the message for binding a function name that is
// already bound to a function (docs/spec/language.md §11.3); a namespace
// import whose name is taken (ns) gets the same message with a help
// fitting it (docs/modules.md).
func importCollision(name, path string, ns bool) string {
	if ns {
		return fmt.Sprintf("Import collision: '%s' is already defined when importing %s. Use another namespace name: import * as %s_ns from \"...\"", name, path, name)
	}
	return fmt.Sprintf("Import collision: '%s' is already defined when importing %s. Use selective imports to disambiguate: import { %s } from \"...\"", name, path, name)
}

func isFunction(v vm.Value) bool {
	_, ok := v.AsClosure()
	return ok
}

// isNamespace reports whether v is the value of a namespace import.
func isNamespace(v vm.Value) bool {
	d, ok := v.AsDict()
	return ok && d.IsModuleNamespace()
}

// importBound reports whether v is what an import binds: a function or
// a namespace.
func importBound(v vm.Value) bool { return isFunction(v) || isNamespace(v) }

// namespace is the value `import * as ns` binds (docs/spec/newer.md §1.3): a dict of
// the module's exported values, whose stored functions `ns.f(args)` calls.
func namespace(t *Module) *vm.Dict {
	b := vm.NewDictBuilder(0)
	for _, name := range t.Exports() {
		if v, ok := t.VM.Global(name); ok {
			b.Set(name, v)
		}
	}
	return b.BuildNamespace()
}

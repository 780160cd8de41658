package vm

import (
	"strings"
	"sync/atomic"

	"github.com/harnlang/harn/compiler"
)

// Cell is a variable shared between a frame and the closures that capture
// it (docs/spec/language.md §3.4). A nil V means "declared but not yet assigned".
type Cell struct {
	V Value
}

func (*Cell) Type() string                { return "cell" }
func (*Cell) Truth() bool                 { return true }
func (*Cell) Display(sb *strings.Builder) { sb.WriteString("<cell>") }

// Closure is a function value: a prototype, the module whose globals it
// sees, and the cells it captured.
type Closure struct {
	Proto  *compiler.Func
	Module *Module
	Upvals []*Cell
	rt     *funcRT
}

func (c *Closure) Name() string { return c.Proto.Name }
func (*Closure) Type() string   { return "closure" }
func (*Closure) Truth() bool    { return true }
func (c *Closure) Display(sb *strings.Builder) {
	sb.WriteString("<fn(")
	for i, p := range c.Proto.Params {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(p.Name)
	}
	sb.WriteString(")>")
}

// funcRT is the run-time companion of a prototype: constants converted to
// values and a cache of the predeclared names it reads.
type funcRT struct {
	fn       *compiler.Func
	consts   []Value
	univ     []Value // by name index; nil until first use
	children []*funcRT
	caches   siteCaches // inline caches, one slot per call/read site (cache.go)
	// by name index (cache.go): the builtin a callee name resolves to,
	// and the module global slot a dynamic name (CALLEE_NAME) refers to
	builtins []atomic.Pointer[Builtin]
	slots    []atomic.Uint64
	// by code position: run does not hand over to runFast there, because
	// it once returned after fewer than minFastRun code words
	slowEntry []atomic.Bool
}

func newFuncRT(fn *compiler.Func) *funcRT {
	rt := &funcRT{fn: fn, consts: make([]Value, len(fn.Consts)), univ: make([]Value, len(fn.Names)), caches: newSiteCaches(fn.NumCaches),
		builtins: make([]atomic.Pointer[Builtin], len(fn.Names)), slots: make([]atomic.Uint64, len(fn.Names)),
		slowEntry: make([]atomic.Bool, len(fn.Code))}
	for i, c := range fn.Consts {
		rt.consts[i] = constValue(c)
	}
	for _, child := range fn.Funcs {
		rt.children = append(rt.children, newFuncRT(child))
	}
	return rt
}

func constValue(c any) Value {
	switch c := c.(type) {
	case int64:
		return IntOf(c)
	case float64:
		return FloatOf(float64(c))
	case string:
		return Str(c)
	case compiler.Duration:
		return DurationOf(int64(c))
	case *compiler.StructDef:
		return Of(structConstructor(c))
	}
	return Of(&Opaque{X: c})
}

// Opaque carries a compile-time descriptor (type checks, assignment paths,
// tool declarations) through the constant pool.
type Opaque struct{ X any }

func (*Opaque) Type() string                { return "opaque" }
func (*Opaque) Truth() bool                 { return true }
func (*Opaque) Display(sb *strings.Builder) { sb.WriteString("<opaque>") }

// structConstructor is the callable a struct declaration binds: it keeps
// only declared fields of the dict it is given (docs/spec/language.md §10.2).
func structConstructor(sd *compiler.StructDef) *Builtin {
	b := NewBuiltin(sd.Name, sd.Name+"(fields)", "construct a "+sd.Name, func(th *Thread, args Args) (Value, error) {
		d, _ := args.Dict(0)
		if d == nil {
			d = EmptyDict
		}
		return Of(buildStruct(sd.Name, sd, d)), nil
	})
	b.structType = true
	return b
}

func buildStruct(name string, sd *compiler.StructDef, d *Dict) *StructValue {
	s := &StructValue{Name: name}
	d.Range(func(k string, v Value) bool {
		if sd != nil && !containsString(sd.Fields, k) {
			return true
		}
		s.Fields = append(s.Fields, Field{Name: k, Value: v})
		return true
	})
	return s
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Module is one loaded program: its code and its global slots.
type Module struct {
	Prog    *compiler.Program
	Globals []Value // nil: not yet defined
	consts  []uint8 // per global: 0 mutable, 1 const, 2 other immutable
	rt      *funcRT
	byName  map[string]int
	// epoch changes whenever byName does (Extend): caches of name to
	// slot resolutions remember it (cache.go).
	epoch atomic.Uint32
	vm    *VM
}

// NewModule prepares a compiled program to run on v.
func (v *VM) NewModule(p *compiler.Program) *Module {
	m := &Module{
		Prog:    p,
		Globals: make([]Value, len(p.Globals)),
		consts:  make([]uint8, len(p.Globals)),
		rt:      newFuncRT(p.Main),
		byName:  make(map[string]int, len(p.Globals)),
		vm:      v,
	}
	m.nameGlobals(p)
	m.epoch.Store(1)
	return m
}

// Extend makes m run p next, keeping its global values: p's globals must
// start with m's current ones, in the same slots. The REPL compiles each
// entry as a program over the globals of the entries before it, so
// functions defined earlier keep reading and writing the same slots.
func (m *Module) Extend(p *compiler.Program) {
	for len(m.Globals) < len(p.Globals) {
		m.Globals = append(m.Globals, Value{})
		m.consts = append(m.consts, 0)
	}
	m.nameGlobals(p)
	m.epoch.Add(1)
	m.Prog = p
	m.rt = newFuncRT(p.Main)
}

// nameGlobals maps each global name of p to its slot (not a superseded
// declaration's).
func (m *Module) nameGlobals(p *compiler.Program) {
	for i, g := range p.Globals {
		if !g.Superseded {
			m.byName[g.Name] = i
		}
	}
}

// Global returns a module global by name.
func (m *Module) Global(name string) (Value, bool) {
	if i, ok := m.byName[name]; ok && m.Globals[i].IsValid() {
		return Share(m.Globals[i]), true
	}
	return Value{}, false
}

// SetGlobal defines a module global by name (used by the module loader to
// bind imports). It reports false when the module has no such slot.
func (m *Module) SetGlobal(name string, v Value) bool {
	i, ok := m.byName[name]
	if !ok {
		return false
	}
	m.Globals[i] = v
	m.consts[i] = 2
	return true
}

// VM returns the machine the module runs on.
func (m *Module) VM() *VM { return m.vm }

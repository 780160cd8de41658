// Package compiler turns a resolved syntax tree into bytecode for the VM.
//
// The machine model. Each call runs a frame: a function prototype (Func),
// a program counter into its flat []int32 code, and a window of the
// thread's value stack. The window starts with the frame's local slots
// (parameters first, then every local the resolver assigned, then compiler
// temporaries such as loop iterators and match scrutinees); the operand
// stack grows above them. A local captured by a nested function lives in a
// cell stored in its slot; a closure carries the cells it captured as
// upvalues. Module globals live in the module instance, one slot each, and
// are bound late: a function refers to a global by slot and the slot must
// be set when the reference runs. Builtins and host globals are looked up
// by name in the VM's universe.
//
// Failures unwind through try handlers that SETUP_TRY pushes on the frame:
// a handler records the code address of its catch path and the operand
// stack height to restore. `finally` and `defer` bodies are copied by the
// compiler to every exit path (normal end, return, break, continue, the
// failure path), so the VM never has to track pending cleanups itself.
//
// The opcode table with stack pictures is in opcodes.go. Constants are
// plain Go values (int64, float64, string, Duration, []string, *RType,
// *PathDesc) so this package does not depend on the VM.
package compiler

import "github.com/harnlang/harn/lang/syntax"

// FuncKind tells function flavours apart: they differ in what falling off
// the end returns and how rest parameters behave.
type FuncKind int

const (
	FuncNamed    FuncKind = iota // `fn name(…) {…}`: returns nil unless `return`
	FuncClosure                  // closure literal / anonymous fn: returns its last expression
	FuncMethod                   // impl method: like FuncNamed, rest params are plain
	FuncPipeline                 // pipeline body: returns its last expression
	FuncMain                     // a file's top-level code
)

// Param describes one parameter.
type Param struct {
	Name       string
	HasDefault bool
	Rest       bool
	Check      *RType // runtime type check for annotated parameters; nil when none
}

// FreeVar says where a closure's upvalue comes from when the closure is
// made: a cell in the enclosing frame's slot (FromLocal) or one of the
// enclosing closure's own upvalues.
type FreeVar struct {
	Name      string
	FromLocal bool
	Index     int
}

// LineEntry maps code from PC onward to a source position.
type LineEntry struct {
	PC   int
	Line int
	Col  int
}

// Func is a compiled function prototype.
type Func struct {
	Name      string
	File      string
	Line      int
	Kind      FuncKind
	Params    []Param
	RestPlain bool // a `...rest` parameter binds one argument (closures, methods)
	NumLocals int
	MaxStack  int
	Code      []int32
	Consts    []any
	Names     []string
	// LocalNames holds, by the index in Names of a name read as an
	// undefined variable (LOAD_NAME), the local variables visible where
	// it is read, for the error's "did you mean" (docs/spec/language.md §3.2).
	LocalNames map[int][]string
	Funcs      []*Func
	FreeVars   []FreeVar
	Lines      []LineEntry
	// NumCaches counts the inline cache slots the VM keeps for this
	// function: one per method call and property read site (the c
	// operand of CALL_METHOD and GET_PROP).
	NumCaches int
	IsGen     bool // contains yield: calling it makes a generator
	IsStream  bool // gen fn (or emit): calling it makes a stream
	HasCheck  bool // some parameter has a runtime type check
	Doc       string

	// ImplScopes holds, by the cache slot of a method call site, the impl
	// blocks the site sees (docs/spec/language.md §10.3); a site past its end
	// or with no entry for a struct finds the struct's last impl by name.
	ImplScopes [][]ImplRef

	// Simple marks a function the VM may enter by its fast path when a
	// call passes exactly len(Params) arguments: not a generator, stream
	// or pipeline, and no rest parameter collecting surplus arguments.
	Simple bool
}

// ImplSite is one impl block of a program: the IMPL instruction that
// runs it registers its methods under it (a *ImplSite is the constant
// of its k operand).
type ImplSite struct {
	Struct  string
	Methods []string
}

// ImplRef is what a method call site sees of a struct's impls: the impl
// block Site, or none (Site nil) when the program's impl blocks for
// Struct are out of the site's scope, so that the call yields nil.
type ImplRef struct {
	Struct string
	Site   *ImplSite
}

// LocalNamesOf is LocalNames for the name spelt name (nil if none).
func (f *Func) LocalNamesOf(name string) []string {
	for i, n := range f.Names {
		if n == name {
			return f.LocalNames[i]
		}
	}
	return nil
}

// LineAt returns the source line of the instruction at pc.
func (f *Func) LineAt(pc int) int {
	line, _ := f.PosAt(pc)
	return line
}

// PosAt returns the source line and column of the instruction at pc.
func (f *Func) PosAt(pc int) (line, col int) {
	line = f.Line
	lo, hi := 0, len(f.Lines)
	for lo < hi {
		mid := (lo + hi) / 2
		if f.Lines[mid].PC <= pc {
			line, col = f.Lines[mid].Line, f.Lines[mid].Col
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return line, col
}

// ParamNames lists the parameter names (for display `<fn(a, b)>`).
func (f *Func) ParamNames() []string {
	names := make([]string, len(f.Params))
	for i, p := range f.Params {
		names[i] = p.Name
	}
	return names
}

// Global describes one module global slot.
type Global struct {
	Name string
	// Superseded marks the slot of a top-level declaration a later one
	// of the same name replaces: lookups by name never reach it.
	Superseded bool
}

// Program is one compiled file.
type Program struct {
	File     string
	Main     *Func
	Globals  []Global
	Pipeline bool // pipeline mode
	HasMain  bool // declares `fn main(harness: Harness)`, called after the top level
	Exports  []string
	Syntax   *syntax.File
}

// Duration is a duration constant in milliseconds.
type Duration int64

// PathDesc describes an assignment path `root.a[k].b`: one step per
// accessor after the root.
type PathDesc struct {
	Steps []PathStep
}

// PathStep is `.Name` (Prop) or `[expr]` (index taken from the stack).
type PathStep struct {
	Prop    string
	IsIndex bool
}

// RType is a runtime parameter type check (docs/spec/language.md §10.6).
type RType struct {
	Kind   string   // int float string bool nil list dict set closure bytes decimal any literal union all listof tupleof dictof shape struct interface kind rest
	Name   string   // struct or interface name; the written type for messages
	Elems  []*RType // union or intersection members, list element, dict value, rest argument
	Fields []RField // shape fields
	First  int      // rest: the 1-based argument position of the first rest argument
	Lit    any      // literal: the string or int64 the value must equal
	Decl   string   // struct: the declared name, when Name shows type arguments (`Box<int>`)
}

// RField is one shape field of an RType.
type RField struct {
	Name     string
	Optional bool
	Type     *RType
}

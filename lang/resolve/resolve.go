// Package resolve performs static scoping for a parsed file: before any
// code runs, every identifier becomes a reference to a local slot, a cell
// (a local captured by a nested function), a free variable (an upvalue of
// the enclosing function), a module global, a predeclared name (builtin or
// host global) or an imported name. It also enforces the binding rules of
// docs/spec/language.md §3 and reports undefined names with a "did you mean".
//
// Model. Each function (named fn, closure literal, pipeline, impl method,
// and the file's top-level code) has a frame of local slots. Script-mode
// top-level `let`/`var`/`const`, `fn`, `struct`, `enum`, `impl`, `tool`
// declarations are module globals, looked up by slot and bound late (a
// function may refer to a global declared later; it must exist when the
// reference runs). Names declared inside blocks are locals with a fresh
// slot per declaration; a local that a nested function refers to is a cell,
// created anew each time its declaration executes, so closures share the
// variable itself (docs/spec/language.md §3.4) and loop iterations do not.
package resolve

import (
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
)

// Scope says where a binding's value lives.
type Scope uint8

const (
	Undefined Scope = iota
	Local           // a slot of the current frame
	Cell            // a slot of the current frame holding a shared cell
	Free            // an upvalue of the current closure (always a cell)
	Global          // a module global slot
	Universal       // a builtin or host global (by name)
	Import          // a name bound by a wildcard import the resolver could not see into (by name)
	Hidden          // a global the reference cannot see yet: reading it fails at run time
)

func (s Scope) String() string {
	return [...]string{"undefined", "local", "cell", "free", "global", "universal", "import", "hidden"}[s]
}

// Kind is how a binding was declared.
type Kind uint8

const (
	KLet Kind = iota
	KVar
	KConst
	KFn
	KParam
	KFor
	KCatch
	KMatch
	KStruct
	KEnum
	KImpl
	KTool
	KPipeline
	KImport
	KType
	KInterface
	KSkill  // a `skill` declaration (immutable)
	KHidden // compiler-internal (pipe placeholder parameter)
)

// Mutable reports whether assignments to a binding of this kind are allowed.
func (k Kind) Mutable() bool { return k == KLet || k == KVar || k == KFor }

// Binding is one declared name.
type Binding struct {
	Name      string
	Kind      Kind
	Pos       syntax.Pos
	Decl      syntax.Node // declaring node
	Scope     Scope       // Local, Cell or Global (never Free)
	Index     int         // frame slot or global slot
	Func      *Function   // owning function (nil for globals)
	Captured  bool        // a nested function refers to it
	Used      bool        // read at least once
	Hoisted   bool        // a local fn whose binding exists before its declaration runs
	EarlyCell bool        // a local `let f = { … f() … }`: its cell exists before the closure is made
	Forward   bool        // a local `let` a call above its declaration refers to: its cell is made when its block starts
	FirstPos  syntax.Pos  // globals: position of the first top-level declaration
	PathRoot  bool        // the root of some path assignment (`x[k] = v`, `x.f = v`) or of `x = x.push(v)`
	Reassign  bool        // assigned after declaration
	Shadows   *Binding    // a local of an enclosing block or function this one hides
	// Superseded marks a global of a top-level declaration that a later
	// one of the same name replaces: its slot is not the name's
	// (redeclare.go).
	Superseded bool
}

// Ref is one resolved identifier occurrence.
type Ref struct {
	Binding *Binding // nil for Universal / Import / Undefined
	Scope   Scope
	Index   int // slot, upvalue index or global index
	Name    string
}

// Function is the static frame layout of one function body.
type Function struct {
	Node     syntax.Node // *syntax.FnDecl, *syntax.ClosureLit, *syntax.PipelineDecl, *syntax.ToolDecl, *syntax.PipeExpr (placeholder closure) or *syntax.File
	Parent   *Function
	Locals   []*Binding // slot order; params first
	FreeVars []*Binding // upvalues, in index order (bindings of enclosing functions)
	HasYield bool
	HasEmit  bool // contains `emit`, or is a `gen fn`: calling it makes a stream
	freeIdx  map[*Binding]int
}

// NumLocals is the number of frame slots the resolver assigned.
func (f *Function) NumLocals() int { return len(f.Locals) }

// Info is the result of resolving a file.
type Info struct {
	Refs    map[*syntax.Ident]*Ref
	Funcs   map[syntax.Node]*Function
	decls   map[declKey]*Binding
	Globals []*Binding // global slot order
	// GlobalIndex maps a global name to its slot.
	GlobalIndex map[string]int
	Main        *Function // the file's top-level code
	Pipeline    bool      // the file runs in pipeline mode
	Entry       *syntax.PipelineDecl
	// ConstRedeclared marks declaring nodes of a const that re-declares a
	// const of the same name in the same local scope, and impl blocks that
	// follow another for the same struct in the same scope (run-time errors).
	ConstRedeclared map[syntax.Node]bool
	// PipelineBodies holds each pipeline's statements with the bodies of
	// the pipelines it extends in front (docs/spec/language.md §5.5).
	PipelineBodies map[*syntax.PipelineDecl][]syntax.Stmt
	// SchemaTypes maps each name of a type alias used as a schema value
	// (schema.go) to the alias's name, which the compiler looks up among
	// the type declarations the file sees.
	SchemaTypes map[*syntax.Ident]string
	// InterpToString holds, for each interpolated string in the scope
	// of a binding named to_string, that binding: interpolation calls
	// to_string by name (docs/spec/language.md §1.7), so a user function
	// or closure of that name takes over from the builtin.
	InterpToString map[*syntax.InterpString]*Ref
	// LocalNames holds, for each read of an undefined name inside a
	// function, the local names visible there: with the module globals
	// and builtins known at run time they are what the "did you mean" of
	// the Undefined variable error may offer (docs/spec/language.md §3.2).
	LocalNames map[*syntax.Ident][]string
	// PipeFns holds, for `x |> v` inside a function where v is a
	// variable, the local functions declared above the pipe: v holding
	// the name of one of them calls it (docs/spec/language.md §2.8).
	PipeFns map[*syntax.PipeExpr][]*Ref
	// Module is true for a file loaded by import (Options.Module).
	Module   bool
	Errors   diag.List
	Warnings diag.List

	enums       map[string]bool
	enumDecls   map[string]*syntax.EnumDecl
	structs     map[string]*syntax.StructDecl
	methodImpls map[*syntax.MethodCall][]ImplRef
	// undo puts back, in reverse order, the nodes resolution replaced
	// (RestoreSpelling)
	undo []func()
}

// RestoreSpelling puts back in the tree what resolution rewrote into a
// qualified form the compiler reads — a bare variant pattern (`Circle(r)`,
// `Ok(v)`) it spelled `Shape.Circle(r)`, an enum reached through a
// namespace (`ns.Shape.Circle`) it shortened to `Shape` — so that a tool
// printing the tree (lint --fix) prints the file as written. Edits made to
// the tree in between are kept: a variant pattern's arguments are shared
// by both spellings. The Info no longer describes the tree afterwards.
func (in *Info) RestoreSpelling() {
	for i := len(in.undo) - 1; i >= 0; i-- {
		in.undo[i]()
	}
	in.undo = nil
}

type declKey struct {
	node syntax.Node
	name string
}

// Decl returns the binding a declaring node introduced for name: pass the
// *syntax.LetStmt's pattern item (*syntax.IdentPattern, *syntax.DictPatItem,
// *syntax.ListPatItem), *syntax.PairPattern, *syntax.Param, *syntax.FnDecl,
// *syntax.StructDecl, *syntax.EnumDecl, *syntax.TryExpr (catch variable),
// *syntax.Ident (match binding), *syntax.ImportDecl, *syntax.PipelineDecl,
// *syntax.ToolDecl, *syntax.ImplBlock, *syntax.SelectCase, *syntax.ParallelExpr.
func (in *Info) Decl(node syntax.Node, name string) *Binding {
	return in.decls[declKey{node, name}]
}

// Universe answers whether a name is predeclared (builtin or host global).
type Universe interface {
	IsPredeclared(name string) bool
	PredeclaredNames() []string
}

// Options configures resolution.
type Options struct {
	Universe Universe
	// ImportedNames are names bound by the file's imports (resolved by the
	// module loader before resolution). They become globals of the file.
	ImportedNames []string
	// ImportedAliases are the names among ImportedNames that are type
	// aliases: usable as schema values (schema.go).
	ImportedAliases []string
	// ImportedPipelines maps the names among ImportedNames that are
	// pipelines to their number of parameters without a default: a
	// pipeline of the file may extend one (walk.go pipelineBody).
	ImportedPipelines map[string]int
	// ImportedEnums are the enums among ImportedNames, and NamespaceEnums
	// the enums each namespace import (`import * as ns`) exports, so that
	// `Shape.Circle(1)` and `ns.Shape.Circle(1)` build and match variants
	// of an imported enum (enums have no run-time value to import).
	ImportedEnums  []string
	NamespaceEnums map[string][]string
	// ImportedVariants maps a variant name to the imported enums that
	// declare it, as the file spells them (`Color`, or `ns.Color` for a
	// namespace import): a bare pattern of such a variant is an error,
	// since imported variants must be qualified (docs/spec/newer.md §1.12).
	ImportedVariants map[string][]string
	// OpaqueImports is true when some import could not be inspected; then
	// unknown names are looked up by name at run time instead of being
	// reported.
	OpaqueImports bool
	// Persistent lets a REPL keep globals across entries: names in
	// PriorGlobals are already defined module globals (in slot order).
	// Those that are also ImportedNames were bound by an earlier entry's
	// import and keep the import kind, as in one script.
	PriorGlobals []string
	// PriorEnums and PriorStructs were declared by earlier REPL entries;
	// the variants of PriorEnums match bare, as same-file ones do
	// (docs/spec/newer.md §1.12), unless the file declares the enum again.
	PriorEnums   []*syntax.EnumDecl
	PriorStructs []*syntax.StructDecl
	// Module marks a file loaded by import. Unlike upstream's April
	// snapshot (docs/spec/language.md §11.2), enums declared in a module work in its
	// functions: the seeds' exported functions declare and throw enum
	// error types (`throws ParseError`), which the quirk would break.
	Module bool
}

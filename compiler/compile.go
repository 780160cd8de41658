package compiler

import (
	"fmt"
	"math"
	"slices"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// StructDef is the constant behind a struct declaration: the VM turns it
// into the struct's constructor value.
type StructDef struct {
	Name   string
	Fields []string // declared field names, sorted
}

// ToolDef is the constant behind a `tool` declaration.
type ToolDef struct {
	Name        string
	Description string
	Params      []ToolParam
	// Sig is the declaration's signature as types: the one source of its
	// input, output and error schemas (lang/typeschema) and of the
	// hydration of its JSON arguments.
	Sig  *types.Func
	Decl *syntax.ToolDecl
}

// SkillDef is the constant behind a `skill` declaration: its name and
// the names of its fields, whose values the hook receives in this order.
type SkillDef struct {
	Name   string
	Fields []string
	Decl   *syntax.SkillDecl // nil for Attr
	Attr   bool              // an `@acp_skill` fn: the hook also receives the function
}

// ToolParam is one parameter of a tool declaration.
type ToolParam struct {
	Name    string
	Type    syntax.TypeExpr
	Default syntax.Expr // the default's expression, nil without one
	Rest    bool        // `...name`: the remaining arguments, a list
}

// HasDefault reports whether the parameter may be left out.
func (p ToolParam) HasDefault() bool { return p.Default != nil }

// CompileModule compiles a file loaded by import: running it only binds
// its top-level let/var/const values and functions (docs/spec/language.md §11.2).
//
// Module functions keep upstream's quirks (§11.2): struct literals keep
// every field given, a `...rest` parameter is a plain parameter, and a
// `defer` runs only at an explicit `return` or `throw`. (Enum variants go
// unrecognised too: resolve the file with resolve.Options.Module.)
func CompileModule(f *syntax.File, info *resolve.Info, opts ...Option) (*Program, error) {
	c := newCompiler(f, info, opts)
	c.module = true
	c.prog = &Program{File: f.Path, Syntax: f, Globals: globalsOf(info)}
	c.prog.Main = c.compileModuleInit()
	return c.result()
}

// Compile compiles a resolved file. The error, when not nil, is a
// diag.List of compile errors (break/continue outside a loop, try* at top
// level).
func Compile(f *syntax.File, info *resolve.Info, opts ...Option) (*Program, error) {
	c := newCompiler(f, info, opts)
	c.prog = &Program{File: f.Path, Pipeline: info.Pipeline, Syntax: f, Globals: globalsOf(info)}
	c.prog.HasMain = !info.Pipeline && c.hasEntryMain()
	c.prog.Main = c.compileMain()
	return c.result()
}

// An Option adds an optional input to a compilation.
type Option func(*compiler)

// Types gives the type declarations the file sees: its own and those its
// imports make visible, as the checker saw them (check.Options.Env).
// Without it the compiler knows the file's own, so a type alias imported
// from another module cannot be used as a schema value.
func Types(env *types.Env) Option {
	return func(c *compiler) { c.types = env }
}

// Interactive compiles a REPL entry. A later entry may declare a global
// with the name of a builtin this one reads, and code compiled now must
// then see the global, as call sites already do (CALLEE_NAME): builtins
// read as values are looked up by name (LOAD_NAME), not straight in the
// universe (LOAD_UNIV).
func Interactive() Option {
	return func(c *compiler) { c.interactive = true }
}

func newCompiler(f *syntax.File, info *resolve.Info, opts []Option) *compiler {
	c := &compiler{file: f, info: info, aliases: syntax.TypeAliases(f.Items), structRT: map[string]*RType{},
		strs: map[string]string{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

func globalsOf(info *resolve.Info) []Global {
	globals := make([]Global, len(info.Globals))
	for i, g := range info.Globals {
		globals[i] = Global{Name: g.Name, Superseded: g.Superseded}
	}
	return globals
}

// result finishes a compilation: the program, and its compile errors.
func (c *compiler) result() (*Program, error) {
	c.prog.Exports = exports(c.file)
	if len(c.errs) > 0 {
		return c.prog, c.errs
	}
	return c.prog, nil
}

type compiler struct {
	file    *syntax.File
	info    *resolve.Info
	prog    *Program
	errs    diag.List
	aliases map[string]*syntax.TypeDecl
	module  bool // an imported module (CompileModule)
	// interactive: a REPL entry (Interactive)
	interactive bool
	types       *types.Env
	// structRT caches the run-time check of each struct type.
	structRT map[string]*RType
	// interfaces names the interfaces declared anywhere in the file
	// (built on first use by isInterface).
	interfaces map[string]bool
	// strs interns the program's names and string constants, so a struct
	// field name and the property reads of it share one string: the VM's
	// field cache (vm/cache.go) then matches them by pointer.
	strs map[string]string
	// implSites gives each impl block its run-time identity.
	implSites map[*syntax.ImplBlock]*ImplSite
	// typeParams are the type parameters in scope where code is being
	// compiled: those of the enclosing generic functions, and of the
	// generic struct or enum whose impl block is being compiled. A type
	// parameter shadows a declared type of the same name, so it is not
	// checked at run time (docs/spec/language.md §9.2: generic parameters
	// are static only).
	typeParams []string
}

// withTypeParams puts the names of tps in scope and returns the function
// that takes them out again.
func (c *compiler) withTypeParams(tps []*syntax.TypeParam) func() {
	n := len(c.typeParams)
	for _, tp := range tps {
		c.typeParams = append(c.typeParams, tp.Name)
	}
	return func() { c.typeParams = c.typeParams[:n] }
}

// isTypeParam reports whether name is a type parameter in scope.
func (c *compiler) isTypeParam(name string) bool {
	return slices.Contains(c.typeParams, name)
}

// declTypeParams are the type parameters of the struct or enum name
// declared in this file (nil when it is not generic or not declared here).
func (c *compiler) declTypeParams(name string) []*syntax.TypeParam {
	for _, it := range c.file.Items {
		switch d := it.(type) {
		case *syntax.StructDecl:
			if d.Name == name {
				return d.TypeParams
			}
		case *syntax.EnumDecl:
			if d.Name == name {
				return d.TypeParams
			}
		}
	}
	return nil
}

// intern returns the program's one copy of s.
func (c *compiler) intern(s string) string {
	if t, ok := c.strs[s]; ok {
		return t
	}
	c.strs[s] = s
	return s
}

func (c *compiler) errorf(pos syntax.Pos, format string, args ...any) {
	c.errorHelp(pos, "", format, args...)
}

// errorHelp reports a compile error with a help line. Code compiled more
// than once (a defer block is copied to every exit point) reports each
// error once.
func (c *compiler) errorHelp(pos syntax.Pos, help, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, e := range c.errs {
		if e.Line == pos.Line && e.Col == pos.Col && e.Msg == msg {
			return
		}
	}
	c.errs = append(c.errs, &diag.Error{
		File: c.file.Path, Line: pos.Line, Col: pos.Col,
		Msg: msg, Help: help, Phase: diag.PhaseCompile,
	})
}

// hasEntryMain reports whether the file declares a top-level
// `fn main(harness: Harness)`-shaped main (one parameter), which script
// mode calls after the top level (docs/spec/language.md §5.4).
func (c *compiler) hasEntryMain() bool {
	for _, it := range c.file.Items {
		if fn, ok := it.(*syntax.FnDecl); ok && fn.Name == "main" && len(fn.Params) >= 1 {
			return true
		}
	}
	return false
}

// exports lists the names a module marks pub.
func exports(f *syntax.File) []string {
	var out []string
	for _, it := range f.Items {
		switch d := it.(type) {
		case *syntax.FnDecl:
			if d.Pub {
				out = append(out, d.Name)
			}
		case *syntax.ToolDecl:
			if d.Pub {
				out = append(out, d.Name)
			}
		case *syntax.SkillDecl:
			if d.Pub {
				out = append(out, d.Name)
			}
		case *syntax.PipelineDecl:
			if d.Pub {
				out = append(out, d.Name)
			}
		case *syntax.StructDecl:
			if d.Pub {
				out = append(out, d.Name)
			}
		case *syntax.LetStmt:
			if d.Pub {
				if ip, ok := d.Pattern.(*syntax.IdentPattern); ok {
					out = append(out, ip.Name)
				}
			}
		}
	}
	return out
}

// ---- per-function state ----

type region struct {
	finally *syntax.Block    // nil for a try without finally (handler only)
	hook    string           // runtime exit hook to call instead (mutex, deadline)
	drop    *resolve.Binding // an owned<T> binding to drop on the way out (docs/spec/newer.md §2.25)
	active  bool             // its handler is still installed
}

type loopCtx struct {
	breaks    []int // code positions of break jumps to patch
	continues []int
	contPC    int // -1 until known
	depth     int // operand stack depth inside the loop body
	regions   int // len(regions) at loop entry
	// iter is the local holding a for loop's iterator (-1 for a while
	// loop): every way out of the loop but a failure runs CLOSE_ITER on
	// it, so a generator the loop abandons is closed (the VM closes it
	// on a failure), and a `parallel … as stream` it iterates directly
	// has its branches stopped.
	iter int
}

type fcomp struct {
	c        *compiler
	fn       *Func
	res      *resolve.Function
	depth    int
	nlocals  int
	consts   map[any]int
	names    map[string]int
	lastLine int
	lastCol  int
	loops    []*loopCtx
	regions  []region
	defers   []*syntax.Block
	// inDefer counts the defer blocks being copied to an exit point: a
	// break or continue there has no loop to leave (emitDefers).
	inDefer  int
	catching int // enclosing try-with-catch bodies (defer rule, docs/spec/language.md §8.6)
	// thrownHere holds, for each enclosing try with a typed catch, the
	// local a throw statement (or try* re-raise) of its body sets, so a
	// catch that does not match knows to run the defers (§8.6).
	thrownHere []int
	kind       FuncKind
	// ownsReturn: the function is declared `-> owned<…>`, so its owned
	// bindings transfer to the caller instead of being dropped (§2.25)
	ownsReturn bool
}

func (c *compiler) newFunc(name string, kind FuncKind, res *resolve.Function, line int) *fcomp {
	fc := &fcomp{
		c:      c,
		fn:     &Func{Name: name, File: c.file.Path, Kind: kind, Line: line},
		res:    res,
		consts: map[any]int{},
		names:  map[string]int{},
		kind:   kind,
	}
	if res != nil {
		fc.nlocals = res.NumLocals()
		for _, b := range res.FreeVars {
			fv := FreeVar{Name: b.Name}
			if res.Parent != nil && b.Func == res.Parent {
				fv.FromLocal = true
				fv.Index = b.Index
			} else if res.Parent != nil {
				idx, _ := res.Parent.FreeIndex(b)
				fv.Index = idx
			}
			fc.fn.FreeVars = append(fc.fn.FreeVars, fv)
		}
		fc.fn.IsGen = res.HasYield
		fc.fn.IsStream = res.HasEmit
	}
	return fc
}

func (f *fcomp) finish() *Func {
	f.fn.NumLocals = f.nlocals
	fn, np := f.fn, len(f.fn.Params)
	fn.Simple = !fn.IsGen && !fn.IsStream && fn.Kind != FuncPipeline &&
		(np == 0 || !fn.Params[np-1].Rest || fn.RestPlain)
	fuse(f.fn)
	return f.fn
}

func (f *fcomp) temp() int {
	i := f.nlocals
	f.nlocals++
	return i
}

// ---- emission ----

func (f *fcomp) pc() int { return len(f.fn.Code) }

func (f *fcomp) emit(op Opcode, operands ...int) int {
	at := f.pc()
	f.fn.Code = append(f.fn.Code, int32(op))
	for _, o := range operands {
		f.fn.Code = append(f.fn.Code, int32(o))
	}
	if len(operands) != Info[op].Operands {
		panic(fmt.Sprintf("compiler: %s takes %d operands, got %d", op, Info[op].Operands, len(operands)))
	}
	f.depth += stackEffect(op, operands)
	if f.depth > f.fn.MaxStack {
		f.fn.MaxStack = f.depth
	}
	return at
}

// patch sets the jump target operand (index k) of the instruction at at.
func (f *fcomp) patch(at, k, target int) { f.fn.Code[at+1+k] = int32(target) }

// patchHere points the jump at at to the current position.
func (f *fcomp) patchHere(at int) {
	f.patch(at, targetOperand(Opcode(f.fn.Code[at])), f.pc())
}

func (f *fcomp) line(pos syntax.Pos) {
	if pos.Line > 0 && (pos.Line != f.lastLine || pos.Col != f.lastCol) {
		f.lastLine, f.lastCol = pos.Line, pos.Col
		if n := len(f.fn.Lines); n > 0 && f.fn.Lines[n-1].PC == f.pc() {
			f.fn.Lines[n-1] = LineEntry{PC: f.pc(), Line: pos.Line, Col: pos.Col}
			return
		}
		f.fn.Lines = append(f.fn.Lines, LineEntry{PC: f.pc(), Line: pos.Line, Col: pos.Col})
	}
}

func (f *fcomp) constant(v any) int {
	key := v
	if x, ok := v.(float64); ok {
		key = floatKey(math.Float64bits(x)) // keeps 0.0 and -0.0 apart
	}
	if x, ok := v.(string); ok {
		v = f.c.intern(x)
	}
	switch v.(type) {
	case int64, float64, string, Duration:
		if i, ok := f.consts[key]; ok {
			return i
		}
		f.consts[key] = len(f.fn.Consts)
	}
	f.fn.Consts = append(f.fn.Consts, v)
	return len(f.fn.Consts) - 1
}

func (f *fcomp) name(s string) int {
	if i, ok := f.names[s]; ok {
		return i
	}
	f.names[s] = len(f.fn.Names)
	f.fn.Names = append(f.fn.Names, f.c.intern(s))
	return len(f.fn.Names) - 1
}

// cacheSlot allocates one of the function's inline cache slots (Func.NumCaches).
func (f *fcomp) cacheSlot() int {
	f.fn.NumCaches++
	return f.fn.NumCaches - 1
}

func (f *fcomp) pushInt(n int64) {
	// INT boxes its operand at run time; only the VM's cached small ints
	// are free to box, so larger literals come from the constant pool.
	if n >= -256 && n < 1024 {
		f.emit(INT, int(n))
		return
	}
	f.emit(CONST, f.constant(n))
}

func (f *fcomp) pushString(s string) { f.emit(CONST, f.constant(s)) }

// floatKey identifies a float constant by its bit pattern.
type floatKey uint64

// stackEffect is the net change of the operand stack for op.
func stackEffect(op Opcode, a []int) int {
	switch op {
	case NOP, JUMP, MAKE_CELL, CELLIFY, SETUP_TRY, POP_TRY, ARGC_GT, RAISE, MATCH_FAIL, CHECK_PARAM, PAT_DICT, PAT_LIST,
		DICT_KEY, DICT_REST, LIST_AT, LIST_FROM, IS_VARIANT, VARIANT_FIELD, LIST_LEN_IS, IS_DICT, CAUGHT,
		CATCH_IS, CATCHABLE, WRAP_OK, ERR_RESULT, PROPAGATE, GET_PROP, GET_PROP_OPT, NOT, NEG, TRUTH, ITER, YIELD, NON_NIL, RETRY_COUNT, PIPE_CALLEE,
		CALL_ENTRY, CLOSE_ITER, JUMP_OPEN:
		return 0
	case POP, STORE_LOCAL, STORE_CELL, STORE_FREE, STORE_GLOBAL, DEF_GLOBAL, JUMP_IF_FALSE, JUMP_IF_TRUE,
		THROW, RERAISE, RETRY_RERAISE, RETURN, EMIT, JUMP_IF_NOT_NIL:
		return -1
	case POPN:
		return -a[0]
	case DUP, CONST, NIL, TRUE, FALSE, INT, LOAD_LOCAL, LOAD_LOCAL_CK, LOAD_CELL, LOAD_FREE, LOAD_GLOBAL, LOAD_LOCAL_SH, LOAD_GLOBAL_SH,
		LOAD_UNIV, LOAD_NAME, CALLEE_UNIV, CALLEE_LOCAL, CALLEE_CELL, CALLEE_FREE, CALLEE_GLOBAL, CALLEE_NAME, MAKE_CLOSURE,
		FOR_NEXT, PAIR_SPLIT:
		return 1
	case DUP2:
		return 2
	case JUMP_IF_NIL:
		return 0
	case CALL, TAILCALL:
		return -a[0]
	case CALL_SPREAD, PIPE:
		return -1
	case CALL_METHOD, CALL_METHOD_OPT:
		return -a[1]
	case CALL_METHOD_SP:
		return -1
	case ADD, SUB, MUL, DIV, MOD, POW, EQ, NE, LT, GT, LE, GE, IN, NOT_IN, GET_INDEX, GET_INDEX_OPT,
		LIST_PUSH, LIST_EXTEND, DICT_MERGE:
		return -1
	case SLICE, DICT_SET:
		return -2
	case MAKE_LIST, INTERP:
		return 1 - a[0]
	case MAKE_DICT:
		return 1 - 2*a[0]
	case MAKE_RANGE:
		return -1
	case MAKE_STRUCT:
		return 1 - 2*a[1]
	case MAKE_VARIANT:
		return 1 - a[2]
	case SET_PATH:
		return -1 // root k1..km v -> root' ; keys counted by caller adjust
	case IMPL:
		return -a[1]
	case CALL_INTERNAL:
		return 1 - a[1]
	case LOCAL_BINOP, LOCAL_GET_PROP, LOCAL_CALL_METHOD, NAME_CALL_LOCAL:
		return 1
	case LOCAL_BINOP_STORE, LOCAL_BINOP_JUMP, RETURN_LOCAL, FOR_NEXT_STORE, JUMP_FOR:
		return 0
	case CONST_BINOP_JUMP:
		return -1
	case LOCALS_CALL_METHOD:
		return 2
	case BINOP_STORE, BINOP_RETURN:
		return -2
	}
	panic(fmt.Sprintf("compiler: no stack effect for %s", op))
}

// importedDecl returns the declaration of kind an import makes visible
// under name (`Point`, or `ns.Point` for a namespace's), or nil.
func (c *compiler) importedDecl(name string, kind types.DeclKind) *types.Decl {
	if c.types == nil {
		return nil
	}
	if d := c.types.Lookup(name); d != nil && d.Kind == kind && d.Origin != c.file.Path {
		return d
	}
	return nil
}

// importedStruct returns the declaration of the struct an import makes
// visible under name, so that its literals keep only the declared fields
// as the module's constructor does (docs/spec/language.md §10.2).
func (c *compiler) importedStruct(name string) *syntax.StructDecl {
	if d := c.importedDecl(name, types.StructDecl); d != nil {
		sd, _ := d.Node.(*syntax.StructDecl)
		return sd
	}
	return nil
}

// importedAlias returns the declaration of the type alias an import makes
// visible under name when the file declares no struct or enum of that
// name, or nil.
func (c *compiler) importedAlias(name string) *syntax.TypeDecl {
	if c.info.Struct(name) != nil || c.info.IsEnum(name) {
		return nil
	}
	if d := c.importedDecl(name, types.AliasDecl); d != nil {
		td, _ := d.Node.(*syntax.TypeDecl)
		return td
	}
	return nil
}

// importedInterface reports whether an import makes an interface visible
// under name and the file declares no type of that name.
func (c *compiler) importedInterface(name string) bool {
	if c.info.Struct(name) != nil || c.info.IsEnum(name) || c.aliases[name] != nil {
		return false
	}
	return c.importedDecl(name, types.InterfaceDecl) != nil
}

// isInterface reports whether the file declares an interface called name,
// at top level or inside a function or pipeline body.
func (c *compiler) isInterface(name string) bool {
	if c.interfaces == nil {
		c.interfaces = map[string]bool{}
		var walk func([]syntax.Stmt)
		walk = func(stmts []syntax.Stmt) {
			for _, s := range stmts {
				if in, ok := s.(*syntax.InterfaceDecl); ok {
					c.interfaces[in.Name] = true
					continue
				}
				for _, inner := range syntax.NestedStmts(s) {
					walk(inner)
				}
			}
		}
		walk(c.file.Items)
	}
	return c.interfaces[name]
}

package compiler

import (
	"fmt"
	"slices"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

func binaryOpcode(op string) Opcode {
	switch op {
	case "+":
		return ADD
	case "-":
		return SUB
	case "*":
		return MUL
	case "/":
		return DIV
	case "%":
		return MOD
	case "**":
		return POW
	case "==":
		return EQ
	case "!=":
		return NE
	case "<":
		return LT
	case ">":
		return GT
	case "<=":
		return LE
	case ">=":
		return GE
	case "in":
		return IN
	case "not in":
		return NOT_IN
	}
	panic("compiler: unknown operator " + op)
}

func hasSpread(list []syntax.Expr) bool {
	for _, e := range list {
		if _, ok := e.(*syntax.SpreadExpr); ok {
			return true
		}
	}
	return false
}

// loadRef pushes the value of a resolved identifier.
func (f *fcomp) loadRef(id *syntax.Ident, ref *resolve.Ref) {
	if ref == nil {
		f.emit(LOAD_NAME, f.name(id.Name))
		return
	}
	switch ref.Scope {
	case resolve.Local:
		if b := ref.Binding; b != nil && (b.Hoisted || b.Kind == resolve.KParam && f.kind == FuncPipeline) {
			f.emit(LOAD_LOCAL_CK, ref.Index, f.nameWithLocals(id))
		} else if ownable(ref) {
			f.emit(LOAD_LOCAL_SH, ref.Index)
		} else {
			f.emit(LOAD_LOCAL, ref.Index)
		}
	case resolve.Cell:
		f.emit(LOAD_CELL, ref.Index, f.nameWithLocals(id))
	case resolve.Free:
		f.emit(LOAD_FREE, ref.Index, f.nameWithLocals(id))
	case resolve.Global:
		if ownable(ref) {
			f.emit(LOAD_GLOBAL_SH, ref.Index)
		} else {
			f.emit(LOAD_GLOBAL, ref.Index)
		}
	case resolve.Universal:
		if f.c.interactive {
			f.emit(LOAD_NAME, f.name(id.Name))
		} else {
			f.emit(LOAD_UNIV, f.name(id.Name))
		}
	case resolve.Hidden:
		// a top-level variable declared after the function: undefined
		// here, with the suggestion an unbound name gets (§3.2)
		f.nameWithLocals(id)
		f.raise(RaiseUndefined, id.Name)
		f.depth++
	default:
		f.emit(LOAD_NAME, f.nameWithLocals(id))
	}
}

// nameWithLocals is the name index of an undefined name read at id,
// remembering the local variables visible there for the error's "did you
// mean" (docs/spec/language.md §3.2).
func (f *fcomp) nameWithLocals(id *syntax.Ident) int {
	k := f.name(id.Name)
	locals := f.c.info.LocalNames[id]
	if len(locals) == 0 {
		return k
	}
	if f.fn.LocalNames == nil {
		f.fn.LocalNames = map[int][]string{}
	}
	for _, n := range locals {
		if !slices.Contains(f.fn.LocalNames[k], n) {
			f.fn.LocalNames[k] = append(f.fn.LocalNames[k], n)
		}
	}
	return k
}

// ownable reports whether a variable may hold a collection updated in
// place by path assignments (vm/own.go): the root of some path assignment
// that is a plain local slot or a module global.
func ownable(ref *resolve.Ref) bool {
	b := ref.Binding
	return b != nil && b.PathRoot && (ref.Scope == resolve.Local && b.Scope == resolve.Local || ref.Scope == resolve.Global)
}

// borrow pushes e for a use that cannot keep a reference to it (indexing,
// `in`, some builtin methods): an ownable variable is read without ending
// its ownership.
func (f *fcomp) borrow(e syntax.Expr) {
	if id, ok := e.(*syntax.Ident); ok {
		if ref := f.c.info.Refs[id]; ref != nil && ownable(ref) {
			f.line(id.At)
			if ref.Scope == resolve.Global {
				f.emit(LOAD_GLOBAL, ref.Index)
			} else {
				f.emit(LOAD_LOCAL, ref.Index)
			}
			return
		}
	}
	f.expr(e)
}

// borrowingMethods never keep their receiver nor return a view of it.
var borrowingMethods = map[string]bool{
	"has": true, "get": true, "count": true, "keys": true, "values": true, "entries": true,
	"contains": true, "index_of": true, "len": true, "empty": true, "sum": true, "min": true, "max": true,
	"join": true,
}

// callee pushes the function a call by name invokes, falling back to the
// builtin of that name (docs/spec/language.md §9.2).
func (f *fcomp) callee(id *syntax.Ident) {
	// an undefined name fails here, at the name, not at the statement
	f.line(id.At)
	f.calleeRef(f.c.info.Refs[id], id.Name)
}

// calleeRef pushes the function the resolved name invokes.
func (f *fcomp) calleeRef(ref *resolve.Ref, name string) {
	s := f.name(name)
	if ref == nil {
		f.emit(CALLEE_NAME, s)
		return
	}
	switch ref.Scope {
	case resolve.Local:
		f.emit(CALLEE_LOCAL, ref.Index, s)
	case resolve.Cell:
		f.emit(CALLEE_CELL, ref.Index, s)
	case resolve.Free:
		f.emit(CALLEE_FREE, ref.Index, s)
	case resolve.Global:
		f.emit(CALLEE_GLOBAL, ref.Index, s)
	case resolve.Hidden:
		// a top-level variable declared after the function: its closure
		// once it holds one, else the builtin (docs/spec/language.md §3.4)
		f.emit(CALLEE_GLOBAL, ref.Index, s)
	default:
		f.emit(CALLEE_NAME, s)
	}
}

// expr compiles e, leaving exactly one value on the stack.
func (f *fcomp) expr(e syntax.Expr) {
	switch e := e.(type) {
	case *syntax.Ident:
		if name, ok := f.c.info.SchemaTypes[e]; ok {
			f.expr(f.c.schemaOf(e, name))
			return
		}
		f.line(e.At)
		f.loadRef(e, f.c.info.Refs[e])
	case *syntax.IntLit:
		f.pushInt(e.Value)
	case *syntax.FloatLit:
		f.emit(CONST, f.constant(e.Value))
	case *syntax.DurationLit:
		f.emit(CONST, f.constant(Duration(e.Ms)))
	case *syntax.StringLit:
		f.pushString(e.Value)
	case *syntax.BoolLit:
		if e.Value {
			f.emit(TRUE)
		} else {
			f.emit(FALSE)
		}
	case *syntax.NilLit:
		f.emit(NIL)
	case *syntax.InterpString:
		userToString := f.c.info.InterpToString[e]
		for _, p := range e.Parts {
			if p.Expr != nil && userToString != nil {
				// interpolation calls to_string by name (docs/spec/language.md §1.7)
				f.calleeRef(userToString, "to_string")
				f.expr(p.Expr)
				f.emit(CALL, 1)
			} else if p.Expr != nil {
				f.expr(p.Expr)
			} else {
				f.pushString(p.Lit)
			}
		}
		f.line(e.At)
		f.emit(INTERP, len(e.Parts))
	case *syntax.ListLit:
		f.list(e.Elems)
	case *syntax.DictLit:
		f.dict(e.Entries)
	case *syntax.StructLit:
		f.structLit(e)
	case *syntax.ClosureLit:
		idx := f.function(e, "", FuncClosure, e.Params, e.Body, e.At.Line)
		f.emit(MAKE_CLOSURE, idx)
	case *syntax.BinaryExpr:
		f.binary(e)
	case *syntax.UnaryExpr:
		f.unary(e)
	case *syntax.TernaryExpr:
		f.expr(e.Cond)
		jElse := f.emit(JUMP_IF_FALSE, 0)
		f.expr(e.Then)
		jEnd := f.emit(JUMP, 0)
		f.depth--
		f.patchHere(jElse)
		f.expr(e.Else)
		f.patchHere(jEnd)
	case *syntax.RangeExpr:
		f.expr(e.Start)
		f.expr(e.End)
		incl := 1
		if e.Exclusive {
			incl = 0
		}
		f.emit(MAKE_RANGE, incl)
	case *syntax.PipeExpr:
		f.expr(e.X)
		f.pipeTarget(e)
		f.line(e.At)
		f.emit(PIPE)
	case *syntax.MemberExpr:
		if id, ok := e.X.(*syntax.Ident); ok && f.isEnumRef(id) {
			f.line(e.At)
			f.emit(MAKE_VARIANT, f.name(id.Name), f.name(e.Name), 0)
			return
		}
		f.borrow(e.X)
		// a failed read points at `.name`, not at the start of the chain
		if e.Dot.Line > 0 {
			f.line(e.Dot)
		} else {
			f.line(e.At)
		}
		if e.Optional {
			f.emit(GET_PROP_OPT, f.name(e.Name), f.cacheSlot())
		} else {
			f.emit(GET_PROP, f.name(e.Name), f.cacheSlot())
		}
	case *syntax.IndexExpr:
		f.borrow(e.X)
		f.expr(e.Index)
		f.line(e.At)
		if e.Optional {
			f.emit(GET_INDEX_OPT)
		} else {
			f.emit(GET_INDEX)
		}
	case *syntax.SliceExpr:
		f.borrow(e.X)
		skip := -1
		if e.Optional {
			skip = f.emit(JUMP_IF_NIL, 0) // nil?.[a:b] is nil
		}
		f.exprOrNil(e.Lo)
		f.exprOrNil(e.Hi)
		f.line(e.At)
		f.emit(SLICE)
		if skip >= 0 {
			f.patchHere(skip)
		}
	case *syntax.CallExpr:
		f.call(e)
	case *syntax.MethodCall:
		f.methodCall(e)
	case *syntax.ValueCall:
		f.valueCall(e)
	case *syntax.NonNilExpr:
		f.expr(e.X)
		f.line(e.At)
		f.emit(NON_NIL)
	case *syntax.PropagateExpr:
		f.expr(e.X)
		f.line(e.At)
		jOk := f.emit(PROPAGATE, 0)
		saved := f.depth
		f.leaveFunction()
		f.emit(RETURN)
		f.depth = saved
		f.patchHere(jOk)
	case *syntax.IfExpr:
		f.ifExpr(e)
	case *syntax.MatchExpr:
		f.match(e)
	case *syntax.TryExpr:
		f.try(e)
	case *syntax.RetryExpr:
		f.retry(e)
	case *syntax.ParallelExpr:
		f.parallel(e)
	case *syntax.SpawnExpr:
		idx := f.lambda(e, e.Body)
		f.emit(MAKE_CLOSURE, idx)
		f.line(e.At)
		f.emit(CALL_INTERNAL, f.name("__spawn"), 1)
	case *syntax.DeadlineExpr:
		// deadline d { body }: the body is inline, bracketed by runtime hooks;
		// its value is the body's value.
		f.guarded(guard{enter: "__deadline_enter", args: []syntax.Expr{e.Duration}, exit: "__deadline_exit", fail: "__deadline_fail"}, e.Body, true)
	case *syntax.MutexExpr:
		f.guarded(f.mutexGuard(e.At, e.Key, e.Timeout), e.Body, true)
	case *syntax.SelectExpr:
		f.selectExpr(e)
	case *syntax.SpreadExpr:
		f.expr(e.X) // only meaningful inside lists, calls and dicts
	default:
		panic(fmt.Sprintf("compiler: unexpected expression %T", e))
	}
}

func (f *fcomp) exprOrNil(e syntax.Expr) {
	if e == nil {
		f.emit(NIL)
		return
	}
	f.expr(e)
}

// variantDefaults pushes the defaults of the payload fields a variant
// call of an enum declared in the file leaves out (literals, checked by
// the parser) and returns how many it pushed.
func (f *fcomp) variantDefaults(enum, variant string, args []syntax.Expr) int {
	d := f.c.info.EnumDecl(enum)
	if d == nil || hasSpread(args) {
		return 0
	}
	for _, v := range d.Variants {
		if v.Name != variant {
			continue
		}
		n := 0
		for _, p := range v.Params[min(len(args), len(v.Params)):] {
			if p.Default == nil {
				break
			}
			f.expr(p.Default)
			n++
		}
		return n
	}
	return 0
}

func (f *fcomp) isEnumRef(id *syntax.Ident) bool {
	if !f.c.info.IsEnum(id.Name) {
		return false
	}
	_, bound := f.c.info.Refs[id]
	return !bound
}

func (f *fcomp) list(elems []syntax.Expr) {
	if !hasSpread(elems) {
		for _, el := range elems {
			f.expr(el)
		}
		f.emit(MAKE_LIST, len(elems))
		return
	}
	f.emit(MAKE_LIST, 0)
	for _, el := range elems {
		if sp, ok := el.(*syntax.SpreadExpr); ok {
			f.expr(sp.X)
			f.line(sp.At)
			f.emit(LIST_EXTEND)
		} else {
			f.expr(el)
			f.emit(LIST_PUSH)
		}
	}
}

func (f *fcomp) dictKey(en *syntax.DictEntry) {
	if en.KeyExpr != nil {
		f.expr(en.KeyExpr)
	} else {
		f.pushString(en.KeyName)
	}
}

func (f *fcomp) dict(entries []*syntax.DictEntry) {
	spread := false
	for _, en := range entries {
		if en.Spread != nil {
			spread = true
		}
	}
	if !spread {
		for _, en := range entries {
			f.dictKey(en)
			f.expr(en.Value)
		}
		f.emit(MAKE_DICT, len(entries))
		return
	}
	f.emit(MAKE_DICT, 0)
	for _, en := range entries {
		if en.Spread != nil {
			f.expr(en.Spread)
			f.line(en.At)
			f.emit(DICT_MERGE)
			continue
		}
		f.dictKey(en)
		f.expr(en.Value)
		f.emit(DICT_SET)
	}
}

func (f *fcomp) structLit(e *syntax.StructLit) {
	filter := -1
	if e.NS != nil {
		// `ns.Point { … }`: the namespace is read only so that a missing
		// one fails.
		f.expr(e.NS)
		f.emit(POP)
		if sd := f.c.importedStruct(e.NS.Name + "." + e.Name); sd != nil {
			filter = f.constant(structDef(sd))
		}
	} else if sd := f.c.info.Struct(e.Name); sd != nil && !f.c.module {
		filter = f.constant(structDef(sd))
	} else if sd := f.c.importedStruct(e.Name); sd != nil && !f.c.module {
		filter = f.constant(structDef(sd))
	}
	spread := false
	for _, en := range e.Fields {
		if en.Spread != nil {
			spread = true
		}
	}
	if spread {
		f.dict(e.Fields)
		f.emit(MAKE_STRUCT, f.name(e.Name), -1, filter)
		return
	}
	for _, en := range e.Fields {
		f.dictKey(en)
		f.expr(en.Value)
	}
	f.line(e.At)
	f.emit(MAKE_STRUCT, f.name(e.Name), len(e.Fields), filter)
}

func (f *fcomp) binary(e *syntax.BinaryExpr) {
	switch e.Op {
	case "&&", "||":
		f.expr(e.X)
		var j int
		if e.Op == "&&" {
			j = f.emit(JUMP_IF_FALSE, 0)
		} else {
			j = f.emit(JUMP_IF_TRUE, 0)
		}
		f.expr(e.Y)
		f.emit(TRUTH)
		jEnd := f.emit(JUMP, 0)
		f.depth--
		f.patchHere(j)
		if e.Op == "&&" {
			f.emit(FALSE)
		} else {
			f.emit(TRUE)
		}
		f.patchHere(jEnd)
		return
	case "??":
		f.expr(e.X)
		j := f.emit(JUMP_IF_NOT_NIL, 0)
		f.expr(e.Y)
		f.patchHere(j)
		return
	}
	f.expr(e.X)
	if e.Op == "in" || e.Op == "not in" {
		f.borrow(e.Y)
	} else {
		f.expr(e.Y)
	}
	f.line(e.At)
	f.emit(binaryOpcode(e.Op))
}

func (f *fcomp) unary(e *syntax.UnaryExpr) {
	switch e.Op {
	case "!":
		f.expr(e.X)
		f.emit(NOT)
	case "-":
		switch x := e.X.(type) {
		case *syntax.IntLit:
			f.pushInt(-x.Value)
			return
		case *syntax.FloatLit:
			f.emit(CONST, f.constant(-x.Value))
			return
		}
		f.expr(e.X)
		f.line(e.At)
		f.emit(NEG)
	case "try*":
		if f.kind == FuncMain {
			f.c.errorf(e.At, "try* requires an enclosing function (fn, tool, or pipeline) so the rethrow has a target")
			f.emit(NIL)
			return
		}
		h := f.emit(SETUP_TRY, 0)
		f.regions = append(f.regions, region{active: true})
		f.expr(e.X)
		f.regions = f.regions[:len(f.regions)-1]
		f.emit(POP_TRY)
		jEnd := f.emit(JUMP, 0)
		f.patchHere(h) // failure on the stack (depth unchanged: value slot)
		if f.catching == 0 {
			f.emitDefers()
		}
		f.markThrown()
		f.emit(RERAISE)
		f.depth++
		f.patchHere(jEnd)
	default:
		panic("compiler: unknown unary operator " + e.Op)
	}
}

func (f *fcomp) ifExpr(e *syntax.IfExpr) {
	f.line(e.At)
	f.expr(e.Cond)
	jElse := f.emit(JUMP_IF_FALSE, 0)
	f.blockValueOf(e.Then)
	jEnd := f.emit(JUMP, 0)
	f.depth--
	f.patchHere(jElse)
	switch el := e.Else.(type) {
	case nil:
		f.emit(NIL)
	case *syntax.Block:
		f.blockValueOf(el)
	case *syntax.IfExpr:
		f.ifExpr(el)
	}
	f.patchHere(jEnd)
}

// ---- calls ----

func (f *fcomp) call(e *syntax.CallExpr) {
	f.callee(e.Fn)
	f.callArgs(e.Args, e.At)
}

// valueCall calls whatever its callee expression evaluates to, with the
// stack picture of a call to a name.
func (f *fcomp) valueCall(e *syntax.ValueCall) {
	f.expr(e.Fn)
	f.callArgs(e.Args, e.At)
}

// callArgs pushes the arguments of a call whose callee is already on the
// stack and emits the call: CALL n, or CALL_SPREAD over one list when an
// argument is spread.
func (f *fcomp) callArgs(args []syntax.Expr, at syntax.Pos) {
	if hasSpread(args) {
		f.list(args)
		f.line(at)
		f.emit(CALL_SPREAD)
		return
	}
	for _, a := range args {
		f.expr(a)
	}
	f.line(at)
	f.emit(CALL, len(args))
}

func (f *fcomp) methodCall(e *syntax.MethodCall) {
	if id, ok := e.X.(*syntax.Ident); ok && f.isEnumRef(id) && !e.Optional {
		for _, a := range e.Args {
			f.expr(a)
		}
		n := len(e.Args) + f.variantDefaults(id.Name, e.Name, e.Args)
		f.line(e.At)
		f.emit(MAKE_VARIANT, f.name(id.Name), f.name(e.Name), n)
		return
	}
	if borrowingMethods[e.Name] {
		f.borrow(e.X)
	} else {
		f.expr(e.X)
	}
	if hasSpread(e.Args) {
		f.list(e.Args)
		f.line(e.At)
		opt := 0
		if e.Optional {
			opt = 1
		}
		c := f.cacheSlot()
		f.implScope(c, e)
		f.emit(CALL_METHOD_SP, f.name(e.Name), opt, c)
		return
	}
	for _, a := range e.Args {
		f.expr(a)
	}
	f.line(e.At)
	c := f.cacheSlot()
	f.implScope(c, e)
	if e.Optional {
		f.emit(CALL_METHOD_OPT, f.name(e.Name), len(e.Args), c)
	} else {
		f.emit(CALL_METHOD, f.name(e.Name), len(e.Args), c)
	}
}

// implScope records the impl blocks the method call e (cache slot c)
// sees (Func.ImplScopes).
func (f *fcomp) implScope(c int, e *syntax.MethodCall) {
	refs := f.c.info.MethodImpls(e)
	if refs == nil {
		return
	}
	scope := make([]ImplRef, len(refs))
	for i, r := range refs {
		scope[i] = ImplRef{Struct: f.c.intern(r.Struct)}
		if r.Block != nil {
			scope[i].Site = f.c.implSite(r.Block)
		}
	}
	for len(f.fn.ImplScopes) <= c {
		f.fn.ImplScopes = append(f.fn.ImplScopes, nil)
	}
	f.fn.ImplScopes[c] = scope
}

// implSite returns the run-time identity of an impl block.
func (c *compiler) implSite(b *syntax.ImplBlock) *ImplSite {
	if s := c.implSites[b]; s != nil {
		return s
	}
	s := &ImplSite{Struct: c.intern(b.Name)}
	for _, m := range b.Methods {
		s.Methods = append(s.Methods, m.Name)
	}
	if c.implSites == nil {
		c.implSites = map[*syntax.ImplBlock]*ImplSite{}
	}
	c.implSites[b] = s
	return s
}

// lambda compiles a block as a parameterless closure body (spawn) and returns
// its function index.
func (f *fcomp) lambda(node syntax.Node, body *syntax.Block) int {
	return f.function(node, "", FuncClosure, nil, body, node.Position().Line)
}

func (f *fcomp) parallel(e *syntax.ParallelExpr) {
	// The resolver declared the parameter against the ParallelExpr node.
	res := f.c.info.Funcs[e]
	g := f.c.newFunc("", FuncClosure, res, e.At.Line)
	if e.Param != "" {
		g.fn.Params = []Param{{Name: e.Param}}
		if b := f.c.info.Decl(e, e.Param); b != nil && b.Scope == resolve.Cell {
			g.emit(CELLIFY, b.Index)
		}
	}
	g.hoistCells(e.Body.Stmts)
	g.blockValue(e.Body.Stmts)
	g.emitDefers()
	g.emit(RETURN)
	f.fn.Funcs = append(f.fn.Funcs, g.finish())
	idx := len(f.fn.Funcs) - 1

	f.pushInt(int64(e.Mode))
	f.expr(e.Arg)
	f.emit(MAKE_CLOSURE, idx)
	f.exprOrNil(e.MaxConcurrent)
	if e.Stream {
		f.emit(TRUE)
	} else {
		f.emit(FALSE)
	}
	f.line(e.At)
	if e.MaxConcurrent != nil {
		// written, so a nil value is refused, not read as absent
		f.emit(TRUE)
		f.emit(CALL_INTERNAL, f.name("__parallel"), 6)
		return
	}
	f.emit(CALL_INTERNAL, f.name("__parallel"), 5)
}

func (f *fcomp) selectExpr(e *syntax.SelectExpr) {
	// __select(channels, timeout_or_nil, has_default) -> [index, value]
	// index: case index, -1 timeout, -2 default.
	if e.TimeoutBody != nil && e.Default != nil {
		// docs/spec/language.md §13: a timeout case "or default { … }, not
		// both" (a default never waits, so the timeout could never fire).
		// The error points at whichever of the two comes second.
		at := e.Default.At
		if at.Before(e.TimeoutBody.At) {
			at = e.TimeoutBody.At
		}
		f.c.errorf(at, "select cannot have both a timeout and a default case")
	}
	if len(e.Cases) == 0 && e.TimeoutBody == nil && e.Default == nil {
		// The grammar admits `select { }`, but it has no case to run
		// ("runs exactly one case") and nothing could ever wake it: refused
		// before the program runs, as channel_select of no channels and no
		// timeout is refused at once (docs/concurrency.md, Channels).
		f.c.errorf(e.At, "select has no cases: it would wait forever (add a `from` case, a timeout or a default)")
	}
	// Each case's channel, and the timeout, is checked where it is
	// written, so a `from` of something that is not a channel is
	// reported at that case, not at the `select` keyword.
	for _, c := range e.Cases {
		f.expr(c.Channel)
		f.waitArgCheck("select", c.Channel, false)
	}
	f.emit(MAKE_LIST, len(e.Cases))
	f.exprOrNil(e.Timeout)
	if e.Timeout != nil {
		f.waitArgCheck("select", e.Timeout, true)
	}
	if e.Default != nil {
		f.emit(TRUE)
	} else {
		f.emit(FALSE)
	}
	f.line(e.At)
	f.emit(CALL_INTERNAL, f.name("__select"), 3)
	tmp := f.temp()
	f.emit(STORE_LOCAL, tmp)
	var ends []int
	for i, c := range e.Cases {
		f.emit(LOAD_LOCAL, tmp)
		f.emit(LIST_AT, 0)
		f.pushInt(int64(i))
		f.emit(EQ)
		jNext := f.emit(JUMP_IF_FALSE, 0)
		if c.Name != "" && c.Name != "_" {
			f.emit(LOAD_LOCAL, tmp)
			f.emit(LIST_AT, 1)
			f.storeDecl(f.c.info.Decl(c, c.Name), 1)
		}
		f.blockValueOf(c.Body)
		ends = append(ends, f.emit(JUMP, 0))
		f.depth--
		f.patchHere(jNext)
	}
	if e.TimeoutBody != nil || e.Default != nil {
		body := e.Default
		if body == nil {
			body = e.TimeoutBody
		}
		f.blockValueOf(body)
	} else {
		f.emit(NIL)
	}
	for _, j := range ends {
		f.patchHere(j)
	}
}

// waitArgCheck checks the value on the stack, a select case's channel or
// the timeout of a select or mutex block (form names which), leaving it
// there; a failure points at x, not at the keyword.
func (f *fcomp) waitArgCheck(form string, x syntax.Expr, timeout bool) {
	f.pushString(form)
	if timeout {
		f.emit(TRUE)
	} else {
		f.emit(FALSE)
	}
	f.line(x.Position())
	f.emit(CALL_INTERNAL, f.name("__wait_arg"), 3)
}

// pipeLocalFn replaces the pipe target on the stack, a string naming one
// of the local functions declared above the pipe, by that function
// (docs/spec/language.md §2.8: piping into a string calls the function of
// that name; the run time finds module functions and builtins by itself).
func (f *fcomp) pipeLocalFn(e *syntax.PipeExpr) {
	var ends []int
	for _, ref := range f.c.info.PipeFns[e] {
		f.emit(DUP)
		f.pushString(ref.Name)
		f.emit(EQ)
		next := f.emit(JUMP_IF_FALSE, 0)
		f.emit(POP)
		f.loadRef(&syntax.Ident{At: e.At, Name: ref.Name}, ref)
		ends = append(ends, f.emit(JUMP, 0))
		f.patchHere(next)
	}
	for _, j := range ends {
		f.patchHere(j)
	}
}

// pipeTarget pushes what `x |> F` calls: F's value, or for a right side
// holding the placeholder `_` a one-parameter closure evaluating it.
func (f *fcomp) pipeTarget(e *syntax.PipeExpr) {
	if !resolve.HasPlaceholder(e.F) {
		f.expr(e.F)
		f.pipeLocalFn(e)
		return
	}
	g := f.c.newFunc("", FuncClosure, f.c.info.Funcs[e], e.At.Line)
	g.fn.Params = []Param{{Name: "_"}}
	if b := f.c.info.Decl(e, "_"); b != nil && b.Scope == resolve.Cell {
		g.emit(CELLIFY, b.Index)
	}
	if call, ok := e.F.(*syntax.CallExpr); ok && g.tailCall(call) {
		f.fn.Funcs = append(f.fn.Funcs, g.finish())
		f.emit(MAKE_CLOSURE, len(f.fn.Funcs)-1)
		return
	}
	g.expr(e.F)
	g.emit(RETURN)
	f.fn.Funcs = append(f.fn.Funcs, g.finish())
	f.emit(MAKE_CLOSURE, len(f.fn.Funcs)-1)
}

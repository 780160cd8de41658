package compiler

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

func (f *fcomp) stmts(list []syntax.Stmt) {
	for i, s := range list {
		if b := f.ownedLet(s); b != nil {
			f.stmt(s)
			f.dropping(b, false, func() { f.stmts(list[i+1:]) })
			return
		}
		f.stmt(s)
	}
}

// isOwnedType reports whether t is written `owned<T>`.
func isOwnedType(t syntax.TypeExpr) bool {
	n, ok := t.(*syntax.NamedType)
	return ok && n.Name == "owned" && len(n.Args) == 1
}

// ownedLet is the binding of `let x: owned<T> = v` when s is one whose
// value this function must drop at the end of the enclosing block
// (docs/spec/newer.md §2.25: an implicit `defer { drop(x) }` at the end of
// its scope), unless the function is declared `-> owned<…>` and hands its
// owned values to the caller. The top-level statements of a file do not
// come here (compileMain runs them one by one): the program's end
// releases what they own.
func (f *fcomp) ownedLet(s syntax.Stmt) *resolve.Binding {
	l, ok := s.(*syntax.LetStmt)
	if !ok || !isOwnedType(l.Type) || f.ownsReturn {
		return nil
	}
	p, ok := l.Pattern.(*syntax.IdentPattern)
	if !ok || p.Name == "_" {
		return nil
	}
	return f.c.info.Decl(p, p.Name)
}

// dropping compiles body (with value, leaving its value on the stack) so
// that every way out of it — falling off the end, return, break,
// continue, a failure — drops the owned binding b first.
func (f *fcomp) dropping(b *resolve.Binding, value bool, body func()) {
	h := f.emit(SETUP_TRY, 0)
	f.regions = append(f.regions, region{drop: b, active: true})
	body()
	f.regions = f.regions[:len(f.regions)-1]
	f.emit(POP_TRY)
	f.emitDrop(b)
	jEnd := f.emit(JUMP, 0)
	f.patchHere(h)
	if !value {
		f.depth++ // the failure
	}
	f.emitDrop(b)
	f.emit(RERAISE)
	if value {
		f.depth++ // the body's value, arriving from jEnd
	}
	f.patchHere(jEnd)
}

// emitDrop calls the drop builtin on the value of binding b.
func (f *fcomp) emitDrop(b *resolve.Binding) {
	switch b.Scope {
	case resolve.Global:
		f.emit(LOAD_GLOBAL_SH, b.Index)
	case resolve.Cell:
		f.emit(LOAD_CELL, b.Index, f.name(b.Name))
	default:
		f.emit(LOAD_LOCAL_SH, b.Index)
	}
	f.emit(CALL_INTERNAL, f.name("drop"), 1)
	f.emit(POP)
}

// blockStmts compiles a block's statements for effect.
func (f *fcomp) blockStmts(b *syntax.Block) {
	if b == nil {
		return
	}
	f.hoistCells(b.Stmts)
	f.stmts(b.Stmts)
}

// blockValue compiles statements and pushes the value of the last one
// when it is an expression, else nil (docs/spec/language.md §7 "Block values").
func (f *fcomp) blockValue(list []syntax.Stmt) {
	if len(list) == 0 {
		f.emit(NIL)
		return
	}
	for i, s := range list[:len(list)-1] {
		if b := f.ownedLet(s); b != nil {
			f.stmts(list[:i])
			f.stmt(s)
			f.dropping(b, true, func() { f.blockValue(list[i+1:]) })
			return
		}
	}
	f.stmts(list[:len(list)-1])
	last := list[len(list)-1]
	switch s := last.(type) {
	case *syntax.ExprStmt:
		f.expr(s.X)
		return
	case *syntax.MutexStmt:
		// A mutex block ending a closure or branch has its body's value,
		// as it has where an expression is expected (docs/concurrency.md).
		f.line(s.Position())
		f.guarded(f.mutexGuard(s.At, s.Key, s.Timeout), s.Body, true)
		return
	}
	f.stmt(last)
	if b := f.ownedLet(last); b != nil {
		f.emitDrop(b) // its scope ends with it
	}
	f.emit(NIL)
}

func (f *fcomp) blockValueOf(b *syntax.Block) {
	if b == nil {
		f.emit(NIL)
		return
	}
	f.hoistCells(b.Stmts)
	f.blockValue(b.Stmts)
}

func (f *fcomp) stmt(s syntax.Stmt) {
	f.line(s.Position())
	f.c.checkAcpAttrs(s)
	switch s := s.(type) {
	case *syntax.ExprStmt:
		f.exprStmt(s.X)
	case *syntax.LetStmt:
		if p, ok := s.Pattern.(*syntax.IdentPattern); ok {
			if b := f.c.info.Decl(p, p.Name); b != nil && b.EarlyCell && !b.Forward && b.Scope == resolve.Cell {
				// The closure captures the cell it is then stored into.
				f.emit(MAKE_CELL, b.Index)
			}
		}
		f.expr(s.Value)
		f.bindPattern(s.Pattern, letKind(s.Kind))
	case *syntax.AssignStmt:
		f.assign(s)
	case *syntax.FnDecl:
		idx := f.function(s, s.Name, FuncNamed, s.Params, s.Body, s.At.Line)
		f.fn.Funcs[idx].Doc = s.Doc
		f.emit(MAKE_CLOSURE, idx)
		if a := findAttr(s.Attrs, "acp_skill"); a != nil {
			f.emit(DUP)
			f.storeDecl(f.c.info.Decl(s, s.Name), 2)
			f.acpSkill(s, a)
			break
		}
		f.storeDecl(f.c.info.Decl(s, s.Name), 2)
	case *syntax.ToolDecl:
		f.toolDecl(s)
	case *syntax.StructDecl:
		f.emit(CONST, f.constant(structDef(s)))
		f.storeDecl(f.c.info.Decl(s, s.Name), 2)
	case *syntax.EnumDecl, *syntax.TypeDecl, *syntax.InterfaceDecl, *syntax.OverrideDecl, *syntax.ImportDecl:
		// no run-time effect here (imports are bound by the module loader)
	case *syntax.PipelineDecl:
		if b := f.c.info.Decl(s, s.Name); b != nil || f.kind == FuncMain {
			f.pipelineDecl(s)
		}
	case *syntax.ImplBlock:
		if f.c.info.ConstRedeclared[s] {
			// a redeclaration (docs/spec/language.md §10.3) is §3.2's run-time
			// error, whose text before the parenthesis scripts match on
			f.raise(RaisePlain, fmt.Sprintf("Cannot redeclare immutable variable 'impl %s' in the same scope (use one impl per struct per scope)", s.Name))
			return
		}
		restore := f.c.withTypeParams(f.c.declTypeParams(s.Name))
		for _, m := range s.Methods {
			idx := f.function(m, m.Name, FuncMethod, m.Params, m.Body, m.At.Line)
			f.emit(MAKE_CLOSURE, idx)
		}
		restore()
		f.emit(IMPL, f.name(s.Name), len(s.Methods), f.constant(f.c.implSite(s)))
	case *syntax.SkillDecl:
		f.skillDecl(s)
	case *syntax.EvalPackDecl:
		// later tier: parsed only
	case *syntax.ForStmt:
		f.forStmt(s)
	case *syntax.WhileStmt:
		f.whileStmt(s)
	case *syntax.DeferStmt:
		f.defers = append(f.defers, s.Body)
	case *syntax.ReturnStmt:
		f.returnStmt(s)
	case *syntax.ThrowStmt:
		f.expr(s.Value)
		if f.catching == 0 {
			f.emitDefers()
		}
		f.markThrown()
		f.line(s.At)
		f.emit(THROW)
	case *syntax.GuardStmt:
		f.expr(s.Cond)
		j := f.emit(JUMP_IF_TRUE, 0)
		f.blockStmts(s.Else)
		f.patchHere(j)
	case *syntax.RequireStmt:
		f.expr(s.Cond)
		j := f.emit(JUMP_IF_TRUE, 0)
		if s.Message != nil {
			f.expr(s.Message)
		} else {
			f.pushString("require condition failed")
		}
		f.line(s.At)
		f.emit(THROW)
		f.patchHere(j)
	case *syntax.MutexStmt:
		f.guarded(f.mutexGuard(s.At, s.Key, s.Timeout), s.Body, false)
	case *syntax.ScopeStmt:
		f.scopeStmt(s)
	case *syntax.CostRouteStmt:
		for _, o := range s.Options {
			f.expr(o.Value)
			f.emit(POP)
		}
		f.blockStmts(s.Body)
	case *syntax.BreakStmt:
		f.breakContinue(s.At, true)
	case *syntax.ContinueStmt:
		f.breakContinue(s.At, false)
	case *syntax.YieldStmt:
		if s.Value != nil {
			f.expr(s.Value)
		} else {
			f.emit(NIL)
		}
		f.emit(YIELD)
		f.emit(POP)
		f.closePath()
	case *syntax.EmitStmt:
		f.expr(s.Value)
		f.emit(EMIT)
		f.closePath()
	default:
		panic(fmt.Sprintf("compiler: unexpected statement %T", s))
	}
}

// exprStmt compiles an expression for its effect, avoiding the push/pop
// pair for the statement forms of if.
func (f *fcomp) exprStmt(e syntax.Expr) {
	if ie, ok := e.(*syntax.IfExpr); ok {
		f.ifStmt(ie)
		return
	}
	f.expr(e)
	f.emit(POP)
}

func (f *fcomp) ifStmt(e *syntax.IfExpr) {
	f.line(e.At)
	f.expr(e.Cond)
	jElse := f.emit(JUMP_IF_FALSE, 0)
	f.blockStmts(e.Then)
	if e.Else == nil {
		f.patchHere(jElse)
		return
	}
	jEnd := f.emit(JUMP, 0)
	f.patchHere(jElse)
	switch el := e.Else.(type) {
	case *syntax.Block:
		f.blockStmts(el)
	case *syntax.IfExpr:
		f.ifStmt(el)
	}
	f.patchHere(jEnd)
}

func letKind(k syntax.BindingKind) int {
	if k == syntax.BindConst {
		return 1
	}
	return 0
}

// storeDecl stores the value on the stack into a freshly declared binding.
// globalKind is the DEF_GLOBAL kind (0 let/var, 1 const, 2 other immutable).
func (f *fcomp) storeDecl(b *resolve.Binding, globalKind int) {
	if b == nil {
		f.emit(POP)
		return
	}
	if f.c.info.ConstRedeclared[b.Decl] {
		f.emit(POP)
		f.raise(RaisePlain, fmt.Sprintf("Cannot redeclare immutable variable '%s' in the same scope (use 'var' for mutable bindings)", b.Name))
		return
	}
	switch b.Scope {
	case resolve.Global:
		f.emit(DEF_GLOBAL, b.Index, globalKind)
	case resolve.Cell:
		if !b.Hoisted && !b.EarlyCell && !b.Forward {
			f.emit(MAKE_CELL, b.Index)
		}
		f.emit(STORE_CELL, b.Index)
	default:
		f.emit(STORE_LOCAL, b.Index)
	}
}

func (f *fcomp) raise(kind int, msg string) {
	f.emit(RAISE, f.constant(msg), kind)
}

// bindPattern destructures the value on the stack into a pattern's bindings.
func (f *fcomp) bindPattern(p syntax.Pattern, globalKind int) {
	info := f.c.info
	switch p := p.(type) {
	case *syntax.IdentPattern:
		if p.Name == "_" {
			f.emit(POP)
			return
		}
		f.storeDecl(info.Decl(p, p.Name), globalKind)
	case *syntax.DictPattern:
		f.emit(PAT_DICT)
		tmp := f.temp()
		f.emit(STORE_LOCAL, tmp)
		var named []string
		for _, it := range p.Items {
			if !it.Rest {
				named = append(named, it.Key)
			}
		}
		for _, it := range p.Items {
			f.emit(LOAD_LOCAL, tmp)
			if it.Rest {
				f.emit(DICT_REST, f.constant(named))
			} else {
				f.emit(DICT_KEY, f.name(it.Key))
				f.defaultFor(it.Default)
			}
			name := it.Alias
			if it.Rest || name == "" {
				name = it.Key
			}
			if name == "_" {
				f.emit(POP)
				continue
			}
			f.storeDecl(info.Decl(it, name), globalKind)
		}
	case *syntax.ListPattern:
		f.emit(PAT_LIST)
		tmp := f.temp()
		f.emit(STORE_LOCAL, tmp)
		for i, it := range p.Items {
			// `_` binds nothing, but its default still runs when the
			// element is missing, as it does for a named element and for
			// `key: _ = expr` in a dict pattern (docs/spec/language.md §4.2)
			if it.Name == "_" && !it.Rest && it.Default == nil {
				continue
			}
			f.emit(LOAD_LOCAL, tmp)
			if it.Rest {
				f.emit(LIST_FROM, i)
			} else {
				f.emit(LIST_AT, i)
				f.defaultFor(it.Default)
			}
			if it.Name == "_" {
				f.emit(POP)
				continue
			}
			f.storeDecl(info.Decl(it, it.Name), globalKind)
		}
	case *syntax.PairPattern:
		f.emit(PAIR_SPLIT) // first second
		if p.Second == "_" {
			f.emit(POP)
		} else {
			f.storeDecl(info.Decl(p, p.Second), globalKind)
		}
		if p.First == "_" {
			f.emit(POP)
		} else {
			f.storeDecl(info.Decl(p, p.First), globalKind)
		}
	}
}

// defaultFor replaces a nil on the stack with the default's value.
func (f *fcomp) defaultFor(def syntax.Expr) {
	if def == nil {
		return
	}
	j := f.emit(JUMP_IF_NOT_NIL, 0)
	f.expr(def)
	f.patchHere(j)
}

// ---- assignment ----

func (f *fcomp) assign(s *syntax.AssignStmt) {
	root, steps, keys := splitPath(s.Target)
	ref := f.c.info.Refs[root]
	op := 0
	if s.Op != "=" {
		op = int(binaryOpcode(s.Op[:1]))
	}
	if len(steps) == 0 {
		if op != 0 {
			f.loadRef(root, ref)
			f.expr(s.Value)
			f.line(s.At)
			f.emit(Opcode(op))
		} else {
			f.expr(s.Value)
		}
		f.storeRef(root, ref)
		return
	}
	if ref == nil || ref.Scope == resolve.Undefined {
		// `.f = v` / `[k] = v` on an undefined root does nothing (§3.3)
		for _, k := range keys {
			f.expr(k)
			f.emit(POP)
		}
		f.expr(s.Value)
		f.emit(POP)
		return
	}
	own := 0
	if ownable(ref) {
		own = 1
		f.borrow(root)
	} else {
		f.loadRef(root, ref)
	}
	for _, k := range keys {
		f.expr(k)
	}
	f.expr(s.Value)
	f.line(s.At)
	f.emit(SET_PATH, f.constant(&PathDesc{Steps: steps}), op, own)
	f.depth -= len(keys)
	f.storeRef(root, ref)
}

// splitPath decomposes an assignment target into its root identifier,
// accessor steps and index expressions.
func splitPath(t syntax.Expr) (*syntax.Ident, []PathStep, []syntax.Expr) {
	switch t := t.(type) {
	case *syntax.Ident:
		return t, nil, nil
	case *syntax.MemberExpr:
		root, steps, keys := splitPath(t.X)
		return root, append(steps, PathStep{Prop: t.Name}), keys
	case *syntax.IndexExpr:
		root, steps, keys := splitPath(t.X)
		return root, append(steps, PathStep{IsIndex: true}), append(keys, t.Index)
	}
	panic("compiler: invalid assignment target")
}

func (f *fcomp) storeRef(id *syntax.Ident, ref *resolve.Ref) {
	if ref == nil {
		f.emit(POP)
		return
	}
	if b := ref.Binding; b != nil && ref.Scope != resolve.Global && !b.Kind.Mutable() {
		f.emit(POP)
		f.raise(RaisePlain, "Cannot assign to immutable binding: "+id.Name)
		return
	}
	switch ref.Scope {
	case resolve.Local:
		f.emit(STORE_LOCAL, ref.Index)
	case resolve.Cell:
		f.emit(STORE_CELL, ref.Index)
	case resolve.Free:
		f.emit(STORE_FREE, ref.Index)
	case resolve.Global:
		f.emit(STORE_GLOBAL, ref.Index)
	case resolve.Hidden:
		f.emit(POP)
		f.raise(RaisePlain, "Undefined variable: "+id.Name)
	default:
		f.emit(POP)
		f.raise(RaisePlain, "Undefined variable: "+id.Name)
	}
}

// ---- loops ----

func (f *fcomp) whileStmt(s *syntax.WhileStmt) {
	top := f.pc()
	f.expr(s.Cond)
	jEnd := f.emit(JUMP_IF_FALSE, 0)
	lp := f.pushLoop()
	lp.contPC = top
	f.blockStmts(s.Body)
	f.emit(JUMP, top)
	f.patchHere(jEnd)
	f.popLoop(lp)
}

func (f *fcomp) forStmt(s *syntax.ForStmt) {
	f.expr(s.Iter)
	if p, ok := s.Iter.(*syntax.ParallelExpr); ok && p.Stream {
		// nothing else can read this stream: leaving the loop early
		// (CLOSE_ITER, or a failure) cancels its branches
		// (docs/concurrency.md, parallel)
		f.emit(CALL_INTERNAL, f.name("__stream_loop"), 1)
	}
	f.line(s.At)
	f.emit(ITER)
	it := f.temp()
	f.emit(STORE_LOCAL, it)
	top := f.pc()
	next := f.emit(FOR_NEXT, it, 0)
	lp := f.pushLoop()
	lp.contPC = top
	lp.iter = it
	f.bindPattern(s.Pattern, 0)
	f.blockStmts(s.Body)
	f.emit(JUMP, top)
	f.patchHere(next)
	f.popLoop(lp) // (its breaks land on the CLOSE_ITER)
	f.emit(CLOSE_ITER, it)
}

func (f *fcomp) pushLoop() *loopCtx {
	lp := &loopCtx{contPC: -1, depth: f.depth, regions: len(f.regions), iter: -1}
	f.loops = append(f.loops, lp)
	return lp
}

func (f *fcomp) popLoop(lp *loopCtx) {
	f.loops = f.loops[:len(f.loops)-1]
	for _, at := range lp.breaks {
		f.patch(at, 0, f.pc())
	}
	for _, at := range lp.continues {
		f.patch(at, 0, lp.contPC)
	}
}

func (f *fcomp) breakContinue(pos syntax.Pos, isBreak bool) {
	word := "continue"
	if isBreak {
		word = "break"
	}
	if len(f.loops) == 0 {
		help := ""
		if f.inDefer > 0 {
			help = "a `defer` block runs when its function (or the program) ends, outside the loop around it; `" + word + "` can only leave a loop inside the block"
		}
		f.c.errorHelp(pos, help, "%s outside of loop", word)
		return
	}
	lp := f.loops[len(f.loops)-1]
	saved := f.depth
	f.leaveRegions(lp.regions)
	if n := f.depth - lp.depth; n > 0 {
		f.emit(POPN, n)
	}
	at := f.emit(JUMP, 0)
	if isBreak {
		lp.breaks = append(lp.breaks, at)
	} else {
		lp.continues = append(lp.continues, at)
	}
	f.depth = saved
}

// leaveRegions runs the finally blocks of the try regions above index
// keep, innermost first, removing their handlers (docs/spec/language.md §8.6 rule 2).
func (f *fcomp) leaveRegions(keep int) {
	saved := f.regions
	for i := len(saved) - 1; i >= keep; i-- {
		r := saved[i]
		if r.active {
			f.emit(POP_TRY)
		}
		if r.hook != "" {
			f.emit(CALL_INTERNAL, f.name(r.hook), 0)
			f.emit(POP)
		}
		if r.drop != nil {
			f.emitDrop(r.drop)
		}
		if r.finally != nil {
			f.regions = saved[:i]
			f.blockStmts(r.finally)
		}
	}
	f.regions = saved
}

func (f *fcomp) returnStmt(s *syntax.ReturnStmt) {
	saved := f.depth
	defer func() { f.depth = saved }()
	if s.Value != nil {
		switch v := s.Value.(type) {
		case *syntax.CallExpr:
			if f.tailCall(v) {
				return
			}
		case *syntax.PipeExpr:
			// `return x |> f` calls f in tail position too
			if f.canTailCall() {
				f.expr(v.X)
				f.pipeTarget(v)
				f.line(v.At)
				f.emit(PIPE_CALLEE)
				f.closeLoops()
				f.emit(TAILCALL, 1)
				f.emit(RETURN)
				return
			}
		}
		f.expr(s.Value)
	} else {
		f.emit(NIL)
	}
	f.leaveFunction()
	f.emitDefers()
	f.line(s.At)
	f.emit(RETURN)
}

// closePath follows a yield or emit: when the consumer closes the
// generator there (a for loop over it stopped early), the body returns
// nil from that point, running the finally blocks and defers a return
// would (docs/concurrency.md, Generators and streams).
func (f *fcomp) closePath() {
	if !f.fn.IsGen && !f.fn.IsStream {
		return
	}
	skip := f.emit(JUMP_OPEN, 0)
	saved := f.depth
	f.emit(NIL)
	f.leaveFunction()
	f.emitDefers()
	f.emit(RETURN)
	f.depth = saved
	f.patchHere(skip)
}

// leaveFunction is leaveRegions(0) for a return: it also closes the
// iterator of every enclosing for loop, each after the finally blocks
// inside it and before those around it.
func (f *fcomp) leaveFunction() {
	saved := f.regions
	li := len(f.loops) - 1
	closeInside := func(level int) { // the loops inside more than level regions
		for ; li >= 0 && f.loops[li].regions > level; li-- {
			f.closeLoop(f.loops[li])
		}
	}
	for i := len(saved) - 1; i >= 0; i-- {
		closeInside(i)
		f.leaveRegions(i)
		f.regions = saved[:i]
	}
	closeInside(-1)
	f.regions = saved
}

// closeLoop closes the iterator of the for loop lp (nothing for a while).
func (f *fcomp) closeLoop(lp *loopCtx) {
	if lp.iter >= 0 {
		f.emit(CLOSE_ITER, lp.iter)
	}
}

// closeLoops closes the iterators of every enclosing for loop, innermost
// first (before a tail call, which leaves no frame to close them from).
func (f *fcomp) closeLoops() {
	for i := len(f.loops) - 1; i >= 0; i-- {
		f.closeLoop(f.loops[i])
	}
}

// canTailCall reports whether a call in return position may replace this
// frame: nothing has to run after it (no hook regions, no defers) and the
// frame is an ordinary function's.
func (f *fcomp) canTailCall() bool {
	return len(f.regions) == 0 && len(f.defers) == 0 && f.kind != FuncMain && !f.fn.IsGen
}

// tailCall emits `return call` as a TAILCALL when it can; it reports
// whether it did.
func (f *fcomp) tailCall(call *syntax.CallExpr) bool {
	if !f.canTailCall() || hasSpread(call.Args) {
		return false
	}
	f.callee(call.Fn)
	for _, a := range call.Args {
		f.expr(a)
	}
	f.closeLoops()
	f.line(call.At)
	f.emit(TAILCALL, len(call.Args))
	// The VM replaces the frame only when it may; otherwise (the first
	// frame of a nested run, e.g. a function called as a dict member)
	// TAILCALL is an ordinary call and this RETURN returns its result.
	f.emit(RETURN)
	return true
}

// ---- declarations ----

func (f *fcomp) pipelineDecl(s *syntax.PipelineDecl) {
	// A pipeline called like a function binds and checks its parameters
	// as a function does (docs/spec/newer.md §1.13); the entry's are not
	// bound under `harn run` (docs/spec/language.md §5.5, CALL_ENTRY), so
	// only a default or an unbound `harness` parameter (which reads the
	// global) gives one a value there, and CHECK_PARAM skips the others.
	g := f.c.newFunc(s.Name, FuncPipeline, f.c.info.Funcs[s], s.At.Line)
	g.line(s.At)
	for i, p := range s.Params {
		g.fn.Params = append(g.fn.Params, Param{Name: p.Name, HasDefault: p.Default != nil, Check: f.c.rtype(p.Type, nil)})
		if p.Name == "harness" && p.Default == nil {
			skip := g.emit(ARGC_GT, i, 0)
			g.emit(LOAD_UNIV, g.name("harness"))
			g.emit(STORE_LOCAL, f.c.info.Decl(p, p.Name).Index)
			g.patchHere(skip)
		}
	}
	g.prologue(s.Params)
	body := f.c.info.PipelineBodies[s]
	g.hoistCells(body)
	g.blockValue(body)
	g.emitDefers()
	g.emit(RETURN)
	f.fn.Funcs = append(f.fn.Funcs, g.finish())
	f.emit(MAKE_CLOSURE, len(f.fn.Funcs)-1)
	f.storeDecl(f.c.info.Decl(s, s.Name), 2)
}

func (f *fcomp) toolDecl(s *syntax.ToolDecl) {
	// A tool body ends like a closure's: its last expression is the
	// handler's result (the checker reads that tail as the declared
	// result, docs/language.md "Closures and tool declarations").
	idx := f.function(s, s.Name, FuncClosure, s.Params, s.Body, s.At.Line)
	def := &ToolDef{Name: s.Name, Description: s.Description, Decl: s,
		Sig: f.c.typeEnv().Signature(s.Params, s.Return, s.Throws, nil)}
	for _, p := range s.Params {
		def.Params = append(def.Params, ToolParam{Name: p.Name, Type: p.Type, Default: p.Default, Rest: p.Rest})
	}
	f.emit(CONST, f.constant(def))
	f.emit(MAKE_CLOSURE, idx)
	f.emit(CALL_INTERNAL, f.name("__tool_decl"), 2)
	f.storeDecl(f.c.info.Decl(s, s.Name), 2)
}

// skillDecl compiles `skill name { field expr … }` (docs/skills.md): the
// field values in order, then the runtime hook (stdlib/skills), which
// builds the skill dict, registers it in the run's declared skills and
// returns it for the immutable binding.
func (f *fcomp) skillDecl(s *syntax.SkillDecl) {
	def := &SkillDef{Name: s.Name, Decl: s}
	f.emit(CONST, f.constant(def))
	for _, fd := range s.Fields {
		def.Fields = append(def.Fields, fd.Name)
		f.expr(fd.Value)
	}
	f.line(s.At)
	f.emit(CALL_INTERNAL, f.name("__skill_decl"), 1+len(s.Fields))
	f.storeDecl(f.c.info.Decl(s, s.Name), 2)
}

// acpSkill registers the function just bound, which is on the stack, as
// a skill (`@acp_skill(name:, description:, …) fn f() { … }`, docs/skills.md,
// "Functions as skills"): the hook receives the function, the attribute's
// named arguments as fields, and the doc comment as the description when
// the attribute gives none.
func (f *fcomp) acpSkill(s *syntax.FnDecl, a *syntax.Attribute) {
	def := &SkillDef{Name: s.Name, Attr: true}
	var values []syntax.Expr
	hasDesc := false
	for _, arg := range a.Args {
		if arg.Name == "" {
			f.c.errorf(a.At, "@acp_skill takes named arguments (name:, description:, …)")
			continue
		}
		if !attrLiteral(arg.Value) {
			f.c.errorf(arg.Value.Position(), "@acp_skill: argument %s must be a literal value", arg.Name)
			continue
		}
		hasDesc = hasDesc || arg.Name == "description"
		def.Fields = append(def.Fields, arg.Name)
		values = append(values, arg.Value)
	}
	k := f.constant(def)
	f.emit(CONST, k)
	for _, v := range values {
		f.expr(v)
	}
	if doc := strings.TrimSpace(s.Doc); !hasDesc && doc != "" {
		def.Fields = append(def.Fields, "description")
		f.emit(CONST, f.constant(doc))
	}
	f.line(a.At)
	f.emit(CALL_INTERNAL, f.name("__acp_skill"), 2+len(def.Fields))
	f.emit(POP)
}

// attrLiteral reports whether an attribute argument is a literal value
// (attribute arguments are not evaluated, docs/spec/language.md §10.5).
func attrLiteral(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.StringLit, *syntax.IntLit, *syntax.FloatLit, *syntax.BoolLit, *syntax.NilLit:
		return true
	case *syntax.UnaryExpr:
		switch e.X.(type) {
		case *syntax.IntLit, *syntax.FloatLit:
			return e.Op == "-"
		}
	case *syntax.ListLit:
		for _, x := range e.Elems {
			if !attrLiteral(x) {
				return false
			}
		}
		return true
	case *syntax.DictLit:
		for _, en := range e.Entries {
			if en.KeyExpr != nil || en.Spread != nil || !attrLiteral(en.Value) {
				return false
			}
		}
		return true
	}
	return false
}

func findAttr(attrs []*syntax.Attribute, name string) *syntax.Attribute {
	for _, a := range attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// checkAcpAttrs reports `@acp_tool` or `@acp_skill` on a declaration other than a fn, a
// compile error (docs/spec/language.md §10.5).
func (c *compiler) checkAcpAttrs(s syntax.Stmt) {
	if _, isFn := s.(*syntax.FnDecl); isFn {
		return
	}
	attrs := syntax.AttrsOf(s)
	for _, name := range [...]string{"acp_tool", "acp_skill"} {
		if a := findAttr(attrs, name); a != nil {
			c.errorf(a.At, "@%s applies to fn declarations only", name)
		}
	}
}

// mutexGuard brackets a `mutex` block: the enter hook takes the lock of
// the block's key — the value of `mutex(key)`, else the block's call site
// (docs/spec/newer.md §1.7) — waiting at most the timeout when one is
// given; the exit hook releases the innermost lock.
func (f *fcomp) mutexGuard(at syntax.Pos, key, timeout syntax.Expr) guard {
	if key == nil {
		key = &syntax.StringLit{At: at, Value: fmt.Sprintf("mutex@%s:%d:%d", f.c.file.Path, at.Line, at.Col)}
	}
	args := []syntax.Expr{key}
	var check func(i int)
	if timeout != nil {
		args = append(args, timeout)
		check = func(i int) {
			if i == 1 {
				f.waitArgCheck("mutex", timeout, true)
			}
		}
	}
	return guard{enter: "__mutex_enter", args: args, argCheck: check, exit: "__mutex_exit"}
}

// scopeStmt is `scope { body }` (stdlib/concurrency/scope.go): the exit
// hook joins the block's tasks on every way out but a failure, where
// __scope_fail cancels them instead and hands the failure back to re-raise.
func (f *fcomp) scopeStmt(s *syntax.ScopeStmt) {
	f.line(s.At)
	f.guarded(guard{enter: "__scope_enter", exit: "__scope_exit", fail: "__scope_fail", end: s.Body.End}, s.Body, false)
}

// A guard names the runtime hooks that bracket a block (mutex, deadline,
// scope) and must run on every way out of it.
type guard struct {
	enter string
	args  []syntax.Expr // enter's arguments
	// argCheck, when set, runs after argument i is compiled (its value on
	// the stack), to check it where it is written
	argCheck func(i int)
	exit     string     // after the body, and at each return/break/continue out of it
	fail     string     // takes a failure and returns the error to re-raise; "" runs exit and re-raises as is
	end      syntax.Pos // where errors of the exit hook point (zero: the body's last position)
}

// guarded compiles body bracketed by g's hooks; with value the block's
// value is left on the stack.
func (f *fcomp) guarded(g guard, body *syntax.Block, value bool) {
	for i, a := range g.args {
		f.expr(a)
		if g.argCheck != nil {
			g.argCheck(i)
		}
	}
	f.emit(CALL_INTERNAL, f.name(g.enter), len(g.args))
	f.emit(POP)
	h := f.emit(SETUP_TRY, 0)
	f.regions = append(f.regions, region{hook: g.exit, active: true})
	if value {
		f.blockValueOf(body)
	} else {
		f.blockStmts(body)
	}
	f.regions = f.regions[:len(f.regions)-1]
	f.emit(POP_TRY)
	f.line(g.end)
	f.emit(CALL_INTERNAL, f.name(g.exit), 0)
	f.emit(POP)
	jEnd := f.emit(JUMP, 0)
	f.patchHere(h)
	if !value {
		f.depth++ // the failure
	}
	if g.fail != "" {
		f.emit(CALL_INTERNAL, f.name(g.fail), 1)
	} else {
		f.emit(CALL_INTERNAL, f.name(g.exit), 0)
		f.emit(POP)
	}
	f.emit(RERAISE)
	if value {
		f.depth++ // the body's value, arriving from jEnd
	}
	f.patchHere(jEnd)
}

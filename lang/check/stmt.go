package check

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// stmts checks a statement list and returns the type of its value (the
// last statement's, when it is an expression; nil otherwise).
func (c *checker) stmts(list []syntax.Stmt, topLevel bool) types.Type {
	var last types.Type
	exited := false
	// In pipeline mode the top level never exits: its bindings and
	// declarations are created whatever precedes them and its other
	// statements never run (docs/spec/language.md §5.3), so nothing
	// there is unreachable.
	ignored := topLevel && c.info.Pipeline
	for i, s := range list {
		if exited {
			c.warnf(s.Position(), "unreachable code")
			exited = false // one warning per run of dead statements
		}
		last = c.stmt(s, topLevel)
		if es, ok := s.(*syntax.ExprStmt); ok && i < len(list)-1 {
			c.discardedCopy(es)
		}
		switch s.(type) {
		case *syntax.BreakStmt, *syntax.ContinueStmt:
			exited = !ignored
		default:
			// return, throw, and whatever else definitely exits: an if
			// whose branches all do, an exhaustive match whose arms all
			// do, `while true` without break (docs/spec/newer.md §3.8, §3.14)
			exited = !ignored && c.stmtExits(s)
		}
	}
	return last
}

// copyMethods are the methods that return an updated copy of their
// receiver and change nothing else, by receiver kind (docs/spec/builtins.md
// §3.5, §3.6, §3.8, §3.9; docs/spec/newer.md §2.10).
var copyMethods = map[string]map[string]bool{
	"list": {"push": true, "pop": true, "appending": true, "dropping_last": true, "sort": true, "sorted": true,
		"sort_by": true, "sorted_by": true, "reverse": true, "reversed": true, "unique": true, "compact": true},
	"dict":   {"merge": true, "merging": true, "remove": true, "removing": true, "rekey": true, "rekeyed": true},
	"set":    {"add": true, "adding": true, "remove": true, "removing": true},
	"string": {"trim": true, "trim_start": true, "trim_end": true, "upper": true, "lower": true, "uppercase": true, "lowercase": true, "replace": true},
}

// discardedCopy warns about a statement that calls such a method on a
// variable and drops the result (`xs.push(4)`): values are immutable, so
// the statement changes nothing (docs/spec/language.md §3.1).
func (c *checker) discardedCopy(s *syntax.ExprStmt) {
	mc, ok := s.X.(*syntax.MethodCall)
	if !ok || mc.Optional {
		return
	}
	kind := ""
	switch t := types.Underlying(c.quietType(mc.X)).(type) {
	case *types.List, *types.Tuple:
		kind = "list"
	case *types.Dict, *types.Shape:
		kind = "dict"
	case *types.Set:
		kind = "set"
	case *types.Basic:
		if t == types.String {
			kind = "string"
		}
	case *types.Literal:
		if t.Base() == types.String {
			kind = "string"
		}
	}
	if !copyMethods[kind][mc.Name] {
		return
	}
	recv := pathText(mc.X, "")
	if recv == "" {
		return
	}
	if sh, ok := types.Underlying(c.quietType(mc.X)).(*types.Shape); ok {
		if _, stored := sh.Field(mc.Name); stored {
			return // a callable stored under the name (see hiddenCallable)
		}
	}
	c.report(diag.SevWarning, mc.At, "", "assign the result: `"+recv+" = "+recv+"."+mc.Name+"(…)`",
		"the result of `."+mc.Name+"(…)` is discarded: it returns a new "+kind+" and leaves `"+recv+"` unchanged")
}

// block checks a block in a new scope and returns its value type. The
// block runs once, to its end, before the code after it (a `mutex`,
// `scope`, `deadline` or `retry` body, a `finally`), so the narrowings
// at its end hold after it: one it undid (`y = nil`) no longer does
// (docs/spec/newer.md §3.5).
func (c *checker) block(b *syntax.Block) types.Type {
	t, end := c.blockEnd(b)
	c.narrowed = end
	return t
}

// partBlock checks a block that may stop part way or not run at all
// before the code after it (a `try` body, a `select` case): after it,
// only the narrowings that hold both before it and at its end do.
func (c *checker) partBlock(b *syntax.Block) (types.Type, narrowState) {
	before := c.saveNarrow()
	t, end := c.blockEnd(b)
	c.joinNarrow(before, []narrowState{before, end})
	return t, end
}

// bodyValue checks the body of a `mutex` or `retry` expression, whose
// value is the body's: a body that always exits (`return`, `throw`)
// gives none, so it fits any type rather than reading as nil.
func (c *checker) bodyValue(b *syntax.Block) types.Type {
	t := c.block(b)
	if c.blockExits(b) {
		return types.Never
	}
	return t
}

// leftValue is the value type a branch block b of an if, a match or a
// try contributes to the form, t being its last statement's: none
// (never) when b always leaves (`return`, `throw`, `break`,
// `continue`), so `if ok { 1 } else { throw "no" }` is an int, not an
// int? (docs/spec/newer.md §3.3 counts such blocks as not falling
// through).
func (c *checker) leftValue(b *syntax.Block, t types.Type) types.Type {
	if c.blockLeaves(b) {
		return types.Never
	}
	return t
}

// blockEnd checks a block as block does and also returns the narrowings
// in force at its end; those the block established are dropped once it
// is left, unless a join (narrow.go) carries them on.
func (c *checker) blockEnd(b *syntax.Block) (types.Type, narrowState) {
	if b == nil {
		return types.Nil, c.saveNarrow()
	}
	c.fn.pushScope()
	saved := c.saveNarrow()
	t := c.stmts(b.Stmts, false)
	end := c.narrowed
	c.narrowed = saved // a copy of its own: no need to copy it again
	c.fn.popScope()
	if t == nil {
		return types.Nil, end
	}
	return t, end
}

func (c *checker) stmt(s syntax.Stmt, topLevel bool) types.Type {
	switch s := s.(type) {
	case *syntax.ExprStmt:
		t := c.expr(s.X)
		if c.exprStmt != nil {
			c.exprStmt(s, t)
		}
		c.assertion(s.X)
		return t
	case *syntax.LetStmt:
		c.let(s)
	case *syntax.AssignStmt:
		c.assign(s)
	case *syntax.FnDecl:
		c.attrs(s.Attrs, true)
		c.siblingAttr(s, topLevel)
		c.testParams(s)
		c.checkVariance(s)
		c.fnDecl(s)
	case *syntax.ToolDecl:
		c.attrs(s.Attrs, false)
		sig := c.env.Signature(s.Params, s.Return, s.Throws, c.typeParams())
		c.function(s, s.Params, sig, s.Throws, nil, blockStmts(s.Body), nil)
	case *syntax.PipelineDecl:
		c.attrs(s.Attrs, true)
		c.siblingElsewhere(s.Attrs)
		sig := c.env.Signature(s.Params, s.Return, s.Throws, c.typeParams())
		body := c.info.PipelineBodies[s]
		if body == nil && s.Body != nil {
			body = s.Body.Stmts
		}
		c.function(s, s.Params, sig, s.Throws, nil, body, nil)
	case *syntax.StructDecl:
		c.attrs(s.Attrs, false)
		c.checkVariance(s)
		declAnnotations(s, c.annotation)
		c.duplicateMembers(s)
	case *syntax.EnumDecl:
		c.attrs(s.Attrs, false)
		c.checkVariance(s)
		declAnnotations(s, c.annotation)
		c.duplicateMembers(s)
		c.variantDefaults(s)
	case *syntax.TypeDecl:
		c.attrs(s.Attrs, false)
		c.checkVariance(s)
		declAnnotations(s, c.annotation)
		c.duplicateMembers(s)
		c.cyclicAlias(s)
	case *syntax.InterfaceDecl:
		c.attrs(s.Attrs, false)
		c.checkVariance(s)
		declAnnotations(s, c.annotation)
		c.duplicateMembers(s)
	case *syntax.ImplBlock:
		c.attrs(s.Attrs, false)
		var self types.Type = types.Any
		if d := c.env.Lookup(s.Name); d != nil && d.Kind == types.StructDecl {
			// a generic struct's own parameters stand for its type
			// arguments: `self.items` of `Stack<T>` is a `list<T>`
			args := make([]types.Type, len(d.TypeParams))
			for i, tp := range d.TypeParams {
				args[i] = tp
			}
			self = &types.Named{Decl: d, Args: args}
		}
		c.implAssocTypes(s)
		c.duplicateMembers(s)
		for _, m := range s.Methods {
			c.attrs(m.Attrs, false)
			c.sigs[m] = c.env.MethodType(s, m)
			c.method(m, self)
		}
	case *syntax.SkillDecl:
		c.attrs(s.Attrs, false)
		seen := map[string]bool{}
		for _, f := range s.Fields {
			if seen[f.Name] {
				// the same words as the run-time check (docs/skills.md)
				c.report(sevError, f.At, "", "", "skill "+s.Name+": field "+f.Name+" is given twice")
			}
			seen[f.Name] = true
			c.expr(f.Value)
		}
	case *syntax.EvalPackDecl:
		c.attrs(s.Attrs, false)
		c.fn.pushScope()
		for _, it := range s.Items {
			if it.Value != nil {
				c.expr(it.Value)
			}
			if it.Summarize != nil {
				c.block(it.Summarize)
			}
			if it.Stmt != nil {
				c.stmt(it.Stmt, false)
			}
		}
		c.fn.popScope()
	case *syntax.ForStmt:
		c.forStmt(s)
	case *syntax.WhileStmt:
		c.expr(s.Cond)
		head, flow := c.loopBody(s, func() {
			c.narrowFor(s.Cond, true)
			_, c.narrowed = c.blockEnd(s.Body)
		})
		// The loop is left when its condition is false (never for
		// `while true`) and at each `break`: without one, `while x == nil
		// { return 0 }` is an early exit like `guard`'s (docs/spec/newer.md
		// §3.5).
		var ends []narrowState
		if !isTrue(s.Cond) {
			c.restoreNarrow(head)
			c.narrowFor(s.Cond, false)
			ends = append(ends, c.narrowed)
		}
		c.joinNarrow(head, append(ends, flow.breaks...))
	case *syntax.BreakStmt:
		if n := len(c.fn.loops); n > 0 {
			if w, ok := c.fn.loops[n-1].(*syntax.WhileStmt); ok {
				c.broken[w] = true
			}
			f := c.fn.flows[n-1]
			f.breaks = append(f.breaks, c.saveNarrow())
		}
	case *syntax.DeferStmt:
		// the body runs later, when the scope is left
		c.fn.defers++
		c.blockEnd(s.Body)
		c.fn.defers--
	case *syntax.ReturnStmt:
		c.returnStmt(s)
	case *syntax.ThrowStmt:
		t := c.expr(s.Value)
		c.throw(t, s.At)
	case *syntax.GuardStmt:
		c.expr(s.Cond)
		saved := c.saveNarrow()
		c.narrowFor(s.Cond, false)
		c.block(s.Else)
		c.restoreNarrow(saved)
		c.narrowFor(s.Cond, true)
	case *syntax.RequireStmt:
		c.expr(s.Cond)
		if s.Message != nil {
			c.expr(s.Message)
		}
		// A false condition throws, yet not for the `throws` coverage:
		// docs/spec/language.md §9.4 counts `throw` sites and `?` only, and
		// a failed precondition is a bug, as a failed assert is (docs/check.md).
		c.narrowFor(s.Cond, true)
	case *syntax.MutexStmt:
		if s.Key != nil {
			c.expr(s.Key)
		}
		if s.Timeout != nil {
			c.formOperand(s.Timeout, c.expr(s.Timeout), mutexTimeout, "mutex timeout", "")
		}
		c.block(s.Body)
	case *syntax.ScopeStmt:
		c.block(s.Body)
	case *syntax.CostRouteStmt:
		for _, o := range s.Options {
			c.expr(o.Value)
		}
		c.block(s.Body)
	case *syntax.YieldStmt:
		c.inDefer(s.At, "yield")
		if c.fn.genFn() || c.fn.returnsStream() {
			// a `fn` that yields is a Generator; a Stream comes from a
			// `gen fn` that emits (docs/spec/newer.md §3.11)
			c.errorf(s.At, "`yield` is not a stream emit; use `emit` inside `gen fn`")
		}
		if s.Value != nil {
			t := c.expr(s.Value)
			if it, ok := c.fn.retIter(); ok && it.Kind == types.IterGenerator && !c.unknownInto(s.Value, t, it.Elem, "`yield` value") && c.yieldMismatch(s.Value, t, it.Elem) {
				c.mismatch(s.Value, "`yield` value", it.Elem, t)
			}
		} else if it, ok := c.fn.retIter(); ok && it.Kind == types.IterGenerator && (declaredResult(it.Elem) || c.rigidParam(it.Elem)) && !c.acceptsNil(it.Elem) {
			// a bare `yield` yields nil, as `yield nil` does (and as a
			// bare `return` in `-> int` is `… expected int, found nil`,
			// docs/spec/newer.md §3.3)
			c.report(sevError, s.At, "HARN-TYP-007", "", "`yield` value: expected "+it.Elem.String()+", found nil")
		}
	case *syntax.EmitStmt:
		c.inDefer(s.At, "emit")
		t := c.expr(s.Value)
		if !c.fn.genFn() {
			c.errorf(s.At, "`emit` can only be used inside a `gen fn`")
		} else if it, ok := c.fn.retIter(); ok && it.Kind == types.IterStream && !c.unknownInto(s.Value, t, it.Elem, "`emit` value") && c.yieldMismatch(s.Value, t, it.Elem) {
			c.mismatch(s.Value, "`emit` value", it.Elem, t)
		}
	case *syntax.ContinueStmt:
		if n := len(c.fn.flows); n > 0 {
			f := c.fn.flows[n-1]
			f.continues = append(f.continues, c.saveNarrow())
		}
	case *syntax.ImportDecl, *syntax.OverrideDecl:
	}
	return nil
}

// ---- bindings ----

func (c *checker) binding(node syntax.Node, name string) *resolve.Binding {
	return c.info.Decl(node, name)
}

// declare records a binding's type. A top-level name declared more than
// once stays unchecked.
func (c *checker) declare(b *resolve.Binding, v *variable) {
	if b == nil {
		return
	}
	if b.Scope == resolve.Global && c.multiDecl[b.Name] {
		v = &variable{t: types.Any}
	}
	c.vars[b] = v
	c.forget(b) // a binding checked again starts without narrowings
}

// declaredRecordType reports a struct type or a closed shape (also through
// an alias): a value of it has the fields the declaration lists.
func declaredRecordType(t types.Type) bool {
	if n, ok := t.(*types.Named); ok && n.Decl.Kind == types.StructDecl {
		return true
	}
	sh, ok := types.Underlying(t).(*types.Shape)
	return ok && !sh.Open && sh.Row == nil && len(sh.Fields) > 0
}

// copyNarrowing gives dst, a binding initialised with the path x (`let v
// = u`), the narrowings in force for x's properties (`u.age` after `if
// u.age != nil`): the copy holds the same value, so `v.age` is not nil
// either (docs/spec/newer.md §3.5).
func (c *checker) copyNarrowing(dst *resolve.Binding, x syntax.Expr) {
	path, src := c.pathKey(x)
	if src == nil || dst == nil || src == dst {
		return
	}
	prefix := path + "."
	copied := map[narrowKey]types.Type{}
	for k, t := range c.narrowed {
		if k.b == src && strings.HasPrefix(k.path, prefix) {
			copied[narrowKey{dst, dst.Name + k.path[len(path):]}] = t
		}
	}
	maps.Copy(c.narrowed, copied)
}

func (c *checker) let(s *syntax.LetStmt) {
	var declared types.Type // an annotated name's type
	if _, ok := s.Pattern.(*syntax.IdentPattern); ok && s.Type != nil {
		declared = c.typeOf(s.Type)
		c.expectFn(s.Value, declared)
	}
	vt := c.expr(s.Value)
	switch p := s.Pattern.(type) {
	case *syntax.IdentPattern:
		if call, ok := s.Value.(*syntax.CallExpr); ok && isTypeOfCall(call) {
			if b := c.binding(p, p.Name); c.neverReassigned(b) {
				c.kindOf[b] = call
			}
		}
		c.condAlias(c.binding(p, p.Name), s.Value)
		var v *variable
		if s.Type != nil {
			c.annotation(s.Type, nil, nil)
			switch context := bindingContext(s.Kind, p.Name); {
			case c.unknownInto(s.Value, vt, declared, context):
			case c.checkable(vt) && (!c.fits(s.Value, vt, declared) || c.nilIndex(s.Value, vt, declared)):
				c.mismatch(s.Value, context, declared, vt)
			}
			v = &variable{t: declared, checked: s.Kind != syntax.BindConst, annotated: true, owned: isOwned(s.Type)}
		} else if c.projected(c.binding(p, p.Name), s.Value, vt) {
			v = &variable{t: vt, projected: true, annotated: c.declaredPick(s.Value)}
		} else if s.Kind == syntax.BindConst {
			// a const holding a declared `T?` result is watched by nil
			// safety like a let (docs/spec/newer.md §3.5)
			v = &variable{t: vt, annotated: c.declaredCopy(s.Value, vt) || c.declaredResult(s.Value, vt)}
		} else if vt == types.Nil {
			v = &variable{t: types.Any, checked: true, nilInit: true}
		} else {
			v = &variable{t: inferredType(vt), checked: true, annotated: c.declaredCopy(s.Value, vt)}
			kept := c.neverReassigned(c.binding(p, p.Name))
			if _, ok := vt.(*types.Func); ok && kept {
				// a binding that keeps its function value is called as a
				// const holding it is: the arguments are checked against
				// the parameters it declares (docs/spec/newer.md §3.1)
				v.t = vt
			}
			if _, ok := vt.(*types.Union); ok && kept && c.declaredCall(s.Value) {
				// a declared union result (`-> int | string`) is held
				// through the binding as where the call itself goes
				// (docs/spec/newer.md §3.1)
				v.t, v.annotated = vt, true
			}
			if c.joined[s.Value] && kept {
				// the union a generic call joined from conflicting
				// arguments (`keep(1, "x")`) is held in full through the
				// binding, as where the call itself goes (docs/spec/newer.md §3.3)
				v.t, v.annotated = vt, true
			}
			if l, ok := vt.(*types.List); ok && (c.keepsElems(l) || c.typedCall(s.Value) || c.declaredDerived(s.Value)) && kept {
				// a list binding that keeps its value keeps its element
				// type (`let shapes = [Shape.Dot]` is a list<Shape>)
				v.t = types.Widen(l)
				if c.readsThrough(s.Value) && c.readsOnly(s.Value, 0) {
					// `let r = idn([xs[0]])`: the index reads inside
					// get the benefit of the doubt they get at the call
					v.t = types.Widen(elemsNonNil(l, 0))
				}
				if c.declaredDerived(s.Value) {
					// the elements of a declared list, filtered or
					// reordered (`let adults = users.filter(…)`), are the
					// program's as the source's are: a loop over the
					// binding types its variable as one over the source
					v.t, v.annotated = l, true
				}
			}
			if genericValue(vt) && kept {
				// a generic struct or enum value keeps its type arguments
				// while the binding keeps it (`let b = Box {v: 1}`:
				// `b.get()` of `fn get(self) -> T` is an int; `let o =
				// find(1)` an `Option<string>`), also when it may be nil
				// (`Entry<string>?`)
				v.t = vt
			}
			if declaredRecordType(vt) && kept && c.declaredPath(s.Value) {
				// a copy of a declared struct value or record (`var cc =
				// c` with `c: Cfg`) keeps its declared fields while the
				// binding keeps it, so `cc.port + 1` of a `port: int?` is
				// watched by nil safety as `c.port + 1` is
				// (docs/spec/newer.md §3.5)
				v.t, v.annotated = vt, true
			}
			if kept && c.declaredResult(s.Value, vt) {
				// the record (a struct or a closed shape) a function
				// declares it returns keeps its fields, as stated as an
				// annotation's, while the binding keeps it
				// (docs/spec/newer.md §3.5, §3.6)
				v.t, v.annotated = vt, true
			}
			if v.annotated && kept && types.RemoveNil(vt) != vt {
				// a copy of a declared `T?` (`let geo = p.address?.geo`)
				// is that type, named as declared (`Geo?`), while the
				// binding keeps it
				v.t = vt
			}
			if elem := c.declaredElementType(s.Value, vt); elem != nil && !v.annotated && kept {
				// a record or collection read by index from a container
				// the program declared (`let v = d[k]` of a `dict<string,
				// {n: int}>`, `let row = grid[0]`) keeps its fields or
				// element type while the binding keeps it, nil included,
				// as the index read itself has them; nil safety stays
				// off, as for any index read bound without an annotation
				// (docs/spec/newer.md §3.5, §3.6)
				_, v.projected = elem.(*types.Shape)
				v.t = types.Widen(vt)
			} else if sh, ok := vt.(*types.Shape); ok && !sh.Open && (!isDictLit(s.Value) || spreadsRecords(s.Value)) {
				// a shape the program declared (a function's result, a
				// field, a merge or spread of declared shapes) keeps its
				// fields until the binding is reassigned
				v.t = types.Widen(sh)
			} else if ok && !sh.Open && kept {
				// a plain literal bound once keeps its keys, each field
				// typed as a binding of its value would be (`{xs: [1]}`
				// has a list, of any elements, as `let xs = [1]` has)
				v.t = literalRecord(sh)
			}
		}
		if p.Name == "_" {
			return
		}
		if bs := c.branchTypes(s.Value, vt); s.Type == nil && bs != nil && c.neverReassigned(c.binding(p, p.Name)) {
			v.branches = bs // checked where it goes (branches.go)
		}
		if s.Type == nil || !strictAnnotation(v.t) {
			v.unvalidated = c.unvalidatedSource(s.Value)
		}
		c.rememberKeys(c.binding(p, p.Name), s.Value)
		c.shadowCheck(p.Name, p.At)
		b := c.binding(p, p.Name)
		c.declare(b, v)
		if s.Type == nil {
			c.copyNarrowing(b, s.Value)
		}
		if b != nil && s.Type != nil && literalValue(s.Value) {
			// `let mode: string = "fast"` holds that literal until mode
			// is assigned again (declaredBase)
			c.narrowed[narrowKey{b, b.Name + literalMark}] = types.Any
		}
		if b != nil && s.Type != nil && known(vt) && vt != types.Nil && !nilable(vt) && nilable(v.t) {
			// an initial value narrows as an assignment does (`let x: int? = 5`
			// reads as int until x is assigned again, docs/spec/newer.md §3.5)
			c.narrowed[narrowKey{b, b.Name}] = types.RemoveNil(v.t)
		}
	default:
		c.destructure(s.Pattern, vt, s.Kind == syntax.BindConst, c.declaredPath(s.Value) || c.declaredCall(s.Value))
	}
}

// declaredElementType is the non-nil part of vt, the type of an index
// read x of a declared container (declaredElement), when it is a closed
// shape or a list or dict whose element type the program wrote; nil
// otherwise.
func (c *checker) declaredElementType(x syntax.Expr, vt types.Type) types.Type {
	if vt == nil || !c.declaredElement(x) {
		return nil
	}
	// widened, the fallback literal of `m[k] ?? {n: 0}` is the record's type
	switch t := types.RemoveNil(types.Widen(vt)).(type) {
	case *types.Shape:
		if !t.Open && len(t.Fields) > 0 {
			return t
		}
	case *types.List:
		if known(t.Elem) {
			return t
		}
	case *types.Dict:
		if known(t.Value) {
			return t
		}
	}
	return nil
}

// declaredElement reports an index read (`d[k]`, `rows[0]`, `grid[i][j]`,
// `xs[0]!`) of a container whose type the program declared: a path
// rooted at an annotated binding or parameter, or a declared call.
func (c *checker) declaredElement(x syntax.Expr) bool {
	switch e := x.(type) {
	case *syntax.NonNilExpr:
		return c.declaredElement(e.X)
	case *syntax.IndexExpr:
		return c.declaredPath(e.X) || c.declaredCall(e.X) || c.declaredElement(e.X)
	case *syntax.BinaryExpr:
		// `by[k] ?? []`: the fallback joins the element's type
		return e.Op == "??" && c.declaredElement(e.X)
	}
	return false
}

// typedCall reports a call of a function of the file declared with a
// result type (generic ones too): its list result's element type is the
// program's.
func (c *checker) typedCall(x syntax.Expr) bool {
	call, ok := x.(*syntax.CallExpr)
	if !ok {
		return false
	}
	fn := c.fileFnCalled(call)
	return fn != nil && fn.Return != nil
}

// fileFnCalled is the function of the file that call names directly (not
// a name declared twice), or nil.
func (c *checker) fileFnCalled(call *syntax.CallExpr) *syntax.FnDecl {
	ref := c.info.Refs[call.Fn]
	if ref == nil || ref.Binding == nil || ref.Binding.Kind != resolve.KFn || c.multiDecl[call.Fn.Name] {
		return nil
	}
	fn, _ := ref.Binding.Decl.(*syntax.FnDecl)
	return fn
}

// keepsElems reports a list type whose elements are all of one declared
// kind the program names: a struct or enum (also generic).
func (c *checker) keepsElems(l *types.List) bool {
	if e := types.Widen(l.Elem); e == types.String || e == types.Bool {
		return true // no other kind flows into these (`s.split(",")`)
	}
	n, ok := l.Elem.(*types.Named)
	return ok && (n.Decl.Kind == types.StructDecl || n.Decl.Kind == types.EnumDecl)
}

// genericValue reports a value of a generic struct or enum with its type
// arguments (`Box<int>`, also `Entry<string>?`).
func genericValue(t types.Type) bool {
	n, ok := types.RemoveNil(t).(*types.Named)
	return ok && (n.Decl.Kind == types.StructDecl || n.Decl.Kind == types.EnumDecl) && len(n.Args) > 0
}

// literalRecord is the type a binding of the dict literal typed sh keeps:
// its fields, each reduced as an unannotated binding's type is, so that
// a nested list literal is no `list<int>` held invariantly.
func literalRecord(sh *types.Shape) *types.Shape {
	out := &types.Shape{Fields: make([]types.Field, len(sh.Fields))}
	for i, f := range sh.Fields {
		f.Type = bindingType(f.Type)
		out.Fields[i] = f
	}
	return out
}

func isDictLit(x syntax.Expr) bool {
	_, ok := x.(*syntax.DictLit)
	return ok
}

// neverReassigned reports a binding that keeps its initial value: no
// assignment in the program names it, and it is not declared twice at
// the top level. A binding of the Options.Prior items (an earlier REPL
// entry) is not known to: the assignments of those entries are not part
// of the file.
func (c *checker) neverReassigned(b *resolve.Binding) bool {
	return b != nil && !c.quiet && !b.Reassign && !(b.Scope == resolve.Global && c.multiDecl[b.Name])
}

// declaredNilable reports an initializer that calls a function of this
// file, or a method of a struct's impl, declared to return `T?`, or that
// reads a path nil safety watches (`let y = x` with `x: int?`, still
// nilable there): the program stated that the binding may be nil, as an
// annotation would (docs/spec/newer.md §3.5).
func (c *checker) declaredNilable(x syntax.Expr, t types.Type) bool {
	return nilable(t) && (c.declaredCall(x) || c.declaredPath(x) || c.genericNilResult(x))
}

// declaredCopy reports an initializer whose value the new binding holds
// as the program declared it: a declared `T?` (declaredNilable), or a
// declared `unknown` value not narrowed yet (`let y = v` with `v:
// unknown`), which must be narrowed through the copy as through the
// original (docs/spec/newer.md §3.7).
func (c *checker) declaredCopy(x syntax.Expr, t types.Type) bool {
	return c.declaredNilable(x, t) || t == types.Unknown && c.declaredPath(x)
}

// declaredShape reports a call of a function of this file declared to
// return a closed shape (`fn load() -> {name: string}`): its fields are as
// stated as an annotated binding's, so a field it lacks is an error
// through the call or a binding it initialises (docs/spec/newer.md §3.6).
func (c *checker) declaredShape(x syntax.Expr, t types.Type) bool {
	sh, ok := types.Underlying(t).(*types.Shape)
	if !ok || sh.Open || len(sh.Fields) == 0 {
		return false
	}
	if n, ok := t.(*types.Named); ok && n.Decl.Origin != c.file.Path {
		return false // a module's alias may list only the fields its callers need
	}
	// a function of this file, generic ones included (`-> {top: T?,
	// rest: Heap<T>}`: the fields are the declared ones, their types
	// instantiated)
	call, ok := x.(*syntax.CallExpr)
	if !ok {
		return false
	}
	if c.schemaExpect(call) {
		return true // `schema_expect(v, User)` returns a User or throws
	}
	fn := c.fileFnCalled(call)
	if fn == nil || fn.Return == nil {
		return false
	}
	ret, ok := types.Underlying(c.sig(fn).Return).(*types.Shape)
	return ok && !ret.Open && ret.Row == nil
}

// declaredResult reports a call whose result is a record the program
// declared: a struct value from a declared call (a function of the file or
// an import, a method of an impl, declared to return the struct), or a
// closed shape a function of the file declares it returns (declaredShape).
// Its fields' types are as stated as an annotated binding's.
func (c *checker) declaredResult(x syntax.Expr, t types.Type) bool {
	if n, ok := t.(*types.Named); ok && n.Decl.Kind == types.StructDecl && c.declaredCall(x) {
		return true
	}
	return c.declaredShape(x, t)
}

// declaredCall reports a call whose type is the result the program
// declared: a function of this file or one an import binds, named
// directly or as a namespace member (not generic, whose instantiation the
// checker infers, nor one of a name declared twice, nor a union or `T?`
// result of an embedded std/* module: LibraryImports), or a method of a
// known struct's impl or of an interface (a value of the interface type,
// or of a type parameter it bounds). Its `T?` or union result is as stated as an
// annotated binding's type.
func (c *checker) declaredCall(x syntax.Expr) bool {
	_, ok := c.declaredCallResult(x)
	return ok
}

// declaredCallResult is declaredCall with the result type the call
// declares.
func (c *checker) declaredCallResult(x syntax.Expr) (types.Type, bool) {
	if f := c.importedCall(x); f != nil {
		if _, union := types.Underlying(f.sig.Return).(*types.Union); union && f.library {
			return nil, false // a builtin's union or `T?` result (LibraryImports)
		}
		return f.sig.Return, f.decl.Return != nil && len(f.sig.TypeParams) == 0 && (known(f.sig.Return) || f.foreignNil != nil)
	}
	switch call := x.(type) {
	case *syntax.CallExpr:
		fn := c.fileFnCalled(call)
		if fn != nil && fn.Return != nil && len(fn.TypeParams) == 0 {
			return c.sig(fn).Return, true
		}
		return nil, false
	case *syntax.MethodCall:
		if call.Optional {
			return nil, false
		}
		recv := c.quietType(call.X)
		if tp, ok := recv.(*types.TypeParam); ok {
			recv = c.boundDeclaring(tp, call.Name) // the bound's signature is the declared one
		}
		n, ok := types.Underlying(recv).(*types.Named)
		if !ok || n.Decl.Kind != types.StructDecl && n.Decl.Kind != types.InterfaceDecl {
			return nil, false
		}
		m, ok := n.Decl.Method(call.Name)
		if !ok || len(m.Type.TypeParams) > 0 {
			return nil, false
		}
		// a generic struct or interface counts when the receiver's type
		// arguments are known (`s: Stack<int>`, `r: Repo<User>`): its
		// `-> T?` is nilable whatever T is
		if mt := instanceMethod(n, m.Type); mt != nil {
			return mt.Return, known(mt.Return)
		}
		return nil, false
	}
	return nil, false
}

// caught reports whether the code being checked sits in the body of a
// try that catches every error: there a mismatch docs/spec/language.md gives as a
// run-time type error (destructuring, §4) is what the program tests for,
// so it is not a static error.
func (c *checker) caught() bool {
	for _, h := range c.fn.tries {
		if h.all {
			return true
		}
	}
	return false
}

// destructure checks that a pattern fits the value (docs/spec/language.md §4) and
// declares its names. A mismatch found statically reads as the run-time
// type error it would raise (`Type error: cannot destructure …`), the only
// wording the references give, so a program fails with the same text
// whether or not the checker sees the value's kind. declared says the value's type is the program's (a
// path rooted at an annotated binding or parameter, a declared call): a
// `T?` field or tuple slot then binds a name nil safety watches.
func (c *checker) destructure(p syntax.Pattern, vt types.Type, exact, declared bool) {
	kind := types.KindName(vt)
	switch p := p.(type) {
	case *syntax.DictPattern:
		if kind != "" && kind != "dict" && !c.caught() {
			c.errorf(p.At, "Type error: cannot destructure %s with {...} pattern — expected dict", kind)
		}
		shape, _ := types.Underlying(vt).(*types.Shape)
		for _, it := range p.Items {
			if it.Default != nil {
				c.expr(it.Default)
			}
			name := it.Alias
			if it.Rest || name == "" {
				name = it.Key
			}
			if name == "_" {
				continue
			}
			var t types.Type = types.Any
			if it.Rest {
				t = &types.Dict{Key: types.String, Value: types.Any}
			} else if shape != nil && it.Default == nil {
				if f, ok := shape.Field(it.Key); ok && !f.Optional {
					t = f.Type
				}
			}
			if !exact {
				t = bindingType(t)
			}
			c.declare(c.binding(it, name), &variable{t: t, annotated: declared && nilable(t)})
		}
	case *syntax.ListPattern:
		if kind != "" && kind != "list" && !c.caught() {
			c.errorf(p.At, "Type error: cannot destructure %s with [...] pattern — expected list", kind)
		}
		for _, it := range p.Items {
			if it.Default != nil {
				c.expr(it.Default)
			}
			if it.Name == "_" || it.Name == "" {
				continue
			}
			var t types.Type = types.Any
			if it.Rest {
				t = &types.List{Elem: types.Any}
			} else if tp, ok := types.Underlying(vt).(*types.Tuple); ok && it.Default == nil {
				// a tuple destructures position by position (docs/spec/newer.md §2.3)
				if i := slices.Index(p.Items, it); i < len(tp.Elems) && !slices.ContainsFunc(p.Items[:i], func(x *syntax.ListPatItem) bool { return x.Rest }) {
					t = bindingType(tp.Elems[i])
				}
			}
			c.declare(c.binding(it, it.Name), &variable{t: t, annotated: declared && nilable(t)})
		}
	case *syntax.IdentPattern:
		if p.Name != "_" {
			c.declare(c.binding(p, p.Name), &variable{t: bindingType(vt)})
		}
	case *syntax.PairPattern:
	}
}

// shadowCheck warns when a local declared in a nested block hides a local
// of an enclosing block of the same function.
func (c *checker) shadowCheck(name string, pos syntax.Pos) {
	fc := c.fn
	if len(fc.scopes) == 0 || name == "_" || name[0] == '_' {
		return
	}
	top := len(fc.scopes) - 1
	if _, isFile := fc.node.(*syntax.File); isFile && top == 0 {
		return // a module global, not a local
	}
	for i := top - 1; i >= 0; i-- {
		if _, isFile := fc.node.(*syntax.File); isFile && i == 0 {
			break // top-level globals are not locals
		}
		if fc.scopes[i][name] {
			c.warnf(pos, "variable `%s` shadows a variable of an enclosing block", name)
			break
		}
	}
	fc.scopes[top][name] = true
}

// immutableKeyword is the declaration keyword the HARN-OWN-001 warning
// names for an assignment to a binding of kind k, or "" when the checker
// does not warn. Parameters read 'const' as docs/spec/language.md §3.3
// says; `fn`, `tool` and `struct` names, `catch` variables, `match`
// bindings and imported names are immutable like `const` (§3.1) and name
// their own keyword.
func immutableKeyword(k resolve.Kind) string {
	switch k {
	case resolve.KConst, resolve.KParam:
		return "const"
	case resolve.KFn:
		return "fn"
	case resolve.KTool:
		return "tool"
	case resolve.KCatch:
		return "catch"
	case resolve.KMatch:
		return "match"
	case resolve.KStruct:
		return "struct"
	case resolve.KImport:
		// imported names are immutable in the importer (docs/spec/language.md §11.2)
		return "import"
	}
	return ""
}

func (c *checker) assign(s *syntax.AssignStmt) {
	if _, ok := s.Value.(*syntax.ClosureLit); ok && s.Op == "=" {
		// `f = { x -> … }` into a binding, field or element declared
		// `fn(int) -> …`: the closure's parameters take the declared
		// types, as in an initializer (docs/spec/newer.md §3.1)
		if want := c.writeTarget(s.Target); want != nil && concrete(want) {
			c.expectFn(s.Value, want)
		}
	}
	vt := c.expr(s.Value)
	if m, ok := s.Target.(*syntax.MemberExpr); ok && !m.Optional {
		if rt := c.writtenType(m.X); rt != nil {
			if base := types.RemoveNil(rt); base != types.Never {
				// writing a field of nil fails, so `ps[0].x = v` of a
				// `list<P>` writes P's field (as reading it reads it)
				rt = base
			}
			c.shapeField(m.X, rt, m.Name, m.At)
			c.structFieldWrite(rt, m.Name, m.At)
			c.unionNoField(m.X, rt, m.Name, m.At)
			if s.Op == "=" {
				c.structFieldValue(rt, m.Name, s.Value, vt)
				c.unionFieldValue(rt, m.Name, s.Value, vt)
				c.shapeFieldValue(m.X, rt, m.Name, s.Value, vt)
				c.dictMemberWrite(m, rt, s.Value, vt)
			}
		}
	}
	if ix, ok := s.Target.(*syntax.IndexExpr); ok && s.Op == "=" && !ix.Optional {
		c.tupleWrite(ix, s.Value, vt)
		c.elementWrite(ix, s.Value, vt)
	}
	root, path := syntax.TargetRoot(s.Target)
	for _, e := range path {
		c.expr(e)
	}
	nilOperand := s.Op != "=" && c.compoundNil(s, vt)
	if root == nil {
		return
	}
	ref := c.info.Refs[root]
	if ref == nil || ref.Binding == nil {
		return
	}
	b := ref.Binding
	if b.Scope == resolve.Global && c.multiDecl[b.Name] {
		return // which declaration is in force depends on the order of execution
	}
	if keyword := immutableKeyword(b.Kind); keyword != "" {
		help := ""
		if b.Kind == resolve.KParam {
			// the message reads 'const' for a parameter too (docs/spec/language.md
			// §3.3); the help says what the binding is
			help = "`" + b.Name + "` is a parameter, and parameters are immutable: rebind it as a local first, `let " + b.Name + " = " + b.Name + "`"
		}
		if root == s.Target {
			c.report(sevWarning, s.At, "HARN-OWN-001", help,
				"Cannot assign to '"+b.Name+"': variable is immutable (declared with '"+keyword+"'); use 'let' for a mutable binding")
		} else {
			c.report(sevWarning, s.At, "HARN-OWN-001", help,
				"Cannot mutate '"+b.Name+"' through an immutable binding (declared with '"+keyword+"'); use 'let' for a mutable binding")
		}
		// a warning: the write may still happen, so what the binding
		// or the path was narrowed to no longer holds
		if root != s.Target {
			c.narrowPath(s, b, vt, nilOperand)
		} else {
			c.forget(b)
		}
		return
	}
	if root != s.Target && s.Op != "=" && !nilOperand {
		// `p.x += v` is `p.x = p.x + v` (docs/spec/language.md §3.3)
		if t := c.quietType(s.Target); t != nil {
			c.arith(s.Op[:1], t, vt, s.At)
		}
	}
	if root != s.Target {
		// path assignments update part of the value; a non-nil value
		// narrows that path (docs/spec/newer.md §3.5)
		c.narrowPath(s, b, vt, nilOperand)
		if v := c.vars[b]; v != nil && !v.annotated {
			if _, ok := types.Underlying(v.t).(*types.Shape); ok {
				// an inferred record (`{...a}`, `a + b`) may gain or
				// change fields here, on this path or not: from now on
				// it is a dict
				v.t = bindingType(v.t)
			}
		}
		return
	}
	src := c.unvalidatedSource(s.Value)
	c.forget(b)
	if s.Op == "=" && literalValue(s.Value) {
		// `mode = "fast"`: the binding holds that literal (declaredBase)
		c.narrowed[narrowKey{b, b.Name + literalMark}] = types.Any
	}
	v := c.vars[b]
	if v != nil && (!v.annotated || !strictAnnotation(v.t)) {
		v.unvalidated = src
	}
	if v != nil && (s.Op == "=" || !nilOperand) && known(vt) && vt != types.Nil && !nilable(vt) && nilable(v.t) {
		// a non-nil value, or arithmetic on non-nil operands, narrows
		defer func() { c.narrowed[narrowKey{b, b.Name}] = types.RemoveNil(v.t) }()
	}
	if v == nil || !v.checked {
		return
	}
	if nilOperand {
		vt = types.Any
	} else if s.Op != "=" {
		vt = c.arith(s.Op[:1], v.t, vt, s.At)
	}
	if v.nilInit {
		switch {
		case vt == types.Nil:
		case !known(vt):
			v.t, v.nilInit = types.Any, false
		default:
			v.t, v.nilInit = types.Optional(bindingType(vt)), false
			// the value just assigned is not nil, as for any `T?` binding
			c.narrowed[narrowKey{b, b.Name}] = types.RemoveNil(v.t)
		}
		return
	}
	if !v.annotated {
		// an inferred Result keeps its sides only until it is reassigned
		v.t = bindingType(v.t)
	}
	c.valueInto(s.Value, vt, v.t, "assignment to `"+b.Name+"`")
}

// compoundNil reports a compound assignment `x op= e` with an operand
// that may be nil, as `x = x op e` reports it (docs/spec/language.md
// §3.3, docs/spec/newer.md §3.5): the target read with the narrowings in
// force before the assignment, then the value.
func (c *checker) compoundNil(s *syntax.AssignStmt, vt types.Type) bool {
	op := strings.TrimSuffix(s.Op, "=")
	if t := c.quietType(s.Target); t != nil && c.nilArith(op, s.Target, t, s.At) {
		return true
	}
	return c.nilArith(op, s.Value, vt, s.At)
}

// tupleWrite checks `row[i] = v` on a tuple: a constant index against its
// slot's type, and a dynamic index only into a tuple whose slots share
// one type (docs/spec/newer.md §2.3; upstream's wording is unverified).
func (c *checker) tupleWrite(ix *syntax.IndexExpr, value syntax.Expr, vt types.Type) {
	rt := c.quietType(ix.X)
	tp, ok := types.Underlying(rt).(*types.Tuple)
	if !ok {
		return
	}
	slot, _, constant := tupleSlot(ix.Index, len(tp.Elems))
	if !constant {
		for _, e := range tp.Elems[1:] {
			if !types.Identical(types.Widen(e), types.Widen(tp.Elems[0])) {
				c.errorf(ix.At, "cannot assign through a dynamic index into the heterogeneous tuple `%s`; use a constant index", tp)
				return
			}
		}
		slot = 0
	}
	if slot < 0 {
		return // out of bounds: reported where the index is read
	}
	if known(vt) && known(tp.Elems[slot]) && !c.fits(value, vt, tp.Elems[slot]) {
		c.mismatch(value, "assignment to tuple slot "+strconv.Itoa(slot), tp.Elems[slot], vt)
	}
}

// elementWrite checks `xs[i] = v` into a `list<T>` and `d[k] = v` into a
// `dict<K, V>` whose element type the program wrote: the value must fit
// it (docs/spec/newer.md §3.1 frame; the context is this implementation's
// choice, as upstream's wording is unknown).
func (c *checker) elementWrite(ix *syntax.IndexExpr, value syntax.Expr, vt types.Type) {
	var elem types.Type
	what, name := "", pathText(ix.X, "")
	switch r := types.Underlying(types.RemoveNil(c.writtenType(ix.X))).(type) {
	case *types.List:
		elem, what = r.Elem, "an element of"
	case *types.Dict:
		elem, what = r.Value, "a value of"
	default:
		return
	}
	if !known(elem) || !known(vt) || c.fits(value, vt, elem) {
		return
	}
	context := "assignment to " + what + " `" + name + "`"
	if name == "" {
		context = "assignment to " + strings.TrimSuffix(what, " of") + " of a collection"
	}
	c.mismatch(value, context, elem, vt)
}

// writeTarget is the type the program declared for the target of an
// assignment: an annotated binding's, a declared struct or shape field's
// (also through an index), a declared list's element or dict's value;
// nil when none is known.
func (c *checker) writeTarget(x syntax.Expr) types.Type {
	switch e := x.(type) {
	case *syntax.Ident:
		if ref := c.info.Refs[e]; ref != nil && ref.Binding != nil {
			if v := c.vars[ref.Binding]; v != nil && v.annotated && v.checked {
				return v.t
			}
		}
	case *syntax.MemberExpr:
		if e.Optional {
			return nil
		}
		rt := c.writtenType(e.X)
		if rt == nil {
			return nil
		}
		switch r := types.Underlying(types.RemoveNil(rt)).(type) {
		case *types.Named:
			if r.Decl.Kind == types.StructDecl {
				if f, ok := fieldNamed(types.StructFields(r), e.Name); ok {
					return f.Type
				}
			}
		case *types.Shape:
			if f, ok := r.Field(e.Name); ok && c.shapePath(e.X) {
				return f.Type
			}
		case *types.Dict:
			if c.shapePath(e.X) {
				return r.Value
			}
		}
	case *syntax.IndexExpr:
		if e.Optional {
			return nil
		}
		switch r := types.Underlying(types.RemoveNil(c.writtenType(e.X))).(type) {
		case *types.List:
			return r.Elem
		case *types.Dict:
			return r.Value
		}
	}
	return nil
}

// dictMemberWrite checks `d.k = v` into a `dict<K, V>` the program
// declared: `d.k` is `d["k"]` (docs/spec/language.md §6.7), so the value
// must fit V as elementWrite's does.
func (c *checker) dictMemberWrite(m *syntax.MemberExpr, rt types.Type, value syntax.Expr, vt types.Type) {
	d, ok := types.Underlying(rt).(*types.Dict)
	if !ok || !known(d.Value) || !known(vt) || !c.shapePath(m.X) || c.fits(value, vt, d.Value) {
		return
	}
	context := "assignment to a value of a collection"
	if name := pathText(m.X, ""); name != "" {
		context = "assignment to a value of `" + name + "`"
	}
	c.mismatch(value, context, d.Value, vt)
}

// writtenType is the type of a path that may index into collections
// (`grid[0]` of a `list<list<int>>` is a `list<int>?`, `ps[0].tags` of a
// `list<P>` P's field), without diagnostics; nil when unknown.
func (c *checker) writtenType(x syntax.Expr) types.Type {
	switch e := x.(type) {
	case *syntax.IndexExpr:
		if e.Optional {
			return nil
		}
		t := c.writtenType(e.X)
		if t == nil {
			return nil
		}
		return indexType(types.RemoveNil(t))
	case *syntax.MemberExpr:
		if e.Optional || !throughIndex(e.X) {
			break
		}
		t := c.writtenType(e.X)
		if t == nil {
			return nil
		}
		saved, seen := c.diags, c.seen
		c.seen = map[string]bool{}
		t = c.memberType(types.RemoveNil(t), e.Name, e.At)
		c.diags, c.seen = saved, seen
		return t
	}
	return c.quietType(x)
}

// throughIndex reports a path of property reads that indexes on the way
// (`ps[0]`, `d["a"].items`).
func throughIndex(x syntax.Expr) bool {
	_, ok := pathRoot(x).(*syntax.IndexExpr)
	return ok
}

// narrowPath narrows `obj.f` to its type without nil after `obj.f = v`
// with a non-nil v (or `obj.f op= v` on non-nil operands), until obj or a
// part of it is assigned again.
func (c *checker) narrowPath(s *syntax.AssignStmt, b *resolve.Binding, vt types.Type, nilOperand bool) {
	m, ok := s.Target.(*syntax.MemberExpr)
	path, pb := "", (*resolve.Binding)(nil)
	if ok {
		path, pb = c.pathKey(m)
	}
	if pb != b {
		c.forget(b) // an index on the way: any part may have changed
		return
	}
	for k := range c.narrowed {
		if k.b == b && strings.HasPrefix(k.path, path) {
			delete(c.narrowed, k) // the path and what lies below it
		}
	}
	if s.Op != "=" && nilOperand || !known(vt) || vt == types.Nil || nilable(vt) {
		return
	}
	if ft := c.quietType(m); ft != nil && nilable(ft) {
		c.narrowed[narrowKey{b, path}] = types.RemoveNil(ft)
	}
}

// ---- loops ----

func (c *checker) forStmt(s *syntax.ForStmt) {
	it := c.expr(s.Iter)
	c.emptyLoop(s, it)
	elem := elemType(it)
	c.fn.pushScope()
	switch p := s.Pattern.(type) {
	case *syntax.IdentPattern:
		if p.Name != "_" {
			c.shadowCheck(p.Name, p.At)
			b := c.binding(p, p.Name)
			if c.declaredElems(s.Iter, elem) {
				c.declare(b, &variable{t: elem, annotated: true})
			} else if genericValue(elem) && c.neverReassigned(b) {
				// a generic struct or enum element keeps its type
				// arguments, as a binding of one does (`for b in [Bag
				// {v: 1}]`: `b` is a Bag<int>)
				c.declare(b, &variable{t: elem})
			} else {
				c.declare(b, &variable{t: bindingType(elem)})
			}
		}
	case *syntax.PairPattern:
		c.pairOverRecords(p, s.Iter, it)
		c.pairLoop(p, s.Iter)
	default:
		c.destructure(s.Pattern, elem, false, c.declaredPath(s.Iter) || c.declaredCall(s.Iter))
	}
	if s.Body != nil {
		// the loop is left when the values run out and at each `break`
		head, flow := c.loopBody(s, func() { c.stmts(s.Body.Stmts, false) })
		c.joinNarrow(head, append([]narrowState{head}, flow.breaks...))
	}
	c.fn.popScope()
}

// capturedNil drops, on entering the body of a closure or nested
// function, the narrowings of the variables it captures that the file
// assigns `nil` after the point where the function is made: closures
// share the variables they capture (docs/spec/language.md §3.4), so a
// call after that assignment reads the nil (`let g = { -> y + 1 }`, then
// `y = nil`, then `g()`). Other later assignments keep the narrowing, as
// nothing says their value may be nil (this implementation's choice; the
// references are silent). A closure literal passed straight to a call
// (`xs.map({ x -> x + y })`) keeps them: a callback is most often
// called before the call returns.
func (c *checker) capturedNil(node syntax.Node) {
	if len(c.narrowed) == 0 {
		return
	}
	c.indexNilWrites()
	if c.callbacks[node] {
		return
	}
	at := node.Position()
	for k := range c.narrowed {
		for _, w := range c.nilWrites[k.b] {
			if at.Before(w) {
				delete(c.narrowed, k)
				break
			}
		}
	}
}

// indexNilWrites builds, once, nilWrites, callbacks and letClosures
// (capturedNil, calledNil).
func (c *checker) indexNilWrites() {
	if c.nilWrites != nil {
		return
	}
	c.nilWrites = map[*resolve.Binding][]syntax.Pos{}
	c.callbacks = map[syntax.Node]bool{}
	c.letClosures = map[syntax.Pattern]*syntax.ClosureLit{}
	syntax.Walk(c.file, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		for _, arg := range callArgs(n) {
			if cl, ok := arg.(*syntax.ClosureLit); ok {
				c.callbacks[cl] = true
			}
		}
		if l, ok := n.(*syntax.LetStmt); ok {
			if cl, ok := l.Value.(*syntax.ClosureLit); ok {
				c.letClosures[l.Pattern] = cl
			}
		}
		a, ok := n.(*syntax.AssignStmt)
		if !ok || a.Op != "=" {
			return true
		}
		id, isIdent := a.Target.(*syntax.Ident)
		if _, isNil := a.Value.(*syntax.NilLit); !isIdent || !isNil {
			return true
		}
		if ref := c.info.Refs[id]; ref != nil && ref.Binding != nil {
			c.nilWrites[ref.Binding] = append(c.nilWrites[ref.Binding], a.At)
		}
		return true
	})
}

// callArgs are the arguments of n when it is a call, else nil.
func callArgs(n syntax.Node) []syntax.Expr {
	switch x := n.(type) {
	case *syntax.CallExpr:
		return x.Args
	case *syntax.MethodCall:
		return x.Args
	case *syntax.ValueCall:
		return x.Args
	}
	return nil
}

// calledNil is capturedNil's converse: after call n, the narrowings of
// the variables that a function the call runs sets to `nil` no longer
// hold, since closures share the variables they capture
// (docs/spec/language.md §3.4). The functions are the one called by name
// when the file made it (`let reset = { -> x = nil }`, a nested `fn
// reset() { x = nil }`) and those passed to the call, as a closure
// literal or by such a name, which a callee most often calls before it
// returns. As in capturedNil only `x = nil` counts (this
// implementation's choice; the references are silent).
func (c *checker) calledNil(n syntax.Node) {
	if len(c.narrowed) == 0 {
		return
	}
	fns := []syntax.Expr{}
	switch x := n.(type) {
	case *syntax.CallExpr:
		fns = append(fns, x.Fn)
	case *syntax.ValueCall:
		fns = append(fns, x.Fn)
	}
	fns = append(fns, callArgs(n)...)
	for _, f := range fns {
		body := c.madeFunc(f)
		if body == nil {
			continue
		}
		c.indexNilWrites()
		start := body.At
		if cl, ok := f.(*syntax.ClosureLit); ok {
			start = cl.At
		}
		inside := func(p syntax.Pos) bool { return !p.Before(start) && !body.End.Before(p) }
		for k := range c.narrowed {
			if inside(k.b.Pos) {
				continue // the function's own variable
			}
			for _, w := range c.nilWrites[k.b] {
				if inside(w) {
					delete(c.narrowed, k)
					break
				}
			}
		}
	}
}

// madeFunc is the body of the function x is, when the file makes it
// there: a closure literal, or a name bound to a `fn` declaration or to a
// closure literal by `let`/`var`/`const`; else nil.
func (c *checker) madeFunc(x syntax.Expr) *syntax.Block {
	switch x := x.(type) {
	case *syntax.ClosureLit:
		return x.Body
	case *syntax.Ident:
		ref := c.info.Refs[x]
		if ref == nil || ref.Binding == nil {
			return nil
		}
		switch d := ref.Binding.Decl.(type) {
		case *syntax.FnDecl:
			return d.Body
		case *syntax.IdentPattern:
			c.indexNilWrites()
			if cl := c.letClosures[d]; cl != nil {
				return cl.Body
			}
		}
	}
	return nil
}

// assertion narrows after a statement that calls the builtin `assert`,
// `assert_eq` or `assert_ne`: each throws unless its test holds
// (docs/spec/builtins.md §3.3), so after it the test holds, as after
// `require` (`assert(x != nil)`, `assert_ne(x, nil)`, `assert_eq(type_of(v),
// "int")`).
func (c *checker) assertion(x syntax.Expr) {
	call, ok := x.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || hasSpread(call.Args) {
		return
	}
	ref := c.info.Refs[call.Fn]
	if ref == nil || ref.Binding != nil || ref.Scope != resolve.Universal {
		return // a function of the program named so
	}
	switch call.Fn.Name {
	case "assert":
		c.narrowFor(call.Args[0], true)
	case "assert_eq", "assert_ne":
		if len(call.Args) < 2 {
			return
		}
		op := "=="
		if call.Fn.Name == "assert_ne" {
			op = "!="
		}
		c.narrowFor(&syntax.BinaryExpr{At: call.At, Op: op, X: call.Args[0], Y: call.Args[1]}, true)
	}
}

// loopFlow collects the narrowing states a loop body's `break` and
// `continue` statements leave it with.
type loopFlow struct {
	breaks, continues []narrowState
}

// loopBody checks the body of loop s (walk checks it, with the loop's
// own narrowing: a `while` condition). A body may run any number of
// times, so it starts from the narrowings that hold at the loop's head
// every time: those before the loop that the end of the body and every
// `continue` keep too. When the body undoes one (`y = nil`), the first
// walk started from too much; it is discarded, diagnostics included,
// and the body walked again from less, until the head is stable. It
// returns the head's narrowings and the flow of the last walk, and
// leaves the narrowings at the head's.
func (c *checker) loopBody(s syntax.Stmt, walk func()) (narrowState, *loopFlow) {
	head := c.saveNarrow()
	for pass := 0; ; pass++ {
		diags, seen := c.diags, maps.Clone(c.seen)
		flow := &loopFlow{}
		c.restoreNarrow(head)
		c.fn.loops = append(c.fn.loops, s)
		c.fn.flows = append(c.fn.flows, flow)
		walk()
		c.fn.loops = c.fn.loops[:len(c.fn.loops)-1]
		c.fn.flows = c.fn.flows[:len(c.fn.flows)-1]
		back := append([]narrowState{head}, flow.continues...)
		if !c.loopLeaves(s) {
			back = append(back, c.narrowed)
		}
		c.joinNarrow(head, back)
		next := c.narrowed
		if sameNarrow(head, next) || pass == 3 {
			c.restoreNarrow(head)
			return head, flow
		}
		c.diags, c.seen = diags[:len(diags):len(diags)], seen
		head = next
	}
}

// loopLeaves reports whether the end of a loop's body is never reached.
func (c *checker) loopLeaves(s syntax.Stmt) bool {
	switch s := s.(type) {
	case *syntax.ForStmt:
		return c.blockLeaves(s.Body)
	case *syntax.WhileStmt:
		return c.blockLeaves(s.Body)
	}
	return false
}

// sameNarrow reports whether two narrowing states narrow the same paths
// to the same types.
func sameNarrow(a, b narrowState) bool {
	if len(a) != len(b) {
		return false
	}
	for k, t := range a {
		u, ok := b[k]
		if !ok || !types.Identical(t, u) {
			return false
		}
	}
	return true
}

// pairLoop declares the names of `for (k, v) in iter`. Over `d.iter()`
// with d a path certainly of type dict<K, V>, the loop yields (key,
// value) pairs (docs/spec/language.md §4.3), so k is a K and v a V; any
// other iterable leaves them untyped.
func (c *checker) pairLoop(p *syntax.PairPattern, iter syntax.Expr) {
	first, second := types.Type(types.Any), types.Type(types.Any)
	declared := false
	if mc, ok := iter.(*syntax.MethodCall); ok && mc.Name == "iter" && len(mc.Args) == 0 && !mc.Optional {
		if d, ok := types.Underlying(c.quietType(mc.X)).(*types.Dict); ok {
			first, second = bindingType(d.Key), bindingType(d.Value)
			declared = c.declaredPath(mc.X)
		}
	}
	for _, it := range []struct {
		name string
		t    types.Type
	}{{p.First, first}, {p.Second, second}} {
		if it.name != "_" {
			c.declare(c.binding(p, it.name), &variable{t: it.t, annotated: declared && nilable(it.t)})
		}
	}
}

// emptyLoop warns about a for loop over a value it never iterates: a
// string, a number or a bool runs the body zero times, without error
// (docs/spec/language.md §7.2).
func (c *checker) emptyLoop(s *syntax.ForStmt, it types.Type) {
	kind := ""
	switch t := types.Underlying(it).(type) {
	case *types.Basic:
		switch t {
		case types.String, types.Int, types.Float, types.Bool:
			kind = t.String()
		}
	case *types.Literal:
		kind = t.Base().String()
	}
	switch kind {
	case "string":
		c.report(diag.SevWarning, s.Iter.Position(), "", "iterate its characters with `.chars()`",
			"a `for` loop over a string runs zero times")
	case "int":
		c.report(diag.SevWarning, s.Iter.Position(), "", "count with `range(n)` or `1 to n`",
			"a `for` loop over an int runs zero times")
	case "float", "bool":
		c.report(diag.SevWarning, s.Iter.Position(), "", "", "a `for` loop over a "+kind+" runs zero times")
	}
}

// pairOverRecords warns about `for (a, b) in …` over records instead of
// pairs: the pair form reads each element's `.first` and `.second`
// (docs/spec/language.md §4.3), which the `{key, value}` dicts a dict
// yields (§7.2) and the `{index, value}` dicts of a list's `.enumerate()`
// (docs/spec/builtins.md §3.6) do not have, so both names are nil on every
// iteration. Only those two certain cases are reported.
func (c *checker) pairOverRecords(p *syntax.PairPattern, iter syntax.Expr, t types.Type) {
	switch types.Underlying(t).(type) {
	case *types.Dict, *types.Shape:
		c.report(diag.SevWarning, p.At, "", "unpack the entries with `for {key, value} in …`, or iterate pairs with `for ("+p.First+", "+p.Second+") in ….iter()`",
			"`for ("+p.First+", "+p.Second+")` over a dict binds nil: a dict yields `{key, value}` dicts, and the pair form reads `.first` and `.second`")
		return
	}
	mc, ok := iter.(*syntax.MethodCall)
	if !ok || mc.Name != "enumerate" || len(mc.Args) != 0 {
		return
	}
	// a list's enumerate yields records; an iterator's yields pairs
	if listValue(mc.X, c.quietType(mc.X)) {
		c.report(diag.SevWarning, p.At, "", "unpack them with `for {index, value} in ….enumerate()`, or iterate pairs with `for ("+p.First+", "+p.Second+") in ….iter().enumerate()`",
			"`for ("+p.First+", "+p.Second+")` over a list's `.enumerate()` binds nil: it yields `{index, value}` dicts, and the pair form reads `.first` and `.second`")
	}
}

// listValue reports whether x, of static type t (nil when unknown), is
// certainly a list: a list literal, or of a list or tuple type.
func listValue(x syntax.Expr, t types.Type) bool {
	if _, ok := x.(*syntax.ListLit); ok {
		return true
	}
	switch types.Underlying(t).(type) {
	case *types.List, *types.Tuple:
		return true
	}
	return false
}

// declaredElems reports a loop over a collection whose element type the
// program wrote down (a path rooted at an annotated binding or parameter,
// or a call of a function declared to return the collection): the loop
// variable then has that type as an annotated binding has its own, so
// nil safety, whole-union fits, the narrowing `unknown` needs and the
// fields of a declared shape apply to it and to the paths rooted at it
// (`for x in xs` with `xs: list<int?>`, `it.tags.count` with `items:
// list<{tags?: list}>`: docs/spec/newer.md §3.5, §3.6, §3.7).
func (c *checker) declaredElems(iter syntax.Expr, elem types.Type) bool {
	return (known(elem) || elem == types.Unknown) && (c.declaredPath(iter) || c.declaredCall(iter) || c.declaredDerived(iter))
}

// elemType is the type of the values a for loop over t yields.
func elemType(t types.Type) types.Type {
	switch t := types.Underlying(t).(type) {
	case *types.List:
		return t.Elem
	case *types.Tuple:
		return t.ElemUnion()
	case *types.Set:
		return t.Elem
	case *types.Iter:
		return t.Elem
	case *types.Dict:
		return &types.Shape{Fields: []types.Field{{Name: "key", Type: types.String}, {Name: "value", Type: t.Value}}}
	case *types.Shape:
		var vt []types.Type
		for _, f := range t.Fields {
			vt = append(vt, f.Type)
		}
		v := types.NewUnion(vt...)
		if len(vt) == 0 {
			v = types.Any
		}
		return &types.Shape{Fields: []types.Field{{Name: "key", Type: types.String}, {Name: "value", Type: v}}}
	case *types.Basic:
		if t == types.Range {
			return types.Int
		}
	}
	return types.Any
}

// ---- functions ----

func (c *checker) sig(fn *syntax.FnDecl) *types.Func {
	if s, ok := c.sigs[fn]; ok {
		return s
	}
	s := c.env.FnType(fn)
	if p := c.producer(fn); p != nil && fn.Return == nil {
		sig := *s
		sig.Return = p
		s = &sig
	}
	c.sigs[fn] = s
	return s
}

// producer is the result type a `fn` that yields or a `gen fn` has
// without an annotation: Generator<any> or Stream<any>
// (docs/spec/newer.md §3.11); nil for other functions. Only callers see
// it: the body of an unannotated function is not held to a result.
func (c *checker) producer(fn *syntax.FnDecl) types.Type {
	if fn.Gen {
		return &types.Iter{Kind: types.IterStream, Elem: types.Any}
	}
	if f := c.info.Funcs[fn]; f != nil && f.HasYield {
		return &types.Iter{Kind: types.IterGenerator, Elem: types.Any}
	}
	return nil
}

func (c *checker) fnDecl(fn *syntax.FnDecl) {
	sig := c.sig(fn)
	if fn.Gen && fn.Return != nil {
		if it, ok := types.Underlying(sig.Return).(*types.Iter); (!ok || it.Kind != types.IterStream) && known(sig.Return) {
			c.errorf(fn.At, "`gen fn` must return Stream<T>, found %s", sig.Return)
		}
	} else if f := c.info.Funcs[fn]; f != nil && f.HasYield && fn.Return != nil {
		// a `fn` that yields is a Generator<T> (docs/spec/newer.md §3.11; the
		// wording follows the `gen fn` one, upstream's is unverified). A
		// Stream<T> result is reported at the yield instead.
		gen := &types.Iter{Kind: types.IterGenerator, Elem: types.Any}
		if _, ok := types.Underlying(sig.Return).(*types.Iter); !ok && known(sig.Return) && !compatible(gen, sig.Return) {
			c.errorf(fn.At, "a `fn` containing `yield` must return Generator<T>, found %s", sig.Return)
		}
	}
	c.function(fn, fn.Params, sig, fn.Throws, sig.TypeParams, blockStmts(fn.Body), nil)
}

func blockStmts(b *syntax.Block) []syntax.Stmt {
	if b == nil {
		return nil
	}
	return b.Stmts
}

// method checks an impl method, typing `self` as the struct. The type
// parameters of a generic struct are in scope in its body, as its own.
func (c *checker) method(fn *syntax.FnDecl, self types.Type) {
	sig := c.sig(fn)
	tparams := sig.TypeParams
	if n, ok := self.(*types.Named); ok && len(n.Decl.TypeParams) > 0 {
		tparams = append(slices.Clone(n.Decl.TypeParams), tparams...)
	}
	c.function(fn, fn.Params, sig, fn.Throws, tparams, blockStmts(fn.Body), self)
}

// function checks a function body: parameters are bound to their
// annotated types, returns are checked against the result annotation and
// thrown types against the throws clause.
func (c *checker) function(node syntax.Node, params []*syntax.Param, sig *types.Func, throwsT syntax.TypeExpr, tparams []*types.TypeParam, body []syntax.Stmt, self types.Type) types.Type {
	fc := &funcCtx{parent: c.fn, node: node, tparams: tparams, throws: sig.Throws, throwsT: throwsT}
	fc.ret = sig.Return
	if d, ok := node.(*syntax.FnDecl); fc.ret == types.Any || ok && d.Return == nil {
		fc.ret = nil // unannotated (a producer's sig has a result for its callers only)
	}
	c.enter(fc)
	fc.pushScope()
	c.signatureAnnotations(node, params)
	c.annotation(throwsT, nil, nil)
	c.duplicateParams(node, params, self)
	// what the body narrows holds in the body only: a closure's early
	// exit says nothing of the code after the closure literal
	outer := c.saveNarrow()
	defer c.restoreNarrow(outer)
	c.capturedNil(node)
	for i, p := range params {
		var t types.Type = types.Any
		if i < len(sig.Params) {
			t = sig.Params[i].Type
		}
		if p.Default != nil {
			c.paramDefault(p, t)
		}
		if p.Rest {
			t = types.Any
		}
		declared := p.Type != nil
		if hint, held := c.hintedParam(node, i); hint != nil && !declared && !p.Rest {
			t, declared = hint, held
		}
		if i == 0 && self != nil && p.Name == "self" && p.Type == nil {
			// the impl's struct, which the program declared: its
			// optional fields are nilable through `self` as through an
			// annotated parameter (docs/spec/newer.md §3.5)
			t, declared = self, true
		}
		fc.scopes[0][p.Name] = true
		c.declare(c.binding(p, p.Name), &variable{t: t, annotated: declared})
	}
	v := c.stmts(body, false)
	c.checkEnd(node, fc.ret, body, v)
	if cl, ok := node.(*syntax.ClosureLit); ok && cl.Return == nil && !fc.returns && tailStmt(body) != nil && known(v) && v != types.Nil {
		c.tails[cl] = types.Widen(v)
	}
	fc.popScope()
	c.fn = fc.parent
	c.checkThrows(fc)
	if v == nil {
		v = types.Nil
	}
	return v
}

// tailStmt is body's last statement when it is an expression, whose
// value is what the function gives back; nil otherwise.
func tailStmt(body []syntax.Stmt) *syntax.ExprStmt {
	if len(body) == 0 {
		return nil
	}
	es, _ := body[len(body)-1].(*syntax.ExprStmt)
	return es
}

// tupleLitMismatch reports a list literal given to want, the tuple tp or
// an alias of it: an arity mismatch naming the type, or each position
// that does not fit. Given to an alias (`type Pair = tuple<int,
// string>`), the literal is reported once, at itself, naming the alias
// and the first element that does not fit: the program wrote the alias,
// not the element types.
func (c *checker) tupleLitMismatch(lit *syntax.ListLit, want types.Type, tp *types.Tuple, context string) {
	if len(lit.Elems) != len(tp.Elems) {
		found := c.listLit(lit) // (diagnostics of a second walk are deduplicated)
		c.report(sevError, lit.Position(), "HARN-TYP-007", "",
			fmt.Sprintf("%s: expected %s, found %s (%d element(s), expected %d)", context, want, found, len(lit.Elems), len(tp.Elems)))
		return
	}
	_, alias := want.(*types.Named)
	for i, e := range lit.Elems {
		et := c.expr(e)
		if !known(et) || !known(tp.Elems[i]) || c.fits(e, et, tp.Elems[i]) {
			continue
		}
		if !alias {
			c.mismatch(e, context, tp.Elems[i], et)
			continue
		}
		c.report(sevError, lit.Position(), "HARN-TYP-007", "",
			fmt.Sprintf("%s: expected %s, found %s (element %d: expected %s, found %s)",
				context, want, c.listLit(lit), i+1, tp.Elems[i], show(et, tp.Elems[i])))
		return
	}
}

// isOwned reports an `owned<T>` annotation.
func isOwned(t syntax.TypeExpr) bool {
	n, ok := t.(*syntax.NamedType)
	return ok && n.Name == "owned"
}

// ownedEscape warns when an owned binding is returned by name from a
// function that does not return `owned<…>`: it is dropped as its scope
// ends, so the caller would get a released value (docs/spec/newer.md §2.25).
func (c *checker) ownedEscape(s *syntax.ReturnStmt) {
	id, ok := s.Value.(*syntax.Ident)
	if !ok {
		return
	}
	ref := c.info.Refs[id]
	if ref == nil || ref.Binding == nil {
		return
	}
	if v := c.vars[ref.Binding]; v == nil || !v.owned {
		return
	}
	var ret syntax.TypeExpr
	switch d := c.fn.node.(type) {
	case *syntax.FnDecl:
		ret = d.Return
	case *syntax.ClosureLit:
		ret = d.Return
	}
	if isOwned(ret) {
		return
	}
	c.report(sevWarning, s.At, "HARN-OWN-003", "", "owned binding `"+id.Name+
		"` escapes its scope via `return`; either return `owned<…>` to transfer ownership or drop the value before returning")
}

// inDefer rejects a statement that would leave a `defer` body early
// (docs/spec/newer.md §3.12; upstream's wording is unverified).
func (c *checker) inDefer(pos syntax.Pos, kw string) {
	if c.fn.defers > 0 {
		c.errorf(pos, "`%s` cannot be used inside a `defer` block", kw)
	}
}

func (c *checker) returnStmt(s *syntax.ReturnStmt) {
	c.fn.returns = true
	c.inDefer(s.At, "return")
	c.ownedEscape(s)
	if s.Value == nil {
		if want := c.fn.ret; (declaredResult(want) || c.rigidParam(want)) && !c.acceptsNil(want) && !c.isGenerator() {
			n := len(c.diags)
			c.report(sevError, s.At, "HARN-TYP-007", "", "return value: expected "+want.String()+", found nil")
			c.noteReturnType(n)
		}
		return
	}
	if declaredResult(c.fn.ret) {
		c.expectFn(s.Value, c.fn.ret)
	}
	t := c.expr(s.Value)
	want := c.fn.ret
	if tp, ok := want.(*types.TypeParam); ok && concreteValue(t) && !c.declaredAs(s.Value, tp) {
		// a concrete value where the caller chooses the type (docs/spec/newer.md §3.3)
		n := len(c.diags)
		c.mismatch(s.Value, "return value", tp, t)
		c.noteReturnType(n)
		return
	}
	if want != nil && c.unknownInto(s.Value, t, want, "return value") {
		return
	}
	if !c.checkable(t) || !declaredResult(want) {
		return
	}
	if !c.fits(s.Value, t, want) {
		n := len(c.diags)
		c.mismatch(s.Value, "return value", want, t)
		c.noteReturnType(n)
	}
}

// elemMismatch reports whether a yielded or emitted value of type t does
// not fit elem, the element type of the declared Generator or Stream: a
// value of another type, or a concrete value where elem is a type
// parameter, which the caller chooses (as `return value: expected T,
// found int`, docs/spec/newer.md §3.3).
func elemMismatch(t, elem types.Type) bool {
	if _, ok := elem.(*types.TypeParam); ok {
		return concreteValue(t)
	}
	return known(elem) && known(t) && !compatible(t, elem)
}

// yieldMismatch is elemMismatch for the value x yielded or emitted, with
// a literal read element by element as a returned one is (fits: an index
// read inside `[xs[i], xs[i + 1]]` fits as it does alone).
func (c *checker) yieldMismatch(x syntax.Expr, t, elem types.Type) bool {
	if !elemMismatch(t, elem) {
		return false
	}
	if _, ok := elem.(*types.TypeParam); ok {
		return true
	}
	return !c.fits(x, t, elem)
}

// concreteValue reports whether t is the type of a value of one concrete
// kind (an int, a list, …), which cannot go where a type parameter the
// caller chooses is expected.
func concreteValue(t types.Type) bool {
	return known(t) && concrete(t) && types.KindName(t) != ""
}

// noteReturnType points the diagnostic a `return` just added (the one at
// index n, when it was not a duplicate) at the result annotation it broke:
// upstream's secondary label `return type declared here`
// (docs/spec/newer.md §3.3).
func (c *checker) noteReturnType(n int) {
	ret := resultAnnotation(c.fn.node)
	if ret == nil || len(c.diags) <= n {
		return
	}
	pos := ret.Position()
	d := c.diags[n]
	d.Notes = append(d.Notes, &diag.Error{File: c.file.Path, Line: pos.Line, Col: pos.Col, Msg: "return type declared here"})
}

// ---- throws (docs/spec/language.md §9.4) ----

// throw records a value the current function lets escape, unless an
// enclosing try of the same function handles it.
func (c *checker) throw(t types.Type, pos syntax.Pos) {
	fc := c.fn
	for i := len(fc.tries) - 1; i >= 0; i-- {
		h := fc.tries[i]
		if h.all {
			return
		}
		if h.enum != nil && (!known(t) || types.AssignableTo(t, h.enum)) {
			return
		}
	}
	fc.thrown = append(fc.thrown, thrownValue{t: t, pos: pos})
}

// propagate records the error type a postfix `?` may return early with;
// no try intercepts it.
func (c *checker) propagate(errT types.Type, pos syntax.Pos) {
	c.fn.thrown = append(c.fn.thrown, thrownValue{t: errT, pos: pos})
}

func (c *checker) checkThrows(fc *funcCtx) {
	// `throws never` declares that nothing escapes (known says nothing
	// of never, which every other check leaves alone)
	if fc.throws == nil || !known(fc.throws) && fc.throws != types.Never {
		return
	}
	reported := map[string]bool{}
	for _, th := range fc.thrown {
		if !known(th.t) || compatible(th.t, fc.throws) {
			continue
		}
		name := show(types.Widen(th.t), nil)
		if reported[name] {
			continue
		}
		reported[name] = true
		c.report(sevError, th.pos, "HARN-TYP-026", "",
			"this callable can throw `"+name+"`, which its declared `throws "+typeSource(fc.throwsT)+"` does not cover")
	}
}

// checkEnd checks how a body with a declared result type ends: a typed
// pipeline's tail value must fit the type (`pipeline result`), a function
// must not fall through (docs/spec/newer.md §3.3).
func (c *checker) checkEnd(node syntax.Node, ret types.Type, body []syntax.Stmt, tail types.Type) {
	if ret == nil {
		return
	}
	context := "pipeline result"
	switch d := node.(type) {
	case *syntax.FnDecl:
		c.fallThrough(d, d.At, ret, body)
		return
	case *syntax.ToolDecl:
		context = "tool result"
	case *syntax.ClosureLit:
		// an anonymous function returns its last statement's value
		// (docs/spec/language.md §9.1)
		context = "return value"
	case *syntax.PipelineDecl:
	default:
		return
	}
	es := tailStmt(body)
	if es != nil && c.unknownInto(es.X, tail, ret, context) {
		return
	}
	if es == nil || !c.checkable(tail) || !known(ret) || c.fits(es.X, tail, ret) || c.exprExits(es.X) {
		return
	}
	n := len(c.diags)
	c.mismatch(es.X, context, ret, tail)
	c.noteReturnType(n)
}

// isGenerator reports whether the function being checked yields or is a
// `gen fn` (a bare return just ends it).
func (c *checker) isGenerator() bool {
	if fn := c.info.Funcs[c.fn.node]; fn != nil && fn.HasYield {
		return true
	}
	d, ok := c.fn.node.(*syntax.FnDecl)
	return ok && d.Gen
}

// variantDefaults checks the default of each annotated payload field
// of an enum's variants (`Circle(radius: float, unit: string = "cm")`)
// against the field's type, as a parameter's default is (paramDefault):
// the compiler fills it in where the variant is built with fewer
// arguments (docs/language.md, Enums). A `nil` default, and a field typed
// by a type parameter, which the construction chooses, are left alone.
func (c *checker) variantDefaults(s *syntax.EnumDecl) {
	d := c.env.Lookup(s.Name)
	if d == nil || d.Kind != types.EnumDecl || d.Node != syntax.Node(s) {
		return
	}
	for i, v := range s.Variants {
		if i >= len(d.Variants) {
			return
		}
		for j, p := range v.Params {
			if p.Default == nil || p.Type == nil || j >= len(d.Variants[i].Fields) {
				continue
			}
			t := d.Variants[i].Fields[j].Type
			dt := c.expr(p.Default)
			if _, isNil := p.Default.(*syntax.NilLit); isNil || !known(t) || !known(dt) || c.fits(p.Default, dt, t) {
				continue
			}
			c.mismatch(p.Default, "default of field `"+p.Name+"` in variant `"+s.Name+"."+v.Name+"`", t, dt)
		}
	}
}

// paramDefault checks a parameter's default value against the parameter's
// annotation. The default is evaluated in the function's defining scope
// at each call, so it may name an outer binding, whose declared type is
// what counts. A nil default is how an annotated parameter is made
// optional, so it is left alone.
func (c *checker) paramDefault(p *syntax.Param, t types.Type) {
	if p.Type != nil {
		c.expectFn(p.Default, t)
	}
	dt := c.expr(p.Default)
	if _, isNil := p.Default.(*syntax.NilLit); isNil || p.Type == nil || p.Rest {
		return
	}
	rigid := c.rigidParam(t) && concreteValue(dt) // `d: T = 0`: the caller chooses T
	if rigid || known(dt) && known(t) && dt != types.Nil && !c.fits(p.Default, dt, t) {
		c.mismatch(p.Default, "default of parameter `"+p.Name+"`", t, dt)
	}
}

// schemaExpect reports a call of the builtin schema_expect with a type
// alias as its schema (`schema_expect(v, User)`): its value is of that
// type, since the call throws when the value does not fit.
// schemaResult is the type of `schema_check(v, T)` or `schema_parse(v, T)`
// with T a type alias: their Ok holds the value that fitted T's schema, so
// it has T's type, as schema_expect's value does (docs/spec/language.md
// §10.6); the Err side stays the signature's. Nil for any other call.
func (c *checker) schemaResult(call *syntax.CallExpr) types.Type {
	ref := c.info.Refs[call.Fn]
	if ref == nil || ref.Scope != resolve.Universal || len(call.Args) != 2 ||
		(call.Fn.Name != "schema_check" && call.Fn.Name != "schema_parse") {
		return nil
	}
	alias := c.schemaAlias(call.Args[1])
	if alias == nil {
		return nil
	}
	sig, ok := c.librarySig("", call.Fn.Name)
	r, isResult := sig.result.(*types.Result)
	if !ok || !isResult {
		return nil
	}
	return &types.Result{Ok: alias, Err: r.Err}
}

func (c *checker) schemaExpect(call *syntax.CallExpr) bool {
	ref := c.info.Refs[call.Fn]
	return call.Fn.Name == "schema_expect" && ref != nil && ref.Scope == resolve.Universal &&
		len(call.Args) == 2 && c.schemaAlias(call.Args[1]) != nil
}

package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// expr checks an expression and returns its type.
func (c *checker) expr(e syntax.Expr) types.Type {
	switch e := e.(type) {
	case nil:
		return types.Nil
	case *syntax.Ident:
		return c.ident(e)
	case *syntax.IntLit:
		return &types.Literal{Value: e.Value}
	case *syntax.FloatLit:
		return types.Float
	case *syntax.DurationLit:
		// The checker does not type duration literals (docs/spec/language.md §1.6).
		return types.Any
	case *syntax.StringLit:
		return &types.Literal{Value: e.Value}
	case *syntax.InterpString:
		for _, p := range e.Parts {
			if p.Expr != nil {
				c.expr(p.Expr)
			}
		}
		return types.String
	case *syntax.BoolLit:
		return types.Bool
	case *syntax.NilLit:
		return types.Nil
	case *syntax.SpreadExpr:
		return c.expr(e.X)
	case *syntax.ListLit:
		return c.listLit(e)
	case *syntax.DictLit:
		c.preferPick(e)
		return c.dictLit(e.Entries)
	case *syntax.StructLit:
		return c.structLit(e)
	case *syntax.ClosureLit:
		t := c.closure(e)
		if c.closures != nil {
			c.closures(e, t)
		}
		return t
	case *syntax.BinaryExpr:
		return c.binary(e)
	case *syntax.UnaryExpr:
		t := c.expr(e.X)
		switch e.Op {
		case "!":
			return types.Bool
		case "-":
			// `-x` is arithmetic: x must not be possibly nil or unknown
			// (docs/spec/newer.md §3.5, §3.7)
			if c.nilArith("-", e.X, t, e.At) || c.unknownArith("-", e.X, t, e.At) {
				return types.Any
			}
			switch w := types.Widen(t); w {
			case types.Int, types.Float:
				return w
			}
			return types.Any
		}
		return t
	case *syntax.TernaryExpr:
		c.expr(e.Cond)
		saved := c.saveNarrow()
		c.narrowFor(e.Cond, true)
		then := c.expr(e.Then)
		c.restoreNarrow(saved)
		c.narrowFor(e.Cond, false)
		els := c.expr(e.Else)
		c.restoreNarrow(saved)
		c.joinBranches(e, e.Cond, c.branchOf(e.Then, then), c.branchOf(e.Else, els))
		return types.NewUnion(then, els)
	case *syntax.RangeExpr:
		c.expr(e.Start)
		c.expr(e.End)
		return types.Range
	case *syntax.PipeExpr:
		xt := c.expr(e.X)
		if call, ok := e.F.(*syntax.CallExpr); ok && c.isPick(call) {
			saved := c.pipeSrc
			c.pipeSrc = &pickSource{x: e.X, t: xt}
			t := c.expr(e.F)
			c.pipeSrc = saved
			return t
		}
		c.expr(e.F)
		return c.pipeArgument(e, xt)
	case *syntax.MemberExpr:
		return c.member(e)
	case *syntax.IndexExpr:
		t := c.expr(e.X)
		if !e.Optional {
			c.nilUse(e.X, t, "an index", e.At)
		} else {
			t = types.RemoveNil(t) // `x?.[i]` indexes the non-nil part of x, or is nil
		}
		c.unknownUse(e.X, t, "subscript access on an `unknown` value will fail at runtime if the value is not a list, dict or string", e.At)
		key := ""
		if s, ok := e.Index.(*syntax.StringLit); ok {
			key = s.Value
		}
		c.unvalidatedAccess(e.X, key, "[…]", e.At)
		c.subscriptIndex(e, t, c.expr(e.Index))
		if tp, ok := types.Underlying(t).(*types.Tuple); ok {
			return c.tupleIndex(e, tp.Elems)
		}
		if sh, ok := types.Underlying(t).(*types.Shape); ok && key != "" {
			// `cfg["port"]` reads the field `cfg.port` reads
			// (docs/spec/language.md §6.7: `d.name` ≡ `d["name"]`); its
			// nil part is left out, since narrowing (`if r["a"] != nil`)
			// follows member paths only
			if f, ok := sh.Field(key); ok && known(f.Type) {
				if ft := types.RemoveNil(f.Type); ft != types.Never {
					return ft
				}
			}
		}
		return indexType(t)
	case *syntax.SliceExpr:
		t := c.expr(e.X)
		c.expr(e.Lo)
		c.expr(e.Hi)
		switch r := types.Underlying(t).(type) {
		case *types.List:
			return r
		case *types.Tuple:
			return tupleList(r, nil)
		}
		if types.KindName(t) == "string" {
			return types.String
		}
		return types.Any
	case *syntax.CallExpr:
		defer c.calledNil(e)
		return c.call(e)
	case *syntax.MethodCall:
		defer c.calledNil(e)
		return c.methodCall(e)
	case *syntax.ValueCall:
		defer c.calledNil(e)
		return c.valueCall(e)
	case *syntax.NonNilExpr:
		t := c.expr(e.X)
		c.needlessNonNil(e, t)
		return types.RemoveNil(t)
	case *syntax.PropagateExpr:
		// an Err would return from the function while its defer runs, as
		// a `return` there would (docs/spec/language.md §8.5)
		c.inDefer(e.At, "?")
		t := c.expr(e.X)
		if r, ok := types.Underlying(t).(*types.Result); ok {
			c.propagate(r.Err, e.At)
			return r.Ok
		}
		if u, ok := types.Underlying(types.RemoveNil(t)).(*types.Union); ok {
			// a union of Results (`flag ? parse(s) : Err(5)`, a function
			// declared `-> Result<int, A> | Result<int, B>`): each member's
			// error may be returned early
			var oks []types.Type
			for _, m := range u.Types {
				r, ok := types.Underlying(m).(*types.Result)
				if !ok {
					oks = nil
					break
				}
				c.propagate(r.Err, e.At)
				oks = append(oks, r.Ok)
			}
			if oks != nil {
				return types.NewUnion(oks...)
			}
		} else if r, ok := types.Underlying(types.RemoveNil(t)).(*types.Result); ok {
			// a Result that may be nil (`rs[0]?`, `-> Result<int, E>?`):
			// its error may be returned early
			c.propagate(r.Err, e.At)
		}
		c.propagate(types.Any, e.At)
		return types.Any
	case *syntax.IfExpr:
		return c.ifExpr(e)
	case *syntax.MatchExpr:
		return c.match(e)
	case *syntax.TryExpr:
		return c.tryExpr(e)
	case *syntax.RetryExpr:
		// the value of the successful attempt's body (docs/spec/newer.md §1.10)
		c.formOperand(e.Count, c.expr(e.Count), types.Int, "retry count", "")
		return c.bodyValue(e.Body)
	case *syntax.ParallelExpr:
		return c.parallel(e)
	case *syntax.SpawnExpr:
		c.task(e, "", &variable{t: types.Any}, e.Body)
		return types.Any
	case *syntax.DeadlineExpr:
		// the body's value when the deadline did not pass, as a mutex
		// block's (docs/concurrency.md "deadline and mutex")
		c.formOperand(e.Duration, c.expr(e.Duration), types.NewUnion(types.Duration, types.Int), "deadline", "")
		return c.bodyValue(e.Body)
	case *syntax.MutexExpr:
		c.expr(e.Key)
		if e.Timeout != nil {
			c.formOperand(e.Timeout, c.expr(e.Timeout), mutexTimeout, "mutex timeout", "")
		}
		return c.bodyValue(e.Body)
	case *syntax.SelectExpr:
		// a select runs exactly one of its cases, its timeout or its
		// default, and has the value of the block it ran
		// (docs/concurrency.md "Channels and select")
		var vals []types.Type
		for _, sc := range e.Cases {
			c.expr(sc.Channel)
			c.fn.pushScope()
			if sc.Name != "" && sc.Name != "_" {
				c.declare(c.binding(sc, sc.Name), &variable{t: types.Any})
			}
			var t types.Type = types.Nil
			if sc.Body != nil {
				if st := c.stmts(sc.Body.Stmts, false); st != nil {
					t = st
				}
			}
			c.fn.popScope()
			vals = append(vals, c.leftValue(sc.Body, t))
		}
		if e.Timeout != nil {
			c.formOperand(e.Timeout, c.expr(e.Timeout), selectTimeout, "select timeout", "")
		}
		for _, b := range []*syntax.Block{e.TimeoutBody, e.Default} {
			if b != nil {
				t, _ := c.partBlock(b)
				vals = append(vals, c.leftValue(b, t))
			}
		}
		if len(vals) == 0 {
			return types.Any
		}
		return types.NewUnion(vals...)
	}
	return types.Any
}

// tupleList is the plain list an arity-changing operation on a tuple
// gives (a slice, `.reversed()`, `.appending(x)` with more, the types of
// the elements added): a tuple never survives a change of length
// (docs/spec/newer.md §2.3).
func tupleList(t *types.Tuple, more []types.Type) *types.List {
	elems := append(slices.Clip(t.Elems), more...)
	if len(elems) == 0 {
		return &types.List{Elem: types.Any}
	}
	return &types.List{Elem: types.NewUnion(elems...)}
}

// subscriptIndex warns about the index of a list or string read that is
// not an int, in the mismatch format (context `subscript index`,
// docs/spec/newer.md §3.1). A warning, not an error: the read fails at run
// time with `cannot index into list with string`, which April programs
// expect to catch or see. Dict keys are left to run time.
func (c *checker) subscriptIndex(e *syntax.IndexExpr, recv, index types.Type) {
	switch types.KindName(recv) {
	case "list", "string":
	default:
		return
	}
	if known(index) && !compatible(index, types.Int) {
		c.report(diag.SevWarning, e.Index.Position(), "HARN-TYP-007", "",
			fmt.Sprintf("subscript index: expected int, found %s", show(index, types.Int)))
	}
}

// tupleIndex types `row[i]` on a tuple: a constant index reads its slot's
// type (negative ones count from the end) and must be in range; another
// index reads any slot or nil (docs/spec/newer.md §2.3).
func (c *checker) tupleIndex(e *syntax.IndexExpr, elems []types.Type) types.Type {
	slot, k, constant := tupleSlot(e.Index, len(elems))
	switch {
	case !constant:
		return types.Optional(types.NewUnion(elems...))
	case slot < 0:
		c.report(sevError, e.At, "TupleIndexOutOfBounds", "",
			fmt.Sprintf("tuple index %d is out of bounds for a tuple of %d element(s)", k, len(elems)))
		return types.Any
	}
	return elems[slot]
}

// tupleSlot is the slot a constant index k (negative counts from the
// end) names in a tuple of n, -1 when out of bounds; constant is false
// for any other index.
func tupleSlot(index syntax.Expr, n int) (slot int, k int64, constant bool) {
	switch x := index.(type) {
	case *syntax.IntLit:
		k = x.Value
	case *syntax.UnaryExpr:
		lit, ok := x.X.(*syntax.IntLit)
		if !ok || x.Op != "-" {
			return 0, 0, false
		}
		k = -lit.Value
	default:
		return 0, 0, false
	}
	i := k
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return -1, k, true
	}
	return int(i), k, true
}

// indexType is the type of `x[i]` for x of type t: a read past the end
// or of a missing key is nil, so the element type is nilable
// (docs/spec/newer.md §3.5). Other receivers give any.
func indexType(t types.Type) types.Type {
	var elem types.Type
	switch r := types.Underlying(t).(type) {
	case *types.List:
		elem = r.Elem
	case *types.Dict:
		elem = r.Value
	}
	if types.KindName(t) == "string" { // also a literal type: `"abc"[0]` may be nil too
		elem = types.String
	}
	if !known(elem) {
		return types.Any
	}
	return types.Optional(elem)
}

// task checks a parallel or spawn body, a function of its own.
func (c *checker) task(node syntax.Node, param string, pv *variable, body *syntax.Block) types.Type {
	fc := &funcCtx{parent: c.fn, node: node}
	c.enter(fc)
	fc.pushScope()
	if param != "" && param != "_" {
		fc.scopes[0][param] = true
		c.declare(c.binding(node, param), pv)
	}
	var tail types.Type = types.Any
	if body != nil {
		tail = c.stmts(body.Stmts, false)
	}
	fc.popScope()
	c.fn = fc.parent
	if fc.returns || tail == nil {
		return types.Any
	}
	return tail
}

// parallel checks a `parallel` form. `parallel N { i -> … }` and
// `parallel each xs { x -> … }` yield the list of the body's values
// (docs/spec/language.md §13); `… as stream` yields a stream (of the
// body's values, or of Results), and `settle` the dict {results,
// succeeded, failed}. The body's parameter is typed as a `for` loop's
// variable over a collection whose element type the program declared
// (parallelParam); otherwise it stays untyped: a branch is a task whose
// failures programs catch as run-time errors.
func (c *checker) parallel(e *syntax.ParallelExpr) types.Type {
	at := c.expr(e.Arg)
	if e.Mode == syntax.ParallelCount {
		help := ""
		switch types.KindName(types.RemoveNil(at)) {
		case "list", "set", "dict", "range", "iter", "generator", "stream":
			// a collection where the count goes: `each` was left out
			help = "to run a branch per item, write `parallel each xs { x -> … }`"
		}
		c.formOperand(e.Arg, at, types.Int, "parallel count", help)
	} else {
		c.parallelItems(e, at)
	}
	if e.MaxConcurrent != nil {
		c.formOperand(e.MaxConcurrent, c.expr(e.MaxConcurrent), types.Int, "max_concurrent", "")
	}
	tail := c.task(e, e.Param, c.parallelParam(e, at), e.Body)
	switch {
	case e.Stream:
		return &types.Iter{Kind: types.IterStream, Elem: types.Any}
	case e.Mode == syntax.ParallelSettle:
		return &types.Dict{Key: types.String, Value: types.Any}
	}
	if !known(tail) || tail == types.Never {
		tail = types.Any
	}
	return &types.List{Elem: types.Widen(tail)}
}

// The timeouts the forms take: a duration or a number of milliseconds,
// nil for none; a mutex's may also be the options dict of a sync acquire
// (docs/concurrency.md "deadline and mutex", "Channels and select").
var (
	selectTimeout = types.NewUnion(types.Duration, types.Int, types.Float, types.Nil)
	mutexTimeout  = types.NewUnion(types.Duration, types.Int, types.Float, types.Nil, &types.Dict{Key: types.String, Value: types.Any})
)

// formOperand warns, in the mismatch format (docs/spec/newer.md §3.1),
// about an operand of a concurrency form whose known type is not want:
// `parallel xs { … }` (a list where the count goes), `deadline "5s"`,
// `max_concurrent: "2"`, a `select` or `mutex` timeout `"5s"`. A warning, as for a builtin's argument (§3.4):
// the form fails at run time with a type error programs may catch.
func (c *checker) formOperand(x syntax.Expr, t, want types.Type, what, help string) {
	if known(t) && !compatible(t, want) {
		c.report(diag.SevWarning, x.Position(), "HARN-TYP-007", help,
			fmt.Sprintf("%s: expected %s, found %s", what, want, show(t, want)))
	}
}

// parallelItems warns about the items of `parallel each` or `settle`
// when their type is known to be a scalar, which no branch can iterate
// (at run time `parallel each: expected a list, got int`; a string is
// refused too, docs/concurrency.md `parallel`). An int there is most
// likely a count: the help names `parallel N`.
func (c *checker) parallelItems(e *syntax.ParallelExpr, at types.Type) {
	kind := types.KindName(at)
	switch kind {
	case "int", "float", "bool", "string", "duration":
	default:
		return
	}
	word := "each"
	if e.Mode == syntax.ParallelSettle {
		word = "settle"
	}
	help := ""
	if kind == "int" && e.Mode == syntax.ParallelEach {
		help = "to run N branches, write `parallel N { i -> … }`"
	}
	c.report(diag.SevWarning, e.Arg.Position(), "HARN-TYP-007", help,
		fmt.Sprintf("parallel %s items: expected list, found %s", word, show(at, types.Any)))
}

// parallelParam is the variable of `parallel each xs { x -> … }` (at is
// xs's type): the element type when the program declared it (an
// annotated binding or parameter, a declared result: `ids: list<int>`
// gives an int, `list<int?>` an int? nil safety watches), as for a `for`
// loop; anything else, and `parallel N`'s index, stays untyped.
func (c *checker) parallelParam(e *syntax.ParallelExpr, at types.Type) *variable {
	if e.Mode != syntax.ParallelEach || c.caught() {
		return &variable{t: types.Any}
	}
	elem := elemType(types.RemoveNil(at))
	if elem == nil || !c.declaredElems(e.Arg, elem) {
		return &variable{t: types.Any}
	}
	return &variable{t: elem, annotated: true}
}

func (c *checker) ident(e *syntax.Ident) types.Type {
	ref := c.info.Refs[e]
	if ref == nil {
		return types.Any
	}
	if b := ref.Binding; b != nil {
		if ref.Scope == resolve.Hidden {
			return types.Any
		}
		if t, ok := c.narrowed[narrowKey{b, e.Name}]; ok {
			return t
		}
		if v := c.vars[b]; v != nil {
			return v.t
		}
		if b.Kind == resolve.KFn {
			if fn, ok := b.Decl.(*syntax.FnDecl); ok && !c.multiDecl[b.Name] {
				return c.sig(fn)
			}
		}
		if b.Kind == resolve.KImport && !c.multiDecl[b.Name] && c.importRef(ref, false) {
			// an imported function used as a value (`xs.map(f)`)
			if f := c.imported("", e.Name); f != nil {
				return f.sig
			}
			if t, ok := c.importedValue("", e.Name); ok {
				return t
			}
		}
		return types.Any
	}
	if ref.Scope == resolve.Universal {
		switch e.Name {
		case "harness":
			return &types.Handle{Name: "Harness"}
		case "pi", "e":
			return types.Float
		}
	}
	return types.Any
}

func (c *checker) listLit(e *syntax.ListLit) types.Type {
	var elems []types.Type
	for _, x := range e.Elems {
		if sp, ok := x.(*syntax.SpreadExpr); ok {
			t := c.expr(sp.X)
			if l, ok := types.Underlying(t).(*types.List); ok {
				elems = append(elems, l.Elem)
			} else {
				elems = append(elems, types.Any)
			}
			continue
		}
		elems = append(elems, types.Widen(c.expr(x)))
	}
	if len(elems) == 0 {
		return &types.List{Elem: types.Any}
	}
	return &types.List{Elem: types.NewUnion(elems...)}
}

// dictLit types a dict literal: a shape when every key is a plain name or
// string and every `...spread` is a closed shape (merged right-biased in
// order, as `a + b` is: docs/spec/newer.md §1.6), a dict otherwise.
func (c *checker) dictLit(entries []*syntax.DictEntry) types.Type {
	shape := &types.Shape{}
	isShape := true
	for _, en := range entries {
		if en.KeyExpr != nil {
			c.expr(en.KeyExpr)
			isShape = false
		}
		if en.Spread != nil {
			st := c.expr(en.Spread)
			if isShape {
				shape = mergeShapes(shape, st)
				isShape = shape != nil
			}
		}
		if en.Value == nil {
			continue
		}
		vt := c.expr(en.Value)
		if !isShape || en.KeyExpr != nil || en.Spread != nil {
			continue
		}
		// a later key replaces an earlier one, as merging the one-field
		// shape would; in place, since the shape is this literal's own
		setField(shape, types.Field{Name: en.KeyName, Type: vt})
	}
	if !isShape {
		return &types.Dict{Key: types.String, Value: types.Any}
	}
	return shape
}

// setField sets field f of s, replacing a field of the same name.
func setField(s *types.Shape, f types.Field) {
	for i := range s.Fields {
		if s.Fields[i].Name == f.Name {
			s.Fields[i] = f
			return
		}
	}
	s.Fields = append(s.Fields, f)
}

// spreadsRecords reports a dict literal that spreads at least one value:
// its type, when a shape, comes from records the program declared.
func spreadsRecords(x syntax.Expr) bool {
	dl, ok := x.(*syntax.DictLit)
	if !ok {
		return false
	}
	for _, en := range dl.Entries {
		if en.Spread != nil {
			return true
		}
	}
	return false
}

// ---- member access ----

func (c *checker) member(e *syntax.MemberExpr) types.Type {
	if id, ok := e.X.(*syntax.Ident); ok && c.isEnumRef(id) {
		return c.variant(id.Name, e.Name, nil, e.At, false)
	}
	if id, ok := e.X.(*syntax.Ident); ok && !e.Optional && c.unknownNamespaceMember(id, e.Name, e.At, false) {
		c.expr(e.X)
		return types.Any
	}
	if c.namespaceRead(e) {
		c.expr(e.X)
		return types.Any
	}
	if id, ok := e.X.(*syntax.Ident); ok && !e.Optional && !c.multiDecl[id.Name] && c.importRef(c.info.Refs[id], true) {
		// a function of a namespace import used as a value (`xs.map(ns.f)`)
		if f := c.imported(id.Name, e.Name); f != nil {
			c.expr(e.X)
			return f.sig
		}
		if t, ok := c.importedValue(id.Name, e.Name); ok {
			c.expr(e.X)
			if nt, ok := c.narrowedType(e); ok {
				return nt // `if ns.LIMIT != nil { ns.LIMIT + 1 }`
			}
			return t
		}
	}
	if id, ok := e.X.(*syntax.Ident); ok && c.isStructRef(id) {
		// A struct's name is its constructor: it has no properties
		// (the run-time error of docs/spec/language.md §10.2, before the run).
		c.expr(e.X)
		c.errorf(e.At, "cannot access property `%s` on struct type %s (fields and methods belong to its instances)", e.Name, id.Name)
		return types.Any
	}
	t := c.expr(e.X)
	c.unvalidatedAccess(e.X, e.Name, "."+e.Name, e.At)
	if nt, ok := c.narrowedType(e); ok {
		return nt
	}
	if !e.Optional {
		c.nilUse(e.X, t, "property `"+e.Name+"`", e.At)
	}
	c.unknownUse(e.X, t, "property access `."+e.Name+"` on an `unknown` value will fail at runtime if the value is not a shape with that field", e.At)
	if e.Optional {
		// `a?.b` reads b of the non-nil part of a, or is nil
		base := types.RemoveNil(t)
		c.shapeField(e.X, base, e.Name, e.At)
		return types.Optional(c.memberType(base, e.Name, e.At))
	}
	// reading a property of nil fails (docs/spec/language.md §6.7), so
	// `v.name` of a `T?` reads T's property, or does not return
	base := types.RemoveNil(t)
	if base == types.Never {
		base = t
	}
	r := c.memberType(base, e.Name, e.At)
	c.shapeField(e.X, base, e.Name, e.At)
	c.unionNoField(e.X, base, e.Name, e.At)
	return r
}

// ifExpr checks an if expression, narrowing each branch by the condition
// that leads to it. The narrowings after it are those every branch that
// can fall through ends with (docs/spec/newer.md §3.5: an early exit in any
// branch, however deep in an `else if` chain, narrows the code after the
// if).
func (c *checker) ifExpr(e *syntax.IfExpr) types.Type {
	before := c.saveNarrow()
	t, ends := c.ifChain(e)
	c.joinNarrow(before, ends)
	return t
}

// ifChain checks an if and its `else if`s; it returns the value type and
// the narrowing states at the ends of the branches that fall through.
func (c *checker) ifChain(e *syntax.IfExpr) (types.Type, []narrowState) {
	c.expr(e.Cond)
	before := c.saveNarrow()
	var ends []narrowState
	c.narrowFor(e.Cond, true)
	then, end := c.blockEnd(e.Then)
	if !c.blockLeaves(e.Then) {
		ends = append(ends, end)
	}
	c.restoreNarrow(before)
	c.narrowFor(e.Cond, false)
	thenBranch := c.branchOf(tailValue(e.Then), then)
	thenV := c.leftValue(e.Then, then)
	switch el := e.Else.(type) {
	case *syntax.Block:
		t, end := c.blockEnd(el)
		if !c.blockLeaves(el) {
			ends = append(ends, end)
		}
		c.joinBranches(e, e.Cond, thenBranch, c.branchOf(tailValue(el), t))
		return types.NewUnion(thenV, c.leftValue(el, t)), ends
	case *syntax.IfExpr:
		t, more := c.ifChain(el)
		c.joinBranches(e, e.Cond, thenBranch, c.branchOf(el, t))
		return types.NewUnion(thenV, t), append(ends, more...)
	}
	c.joinBranches(e, e.Cond, thenBranch, nilBranch)
	return types.Optional(thenV), append(ends, c.narrowed)
}

// memberType is the type of `v.name` for a receiver of type t; it
// reports unknown Harness capabilities and properties of sub-handles.
func (c *checker) memberType(t types.Type, name string, pos syntax.Pos) types.Type {
	switch r := types.Underlying(t).(type) {
	case *types.Handle:
		if r.IsRoot() {
			if h, ok := types.Capability(name); ok {
				return h
			}
			help := ""
			if s := diag.Suggest(name, types.Capabilities); s != "" {
				help = "did you mean `" + s + "`?"
			}
			c.report(sevError, pos, "", help, "`Harness` has no capability `"+name+"`")
			return types.Any
		}
		if c.capabilityMethod(r.Name, name) {
			// a method taken as a value is a bound method at run time
			return c.libraryFunc(r.Name, name)
		}
		c.errorf(pos, "cannot access property `%s` on %s", name, r.Name)
		return types.Any
	case *types.Named:
		if r.Decl.Kind == types.StructDecl {
			fields := types.StructFields(r)
			for _, f := range fields {
				if f.Name == name {
					return readType(f)
				}
			}
			if _, isMethod := r.Decl.Method(name); !isMethod && r.Decl.Node != nil && len(fields) > 0 {
				c.noField(pos, name, "struct `"+r.Decl.Name+"`", fields)
			}
		}
		if r.Decl.Kind == types.EnumDecl {
			return variantProperty(name)
		}
	case *types.Result:
		return variantProperty(name)
	case *types.Shape:
		if f, ok := r.Field(name); ok {
			return readType(f)
		}
		if r.Tail != nil {
			// `{name: string, ...dict<string, int>}`: the other fields
			// are ints (docs/spec/newer.md §1.6)
			return r.Tail
		}
	case *types.Union:
		return unionField(r, name)
	case *types.List:
		switch name {
		case "count":
			return types.Int
		case "empty":
			return types.Bool
		case "first", "last":
			return types.Optional(r.Elem)
		}
		c.noProperty(pos, name, "list", []string{"count", "empty", "first", "last"})
	case *types.Basic:
		if r == types.String {
			return c.stringProperty(pos, name)
		}
	case *types.Literal:
		if r.Base() == types.String {
			return c.stringProperty(pos, name)
		}
	}
	return types.Any
}

// variantProperty is the type of `v.name` on an enum variant (a Result
// too): `.variant` is the variant's name and `.fields` its payload list
// (docs/spec/language.md §6.7); other names read nil.
func variantProperty(name string) types.Type {
	switch name {
	case "variant":
		return types.String
	case "fields":
		return anyList
	}
	return types.Any
}

// stringProperty is the type of `s.name` on a string: `count` and
// `empty` are its only properties (docs/spec/builtins.md §2).
func (c *checker) stringProperty(pos syntax.Pos, name string) types.Type {
	switch name {
	case "count":
		return types.Int
	case "empty":
		return types.Bool
	}
	c.noProperty(pos, name, "string", []string{"count", "empty"})
	return types.Any
}

// noProperty warns about reading a property a list or string does not
// have: it reads nil at run time (docs/spec/builtins.md §2), which is
// seldom what the program meant (`s.length`).
func (c *checker) noProperty(pos syntax.Pos, name, kind string, props []string) {
	help := ""
	if lengthName(name) {
		help = lengthHelp
	} else if s := diag.Suggest(name, props); s != "" {
		help = "did you mean `" + s + "`?"
	}
	c.report(diag.SevWarning, pos, "", help, "`"+name+"` is not a property of "+kind+"; it reads nil")
}

// unionField is the type of field name read from a union of records
// (`{kind: "a", x: int} | {kind: "b", x: string}`): the union of its
// types, when every member declares it. When only some do and the others
// are structs, which hold no field beyond those they declare, the read
// gives nil on those (docs/spec/builtins.md §2: an unset struct field
// reads nil), so it is the declared types or nil. A shape admits extra
// fields (docs/spec/language.md §10.1), so with a shape lacking it the
// read is any (which member is there, and what it holds, is not known).
func unionField(u *types.Union, name string) types.Type {
	var ts []types.Type
	lacking := false
	for _, m := range u.Types {
		fields, ok := recordFields(m)
		if !ok {
			return types.Any
		}
		f, ok := fieldNamed(fields, name)
		if !ok {
			if !structLacks(m, name) {
				return types.Any
			}
			lacking = true
			continue
		}
		ts = append(ts, readType(f))
	}
	if len(ts) == 0 {
		return types.Any // no member declares it: unionNoField's case
	}
	if lacking {
		ts = append(ts, types.Nil)
	}
	return types.NewUnion(ts...)
}

// structLacks reports a struct of the program with fields that has no
// method of that name either (a method read is a bound method value).
func structLacks(m types.Type, name string) bool {
	r, ok := types.Underlying(m).(*types.Named)
	if !ok || r.Decl.Kind != types.StructDecl || r.Decl.Node == nil || len(types.StructFields(r)) == 0 {
		return false
	}
	_, isMethod := r.Decl.Method(name)
	return !isMethod
}

// closedRecord reports a union member m, read through x, that has no
// field beyond those it declares: a struct of the program (structLacks),
// or a closed shape with fields on a path whose type the program declared
// (as in shapeField).
func (c *checker) closedRecord(x syntax.Expr, m types.Type, name string) bool {
	if r, ok := types.Underlying(m).(*types.Shape); ok {
		return !r.Open && r.Tail == nil && len(r.Fields) > 0 && c.shapePath(x)
	}
	return structLacks(m, name)
}

// unionNoField reports reading a field that no member of a union of
// records declares (`v.zzz` with `v: A | B`): whichever member the value
// is, the field does not exist on it, as for a lone struct or declared
// shape (docs/spec/newer.md §3.6, whose wording names one type; a union
// is named as it prints). Every member must be a struct of the program
// or a closed shape with fields, and shapes count only on a path whose
// type the program declared, as in shapeField; a member with a method
// of that name (a bound method value) leaves the read alone.
func (c *checker) unionNoField(x syntax.Expr, t types.Type, name string, pos syntax.Pos) {
	u, ok := types.Underlying(t).(*types.Union)
	if !ok {
		return
	}
	var all []types.Field
	seen := map[string]bool{}
	for _, m := range u.Types {
		if !c.closedRecord(x, m, name) {
			return
		}
		fields, _ := recordFields(m)
		if _, ok := fieldNamed(fields, name); ok {
			return
		}
		for _, f := range fields {
			if !seen[f.Name] {
				seen[f.Name] = true
				all = append(all, f)
			}
		}
	}
	c.noField(pos, name, "`"+u.String()+"`", all)
}

// readType is the type a read of field f gives: its declared type, or
// nil too when the field is optional.
func readType(f types.Field) types.Type {
	if f.Optional {
		return types.Optional(f.Type)
	}
	return f.Type
}

// module reports whether the file is an imported module, whose struct
// literals keep every field (docs/spec/language.md §11.2).
func (c *checker) module() bool { return c.info.Module }

// isEnumRef reports whether id, used as `id.Variant`, names an enum of
// this file (or Result) rather than a variable: the resolver leaves such
// identifiers unresolved.
// isStructRef reports whether id names a struct declaration (not a
// binding that shadows it).
func (c *checker) isStructRef(id *syntax.Ident) bool {
	ref, ok := c.info.Refs[id]
	return ok && ref.Binding != nil && ref.Binding.Kind == resolve.KStruct
}

func (c *checker) isEnumRef(id *syntax.Ident) bool {
	if _, resolved := c.info.Refs[id]; resolved {
		return false
	}
	return c.info.IsEnum(id.Name)
}

// variantRequired is how many payload arguments a call of variant v
// needs: the fields before the first defaulted one, for an enum declared
// in the file (the compiler fills in its defaults), else all of them.
func (c *checker) variantRequired(enum string, v types.Variant) int {
	if c.info.EnumDecl(enum) == nil {
		return len(v.Fields)
	}
	for i, f := range v.Fields {
		if f.Optional {
			return i
		}
	}
	return len(v.Fields)
}

// variant checks `Enum.Variant` / `Enum.Variant(args)` (docs/spec/language.md
// §10.1) and returns the enum's type. args is nil for the bare form.
func (c *checker) variant(enum, name string, args []syntax.Expr, pos syntax.Pos, called bool) types.Type {
	var argTypes []types.Type
	for _, a := range args {
		argTypes = append(argTypes, c.expr(a))
	}
	if enum == "Result" {
		switch name {
		case "Ok", "Err":
		default:
			c.warnf(pos, "Unknown variant '%s' in enum 'Result'", name)
			return types.Any
		}
		if called && len(args) != 1 {
			c.warnf(pos, "Result.%s expects 1 argument(s), got %d", name, len(args))
		}
		var v types.Type = types.Any
		if len(argTypes) == 1 && !hasSpread(args) {
			v = types.Widen(argTypes[0])
		}
		if name == "Ok" {
			return &types.Result{Ok: v, Err: types.Any}
		}
		return &types.Result{Ok: types.Any, Err: v}
	}
	d := c.env.Lookup(enum)
	if d == nil || d.Kind != types.EnumDecl {
		return types.Any
	}
	v, ok := d.Variant(name)
	if !ok {
		c.warnf(pos, "Unknown variant '%s' in enum '%s'", name, enum)
		return &types.Named{Decl: d}
	}
	if lo := c.variantRequired(enum, v); called && !hasSpread(args) && (len(args) < lo || len(args) > len(v.Fields)) {
		want := fmt.Sprint(len(v.Fields))
		if lo < len(v.Fields) {
			want = fmt.Sprint(lo) + "-" + want
		}
		c.warnf(pos, "%s.%s expects %s argument(s), got %d", enum, name, want, len(args))
	}
	if !hasSpread(args) {
		for i, f := range v.Fields {
			// payloads typed by the enum's own type parameters are left alone
			if i >= len(args) || !concrete(f.Type) {
				continue
			}
			context := enum + "." + name + " argument `" + f.Name + "`"
			if !c.unknownInto(args[i], argTypes[i], f.Type, context) && known(argTypes[i]) && known(f.Type) && !c.fits(args[i], argTypes[i], f.Type) {
				c.mismatch(args[i], context, f.Type, argTypes[i])
			}
		}
		payload := func(j int, _ types.Field) types.Type {
			if j < len(argTypes) {
				return argTypes[j]
			}
			return nil
		}
		return &types.Named{Decl: d, Args: typeArgs(d, v.Fields, payload)}
	}
	return &types.Named{Decl: d}
}

func hasSpread(args []syntax.Expr) bool {
	for _, a := range args {
		if _, ok := a.(*syntax.SpreadExpr); ok {
			return true
		}
	}
	return false
}

// ---- structs ----

func (c *checker) structLit(e *syntax.StructLit) types.Type {
	var d *types.Decl
	if e.NS != nil {
		// `ns.Point { … }`: the struct the namespace import exports
		// (docs/spec/newer.md §1.3), registered as `ns.Point`.
		if d = c.env.Lookup(e.NS.Name + "." + e.Name); d == nil && c.importRef(c.info.Refs[e.NS], true) {
			c.unknownStruct(e)
		}
	} else if d = c.env.Lookup(e.Name); d == nil && c.info.Struct(e.Name) == nil {
		c.unknownStruct(e)
	}
	if d == nil || d.Kind != types.StructDecl {
		c.dictLit(e.Fields)
		return types.Any
	}
	given := c.structFields(d, e.Fields, e.At)
	return &types.Named{Decl: d, Args: typeArgs(d, d.Fields, func(_ int, f types.Field) types.Type { return given[f.Name] })}
}

// givenUnknown reports whether a field typed by the bare type parameter
// tp is given an `unknown` value.
func givenUnknown(fields []types.Field, tp *types.TypeParam, given func(j int, f types.Field) types.Type) bool {
	for j, f := range fields {
		if f.Type == types.Type(tp) && given(j, f) == types.Unknown {
			return true
		}
	}
	return false
}

// typeArgs infers a generic declaration's type arguments from the values
// given to its fields (a struct literal's, a variant's payload): a field
// typed by a bare type parameter gives it the widened type of the value
// given(j, field) returns, nil for none (`Box { v: 1 }` is a Box<int>,
// `Maybe.Some(1)` a Maybe<int>); failing that, a field that mentions it
// in a container does, as a call's argument would (`Stack { items: [1] }`
// of `items: list<T>` is a Stack<int>); the rest stay any.
func typeArgs(d *types.Decl, fields []types.Field, given func(j int, f types.Field) types.Type) []types.Type {
	if len(d.TypeParams) == 0 {
		return nil
	}
	own := paramSet(d.TypeParams)
	nested := map[*types.TypeParam]types.Type{}
	for j, f := range fields {
		if t := given(j, f); known(t) {
			if _, bare := f.Type.(*types.TypeParam); !bare {
				infer(f.Type, types.Widen(t), own, nested)
			}
		}
	}
	out := make([]types.Type, len(d.TypeParams))
	for i, tp := range d.TypeParams {
		var ts []types.Type
		if t, ok := nested[tp]; ok && known(t) && concrete(t) && t != types.Nil && t != types.Never {
			ts = append(ts, t)
		}
		for j, f := range fields {
			if t := given(j, f); f.Type == types.Type(tp) && known(t) && t != types.Nil {
				ts = append(ts, types.Widen(t))
			}
		}
		// fields giving T different types join into a union, as the
		// arguments of a generic call do (docs/spec/newer.md §3.3:
		// `W.Two(1, "x")` is a W<int | string>)
		out[i] = types.Any
		if len(ts) > 0 {
			out[i] = types.NewUnion(ts...)
		} else if slices.ContainsFunc(fields, func(f types.Field) bool { return f.Type == types.Type(tp) }) && givenUnknown(fields, tp, given) {
			// `Box {v: v}` with `v: unknown` is a Box<unknown>, not a
			// Box<any>: the value must still be narrowed before it goes
			// where a Box<int> is expected (docs/spec/newer.md §3.7)
			out[i] = types.Unknown
		}
	}
	return out
}

// structFields checks the fields given to a struct (docs/spec/language.md §10.2):
// unknown and missing fields are warnings, wrong field types errors.
func (c *checker) structFields(d *types.Decl, entries []*syntax.DictEntry, pos syntax.Pos) (given map[string]types.Type) {
	given = map[string]types.Type{}
	complete := true
	for _, en := range entries {
		var vt types.Type = types.Any
		if en.KeyExpr != nil {
			c.expr(en.KeyExpr)
			complete = false
		}
		if en.Spread != nil {
			c.expr(en.Spread)
			complete = false
		}
		if _, isClosure := en.Value.(*syntax.ClosureLit); isClosure && en.KeyExpr == nil && en.Spread == nil {
			if f, ok := d.Field(en.KeyName); ok {
				c.expectFn(en.Value, types.Subst(f.Type, d.Instance(nil)))
			}
		}
		if en.Value != nil {
			vt = c.expr(en.Value)
		}
		if en.KeyExpr != nil || en.Spread != nil {
			continue
		}
		given[en.KeyName] = vt
		f, ok := d.Field(en.KeyName)
		if !ok {
			if !c.module() { // a module's struct literals keep every field (§11.2)
				c.warnf(en.At, "Unknown field '%s' in struct '%s'", en.KeyName, d.Name)
			}
			continue
		}
		declared := types.Subst(f.Type, d.Instance(nil))
		// An optional field may also be given nil; the message still names
		// the declared type, as for shape fields (`age?: int`).
		ft := declared
		if f.Optional {
			ft = types.Optional(ft)
		}
		context := "field `" + f.Name + "` in struct `" + d.Name + "`"
		if !c.unknownInto(en.Value, vt, declared, context) && c.checkable(vt) && known(ft) && !c.fits(en.Value, vt, ft) {
			c.mismatch(en.Value, context, declared, vt)
		}
	}
	if !complete {
		return given
	}
	for _, f := range d.Fields {
		if _, ok := given[f.Name]; !ok && !f.Optional {
			c.warnf(pos, "Missing field '%s' in struct '%s' construction", f.Name, d.Name)
		}
	}
	return given
}

// ---- try ----

// catchesNothing reports the annotation of a typed catch that names a
// type other than an enum (`catch (e: string)`, a struct, an interface):
// such a catch takes no failure at all, where a union or a generic type
// makes the catch untyped (docs/spec/language.md §8.3). A name the checker
// cannot resolve is left to the unknown-type warning.
func catchesNothing(name *syntax.NamedType, t types.Type) bool {
	if len(name.Args) > 0 {
		return false
	}
	if name.Name == "any" || name.Name == "unknown" {
		return true
	}
	if _, isResult := types.Underlying(t).(*types.Result); isResult {
		return false // Result's variants are an enum's at run time
	}
	return known(t)
}

func (c *checker) tryExpr(e *syntax.TryExpr) types.Type {
	h := catcher{all: e.HasCatch && e.CatchType == nil || !e.HasCatch && e.Finally == nil}
	var catchT types.Type = types.Any
	if e.HasCatch && e.CatchType != nil {
		// a catch variable's annotation names its types as any other
		// (docs/spec/language.md §10.6): a misspelt enum would catch nothing
		c.annotation(e.CatchType, nil, nil)
		catchT = c.typeOf(e.CatchType)
		n, named := e.CatchType.(*syntax.NamedType)
		switch {
		case !named || len(n.Args) > 0:
			// A non-name annotation makes the catch untyped (§8.3).
			h.all = true
			catchT = types.Any
		case isEnum(catchT):
			h.enum = catchT
		default:
			// The catch compares the name with the thrown variant's
			// enum (§8.3): a name that is no enum (`string`, a struct,
			// an alias, an unknown name) handles nothing.
			if catchesNothing(n, catchT) {
				c.report(sevWarning, n.At, "", "catch every failure with `catch (e)` and test the value (`type_of(e)`)",
					fmt.Sprintf("`catch (%s: %s)` catches nothing: a typed catch takes only the variants of an enum, and `%s` is not one", e.CatchVar, n.Name, n.Name))
			}
			catchT = types.Any
		}
	}
	c.fn.tries = append(c.fn.tries, h)
	before := c.saveNarrow()
	// the body may stop at any point: the catch starts from what holds
	// both before it and at its end
	body, bodyEnd := c.partBlock(e.Body)
	c.fn.tries = c.fn.tries[:len(c.fn.tries)-1]
	result := body
	if !e.HasCatch && e.Finally != nil {
		c.narrowed = bodyEnd // an error goes on past the finally
	}
	if e.HasCatch {
		c.fn.pushScope()
		if e.CatchVar != "" && e.CatchVar != "_" {
			c.declare(c.binding(e, e.CatchVar), &variable{t: catchT})
		}
		var ct types.Type = types.Nil
		if e.Catch != nil {
			if v := c.stmts(e.Catch.Stmts, false); v != nil {
				ct = v
			}
			if c.exits(e.Catch.Stmts) {
				// a catch that returns or throws gives the form no value:
				// `let d = try { f() } catch (e) { return Err(e) }` is f's type
				ct = types.Never
			}
		}
		c.joinBranches(e, nil, c.branchOf(tailValue(e.Body), body), c.branchOf(tailValue(e.Catch), ct))
		// after the try: the end of the body or of the catch
		var ends []narrowState
		if !c.blockLeaves(e.Body) {
			ends = append(ends, bodyEnd)
		}
		if e.Catch == nil || !c.blockLeaves(e.Catch) {
			ends = append(ends, c.narrowed)
		}
		c.joinNarrow(before, ends)
		c.fn.popScope()
		result = types.NewUnion(c.leftValue(e.Body, body), ct)
	}
	if e.Finally != nil {
		c.block(e.Finally)
	}
	if !e.HasCatch && e.Finally == nil {
		if r, ok := types.Underlying(body).(*types.Result); ok {
			return r
		}
		if known(body) && types.KindName(body) != "enum" {
			return &types.Result{Ok: types.Widen(body), Err: types.Any}
		}
		return &types.Result{Ok: types.Any, Err: types.Any}
	}
	return result
}

// isEnum reports whether t, the type a typed catch names, is an enum
// itself (not an alias of one), `Result` included: the variants such a
// catch handles.
func isEnum(t types.Type) bool {
	switch t := t.(type) {
	case *types.Named:
		return t.Decl.Kind == types.EnumDecl
	case *types.Result:
		return true
	}
	return false
}

// shapeField reports a field a closed shape does not declare, read or
// written through a path whose type the program declared: a shape the
// checker inferred from a literal says nothing of the program's intent.
func (c *checker) shapeField(x syntax.Expr, t types.Type, name string, pos syntax.Pos) {
	sh, ok := types.Underlying(t).(*types.Shape)
	if !ok || sh.Open || len(sh.Fields) == 0 || !c.shapePath(x) {
		return
	}
	if _, ok := sh.Field(name); !ok {
		c.noField(pos, name, "shape `"+sh.String()+"`", sh.Fields)
	}
}

// structFieldWrite reports an assignment to a field the struct does not
// declare. docs/spec/language.md §10.2 let such a write add the field to the copy;
// docs/spec/newer.md §3.6 makes writing an undeclared field the same static error as
// reading one, and docs/spec/newer.md wins.
func (c *checker) structFieldWrite(t types.Type, name string, pos syntax.Pos) {
	n, ok := types.Underlying(t).(*types.Named)
	if !ok || n.Decl.Kind != types.StructDecl || n.Decl.Node == nil {
		return
	}
	fields := types.StructFields(n)
	if _, ok := fieldNamed(fields, name); ok || len(fields) == 0 {
		return
	}
	if _, isMethod := n.Decl.Method(name); isMethod {
		return
	}
	c.noField(pos, name, "struct `"+n.Decl.Name+"`", fields)
}

// structFieldValue reports a value written to a declared struct field
// whose type it does not fit (`p.x = "a"` with `x: int`). Upstream's
// wording is unknown; the context is the struct literal's,
// "field `x` in struct `P`" (docs/spec/newer.md §3.1, §3.2), since the
// field's declaration is what the value must fit in both.
func (c *checker) structFieldValue(t types.Type, name string, x syntax.Expr, vt types.Type) {
	n, ok := types.Underlying(t).(*types.Named)
	if !ok || n.Decl.Kind != types.StructDecl || n.Decl.Node == nil {
		return
	}
	if f, ok := fieldNamed(types.StructFields(n), name); ok {
		// an optional field (`nick?: string`) takes nil, as in a literal
		c.valueInto(x, vt, readType(f), "field `"+name+"` in struct `"+n.Decl.Name+"`")
	}
}

// unionFieldValue is structFieldValue for a union of structs that all
// declare the field with one type (`a.name = 1` with `a: Cat | Dog`):
// whichever member the value is, the field takes that type. Members
// that type the field differently leave the write alone, since the value
// may fit the member it is.
func (c *checker) unionFieldValue(t types.Type, name string, x syntax.Expr, vt types.Type) {
	u, ok := types.Underlying(t).(*types.Union)
	if !ok {
		return
	}
	var want types.Type
	for _, m := range u.Types {
		n, ok := types.Underlying(m).(*types.Named)
		if !ok || n.Decl.Kind != types.StructDecl || n.Decl.Node == nil {
			return
		}
		f, ok := fieldNamed(types.StructFields(n), name)
		if !ok || want != nil && !types.Identical(want, readType(f)) {
			return
		}
		want = readType(f)
	}
	c.valueInto(x, vt, want, "field `"+name+"` in `"+u.String()+"`")
}

// shapeFieldValue reports a value written to a field of a shape the
// program declared (`p.x = "a"` with `p: {x: int}`) whose type it does
// not fit, in structFieldValue's words with the shape named as the
// unknown-field error names it: "field `x` in shape `{x: int}`". A shape
// the checker inferred from a literal says nothing of the program's
// intent, and a field the shape does not list is shapeField's.
func (c *checker) shapeFieldValue(recv syntax.Expr, t types.Type, name string, x syntax.Expr, vt types.Type) {
	sh, ok := types.Underlying(t).(*types.Shape)
	if !ok || !c.shapePath(recv) {
		return
	}
	f, ok := sh.Field(name)
	if !ok {
		return
	}
	want := f.Type
	if f.Optional {
		want = types.Optional(want)
	}
	c.valueInto(x, vt, want, "field `"+name+"` in shape `"+sh.String()+"`")
}

// noField reports a read or write of a field the receiver's type does
// not declare (docs/spec/newer.md §3.6).
func (c *checker) noField(pos syntax.Pos, name, on string, fields []types.Field) {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	msg := "field `" + name + "` does not exist on " + on
	if s := diag.Suggest(name, names); s != "" {
		msg += " — did you mean `" + s + "`?"
	}
	c.report(sevError, pos, "", "available fields: "+strings.Join(names, ", "), msg)
}

// unknownStruct reports a struct literal naming no visible struct
// (docs/spec/newer.md §3.2).
func (c *checker) unknownStruct(e *syntax.StructLit) {
	var names []string
	for _, d := range c.env.Decls() {
		if d.Kind == types.StructDecl && e.NS == nil {
			names = append(names, d.Name)
		}
	}
	name, help := e.Name, "declare `struct "+e.Name+" { ... }` or fix the type name"
	if e.NS != nil {
		for _, n := range c.env.Qualified(e.NS.Name) {
			if c.env.Lookup(e.NS.Name+"."+n).Kind == types.StructDecl {
				names = append(names, n)
			}
		}
		name, help = e.NS.Name+"."+e.Name, "the module must export it as `pub struct "+e.Name+"`, or fix the type name"
	}
	msg := "unknown struct type `" + name + "`"
	if s := diag.Suggest(e.Name, names); s != "" {
		if e.NS != nil {
			s = e.NS.Name + "." + s
		}
		msg += " — did you mean `" + s + "`?"
	}
	c.report(sevError, e.At, "", help, msg)
}

// closure types a closure literal: its signature, with the parameter
// types its call site hints and, without `return`, the type of its last
// expression as the result.
func (c *checker) closure(e *syntax.ClosureLit) types.Type {
	sig := c.env.Signature(e.Params, e.Return, e.Throws, c.typeParams())
	c.function(e, e.Params, sig, e.Throws, nil, blockStmts(e.Body), nil)
	_, hinted := c.paramHints[e]
	tail, tailed := c.tails[e]
	tailed = tailed && concrete(tail)
	if !hinted && !tailed {
		return sig
	}
	typed := *sig
	typed.Params = c.hintedParams(e, sig.Params)
	if tailed {
		// an unannotated closure without `return` gives its last
		// expression's value: `{ n: int -> n }` is a fn(int) -> int
		typed.Return = tail
	}
	return &typed
}

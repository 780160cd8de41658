package check

import (
	"fmt"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// A closure literal passed where the callee says what it will be called
// with takes those types for the parameters it leaves unannotated, as a
// `for` loop's variable takes the element type of what it walks: the
// callbacks of the builtin collection methods and functions (each
// element of a list, set or iterator; a dict's values or keys:
// docs/spec/builtins.md §3.6–3.8), the `fn(…)` parameters of the file's
// functions, of imported ones and of impl methods, and a `fn(…)` type
// the program declared where the closure goes (an annotated binding, a
// typed function's result, a struct field). So an unknown method, a field a struct lacks or
// a wrong operand inside the callback is caught as it is in a loop body
// (docs/spec/newer.md §3.6). An element type the program wrote (a path
// rooted at an annotated binding or parameter, a declared result) is
// held as declared, nil safety included; one the checker inferred is
// widened as an unannotated binding's is. An annotation on the
// parameter always wins. Inside the body of a `try` that catches every
// error, a callback is left untyped: there a failing operation is what
// the program tests for (as for destructuring, docs/check.md).

// paramHint is what a closure literal's unannotated parameters are
// called with, by position (nil: nothing known).
type paramHint struct {
	types    []types.Type
	declared bool // the types are the program's (nil safety applies)
}

// elemCallbacks are the collection methods whose callback receives each
// element, by the callback's argument index (`reduce(init, f)` passes
// the accumulator first).
var elemCallbacks = map[string]int{
	"map": 0, "filter": 0, "find": 0, "find_index": 0, "any": 0, "all": 0, "every": 0, "none": 0,
	"flat_map": 0, "count_by": 0, "group_by": 0, "partition": 0, "take_while": 0, "drop_while": 0,
	"skip_while": 0, "sort_by": 0, "sorted_by": 0, "min_by": 0, "max_by": 0, "for_each": 0,
	"reduce": 1,
}

// dictCallbacks are the dict methods whose callback receives each value
// (true) or each key (false): docs/spec/builtins.md §3.8.
var dictCallbacks = map[string]bool{
	"filter": true, "map_values": true,
	"map_keys": false, "rekey": false, "rekeyed": false,
}

// listFnCallbacks are the free collection functions `f(list, callback)`
// (docs/spec/builtins.md §3.7, docs/spec/newer.md §2.9).
var listFnCallbacks = map[string]bool{
	"group_by": true, "partition": true, "dedup_by": true, "flat_map": true,
	"count_by": true, "take_while": true, "drop_while": true,
}

// hintMethodCallbacks types the callback of `recv.name(…)` from recv's
// elements, values or keys.
func (c *checker) hintMethodCallbacks(e *syntax.MethodCall, recv types.Type) {
	switch r := types.Underlying(types.RemoveNil(recv)).(type) {
	case *types.Named, *types.TypeParam:
		// an impl method's `fn(…)` parameters, after the instance (of a
		// struct or an enum: docs/spec/language.md §10.3), or those of a
		// method an interface declares; a method with type parameters of
		// its own is hintGenericMethodArg's
		if n, m, ok := c.methodOwner(recv, e.Name); ok && !hasSpread(e.Args) {
			if mt := instanceMethod(n, m.Type); mt != nil && len(mt.Params) > 0 && mt.Params[0].Name == "self" {
				for i, p := range mt.Params[1:] {
					if pf, ok := types.Underlying(p.Type).(*types.Func); ok && i < len(e.Args) && !p.Rest && concrete(pf) {
						c.hintFn(e.Args[i], pf)
					}
				}
			}
		}
	case *types.List, *types.Tuple, *types.Set, *types.Iter:
		if at, ok := elemCallbacks[e.Name]; ok && at < len(e.Args) {
			params := []types.Type{elemType(r)}
			if e.Name == "reduce" {
				params = []types.Type{nil, params[0]}
			}
			c.hintClosure(e.Args[at], e.X, params)
		}
	case *types.Basic:
		// a range's other methods lift it into an iterator of its ints
		// (docs/spec/builtins.md §3.10): `(1 to n).map(f)` calls f with ints
		if at, ok := elemCallbacks[e.Name]; ok && r == types.Range && at < len(e.Args) {
			params := []types.Type{types.Int}
			if e.Name == "reduce" {
				params = []types.Type{nil, types.Int}
			}
			c.hintClosure(e.Args[at], e.X, params)
		}
	case *types.Dict, *types.Shape:
		if t := dictCallbackParam(e.Name, r); t != nil && len(e.Args) == 1 {
			c.hintClosure(e.Args[0], e.X, []types.Type{t})
		}
	}
}

// dictCallbackParam is what the callback of the dict method name
// (dictCallbacks) is called with on the dict or shape r: each value, or
// each key; nil when it is no such method or an open shape's values are
// not all known.
func dictCallbackParam(name string, r types.Type) types.Type {
	value, ok := dictCallbacks[name]
	if !ok {
		return nil
	}
	if !value {
		return types.String // keys are strings (docs/spec/builtins.md §3.8)
	}
	if sh, isShape := r.(*types.Shape); isShape && sh.Open {
		return nil // values of fields it does not list
	}
	return elemType(r).(*types.Shape).Fields[1].Type // the value of a {key, value} entry
}

// hintClosure records the parameter types a closure literal arg is
// called with, taken from the collection src holds.
func (c *checker) hintClosure(arg, src syntax.Expr, params []types.Type) {
	cl, ok := arg.(*syntax.ClosureLit)
	if !ok || c.caught() {
		return
	}
	declared := true
	for _, t := range params {
		if t != nil && !c.declaredElems(src, t) {
			declared = false
		}
	}
	h := paramHint{declared: declared}
	for _, t := range params {
		if t != nil && !declared {
			t = bindingType(t)
		}
		h.types = append(h.types, t)
	}
	c.paramHints[cl] = h
}

// hintedParam is the type a closure's unannotated parameter i takes from
// its call site, and whether it is the program's; nil when none.
func (c *checker) hintedParam(node syntax.Node, i int) (types.Type, bool) {
	cl, ok := node.(*syntax.ClosureLit)
	if !ok {
		return nil, false
	}
	h, ok := c.paramHints[cl]
	if !ok || i >= len(h.types) {
		return nil, false
	}
	switch t := h.types[i]; t.(type) {
	case nil:
		return nil, false
	case *types.TypeParam:
		// an element of a generic function's list<T>: the methods its
		// bound declares (docs/spec/newer.md §3.6), as in a loop over it
		return t, false
	default:
		if !known(t) && t != types.Unknown {
			return nil, false
		}
		return t, h.declared
	}
}

// hintCallArg types a closure literal given as argument i of the call e
// (ref resolves its name; args holds the types of the arguments before
// it): a free collection function's callback from the list before it,
// a function of the file or of an import from its `fn(…)` parameter,
// with the type parameters the arguments before it bind put in.
func (c *checker) hintCallArg(e *syntax.CallExpr, ref *resolve.Ref, i int, args []types.Type) {
	cl, ok := e.Args[i].(*syntax.ClosureLit)
	if !ok || ref == nil || hasSpread(e.Args) || c.caught() {
		return
	}
	if ref.Binding == nil {
		if ref.Scope == resolve.Universal && i == 1 && listFnCallbacks[e.Fn.Name] && len(e.Args) == 2 {
			switch r := types.Underlying(args[0]).(type) {
			case *types.List, *types.Tuple:
				c.hintClosure(cl, e.Args[0], []types.Type{elemType(r)})
			}
		}
		return
	}
	var sig *types.Func
	switch b := ref.Binding; {
	case ref.Scope == resolve.Hidden || c.multiDecl[b.Name] && b.Scope == resolve.Global:
		return
	case b.Kind == resolve.KFn:
		if fn, ok := b.Decl.(*syntax.FnDecl); ok {
			sig = c.sig(fn)
		}
	case b.Kind == resolve.KImport && c.importRef(ref, false):
		if f := c.imported("", e.Fn.Name); f != nil {
			sig = f.sig
		}
	}
	c.hintSigArg(cl, e.TypeArgs, e.Args, i, args, sig)
}

// hintNamespaceArg types a closure literal given as argument i of
// `ns.f(…)`, f a function a namespace import binds, as hintCallArg does
// for a call by name.
func (c *checker) hintNamespaceArg(e *syntax.MethodCall, i int, args []types.Type) {
	cl, ok := e.Args[i].(*syntax.ClosureLit)
	id, ok2 := e.X.(*syntax.Ident)
	if !ok || !ok2 || e.Optional || hasSpread(e.Args) || c.caught() || c.multiDecl[id.Name] || !c.importRef(c.info.Refs[id], true) {
		return
	}
	if f := c.imported(id.Name, e.Name); f != nil {
		c.hintSigArg(cl, nil, e.Args, i, args, f.sig)
	}
}

// hintGenericMethodArg types a closure literal given as argument i of an
// impl method with type parameters of its own (`c.map({ s -> … })` with
// `fn map<U>(self, f: fn(T) -> U) -> Cell<U>`), as hintCallArg does for a
// generic function: the receiver's type arguments put in for the
// struct's or enum's, and the method's own that the arguments before it
// (types args) bind.
func (c *checker) hintGenericMethodArg(e *syntax.MethodCall, recv types.Type, i int, args []types.Type) {
	cl, ok := e.Args[i].(*syntax.ClosureLit)
	if !ok || hasSpread(e.Args) || c.caught() {
		return
	}
	n, m, ok := c.methodOwner(recv, e.Name)
	if !ok || len(m.Type.TypeParams) == 0 || len(m.Type.Params) == 0 || m.Type.Params[0].Name != "self" {
		return
	}
	sig := m.Type
	if len(n.Decl.TypeParams) > 0 {
		if len(n.Args) != len(n.Decl.TypeParams) {
			return
		}
		sig = types.Subst(sig, n.Decl.Instance(n.Args)).(*types.Func)
	}
	inst := *sig
	inst.Params = sig.Params[1:]
	c.hintSigArg(cl, nil, e.Args, i, args, &inst)
}

// methodOwner finds the declaration of method name called on a value of
// type recv: a struct or an enum with an impl method of that name, an
// interface declaring it, or, for a type parameter, the interface
// bounding it that declares it (the bound is all the program knows it
// has).
func (c *checker) methodOwner(recv types.Type, name string) (*types.Named, types.Method, bool) {
	recv = types.RemoveNil(recv)
	if tp, ok := recv.(*types.TypeParam); ok {
		if recv = c.boundDeclaring(tp, name); recv == nil {
			return nil, types.Method{}, false
		}
	}
	n, ok := types.Underlying(recv).(*types.Named)
	if !ok || !hasMethodsDecl(n.Decl) && n.Decl.Kind != types.InterfaceDecl {
		return nil, types.Method{}, false
	}
	m, ok := n.Decl.Method(name)
	return n, m, ok
}

// streamCallbacks are the `stream.*` operators whose callback receives
// each element of the source stream, their first argument, by the
// callback's argument index; `fold` and `scan` pass the accumulator
// first (docs/builtins.md, `stream.fold(s, init, f)`).
var streamCallbacks = map[string]int{"map": 1, "filter": 1, "take_until": 1, "tap": 1, "fold": 2, "scan": 2}

// hintStreamArg types a closure literal given as argument i of a
// `stream.*` operator from the elements of its source (args holds the
// types of the arguments before it), as a list method's callback is.
func (c *checker) hintStreamArg(e *syntax.MethodCall, i int, args []types.Type) {
	if at, ok := c.streamOp(e); !ok || i != at {
		return
	}
	switch r := types.Underlying(types.RemoveNil(args[0])).(type) {
	case *types.List, *types.Tuple, *types.Set, *types.Iter:
		params := []types.Type{elemType(r)}
		if i == 2 {
			params = []types.Type{nil, params[0]}
		}
		c.hintClosure(e.Args[i], e.Args[0], params)
	}
}

// streamOp reports a call of a `stream.*` operator taking a callback (the
// global `stream`, not shadowed) and the callback's argument index.
func (c *checker) streamOp(e *syntax.MethodCall) (int, bool) {
	id, ok := e.X.(*syntax.Ident)
	at, ok2 := streamCallbacks[e.Name]
	if !ok || !ok2 || id.Name != "stream" || e.Optional || hasSpread(e.Args) {
		return 0, false
	}
	ref := c.info.Refs[id]
	return at, ref != nil && ref.Scope == resolve.Universal
}

// streamCallbackFits is callbackParamFits for the `stream.*` operators:
// `stream.map(xs, { x: string -> … })` over a `list<int>` fails on the
// first element (`fold` and `scan` pass the accumulator first).
func (c *checker) streamCallbackFits(e *syntax.MethodCall, args []types.Type) {
	at, ok := c.streamOp(e)
	if !ok || at >= len(args) || c.caught() {
		return
	}
	switch r := types.Underlying(types.RemoveNil(args[0])).(type) {
	case *types.List, *types.Tuple, *types.Set, *types.Iter:
		c.callbackTakes("`stream."+e.Name+"()`", e.Args[at], args[at], at-1, elemType(r))
	}
}

// hintSigArg types the closure literal cl, argument i of a call of a
// function of signature sig, from its `fn(…)` parameter, with the type
// parameters the arguments before it (types args) bind put in.
func (c *checker) hintSigArg(cl *syntax.ClosureLit, typeArgs []syntax.TypeExpr, exprs []syntax.Expr, i int, args []types.Type, sig *types.Func) {
	if sig == nil || i >= len(sig.Params) || sig.Params[i].Rest {
		return
	}
	pt := sig.Params[i].Type
	if len(sig.TypeParams) > 0 {
		pt = types.Subst(pt, c.instantiate(typeArgs, sig, exprs[:i], args))
	}
	if pf, ok := types.Underlying(pt).(*types.Func); ok {
		c.hintFnClosure(cl, pf, pt == sig.Params[i].Type)
	}
}

// hintFnClosure records what the closure literal cl going where the fn
// type pf is expected is called with; declared says pf is as the program
// wrote it (not with type parameters the arguments bound, which
// instantiate widened). A closure that needs more arguments than pf
// passes is left untyped: it does not fit at all, and is reported with
// the parameters it declares (docs/spec/newer.md §3.4).
func (c *checker) hintFnClosure(cl *syntax.ClosureLit, pf *types.Func, declared bool) {
	if min, _ := c.env.Signature(cl.Params, nil, nil, nil).Arity(); min > len(pf.Params) {
		return
	}
	h := paramHint{declared: declared}
	for _, p := range pf.Params {
		t := p.Type
		if p.Rest || !concrete(t) {
			t = nil
		}
		h.types = append(h.types, t)
	}
	c.paramHints[cl] = h
}

// expectFn types the parameters of a closure literal x going where the
// program declared the fn type want (an annotated binding, a typed
// function's result, a struct field): `let f: fn(int) -> string = { n ->
// … }` gives n an int.
func (c *checker) expectFn(x syntax.Expr, want types.Type) {
	if want == nil {
		return
	}
	switch w := types.Underlying(want).(type) {
	case *types.Func:
		c.hintFn(x, w)
	case *types.List:
		// `let rules: list<Rule> = [{ s -> … }]`: each closure of the
		// literal goes where a Rule is expected
		if l, ok := x.(*syntax.ListLit); ok {
			for _, el := range l.Elems {
				c.expectFn(el, w.Elem)
			}
		}
	case *types.Dict:
		if d, ok := x.(*syntax.DictLit); ok {
			for _, en := range d.Entries {
				if en.Value != nil {
					c.expectFn(en.Value, w.Value)
				}
			}
		}
	}
}

// hintFn types the parameters of a closure literal x from the declared
// fn type pf it goes to.
func (c *checker) hintFn(x syntax.Expr, pf *types.Func) {
	if cl, ok := x.(*syntax.ClosureLit); ok && !c.caught() {
		c.hintFnClosure(cl, pf, true)
	}
}

// hintedParams is a closure literal's parameters with the types its
// call site gives the unannotated ones (callbacks.go): `{ n -> n }`
// going where a fn(int) -> string is expected is a fn(int) -> int.
func (c *checker) hintedParams(cl *syntax.ClosureLit, params []types.Param) []types.Param {
	if _, ok := c.paramHints[cl]; !ok {
		return params
	}
	out := append([]types.Param(nil), params...)
	for i := range out {
		if i >= len(cl.Params) || cl.Params[i].Type != nil || out[i].Rest {
			continue
		}
		if t, _ := c.hintedParam(cl, i); t != nil {
			out[i].Type = t
		}
	}
	return out
}

// callbackParamFits reports a callback of a collection method — a
// closure literal or a function value alike — whose annotated parameter
// cannot take what it will be called with: `xs.filter(is_even)` with `fn
// is_even(n: int)` over a `list<string>` fails on the first element at
// run time, as does `d.map_values({ v: string -> v })` over a
// `dict<string, int>`. A parameter left untyped, typed `any` or by a type
// parameter, and elements the checker does not know, are left alone.
func (c *checker) callbackParamFits(e *syntax.MethodCall, recv types.Type, args []types.Type) {
	if e.Optional || hasSpread(e.Args) || c.caught() {
		return
	}
	label := "`." + e.Name + "()`"
	switch r := types.Underlying(types.RemoveNil(recv)).(type) {
	case *types.List, *types.Tuple, *types.Set, *types.Iter:
		if at, ok := elemCallbacks[e.Name]; ok && at < len(args) {
			// the element is argument at of the callback too (`reduce`
			// passes the accumulator first)
			c.callbackTakes(label, e.Args[at], args[at], at, elemType(r))
		}
	case *types.Dict, *types.Shape:
		if len(args) == 1 {
			c.dictCallbackArity(label, e.Name, e.Args[0])
		}
		if t := dictCallbackParam(e.Name, r); t != nil && len(args) == 1 {
			c.callbackTakes(label, e.Args[0], args[0], 0, t)
		}
	}
}

// dictCallbackArity warns about a closure literal given to a dict's
// `.filter`, `.map_values`, `.map_keys`, `.rekey` or `.rekeyed` with a
// second parameter: those pass one argument, the value or the key
// (docs/spec/builtins.md §3.8), so `d.filter({ k, v -> v > 1 })` binds
// the value to `k` and nil to `v` and quietly keeps nothing. The run
// proceeds as upstream's does (the callback is called with one
// argument); the references give no wording, this is ours.
func (c *checker) dictCallbackArity(label, name string, arg syntax.Expr) {
	value, ok := dictCallbacks[name]
	cl, isClosure := arg.(*syntax.ClosureLit)
	if !ok || !isClosure || len(cl.Params) < 2 {
		return
	}
	extra := cl.Params[1]
	if extra.Rest || extra.Default != nil {
		return
	}
	what := "value"
	if !value {
		what = "key"
	}
	c.warnf(arg.Position(), "callback of %s takes %d parameters, but a dict's %s passes only each %s: `%s` is always nil", label, len(cl.Params), label, what, extra.Name)
}

// listFnCallbackFits is callbackParamFits for the free collection
// functions `f(list, callback)` (listFnCallbacks): `group_by(xs, { n:
// string -> … })` over a `list<int>`.
func (c *checker) listFnCallbackFits(e *syntax.CallExpr, args []types.Type) {
	if !listFnCallbacks[e.Fn.Name] || len(args) != 2 || hasSpread(e.Args) || c.caught() {
		return
	}
	switch r := types.Underlying(types.RemoveNil(args[0])).(type) {
	case *types.List, *types.Tuple:
		c.callbackTakes("`"+e.Fn.Name+"()`", e.Args[1], args[1], 0, elemType(r))
	}
}

// callbackTakes reports the callback arg (of type ft) of the collection
// operation label when its parameter at cannot take elem, what it is
// called with there.
func (c *checker) callbackTakes(label string, arg syntax.Expr, ft types.Type, at int, elem types.Type) {
	f, ok := types.Underlying(ft).(*types.Func)
	if !ok || at >= len(f.Params) {
		return
	}
	p := f.Params[at]
	if p.Rest || !known(elem) || !known(p.Type) || types.AssignableTo(elem, p.Type) {
		return
	}
	context := fmt.Sprintf("callback of %s, parameter `%s`", label, p.Name)
	if p.Name == "" {
		context = fmt.Sprintf("callback of %s, parameter %d", label, at+1)
	}
	// the format of c.mismatch, without its conversion advice: the
	// callback is what would have to change
	c.report(sevError, arg.Position(), "HARN-TYP-007", "", fmt.Sprintf("%s: expected %s, found %s", context, p.Type, show(elem, p.Type)))
}

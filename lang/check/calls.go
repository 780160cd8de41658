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

// call checks `name(args)`. Unknown call targets are the resolver's
// business; here: arity warnings, argument types, `@deprecated`, struct
// constructors and the result types of known callees.
func (c *checker) call(e *syntax.CallExpr) types.Type {
	ref := c.info.Refs[e.Fn]
	for _, t := range e.TypeArgs {
		c.annotation(t, nil, nil) // `ident<list<int, int>>(x)`
	}
	args := make([]types.Type, len(e.Args))
	for i, a := range e.Args {
		c.hintCallArg(e, ref, i, args[:i])
		args[i] = c.expr(a)
	}
	if ref == nil {
		return types.Any
	}
	if b := ref.Binding; b != nil {
		if ref.Scope == resolve.Hidden || c.multiDecl[b.Name] && b.Scope == resolve.Global {
			return types.Any
		}
		switch b.Kind {
		case resolve.KFn:
			fn, ok := b.Decl.(*syntax.FnDecl)
			if !ok {
				return types.Any
			}
			return c.callFn(e, fn, args)
		case resolve.KPipeline:
			if p, ok := b.Decl.(*syntax.PipelineDecl); ok {
				return c.callFn(e, c.pipelineFn(p), args)
			}
		case resolve.KImport:
			if c.importRef(ref, false) {
				if f := c.imported("", e.Fn.Name); f != nil {
					return c.knownCall(e, e.At, e.TypeArgs, e.Args, args, callee{name: e.Fn.Name, decl: f.decl, sig: f.sig, imported: true})
				}
				// `Point({…})` of a struct a selective import binds
				if d := c.env.Lookup(e.Fn.Name); d != nil && d.Kind == types.StructDecl {
					return c.structCall(d, e.Args, args, e.At)
				}
				if !c.isBuiltin(e.Fn.Name) && c.importedConstCall("", e.Fn.Name, e.At) {
					return types.Any
				}
			}
		case resolve.KStruct:
			d := c.env.Lookup(b.Name)
			if d == nil || d.Kind != types.StructDecl || d.Node != b.Decl {
				return types.Any
			}
			return c.structCall(d, e.Args, args, e.At)
		}
		return c.localCall(e, args)
	}
	if ref.Scope == resolve.Universal {
		if e.Fn.Name == "unreachable" {
			c.unreachableCall(e.At)
		}
		if e.Fn.Name == "schema_expect" && len(e.Args) > 0 {
			c.validate(e.Args[0]) // it throws unless the value fits
		}
		if t, ok := decimalMath(e.Fn.Name, args); ok && !hasSpread(e.Args) {
			return t
		}
		c.builtinCall(e, args)
		c.listFnCallbackFits(e, args)
		if c.isPick(e) {
			return c.pickCall(e, args)
		}
		if c.schemaExpect(e) {
			// it returns the value when it fits the schema and throws
			// otherwise, so the value has the type the alias names
			return c.schemaAlias(e.Args[1])
		}
		if t := c.schemaResult(e); t != nil {
			return t
		}
		if e.Fn.Name == "set" && !hasSpread(e.Args) {
			if t := setResult(args); t != nil {
				return t
			}
		}
		if t := collectionFnResult(e.Fn.Name, e.Args, args); t != nil {
			return t
		}
		if sig, ok := c.librarySig("", e.Fn.Name); ok && sig.result != nil {
			return sig.result
		}
		return builtinResult(e.Fn.Name, e.Args, args)
	}
	return types.Any
}

// structCall checks the constructor call `Point({…})` of struct d (the
// file's, or one an import binds): the fields a dict literal argument
// gives, as a struct literal's are. It is a value of the struct.
//
// The constructor takes the fields as one dict: positional values
// (`Point(1, 2)`) or another kind of value build a struct with no field
// set, so they are warned about (docs/check.md).
func (c *checker) structCall(d *types.Decl, args []syntax.Expr, ts []types.Type, at syntax.Pos) types.Type {
	help := "give the fields as one dict, `" + d.Name + "({" + fieldHint(d) + "})`, or write a struct literal `" + d.Name + " { " + fieldHint(d) + " }`"
	switch {
	case len(args) > 1:
		c.report(sevWarning, at, "", help, fmt.Sprintf("the constructor `%s(…)` takes one dict of fields, not %d arguments", d.Name, len(args)))
	case len(args) == 1 && len(ts) == 1 && notFieldDict(ts[0]):
		c.report(sevWarning, args[0].Position(), "", help, fmt.Sprintf("the constructor `%s(…)` takes a dict of fields, not %s", d.Name, show(ts[0], nil)))
	}
	if len(args) == 1 {
		if dl, ok := args[0].(*syntax.DictLit); ok {
			given := c.structFields(d, dl.Entries, at)
			return &types.Named{Decl: d, Args: typeArgs(d, d.Fields, func(_ int, f types.Field) types.Type { return given[f.Name] })}
		}
	}
	return &types.Named{Decl: d}
}

// fieldHint lists d's first fields as `x: …, y: …` for a help line.
func fieldHint(d *types.Decl) string {
	var parts []string
	for i, f := range d.Fields {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, f.Name+": …")
	}
	return strings.Join(parts, ", ")
}

// notFieldDict reports whether a value of type t is surely no dict of
// fields: a scalar, a list or nil (a dict, shape, struct or anything
// dynamic may be one).
func notFieldDict(t types.Type) bool {
	if !known(t) {
		return false
	}
	switch t.(type) {
	case *types.Dict, *types.Shape, *types.Named:
		return false
	}
	return !compatible(t, &types.Dict{Key: types.String, Value: types.Any})
}

// builtinValueResult is the result the descriptor of a builtin named as
// a value (`x |> upper`, `xs.map(to_string)`) states for a call with one
// argument, or nil.
func (c *checker) builtinValueResult(name string) types.Type {
	if sig, ok := c.librarySig("", name); ok && sig.min <= 1 {
		return sig.result
	}
	return nil
}

// pipeArgument checks the left side of `x |> f`, f a function
// of the file or one an import binds (by name, or `ns.f`), as the first
// argument of a call `f(x)` (an imported generic one is left alone). It
// returns the type of the pipe: the result such a function declares
// (`-> int`, a generic one's instantiated), or that a builtin's descriptor
// states (`"a" |> upper` is a string), as `f(x)` has; any otherwise.
func (c *checker) pipeArgument(e *syntax.PipeExpr, xt types.Type) types.Type {
	var imp *importedFn
	switch f := e.F.(type) {
	case *syntax.Ident:
		ref := c.info.Refs[f]
		if ref != nil && ref.Scope == resolve.Universal {
			if r := c.builtinValueResult(f.Name); r != nil {
				return r
			}
			return types.Any
		}
		if ref == nil || ref.Binding == nil || ref.Scope == resolve.Hidden ||
			c.multiDecl[ref.Binding.Name] && ref.Binding.Scope == resolve.Global {
			return types.Any
		}
		if ref.Binding.Kind == resolve.KImport && c.importRef(ref, false) {
			imp = c.imported("", f.Name)
			break
		}
		if ref.Binding.Kind != resolve.KFn {
			return types.Any
		}
		fn, ok := ref.Binding.Decl.(*syntax.FnDecl)
		if !ok || len(fn.Params) == 0 {
			return types.Any
		}
		sig := c.sig(fn)
		exprs, args := []syntax.Expr{e.X}, []types.Type{xt}
		if len(fn.TypeParams) > 0 {
			// `3 |> id` with `fn id<T>(x: T) -> T` is the call `id(3)`,
			// instantiated from the piped value (docs/spec/newer.md §3.3)
			if fn.Params[0].Rest {
				return types.Any
			}
			bind := c.instantiate(nil, sig, exprs, args)
			c.arguments(exprs, args, sig, bind)
			c.constraints(e.At, sig, bind)
			if r := types.Subst(sig.Return, bind); fn.Return != nil && instResult(r) {
				return r
			}
			return types.Any
		}
		c.arguments(exprs, args, sig, nil)
		if fn.Return != nil && known(sig.Return) && concrete(sig.Return) {
			return sig.Return
		}
		return types.Any
	case *syntax.MemberExpr:
		id, ok := f.X.(*syntax.Ident)
		if !ok || f.Optional || c.multiDecl[id.Name] || !c.importRef(c.info.Refs[id], true) {
			return types.Any
		}
		imp = c.imported(id.Name, f.Name)
	}
	if imp == nil || len(imp.sig.TypeParams) > 0 || len(imp.sig.Params) == 0 {
		return types.Any
	}
	c.arguments([]syntax.Expr{e.X}, []types.Type{xt}, imp.sig, nil)
	return types.Any
}

func (c *checker) callFn(e *syntax.CallExpr, fn *syntax.FnDecl, args []types.Type) types.Type {
	return c.knownCall(e, e.At, e.TypeArgs, e.Args, args, callee{name: fn.Name, decl: fn, sig: c.sig(fn)})
}

// pipelineFn is pipeline p seen as the function a call to it runs: a
// typed pipeline is called like a function, and its arguments and result
// are checked (docs/spec/newer.md §1.13).
func (c *checker) pipelineFn(p *syntax.PipelineDecl) *syntax.FnDecl {
	fn, ok := c.pipeFns[p]
	if !ok {
		fn = &syntax.FnDecl{At: p.At, Attrs: p.Attrs, Name: p.Name, NamePos: p.NamePos,
			Params: p.Params, Return: p.Return, Throws: p.Throws, Body: p.Body}
		c.pipeFns[p] = fn
	}
	return fn
}

// callee is a function whose declaration the checker knows: one of the
// file's, or one an import binds.
type callee struct {
	name string // as the call writes it: `f`, or `ns.f` for a namespace member
	decl *syntax.FnDecl
	sig  *types.Func
	// imported: declared in another module, so a `...rest` parameter
	// binds one argument and extra arguments are not reported (§9.2).
	imported bool
}

// knownCall checks the call expression call (a name call or a namespace
// member call) of a known callee: @deprecated, arity, argument types,
// generic instantiation, and gives the result type.
func (c *checker) knownCall(call syntax.Expr, at syntax.Pos, typeArgs []syntax.TypeExpr, exprs []syntax.Expr, args []types.Type, k callee) types.Type {
	sig := k.sig
	c.deprecated(k.decl, at)
	if len(typeArgs) > 0 && len(typeArgs) != len(sig.TypeParams) {
		// as for a generic type applied to the wrong number of
		// arguments (typeargs.go): `id<int, string>(1)`, `one<int>(1)`
		c.errorf(at, "function `%s` expects %d type argument(s), found %d", k.name, len(sig.TypeParams), len(typeArgs))
	}
	if hasSpread(exprs) {
		return c.result(sig)
	}
	min, max := sig.Arity()
	if k.imported && variadic(k.decl) {
		max = -1
	}
	c.arity(k.name, at, len(exprs), min, max)
	bind := c.instantiate(typeArgs, sig, exprs, args)
	c.arguments(exprs, args, sig, bind)
	if bind != nil {
		c.constraints(at, sig, bind)
		if r := types.Subst(sig.Return, bind); instResult(r) {
			if tp, ok := sig.Return.(*types.TypeParam); ok && len(typeArgs) == 0 && inferredTwice(sig, tp) {
				_, isUnion := r.(*types.Union)
				c.joined[call] = isUnion
			}
			return r
		}
		return types.Any
	}
	return c.result(sig)
}

// variadic reports whether fn's last parameter is `...name`.
func variadic(fn *syntax.FnDecl) bool {
	return len(fn.Params) > 0 && fn.Params[len(fn.Params)-1].Rest
}

// arguments checks each argument against its parameter of sig, with
// type parameters replaced by their bindings in bind.
func (c *checker) arguments(exprs []syntax.Expr, args []types.Type, sig *types.Func, bind map[*types.TypeParam]types.Type) {
	for i, p := range sig.Params {
		if i >= len(args) {
			break
		}
		pt := types.Subst(p.Type, bind)
		last := i + 1
		if p.Rest {
			// each rest argument is checked against the element type,
			// written `...xs: T` (or `...xs: list<T>`)
			last = len(args)
			if l, ok := pt.(*types.List); ok {
				pt = l.Elem
			}
		}
		for j := i; j < last; j++ {
			context := fmt.Sprintf("argument %d", j+1)
			if p.Name != "" {
				context += " `" + p.Name + "`"
			}
			switch {
			case c.unknownInto(exprs[j], args[j], pt, context):
			case c.unknownBound(exprs[j], args[j], p.Type, context):
			case c.checkable(args[j]) && known(pt) && !c.fits(exprs[j], args[j], pt):
				c.mismatch(exprs[j], context, pt, args[j])
			case c.rigidParam(pt) && concreteValue(args[j]):
				// a parameter typed by a type parameter of the code being
				// checked (`self.push(1)` in an impl of Stack<T>): the
				// caller of that code chooses it (docs/spec/newer.md §3.3)
				c.mismatch(exprs[j], context, pt, args[j])
			default:
				c.optionBag(exprs[j], pt, context)
			}
		}
		if p.Rest {
			return
		}
	}
}

// plainRest returns params with a trailing `...name` parameter turned into
// an ordinary one of its element type: in impl methods (and closures) a
// rest parameter binds the single argument at its position, not a list
// (docs/spec/language.md §9.2).
func plainRest(params []types.Param) []types.Param {
	n := len(params)
	if n == 0 || !params[n-1].Rest {
		return params
	}
	out := append([]types.Param(nil), params...)
	last := &out[n-1]
	last.Rest = false
	last.Optional = true
	if l, ok := last.Type.(*types.List); ok {
		last.Type = l.Elem
	}
	return out
}

// localCall checks `name(args)` where name is a variable or parameter:
// the innermost binding owns the call (docs/spec/newer.md §1.11), so a
// known non-callable value is an error and a `fn(...)` value has its
// arguments checked. A name that is also a builtin is left alone: a
// non-closure value does not shadow the builtin (docs/spec/language.md §9.2).
func (c *checker) localCall(e *syntax.CallExpr, args []types.Type) types.Type {
	if c.isBuiltin(e.Fn.Name) {
		return types.Any
	}
	callee := c.expr(e.Fn)
	if kind := notCallable(callee); kind != "" {
		c.errorf(e.At, "cannot call %s: a value of type `%s` is not callable", kind, show(callee, nil))
		return types.Any
	}
	sig, ok := types.Underlying(types.RemoveNil(callee)).(*types.Func)
	if !ok || len(sig.TypeParams) > 0 || len(e.TypeArgs) > 0 {
		return types.Any
	}
	if !hasSpread(e.Args) {
		// a function-typed value (a parameter `f: fn(int) -> int`, an
		// annotated binding, a closure held in a binding) has the arity of
		// a `fn` (docs/spec/newer.md §3.4)
		min, max := sig.Arity()
		c.arity(e.Fn.Name, e.At, len(e.Args), min, max)
		c.arguments(e.Args, args, sig, nil)
	}
	return c.result(sig)
}

// arity warns of a call of name with n arguments where the callee takes
// min to max (max < 0: no limit): extra arguments are dropped at run
// time, missing ones bound to nil (docs/spec/newer.md §3.4).
func (c *checker) arity(name string, at syntax.Pos, n, min, max int) {
	if n < min || max >= 0 && n > max {
		c.warnf(at, "Function '%s' expects %s, got %d", name, arityText(min, max, n), n)
	}
}

// isBuiltin reports whether name is a builtin function: a call of a name
// bound to a value that is not a closure calls the builtin of that name
// (docs/spec/language.md §9.2).
func (c *checker) isBuiltin(name string) bool {
	if c.lib == nil {
		return false
	}
	_, builtin := c.lib.BuiltinSig(name)
	return builtin
}

// valueCall checks `callee(args)` where the callee is an expression
// (docs/spec/newer.md §1.11): the callee and the arguments are checked,
// and a callee of a known non-generic `fn(...)` type has its arguments
// checked and gives its declared result. A callee written as a path
// (`(obj.f)(1, 2)` with a field `f: fn(int) -> int`) has its arity
// checked as a function-typed binding's is (valueArity); other callees
// leave it to the run time.
func (c *checker) valueCall(e *syntax.ValueCall) types.Type {
	callee := c.expr(e.Fn)
	args := make([]types.Type, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
	}
	if kind := notCallable(callee); kind != "" {
		// the run-time error starts the same way (`cannot call int`); a
		// literal callee (`(1)(2)`) is named by its type, as in mismatches
		c.errorf(e.At, "cannot call %s: a value of type `%s` is not callable", kind, show(callee, nil))
		return types.Any
	}
	// a nilable callee (`xs[0]`) fails at run time when nil; its
	// arguments are still checked against the fn type
	sig, ok := types.Underlying(types.RemoveNil(callee)).(*types.Func)
	if !ok || len(sig.TypeParams) > 0 {
		return types.Any
	}
	if !hasSpread(e.Args) {
		if name := pathText(e.Fn, ""); name != "" {
			min, max := sig.Arity()
			c.arity(name, e.At, len(e.Args), min, max)
		}
		c.arguments(e.Args, args, sig, nil)
	}
	return c.result(sig)
}

// notCallable names the kind of a type whose values can never be called
// (numbers, strings, bools, nil, lists, dicts), or is "".
func notCallable(t types.Type) string {
	switch k := types.KindName(t); k {
	case "int", "float", "string", "bool", "nil", "list", "dict":
		return k
	}
	return ""
}

// optionBag rejects a key of a dict literal that an option-bag parameter
// (a closed shape whose fields are all optional, also when the parameter
// may be nil: `options: {drop_nil?: bool}? = nil`) does not declare: the
// option would be silently ignored (docs/spec/newer.md §3.4). Shapes with a
// required field keep width subtyping.
func (c *checker) optionBag(arg syntax.Expr, pt types.Type, context string) {
	lit, ok := arg.(*syntax.DictLit)
	if pt != types.Nil {
		pt = types.RemoveNil(pt)
	}
	sh, ok2 := types.Underlying(pt).(*types.Shape)
	if !ok || !ok2 || sh.Open || len(sh.Fields) == 0 {
		return
	}
	names := make([]string, len(sh.Fields))
	for i, f := range sh.Fields {
		if !f.Optional {
			return
		}
		names[i] = f.Name
	}
	for _, en := range lit.Entries {
		if en.KeyExpr != nil || en.Spread != nil {
			continue
		}
		if _, ok := sh.Field(en.KeyName); ok {
			continue
		}
		msg := context + ": unknown option `" + en.KeyName + "`"
		help := "known options: " + strings.Join(names, ", ")
		if s := diag.Suggest(en.KeyName, names); s != "" {
			msg += " — did you mean `" + s + "`?"
		}
		c.report(sevError, en.At, "HARN-TYP-007", help, msg)
	}
}

// result is what calling a function with signature sig yields.
func (c *checker) result(sig *types.Func) types.Type {
	if len(sig.TypeParams) > 0 || !known(sig.Return) {
		return types.Any
	}
	return sig.Return
}

// deprecated warns at a call of a function marked @deprecated (§10.5).
func (c *checker) deprecated(fn *syntax.FnDecl, pos syntax.Pos) {
	for _, a := range fn.Attrs {
		if a.Name != "deprecated" {
			continue
		}
		var since, use string
		for _, arg := range a.Args {
			s, ok := stringArg(arg.Value)
			if !ok {
				continue
			}
			switch arg.Name {
			case "since":
				since = s
			case "use":
				use = s
			}
		}
		msg := "`" + fn.Name + "` is deprecated"
		if since != "" {
			msg += " (since " + since + ")"
		}
		help := ""
		if use != "" {
			help = "use `" + use + "` instead"
		}
		c.report(sevWarning, pos, "", help, msg)
	}
}

func stringArg(e syntax.Expr) (string, bool) {
	switch e := e.(type) {
	case *syntax.StringLit:
		return e.Value, true
	case *syntax.IntLit:
		return fmt.Sprint(e.Value), true
	case *syntax.FloatLit:
		return fmt.Sprint(e.Value), true
	case *syntax.Ident:
		return e.Name, true
	}
	return "", false
}

// builtinResult types the builtins whose result depends on their
// arguments' types (a Result's sides, a tuple's slots). A fixed result is
// stated by the builtin's descriptor signature (`len(v) -> int`), which
// the caller reads first; every other builtin returns any.
func builtinResult(name string, args []syntax.Expr, at []types.Type) types.Type {
	arg := func() types.Type {
		if len(at) == 1 && !hasSpread(args) {
			return types.Widen(at[0])
		}
		return types.Any
	}
	switch name {
	case "Ok":
		return &types.Result{Ok: arg(), Err: types.Any}
	case "Err":
		return &types.Result{Ok: types.Any, Err: arg()}
	case "unwrap", "unwrap_err", "unwrap_or":
		if t := unwrapResult(name, args, at); t != nil {
			return t
		}
	case "tuple": // docs/spec/newer.md §2.3
		if len(at) > 0 && !hasSpread(args) {
			return &types.Tuple{Elems: widenAll(at)}
		}
	}
	return types.Any
}

// collectionFnResult is the type of a free collection function's call
// whose result follows from its first argument's type, or nil: the
// items a list function keeps (`take_while`, `drop_while`, `unique`,
// `dedup_by`) are the list's, `values(d)` gives d's values, `to_list(s)`
// a set's items, `count_by` a dict of ints and `group_by` a dict of lists
// of the items (docs/spec/builtins.md §3.7, docs/spec/newer.md §2.6,
// §2.9), and `clone`/`deep_clone` a value of their argument's type
// (docs/spec/newer.md §2.5).
func collectionFnResult(name string, args []syntax.Expr, at []types.Type) types.Type {
	if len(at) == 0 || hasSpread(args) || !known(at[0]) {
		return nil
	}
	switch a := types.Underlying(at[0]).(type) {
	case *types.List:
		switch name {
		case "take_while", "drop_while", "dedup_by":
			if len(at) == 2 {
				return &types.List{Elem: a.Elem}
			}
		case "unique":
			if len(at) == 1 {
				return &types.List{Elem: a.Elem}
			}
		case "count_by":
			if len(at) == 2 {
				return &types.Dict{Key: types.String, Value: types.Int}
			}
		case "group_by":
			if len(at) == 2 {
				return &types.Dict{Key: types.String, Value: &types.List{Elem: a.Elem}}
			}
		}
	case *types.Dict:
		if name == "values" && len(at) == 1 {
			return &types.List{Elem: a.Value}
		}
	case *types.Set:
		if name == "to_list" && len(at) == 1 {
			return &types.List{Elem: a.Elem}
		}
	}
	if name == "iter" && len(at) == 1 {
		if t := iterOver(at[0]); t != nil {
			return t
		}
	}
	if (name == "clone" || name == "deep_clone") && len(at) == 1 {
		return types.Widen(at[0])
	}
	return nil
}

// setResult is the type of `set(args…)` when every item it gets is an
// int, float, string or bool: each list or set argument gives its items,
// any other argument is one item (docs/spec/builtins.md `set(...args)`),
// so `set("a")` is a set<string>. Nil (a plain set) otherwise.
func setResult(at []types.Type) types.Type {
	if len(at) == 0 {
		return nil
	}
	var elems []types.Type
	for _, t := range at {
		switch u := types.Underlying(t).(type) {
		case *types.List:
			t = u.Elem
		case *types.Set:
			t = u.Elem
		}
		t = types.Widen(t)
		switch t {
		case types.Int, types.Float, types.String, types.Bool:
			elems = append(elems, t)
		default:
			return nil
		}
	}
	return &types.Set{Elem: types.NewUnion(elems...)}
}

// unwrapResult is the type of `unwrap(r)` (r's Ok type), `unwrap_err(r)`
// (its Err type) and `unwrap_or(r, d)` (the Ok type or d's) for an r of
// type Result<T, E> whose side is known (docs/spec/builtins.md §3.3); nil
// otherwise (the helpers take other values too).
func unwrapResult(name string, args []syntax.Expr, at []types.Type) types.Type {
	if len(at) == 0 || hasSpread(args) {
		return nil
	}
	r, ok := types.Underlying(at[0]).(*types.Result)
	if !ok {
		return nil
	}
	side := r.Ok
	if name == "unwrap_err" {
		side = r.Err
	}
	if !known(side) {
		return nil
	}
	switch {
	case name != "unwrap_or":
		return types.Widen(side)
	case len(at) == 2 && known(at[1]):
		return types.NewUnion(types.Widen(side), types.Widen(at[1]))
	}
	return nil
}

// widenAll is ts with each literal type widened (`"a"` to string).
func widenAll(ts []types.Type) []types.Type {
	out := make([]types.Type, len(ts))
	for i, t := range ts {
		out[i] = types.Widen(t)
	}
	return out
}

// methodCall checks `x.name(args)`: enum variant construction, or a
// method of a value (whose result is any unless a capability method's
// signature or an impl method's annotation says otherwise, or it changes
// a tuple's length: docs/spec/newer.md §2.3).
func (c *checker) methodCall(e *syntax.MethodCall) types.Type {
	if id, ok := e.X.(*syntax.Ident); ok && c.isEnumRef(id) {
		return c.variant(id.Name, e.Name, e.Args, e.At, true)
	}
	recv := c.expr(e.X)
	for _, t := range e.TypeArgs {
		c.annotation(t, nil, nil) // `xs.map<list<int, int>>(f)`
	}
	if !e.Optional {
		c.nilUse(e.X, recv, "method `"+e.Name+"`", e.At)
	}
	c.unknownUse(e.X, recv, "method call `."+e.Name+"()` on an `unknown` value will fail at runtime if the value has no such method", e.At)
	c.hintMethodCallbacks(e, recv)
	args := make([]types.Type, len(e.Args))
	for i, a := range e.Args {
		c.hintNamespaceArg(e, i, args[:i])
		c.hintStreamArg(e, i, args[:i])
		c.hintGenericMethodArg(e, recv, i, args[:i])
		args[i] = c.expr(a)
	}
	c.callbackParamFits(e, recv, args)
	c.streamCallbackFits(e, args)
	if id, ok := e.X.(*syntax.Ident); ok && !e.Optional && c.importRef(c.info.Refs[id], true) && !c.multiDecl[id.Name] {
		if f := c.imported(id.Name, e.Name); f != nil {
			return c.knownCall(e, e.At, e.TypeArgs, e.Args, args, callee{name: id.Name + "." + e.Name, decl: f.decl, sig: f.sig, imported: true})
		}
		// `ns.Point({…})`: the constructor of a struct the namespace
		// exports, checked and typed as `Point({…})` is.
		if d := c.env.Lookup(id.Name + "." + e.Name); d != nil && d.Kind == types.StructDecl {
			return c.structCall(d, e.Args, args, e.At)
		}
		if c.importedConstCall(id.Name, e.Name, e.At) || c.unknownNamespaceMember(id, e.Name, e.At, true) {
			return types.Any
		}
	}
	if t, ok := c.namespaceCall(e, args); ok {
		return t
	}
	if !e.Optional {
		recv = stringUnion(recv)
		c.valueMethod(e, recv, args)
		if tp, ok := types.Underlying(recv).(*types.Tuple); ok && !hasSpread(e.Args) {
			switch e.Name {
			case "reversed", "reverse":
				return tupleList(tp, nil)
			case "appending", "push":
				return tupleList(tp, widenAll(args))
			}
		}
		if t := c.builtinMethodResult(e, recv, args); t != nil {
			return t
		}
		// a capability method's descriptor may state its result
		// (`fs.read_text(path: string) -> string`)
		if h, ok := types.Underlying(recv).(*types.Handle); ok && !h.IsRoot() {
			if sig, ok := c.librarySig(h.Name, e.Name); ok && sig.result != nil {
				return sig.result
			}
		}
	} else {
		// `x?.m()` calls m on the non-nil part of x: an unknown method
		// there fails as `x.m()` would (docs/spec/newer.md §3.6)
		base := stringUnion(types.RemoveNil(recv))
		c.valueMethod(e, base, args)
		if t := c.builtinMethodResult(e, base, args); t != nil {
			// `s?.upper()`: the method's result, or nil when s is nil
			// (docs/spec/language.md §6.7)
			return types.Optional(t)
		}
	}
	// An impl method: its annotated parameters check the arguments (the
	// instance fills the first one), its annotated result is the call's
	// type (dict members, builtin methods and unknown names stay any).
	// Spread (`x.m(...args)`) and optional (`x?.m()`) calls find impls the
	// same way, so they get the same warning.
	if t := c.interfaceCall(e, recv, args); t != nil {
		return t
	}
	// A receiver that may be nil (`xs[0]` of a list of structs, `p?.m()`)
	// calls the method when it is not: nil safety reports the rest.
	// Enum impl methods are checked the same way (docs/spec/language.md §10.3).
	if n, ok := types.Underlying(types.RemoveNil(recv)).(*types.Named); ok && (n.Decl.Kind == types.StructDecl || n.Decl.Kind == types.EnumDecl) {
		if m, ok := n.Decl.Method(e.Name); ok {
			if !c.implVisible(e, n.Decl.Name) {
				if n.Decl.Kind == types.EnumDecl {
					return types.Any
				}
				c.report(sevWarning, e.At, "", "an impl is seen only by code in its scope created after it; move the `impl "+n.Decl.Name+"` block above the function that makes this call",
					"no `impl "+n.Decl.Name+"` is visible here, so `."+e.Name+"()` yields nil")
				return types.Nil
			}
			if !hasSpread(e.Args) {
				c.methodArity(e, n.Decl, m.Type)
				c.outerBounds(e, n)
			}
			if len(m.Type.TypeParams) > 0 {
				return c.genericMethodCall(e, n, m.Type, args, true)
			}
			c.methodTypeArgs(e, n.Decl.Name, m.Type)
			if mt := instanceMethod(n, m.Type); mt != nil {
				if len(mt.Params) > 0 && !hasSpread(e.Args) {
					sig := *mt
					sig.Params = plainRest(mt.Params[1:])
					c.arguments(e.Args, args, &sig, nil)
				}
				if known(mt.Return) && concrete(mt.Return) {
					if e.Optional {
						return types.Optional(mt.Return)
					}
					return mt.Return
				}
			}
		}
	}
	return types.Any
}

// stringUnion is string for a union whose members are all strings
// (`flag ? "a" : "b"`, `c ?? "x"` with `c: string?`, `"a" | "b"`): its
// methods are a string's. Any other type is returned as it is.
func stringUnion(t types.Type) types.Type {
	u, ok := types.Underlying(t).(*types.Union)
	if !ok {
		return t
	}
	for _, m := range u.Types {
		if types.KindName(m) != "string" {
			return t
		}
	}
	return types.String
}

// genericMethodCall checks a call of an impl or interface method with
// type parameters of its own (`fn fmap<U>(self, f: fn(T) -> U) -> list<U>`) as a call of
// a generic function is checked (docs/spec/newer.md §3.3): the struct's
// type arguments put in, the method's inferred from the arguments, its
// bounds checked, and the instantiated result is the call's type.
// The instance fills the first parameter when dropSelf says so.
func (c *checker) genericMethodCall(e *syntax.MethodCall, n *types.Named, sig *types.Func, args []types.Type, dropSelf bool) types.Type {
	if len(n.Decl.TypeParams) > 0 {
		if len(n.Args) != len(n.Decl.TypeParams) {
			return types.Any
		}
		sig = types.Subst(sig, n.Decl.Instance(n.Args)).(*types.Func)
	}
	if hasSpread(e.Args) {
		return types.Any
	}
	inst := *sig
	if dropSelf && len(sig.Params) > 0 {
		inst.Params = plainRest(sig.Params[1:])
	}
	c.methodTypeArgs(e, n.Decl.Name, sig)
	bind := c.instantiate(e.TypeArgs, &inst, e.Args, args)
	c.arguments(e.Args, args, &inst, bind)
	c.constraints(e.At, &inst, bind)
	r := types.Subst(inst.Return, bind)
	if !instResult(r) {
		return types.Any
	}
	if e.Optional {
		return types.Optional(r)
	}
	return r
}

// methodTypeArgs reports explicit type arguments (`b.fmap<string>(f)`)
// that do not match the type parameters of the impl or interface method
// sig of type typeName in number, as for a generic function
// (docs/spec/newer.md §3.3).
func (c *checker) methodTypeArgs(e *syntax.MethodCall, typeName string, sig *types.Func) {
	if len(e.TypeArgs) > 0 && len(e.TypeArgs) != len(sig.TypeParams) {
		c.errorf(e.At, "method `%s.%s` expects %d type argument(s), found %d", typeName, e.Name, len(sig.TypeParams), len(e.TypeArgs))
	}
}

// interfaceCall checks a call of a method an interface declares on a
// value of that interface type (`fn f(a: Animal) { a.name() }`): the
// arguments against its parameters and, when the signature says, the
// result. Nil when recv is no interface or does not declare the method.
func (c *checker) interfaceCall(e *syntax.MethodCall, recv types.Type, args []types.Type) types.Type {
	bounded := false
	if tp, ok := recv.(*types.TypeParam); ok {
		recv = c.boundDeclaring(tp, e.Name)
		bounded = tp.BoundArgs != nil
	}
	n, ok := types.Underlying(recv).(*types.Named)
	if !ok || n.Decl.Kind != types.InterfaceDecl || e.Optional || hasSpread(e.Args) {
		return nil
	}
	m, ok := n.Decl.Method(e.Name)
	if !ok {
		return nil
	}
	// the arity of the interface's signature, as for an impl method
	// (`Function 'Animal.speak' expects 1 argument, got 2`): every struct
	// satisfying the interface takes that many
	if ps := m.Type.Params; len(ps) > 0 && ps[0].Name == "self" {
		min, max := (&types.Func{Params: plainRest(ps[1:])}).Arity()
		c.arity(n.Decl.Name+"."+e.Name, e.At, len(e.Args), min, max)
	}
	if len(m.Type.TypeParams) > 0 {
		ps := m.Type.Params
		return c.genericMethodCall(e, n, m.Type, args, len(ps) > 0 && ps[0].Name == "self")
	}
	c.methodTypeArgs(e, n.Decl.Name, m.Type)
	mt := instanceMethod(n, m.Type)
	if mt == nil {
		return nil
	}
	sig := *mt
	if len(sig.Params) > 0 && sig.Params[0].Name == "self" {
		sig.Params = sig.Params[1:]
	}
	c.arguments(e.Args, args, &sig, nil)
	r := sig.Return
	_, isParam := r.(*types.TypeParam)
	if known(r) && concrete(r) || bounded && len(n.Args) > 0 && (isParam || known(r)) && c.inScope(r) {
		// a generic bound's type arguments are the calling function's
		// type parameters: `c.get(0)` of `C: Container<T>` is a T
		return sig.Return
	}
	return types.Any
}

// inScope reports whether every type parameter t mentions is one of the
// function being checked (or of a function around it).
func (c *checker) inScope(t types.Type) bool {
	scope := paramSet(c.typeParams())
	return !anyPart(t, func(t types.Type) bool {
		tp, ok := t.(*types.TypeParam)
		return ok && !scope[tp]
	})
}

// boundDeclaring is the interface bounding tp (`T: Repository`, `where
// T: A + B`) that declares method name, so that a call on a value of
// type T is checked and typed as on a value of that interface: the
// bound is all the program knows T has (docs/spec/newer.md §3.6, §3.9).
// Nil when no visible bound declares it.
func (c *checker) boundDeclaring(tp *types.TypeParam, name string) types.Type {
	for i, b := range tp.Bounds {
		d := c.env.Lookup(b)
		if i < len(tp.Interfaces) && tp.Interfaces[i] != nil {
			d = tp.Interfaces[i]
		}
		if d == nil || d.Kind != types.InterfaceDecl {
			continue
		}
		if _, ok := d.Method(name); ok {
			if i < len(tp.BoundArgs) && tp.BoundArgs[i] != nil {
				// `where C: Container<T>`: the bound's T is the function's
				return &types.Named{Decl: d, Args: tp.BoundArgs[i]}
			}
			return &types.Named{Decl: d}
		}
	}
	return nil
}

// instanceMethod is the signature of impl method sig called on a value of
// type n: the struct's type arguments put in for its type parameters
// (`Box<int>`'s `fn get(self) -> T` returns int). Nil for a generic
// method, or a generic struct whose type arguments are not known.
func instanceMethod(n *types.Named, sig *types.Func) *types.Func {
	if len(sig.TypeParams) > 0 {
		return nil
	}
	if len(n.Decl.TypeParams) == 0 {
		return sig
	}
	if len(n.Args) != len(n.Decl.TypeParams) {
		return nil
	}
	return types.Subst(sig, n.Decl.Instance(n.Args)).(*types.Func)
}

// methodArity warns about a call of an impl method with more or fewer
// arguments than the method takes after the instance, as for a known
// function (docs/spec/language.md §9.2), naming it as builtin methods
// are named (`Function 'Point.shift' expects 1 argument, got 2`). The
// method of the impl block the call sees counts; a `...rest` parameter
// takes one argument there.
func (c *checker) methodArity(e *syntax.MethodCall, d *types.Decl, sig *types.Func) {
	if b := c.seenImpl(e, d.Name); b != nil {
		for _, fn := range b.Methods {
			if fn.Name == e.Name {
				sig = c.env.MethodType(b, fn)
			}
		}
	}
	if len(sig.Params) == 0 {
		return
	}
	min, max := (&types.Func{Params: plainRest(sig.Params[1:])}).Arity()
	c.arity(d.Name+"."+e.Name, e.At, len(e.Args), min, max)
}

// outerBounds checks the `where` bounds an impl method puts on the type
// parameters of its struct or enum (`fn total(self) -> int where T:
// Sized` in `impl Shelf`) against the receiver's type arguments, as the
// bounds of a generic call are checked (docs/spec/newer.md §3.9): a
// `Shelf<int>` has no `total`. Bounds with type arguments of their own
// are left alone.
func (c *checker) outerBounds(e *syntax.MethodCall, n *types.Named) {
	if len(n.Decl.TypeParams) == 0 || len(n.Args) != len(n.Decl.TypeParams) {
		return
	}
	b := c.seenImpl(e, n.Decl.Name)
	if b == nil {
		return
	}
	for _, fn := range b.Methods {
		if fn.Name != e.Name {
			continue
		}
		own := map[string]bool{}
		for _, p := range fn.TypeParams {
			own[p.Name] = true
		}
		sig := &types.Func{}
		bind := map[*types.TypeParam]types.Type{}
		for _, w := range fn.Where {
			for i, sp := range n.Decl.TypeParams {
				if own[w.Param] || sp.Name != w.Param || !known(n.Args[i]) || !concrete(n.Args[i]) {
					continue
				}
				tp := &types.TypeParam{Name: w.Param}
				for j, bound := range w.Bounds {
					if j >= len(w.BoundArgs) || w.BoundArgs[j] == nil {
						tp.Bounds = append(tp.Bounds, bound)
					}
				}
				sig.TypeParams = append(sig.TypeParams, tp)
				bind[tp] = n.Args[i]
			}
		}
		if len(sig.TypeParams) > 0 {
			c.constraints(e.At, sig, bind)
		}
	}
}

// seenImpl returns the impl block of the file's struct name that the
// method call sees, nil when it sees none or the file has none
// (docs/spec/language.md §10.3).
func (c *checker) seenImpl(e *syntax.MethodCall, name string) *syntax.ImplBlock {
	for _, ref := range c.info.MethodImpls(e) {
		if ref.Struct == name {
			return ref.Block
		}
	}
	return nil
}

// implVisible reports whether the method call sees an impl of the
// file's struct named name: docs/spec/language.md §10.3 looks an impl up like a
// variable, so code created before the impl block finds none and the
// call yields nil. Structs of other modules are always answered.
func (c *checker) implVisible(e *syntax.MethodCall, name string) bool {
	for _, ref := range c.info.MethodImpls(e) {
		if ref.Struct == name {
			return ref.Block != nil
		}
	}
	return true
}

// ---- fn main (docs/spec/language.md §5.4) ----

const mainHelp = "rewrite as `fn main(harness: Harness) { ... }` — the runtime threads its capability handle through this single parameter"

// checkMain applies the entry signature rule (HARN-NAM-101) to a top-level
// `fn main` that takes parameters; a parameterless main is an ordinary
// function.
func (c *checker) checkMain(items []syntax.Stmt) {
	for _, it := range items {
		fn, ok := it.(*syntax.FnDecl)
		if !ok || fn.Name != "main" || len(fn.Params) == 0 {
			continue
		}
		if msg := mainProblem(fn); msg != "" {
			pos := fn.Params[0].At
			if len(fn.Params) > 1 {
				pos = fn.NamePos
			}
			c.report(sevError, pos, "HARN-NAM-101", mainHelp, msg)
			continue
		}
		if entry := entryPipeline(items); entry != nil {
			c.report(sevWarning, fn.NamePos, "", "declare `"+entry.Name+"` with `fn` (it is called the same way) so the file runs in script mode, or move main's body into the entry pipeline",
				"`main` is never called: a file that declares a `pipeline` runs in pipeline mode, and its entry is `"+entry.Name+"`")
		}
	}
}

// entryPipeline is the pipeline a file in pipeline mode runs: the one
// named default, else the first (docs/spec/language.md §5.3); nil when
// the file declares none.
func entryPipeline(items []syntax.Stmt) *syntax.PipelineDecl {
	var first *syntax.PipelineDecl
	for _, it := range items {
		p, ok := it.(*syntax.PipelineDecl)
		if !ok {
			continue
		}
		if p.Name == "default" {
			return p
		}
		if first == nil {
			first = p
		}
	}
	return first
}

func mainProblem(fn *syntax.FnDecl) string {
	if n := len(fn.Params); n > 1 {
		return fmt.Sprintf("`main` must take exactly one parameter (`harness: Harness`), found %d", n)
	}
	p := fn.Params[0]
	if p.Name != "harness" && p.Name != "_harness" {
		return fmt.Sprintf("`main` parameter is named `%s`, expected `harness` or `_harness`", p.Name)
	}
	if p.Type == nil {
		return "`main(harness: Harness)` requires an explicit `Harness` type annotation"
	}
	written := typeSource(p.Type)
	nt, isNamed := p.Type.(*syntax.NamedType)
	if !isNamed || nt.Name != "Harness" || len(nt.Args) > 0 || p.Default != nil || p.Rest {
		return "`main(harness: …)` parameter type must be `Harness`, found `" + written + "`"
	}
	return ""
}

// typeSource prints a type annotation as written (modulo spacing).
func typeSource(t syntax.TypeExpr) string {
	switch t := t.(type) {
	case *syntax.NamedType:
		if len(t.Args) == 0 {
			return t.Name
		}
		parts := make([]string, len(t.Args))
		for i, a := range t.Args {
			parts[i] = typeSource(a)
		}
		return t.Name + "<" + strings.Join(parts, ", ") + ">"
	case *syntax.ListType:
		return "[" + typeSource(t.Elem) + "]"
	case *syntax.OptionalType:
		return typeSource(t.Elem) + "?"
	case *syntax.NilType:
		return "nil"
	case *syntax.UnionType:
		parts := make([]string, len(t.Types))
		for i, a := range t.Types {
			parts[i] = typeSource(a)
		}
		return strings.Join(parts, " | ")
	case *syntax.InterType:
		parts := make([]string, len(t.Types))
		for i, a := range t.Types {
			parts[i] = typeSource(a)
		}
		return strings.Join(parts, " & ")
	}
	return types.NewEnv().FromSyntax(t, nil).String()
}

// ---- attributes (docs/spec/language.md §10.5) ----

var knownAttrs = map[string]bool{
	"deprecated": true, "test": true, "annotations": true, "job": true,
	"schedule": true, "queue": true, "retry": true, "sibling": true,
	"acp_tool": true, "acp_skill": true, "command": true,
	"complexity": true, "invariant": true, "host_entry": true,
	"deterministic": true, "semantic": true, "archivist": true,
	"retroactive": true, "persona": true, "step": true, "trigger": true,
	"handoff": true, "budget": true,
}

// attrs warns about unknown attributes and about `@test` on anything but
// a function or pipeline (testable), what harn test runs (docs/test.md).
func (c *checker) attrs(list []*syntax.Attribute, testable bool) {
	for _, a := range list {
		switch {
		case !knownAttrs[a.Name]:
			c.warnf(a.At, "unknown attribute `@%s`", a.Name)
		case a.Name == "test" && !testable:
			c.warnf(a.At, "`@test` only marks functions and pipelines; it has no effect here")
		case a.Name == "sibling" && !testable:
			c.siblingElsewhere([]*syntax.Attribute{a})
		case a.Name == "annotations":
			c.annotationsAttr(a)
		case a.Name == "job":
			c.jobAttr(a)
		}
	}
}

// annotationHints are the arguments of @annotations (docs/spec/language.md
// §10.5), each a boolean literal.
var annotationHints = []string{"readOnly", "destructive", "idempotent", "openWorld"}

// annotationsAttr warns about an @annotations argument that is no named
// hint with a boolean literal: `harn run` ignores the attribute, but the
// exports tooling refuses the function, so the mistake shows here first
// (docs/check.md).
func (c *checker) annotationsAttr(a *syntax.Attribute) {
	seen := map[string]bool{}
	for _, arg := range a.Args {
		if arg.Name != "" && seen[arg.Name] {
			c.warnf(a.At, "`@annotations` gives the hint `%s` twice", arg.Name)
			continue
		}
		seen[arg.Name] = true
		if arg.Name == "" {
			c.warnf(a.At, "`@annotations` takes named hints (readOnly:, destructive:, idempotent:, openWorld:), not a positional argument")
			continue
		}
		if !slices.Contains(annotationHints, arg.Name) {
			help := ""
			if s := diag.Suggest(arg.Name, annotationHints); s != "" {
				help = "did you mean `" + s + "`?"
			}
			c.report(sevWarning, a.At, "", help, "`@annotations` has no hint `"+arg.Name+"` (the hints are readOnly, destructive, idempotent and openWorld)")
			continue
		}
		if _, ok := arg.Value.(*syntax.BoolLit); !ok {
			c.warnf(a.At, "`@annotations` hint `%s` must be `true` or `false`", arg.Name)
		}
	}
}

// jobAttr warns about a `@job` whose arguments are not the job's name as
// a string literal and the optional `retry:` (docs/spec/language.md
// §10.5, `@job("name", retry?: {…})`): `harn run` ignores the attribute,
// so a mistake there would only show when a job runner reads it.
func (c *checker) jobAttr(a *syntax.Attribute) {
	positional := 0
	for _, arg := range a.Args {
		if arg.Name != "" {
			if arg.Name != "retry" {
				help := ""
				if s := diag.Suggest(arg.Name, []string{"retry"}); s != "" {
					help = "did you mean `" + s + "`?"
				}
				c.report(sevWarning, a.At, "", help, "`@job` has no option `"+arg.Name+"` (it takes the job's name and `retry:`)")
			}
			continue
		}
		if positional++; positional > 1 {
			c.warnf(a.At, "`@job` takes one name: `@job(\"name\", retry: {…})`")
			continue
		}
		if _, ok := arg.Value.(*syntax.StringLit); !ok {
			c.warnf(a.At, "`@job`'s name must be a string literal: `@job(\"name\")`")
		}
	}
}

// siblingAttr warns about an `@sibling` that cannot do what it says: it
// lets modules of the same directory import a private top-level function
// (docs/spec/language.md §10.5, §11.2), so it takes no arguments, a `pub`
// function is exported already, and a nested function is nobody's import.
// The references give no wording; these warnings are ours (docs/check.md).
func (c *checker) siblingAttr(fn *syntax.FnDecl, topLevel bool) {
	for _, a := range fn.Attrs {
		if a.Name != "sibling" {
			continue
		}
		switch {
		case !topLevel:
			c.warnf(a.At, "`@sibling` only marks private top-level functions; it has no effect on the nested function `%s`", fn.Name)
		case fn.Pub:
			c.warnf(a.At, "`@sibling` has no effect on `pub fn %s`: it is exported already", fn.Name)
		case len(a.Args) > 0:
			c.warnf(a.At, "`@sibling` takes no arguments")
		}
	}
}

// siblingElsewhere warns about `@sibling` on a declaration that is not a
// function (a pipeline, struct, tool…), which it does not make importable.
func (c *checker) siblingElsewhere(list []*syntax.Attribute) {
	for _, a := range list {
		if a.Name == "sibling" {
			c.warnf(a.At, "`@sibling` only marks private top-level functions; it has no effect here")
		}
	}
}

// testParams warns about a `@test` function with a required parameter:
// harn test calls a test without arguments, so it skips such a function
// (docs/test.md), which the attribute says should run.
func (c *checker) testParams(fn *syntax.FnDecl) {
	for _, a := range fn.Attrs {
		if a.Name != "test" {
			continue
		}
		for _, p := range fn.Params {
			if p.Default == nil && !p.Rest {
				c.warnf(a.At, "`@test` function `%s` has a required parameter `%s`; harn test calls tests without arguments, so it never runs", fn.Name, p.Name)
				return
			}
		}
	}
}

// arityText describes how many arguments a callable takes, as the arity
// warnings word it: "2 arguments", "1-2 arguments", and "at least 1
// argument" when too few are passed to a fixed or variadic arity
// (docs/spec/newer.md §3.4).
func arityText(min, max, n int) string {
	plural := func(k int) string {
		if k == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", k)
	}
	switch {
	case max < 0 || (min == max && n < min):
		return "at least " + plural(min)
	case min == max:
		return plural(min)
	}
	return fmt.Sprintf("%d-%d arguments", min, max)
}

// inferredTwice reports whether more than one parameter of sig mentions
// the type parameter tp (`a: T, b: T`, or `o: Option<T>, fallback: T`),
// so that its binding may be a join of what the arguments give it.
func inferredTwice(sig *types.Func, tp *types.TypeParam) bool {
	n := 0
	for _, p := range sig.Params {
		if !p.Rest && anyPart(p.Type, func(t types.Type) bool { return t == tp }) {
			n++
		}
	}
	return n > 1
}

package check

import (
	"fmt"

	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// This file instantiates generic functions at their call sites (docs/spec/newer.md
// §3.3, §3.9): explicit type arguments freeze the type parameters,
// otherwise each parameter written as a bare `T` (or `list<T>`) binds T to
// its argument's type, conflicting bindings joining into a union. The
// instantiated signature checks the arguments, the `where` bounds and
// gives the call its result type.

// instantiate binds sig's type parameters for a call; nil when sig is not
// generic.
func (c *checker) instantiate(typeArgs []syntax.TypeExpr, sig *types.Func, exprs []syntax.Expr, args []types.Type) map[*types.TypeParam]types.Type {
	if len(sig.TypeParams) == 0 {
		return nil
	}
	bind := map[*types.TypeParam]types.Type{}
	if len(typeArgs) > 0 {
		for i, tp := range sig.TypeParams {
			if i < len(typeArgs) {
				bind[tp] = c.typeOf(typeArgs[i])
			}
		}
		return bind
	}
	own := paramSet(sig.TypeParams)
	for i, p := range sig.Params {
		if p.Rest || i >= len(args) {
			continue
		}
		if c.inferCallback(p.Type, exprs[i], args[i], own, bind) {
			continue
		}
		if !known(args[i]) {
			if args[i] == types.Unknown && c.declaredPath(exprs[i]) {
				// a declared `unknown` value binds T to unknown, not any
				// (`id(v)` is still to be narrowed: docs/spec/newer.md §3.7)
				infer(p.Type, types.Unknown, own, bind)
			}
			continue
		}
		infer(p.Type, types.Widen(args[i]), own, bind)
	}
	c.inferBounds(sig, own, bind)
	return bind
}

// inferBounds binds the type parameters that only a generic interface
// bound names (`fn first<C, T>(c: C) -> T where C: Container<T>`) from
// the impl of the type the bounded parameter was bound to: Container's
// `fn get(self, i: int) -> T` read against IntBox's `-> int` makes T an
// int, so `first(box)` is an int (docs/spec/newer.md §3.9: satisfaction
// is checked structurally, parameter and return types included).
// Parameters the arguments bound already keep their binding.
func (c *checker) inferBounds(sig *types.Func, own map[*types.TypeParam]bool, bind map[*types.TypeParam]types.Type) {
	open := map[*types.TypeParam]bool{}
	for p := range own {
		if _, ok := bind[p]; !ok {
			open[p] = true
		}
	}
	if len(open) == 0 {
		return
	}
	found := map[*types.TypeParam]types.Type{}
	for _, tp := range sig.TypeParams {
		n, ok := types.Underlying(bind[tp]).(*types.Named)
		if tp.BoundArgs == nil || !ok || !hasMethodsDecl(n.Decl) {
			continue
		}
		for i := range tp.Bounds {
			iface := c.bound(tp, i)
			if i >= len(tp.BoundArgs) || tp.BoundArgs[i] == nil || iface == nil || len(iface.TypeParams) != len(tp.BoundArgs[i]) {
				continue
			}
			sub := iface.Instance(tp.BoundArgs[i])
			for _, want := range iface.Methods {
				got, ok := n.Decl.Method(want.Name)
				if !ok || len(want.Type.TypeParams) > 0 || len(got.Type.TypeParams) > 0 || got.Arity() != want.Arity() {
					continue
				}
				gt := instanceMethod(n, got.Type)
				if gt == nil {
					continue
				}
				wt := types.Subst(want.Type, sub).(*types.Func)
				gp, wp := nonSelf(types.Method{Type: gt}), nonSelf(types.Method{Type: wt})
				for j := range wp {
					if known(gp[j].Type) && concrete(gp[j].Type) {
						infer(wp[j].Type, types.Widen(gp[j].Type), open, found)
					}
				}
				if known(gt.Return) && concrete(gt.Return) {
					infer(wt.Return, types.Widen(gt.Return), open, found)
				}
			}
		}
	}
	for p, t := range found {
		bind[p] = t
	}
}

// inferCallback binds the type parameters of a `fn(…) -> R` parameter
// from a function argument: each parameter it declares, and its result,
// declared or, for an unannotated closure literal without `return`, its
// tail value (docs/spec/newer.md §3.3: `map_list(xs, { n -> "n${n}" })`
// is a list<string>). It reports whether pt is such a parameter.
func (c *checker) inferCallback(pt types.Type, arg syntax.Expr, at types.Type, own map[*types.TypeParam]bool, bind map[*types.TypeParam]types.Type) bool {
	pf, ok := types.Underlying(pt).(*types.Func)
	if !ok {
		return false
	}
	af, ok := at.(*types.Func)
	if !ok {
		return true
	}
	for i, p := range af.Params {
		if i < len(pf.Params) && known(p.Type) {
			infer(pf.Params[i].Type, types.Widen(p.Type), own, bind)
		}
	}
	ret := af.Return
	if cl, ok := arg.(*syntax.ClosureLit); ok && cl.Return == nil {
		ret = c.tails[cl]
	}
	if known(ret) {
		infer(pf.Return, types.Widen(ret), own, bind)
	}
	return true
}

// paramSet is the set of the type parameters tps, those inference binds.
func paramSet(tps []*types.TypeParam) map[*types.TypeParam]bool {
	own := make(map[*types.TypeParam]bool, len(tps))
	for _, tp := range tps {
		own[tp] = true
	}
	return own
}

// infer matches a parameter type against an argument type.
func infer(pt, at types.Type, own map[*types.TypeParam]bool, bind map[*types.TypeParam]types.Type) {
	switch p := pt.(type) {
	case *types.TypeParam:
		if !own[p] {
			return
		}
		if prev, ok := bind[p]; ok {
			bind[p] = types.NewUnion(prev, at)
		} else {
			bind[p] = at
		}
	case *types.List:
		if a, ok := types.Underlying(at).(*types.List); ok {
			infer(p.Elem, a.Elem, own, bind)
		}
	case *types.Set:
		if a, ok := types.Underlying(at).(*types.Set); ok {
			infer(p.Elem, a.Elem, own, bind)
		}
	case *types.Dict:
		switch a := types.Underlying(at).(type) {
		case *types.Dict:
			infer(p.Key, a.Key, own, bind)
			infer(p.Value, a.Value, own, bind)
		case *types.Shape:
			// a dict literal's fields are the dict's values
			if !a.Open {
				for _, f := range a.Fields {
					infer(p.Value, f.Type, own, bind)
				}
			}
		}
	case *types.Union:
		// `T?` (or `T | nil`) against an `X?` or an `X`: T is X, the
		// argument without the members the union states itself
		var open types.Type
		for _, m := range p.Types {
			if concrete(m) {
				continue
			}
			if open != nil {
				return // two generic members: no single way to split
			}
			open = m
		}
		if open == nil {
			return
		}
		var rest []types.Type
		ms := []types.Type{at}
		if u, ok := types.Underlying(at).(*types.Union); ok {
			// also through an alias (`Option<int>` of `type Option<T> = T | nil`)
			ms = u.Types
		}
		for _, m := range ms {
			if !containsType(p.Types, m) {
				rest = append(rest, m)
			}
		}
		if len(rest) > 0 {
			infer(open, types.NewUnion(rest...), own, bind)
		}
	case *types.Iter:
		switch a := types.Underlying(at).(type) {
		case *types.Iter:
			if a.Kind == p.Kind || p.Kind == types.IterPlain {
				infer(p.Elem, a.Elem, own, bind)
			}
		case *types.List:
			if p.Kind == types.IterPlain {
				infer(p.Elem, a.Elem, own, bind)
			}
		}
	case *types.Result:
		if a, ok := types.Underlying(at).(*types.Result); ok {
			infer(p.Ok, a.Ok, own, bind)
			infer(p.Err, a.Err, own, bind)
		}
	case *types.Named:
		// `Box<T>` against a `Box<int>`: the type arguments pair up
		if a, ok := at.(*types.Named); ok && a.Decl == p.Decl && len(a.Args) == len(p.Args) {
			for i := range p.Args {
				infer(p.Args[i], a.Args[i], own, bind)
			}
		} else if p.Decl.Kind == types.AliasDecl {
			infer(types.Underlying(p), at, own, bind)
		}
	case *types.Shape:
		a, ok := types.Underlying(at).(*types.Shape)
		if !ok {
			// a struct value is the closed record of its fields
			// (docs/spec/newer.md §1.6: width subtyping)
			fs := types.StructFields(at)
			if fs == nil {
				return
			}
			a = &types.Shape{Fields: fs}
		}
		rest := &types.Shape{Open: a.Open, RowName: a.RowName}
		for _, f := range a.Fields {
			if pf, listed := p.Field(f.Name); listed {
				infer(pf.Type, f.Type, own, bind)
			} else {
				rest.Fields = append(rest.Fields, f)
			}
		}
		if p.Row != nil && own[p.Row] {
			if _, ok := bind[p.Row]; !ok {
				bind[p.Row] = rest // a row variable: the record's other fields
			}
		}
	}
}

// instResult reports whether r, a generic call's result with its type
// parameters put in, is a type the call has: one known and concrete, or
// one whose only dynamic parts are the `unknown` a declared value bound a
// type parameter to (`id(v)` with `v: unknown` is an unknown, `wrap(v)` a
// `list<unknown>`: still to be narrowed, docs/spec/newer.md §3.7).
func instResult(r types.Type) bool {
	if !concrete(r) || r == types.Never {
		return false
	}
	return known(r) || !anyPart(r, func(t types.Type) bool { return t != types.Unknown && types.IsDynamic(t) })
}

// concrete reports whether t mentions no type parameter.
func concrete(t types.Type) bool {
	return !anyPart(t, func(t types.Type) bool {
		switch t := t.(type) {
		case *types.TypeParam:
			return true
		case *types.Shape:
			return t.Row != nil
		}
		return false
	})
}

// anyPart reports whether f holds for t or for a type t is built from:
// elements, keys and values, shape fields and tail, union and
// intersection members, parameters and results, type arguments (not an
// alias's target: f may look there itself). It gives up below a depth
// of 16.
func anyPart(t types.Type, f func(types.Type) bool) bool {
	var walk func(t types.Type, depth int) bool
	walk = func(t types.Type, depth int) bool {
		if t == nil || depth > 16 {
			return false
		}
		if f(t) {
			return true
		}
		some := func(ts ...types.Type) bool {
			for _, x := range ts {
				if walk(x, depth+1) {
					return true
				}
			}
			return false
		}
		switch t := t.(type) {
		case *types.List:
			return some(t.Elem)
		case *types.Set:
			return some(t.Elem)
		case *types.Dict:
			return some(t.Key, t.Value)
		case *types.Iter:
			return some(t.Elem)
		case *types.Result:
			return some(t.Ok, t.Err)
		case *types.Union:
			return some(t.Types...)
		case *types.Intersection:
			return some(t.Types...)
		case *types.Shape:
			for _, fl := range t.Fields {
				if some(fl.Type) {
					return true
				}
			}
			return some(t.Tail)
		case *types.Func:
			for _, p := range t.Params {
				if some(p.Type) {
					return true
				}
			}
			return some(t.Return)
		case *types.Named:
			return some(t.Args...)
		}
		return false
	}
	return walk(t, 0)
}

// constraints checks the `where T: I` bounds of the bound type parameters.
func (c *checker) constraints(pos syntax.Pos, sig *types.Func, bind map[*types.TypeParam]types.Type) {
	for _, tp := range sig.TypeParams {
		t, ok := bind[tp]
		if !ok {
			continue
		}
		if kind := methodKind(t); kind != "" || t == types.Int || t == types.Float || t == types.Bool {
			c.builtinConstraints(pos, t, kind, tp)
			continue
		}
		n, ok := types.Underlying(t).(*types.Named)
		// a struct or enum of this file without impl blocks has no methods at all
		if !ok || !hasMethodsDecl(n.Decl) || !n.Decl.HasImpl && n.Decl.Origin != c.file.Path {
			continue
		}
		for i := range tp.Bounds {
			iface := c.bound(tp, i)
			if iface == nil {
				continue
			}
			var args []types.Type
			if i < len(tp.BoundArgs) {
				// `where C: Container<T>`: the interface read with T as bound
				for _, a := range tp.BoundArgs[i] {
					args = append(args, types.Subst(a, bind))
				}
			}
			if why := unsatisfied(n.Decl, n.Args, iface, args); why != "" {
				c.report(sevError, pos, "HARN-TYP-014", "", fmt.Sprintf(
					"Type '%s' does not satisfy interface '%s': %s (required by constraint `where %s: %s`)",
					n.Decl.Name, iface.Name, why, tp.Name, tp.BoundText(i)))
				return
			}
		}
	}
}

// hasMethodsDecl reports whether d declares a type whose values take
// methods from impl blocks: a struct, or an enum (docs/language.md §4).
func hasMethodsDecl(d *types.Decl) bool {
	return d.Kind == types.StructDecl || d.Kind == types.EnumDecl
}

// bound returns the interface the i-th `where` bound of tp names: in the
// file declaring the generic function (an imported function's bounds
// name its module's interfaces, which this file may not see), else here.
func (c *checker) bound(tp *types.TypeParam, i int) *types.Decl {
	if i < len(tp.Interfaces) && tp.Interfaces[i] != nil {
		return tp.Interfaces[i]
	}
	if d := c.env.Lookup(tp.Bounds[i]); d != nil && d.Kind == types.InterfaceDecl {
		return d
	}
	return nil
}

// builtinConstraints checks the bounds of a type parameter bound to a
// builtin type: numbers have no methods, the other kinds the library's.
func (c *checker) builtinConstraints(pos syntax.Pos, t types.Type, kind string, tp *types.TypeParam) {
	for i := range tp.Bounds {
		iface := c.bound(tp, i)
		if iface == nil {
			continue
		}
		for _, m := range iface.Methods {
			if kind != "" && c.hasMethod(kind, m.Name) {
				continue
			}
			c.report(sevError, pos, "HARN-TYP-014", "", fmt.Sprintf(
				"Type '%s' does not satisfy interface '%s': missing method '%s' (required by constraint `where %s: %s`)",
				types.Widen(t), iface.Name, m.Name, tp.Name, tp.BoundText(i)))
			return
		}
	}
}

// hasMethod reports whether values of a kind have a library method (true
// when the checker has no library to ask).
func (c *checker) hasMethod(kind, name string) bool {
	if c.lib == nil {
		return true
	}
	_, ok := c.lib.MethodSig(kind, name)
	return ok
}

// unsatisfied explains why struct s does not implement iface, structurally
// (names, parameter counts, annotated parameter types taking what the
// interface's take, return types fitting the interface's, associated
// types); "" when it does. args are the interface's type arguments
// where the expected type applies a generic interface (`C<string>`),
// nil otherwise: its signatures are read with them put in. sargs are
// the struct's own type arguments (`Bag<int>`), put in for its type
// parameters in its impl methods, so `fn get(self) -> T` of a `Bag<int>`
// returns int; a generic struct without them keeps its methods open.
//
// An associated type resolves to what s's impl provides for it (`type Item
// = int`), otherwise to the first annotated impl type found where the
// interface's signatures name it. An impl that provides associated types
// must provide every one the interface leaves free; one the interface fixes
// (`type Item = int`) must resolve to that type.
func unsatisfied(s *types.Decl, sargs []types.Type, iface *types.Decl, args []types.Type) string {
	var own map[*types.TypeParam]types.Type
	if len(s.TypeParams) > 0 && len(sargs) == len(s.TypeParams) {
		own = s.Instance(sargs)
	}
	bind := map[*types.TypeParam]types.Type{}
	for i, a := range args {
		// `C<string>`: the interface's signatures read T as string
		if i < len(iface.TypeParams) && known(a) {
			bind[iface.TypeParams[i]] = a
		}
	}
	for _, a := range iface.AssocTypes {
		if got, ok := s.AssocType(a.Name); ok {
			bind[a.Param] = got.Type
		} else if len(s.AssocTypes) > 0 && a.Type == nil {
			return fmt.Sprintf("missing associated type '%s'", a.Name)
		}
	}
	for _, want := range iface.Methods {
		got, ok := s.Method(want.Name)
		if !ok {
			return fmt.Sprintf("missing method '%s'", want.Name)
		}
		if own != nil {
			got.Type = types.Subst(got.Type, own).(*types.Func)
		}
		if got.Arity() != want.Arity() {
			return fmt.Sprintf("method '%s' has %d parameter(s), expected %d", want.Name, got.Arity(), want.Arity())
		}
		gp, wp := nonSelf(got), nonSelf(want)
		for i := range wp {
			resolveAssoc(iface, wp[i].Type, gp[i].Type, bind)
		}
		resolveAssoc(iface, want.Type.Return, got.Type.Return, bind)
		for i := range wp {
			// parameters are contravariant: the impl must accept every
			// value the interface passes (`x: int | string` implements
			// `x: int`), as results are covariant below
			g, w := gp[i].Type, types.Subst(wp[i].Type, bind)
			if known(g) && known(w) && concrete(w) && !types.AssignableTo(w, g) && !selfParam(g, w) {
				return fmt.Sprintf("method '%s' parameter %d has type '%s', expected '%s'", want.Name, i+1, g, w)
			}
		}
		g, w := got.Type.Return, types.Subst(want.Type.Return, bind)
		if known(g) && known(w) && concrete(w) && !types.AssignableTo(g, w) {
			return fmt.Sprintf("method '%s' returns '%s', expected '%s'", want.Name, g, w)
		}
	}
	for _, a := range iface.AssocTypes {
		got, ok := bind[a.Param]
		if !ok || a.Type == nil || !known(got) || !concrete(a.Type) {
			continue
		}
		if !types.Identical(types.Widen(got), types.Widen(a.Type)) {
			return fmt.Sprintf("associated type '%s' resolves to '%s', expected '%s'", a.Name, got, a.Type)
		}
	}
	return ""
}

// resolveAssoc binds the still unresolved associated types of iface that
// the interface type want names to the matching parts of the impl type got.
func resolveAssoc(iface *types.Decl, want, got types.Type, bind map[*types.TypeParam]types.Type) {
	if !known(got) {
		return
	}
	free := map[*types.TypeParam]bool{}
	for _, a := range iface.AssocTypes {
		if _, done := bind[a.Param]; !done {
			free[a.Param] = true
		}
	}
	if len(free) > 0 {
		infer(want, got, free, bind)
	}
}

// selfParam reports an impl parameter typed by the struct itself where
// the interface names itself (`fn same(self, other: Eq)` implemented as
// `fn same(self, other: Point)`): the usual way to write a method taking
// another value of the same kind.
func selfParam(got, want types.Type) bool {
	w, ok := types.Underlying(want).(*types.Named)
	return ok && w.Decl.Kind == types.InterfaceDecl && types.AssignableTo(got, want)
}

func nonSelf(m types.Method) []types.Param {
	ps := m.Type.Params
	if len(ps) > 0 && ps[0].Name == "self" {
		return ps[1:]
	}
	return ps
}

// implAssocTypes checks the associated types an impl block provides: each
// name once, and each declared by some visible interface (satisfaction is
// structural, so no single interface is the impl's).
func (c *checker) implAssocTypes(im *syntax.ImplBlock) {
	seen := map[string]bool{}
	for _, a := range im.Types {
		switch {
		case seen[a.Name]:
			c.errorf(a.At, "associated type '%s' is declared twice in impl '%s'", a.Name, im.Name)
		case !c.declaresAssoc(a.Name):
			c.errorf(a.At, "associated type '%s' in impl '%s' is not declared by any interface", a.Name, im.Name)
		}
		seen[a.Name] = true
	}
}

func (c *checker) declaresAssoc(name string) bool {
	for _, d := range c.env.Decls() {
		if _, ok := d.AssocType(name); ok && d.Kind == types.InterfaceDecl {
			return true
		}
	}
	return false
}

// containsType reports whether ts has a member identical to t.
func containsType(ts []types.Type, t types.Type) bool {
	for _, x := range ts {
		if types.Identical(x, t) {
			return true
		}
	}
	return false
}

package check

import (
	"github.com/harnlang/harn/lang/syntax"
)

// This file checks declaration-site variance (docs/spec/newer.md §1.5): a type
// parameter declared `out T` may appear only in covariant positions, `in
// T` only in contravariant ones. Function parameters flip the polarity,
// results keep it; list<…>, dict<…> and [T] are invariant; iter,
// Generator, Stream, Result, options, unions and shape fields keep it;
// the arguments of a user generic take its parameters' variance.

type polarity int

const (
	covariant polarity = iota
	contravariant
	invariant
)

func (p polarity) flip() polarity {
	switch p {
	case covariant:
		return contravariant
	case contravariant:
		return covariant
	}
	return invariant
}

func (p polarity) String() string {
	return [...]string{"a covariant", "a contravariant", "an invariant"}[p]
}

// varianceDecl checks the uses of the annotated type parameters of one
// declaration; what names it in messages ("type alias 'Box'").
type varianceDecl struct {
	c      *checker
	what   string
	params map[string]string // name → "in" / "out"
}

func (c *checker) checkVariance(s syntax.Stmt) {
	var tps []*syntax.TypeParam
	var what string
	switch d := s.(type) {
	case *syntax.TypeDecl:
		tps, what = d.TypeParams, "type alias '"+d.Name+"'"
	case *syntax.InterfaceDecl:
		tps, what = d.TypeParams, "interface '"+d.Name+"'"
	case *syntax.StructDecl:
		tps, what = d.TypeParams, "struct '"+d.Name+"'"
	case *syntax.EnumDecl:
		tps, what = d.TypeParams, "enum '"+d.Name+"'"
	case *syntax.FnDecl:
		tps, what = d.TypeParams, "function '"+d.Name+"'"
	}
	v := &varianceDecl{c: c, what: what, params: map[string]string{}}
	for _, tp := range tps {
		if tp.Variance != "" {
			v.params[tp.Name] = tp.Variance
		}
	}
	if len(v.params) == 0 {
		return
	}
	switch d := s.(type) {
	case *syntax.TypeDecl:
		v.walk(d.Type, covariant)
	case *syntax.InterfaceDecl:
		for _, m := range d.Methods {
			v.fn(m.Params, m.Return)
		}
		for _, at := range d.Types {
			v.walk(at.Type, covariant)
		}
	case *syntax.StructDecl:
		for _, f := range d.Fields {
			v.walk(f.Type, covariant)
		}
	case *syntax.EnumDecl:
		for _, vr := range d.Variants {
			for _, p := range vr.Params {
				v.walk(p.Type, covariant)
			}
		}
	case *syntax.FnDecl:
		v.fn(d.Params, d.Return)
	}
}

func (v *varianceDecl) fn(params []*syntax.Param, ret syntax.TypeExpr) {
	for _, p := range params {
		v.walk(p.Type, contravariant)
	}
	v.walk(ret, covariant)
}

func (v *varianceDecl) walk(t syntax.TypeExpr, pol polarity) {
	switch t := t.(type) {
	case *syntax.NamedType:
		if decl, ok := v.params[t.Name]; ok && len(t.Args) == 0 {
			v.use(t, decl, pol)
			return
		}
		for i, a := range t.Args {
			v.walk(a, v.argPolarity(t.Name, i, pol))
		}
	case *syntax.ListType:
		v.walk(t.Elem, invariant)
	case *syntax.OptionalType:
		v.walk(t.Elem, pol)
	case *syntax.UnionType:
		for _, m := range t.Types {
			v.walk(m, pol)
		}
	case *syntax.InterType:
		for _, m := range t.Types {
			v.walk(m, pol)
		}
	case *syntax.ShapeType:
		for _, f := range t.Fields {
			v.walk(f.Type, pol)
		}
	case *syntax.FnType:
		for _, p := range t.Params {
			v.walk(p, pol.flip())
		}
		v.walk(t.Return, pol)
	}
}

// argPolarity is the position of type argument i of the generic named
// name, which sits in position pol: list, dict and set are invariant; a
// generic declared in the file or imported composes its parameter's
// declared variance (`out` keeps pol, `in` flips it, none makes the
// argument invariant: docs/spec/newer.md §1.5); the builtin generics
// (iter, Generator, Stream, Result) and names the checker does not know
// keep pol.
func (v *varianceDecl) argPolarity(name string, i int, pol polarity) polarity {
	switch name {
	case "list", "dict", "set":
		return invariant
	}
	d := v.c.env.Lookup(name)
	if d == nil || i >= len(d.TypeParams) {
		return pol
	}
	switch d.TypeParams[i].Variance {
	case "out":
		return pol
	case "in":
		return pol.flip()
	}
	return invariant
}

func (v *varianceDecl) use(t *syntax.NamedType, decl string, pol polarity) {
	ok := pol == covariant && decl == "out" || pol == contravariant && decl == "in"
	if ok {
		return
	}
	kind := "'out' (covariant)"
	if decl == "in" {
		kind = "'in' (contravariant)"
	}
	v.c.errorf(t.At, "type parameter '%s' is declared %s but appears in %s position in %s", t.Name, kind, pol, v.what)
}

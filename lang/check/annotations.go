package check

import (
	"slices"

	"github.com/harnlang/harn/lang/syntax"
)

// annotation checks the named types of annotation t: their number of
// type arguments (typeargs.go) and names that name no type
// (unknowntype.go). own lists the type parameters the annotated
// declaration adds to those of the functions being checked; inner the
// names an interface adds for its members (its associated types, a
// method's type parameters). Both hide declarations of their name from
// both checks.
func (c *checker) annotation(t syntax.TypeExpr, own, inner []string) {
	scope := slices.Concat(own, inner)
	c.typeArgCounts(t, scope)
	c.unknownTypes(t, scope)
}

// signatureAnnotations checks the parameter and result annotations of a
// function, impl method, closure, pipeline or tool being entered (its
// type parameters are in scope).
func (c *checker) signatureAnnotations(node syntax.Node, params []*syntax.Param) {
	for _, p := range params {
		c.annotation(p.Type, nil, nil)
	}
	c.annotation(resultAnnotation(node), nil, nil)
	if fn, ok := node.(*syntax.FnDecl); ok {
		for _, w := range fn.Where {
			for i, args := range w.BoundArgs {
				if args != nil && i < len(w.Bounds) && i < len(w.BoundsAt) {
					// a generic interface bound (`where C: Container<T>`)
					// is an application like an annotation's
					c.annotation(&syntax.NamedType{At: w.BoundsAt[i], Name: w.Bounds[i], Args: args}, nil, nil)
				}
			}
		}
	}
}

// resultAnnotation is the declared result (`-> T`) of a function,
// closure, pipeline or tool node; nil when it has none.
func resultAnnotation(node syntax.Node) syntax.TypeExpr {
	switch d := node.(type) {
	case *syntax.FnDecl:
		return d.Return
	case *syntax.ClosureLit:
		return d.Return
	case *syntax.PipelineDecl:
		return d.Return
	case *syntax.ToolDecl:
		return d.Return
	}
	return nil
}

// declAnnotations calls fn for each annotation of a struct, enum,
// interface or type alias declaration: a struct's fields, an enum's
// variant payloads, a type alias's body, an interface's associated types
// and method signatures. own lists the declaration's type parameters;
// inner, in an interface, its associated types and the method's type
// parameters.
func declAnnotations(s syntax.Stmt, fn func(t syntax.TypeExpr, own, inner []string)) {
	switch d := s.(type) {
	case *syntax.TypeDecl:
		fn(d.Type, tparamNames(d.TypeParams), nil)
	case *syntax.StructDecl:
		own := tparamNames(d.TypeParams)
		for _, f := range d.Fields {
			fn(f.Type, own, nil)
		}
	case *syntax.EnumDecl:
		own := tparamNames(d.TypeParams)
		for _, v := range d.Variants {
			for _, p := range v.Params {
				fn(p.Type, own, nil)
			}
		}
	case *syntax.InterfaceDecl:
		own := tparamNames(d.TypeParams)
		var assoc []string
		for _, a := range d.Types {
			assoc = append(assoc, a.Name)
		}
		for _, a := range d.Types {
			fn(a.Type, own, assoc)
		}
		for _, m := range d.Methods {
			inner := append(tparamNames(m.TypeParams), assoc...)
			for _, p := range m.Params {
				fn(p.Type, own, inner)
			}
			fn(m.Return, own, inner)
		}
	}
}

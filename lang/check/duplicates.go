package check

import (
	"fmt"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// Duplicate names in one declaration: two parameters of a function,
// impl method, closure, tool or pipeline (`fn f(a, a)`), two type
// parameters of one generic, two fields of a struct, two variants of an
// enum, two methods of an interface or an impl block. At run time the later one silently wins (the second `a` is the
// one the body reads), which is never what the program meant; a mature
// toolchain refuses it (Python's "duplicate argument", TypeScript's
// "Duplicate identifier"). The references give no wording; ours follows
// their duplicate-declaration messages (`associated type 'Item' is
// declared twice in impl 'Box'`, docs/check.md) in the backquoted style
// of docs/spec/newer.md §3.1, reported at the second name with a note at
// the first. `_` discards its argument and may repeat.

// named is one declared name and where it is written.
type named struct {
	name string
	at   syntax.Pos
}

// namesOf lists the declared names of xs, in order.
func namesOf[T any](xs []T, name func(T) named) []named {
	out := make([]named, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return out
}

// declaredTwice reports every name of names declared again after its
// first: “<kind> `a` is declared twice in <owner>“.
func (c *checker) declaredTwice(kind, owner string, names []named) {
	first := map[string]syntax.Pos{}
	for _, n := range names {
		if n.name == "_" || n.name == "" {
			continue
		}
		at, seen := first[n.name]
		if !seen {
			first[n.name] = n.at
			continue
		}
		n0 := len(c.diags)
		c.report(sevError, n.at, "", "rename one of them", fmt.Sprintf("%s `%s` is declared twice in %s", kind, n.name, owner))
		if len(c.diags) > n0 {
			d := c.diags[n0]
			d.Notes = append(d.Notes, &diag.Error{File: c.file.Path, Line: at.Line, Col: at.Col, Msg: "first declared here", Phase: diag.PhaseStatic})
		}
	}
}

// declaredTwiceKinds is declaredTwice for names of several kinds (a
// function and a tool): each repeat is reported by its own kind, and
// when the kinds differ the first declaration's kind is named too
// (“tool `a` is declared twice in this file (first as a function)”).
func (c *checker) declaredTwiceKinds(owner string, names []named, kinds map[string][]string) {
	first := map[string]syntax.Pos{}
	seen := map[string]int{}
	for _, n := range names {
		k := kinds[n.name][seen[n.name]]
		seen[n.name]++
		at, ok := first[n.name]
		if !ok {
			first[n.name] = n.at
			continue
		}
		msg := fmt.Sprintf("%s `%s` is declared twice in %s", k, n.name, owner)
		if k0 := kinds[n.name][0]; k0 != k {
			msg += fmt.Sprintf(" (first as a %s)", k0)
		}
		n0 := len(c.diags)
		c.report(sevError, n.at, "", "rename one of them", msg)
		if len(c.diags) > n0 {
			d := c.diags[n0]
			d.Notes = append(d.Notes, &diag.Error{File: c.file.Path, Line: at.Line, Col: at.Col, Msg: "first declared here", Phase: diag.PhaseStatic})
		}
	}
}

// duplicateParams reports parameters and type parameters a function,
// impl method, closure, tool or pipeline node declares twice; self is the
// receiver's type in an impl method, nil elsewhere.
func (c *checker) duplicateParams(node syntax.Node, params []*syntax.Param, self types.Type) {
	owner := ""
	var tparams []*syntax.TypeParam
	switch d := node.(type) {
	case *syntax.FnDecl:
		owner, tparams = "function `"+d.Name+"`", d.TypeParams
		if self != nil {
			owner = "method `" + d.Name + "`"
			if n, ok := self.(*types.Named); ok {
				owner = "method `" + n.Decl.Name + "." + d.Name + "`"
			}
		}
	case *syntax.ClosureLit:
		owner = "a closure"
	case *syntax.ToolDecl:
		owner = "tool `" + d.Name + "`"
	case *syntax.PipelineDecl:
		owner = "pipeline `" + d.Name + "`"
	default:
		return
	}
	c.declaredTwice("parameter", owner, namesOf(params, func(p *syntax.Param) named { return named{p.Name, p.At} }))
	c.typeParamsTwice(owner, tparams)
}

// typeParamsTwice reports a type parameter declared twice (`<T, T>`).
func (c *checker) typeParamsTwice(owner string, tparams []*syntax.TypeParam) {
	c.declaredTwice("type parameter", owner, namesOf(tparams, func(tp *syntax.TypeParam) named { return named{tp.Name, tp.At} }))
}

// duplicateMembers reports the fields of a struct, the variants of an
// enum, the methods of an interface or impl block and the type
// parameters of a struct, enum, alias or interface declared twice.
func (c *checker) duplicateMembers(s syntax.Stmt) {
	switch d := s.(type) {
	case *syntax.StructDecl:
		owner := "struct `" + d.Name + "`"
		c.declaredTwice("field", owner, namesOf(d.Fields, func(f *syntax.FieldDecl) named { return named{f.Name, f.At} }))
		c.typeParamsTwice(owner, d.TypeParams)
	case *syntax.EnumDecl:
		owner := "enum `" + d.Name + "`"
		c.declaredTwice("variant", owner, namesOf(d.Variants, func(v *syntax.Variant) named { return named{v.Name, v.At} }))
		c.typeParamsTwice(owner, d.TypeParams)
		for _, v := range d.Variants {
			var names []named
			for _, p := range v.Params {
				// an unannotated payload written Rust-style names its
				// type (`Rect(float, float)`): positional, so a repeat
				// is no clash (the April checker accepted it)
				if p.Type != nil {
					names = append(names, named{p.Name, p.At})
				}
			}
			c.declaredTwice("field", "variant `"+d.Name+"."+v.Name+"`", names)
		}
	case *syntax.TypeDecl:
		c.typeParamsTwice("type alias `"+d.Name+"`", d.TypeParams)
	case *syntax.InterfaceDecl:
		owner := "interface `" + d.Name + "`"
		c.typeParamsTwice(owner, d.TypeParams)
		c.declaredTwice("method", owner, namesOf(d.Methods, func(m *syntax.MethodSig) named { return named{m.Name, m.At} }))
	case *syntax.ImplBlock:
		c.declaredTwice("method", "impl `"+d.Name+"`", namesOf(d.Methods, func(m *syntax.FnDecl) named { return named{m.Name, m.NamePos} }))
	}
}

// duplicateTopLevel reports a function, or a struct, enum, interface or
// type alias, that items declare twice by one name: at run time the later
// declaration silently replaces the earlier. Functions and types are
// named apart (a struct and a function may share a name as before);
// top-level `let` redeclaration and imports have rules of their own
// (docs/spec/language.md) and are not looked at. Only the items of this
// check are compared: a REPL may declare a function again in a later
// input.
func (c *checker) duplicateTopLevel(items []syntax.Stmt) {
	var fns, typeNames []named
	kinds := map[string][]string{} // function or tool, per name, in order
	for _, it := range items {
		switch d := it.(type) {
		case *syntax.FnDecl:
			fns = append(fns, named{d.Name, d.NamePos})
			kinds[d.Name] = append(kinds[d.Name], "function")
		case *syntax.ToolDecl:
			// a tool binds its name as immutably as a function
			// (docs/spec/language.md §3.1), so a second one of either
			// kind would silently replace it
			fns = append(fns, named{d.Name, d.NamePos})
			kinds[d.Name] = append(kinds[d.Name], "tool")
		case *syntax.StructDecl:
			typeNames = append(typeNames, named{d.Name, d.NamePos})
		case *syntax.EnumDecl:
			typeNames = append(typeNames, named{d.Name, d.NamePos})
		case *syntax.InterfaceDecl:
			typeNames = append(typeNames, named{d.Name, d.NamePos})
		case *syntax.TypeDecl:
			typeNames = append(typeNames, named{d.Name, d.NamePos})
		}
	}
	c.declaredTwiceKinds("this file", fns, kinds)
	c.declaredTwice("type", "this file", typeNames)
}

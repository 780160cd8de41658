package check

import (
	"slices"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// unknownTypes warns about the names in annotation t that name no type:
// not a builtin type, a type parameter in scope, nor a declaration of the
// file or its imports (docs/check.md). A warning, not an error: the
// references list no such static error (docs/spec/language.md §10.6), and
// a type name upstream knows and this checker does not must not stop a
// program that runs. A qualified name
// (`ns.T`, `Self.Item`) is left to the module loader, and so is every
// name when the file has a wildcard import whose module may declare it.
func (c *checker) unknownTypes(t syntax.TypeExpr, scope []string) {
	if t == nil || c.quiet || c.wildcardImport() {
		return
	}
	walkNamedTypes(t, func(n *syntax.NamedType) {
		name := n.Name
		if strings.Contains(name, ".") || slices.Contains(scope, name) ||
			types.IsBuiltinTypeName(name) || c.env.Lookup(name) != nil || c.importsName(name) {
			return
		}
		if c.typeParamNamed(name) {
			return
		}
		msg, help := "unknown type `"+name+"`", ""
		if s := diag.Suggest(name, c.typeNameCandidates()); s != "" {
			help = "did you mean `" + s + "`?"
			msg += " — " + help
		}
		c.report(diag.SevWarning, n.At, "", help, msg)
	})
}

// typeNameCandidates lists the type names a misspelt one may have meant.
func (c *checker) typeNameCandidates() []string {
	names := types.BuiltinTypeNames()
	for _, d := range c.env.Decls() {
		names = append(names, d.Name)
	}
	return names
}

// wildcardImport reports whether the file imports every public name of a
// module (`import "m"`).
func (c *checker) wildcardImport() bool {
	for _, it := range c.file.Items {
		if im, ok := it.(*syntax.ImportDecl); ok && im.Names == nil && im.Namespace == nil {
			return true
		}
	}
	return false
}

// importsName reports whether a selective import of the file binds name.
func (c *checker) importsName(name string) bool {
	for _, it := range c.file.Items {
		if im, ok := it.(*syntax.ImportDecl); ok {
			for _, id := range im.Names {
				if id.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// walkNamedTypes calls fn for every named type in t, outermost first.
func walkNamedTypes(t syntax.TypeExpr, fn func(*syntax.NamedType)) {
	each := func(ts []syntax.TypeExpr) {
		for _, m := range ts {
			walkNamedTypes(m, fn)
		}
	}
	switch t := t.(type) {
	case *syntax.NamedType:
		fn(t)
		each(t.Args)
	case *syntax.ListType:
		walkNamedTypes(t.Elem, fn)
	case *syntax.OptionalType:
		walkNamedTypes(t.Elem, fn)
	case *syntax.UnionType:
		each(t.Types)
	case *syntax.InterType:
		each(t.Types)
	case *syntax.ShapeType:
		for _, f := range t.Fields {
			walkNamedTypes(f.Type, fn)
		}
		if n, ok := t.Rest.(*syntax.NamedType); !ok || len(n.Args) > 0 {
			walkNamedTypes(t.Rest, fn) // a bare `...rest` names the row
		}
	case *syntax.FnType:
		each(t.Params)
		walkNamedTypes(t.Return, fn)
	}
}

// typeParamNamed reports whether name is a type parameter or associated
// type in scope: of the enclosing functions, or, since impl methods see
// their struct's, of any declaration.
func (c *checker) typeParamNamed(name string) bool {
	if c.typeParamInScope(name) {
		return true
	}
	for _, d := range c.env.Decls() {
		for _, tp := range d.TypeParams {
			if tp.Name == name {
				return true
			}
		}
		for _, a := range d.AssocTypes {
			if a.Name == name {
				return true
			}
		}
	}
	return false
}

// tparamNames lists the names of declared type parameters.
func tparamNames(tps []*syntax.TypeParam) []string {
	var out []string
	for _, tp := range tps {
		out = append(out, tp.Name)
	}
	return out
}

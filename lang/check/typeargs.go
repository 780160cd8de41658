package check

import (
	"slices"

	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// This file checks the number of type arguments an annotation gives a
// generic declaration of the file or its imports, or a builtin type:
// `Pair<int>` for `type Pair<A, B>`, `Id<string>` for a `type Id = int`,
// `Result<int>`, `list<int, int>`, `int<string>` (types.BuiltinTypeArgs;
// `dict<V>` stays the shorthand for `dict<string, V>`). The references give no
// wording (docs/spec/newer.md §3.13 words only the mismatch of a
// correctly applied alias); the rule is a mature language's (a generic
// applied to the wrong number of arguments names no type), and the text
// is this implementation's. A bare name (`Pair`) leaves its parameters
// open and is not reported.

// typeArgCounts reports the named types in annotation t applied to a
// number of type arguments their declaration does not take; scope lists
// the type parameters in scope, which hide declarations of their name.
func (c *checker) typeArgCounts(t syntax.TypeExpr, scope []string) {
	if t == nil {
		return
	}
	walkNamedTypes(t, func(n *syntax.NamedType) {
		if len(n.Args) == 0 || slices.Contains(scope, n.Name) || c.typeParamInScope(n.Name) {
			return
		}
		what, want := "", 0
		if d := c.env.Lookup(n.Name); d != nil {
			what, want = d.Kind.String(), len(d.TypeParams)
			if what == "type" {
				what = "type alias"
			}
		} else if k, fits := types.BuiltinTypeArgs(n.Name, len(n.Args)); !fits {
			what, want = "type", k
		}
		if what == "" || len(n.Args) == want {
			return
		}
		c.errorf(n.At, "%s `%s` expects %d type argument(s), found %d", what, n.Name, want, len(n.Args))
	})
}

// typeParamInScope reports whether name is a type parameter of the
// functions being checked.
func (c *checker) typeParamInScope(name string) bool {
	for _, tp := range c.typeParams() {
		if tp.Name == name {
			return true
		}
	}
	return false
}

// cyclicAlias reports a type alias whose expansion reaches itself without
// passing through a type that holds it (a list, dict, shape, function or
// other generic application): `type A = B` with `type B = A`, or `type T
// = T | int`, name no type at all (lang/types marks them: Decl.Cyclic).
// A recursive alias through a container (`type Json = int | list<Json>`)
// is fine. The wording is this implementation's; the schema of such an
// alias fails with `type alias "A" is cyclic` (docs/check.md).
func (c *checker) cyclicAlias(s *syntax.TypeDecl) {
	if d := c.env.Lookup(s.Name); d != nil && d.Node == s && d.Cyclic {
		c.errorf(s.NamePos, "type alias `%s` is cyclic: it expands to itself without a list, dict, shape or function type between", s.Name)
	}
}

package resolve

import "github.com/harnlang/harn/lang/syntax"

// PatternKind classifies a match-arm pattern (docs/spec/language.md §7.4).
type PatternKind int

const (
	PatValue    PatternKind = iota // any other expression, compared with ==
	PatWildcard                    // _
	PatBind                        // a bare identifier: binds the value
	PatVariant                     // Enum.Variant or Enum.Variant(a, b)
	PatList                        // [p0, …, ...rest]
	PatDict                        // {k: p, …, ...rest} with plain keys
)

// ClassifyPattern decides how a match pattern is interpreted. isEnum says
// whether an identifier names an enum (declared in the file, or Result)
// rather than a variable in scope.
func ClassifyPattern(p syntax.Expr, isEnum func(string) bool) PatternKind {
	switch p := p.(type) {
	case *syntax.Ident:
		if p.Name == "_" {
			return PatWildcard
		}
		return PatBind
	case *syntax.MemberExpr:
		if id, ok := p.X.(*syntax.Ident); ok && !p.Optional && isEnum(id.Name) {
			return PatVariant
		}
	case *syntax.MethodCall:
		if id, ok := p.X.(*syntax.Ident); ok && !p.Optional && isEnum(id.Name) {
			return PatVariant
		}
	case *syntax.ListLit:
		return PatList
	case *syntax.DictLit:
		for _, en := range p.Entries {
			if en.KeyExpr != nil {
				return PatValue
			}
			if _, ok := en.Spread.(*syntax.Ident); en.Spread != nil && !ok {
				return PatValue
			}
		}
		return PatDict
	}
	return PatValue
}

// VariantOf returns the enum and variant names of a PatVariant pattern (or
// an Enum.Variant expression).
func VariantOf(p syntax.Expr) (enum, variant string, args []syntax.Expr) {
	switch p := p.(type) {
	case *syntax.MemberExpr:
		return p.X.(*syntax.Ident).Name, p.Name, nil
	case *syntax.MethodCall:
		return p.X.(*syntax.Ident).Name, p.Name, p.Args
	}
	return "", "", nil
}

// HasPlaceholder reports whether the right side of a pipe contains the
// placeholder `_`, searching only call arguments, method receivers and
// arguments, binary and unary operands, list elements, and property and
// subscript receivers and indices (docs/spec/language.md §2.8). A value
// call's callee counts as a receiver (docs/spec/newer.md §1.11), the
// postfix `x!` as a unary operator (§1.4).
func HasPlaceholder(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.Ident:
		return e.Name == "_"
	case *syntax.CallExpr:
		return anyPlaceholder(e.Args)
	case *syntax.ValueCall:
		return HasPlaceholder(e.Fn) || anyPlaceholder(e.Args)
	case *syntax.MethodCall:
		return HasPlaceholder(e.X) || anyPlaceholder(e.Args)
	case *syntax.BinaryExpr:
		return HasPlaceholder(e.X) || HasPlaceholder(e.Y)
	case *syntax.UnaryExpr:
		return HasPlaceholder(e.X)
	case *syntax.NonNilExpr:
		return HasPlaceholder(e.X)
	case *syntax.ListLit:
		return anyPlaceholder(e.Elems)
	case *syntax.MemberExpr:
		return HasPlaceholder(e.X)
	case *syntax.IndexExpr:
		return HasPlaceholder(e.X) || HasPlaceholder(e.Index)
	case *syntax.SliceExpr:
		return HasPlaceholder(e.X) || HasPlaceholder(e.Lo) || HasPlaceholder(e.Hi)
	case *syntax.SpreadExpr:
		return HasPlaceholder(e.X)
	}
	return false
}

func anyPlaceholder(list []syntax.Expr) bool {
	for _, e := range list {
		if HasPlaceholder(e) {
			return true
		}
	}
	return false
}

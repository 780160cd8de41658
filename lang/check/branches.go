package check

import (
	"slices"

	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// A ternary, an `if` expression, a `match` expression, a `try` with a
// `catch` or an `x ?? d` whose branches (for `??`, the non-nil part of x
// and d) give values of different types has their union as its type, and every
// member of it is a value the program may produce: the union goes where
// a type is expected only when every branch does (docs/spec/newer.md
// §3.1, §3.3: a union fits as a whole, as the one a generic call joins
// does). The checker records the branches' own types, so that a branch
// whose type is itself an inferred union (a builtin's nilable result)
// keeps the benefit of the doubt `compatible` gives it, and a nil branch
// (`flag ? 1 : nil`, an `if` without `else`) is left to the nil rules,
// which watch only types the program wrote (docs/check.md). A binding
// initialised with such a value and never reassigned holds its branches
// until narrowing changes its type (`type_of(x) == "int"`).

// joinBranches records the branch types of a join expression, when they
// differ. A ternary or `if` on a constant condition (`true ? 1 : "a"`)
// gives the value of the branch it always takes: cond is the condition
// choosing between the first branch and the other (nil for a match).
func (c *checker) joinBranches(x, cond syntax.Expr, branches ...[]types.Type) {
	if b, ok := cond.(*syntax.BoolLit); ok {
		if b.Value {
			branches = branches[:1]
		} else {
			branches = branches[1:]
		}
	}
	var first types.Type
	for _, b := range branches {
		for _, t := range b {
			if first == nil {
				first = t
			} else if !types.Identical(t, first) {
				c.branches[x] = slices.Concat(branches...)
				return
			}
		}
	}
}

// nilBranch is the branch types of a value that is nil (an `if` without
// `else`, a statement ending a block), shared: most `if`s are statements.
var nilBranch = []types.Type{types.Nil}

// branchOf is the branch types the value x of type t stands for: those
// of a join expression or of a binding holding one, else t itself.
func (c *checker) branchOf(x syntax.Expr, t types.Type) []types.Type {
	if bs := c.branchTypes(x, t); bs != nil {
		return bs
	}
	if t == types.Nil {
		return nilBranch
	}
	return []types.Type{t}
}

// branchTypes is the recorded branch types of x, of type t where it is
// read, or nil.
func (c *checker) branchTypes(x syntax.Expr, t types.Type) []types.Type {
	if bs, ok := c.branches[x]; ok {
		return bs
	}
	switch e := x.(type) {
	case *syntax.Ident:
		ref := c.info.Refs[e]
		if ref == nil || ref.Binding == nil {
			return nil
		}
		if v := c.vars[ref.Binding]; v != nil && v.branches != nil && types.Identical(t, v.t) {
			return v.branches
		}
	}
	return nil
}

// branchMiss reports a joined value with a branch whose value does not
// go where dst is expected.
func (c *checker) branchMiss(at syntax.Expr, src, dst types.Type) bool {
	for _, b := range c.branchTypes(at, src) {
		if b != types.Nil && known(b) && !compatible(b, dst) {
			return true
		}
	}
	return false
}

// tailValue is the expression whose value a block gives, or nil.
func tailValue(b *syntax.Block) syntax.Expr {
	if b == nil || len(b.Stmts) == 0 {
		return nil
	}
	if es, ok := b.Stmts[len(b.Stmts)-1].(*syntax.ExprStmt); ok {
		return es.X
	}
	return nil
}

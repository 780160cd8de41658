package check

import (
	"slices"

	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

func (c *checker) binary(e *syntax.BinaryExpr) types.Type {
	x := c.expr(e.X)
	var y types.Type
	switch e.Op {
	case "&&", "||":
		saved := c.saveNarrow()
		c.narrowFor(e.X, e.Op == "&&")
		y = c.expr(e.Y)
		c.restoreNarrow(saved)
	default:
		y = c.expr(e.Y)
	}
	switch e.Op {
	case "+", "-", "*", "/", "%", "**":
		if c.nilArith(e.Op, e.X, x, e.At) || c.nilArith(e.Op, e.Y, y, e.At) ||
			c.unknownArith(e.Op, e.X, x, e.At) || c.unknownArith(e.Op, e.Y, y, e.At) {
			return types.Any
		}
	}
	switch e.Op {
	case "&&", "||", "==", "!=", "in", "not in":
		return types.Bool
	case "<", ">", "<=", ">=":
		c.compare(e.Op, x, y, e.At)
		return types.Bool
	case "??":
		c.joinBranches(e, nil, c.branchOf(e.X, types.RemoveNil(x)), c.branchOf(e.Y, y))
		if emptyFallback(types.RemoveNil(x), e.Y) {
			// `xs ?? []` with `xs: list<T>?` is a list<T>: an empty
			// literal holds no element of another type
			return types.RemoveNil(x)
		}
		return types.NewUnion(types.RemoveNil(x), y)
	}
	return c.arith(e.Op, x, y, e.At)
}

// kinds returns the value kinds (type_of names) a type may have, or nil
// when any kind is possible.
func kinds(t types.Type) []string {
	if !known(t) {
		return nil
	}
	var out []string
	for _, m := range types.Members(types.Underlying(t)) {
		k := types.KindName(m)
		if k == "" {
			return nil
		}
		// once per kind: `c ?? 0` is an `int | 0`, of one kind, so
		// `(c ?? 0) + 1` is an int
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func numeric(k string) bool { return k == "int" || k == "float" }

// operandsOK reports whether op accepts operands of kinds l and r
// (docs/spec/language.md §6.6).
func operandsOK(op, l, r string) bool {
	if numeric(l) && numeric(r) {
		return true
	}
	if l == "decimal" || r == "decimal" {
		return decimalOperands(op, l, r)
	}
	switch op {
	case "+":
		return l == r && (l == "string" || l == "list" || l == "dict")
	case "*":
		return l == "string" && r == "int" || l == "int" && r == "string"
	}
	return false
}

// decimalOperands reports whether op accepts operands of kinds l and r
// when one is a decimal: another decimal or an int, promoted exactly, and
// only an int exponent for `**`; a float is a type error at run time
// (docs/spec/newer.md §2.4).
func decimalOperands(op, l, r string) bool {
	if op == "**" {
		return l == "decimal" && r == "int"
	}
	return (l == "decimal" || l == "int") && (r == "decimal" || r == "int")
}

// arith checks an arithmetic operator and returns its result type. It
// reports an error only when no combination of the operands' possible
// kinds is valid.
func (c *checker) arith(op string, x, y types.Type, pos syntax.Pos) types.Type {
	lk, rk := kinds(x), kinds(y)
	if lk == nil || rk == nil {
		return types.Any
	}
	valid := false
	for _, l := range lk {
		for _, r := range rk {
			if operandsOK(op, l, r) {
				valid = true
			}
		}
	}
	if !valid {
		l, r := opName(x), opName(y)
		switch op {
		case "+":
			help := ""
			if (l == "string") != (r == "string") {
				// `"n=" + n`: Harn converts nothing implicitly (docs/spec/language.md §6.6)
				help = "Harn does not convert to string implicitly; interpolate (`\"n=${n}\"`) or call `to_string(…)`"
			}
			c.report(sevError, pos, "", help, "can't add "+l+" and "+r)
		case "*":
			c.errorf(pos, "can't multiply %s and %s (try string * int)", l, r)
		default:
			c.errorf(pos, "can't use '%s' on %s and %s (needs numeric operands)", op, l, r)
		}
		return types.Any
	}
	if len(lk) != 1 || len(rk) != 1 {
		return types.Any
	}
	l, r := lk[0], rk[0]
	switch {
	case l == "decimal" || r == "decimal":
		return types.Decimal
	case numeric(l) && numeric(r):
		if op == "**" {
			if l == "int" && r == "int" {
				return types.NewUnion(types.Int, types.Float)
			}
			return types.Float
		}
		if l == "int" && r == "int" {
			return types.Int
		}
		return types.Float
	case l == "string" || r == "string":
		return types.String
	case l == "list":
		// `a + b` of two lists holds the elements of both
		a, ok := types.Underlying(x).(*types.List)
		b, ok2 := types.Underlying(y).(*types.List)
		if op == "+" && ok && ok2 {
			return &types.List{Elem: types.NewUnion(types.Widen(a.Elem), types.Widen(b.Elem))}
		}
		return &types.List{Elem: types.Any}
	case l == "dict":
		if op == "+" {
			if merged := mergeShapes(x, y); merged != nil {
				return merged
			}
			if v := mergedValues(x, y); v != nil {
				return &types.Dict{Key: types.String, Value: v}
			}
		}
		return &types.Dict{Key: types.String, Value: types.Any}
	}
	return types.Any
}

// mergeShapes types `a + b` of two closed shapes right-biased: b's fields
// win, a's others stay (docs/spec/newer.md §1.6). A field optional in b may
// leave a's value in place, so it joins both types.
func mergeShapes(x, y types.Type) *types.Shape {
	a, ok := types.Underlying(x).(*types.Shape)
	b, ok2 := types.Underlying(y).(*types.Shape)
	if !ok || !ok2 || a.Open || b.Open {
		return nil
	}
	out := &types.Shape{}
	for _, f := range a.Fields {
		if g, ok := b.Field(f.Name); ok {
			if g.Optional {
				g.Type = types.NewUnion(f.Type, g.Type)
				g.Optional = f.Optional
			}
			f = g
		}
		out.Fields = append(out.Fields, f)
	}
	for _, g := range b.Fields {
		if _, ok := a.Field(g.Name); !ok {
			out.Fields = append(out.Fields, g)
		}
	}
	return out
}

// mergedValues is the value type of `a + b` where one side is a
// dict<K, V> and the other a dict or closed shape whose values are known:
// the values of both (docs/spec/builtins.md §3.8: `a + b` merges), or nil.
func mergedValues(x, y types.Type) types.Type {
	_, dx := types.Underlying(x).(*types.Dict)
	_, dy := types.Underlying(y).(*types.Dict)
	if !dx && !dy {
		return nil
	}
	var vs []types.Type
	for _, t := range []types.Type{x, y} {
		switch u := types.Underlying(t).(type) {
		case *types.Dict:
			vs = append(vs, types.Widen(u.Value))
		case *types.Shape:
			if u.Open {
				return nil
			}
			for _, f := range u.Fields {
				vs = append(vs, types.Widen(f.Type))
			}
		default:
			return nil
		}
	}
	v := types.NewUnion(vs...)
	if !known(v) {
		return nil
	}
	return v
}

// opName prints an operand type in an operator message: collections by
// their kind, other types as written.
func opName(t types.Type) string {
	switch types.Underlying(t).(type) {
	case *types.Shape, *types.Dict:
		return "dict"
	case *types.List:
		return "list"
	case *types.Set:
		return "set"
	}
	return types.Widen(t).String()
}

// compare warns about orderings that compare as equal at run time
// (docs/spec/language.md §6.4): anything but two numbers, two strings,
// two lists (which docs/spec/newer.md §2.14 orders lexicographically) or
// two decimals (docs/spec/newer.md §2.4).
func (c *checker) compare(op string, x, y types.Type, pos syntax.Pos) {
	lk, rk := kinds(x), kinds(y)
	if len(lk) != 1 || len(rk) != 1 {
		return
	}
	l, r := lk[0], rk[0]
	if numeric(l) && numeric(r) || l == r && (l == "string" || l == "list" || l == "decimal") {
		return
	}
	if l == r {
		c.warnf(pos, "Comparison '%s' may not be meaningful for types %s and %s", op, l, r)
		return
	}
	c.warnf(pos, "Comparing %s with %s using '%s' may give unexpected results", l, r, op)
}

// emptyFallback reports an empty list or dict literal y (`[]`, `{}`) given
// as the fallback of a list or dict x.
func emptyFallback(x types.Type, y syntax.Expr) bool {
	switch t := types.Underlying(x).(type) {
	case *types.List:
		l, ok := y.(*syntax.ListLit)
		return ok && len(l.Elems) == 0
	case *types.Dict:
		d, ok := y.(*syntax.DictLit)
		return ok && len(d.Entries) == 0
	case *types.Shape:
		d, ok := y.(*syntax.DictLit)
		return ok && len(d.Entries) == 0 && t.Open
	}
	return false
}

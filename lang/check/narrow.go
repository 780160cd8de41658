package check

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// This file is nil safety (docs/spec/newer.md §3.5). A value whose declared type is
// `T | nil` must be narrowed before a property, method, index or
// arithmetic use: by `x != nil` / `x == nil` conditions (also through
// `&&`, `||`, `!` and truthiness) in `if`, ternaries and `guard`, by an
// early exit in the `nil` branch, by assigning a non-nil value, or by
// `x!` / `x ?? d`. Narrowings are keyed by access path (`u`, `u.name`) and
// end with the block that established them.
//
// Only paths rooted at an annotated binding or parameter are reported: a
// type the checker inferred (a binding first initialised with nil, a
// branch without else) is not a statement of the program's intent.

// pathKey names an access path: a binding and its property names.
func (c *checker) pathKey(x syntax.Expr) (string, *resolve.Binding) {
	var props []string
	for {
		switch e := x.(type) {
		case *syntax.Ident:
			ref := c.info.Refs[e]
			if ref == nil || ref.Binding == nil {
				return "", nil
			}
			var sb strings.Builder
			sb.WriteString(e.Name)
			for i := len(props) - 1; i >= 0; i-- {
				sb.WriteByte('.')
				sb.WriteString(props[i])
			}
			return sb.String(), ref.Binding
		case *syntax.MemberExpr:
			props = append(props, e.Name)
			x = e.X
		case *syntax.NonNilExpr:
			x = e.X
		default:
			return "", nil
		}
	}
}

// pathRoot is the value a path of property reads starts from.
func pathRoot(x syntax.Expr) syntax.Expr {
	for {
		switch e := x.(type) {
		case *syntax.MemberExpr:
			x = e.X
		case *syntax.NonNilExpr:
			x = e.X
		default:
			return x
		}
	}
}

type narrowKey struct {
	b    *resolve.Binding
	path string
}

// fact is what a condition tells about one path.
type fact struct {
	key  narrowKey
	nn   bool       // the path is not nil
	to   types.Type // the path has this type (type_of tests), when set
	kind string     // the type_of name a type_of test compares with
	excl bool       // key records a kind the path is known not to have
	set  types.Type // the path has exactly this type (a tag test), when set
	mark bool       // key only records that the test held (strict.go's validatedMark)
}

// excludedKind joins a path and a type_of name in the key of a fact that
// the path does not have that kind (so that block scoping of narrowings
// applies to them too).
const excludedKind = "\x00!"

// eitherKind is what `a || b` tells when it holds, for two type_of
// tests of one path (`type_of(x) == "int" || type_of(x) == "float"`):
// the path has one of their kinds, written "int|float" (ofKind reads
// it). Other tests joined by `||` tell nothing.
func eitherKind(a, b []fact) []fact {
	if len(a) != 1 || len(b) != 1 || a[0].kind == "" || b[0].kind == "" || a[0].key != b[0].key {
		return nil
	}
	return []fact{{key: a[0].key, to: types.Any, kind: a[0].kind + "|" + b[0].kind}}
}

// kindTypes maps type_of names to the types a test for them narrows to.
var kindTypes = map[string]types.Type{
	"int": types.Int, "float": types.Float, "string": types.String, "bool": types.Bool,
	"nil": types.Nil, "decimal": types.Decimal, "list": &types.List{Elem: types.Any}, "dict": &types.Dict{Key: types.String, Value: types.Any},
}

// typeOfFact reads `type_of(x) == "kind"` (either side).
func (c *checker) typeOfFact(e *syntax.BinaryExpr) (fact, bool) {
	call, lit := e.X, e.Y
	if _, ok := call.(*syntax.StringLit); ok {
		call, lit = lit, call
	}
	ce, ok := c.kindCall(call)
	sl, ok2 := lit.(*syntax.StringLit)
	if !ok || !ok2 {
		return fact{}, false
	}
	path, b := c.pathKey(ce.Args[0])
	if b == nil {
		return fact{}, false
	}
	t, ok := kindTypes[sl.Value]
	if !ok {
		t = types.Any
	}
	return fact{key: narrowKey{b, path}, to: t, kind: sl.Value}, true
}

// kindCall is the `type_of(v)` call x is, directly or as a binding no
// assignment names that holds it (`let t = type_of(v)`, then `t ==
// "string"` or `match t { … }`), when v's binding is not reassigned
// either, so that the kind read then is still v's.
func (c *checker) kindCall(x syntax.Expr) (*syntax.CallExpr, bool) {
	if id, ok := x.(*syntax.Ident); ok {
		ref := c.info.Refs[id]
		if ref == nil || ref.Binding == nil || c.kindOf[ref.Binding] == nil || !c.neverReassigned(ref.Binding) {
			return nil, false
		}
		x = c.kindOf[ref.Binding]
		if _, b := c.pathKey(x.(*syntax.CallExpr).Args[0]); b == nil || b.Reassign {
			return nil, false
		}
	}
	ce, ok := x.(*syntax.CallExpr)
	if !ok || !isTypeOfCall(ce) {
		return nil, false
	}
	return ce, true
}

// condAlias records a binding no assignment names whose initializer is
// a condition (`let ok = x != nil && y != nil`, `let is_int = type_of(v)
// == "int"`): testing it (`if ok`, `guard ok`, `!ok`) tests the
// condition, as long as every variable the condition narrows is never
// reassigned either, so that what it told still holds (this
// implementation's reading of docs/spec/newer.md §3.5, as for a held
// `type_of` result: a false error on a valid program is what it avoids).
// A condition about a property path (`u.name != nil`) is not held: the
// property may be written in between.
func (c *checker) condAlias(b *resolve.Binding, x syntax.Expr) {
	if !c.neverReassigned(b) {
		return
	}
	switch e := x.(type) {
	case *syntax.BinaryExpr:
		switch e.Op {
		case "==", "!=", "&&", "||", "in", "not in":
		default:
			return
		}
	case *syntax.UnaryExpr:
		if e.Op != "!" {
			return
		}
	case *syntax.CallExpr:
		if e.Fn.Name != "schema_is" && e.Fn.Name != "is_type" {
			return
		}
	default:
		return
	}
	t, f := c.facts(x)
	if len(t)+len(f) == 0 {
		return
	}
	for _, fc := range append(t, f...) {
		if strings.Contains(fc.key.path, ".") || !c.neverReassigned(fc.key.b) {
			return
		}
	}
	c.condOf[b] = x
}

// isTypeOfCall reports a call `type_of(x)` with one plain argument.
func isTypeOfCall(ce *syntax.CallExpr) bool {
	if ce.Fn.Name != "type_of" || len(ce.Args) != 1 {
		return false
	}
	_, spread := ce.Args[0].(*syntax.SpreadExpr)
	return !spread
}

func (c *checker) narrowedType(x syntax.Expr) (types.Type, bool) {
	if !c.shallowEnough(x) {
		return nil, false
	}
	path, b := c.pathKey(x)
	if b == nil {
		return nil, false
	}
	t, ok := c.narrowed[narrowKey{b, path}]
	return t, ok
}

// shallowEnough reports whether x has no more properties than the
// deepest narrowed path, so that a long member chain (generated code)
// is not walked again at every level of it: that cost grew with the
// square of the chain's length.
func (c *checker) shallowEnough(x syntax.Expr) bool {
	limit := -1
	for k := range c.narrowed {
		limit = max(limit, strings.Count(k.path, "."))
	}
	for n := 0; n <= limit; n++ {
		switch e := x.(type) {
		case *syntax.MemberExpr:
			x = e.X
		case *syntax.NonNilExpr:
			x = e.X
			n--
		default:
			return true
		}
	}
	return false
}

// facts returns what cond implies about nil-ness when it is true and when
// it is false.
func (c *checker) facts(cond syntax.Expr) (whenTrue, whenFalse []fact) {
	switch e := cond.(type) {
	case *syntax.BinaryExpr:
		switch e.Op {
		case "!=", "==":
			if is, isNot, ok := c.tagFacts(e); ok {
				if e.Op == "==" {
					return is, isNot
				}
				return isNot, is
			}
			if f, ok := c.typeOfFact(e); ok {
				not := []fact{{key: narrowKey{f.key.b, f.key.path + excludedKind + f.kind}, excl: true}}
				if e.Op == "==" {
					return []fact{f}, not
				}
				return not, []fact{f}
			}
			if f, ok := c.literalFact(e.X, e.Y); ok {
				if e.Op == "==" {
					return []fact{f}, nil
				}
				return nil, []fact{f}
			}
			var subject syntax.Expr
			if _, ok := e.Y.(*syntax.NilLit); ok {
				subject = e.X
			} else if _, ok := e.X.(*syntax.NilLit); ok {
				subject = e.Y
			}
			if subject == nil {
				return nil, nil
			}
			path, b := c.pathKey(subject)
			if b == nil {
				return nil, nil
			}
			f := []fact{{key: narrowKey{b, path}, nn: true}}
			if e.Op == "!=" {
				return f, nil
			}
			return nil, f
		case "&&":
			t1, f1 := c.facts(e.X)
			t2, f2 := c.facts(e.Y)
			return append(t1, t2...), sameMark(f1, f2)
		case "||":
			t1, f1 := c.facts(e.X)
			t2, f2 := c.facts(e.Y)
			if m := sameMark(t1, t2); m != nil {
				return m, append(f1, f2...)
			}
			return eitherKind(t1, t2), append(f1, f2...)
		case "in", "not in":
			// `s in ["a", "b"]`
			if f, ok := c.literalFact(e.X, e.Y); ok {
				if e.Op == "in" {
					return []fact{f}, nil
				}
				return nil, []fact{f}
			}
		}
	case *syntax.MethodCall:
		// `["a", "b"].contains(s)`
		if e.Name == "contains" && len(e.Args) == 1 && !e.Optional {
			if f, ok := c.literalFact(e.Args[0], e.X); ok {
				return []fact{f}, nil
			}
		}
	case *syntax.UnaryExpr:
		if e.Op == "!" {
			t, f := c.facts(e.X)
			return f, t
		}
	case *syntax.CallExpr:
		// schema_is(v, S) / is_type(v, …) narrow an unknown value
		// (to the alias a schema argument names: `schema_is(v, User)`
		// with `type User = {…}` makes v a User)
		if (e.Fn.Name == "schema_is" || e.Fn.Name == "is_type") && len(e.Args) >= 1 {
			if path, b := c.pathKey(e.Args[0]); b != nil {
				to := types.Type(types.Any)
				if len(e.Args) == 2 {
					if t := c.schemaAlias(e.Args[1]); t != nil {
						to = t
					}
				}
				return []fact{{key: narrowKey{b, path}, nn: true, to: to}, {key: narrowKey{b, path + validatedMark}, mark: true}}, nil
			}
		}
	case *syntax.Ident, *syntax.MemberExpr:
		if id, ok := e.(*syntax.Ident); ok {
			if ref := c.info.Refs[id]; ref != nil && ref.Binding != nil && c.condOf[ref.Binding] != nil {
				return c.facts(c.condOf[ref.Binding])
			}
		}
		if path, b := c.pathKey(e); b != nil {
			return []fact{{key: narrowKey{b, path}, nn: true}}, nil
		}
	}
	return nil, nil
}

// literalMark suffixes the narrowing key of a path compared with a
// literal (`s == "red"`, `s in ["a", "b"]`, a match arm of literals):
// declaredBase lets the path go where those literals fit.
const literalMark = "\x00lit"

// literalFact reads a test of the path x against y, a string or int
// literal or a list literal of them (either side for `==`).
func (c *checker) literalFact(x, y syntax.Expr) (fact, bool) {
	if literalText(x) != "" {
		x, y = y, x
	}
	ok := literalText(y) != ""
	if l, isList := y.(*syntax.ListLit); isList && len(l.Elems) > 0 {
		ok = !slices.ContainsFunc(l.Elems, func(e syntax.Expr) bool { return literalText(e) == "" })
	}
	if !ok {
		return fact{}, false
	}
	path, b := c.pathKey(x)
	if b == nil {
		return fact{}, false
	}
	return fact{key: narrowKey{b, path + literalMark}, mark: true}, true
}

// literalValue reports a string or int literal, or a ternary choosing
// between such (`flag ? "red" : "blue"`).
func literalValue(x syntax.Expr) bool {
	if t, ok := x.(*syntax.TernaryExpr); ok {
		return literalValue(t.Then) && literalValue(t.Else)
	}
	return literalText(x) != ""
}

// sameMark is the literal mark both a and b hold for one path (`s ==
// "a" || s == "b"`), or nil.
func sameMark(a, b []fact) []fact {
	if len(a) != 1 || len(b) != 1 || !a[0].mark || a[0].key != b[0].key || !strings.HasSuffix(a[0].key.path, literalMark) {
		return nil
	}
	return a
}

// literalTested reports a path that a literal test holds for here.
func (c *checker) literalTested(x syntax.Expr) bool {
	path, b := c.pathKey(x)
	if b == nil {
		return false
	}
	_, ok := c.narrowed[narrowKey{b, path + literalMark}]
	return ok
}

// apply records facts, typing each path as its current type without nil.
func (c *checker) apply(fs []fact, types_ map[narrowKey]types.Type) {
	set := map[narrowKey]bool{}
	for _, f := range fs {
		t, ok := types_[f.key]
		switch {
		case f.set != nil:
			// two tag tests on one path (`x.k != "a" && x.k != "b"` failing
			// its negation, `x.k == "a" || x.k == "b"` failing) leave the
			// members both allow
			if set[f.key] {
				if both := commonMembers(c.narrowed[f.key], f.set); both != nil {
					c.narrowed[f.key] = both
				}
				continue
			}
			set[f.key] = true
			c.narrowed[f.key] = f.set
		case f.mark:
			c.narrowed[f.key] = types.Any
		case f.excl:
			c.narrowed[f.key] = types.Any
			base, kind, _ := strings.Cut(f.key.path, excludedKind)
			bk := narrowKey{f.key.b, base}
			if u, ok := types.Underlying(types_[bk]).(*types.Union); ok {
				if rest := ofKind(u, kind, false); rest != nil {
					c.narrowed[bk] = rest
				}
			}
		case !ok:
		case f.to != nil:
			// schema tests (to any, or to the alias they name) also vouch
			// for a bare dict's keys
			_, isDict := t.(*types.Dict)
			if types.IsDynamic(t) || isDict && (f.to == types.Any || f.kind == "") {
				c.narrowed[f.key] = f.to
			} else if u, ok := types.Underlying(t).(*types.Union); ok {
				// a declared union: a type_of test keeps the members of
				// that kind; a schema test says nothing checkable
				m := types.Type(types.Any)
				if f.kind != "" {
					if k := ofKind(u, f.kind, true); k != nil {
						m = k
					}
				} else if f.to != types.Any && types.AssignableTo(f.to, t) {
					// `schema_is(v, User)` on a `User | Order`: a User
					m = f.to
				}
				c.narrowed[f.key] = m
			}
		case f.nn:
			c.narrowed[f.key] = types.RemoveNil(t)
			if t == types.Unknown {
				// a nil test rules out the kind "nil", as
				// `type_of(v) != "nil"` would (unreachableCall)
				c.narrowed[narrowKey{f.key.b, f.key.path + excludedKind + "nil"}] = types.Any
			}
		}
	}
}

// tagFacts reads `x.tag == lit` (either side) where x is a tagged shape
// union whose tag is `tag` (docs/spec/language.md §10.6): when it holds, x
// is the members with that tag, otherwise the others. ok is false for any
// other comparison.
func (c *checker) tagFacts(e *syntax.BinaryExpr) (is, isNot []fact, ok bool) {
	m, lit := e.X, e.Y
	if literalKey(m) != "" {
		m, lit = lit, m
	}
	me, isMember := m.(*syntax.MemberExpr)
	key := literalKey(lit)
	if !isMember || me.Optional || key == "" {
		return nil, nil, false
	}
	path, b := c.pathKey(me.X)
	if b == nil {
		return nil, nil, false
	}
	with, without := tagMembers(c.quietType(me.X), me.Name, map[string]bool{key: true})
	if with == nil && without == nil {
		return nil, nil, false
	}
	k := narrowKey{b, path}
	if with != nil {
		is = []fact{{key: k, set: with}}
	}
	if without != nil {
		isNot = []fact{{key: k, set: without}}
	}
	return is, isNot, true
}

// tagMembers splits a tagged shape union whose tag is field into the
// members whose tag is one of keys (as literalKey prints them) and the
// others; each is nil when empty, and both when t is no such union.
func tagMembers(t types.Type, field string, keys map[string]bool) (with, without types.Type) {
	if tagValues(t, field) == nil {
		return nil, nil
	}
	var in, out []types.Type
	for _, m := range types.Underlying(t).(*types.Union).Types {
		f, _ := types.Underlying(m).(*types.Shape).Field(field)
		if keys[f.Type.String()] {
			in = append(in, m)
		} else {
			out = append(out, m)
		}
	}
	if len(in) > 0 {
		with = types.NewUnion(in...)
	}
	if len(out) > 0 {
		without = types.NewUnion(out...)
	}
	return with, without
}

// commonMembers is the union of the members of a that b also has, nil
// when there are none.
func commonMembers(a, b types.Type) types.Type {
	var out []types.Type
	inB := types.Members(b)
	for _, m := range types.Members(a) {
		if slices.Contains(inB, m) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return types.NewUnion(out...)
}

// literalKey is a string, int or bool literal as its literal type prints
// ("ok", 3, -1, true), or "".
func literalKey(x syntax.Expr) string {
	if b, ok := x.(*syntax.BoolLit); ok {
		return strconv.FormatBool(b.Value)
	}
	return literalText(x)
}

// ofKind is the union of u's members whose type_of name is kind (or,
// with want false, is not); nil when there are none.
func ofKind(u *types.Union, kind string, want bool) types.Type {
	var ms []types.Type
	kinds := strings.Split(kind, "|") // eitherKind's alternatives
	for _, m := range u.Types {
		if slices.Contains(kinds, types.KindName(m)) == want {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	return types.NewUnion(ms...)
}

// pathTypes evaluates the current types of the paths facts mention
// (without reporting anything).
func (c *checker) pathTypes(cond syntax.Expr, out map[narrowKey]types.Type) {
	switch e := cond.(type) {
	case *syntax.BinaryExpr:
		c.pathTypes(e.X, out)
		c.pathTypes(e.Y, out)
	case *syntax.UnaryExpr:
		c.pathTypes(e.X, out)
	case *syntax.CallExpr:
		for _, a := range e.Args {
			c.pathTypes(a, out)
		}
	case *syntax.Ident, *syntax.MemberExpr:
		if path, b := c.pathKey(e); b != nil {
			if t := c.quietType(e); t != nil {
				out[narrowKey{b, path}] = t
			}
		}
		if id, ok := e.(*syntax.Ident); ok {
			// `t == "int"` with `let t = type_of(v)` tests v
			if ce, ok := c.kindCall(id); ok {
				c.pathTypes(ce.Args[0], out)
			}
			// `if ok` with `let ok = x != nil` tests x
			if ref := c.info.Refs[id]; ref != nil && ref.Binding != nil && c.condOf[ref.Binding] != nil {
				c.pathTypes(c.condOf[ref.Binding], out)
			}
		}
	}
}

// quietType is the type of a path without diagnostics.
func (c *checker) quietType(x syntax.Expr) types.Type {
	if t, ok := c.narrowedType(x); ok {
		return t
	}
	switch e := x.(type) {
	case *syntax.Ident:
		ref := c.info.Refs[e]
		if ref == nil || ref.Binding == nil {
			return nil
		}
		if v := c.vars[ref.Binding]; v != nil {
			return v.t
		}
		if ref.Binding.Kind == resolve.KImport && !c.multiDecl[e.Name] && c.importRef(ref, false) {
			// an imported `pub const` / `pub let` (importedValue)
			if t, ok := c.importedValue("", e.Name); ok {
				return t
			}
		}
	case *syntax.MemberExpr:
		if id, ok := e.X.(*syntax.Ident); ok && !e.Optional && !c.multiDecl[id.Name] && c.importRef(c.info.Refs[id], true) {
			// `ns.LIMIT`, a value a namespace import exports
			if t, ok := c.importedValue(id.Name, e.Name); ok {
				return t
			}
			return nil
		}
		rt := c.quietType(e.X)
		if rt == nil {
			return nil
		}
		saved, seen := c.diags, c.seen
		c.seen = map[string]bool{}
		t := c.memberType(types.RemoveNil(rt), e.Name, e.At)
		c.diags, c.seen = saved, seen
		return t
	}
	return nil
}

// narrowFor applies what cond implies (truth says which outcome).
func (c *checker) narrowFor(cond syntax.Expr, truth bool) {
	t, f := c.facts(cond)
	fs := t
	if !truth {
		fs = f
	}
	if len(fs) == 0 {
		return
	}
	ts := map[narrowKey]types.Type{}
	c.pathTypes(cond, ts)
	c.apply(fs, ts)
}

// narrowState is the narrowing in force at a point of a function: the
// type each narrowed path has there.
type narrowState = map[narrowKey]types.Type

func (c *checker) saveNarrow() narrowState { return maps.Clone(c.narrowed) }

// restoreNarrow goes back to a saved state; the state is copied, so that
// one saved state may be restored more than once.
func (c *checker) restoreNarrow(m narrowState) { c.narrowed = maps.Clone(m) }

// joinNarrow sets the narrowings after control paths meet, given the
// states at the end of each path that reaches that point: a path is
// narrowed only when every incoming path narrowed it, to the union of
// its types there. With no incoming path the code after is unreachable,
// and the state before the paths split (before) stays.
func (c *checker) joinNarrow(before narrowState, ends []narrowState) {
	if len(ends) == 0 {
		c.restoreNarrow(before)
		return
	}
	out := narrowState{}
	for k, t := range ends[0] {
		ts := []types.Type{t}
		for _, end := range ends[1:] {
			u, ok := end[k]
			if !ok {
				ts = nil
				break
			}
			ts = append(ts, u)
		}
		if ts != nil {
			out[k] = types.NewUnion(ts...)
		}
	}
	c.narrowed = out
}

// blockLeaves reports whether running a block never reaches its end: it
// exits the function (exits), or its last statement leaves by `break`
// or `continue`, so the code after an enclosing if or match is not
// reached through it.
func (c *checker) blockLeaves(b *syntax.Block) bool {
	if b == nil {
		return false
	}
	if c.exits(b.Stmts) {
		return true
	}
	for _, s := range b.Stmts {
		switch s.(type) {
		case *syntax.BreakStmt, *syntax.ContinueStmt:
			return true
		}
	}
	return false
}

// forget drops the narrowings of a binding (it was reassigned).
func (c *checker) forget(b *resolve.Binding) {
	for k := range c.narrowed {
		if k.b == b {
			delete(c.narrowed, k)
		}
	}
}

// nilable reports whether t is T | nil for some known T.
func nilable(t types.Type) bool {
	if t == nil || types.ContainsDynamic(t) {
		return false
	}
	u, ok := types.Underlying(t).(*types.Union)
	if !ok {
		return false
	}
	hasNil := false
	for _, m := range u.Types {
		if m == types.Nil {
			hasNil = true
		}
	}
	return hasNil
}

// declaredPath reports whether x is an access path rooted at a binding
// whose type the program declared (an annotation or a parameter), or at
// a `pick` projection of such a path.
func (c *checker) declaredPath(x syntax.Expr) bool {
	_, b := c.pathKey(x)
	if b == nil {
		root := pathRoot(x)
		if root != x {
			// a field of the record a declared call returns (`load().port`
			// with `fn load() -> Cfg`) is as declared as the function states
			if t, ok := c.declaredCallResult(root); ok && c.declaredResult(root, t) {
				return true
			}
		}
		return c.declaredPick(root)
	}
	v := c.vars[b]
	if v == nil && b.Kind == resolve.KImport {
		// an imported value whose module wrote its type down (`pub
		// const LIMIT: int? = nil`)
		ic, ok := c.imports.(ImportedConsts)
		if !ok || c.multiDecl[b.Name] {
			return false
		}
		if id, ok := x.(*syntax.Ident); ok && c.importRef(c.info.Refs[id], false) {
			return ic.ImportedConstDeclared("", id.Name)
		}
		// `ns.LIMIT`, the same value read through a namespace import
		if m, ok := x.(*syntax.MemberExpr); ok && !m.Optional {
			if id, ok := m.X.(*syntax.Ident); ok && c.importRef(c.info.Refs[id], true) {
				return ic.ImportedConstDeclared(id.Name, m.Name)
			}
		}
	}
	return v != nil && v.annotated
}

// watchedNilable reports a value of nilable type t that nil safety
// watches: one whose type the program wrote down (a path rooted at an
// annotated binding or parameter, a call of a function declared to
// return `T?`), or an optional chain `a?.b`, `a?.[i]` from such a path.
func (c *checker) watchedNilable(x syntax.Expr, t types.Type) bool {
	if !nilable(t) {
		return false
	}
	if c.declaredPath(x) || c.declaredNilable(x, t) {
		return true
	}
	switch e := x.(type) {
	case *syntax.IndexExpr:
		return e.Optional && c.declaredPath(e.X)
	case *syntax.MemberExpr:
		return e.Optional && c.declaredPath(e.X)
	case *syntax.MethodCall:
		return e.Optional && c.declaredPath(e.X)
	}
	return false
}

// optionalChainNil reports an optional chain from a declared nilable
// path (`u?.name`, `c?.get()`, `xs?.[0]` with `u: User?`), which is nil
// when the receiver is, going where nil is not accepted: a return value,
// an argument, a field, as for an annotated binding (docs/spec/newer.md
// §3.5).
func (c *checker) optionalChainNil(at syntax.Expr, src, dst types.Type) bool {
	var recv syntax.Expr
	switch x := at.(type) {
	case *syntax.MemberExpr:
		recv = x.X
	case *syntax.MethodCall:
		recv = x.X
	case *syntax.IndexExpr:
		recv = x.X
	default:
		return false
	}
	// a receiver narrowed to non-nil (or never nil) leaves nil only to
	// what the chain reads, which the member's own type says
	return nilable(c.quietType(recv)) && c.watchedNilable(at, src) && !types.AssignableTo(types.Nil, dst)
}

// nilUse reports a use of a possibly-nil value; what is "property `p`",
// "method `m`", "an index".
func (c *checker) nilUse(x syntax.Expr, t types.Type, what string, pos syntax.Pos) {
	if c.knownNil(x) {
		c.report(sevError, pos, "", "it fails at run time with: "+runtimeNil(what),
			fmt.Sprintf("cannot access %s on `nil`; the value is statically known to be nil here", what))
		return
	}
	if f := c.importedCall(x); f != nil && f.foreignNil != nil {
		t = f.foreignNil
	}
	if !c.watchedNilable(x, t) {
		return
	}
	c.errorf(pos, "cannot access %s on nilable type `%s`; the value may be nil at runtime", what, t)
}

// needlessNonNil warns about `x!` on a value whose type cannot be nil:
// upstream's lint HARN-LNT-063, "unnecessary non-null assertion"
// (docs/spec/newer.md §1.4; the text after those words is ours).
//
// A value that is non-nil only because the flow narrowed it (`if n ==
// nil { return }` then `n!`, a guard) is left alone: its declared type is
// nilable, and the `!` states what the reader should rely on.
func (c *checker) needlessNonNil(e *syntax.NonNilExpr, t types.Type) {
	if !known(t) || types.AssignableTo(types.Nil, t) {
		return
	}
	if _, narrowed := c.narrowedType(e.X); narrowed {
		return
	}
	c.report(sevWarning, e.At, "HARN-LNT-063", "remove the `!`",
		fmt.Sprintf("unnecessary non-null assertion: a value of type `%s` is never nil", show(t, nil)))
}

// nilArith reports arithmetic on a possibly-nil operand.
func (c *checker) nilArith(op string, x syntax.Expr, t types.Type, pos syntax.Pos) bool {
	if f := c.importedCall(x); f != nil && f.foreignNil != nil {
		t = f.foreignNil
	}
	if !c.watchedNilable(x, t) {
		return false
	}
	c.errorf(pos, "operator `%s` cannot be applied to nilable type `%s`; the operand may be nil at runtime", op, t)
	return true
}

// unknownArith reports arithmetic on a declared `unknown` value that was
// not narrowed: it may only be passed around (docs/spec/newer.md §3.7).
func (c *checker) unknownArith(op string, x syntax.Expr, t types.Type, pos syntax.Pos) bool {
	if t != types.Unknown || !c.declaredPath(x) {
		return false
	}
	c.report(sevError, pos, "", narrowHelp(x, types.Int),
		fmt.Sprintf("operator `%s` cannot be applied to type `unknown`; the value must be narrowed first", op))
	return true
}

// unknownInto reports a declared `unknown` value, not narrowed, going
// where a definite type is expected: it must be narrowed first
// (docs/spec/newer.md §3.7). The result says whether it was reported.
func (c *checker) unknownInto(at syntax.Expr, t, dst types.Type, context string) bool {
	if t != types.Unknown {
		return c.unknownWithin(at, t, dst, context)
	}
	if !known(dst) || !c.declaredPath(at) && !c.unknownCall(at) {
		return false
	}
	c.report(sevError, at.Position(), "HARN-TYP-007", narrowHelp(at, dst),
		fmt.Sprintf("%s: expected %s, found unknown", context, dst))
	return true
}

// unknownWithin reports a value whose type holds `unknown` where dst
// holds a definite type (`[v]` for a `list<int>`, `Box {v: v}` for a
// `Box<int>`, with `v: unknown`): the `unknown` part goes where a type is
// required without being narrowed, as v itself would (unknownInto). Only
// a program's `unknown` annotations give a type an `unknown` part, so a
// part of a container holding one was declared so, whatever the path.
func (c *checker) unknownWithin(at syntax.Expr, t, dst types.Type, context string) bool {
	if t == nil || !known(dst) {
		return false
	}
	part := unknownMeets(t, dst, 0)
	if part == nil {
		return false
	}
	help := "narrow the `unknown` value first: `type_of(v)`, `schema_is(v, S)` or a match"
	if v := c.unknownPart(at); v != nil {
		help = narrowHelp(v, part)
	}
	c.report(sevError, at.Position(), "HARN-TYP-007", help,
		fmt.Sprintf("%s: expected %s, found %s", context, dst, show(t, dst)))
	return true
}

// unknownCall reports a call given a declared `unknown` value whose
// result is that value's type (`id(v)` with `fn id<T>(x: T) -> T`).
func (c *checker) unknownCall(at syntax.Expr) bool {
	switch at.(type) {
	case *syntax.CallExpr, *syntax.MethodCall:
		return c.unknownPart(at) != nil
	}
	return false
}

// unknownMeets walks src and dst side by side and returns the part of
// dst (a known type) that an `unknown` part of src meets, nil when there
// is none: elements of lists, tuples and sets, dict values and shape
// fields, Result sides and the type arguments of one generic
// declaration. A union dst is followed into its one member of src's
// kind.
func unknownMeets(src, dst types.Type, depth int) types.Type {
	if depth > 12 || src == nil || dst == nil {
		return nil
	}
	depth++
	if src == types.Unknown {
		if known(dst) {
			return dst
		}
		return nil
	}
	if u, ok := src.(*types.Union); ok {
		for _, m := range u.Types {
			if p := unknownMeets(m, dst, depth); p != nil {
				return p
			}
		}
		return nil
	}
	if n, ok := src.(*types.Named); ok {
		if d, ok := dst.(*types.Named); ok && d.Decl == n.Decl && len(d.Args) == len(n.Args) {
			for i := range n.Args {
				if p := unknownMeets(n.Args[i], d.Args[i], depth); p != nil {
					return p
				}
			}
			return nil
		}
	}
	s, d := types.Underlying(src), types.Underlying(dst)
	if u, ok := d.(*types.Union); ok {
		kind := types.KindName(s)
		var same types.Type
		for _, m := range u.Types {
			if kind != "" && types.KindName(m) == kind {
				if same != nil {
					return nil // two members of its kind: no single one to follow
				}
				same = m
			}
		}
		if same == nil {
			return nil
		}
		return unknownMeets(src, same, depth)
	}
	switch s := s.(type) {
	case *types.List:
		switch d := d.(type) {
		case *types.List:
			return unknownMeets(s.Elem, d.Elem, depth)
		case *types.Tuple:
			for _, e := range d.Elems {
				if p := unknownMeets(s.Elem, e, depth); p != nil {
					return p
				}
			}
		}
	case *types.Tuple:
		switch d := d.(type) {
		case *types.List:
			for _, e := range s.Elems {
				if p := unknownMeets(e, d.Elem, depth); p != nil {
					return p
				}
			}
		case *types.Tuple:
			for i := range min(len(s.Elems), len(d.Elems)) {
				if p := unknownMeets(s.Elems[i], d.Elems[i], depth); p != nil {
					return p
				}
			}
		}
	case *types.Set:
		if d, ok := d.(*types.Set); ok {
			return unknownMeets(s.Elem, d.Elem, depth)
		}
	case *types.Dict:
		switch d := d.(type) {
		case *types.Dict:
			return unknownMeets(s.Value, d.Value, depth)
		case *types.Shape:
			for _, f := range d.Fields {
				if p := unknownMeets(s.Value, f.Type, depth); p != nil {
					return p
				}
			}
		}
	case *types.Shape:
		switch d := d.(type) {
		case *types.Dict:
			for _, f := range s.Fields {
				if p := unknownMeets(f.Type, d.Value, depth); p != nil {
					return p
				}
			}
		case *types.Shape:
			for _, f := range s.Fields {
				if df, ok := d.Field(f.Name); ok {
					if p := unknownMeets(f.Type, df.Type, depth); p != nil {
						return p
					}
				}
			}
		}
	case *types.Result:
		if d, ok := d.(*types.Result); ok {
			if p := unknownMeets(s.Ok, d.Ok, depth); p != nil {
				return p
			}
			return unknownMeets(s.Err, d.Err, depth)
		}
	}
	return nil
}

// unknownPart finds, in a literal or call, the first value that is a
// declared `unknown` path (`v` in `Box {v: v}` or `[1, v]`), for the
// help that names it; nil when there is none.
func (c *checker) unknownPart(x syntax.Expr) syntax.Expr {
	var found syntax.Expr
	var walk func(x syntax.Expr, depth int)
	walk = func(x syntax.Expr, depth int) {
		if found != nil || x == nil || depth > 8 {
			return
		}
		switch e := x.(type) {
		case *syntax.Ident, *syntax.MemberExpr:
			if c.quietType(e) == types.Unknown && c.declaredPath(e) {
				found = e
			}
		case *syntax.ListLit:
			for _, el := range e.Elems {
				walk(el, depth+1)
			}
		case *syntax.DictLit:
			for _, en := range e.Entries {
				walk(en.Value, depth+1)
			}
		case *syntax.StructLit:
			for _, en := range e.Fields {
				walk(en.Value, depth+1)
			}
		case *syntax.CallExpr:
			for _, a := range e.Args {
				walk(a, depth+1)
			}
		case *syntax.MethodCall:
			for _, a := range e.Args {
				walk(a, depth+1)
			}
		}
	}
	walk(x, 0)
	return found
}

// narrowHelp suggests the tests that narrow the unknown value at (a
// declared path, so `u` or `u.name`) to what dst expects: a type_of test
// for dst's kind (a union's first member that a test narrows to), a
// schema test. A kind no type_of test narrows to (a closure, a struct,
// an interface) gets the schema test alone.
func narrowHelp(at syntax.Expr, dst types.Type) string {
	v := pathText(at, "v")
	if kind := narrowKind(dst); kind != "" {
		return fmt.Sprintf("narrow it first: `type_of(%s) == %q`, `schema_is(%s, S)` or a match", v, kind, v)
	}
	return fmt.Sprintf("narrow it first: `schema_is(%s, S)` or a match", v)
}

// narrowKind is the type_of name whose test narrows a value to dst (or
// to a member of the union dst), "" when there is none.
func narrowKind(dst types.Type) string {
	if kind := types.KindName(dst); kindTypes[kind] != nil {
		return kind
	}
	if u, ok := types.Underlying(dst).(*types.Union); ok {
		for _, m := range u.Types {
			if kind := types.KindName(m); kindTypes[kind] != nil {
				return kind
			}
		}
	}
	return ""
}

// unknownBound reports an `unknown` value at, a declared path, passed
// for a parameter typed by a type parameter with `where` bounds
// (`fn greet<T: Named>(x: T)`): no bound can be checked on it, as an
// interface parameter would not take it either (unknownInto).
func (c *checker) unknownBound(at syntax.Expr, t, param types.Type, context string) bool {
	tp, ok := param.(*types.TypeParam)
	if t != types.Unknown || !ok || len(tp.Bounds) == 0 || !c.declaredPath(at) {
		return false
	}
	bounds := make([]string, len(tp.Bounds))
	for i := range tp.Bounds {
		bounds[i] = tp.BoundText(i)
	}
	c.report(sevError, at.Position(), "HARN-TYP-007", narrowHelp(at, types.Any),
		fmt.Sprintf("%s: expected %s: %s, found unknown", context, tp.Name, strings.Join(bounds, " + ")))
	return true
}

// unknownUse warns about using a declared `unknown` value before
// narrowing it (docs/spec/newer.md §3.7).
func (c *checker) unknownUse(x syntax.Expr, t types.Type, msg string, pos syntax.Pos) {
	if t != types.Unknown || !c.declaredPath(x) {
		return
	}
	c.warnf(pos, "%s", msg)
}

// runtimeNil is the run-time error of a use of nil (what as for nilUse).
func runtimeNil(what string) string {
	switch {
	case strings.HasPrefix(what, "property "):
		return "cannot access " + what + " on nil"
	case strings.HasPrefix(what, "method "):
		return "value of type nil has no " + what
	}
	return "cannot index into nil"
}

// knownNil reports a receiver that can only be nil: the nil literal, a
// binding annotated `nil`, or one initialised with nil and never assigned
// again (assignments anywhere, even in a loop or a branch, leave it alone).
func (c *checker) knownNil(x syntax.Expr) bool {
	switch e := x.(type) {
	case *syntax.Ident:
		ref := c.info.Refs[e]
		if ref == nil || ref.Binding == nil || ref.Binding.Reassign || ref.Binding.PathRoot {
			return false
		}
		if _, ok := c.narrowed[narrowKey{ref.Binding, e.Name}]; ok {
			return false
		}
		v := c.vars[ref.Binding]
		return v != nil && (v.nilInit || v.annotated && v.t == types.Nil)
	}
	return false
}

// concreteKinds are the type_of names an `unknown` value may have, in the
// order upstream lists what a narrowing left uncovered.
var concreteKinds = []string{"int", "float", "string", "bool", "nil", "list", "dict", "closure", "bytes"}

// unreachableCall warns when `unreachable()` is reached while type_of
// tests have ruled out only some kinds of an `unknown` binding
// (docs/spec/newer.md §3.7).
func (c *checker) unreachableCall(pos syntax.Pos) {
	excluded := map[*resolve.Binding]map[string]bool{}
	for k := range c.narrowed {
		name, kind, ok := strings.Cut(k.path, excludedKind)
		if !ok || name != k.b.Name {
			continue
		}
		if v := c.vars[k.b]; v == nil || !v.annotated || v.t != types.Unknown {
			continue
		}
		if excluded[k.b] == nil {
			excluded[k.b] = map[string]bool{}
		}
		excluded[k.b][kind] = true
	}
	bs := make([]*resolve.Binding, 0, len(excluded))
	for b := range excluded {
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
	for _, b := range bs {
		var left []string
		for _, k := range concreteKinds {
			if !excluded[b][k] {
				left = append(left, k)
			}
		}
		if len(left) > 0 {
			c.warnf(pos, "`unreachable()` reached but `%s: unknown` was not fully narrowed — uncovered concrete type(s): %s", b.Name, strings.Join(left, ", "))
		}
	}
}

// schemaAlias is the type a schema argument names when it is a type
// alias without type parameters (`schema_is(v, User)` with `type User =
// {…}`; the compiler passes its JSON schema, docs/spec/language.md §10.6),
// nil for any other argument (a schema dict, a variable).
func (c *checker) schemaAlias(x syntax.Expr) types.Type {
	id, ok := x.(*syntax.Ident)
	if !ok || c.multiDecl[id.Name] {
		return nil
	}
	name, ok := c.info.SchemaTypes[id]
	if !ok {
		return nil
	}
	d := c.env.Lookup(name)
	if d == nil || d.Kind != types.AliasDecl || len(d.TypeParams) > 0 {
		return nil
	}
	return &types.Named{Decl: d}
}

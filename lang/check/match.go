package check

import (
	"slices"
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// match checks a match expression: arm bindings get the scrutinee's (or
// the variant payload's) type, pattern literals are compared with the
// scrutinee's kind, and a match over an enum, Result or literal union
// must cover every case unless an arm catches all (docs/spec/language.md §7.4).
func (c *checker) match(e *syntax.MatchExpr) types.Type {
	st := c.expr(e.X)
	kinds0 := c.typeOfKinds(e.X) // the kinds `match type_of(v)` must cover
	var results, branches []types.Type
	nilDone := false // an earlier arm took nil, so the later ones see no nil
	// The code after the match is reached through the arms that fall
	// through (no arm matching throws: docs/spec/language.md §7.4), so it
	// keeps the narrowings all of them end with: after a `nil` arm that
	// returns, the scrutinee is not nil (docs/spec/newer.md §3.5).
	before := c.saveNarrow()
	var ends []narrowState
	var kinds []syntax.Expr // the kinds earlier arms of `match type_of(v)` took
	for _, arm := range e.Arms {
		c.fn.pushScope()
		armSt := st
		if nilDone {
			armSt = types.RemoveNil(st)
		}
		for _, p := range arm.Patterns {
			alt := len(arm.Patterns) > 1
			if alt && !c.literalAlternative(p) {
				c.errorf(p.Position(), "or-pattern alternatives must be literals")
			}
			c.pattern(p, armSt, alt)
			c.declaredBind(e.X, p, armSt, alt)
		}
		saved := c.saveNarrow()
		c.kindArm(e.X, arm)
		c.tagArm(e.X, arm)
		if arm.Guard == nil && len(arm.Patterns) > 0 && !slices.ContainsFunc(arm.Patterns, func(p syntax.Expr) bool { return literalText(p) == "" }) {
			// an arm of literals: the scrutinee holds one of them
			if path, b := c.pathKey(e.X); b != nil {
				c.narrowed[narrowKey{b, path + literalMark}] = types.Any
			}
		}
		for _, k := range kinds {
			c.narrowFor(&syntax.BinaryExpr{Op: "==", X: e.X, Y: k}, false)
		}
		if arm.Guard == nil {
			kinds = append(kinds, c.kindPatterns(e.X, arm)...)
		}
		if nilDone {
			c.narrowFor(&syntax.BinaryExpr{Op: "!=", X: e.X, Y: &syntax.NilLit{}}, true)
		}
		if arm.Guard == nil && slices.ContainsFunc(arm.Patterns, isNilLit) {
			nilDone = true
		}
		if arm.Guard != nil {
			c.expr(arm.Guard)
			c.narrowFor(arm.Guard, true) // the body runs only when the guard holds
		}
		var v types.Type = types.Nil
		if arm.Body != nil {
			if t := c.stmts(arm.Body.Stmts, false); t != nil {
				v = t
			}
		}
		if !c.blockLeaves(arm.Body) {
			ends = append(ends, c.narrowed)
		}
		branches = append(branches, c.branchOf(tailValue(arm.Body), v)...)
		c.restoreNarrow(saved)
		c.fn.popScope()
		results = append(results, c.leftValue(arm.Body, v))
	}
	// coverage is judged on the scrutinee as it was before the match (the
	// join below narrows a tagged union to the tags the arms took)
	if c.exhaustive(e, st, kinds0) {
		c.complete[e] = true
	}
	c.joinNarrow(before, ends)
	if len(results) == 0 {
		return types.Any
	}
	c.joinBranches(e, nil, branches)
	return types.NewUnion(results...)
}

// declaredBind marks the name a catch-all pattern binds as declared when
// the scrutinee is a value nil safety watches, still nilable in this arm
// (`match x { n -> … }` with `x: int?` and no `nil` arm before it): n may
// be nil as x may (docs/spec/newer.md §3.5).
func (c *checker) declaredBind(subject, p syntax.Expr, st types.Type, alt bool) {
	id, ok := p.(*syntax.Ident)
	if !ok || alt || c.classify(p) != resolve.PatBind || !c.declaredNilable(subject, st) {
		return
	}
	if v := c.vars[c.binding(id, id.Name)]; v != nil {
		v.annotated = true
	}
}

// nilArm reports whether an arm without a guard matches nil.
// undefinedCallArm reports whether an arm's pattern calls a name the
// resolver could not find (reported there as an undefined call target).
func (c *checker) undefinedCallArm(e *syntax.MatchExpr) bool {
	for _, arm := range e.Arms {
		for _, p := range arm.Patterns {
			if call, ok := p.(*syntax.CallExpr); ok {
				if ref := c.info.Refs[call.Fn]; ref != nil && ref.Scope == resolve.Undefined {
					return true
				}
			}
		}
	}
	return false
}

func nilArm(e *syntax.MatchExpr) bool {
	return slices.ContainsFunc(e.Arms, func(arm *syntax.MatchArm) bool {
		return arm.Guard == nil && slices.ContainsFunc(arm.Patterns, isNilLit)
	})
}

func isNilLit(p syntax.Expr) bool {
	_, ok := p.(*syntax.NilLit)
	return ok
}

// literalAlternative reports whether p may be an alternative of an
// or-pattern: a literal, or an enum variant compared with ==
// (docs/spec/newer.md §1.12; upstream's wording for the error is unverified).
func (c *checker) literalAlternative(p syntax.Expr) bool {
	switch x := p.(type) {
	case *syntax.StringLit, *syntax.IntLit, *syntax.FloatLit, *syntax.BoolLit, *syntax.NilLit, *syntax.DurationLit:
		return true
	case *syntax.UnaryExpr:
		switch x.X.(type) {
		case *syntax.IntLit, *syntax.FloatLit:
			return x.Op == "-"
		}
		return false
	case *syntax.CallExpr, *syntax.MethodCall:
		return false // a variant with a payload pattern binds (or tests) its fields
	}
	return c.classify(p) == resolve.PatVariant
}

// tagArm narrows, in an arm of `match x.tag { "a" | "b" -> … }` over a
// tagged shape union x, or of `match x { {tag: "a"} -> … }`, the path x to
// the members with the arm's tags (docs/spec/language.md §10.6).
func (c *checker) tagArm(subject syntax.Expr, arm *syntax.MatchArm) {
	base, field := subject, ""
	if m, ok := subject.(*syntax.MemberExpr); ok && !m.Optional && tagValues(c.quietType(m.X), m.Name) != nil {
		base, field = m.X, m.Name
	} else if field = tagField(c.quietType(subject)); field == "" {
		return
	}
	keys := map[string]bool{}
	for _, p := range arm.Patterns {
		if base != subject {
			keys[literalKey(p)] = true
			continue
		}
		d, ok := p.(*syntax.DictLit)
		if !ok {
			return
		}
		for _, en := range d.Entries {
			if en.KeyName == field {
				keys[literalKey(en.Value)] = true
			}
		}
	}
	if keys[""] || len(keys) == 0 {
		return // a pattern that is no tag literal: any member may match
	}
	path, b := c.pathKey(base)
	if b == nil {
		return
	}
	if with, _ := tagMembers(c.quietType(base), field, keys); with != nil {
		c.narrowed[narrowKey{b, path}] = with
	}
}

// kindArm narrows, in an arm of `match type_of(v) { "int" -> … }` whose
// patterns are strings, the path v as a `type_of(v) == "int"` test
// would; an or-pattern (`"int" | "float" -> …`) as the tests joined by
// `||` would (v is an int or a float there).
func (c *checker) kindArm(subject syntax.Expr, arm *syntax.MatchArm) {
	if len(arm.Patterns) == 0 {
		return
	}
	var test syntax.Expr
	for _, p := range arm.Patterns {
		if _, ok := p.(*syntax.StringLit); !ok {
			return
		}
		eq := &syntax.BinaryExpr{Op: "==", X: subject, Y: p}
		if _, ok := c.typeOfFact(eq); !ok {
			return
		}
		if test == nil {
			test = eq
		} else {
			test = &syntax.BinaryExpr{Op: "||", X: test, Y: eq}
		}
	}
	c.narrowFor(test, true)
}

// kindPatterns lists the kinds an arm of `match type_of(v)` takes, when
// its patterns are all string literals: the arms after it see v as a
// value of none of them, as the false branch of `type_of(v) == "int"`
// does (docs/spec/newer.md §3.7).
func (c *checker) kindPatterns(subject syntax.Expr, arm *syntax.MatchArm) []syntax.Expr {
	if _, ok := c.kindCall(subject); !ok {
		return nil
	}
	for _, p := range arm.Patterns {
		if _, ok := p.(*syntax.StringLit); !ok {
			return nil
		}
	}
	return arm.Patterns
}

func (c *checker) classify(p syntax.Expr) resolve.PatternKind {
	return resolve.ClassifyPattern(p, func(name string) bool {
		switch x := p.(type) {
		case *syntax.MemberExpr:
			return c.isEnumRef(x.X.(*syntax.Ident))
		case *syntax.MethodCall:
			return c.isEnumRef(x.X.(*syntax.Ident))
		}
		return false
	})
}

func (c *checker) pattern(p syntax.Expr, st types.Type, alt bool) {
	switch c.classify(p) {
	case resolve.PatWildcard:
	case resolve.PatBind:
		if alt {
			c.expr(p)
			return
		}
		id := p.(*syntax.Ident)
		c.declare(c.binding(id, id.Name), &variable{t: st})
	case resolve.PatVariant:
		enum, name, args := resolve.VariantOf(p)
		c.variantPattern(enum, name, args, st, p.Position(), alt)
	case resolve.PatList:
		if alt {
			c.expr(p)
			return
		}
		for _, el := range p.(*syntax.ListLit).Elems {
			switch el := el.(type) {
			case *syntax.Ident:
				if el.Name != "_" {
					c.declare(c.binding(el, el.Name), &variable{t: types.Any})
				}
			case *syntax.SpreadExpr:
				if id, ok := el.X.(*syntax.Ident); ok && id.Name != "_" {
					c.declare(c.binding(id, id.Name), &variable{t: &types.List{Elem: types.Any}})
				}
			default:
				c.expr(el)
			}
		}
	case resolve.PatDict:
		if alt {
			c.expr(p)
			return
		}
		for _, en := range p.(*syntax.DictLit).Entries {
			if rest, ok := en.Spread.(*syntax.Ident); ok {
				if rest.Name != "_" {
					c.declare(c.binding(rest, rest.Name), &variable{t: &types.Dict{Key: types.String, Value: types.Any}})
				}
				continue
			}
			if id, ok := en.Value.(*syntax.Ident); ok {
				if id.Name != "_" {
					c.declare(c.binding(id, id.Name), &variable{t: types.Any})
				}
			} else {
				c.expr(en.Value)
			}
		}
	default:
		pt := c.expr(p)
		c.patternKind(pt, st, p.Position())
	}
}

// patternKind warns when a literal pattern can never equal the scrutinee.
func (c *checker) patternKind(pt, st types.Type, pos syntax.Pos) {
	lit, ok := pt.(*types.Literal)
	var pk string
	switch {
	case ok:
		pk = lit.Base().String()
	case pt == types.Float || pt == types.Bool:
		pk = pt.String()
	default:
		return
	}
	sk := kinds(st)
	if len(sk) != 1 {
		return
	}
	s := sk[0]
	switch s {
	case "int", "float", "string", "bool":
	default:
		return
	}
	if s == pk || numeric(s) && numeric(pk) {
		return
	}
	c.warnf(pos, "Match pattern type mismatch: matching %s against %s literal", s, pk)
}

// variantPattern binds the payload names of `Enum.Variant(a, b)`.
func (c *checker) variantPattern(enum, name string, args []syntax.Expr, st types.Type, pos syntax.Pos, alt bool) {
	var fields []types.Type
	if enum == "Result" {
		r, _ := types.Underlying(st).(*types.Result)
		switch name {
		case "Ok":
			if r != nil {
				fields = []types.Type{r.Ok}
			}
		case "Err":
			if r != nil {
				fields = []types.Type{r.Err}
			}
		default:
			c.warnf(pos, "Unknown variant '%s' in enum 'Result'", name)
		}
	} else if d := c.env.Lookup(enum); d != nil && d.Kind == types.EnumDecl {
		v, ok := d.Variant(name)
		if !ok {
			c.warnf(pos, "Unknown variant '%s' in enum '%s'", name, enum)
		} else if n, ok := types.Underlying(st).(*types.Named); ok && n.Decl == d {
			m := d.Instance(n.Args)
			for _, f := range v.Fields {
				fields = append(fields, types.Subst(f.Type, m))
			}
		}
	}
	if alt {
		return
	}
	for i, a := range args {
		id, ok := a.(*syntax.Ident)
		if !ok {
			continue
		}
		if id.Name == "_" {
			continue
		}
		var t types.Type = types.Any
		if i < len(fields) {
			t = fields[i]
		}
		c.declare(c.binding(id, id.Name), &variable{t: t})
	}
}

// exhaustive reports a match over a statically known enum, Result or
// literal union that misses cases and has no catch-all arm. It returns
// whether the arms are known to cover every value (a catch-all arm, or
// every case of such a type).
func (c *checker) exhaustive(e *syntax.MatchExpr, st types.Type, kinds *kindSet) bool {
	// A `nil` arm covers the nil of `T?`; the rest must cover T. Without
	// one, the nil of a `T?` the program declared is missing, and is
	// listed last in T's message (docs/check.md). A match missing any
	// case is not complete, so the fall-through check keeps its say
	// (docs/spec/newer.md §3.3 counts only an exhaustive match as exiting).
	missNil := false
	if u, ok := types.Underlying(st).(*types.Union); ok && slices.ContainsFunc(u.Types, func(t types.Type) bool { return t == types.Nil }) {
		hasArm := nilArm(e)
		if hasArm || c.watchedNilable(e.X, st) {
			missNil = !hasArm
			st = types.NewUnion(slices.DeleteFunc(slices.Clone(u.Types), func(t types.Type) bool { return t == types.Nil })...)
		}
	}
	if c.undefinedCallArm(e) {
		// an arm whose call-shaped pattern names no function or visible
		// variant (a bare `Circle(r)` of an imported enum) is already an
		// error at that arm; listing its variant as missing would put a
		// misleading error first (docs/check.md)
		return true
	}
	if done, ok := c.taggedExhaustive(e, st, missNil); ok {
		return done
	}
	if !missNil && c.kindCovered(e, st) {
		return true
	}
	if kinds != nil {
		return c.typeOfExhaustive(e, kinds)
	}
	if !known(st) {
		return hasCatchAll(c, e)
	}
	withNil := func(missing []string) []string {
		if missNil {
			return append(missing, "nil")
		}
		return missing
	}
	covered := map[string]bool{}
	for _, arm := range e.Arms {
		if arm.Guard != nil {
			continue
		}
		for _, p := range arm.Patterns {
			switch c.classify(p) {
			case resolve.PatWildcard:
				return true
			case resolve.PatBind:
				if len(arm.Patterns) == 1 {
					return true
				}
			case resolve.PatVariant:
				enum, name, args := resolve.VariantOf(p)
				_, isCall := p.(*syntax.MethodCall)
				if len(arm.Patterns) > 1 && (isCall || len(args) > 0) {
					continue // alternatives compare with ==
				}
				covered[enum+"."+name] = true
			case resolve.PatValue:
				switch l := p.(type) {
				case *syntax.StringLit:
					covered[strconv.Quote(l.Value)] = true
				case *syntax.BoolLit:
					covered[strconv.FormatBool(l.Value)] = true
				case *syntax.IntLit:
					covered[strconv.FormatInt(l.Value, 10)] = true
				case *syntax.UnaryExpr:
					if n, ok := l.X.(*syntax.IntLit); ok && l.Op == "-" {
						covered[strconv.FormatInt(-n.Value, 10)] = true
					}
				}
			}
		}
	}
	switch t := types.Underlying(st).(type) {
	case *types.Basic:
		// `true` and `false` arms cover a bool; a bool matched by bool
		// literals alone misses the other one, reported in the literal
		// union frame (bool is `true | false`)
		if t != types.Bool {
			return false
		}
		if !c.boolLiteralArms(e) {
			return covered["true"] && covered["false"]
		}
		var missing []string
		for _, b := range []string{"true", "false"} {
			if !covered[b] {
				missing = append(missing, b)
			}
		}
		if missing = withNil(missing); len(missing) > 0 {
			c.errorf(e.At, "Non-exhaustive match on literal union: missing %s", strings.Join(missing, ", "))
		}
		// a path past a missing bool case still falls through: that
		// check keeps its say (`function can fall through …` comes first)
		return len(missing) == 0
	case *types.Named:
		if t.Decl.Kind != types.EnumDecl || !c.info.IsEnum(t.Decl.Name) {
			return false
		}
		var missing []string
		for _, v := range t.Decl.Variants {
			if !covered[t.Decl.Name+"."+v.Name] {
				missing = append(missing, strconv.Quote(v.Name))
			}
		}
		if missing = withNil(missing); len(missing) > 0 {
			c.errorf(e.At, "Non-exhaustive match on enum %s: missing variants %s", t.Decl.Name, strings.Join(missing, ", "))
		}
		return len(missing) == 0 // a missing case (reported above) leaves a path past the match
	case *types.Result:
		var missing []string
		for _, v := range []string{"Ok", "Err"} {
			if !covered["Result."+v] {
				missing = append(missing, strconv.Quote(v))
			}
		}
		if missing = withNil(missing); len(missing) > 0 {
			c.errorf(e.At, "Non-exhaustive match on enum Result: missing variants %s", strings.Join(missing, ", "))
		}
		return len(missing) == 0 // a missing case (reported above) leaves a path past the match
	case *types.Union:
		if done, ok := c.namedUnionExhaustive(e, t, covered, missNil); ok {
			return done
		}
		var missing []string
		for _, m := range t.Types {
			cases := []string{}
			if m == types.Bool {
				// `true` in a type is bool, which is `true | false`
				cases = append(cases, "true", "false")
			} else if l, ok := m.(*types.Literal); ok {
				cases = append(cases, l.String())
			} else {
				return false
			}
			for _, k := range cases {
				if !covered[k] {
					missing = append(missing, k)
				}
			}
		}
		if missing = withNil(missing); len(missing) > 0 {
			c.errorf(e.At, "Non-exhaustive match on literal union: missing %s", strings.Join(missing, ", "))
		}
		return len(missing) == 0 // a missing case (reported above) leaves a path past the match
	}
	return false
}

// namedUnionExhaustive handles a match over a union of named enums and
// structs (`type Shape = Circle | Square`), also beside literal members
// (`Level | Mode`, each literal needing its arm): every variant of each enum
// needs an arm, and a struct member, which no pattern but a catch-all
// matches, is always missing (docs/spec/language.md §7.4, docs/spec/newer.md
// §3.8; the tail of the message is unverified). ok is false when u is no
// such union, or names an enum the file cannot write patterns for.
func (c *checker) namedUnionExhaustive(e *syntax.MatchExpr, u *types.Union, covered map[string]bool, missNil bool) (done, ok bool) {
	var missing []string
	named := false
	for _, m := range unionMembers(u) {
		if l, isLit := m.(*types.Literal); isLit {
			// a literal member beside the named ones (`Level | Mode`
			// with `type Level = "debug" | "info"`) needs its arm too
			if !covered[l.String()] {
				missing = append(missing, l.String())
			}
			continue
		}
		n, isNamed := types.Underlying(m).(*types.Named)
		if !isNamed {
			return false, false
		}
		named = true
		switch n.Decl.Kind {
		case types.EnumDecl:
			if !c.info.IsEnum(n.Decl.Name) {
				return false, false
			}
			for _, v := range n.Decl.Variants {
				if !covered[n.Decl.Name+"."+v.Name] {
					missing = append(missing, n.Decl.Name+"."+v.Name)
				}
			}
		case types.StructDecl:
			missing = append(missing, n.Decl.Name)
		default:
			return false, false
		}
	}
	if !named {
		return false, false // a literal union has its own frame
	}
	if missNil {
		missing = append(missing, "nil")
	}
	if len(missing) > 0 {
		c.errorf(e.At, "Non-exhaustive match on union type: missing %s", strings.Join(missing, ", "))
	}
	return len(missing) == 0, true
}

// unionMembers lists the members of u with the unions that aliases among
// them name spread out (`Level | Mode` with `type Level = "a" | "b"`).
func unionMembers(u *types.Union) []types.Type {
	var out []types.Type
	for _, m := range u.Types {
		if inner, ok := types.Underlying(m).(*types.Union); ok && inner != u {
			out = append(out, unionMembers(inner)...)
		} else {
			out = append(out, m)
		}
	}
	return out
}

// boolLiteralArms reports whether every pattern of the match is a bool
// literal (a guard aside), so its arms are a case analysis of a bool and
// not, say, `match true { n < 0 -> … }` comparing computed values.
func (c *checker) boolLiteralArms(e *syntax.MatchExpr) bool {
	for _, arm := range e.Arms {
		for _, p := range arm.Patterns {
			if _, ok := p.(*syntax.BoolLit); !ok && !isNilLit(p) {
				return false
			}
		}
	}
	return len(e.Arms) > 0
}

// hasCatchAll reports whether an unguarded arm matches every value.
func hasCatchAll(c *checker, e *syntax.MatchExpr) bool {
	for _, arm := range e.Arms {
		if arm.Guard != nil || len(arm.Patterns) != 1 {
			continue
		}
		switch c.classify(arm.Patterns[0]) {
		case resolve.PatWildcard, resolve.PatBind:
			return true
		}
	}
	return false
}

// taggedExhaustive handles a match over a tagged shape union: shapes that
// all carry one field (the tag) of distinct literal types, such as
// {kind: "ok", …} | {kind: "bad", …}. The match either looks at the tag
// (`match r.kind { "ok" -> … }`) or at the value with dict patterns
// naming the tag (`match r { {kind: "ok"} -> … }`). A `nil` arm covers
// only the nil of an optional union; missNil lists that nil as missing
// (see exhaustive). ok is false when the match is of neither form.
func (c *checker) taggedExhaustive(e *syntax.MatchExpr, st types.Type, missNil bool) (done, ok bool) {
	var tags []string
	var field string
	if m, isMember := e.X.(*syntax.MemberExpr); isMember && !m.Optional {
		if tags = tagValues(c.quietType(m.X), m.Name); tags == nil {
			return false, false
		}
	} else if field = tagField(st); field == "" {
		return false, false
	} else {
		tags = tagValues(st, field)
	}
	covered := map[string]bool{}
	for _, arm := range e.Arms {
		if arm.Guard != nil {
			continue
		}
		for _, p := range arm.Patterns {
			switch c.classify(p) {
			case resolve.PatWildcard:
				return true, true
			case resolve.PatBind:
				if len(arm.Patterns) == 1 {
					return true, true
				}
			}
			if isNilLit(p) {
				continue
			}
			if field == "" {
				l := literalText(p)
				if l == "" {
					return false, true // a computed pattern: coverage unknown
				}
				covered[l] = true
				continue
			}
			d, isDict := p.(*syntax.DictLit)
			if !isDict {
				return false, true
			}
			if len(arm.Patterns) == 1 && bindsOnly(c, d) {
				// `{kind: k}`, `{user: u, ...rest}`: names bind (nil when
				// absent) and compare nothing, so every member, a dict,
				// matches (docs/spec/language.md §7.4 rule 5); nil does not
				for _, t := range tags {
					covered[t] = true
				}
				continue
			}
			for _, en := range d.Entries {
				if en.KeyName == field {
					if l := literalText(en.Value); l != "" {
						covered[l] = true
					}
				}
			}
		}
	}
	var missing []string
	for _, t := range tags {
		if !covered[t] {
			missing = append(missing, t)
		}
	}
	if missNil {
		missing = append(missing, "nil")
	}
	if len(missing) > 0 {
		c.errorf(e.At, "Non-exhaustive match on tagged shape union: missing variants %s", strings.Join(missing, ", "))
	}
	return len(missing) == 0, true
}

// tagField is the tag of a tagged shape union: the first field that every
// member declares, required, with a literal type of its own. "" when t is
// no such union.
func tagField(t types.Type) string {
	if t == nil {
		return ""
	}
	u, ok := types.Underlying(t).(*types.Union)
	if !ok {
		return ""
	}
	first, ok := types.Underlying(u.Types[0]).(*types.Shape)
	if !ok {
		return ""
	}
	for _, f := range first.Fields {
		if tagValues(t, f.Name) != nil {
			return f.Name
		}
	}
	return ""
}

// tagValues lists the tag literals of a tagged shape union whose tag is
// field, in member order, or nil.
func tagValues(t types.Type, field string) []string {
	if t == nil {
		return nil
	}
	u, ok := types.Underlying(t).(*types.Union)
	if !ok || len(u.Types) < 2 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range u.Types {
		sh, ok := types.Underlying(m).(*types.Shape)
		if !ok {
			return nil
		}
		f, ok := sh.Field(field)
		if !ok || f.Optional {
			return nil
		}
		l, ok := f.Type.(*types.Literal)
		if !ok || seen[l.String()] {
			return nil
		}
		seen[l.String()] = true
		out = append(out, l.String())
	}
	return out
}

// literalText is a string or int literal pattern as its literal type
// prints ("ok", 3, -1), or "".
func literalText(p syntax.Expr) string {
	switch l := p.(type) {
	case *syntax.StringLit:
		return strconv.Quote(l.Value)
	case *syntax.IntLit:
		return strconv.FormatInt(l.Value, 10)
	case *syntax.UnaryExpr:
		if n, ok := l.X.(*syntax.IntLit); ok && l.Op == "-" {
			return strconv.FormatInt(-n.Value, 10)
		}
	}
	return ""
}

// bindsOnly reports whether the dict pattern d only binds: every entry's
// value is a name (or `_`) or a final `...rest`, so it matches any dict.
func bindsOnly(c *checker, d *syntax.DictLit) bool {
	if c.classify(d) != resolve.PatDict {
		return false // a computed key: an expression compared with ==
	}
	for _, en := range d.Entries {
		if en.Spread != nil {
			continue
		}
		if _, ok := en.Value.(*syntax.Ident); !ok {
			return false
		}
	}
	return true
}

// kindCovered reports whether the unguarded arms of a match over a value
// known to be a dict or a list cover every such value with patterns that
// only bind: a dict pattern of names (`{name: n}`, `{...rest}`), or list
// patterns of names whose lengths leave no gap (`[]` and `[h, ...t]`).
// Such a match is exhaustive for the fall-through check
// (docs/spec/newer.md §3.3).
func (c *checker) kindCovered(e *syntax.MatchExpr, st types.Type) bool {
	kind := types.KindName(st)
	if kind != "dict" && kind != "list" {
		return false
	}
	exact := map[int]bool{}
	atLeast := -1
	for _, arm := range e.Arms {
		if arm.Guard != nil || len(arm.Patterns) != 1 {
			continue
		}
		switch p := arm.Patterns[0].(type) {
		case *syntax.DictLit:
			if kind == "dict" && bindsOnly(c, p) {
				return true
			}
		case *syntax.ListLit:
			if kind != "list" {
				continue
			}
			n, rest, ok := bindingList(p)
			switch {
			case !ok:
			case rest:
				if atLeast < 0 || n < atLeast {
					atLeast = n
				}
			default:
				exact[n] = true
			}
		}
	}
	if atLeast < 0 {
		return false
	}
	for n := 0; n < atLeast; n++ {
		if !exact[n] {
			return false
		}
	}
	return true
}

// bindingList reports the shape of a list pattern whose elements only
// bind: its count of leading names, and whether a final `...rest` lets
// it match longer lists. ok is false when an element compares a value.
func bindingList(p *syntax.ListLit) (n int, rest, ok bool) {
	for i, el := range p.Elems {
		switch el := el.(type) {
		case *syntax.Ident:
			n++
		case *syntax.SpreadExpr:
			if _, isName := el.X.(*syntax.Ident); !isName || i != len(p.Elems)-1 {
				return 0, false, false
			}
			rest = true
		default:
			return 0, false, false
		}
	}
	return n, rest, true
}

// kindSet is what `type_of(v)` may return for a v whose type the program
// declared: the kinds each member of its type needs an arm for, and
// those a value fitting it may also have at run time (an int in a
// `float`, a struct in a shape, a builtin in a `fn(…)` type).
type kindSet struct {
	subject  string // `type_of(v)`, as the message names it
	required []string
	optional map[string]bool
}

// typeOfKinds reads the subject of `match type_of(v)` (also through a
// binding `let t = type_of(v)`, as kindCall does) when v is a value
// whose type the program wrote down: each member of that type then
// gives the kind name type_of returns for it (docs/spec/builtins.md
// §1.3). nil when the subject is no such call, or v's type has a member
// whose kind is not certain (any, unknown, a type parameter, an
// interface, an iterator or handle).
func (c *checker) typeOfKinds(subject syntax.Expr) *kindSet {
	ce, ok := c.kindCall(subject)
	if !ok {
		return nil
	}
	arg := ce.Args[0]
	t := c.quietType(arg)
	if !known(t) || !(c.declaredPath(arg) || c.declaredCall(arg)) {
		return nil
	}
	ks := &kindSet{subject: "type_of(" + pathText(arg, "…") + ")", optional: map[string]bool{}}
	members := []types.Type{t}
	if u, ok := types.Underlying(t).(*types.Union); ok {
		members = unionMembers(u)
	}
	add := func(k string) {
		if !slices.Contains(ks.required, k) {
			ks.required = append(ks.required, k)
		}
	}
	for _, m := range members {
		switch u := types.Underlying(m).(type) {
		case *types.Basic:
			switch u {
			case types.Int, types.String, types.Bool, types.Nil, types.Bytes, types.Duration, types.Range:
				add(u.String())
			case types.Float:
				add("float")
				ks.optional["int"] = true
			case types.Closure:
				add("closure")
				ks.optional["builtin"] = true
			default:
				return nil
			}
		case *types.Literal:
			add(u.Base().String())
		case *types.List, *types.Tuple:
			add("list")
		case *types.Dict:
			add("dict")
		case *types.Shape:
			add("dict")
			ks.optional["struct"] = true
		case *types.Set:
			add("set")
		case *types.Result:
			add("enum")
		case *types.Func:
			add("closure")
			ks.optional["builtin"] = true
		case *types.Named:
			switch u.Decl.Kind {
			case types.StructDecl:
				add("struct")
			case types.EnumDecl:
				add("enum")
			default:
				return nil
			}
		default:
			return nil
		}
	}
	return ks
}

// typeOfExhaustive reports a `match type_of(v)` without a catch-all arm
// that leaves out a kind v's declared type admits (`"string"` for `v:
// int | string`), in the frame of the other exhaustiveness errors, naming
// the call: `Non-exhaustive match on type_of(v): missing "string"`
// (docs/spec/newer.md §3.8 gives no wording for it: this implementation's
// choice). It returns whether every kind has an arm.
func (c *checker) typeOfExhaustive(e *syntax.MatchExpr, ks *kindSet) bool {
	if hasCatchAll(c, e) {
		return true
	}
	covered := map[string]bool{}
	for _, arm := range e.Arms {
		if arm.Guard != nil {
			continue
		}
		for _, p := range arm.Patterns {
			if l, ok := p.(*syntax.StringLit); ok {
				covered[l.Value] = true
			}
		}
	}
	var missing []string
	for _, k := range ks.required {
		if !covered[k] {
			missing = append(missing, strconv.Quote(k))
		}
	}
	if len(missing) > 0 {
		c.errorf(e.At, "Non-exhaustive match on %s: missing %s", ks.subject, strings.Join(missing, ", "))
	}
	return len(missing) == 0
}

package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// This file is the expression parser: precedence climbing over the table
// of docs/spec/language.md §2.5, with the newline rules of §2.6 and the
// disambiguations of §2.7. Statement-like expressions (if, match, try, …)
// are participle productions (grammar.go) called from primary.

// expr parses a full expression (the Pipe level).
func (c cursor) expr() Expr {
	c.enter()
	defer c.leave()
	x := c.rangeExpr()
	for isPunct(c.peek(), "|>") {
		c.next()
		x = &PipeExpr{At: x.Position(), X: x, F: c.rangeExpr()}
	}
	return x
}

func (c cursor) rangeExpr() Expr {
	x := c.ternary()
	if !isKw(c.peek(), "to") || c.nl() {
		return x
	}
	c.next()
	c.sameLine("expression")
	r := &RangeExpr{At: x.Position(), Start: x, End: c.ternary()}
	if isKw(c.peek(), "exclusive") && !c.nl() {
		c.next()
		r.Exclusive = true
	}
	return r
}

// ternary parses `cond ? a : b`. The `?` may begin a line and line
// breaks may follow `?` and `:` (docs/spec/newer.md §1.9).
func (c cursor) ternary() Expr {
	cond := c.binary(PrecOr)
	if !isPunct(c.peek(), "?") || (c.nl() && !c.ternaryAhead()) {
		return cond
	}
	c.next()
	c.enter()
	defer c.leave()
	c.nestIn("ternary expression")
	defer c.nestOut()
	then := c.ternary()
	c.expect(":")
	return &TernaryExpr{At: cond.Position(), Cond: cond, Then: then, Else: c.ternary()}
}

// binaryOp identifies the binary operator at t (levels `||` to `*`), its
// precedence, and whether it may start a line.
func (c cursor) binaryOp(t *lexer.Token) (op string, prec int, lineStart bool) {
	switch t.Type {
	case tPunct:
		switch t.Value {
		case "||", "&&", "==", "!=", "<", ">", "<=", ">=", "+", "??", "*", "/", "%":
			return t.Value, BinaryPrec(t.Value), true
		case "-":
			return t.Value, BinaryPrec(t.Value), false
		}
	case tKeyword:
		if t.Value == "in" {
			return "in", BinaryPrec("in"), false
		}
	case tIdent:
		if t.Value == "not" && isKw(c.peekAt(1), "in") {
			return "not in", BinaryPrec("not in"), false
		}
	}
	return "", 0, false
}

// maxChain bounds the operators of one left-associative chain such as
// `1 + 1 + …`: the chain becomes a tree as deep as it is long, which
// every later stage walks recursively.
const maxChain = 10000

func (c cursor) binary(min int) Expr {
	x := c.unary()
	for n := 1; ; n++ {
		t := c.peek()
		op, prec, lineStart := c.binaryOp(t)
		if prec < min || (!lineStart && c.nl()) {
			return x
		}
		if n > maxChain {
			failAt(at(t.Pos), fmt.Sprintf("Expected at most %d operators in a chain of binary operators, got more", maxChain))
		}
		c.next()
		if op == "not in" {
			c.next()
		}
		x = &BinaryExpr{At: at(t.Pos), Op: op, X: x, Y: c.binary(prec + 1)}
	}
}

// unary parses prefix `!`, `-` and `try*`, which apply to a whole power.
func (c cursor) unary() Expr {
	var ops []*lexer.Token
	for {
		t := c.peek()
		if isPunct(t, "!") || isPunct(t, "-") || (isKw(t, "try") && isPunct(c.peekAt(1), "*")) {
			c.nestIn("unary expression")
			ops = append(ops, c.next())
			if t.Value == "try" {
				c.next()
			}
			continue
		}
		break
	}
	x := c.power()
	c.st.nest -= len(ops)
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i].Value
		if op == "try" {
			op = "try*"
		}
		x = &UnaryExpr{At: at(ops[i].Pos), Op: op, X: x}
	}
	return x
}

func (c cursor) power() Expr {
	x := c.postfix()
	t := c.peek()
	if !isPunct(t, "**") {
		return x
	}
	c.next()
	c.enter()
	defer c.leave()
	c.nestIn("exponent expression")
	defer c.nestOut()
	return &BinaryExpr{At: at(t.Pos), Op: "**", X: x, Y: c.unary()}
}

// ternaryStart reports whether t can begin a ternary branch (docs/spec/newer.md
// §1.9).
func ternaryStart(t *lexer.Token) bool {
	switch t.Type {
	case tIdent, tInt, tFloat, tString, tRaw, tInterp, tDuration:
		return true
	case tKeyword:
		switch t.Value {
		case "true", "false", "nil", "fn", "if", "match", "try", "spawn", "parallel", "retry", "deadline":
			return true
		}
	case tPunct:
		switch t.Value {
		case "(", "[", "{", "!", "-":
			return true
		}
	}
	return false
}

// ternaryAhead decides what the `?` at the cursor starts (docs/spec/newer.md
// §1.2, §1.9): a ternary when the next token can begin a branch and a `:`
// follows at the same bracket depth; otherwise Result propagation or a
// legacy optional subscript. The scan stops at the end of the enclosing
// bracket, element or statement (a `,` at depth 0 cannot sit inside a
// ternary's first branch), so it stays within one expression. A later
// statement is one starting with a keyword at depth 0 that begins a line
// after the `?`'s next one; `else`, `catch` and `finally` continue the
// branch (a multi-line `if`/`try`), and a keyword inside a line
// (`) == nil`) is part of it. The `?`s and `:`s the scan meets are then
// paired by ternaryPlan, so that `a ? xs?[0] : 5` reads `xs?[0]` as a
// subscript: as a ternary it would leave `a ?` without its `:`.
func (c cursor) ternaryAhead() bool {
	cp := c.lex.MakeCheckpoint()
	defer c.lex.LoadCheckpoint(cp)
	q := c.lex.Next()
	if !ternaryStart(c.lex.Peek()) {
		return false
	}
	if v, ok := c.st.ternary[q.Pos.Offset]; ok {
		return v
	}
	// A `?` passed at depth 0 sees the same tokens up to where this scan
	// ends, so it gets its answer from the same plan — unless the scan
	// stops at a later statement, which is decided by the line of the `?`
	// scanned from, so only those on that line share it then.
	seq := []ternaryMark{{q: true, sub: isPunct(c.lex.Peek(), "["), off: q.Pos.Offset, line: q.Pos.Line}}
	settle := func(all bool) bool {
		plan := ternaryPlan(seq)
		if len(seq) > 1 && c.st.ternary == nil {
			c.st.ternary = map[int]bool{}
		}
		for i, m := range seq {
			if i > 0 && m.q && (all || m.line == q.Pos.Line) {
				c.st.ternary[m.off] = plan[i]
			}
		}
		return plan[0]
	}
	depth := 0
	line := q.Pos.Line
	prevLine := line
	for {
		t := c.lex.Next()
		lineStart := t.Pos.Line > prevLine
		prevLine = endLine(t)
		switch {
		case t.Type == tEOF:
			return settle(true)
		case t.Type == tKeyword && depth == 0 && lineStart && t.Pos.Line > line+1 && !branchContinues(t.Value):
			return settle(false) // a later statement
		case t.Type != tPunct:
		case t.Value == "(" || t.Value == "[" || t.Value == "{":
			depth++
		case t.Value == ")" || t.Value == "]" || t.Value == "}":
			if depth == 0 {
				return settle(true)
			}
			depth--
		case depth == 0 && (t.Value == ":"):
			seq = append(seq, ternaryMark{})
		case depth == 0 && (t.Value == ";" || t.Value == "=" || t.Value == ","):
			return settle(true)
		case depth == 0 && t.Value == "?":
			if ternaryStart(c.lex.Peek()) {
				seq = append(seq, ternaryMark{q: true, sub: isPunct(c.lex.Peek(), "["), off: t.Pos.Offset, line: t.Pos.Line})
			}
		}
	}
}

// ternaryMark is a `?` that may start a ternary (q; sub when a `[`
// follows, so that it may also be a legacy optional subscript) or a `:`
// met by ternaryAhead's scan at its own bracket depth.
type ternaryMark struct {
	q, sub bool
	off    int
	line   int
}

// maxTernaryPlan bounds the open ternaries ternaryPlan tracks; more are
// past the nesting limit anyway (maxNesting).
const maxTernaryPlan = 2 * maxNesting

// ternaryPlan decides, in order, which `?`s of seq start a ternary. The
// rule of docs/spec/newer.md §1.2 decides each one (a ternary when a `:`
// follows), except a `?[` inside the first branch of a ternary it opened:
// that one is a ternary only when the `:`s left can close it and every
// ternary still open, and otherwise a subscript when that reading closes
// them (`a ? xs?[0] : 5`).
func ternaryPlan(seq []ternaryMark) []bool {
	n := len(seq)
	fixed := make([]bool, n) // the §1.2 answer of each `?`
	colon := false
	for i := n - 1; i >= 0; i-- {
		fixed[i] = seq[i].q && colon
		colon = colon || !seq[i].q
	}
	// ok[i][s]: the marks from i on can close s open ternaries exactly.
	ok := make([][]bool, n+1)
	for i := range ok {
		ok[i] = make([]bool, maxTernaryPlan+2)
	}
	ok[n][0] = true
	for i := n - 1; i >= 0; i-- {
		for s := 0; s <= maxTernaryPlan; s++ {
			switch m := seq[i]; {
			case !m.q:
				ok[i][s] = s > 0 && ok[i+1][s-1]
			case m.sub:
				ok[i][s] = ok[i+1][s] || ok[i+1][s+1]
			case fixed[i]:
				ok[i][s] = ok[i+1][s+1]
			default:
				ok[i][s] = ok[i+1][s]
			}
		}
	}
	plan := make([]bool, n)
	open := 0
	for i, m := range seq {
		if !m.q {
			if open > 0 {
				open--
			}
			continue
		}
		plan[i] = fixed[i]
		if m.sub && open > 0 && open < maxTernaryPlan && !ok[i+1][open+1] && ok[i+1][open] {
			plan[i] = false
		}
		if plan[i] && open < maxTernaryPlan {
			open++
		}
	}
	return plan
}

// branchContinues reports whether keyword kw, beginning a line, continues
// the expression before it (`} else {`, `} catch (e) {`, `} finally {`).
func branchContinues(kw string) bool {
	return kw == "else" || kw == "catch" || kw == "finally"
}

func (c cursor) postfix() Expr {
	x, bare := c.primary()
	for {
		t := c.peek()
		switch {
		case isPunct(t, "?.") && isPunct(c.peekAt(1), "["):
			c.next()
			c.next()
			x = c.subscript(x, true)
		case isPunct(t, ".") && !c.atSpread(), isPunct(t, "?."):
			c.next()
			nameTok := c.peek()
			name := c.memberName()
			var targs []TypeExpr
			if lt := c.peek(); isPunct(lt, "<") && lt.Pos.Offset == nameTok.Pos.Offset+len(nameTok.Value) && c.genericCallAhead() {
				// `xs.map<string>(f)`: explicit type arguments, as for
				// `id<int>(5)` (docs/spec/language.md §9.2). The `<` must
				// touch the name, so a comparison such as
				// `f(p.x < hi, lo > (2))` keeps its April reading.
				targs = c.typeArgs()
			}
			if (targs != nil || isPunct(c.peek(), "(")) && !c.nl() {
				c.next()
				x = &MethodCall{At: x.Position(), X: x, Name: name, TypeArgs: targs, Args: c.args(")"), Optional: t.Value == "?."}
			} else if ns, ok := x.(*Ident); ok && t.Value == "." && !upper(ns.Name) && upper(name) && isPunct(c.peek(), "{") && c.structLitAhead() {
				// `ns.Name { … }`: a lower-case base keeps `Enum.Variant {}` as it was.
				c.next()
				x = &StructLit{At: ns.At, NS: ns, Name: name, Fields: c.dictEntries()}
			} else {
				x = &MemberExpr{At: x.Position(), Dot: at(t.Pos), X: x, Name: name, Optional: t.Value == "?."}
			}
		case c.nl():
			return x
		case isPunct(t, "["):
			c.next()
			x = c.subscript(x, false)
		case isPunct(t, "!"):
			c.next()
			x = &NonNilExpr{At: at(t.Pos), X: x}
		case isPunct(t, "?"):
			next := c.peekAt(1)
			if c.ternaryAhead() {
				return x
			}
			if isPunct(next, "[") {
				c.next()
				c.next()
				x = c.subscript(x, true)
				break
			}
			c.next()
			x = &PropagateExpr{At: x.Position(), X: x}
		case bare != nil && isPunct(t, "("):
			c.next()
			x = &CallExpr{At: bare.At, Fn: bare, Args: c.args(")")}
		case isPunct(t, "("):
			c.next()
			x = &ValueCall{At: at(t.Pos), Fn: x, Args: c.args(")")}
		case bare != nil && isPunct(t, "<") && c.genericCallAhead():
			if call := c.genericCall(bare); call != nil {
				x = call
				break
			}
			return x
		case bare != nil && isPunct(t, "{") && upper(bare.Name) && c.structLitAhead():
			c.next()
			x = &StructLit{At: bare.At, Name: bare.Name, Fields: c.dictEntries()}
		default:
			return x
		}
		bare = nil
	}
}

// nlAfterNext reports whether a line break follows the next token.
func (c cursor) nlAfterNext() bool {
	cp := c.lex.MakeCheckpoint()
	c.lex.Next()
	nl := c.nl()
	c.lex.LoadCheckpoint(cp)
	return nl
}

func upper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// memberName reads the name after `.` or `?.`.
func (c cursor) memberName() string {
	t := c.peek()
	if !isName(t) {
		fail(t, "property name")
	}
	return c.next().Value
}

// subscript parses the rest of `x[i]` or `x[lo:hi]` after the `[`.
func (c cursor) subscript(x Expr, optional bool) Expr {
	context := "subscript index"
	if optional {
		context = "optional subscript index"
	}
	var lo Expr
	if !isPunct(c.peek(), ":") {
		c.nestIn(context)
		lo = c.expr()
		c.nestOut()
	}
	if c.accept(":") {
		s := &SliceExpr{At: x.Position(), X: x, Lo: lo, Optional: optional}
		if !isPunct(c.peek(), "]") {
			c.nestIn("slice bound")
			s.Hi = c.expr()
			c.nestOut()
		}
		c.expect("]")
		return s
	}
	c.expect("]")
	return &IndexExpr{At: x.Position(), X: x, Index: lo, Optional: optional}
}

// args parses call arguments or list elements after the opening bracket,
// through the closing one. Commas are optional.
func (c cursor) args(closing string) []Expr {
	var out []Expr
	afterComma := false
	for {
		t := c.peek()
		if isPunct(t, closing) {
			c.next()
			return out
		}
		// Without a comma (or at end of file) the list has ended, so the
		// closing bracket is what is missing; after a comma, a token that
		// is neither an item nor the closing bracket is a missing item.
		if len(out) > 0 && (!afterComma || t.Type == tEOF) && !c.canStartExpr(t) {
			fail(t, closing)
		}
		out = append(out, c.arg())
		afterComma = c.accept(",")
	}
}

func (c cursor) arg() Expr {
	if c.atSpread() {
		t := c.peek()
		c.skipSpread()
		return &SpreadExpr{At: at(t.Pos), X: c.expr()}
	}
	return c.expr()
}

// canStartExpr reports whether t can begin an expression.
func (c cursor) canStartExpr(t *lexer.Token) bool {
	switch t.Type {
	case tIdent, tInt, tFloat, tDuration, tString, tRaw, tInterp:
		return true
	case tKeyword:
		switch t.Value {
		case "true", "false", "nil", "fn", "if", "match", "try", "retry", "parallel", "deadline", "spawn", "select", "mutex":
			return true
		}
	case tPunct:
		switch t.Value {
		case "(", "[", "{", "!", "-":
			return true
		case ".":
			return c.atSpread()
		}
	}
	return false
}

// genericCallAhead is a cheap scan for `<types>(` after an identifier,
// before committing to the backtracking parse.
func (c cursor) genericCallAhead() bool {
	if c.nl() {
		return false
	}
	cp := c.lex.MakeCheckpoint()
	defer c.lex.LoadCheckpoint(cp)
	c.lex.Next()
	depth := 1
	// Type argument lists are short; the bound keeps long runs of `<`
	// comparisons from making this scan quadratic.
	for range 256 {
		t := c.lex.Next()
		switch t.Type {
		case tIdent, tString, tInt:
		case tKeyword:
			if t.Value != "nil" && t.Value != "true" && t.Value != "false" && t.Value != "fn" {
				return false
			}
		case tPunct:
			switch t.Value {
			case "<":
				depth++
			case ">":
				depth--
				if depth == 0 {
					return isPunct(c.lex.Peek(), "(") && !c.nl()
				}
			case ",", "[", "]", "{", "}", "(", ")", ":", "?", "|", "&", "->", "-":
			default:
				return false
			}
		default:
			return false
		}
	}
	return false
}

// genericCall parses `<types>(args)` after fn, or returns nil (leaving
// the cursor at the `<`, which is then less-than) when no type list
// followed by `(` comes next.
func (c cursor) genericCall(fn *Ident) Expr {
	targs := c.typeArgs()
	if targs == nil {
		return nil
	}
	c.next()
	return &CallExpr{At: fn.At, Fn: fn, TypeArgs: targs, Args: c.args(")")}
}

// typeArgs speculatively parses `<T, …>` up to a `(`; only this part
// backtracks, so nested calls cannot make parsing exponential.
func (c cursor) typeArgs() (targs []TypeExpr) {
	cp := c.lex.MakeCheckpoint()
	depth, nest := c.st.depth, c.st.nest
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			targs = nil
		}
		if targs == nil {
			c.lex.LoadCheckpoint(cp)
			c.st.depth, c.st.nest = depth, nest
		}
	}()
	c.next()
	for {
		targs = append(targs, c.typeExpr())
		if !c.accept(",") {
			break
		}
	}
	c.expect(">")
	if !isPunct(c.peek(), "(") || c.nl() {
		return nil
	}
	return targs
}

// structLitAhead applies §2.7 rule 2: after `Name`, a `{` followed by `}`
// or by an identifier or string and `:`.
func (c cursor) structLitAhead() bool {
	if c.nl() {
		return false
	}
	t1 := c.peekAt(1)
	if isPunct(t1, "}") {
		return true
	}
	return (isName(t1) || t1.Type == tString) && isPunct(c.peekAt(2), ":")
}

// primary parses a primary expression. For a plain identifier it also
// returns the identifier, since only those may be called.
func (c cursor) primary() (Expr, *Ident) {
	t := c.peek()
	// `select(…)` is the builtin (docs/spec/builtins.md §5), `select {…}` the
	// expression.
	if t.Type == tIdent || t.Type == tKeyword && IsCallableKeyword(t.Value) && isPunct(c.peekAt(1), "(") {
		c.next()
		id := &Ident{At: at(t.Pos), Name: t.Value}
		return id, id
	}
	switch t.Type {
	case tInt:
		c.next()
		if n, err := strconv.ParseInt(t.Value, 10, 64); err == nil {
			return &IntLit{At: at(t.Pos), Value: n}, nil
		}
		f, _ := strconv.ParseFloat(t.Value, 64)
		return &FloatLit{At: at(t.Pos), Value: f}, nil
	case tFloat:
		c.next()
		f, _ := strconv.ParseFloat(t.Value, 64)
		return &FloatLit{At: at(t.Pos), Value: f}, nil
	case tDuration:
		c.next()
		return &DurationLit{At: at(t.Pos), Ms: durationMs(t.Value)}, nil
	case tString:
		c.next()
		return &StringLit{At: at(t.Pos), Value: stringValue(t)}, nil
	case tRaw:
		c.next()
		return &StringLit{At: at(t.Pos), Value: stringValue(t), Raw: true}, nil
	case tInterp:
		c.next()
		return c.interpolated(t), nil
	case tKeyword:
		switch t.Value {
		case "true", "false":
			c.next()
			return &BoolLit{At: at(t.Pos), Value: t.Value == "true"}, nil
		case "nil":
			c.next()
			return &NilLit{At: at(t.Pos)}, nil
		case "fn":
			return parse(prods().fnLit.get(), c.lex).ast(), nil
		case "spawn":
			return parse(prods().spawn.get(), c.lex).ast(), nil
		case "mutex":
			m := parse(prods().deferStmt.get(), c.lex).ast().(*MutexStmt)
			return &MutexExpr{At: m.At, Key: m.Key, Timeout: m.Timeout, TimeoutNamed: m.TimeoutNamed, Body: m.Body}, nil
		case "if", "match", "try", "retry", "parallel", "deadline", "select":
			return c.keywordExpr(), nil
		}
	case tPunct:
		switch t.Value {
		case "(":
			c.nestIn("parenthesized expression")
			c.next()
			x := c.expr()
			c.expect(")")
			c.nestOut()
			return x, nil
		case "[":
			c.next()
			return &ListLit{At: at(t.Pos), Elems: c.args("]")}, nil
		case "{":
			return c.braces(), nil
		}
	}
	fail(t, "expression")
	return nil, nil
}

// keywordExpr parses the statement-like expression at the cursor.
func (c cursor) keywordExpr() Expr {
	c.enter()
	defer c.leave()
	p := prods()
	switch c.peek().Value {
	case "if":
		return parse(p.ifExpr.get(), c.lex).ast()
	case "match":
		return parse(p.match.get(), c.lex).ast()
	case "try":
		return parse(p.try.get(), c.lex).ast()
	case "retry":
		return parse(p.retry.get(), c.lex).ast()
	case "parallel":
		return parse(p.parallel.get(), c.lex).ast()
	case "deadline":
		return parse(p.deadline.get(), c.lex).ast()
	default:
		return parse(p.selectExp.get(), c.lex).ast()
	}
}

// braces parses `{…}`: an empty dict, a closure when `->` occurs at depth
// 0 before the matching `}`, otherwise a dict literal (§2.7 rule 1).
func (c cursor) braces() Expr {
	open := c.next()
	if isPunct(c.peek(), "}") {
		c.next()
		return &DictLit{At: at(open.Pos)}
	}
	if !c.arrowAhead() {
		return &DictLit{At: at(open.Pos), Entries: c.dictEntries()}
	}
	cl := &ClosureLit{At: at(open.Pos), Kind: ClosureBrace, Params: c.params("->", false)}
	cl.Body = &Block{At: at(open.Pos), Stmts: c.stmts(false)}
	cl.Body.End = at(c.expect("}").Pos)
	return cl
}

// arrowAhead reports whether a `->` at depth 0 follows before the `}`
// that closes the braces. The `->` after `fn(…)` at depth 0 is the result
// type of an anonymous fn or of a fn type and does not count, so a dict
// holding `fn(x) -> int { … }` stays a dict while a closure parameter typed
// `fn(int) -> int` is still followed by the closure's own `->`.
func (c cursor) arrowAhead() bool {
	cp := c.lex.MakeCheckpoint()
	defer c.lex.LoadCheckpoint(cp)
	depth := 0
	afterFn, inFnParams := false, false
	for {
		t := c.lex.Next()
		fnKeyword := isKw(t, "fn") && depth == 0
		switch {
		case t.Type == tEOF:
			return false
		case t.Type != tPunct:
		case t.Value == "{" || t.Value == "(" || t.Value == "[":
			inFnParams = inFnParams || (afterFn && t.Value == "(")
			depth++
		case t.Value == "}" || t.Value == ")" || t.Value == "]":
			if depth == 0 {
				return false
			}
			depth--
			if depth == 0 && inFnParams {
				inFnParams = false
				if isPunct(c.lex.Peek(), "->") {
					c.lex.Next()
				}
			}
		case t.Value == "->" && depth == 0:
			return true
		}
		afterFn = fnKeyword
	}
}

// dictEntries parses dict or struct literal entries after the `{`,
// through the `}`. Commas are optional: as in args, without a comma a
// token that starts no entry means the `}` is missing, after a comma it
// is a missing key.
func (c cursor) dictEntries() []*DictEntry {
	var out []*DictEntry
	afterComma := false
	for {
		t := c.peek()
		if isPunct(t, "}") {
			c.next()
			return out
		}
		e := &DictEntry{At: at(t.Pos)}
		switch {
		case c.atSpread():
			c.skipSpread()
			e.Spread = c.expr()
			out = append(out, e)
			afterComma = c.accept(",")
			continue
		case isPunct(t, "["):
			c.next()
			e.KeyExpr = c.expr()
			c.expect("]")
		case isName(t):
			e.KeyName = c.next().Value
		case t.Type == tString || t.Type == tRaw:
			e.KeyName, e.KeyIsString = stringValue(c.next()), true
		case len(out) > 0 && !afterComma:
			fail(t, "}")
		default:
			fail(t, "dict key")
		}
		c.expect(":")
		e.Value = c.expr()
		out = append(out, e)
		afterComma = c.accept(",")
	}
}

// interpolated builds an InterpString, parsing each `${…}` (§1.7): each
// hole holds exactly one expression (docs/spec/newer.md §1.8).
func (c cursor) interpolated(t *lexer.Token) Expr {
	segs, holes := splitString(t)
	s := &InterpString{At: at(t.Pos)}
	for i, seg := range segs {
		if seg != "" {
			s.Parts = append(s.Parts, StrPart{Lit: seg})
		}
		if i < len(holes) {
			s.Parts = append(s.Parts, StrPart{Expr: c.holeExpr(holes[i])})
		}
	}
	return s
}

// holeExpr parses the expression of an interpolation hole; its errors are
// the parse's errors.
func (c cursor) holeExpr(h hole) Expr {
	toks, err := newScanner(c.peek().Pos.Filename, h.text, h.line, h.col, false).all()
	if err != nil {
		panic(bailout{err})
	}
	lex := peekingLexer(toks)
	defer register(lex, c.st)()
	defer holeEndError()
	hc := cursor{lex: lex, st: c.st}
	x := hc.expr()
	if t := hc.peek(); t.Type != tEOF {
		fail(t, "end of interpolated expression")
	}
	return x
}

// holeEndError rewords a parse error at the end of a hole's text: the
// hole ended, not the file. The golden text stays upstream's, whose
// parser sees the hole's text on its own ("Unexpected end of file").
func holeEndError() {
	r := recover()
	if r == nil {
		return
	}
	if b, ok := r.(bailout); ok {
		if rest, cut := strings.CutPrefix(b.err.Msg, "unexpected end of file"); cut {
			b.err.Msg = "unexpected end of the `${…}` interpolation" + rest
		}
	}
	panic(r)
}

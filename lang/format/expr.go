package format

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// exprAt prints x where the grammar expects level min.
func (p *printer) exprAt(x syntax.Expr, min int) doc {
	if syntax.Prec(x) < min {
		return p.parenthesised(x)
	}
	return p.expr(x)
}

// parenthesised prints (x). Comments written inside the parentheses of
// the source stay inside (`(/* c */ a + b) * 2`), the others before.
func (p *printer) parenthesised(x syntax.Expr) doc {
	start := syntax.ExprStart(x)
	if i := p.openParen(x, start); i >= 0 {
		open := p.toks[i].Pos
		lead := p.inline(open)
		if open, ok := p.commentedParens(x); ok {
			return concat{lead, p.brokenParens(open, x)}
		}
		// the comments up to the next token: those after a `(` of an
		// operand inside stay there
		next := p.nextSignificant(i + 1)
		inside := p.inline(p.toks[min(next, len(p.toks)-1)].Pos)
		inner := p.expr(x)
		return concat{lead, text("("), inside, inner, p.closeBracket(open), text(")")}
	}
	lead := p.inline(start)
	return concat{lead, text("("), p.expr(x), text(")")}
}

// openParen is the index of the `(` x is written in, or -1. When x's
// first operand is parenthesised too (`((a + b) % 2 + 1)`), several `(`
// stand before its first token: x's is the innermost one closing after
// x's last node.
func (p *printer) openParen(x syntax.Expr, start syntax.Pos) int {
	i := p.tokenBefore(start)
	if !p.isOpenParen(i) {
		return -1
	}
	last := lastPos(x)
	for j := i; p.isOpenParen(j); j = p.tokenBefore(p.toks[j].Pos) {
		if c, ok := p.closer[j]; ok && last.Before(p.toks[c].Pos) {
			return j
		}
	}
	return i
}

func (p *printer) isOpenParen(i int) bool {
	return i >= 0 && p.toks[i].Kind == syntax.TokPunct && p.toks[i].Text == "("
}

// expr prints an expression at the loosest level. The comments before
// the parentheses it is written in are printed here; those inside them
// by the operand that starts it (or the parentheses kept around it).
func (p *printer) expr(x syntax.Expr) doc {
	start := syntax.ExprStart(x)
	lead := p.inline(p.startOf(start))
	if open, ok := p.commentedParens(x); ok {
		return concat{lead, p.brokenParens(open, x)}
	}
	if syntax.Leftmost(x) == x {
		if inside := p.inline(start); inside != nil {
			lead = concat{lead, inside}
		}
	}
	d := p.expr1(x)
	if lead == nil {
		return d
	}
	return concat{lead, d}
}

func (p *printer) expr1(x syntax.Expr) doc {
	checkKnown(x)
	if p.parens[x] {
		delete(p.parens, x)
		return concat{text("("), p.expr1(x), text(")")}
	}
	switch x := x.(type) {
	case *syntax.Ident:
		return text(x.Name)
	case *syntax.IntLit, *syntax.FloatLit, *syntax.DurationLit, *syntax.StringLit, *syntax.InterpString:
		return text(p.textAt(x.Position()))
	case *syntax.BoolLit:
		return text(strconv.FormatBool(x.Value))
	case *syntax.NilLit:
		return text("nil")
	case *syntax.SpreadExpr:
		return concat{text("..."), p.expr(x.X)}
	case *syntax.ListLit:
		return p.seq("[", p.exprElems(x.Elems), "]", p.closing(x.At), false)
	case *syntax.DictLit:
		return p.dict(x.At, x.Entries)
	case *syntax.StructLit:
		name := x.Name
		if x.NS != nil {
			name = x.NS.Name + "." + name
		}
		if len(x.Fields) == 0 {
			return concat{text(name + " "), p.dict(p.nextPunct(x.At, "{"), x.Fields)}
		}
		d := p.dict(p.nextPunct(x.At, "{"), x.Fields).(*group)
		// Point { x: 1 }: spaces inside the braces when flat
		d.docs[1] = indent{sp, d.docs[1].(indent)[1]}
		d.docs[2] = sp
		return concat{text(name + " "), d}
	case *syntax.ClosureLit:
		return p.closure(x)
	case *syntax.BinaryExpr:
		return p.binary(x)
	case *syntax.UnaryExpr:
		op := x.Op
		if op == "try*" {
			op = "try* "
		}
		if inner, ok := x.X.(*syntax.UnaryExpr); ok {
			// Prefix operators stack without parentheses (`!!x`, `- -x`):
			// each pair of parentheses would count against the parser's
			// nesting limit, so a chain within it could be printed past it.
			if op == "-" && inner.Op == "-" {
				op = "- "
			}
			return concat{text(op), p.expr(inner)}
		}
		return concat{text(op), p.exprAt(x.X, syntax.PrecPower)}
	case *syntax.TernaryExpr:
		cond := p.clarified(x.Cond, syntax.PrecOr, "||", "&&", "??")
		// a comment that ended the condition's line stays there, and the
		// `?` starts the next line, indented as the `:` is (after the
		// `?`, the then-branch would start a line of its own unindented)
		var question doc
		if i := p.tokenBefore(p.startOf(syntax.ExprStart(x.Then))); i >= 0 && p.toks[i].Text == "?" {
			question = p.inline(p.toks[i].Pos)
		}
		then := p.exprAt(x.Then, syntax.PrecTernary)
		// a comment that ended the then-branch's line stays there, before
		// the `:` (after it, the line would end in `:`)
		var colon doc
		if i := p.tokenBefore(p.startOf(syntax.ExprStart(x.Else))); i >= 0 && p.toks[i].Text == ":" {
			colon = p.inline(p.toks[i].Pos)
		}
		if question != nil {
			return grp(cond, text(" "), question, indent{sp, text("? "), then}, colon, indent{sp, text(": "), p.exprAt(x.Else, syntax.PrecTernary)})
		}
		return grp(cond, text(" ? "), then, colon, indent{sp, text(": "), p.exprAt(x.Else, syntax.PrecTernary)})
	case *syntax.RangeExpr:
		d := concat{p.exprAt(x.Start, syntax.PrecTernary), text(" to "), p.exprAt(x.End, syntax.PrecTernary)}
		if x.Exclusive {
			d = append(d, text(" exclusive"))
		}
		return d
	case *syntax.PipeExpr:
		return p.pipe(x)
	case *syntax.MemberExpr, *syntax.MethodCall, *syntax.IndexExpr, *syntax.SliceExpr, *syntax.PropagateExpr,
		*syntax.NonNilExpr:
		return p.chain(x)
	case *syntax.CallExpr:
		return p.call(x)
	case *syntax.ValueCall:
		callee := p.exprAt(x.Fn, syntax.PrecPostfix)
		switch x.Fn.(type) {
		case *syntax.Ident, *syntax.MemberExpr:
			// `(f)(x)`, not the call `f(x)`; `(p.f)(x)` calls the field's
			// value, not the method `p.f(x)`
			callee = concat{text("("), callee, text(")")}
		}
		return concat{callee, p.args(x.Args, x.At)}
	case *syntax.IfExpr:
		return p.ifExpr(x, false)
	case *syntax.MatchExpr:
		return p.match(x)
	case *syntax.TryExpr:
		return p.try(x, false)
	case *syntax.RetryExpr:
		return concat{text("retry "), p.exprAt(x.Count, syntax.PrecPrimary), text(" "), p.block(x.Body)}
	case *syntax.ParallelExpr:
		return p.parallel(x)
	case *syntax.DeadlineExpr:
		return concat{text("deadline "), p.exprAt(x.Duration, syntax.PrecPrimary), text(" "), p.block(x.Body)}
	case *syntax.SpawnExpr:
		return concat{text("spawn "), p.block(x.Body)}
	case *syntax.MutexExpr:
		if x.Key != nil {
			return concat{text("mutex"), p.mutexArgs(x.At, x.Key, x.Timeout, x.TimeoutNamed), text(" "), p.block(x.Body)}
		}
		return concat{text("mutex "), p.block(x.Body)}
	case *syntax.SelectExpr:
		return p.selectExpr(x)
	}
	panic(unsupported("an expression of kind " + typeName(x)))
}

func typeName(x any) string {
	return fmt.Sprintf("%T", x)
}

// elem is one element of a bracketed, comma-separated list.
type elem struct {
	start syntax.Pos
	print func() doc
}

// seq prints open, the elements separated by commas, close: on one line if
// it fits, otherwise one element per line with a trailing comma. closeAt
// is the closing bracket's position (comments before it stay inside).
// expand breaks the list even when it would fit.
func (p *printer) seq(open string, elems []elem, close string, closeAt syntax.Pos, expand bool) doc {
	if len(elems) == 0 {
		var inner doc
		if closeAt.IsValid() {
			inner = p.inline(closeAt)
		}
		if inner == nil {
			return text(open + close)
		}
		return grp(text(open), indent{softline, inner}, softline, text(close))
	}
	var head, body concat
	for i, e := range elems {
		// A comment keeps its side of the comma (docs/fmt.md "Comments"):
		// `a /* c */, b` and `a, /* c */ b`. One that ends the line after
		// the comma (or the opening bracket: `f( // why`) stays there; one
		// with code after it on its line leads the element.
		if i > 0 {
			before, lines := p.commentsBefore(p.tokenBeforeIs(e.start, ","), true)
			body = append(body, before, text(","), lines)
			ending := p.endingLine(e.start)
			if lines != nil {
				body = append(body, breakParent{})
				if ending != nil {
					// `a // c` then `, // d`: two line comments cannot
					// share the line after the comma
					body = append(body, hardline)
				}
			}
			body = append(body, ending, sp)
		} else {
			// indented: a second one (`a.// c` then `f( // d`) goes on the
			// next line, where the elements are
			head = append(head, indent{p.endingLine(e.start)})
		}
		body = append(body, p.ownLine(e.start), p.inline(e.start), e.print())
	}
	if closeAt.IsValid() {
		// after the last element: a /* */ comment stays before the comma
		// added when the list breaks, a line comment after it
		end := closeAt
		if comma := p.tokenBeforeIs(closeAt, ","); comma.IsValid() {
			end = comma
		}
		before, lines := p.commentsBefore(end, true)
		body = append(body, before, ifBreak{text(","), nil}, lines)
		trailing := p.trailingComments(closeAt)
		if lines != nil {
			body = append(body, breakParent{})
			if trailing != nil {
				body = append(body, hardline) // not on the line comment's line
			}
		}
		body = append(body, trailing)
		if rest := p.inline(closeAt); rest != nil {
			body = append(body, rest)
		}
	} else {
		body = append(body, ifBreak{text(","), nil})
	}
	g := grp(concat{text(open), head}, indent{softline, body}, softline, text(close))
	if expand {
		g.docs = append(g.docs, breakParent{})
	}
	return g
}

// endingLine emits the comments before start that end the line of the
// code before them (after a comma or an opening bracket).
func (p *printer) endingLine(start syntax.Pos) doc {
	return p.afterOpen(syntax.Pos{}, start)
}

// ownLine emits the comments on lines of their own before an element
// that starts at start, each on its own line before it (docs/fmt.md
// "Comments"): printed by the element itself, one above a dict entry
// would land between its key and value, one above a parameter after the
// last one. A comment with code after it on its line is left to the
// element.
func (p *printer) ownLine(start syntax.Pos) doc {
	var out concat
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(start) {
		c := p.comments[p.next]
		if c.trailing || !c.nlAfter {
			break
		}
		p.next++
		out = append(out, commentDoc(c.tok), hardline)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// exprElems makes the elements of a list of expressions separated by
// commas. An element holding a `<` comparison followed by one holding a
// `>` comparison keeps parentheses: bare, `[a < b, c > (d)]` would read
// `a<b, c>(d)` as a generic call (docs/spec/language.md §2.7, rule 5).
func (p *printer) exprElems(xs []syntax.Expr) []elem {
	elems := make([]elem, len(xs))
	greater := false // a later element holds `>`
	for i := len(xs) - 1; i >= 0; i-- {
		x := xs[i]
		paren := greater && holdsOp(x, "<")
		elems[i] = elem{syntax.ExprStart(x), func() doc {
			if paren {
				return p.parenthesised(x)
			}
			return p.expr(x)
		}}
		greater = greater || holdsOp(x, ">")
	}
	return elems
}

// holdsOp reports whether x contains a binary expression with operator op.
func holdsOp(x syntax.Expr, op string) bool {
	found := false
	syntax.Walk(x, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		if b, ok := n.(*syntax.BinaryExpr); ok && b.Op == op {
			found = true
		}
		return !found
	})
	return found
}

// dict prints `{k: v, …}` (also a struct literal's fields). A dict written
// with a line break after its `{` stays broken, one entry per line.
func (p *printer) dict(openAt syntax.Pos, entries []*syntax.DictEntry) doc {
	elems := make([]elem, len(entries))
	for i, e := range entries {
		e := e
		elems[i] = elem{e.At, func() doc { return p.entry(e) }}
	}
	expand := len(entries) > 0 && (entries[0].At.Line > openAt.Line || p.pendingMultilineComment(openAt))
	return p.seq("{", elems, "}", p.closing(openAt), expand)
}

// pendingMultilineComment reports whether a comment not yet printed, and
// written before pos, spans lines. Before the `{` of a struct literal
// (`P /* a` … `b */{ x: 1 }`) it is printed after the `{`, where its line
// break would make the next run see a broken literal: broken now, the
// formatting is idempotent.
func (p *printer) pendingMultilineComment(pos syntax.Pos) bool {
	for _, c := range p.comments[p.next:] {
		if !c.tok.Pos.Before(pos) {
			break
		}
		if strings.Contains(c.tok.Text, "\n") {
			return true
		}
	}
	return false
}

func (p *printer) entry(e *syntax.DictEntry) doc {
	checkKnown(e)
	switch {
	case e.Spread != nil:
		return concat{text("..."), p.expr(e.Spread)}
	case e.KeyExpr != nil:
		return concat{text("["), p.expr(e.KeyExpr), p.closeBracket(e.At), text("]"), p.colonValue(e.Value)}
	case e.KeyIsString:
		return concat{text(p.textAt(e.At)), p.colonValue(e.Value)}
	}
	return concat{text(e.KeyName), p.colonValue(e.Value)}
}

// colonValue prints `: value` after a key, keeping a comment written
// before the `:` there (`a /* c */: 1`).
func (p *printer) colonValue(v syntax.Expr) doc {
	return concat{p.punct(p.tokenBeforeIs(syntax.ExprStart(v), ":"), ": "), p.expr(v)}
}

// commentedParens finds the parentheses written around x whose `(` is
// followed by a comment that ends its line or stands on a line of its
// own (`(\n  // why\n  a + b\n)`), or whose `)` follows a comment on a
// line of its own. Printed without the parentheses, the first would
// start the expression on a line of its own, unindented (and after
// `return`, end the statement); the last would move past the statement.
// It returns the outermost `(` of those just before x's start that
// encloses x alone.
func (p *printer) commentedParens(x syntax.Expr) (open syntax.Pos, ok bool) {
	start := syntax.ExprStart(x)
	outer := p.startOf(start)
	if outer == start {
		return syntax.Pos{}, false
	}
	after := p.breakingCommentBefore(start)
	for i := p.tokenAt(outer); i >= 0 && p.toks[i].Pos.Before(start); i++ {
		t := p.toks[i]
		if t.Kind != syntax.TokPunct || t.Text != "(" || p.broken[t.Pos] {
			continue
		}
		if c, ok := p.closer[i]; ok && (after || p.ownLineCommentEnds(c)) && p.encloses(i, x) {
			return t.Pos, true
		}
	}
	return syntax.Pos{}, false
}

// ownLineCommentEnds reports whether a comment not yet emitted, on a
// line of its own, is the last thing before token i.
func (p *printer) ownLineCommentEnds(i int) bool {
	for i--; i >= 0 && p.toks[i].Kind == syntax.TokNewline; i-- {
	}
	if i < 0 || significant(p.toks[i]) {
		return false
	}
	for j := p.next; j < len(p.comments); j++ {
		if c := p.comments[j]; c.tok.Pos == p.toks[i].Pos {
			return !c.trailing
		}
	}
	return false
}

// breakingCommentBefore reports whether a comment not yet emitted before
// pos ends its line or starts one.
func (p *printer) breakingCommentBefore(pos syntax.Pos) bool {
	for i := p.next; i < len(p.comments) && p.comments[i].tok.Pos.Before(pos); i++ {
		if c := p.comments[i]; !c.trailing || c.nlAfter {
			return true
		}
	}
	return false
}

// encloses reports whether the parentheses opened by token i hold x
// alone: every node of x lies before the closing `)` (an operator
// written after it belongs to an expression around x), and x is not a
// postfix form when one follows the `)` (a postfix node is positioned at
// its operand, so `(a).len()` tells only by its tokens).
func (p *printer) encloses(i int, x syntax.Expr) bool {
	c, ok := p.closer[i]
	if !ok {
		return false
	}
	if postfixForm(x) && p.postfixAfter(c) {
		return false
	}
	// A call's `(` encloses its last argument and the trailing comma
	// after it (`f(a,` … `)`): not x alone.
	if j := p.tokenBefore(p.toks[c].Pos); j >= 0 && p.toks[j].Kind == syntax.TokPunct && p.toks[j].Text == "," {
		return false
	}
	return lastPos(x).Before(p.toks[c].Pos)
}

func postfixForm(x syntax.Expr) bool {
	switch x.(type) {
	case *syntax.MemberExpr, *syntax.MethodCall, *syntax.IndexExpr, *syntax.SliceExpr,
		*syntax.ValueCall, *syntax.PropagateExpr, *syntax.NonNilExpr:
		return true
	}
	return false
}

// postfixAfter reports whether a postfix operator follows token i.
func (p *printer) postfixAfter(i int) bool {
	for i++; i < len(p.toks); i++ {
		if t := p.toks[i]; significant(t) {
			return t.Kind == syntax.TokPunct && strings.Contains(" . ?. [ ?[ ( ? ! ", " "+t.Text+" ")
		}
	}
	return false
}

// brokenParens prints x in the parentheses at open, broken: the comments
// after the `(` and before the `)` stay inside them, indented with x.
func (p *printer) brokenParens(open syntax.Pos, x syntax.Expr) doc {
	p.broken[open] = true
	close := p.closing(open)
	from := p.next
	body := concat{p.inline(syntax.ExprStart(x))}
	if p.next == from || p.comments[p.next-1].nlAfter {
		body = append(body, hardline)
	}
	body = append(body, p.expr(x), p.inline(close))
	return concat{text("("), indent{body}, hardline, text(")")}
}

// closeBracket emits the /* */ comments written before the bracket that
// closes the one at open (`[k /* c */]`, `(a + b /* c */)`): they stay
// inside it.
func (p *printer) closeBracket(open syntax.Pos) doc {
	close := p.closing(open)
	if close == open {
		return nil
	}
	before, _ := p.commentsBefore(close, false)
	if before == nil {
		return nil
	}
	return before
}

// binary prints a chain of operators of one level, breaking after the
// operators when it does not fit.
func (p *printer) binary(x *syntax.BinaryExpr) doc {
	if x.Op == "**" {
		return concat{p.exprAt(x.X, syntax.PrecPostfix), text(" ** "), p.exprAt(x.Y, syntax.PrecUnary)}
	}
	prec := syntax.BinaryPrec(x.Op)
	// Flatten the left-leaning chain a op b op c of this level.
	var ops []*syntax.BinaryExpr
	var left syntax.Expr = x
	for {
		b, ok := left.(*syntax.BinaryExpr)
		if !ok || b.Op == "**" || syntax.BinaryPrec(b.Op) != prec {
			break
		}
		ops = append(ops, b)
		left = b.X
	}
	operand := func(y syntax.Expr, min int) doc {
		if prec == syntax.PrecOr {
			return p.clarified(y, min, "&&")
		}
		return p.exprAt(y, min)
	}
	parts := concat{operand(left, prec)}
	var rest concat
	for i := len(ops) - 1; i >= 0; i-- {
		b := ops[i]
		sep := doc(sp)
		if len(ops) == 1 && simple(b.Y) {
			sep = text(" ") // x(…) != nil: the short operand stays with the operator
		}
		before := p.inline(b.At)
		from := p.next
		after := p.inline(p.startOf(syntax.ExprStart(b.Y)))
		if after != nil && !p.comments[p.next-1].nlAfter {
			if p.allTrailing(from) {
				// `a + /* c */ b`: the comment belongs to the operand
				// after it, so the line breaks before the comment, not
				// between them (the comment puts a space on each side of
				// itself)
				rest = append(rest, before, text(" "+b.Op), sep, after, operand(b.Y, prec+1))
				continue
			}
			// a comment starting a line that the operand follows on it
			// keeps it there (the line broke before the comment), so no
			// break goes between them
			sep = nil
		}
		if after != nil && p.comments[from].trailing {
			// one space after the operator, `<` included (a `/* */` after
			// an opening `<` hugs it); none before a comment that starts
			// the next line, where it would count as text ending this one
			after = concat{text(" "), after}
		}
		rest = append(rest, before, text(" "+b.Op), after, sep, operand(b.Y, prec+1))
	}
	return grp(parts, indent{rest})
}

// allTrailing reports whether the comments from index from on, up to
// p.next, all follow code on their line.
func (p *printer) allTrailing(from int) bool {
	for _, c := range p.comments[from:p.next] {
		if !c.trailing {
			return false
		}
	}
	return true
}

// clarified prints x at level min, and also parenthesises it when it is
// a binary expression with one of ops, where the parentheses the grammar
// does not need still help a reader: `(a && b) || c`, `(a || b) ? x : y`.
func (p *printer) clarified(x syntax.Expr, min int, ops ...string) doc {
	if b, ok := x.(*syntax.BinaryExpr); ok && syntax.Prec(x) >= min {
		for _, op := range ops {
			if b.Op == op {
				return p.parenthesised(x)
			}
		}
	}
	return p.exprAt(x, min)
}

// pipe prints `x |> f |> g`, breaking before each `|>`.
func (p *printer) pipe(x *syntax.PipeExpr) doc {
	var fs []syntax.Expr
	var head syntax.Expr = x
	for {
		pp, ok := head.(*syntax.PipeExpr)
		if !ok {
			break
		}
		fs = append(fs, pp.F)
		head = pp.X
	}
	// the head first: comments are taken in source order
	first := p.exprAt(head, syntax.PrecPipe)
	var rest concat
	for i := len(fs) - 1; i >= 0; i-- {
		// a comment that ended the previous stage's line stays there,
		// before the `|>`
		if op := p.tokenBefore(p.startOf(syntax.ExprStart(fs[i]))); op >= 0 && p.toks[op].Text == "|>" {
			rest = append(rest, p.inline(p.toks[op].Pos))
		}
		rest = append(rest, sp, text("|> "), p.exprAt(fs[i], syntax.PrecRange))
	}
	return grp(first, indent{rest})
}

// chain prints postfix operations. A chain with two or more method calls
// that does not fit breaks before each `.`.
func (p *printer) chain(x syntax.Expr) doc {
	var links []syntax.Expr
	head := x
	for {
		recv, ok := chainReceiver(head)
		if !ok {
			break
		}
		links = append(links, head)
		head = recv
	}
	calls := 0
	for _, l := range links {
		if _, ok := l.(*syntax.MethodCall); ok {
			calls++
		}
	}
	out := concat{p.exprAt(head, syntax.PrecPostfix)}
	sc := p.scanChainAfter(head, links[len(links)-1])
	var rest concat
	lastPropagate := false
	for i := len(links) - 1; i >= 0; i-- {
		if _, nonNil := links[i].(*syntax.NonNilExpr); lastPropagate && !nonNil {
			// `x?` then `.y`, `[i]` or `?` would read as `x?.y`, `x?[i]`
			// or `x??`: parenthesise what comes before.
			out = concat{text("("), out, rest, text(")")}
			rest = nil
		}
		_, lastPropagate = links[i].(*syntax.PropagateExpr)
		switch n := links[i].(type) {
		case *syntax.MemberExpr:
			dot := "."
			if n.Optional {
				dot = "?."
			}
			at, _ := sc.member(n.Name, false)
			rest = append(rest, p.beforeLink(at, calls))
			if calls >= 2 {
				rest = append(rest, softline)
			}
			rest = append(rest, text(dot+n.Name))
		case *syntax.MethodCall:
			dot := "."
			if n.Optional {
				dot = "?."
			}
			at, paren := sc.member(n.Name, true)
			rest = append(rest, p.beforeLink(at, calls))
			if calls >= 2 {
				rest = append(rest, softline)
			}
			rest = append(rest, text(dot+n.Name), p.typeArgs(n.TypeArgs), p.args(n.Args, paren))
		case *syntax.IndexExpr:
			open := "["
			if n.Optional {
				// the canonical spelling (docs/spec/newer.md §1.2): the legacy `?[` reads
				// as a ternary when a `:` follows, as in `{a: xs?[0], b: 1}`
				open = "?.["
			}
			sc.bracket()
			rest = append(rest, text(open), p.expr(n.Index), text("]"))
		case *syntax.SliceExpr:
			open := "["
			if n.Optional {
				open = "?.["
			}
			sc.bracket()
			rest = append(rest, text(open))
			if n.Lo != nil {
				rest = append(rest, p.expr(n.Lo))
			}
			rest = append(rest, text(":"))
			if n.Hi != nil {
				rest = append(rest, p.expr(n.Hi))
			}
			rest = append(rest, text("]"))
		case *syntax.PropagateExpr:
			rest = append(rest, text("?"))
		case *syntax.NonNilExpr:
			rest = append(rest, text("!"))
		}
	}
	if calls >= 2 {
		return grp(out, indent{rest})
	}
	return append(out, rest...)
}

// chainReceiver is what the postfix link x (a member, method call,
// index, slice, `?` or `!`) applies to; ok is false for any other
// expression.
func chainReceiver(x syntax.Expr) (recv syntax.Expr, ok bool) {
	switch n := x.(type) {
	case *syntax.MemberExpr:
		return n.X, true
	case *syntax.MethodCall:
		return n.X, true
	case *syntax.IndexExpr:
		return n.X, true
	case *syntax.SliceExpr:
		return n.X, true
	case *syntax.PropagateExpr:
		return n.X, true
	case *syntax.NonNilExpr:
		return n.X, true
	}
	return nil, false
}

// beforeLink emits the comments before the `.` at dot of a chain link
// (one that ended the previous link's line stays there), and the line
// break they need before the `.`; calls is the chain's number of calls
// (from two on the chain's own breaks are indented).
func (p *printer) beforeLink(dot syntax.Pos, calls int) doc {
	if !dot.IsValid() {
		return nil
	}
	c := p.inline(dot)
	if c == nil || calls >= 2 {
		return c
	}
	return indent{c}
}

// scanChain walks the tokens of a postfix chain in step with its links,
// so that each link's `.` and each method call's `(` are known. It
// starts after the chain's head; a link not found where it should be
// stops it (i < 0), and positions are then zero.
type scanChain struct {
	p *printer
	i int
}

// scanChainAfter places a scanner after a chain's head, whose first link
// is first. The head may be inside parentheses, which the tree does not
// record: each start — the head's first token or one of the `(` written
// just before it, innermost first — is tried until the first link follows
// it. A head the grammar needs parentheses around (`(a + b).f()`) tries
// the parentheses before its bare start.
func (p *printer) scanChainAfter(head, first syntax.Expr) *scanChain {
	i0 := p.tokenAt(syntax.ExprStart(head))
	if i0 < 0 {
		return &scanChain{p: p, i: -1}
	}
	var starts []int
	for j := i0 - 1; j >= 0; j-- {
		t := p.toks[j]
		if !significant(t) {
			continue
		}
		if t.Kind != syntax.TokPunct || t.Text != "(" {
			break
		}
		starts = append(starts, j)
	}
	if syntax.Prec(head) < syntax.PrecPostfix {
		starts = append(starts, i0)
	} else {
		starts = append([]int{i0}, starts...)
	}
	for _, start := range starts {
		s := &scanChain{p: p, i: start + 1}
		if c, ok := p.closer[start]; ok && p.toks[start].Kind == syntax.TokPunct {
			s.i = c + 1
		}
		if s.leads(first) {
			return s
		}
	}
	return p.scanPastHead(head, first)
}

// scanPastHead places a scanner after a head of several tokens that is not
// bracketed as a whole (`f(x).g()`, `Point { x: 1 }.g()`, `parallel n
// { … }.g()`): from the last node inside the head, over whole bracketed
// groups, to the first place the first link follows.
func (p *printer) scanPastHead(head, first syntax.Expr) *scanChain {
	i := p.tokenAt(lastPos(head))
	for ; i >= 0 && i < len(p.toks); i++ {
		if c, ok := p.closer[i]; ok && p.toks[i].Kind == syntax.TokPunct {
			i = c
		}
		if s := (&scanChain{p: p, i: i + 1}); s.leads(first) {
			return s
		}
	}
	return &scanChain{p: p, i: -1}
}

// lastPos is the position of the node inside x (x included) that starts
// last, or of the last closing brace of a block inside it.
func lastPos(x syntax.Node) syntax.Pos {
	last := x.Position()
	syntax.Walk(x, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		pos := n.Position()
		if b, ok := n.(*syntax.Block); ok && b.End.IsValid() {
			pos = b.End
		}
		if last.Before(pos) {
			last = pos
		}
		return true
	})
	return last
}

// next is the index of the next token of the chain from s.i on: line
// breaks and comments are skipped, and so are the `)` closing
// parentheses around what came before and the `?` and `!` of propagate
// and non-nil links (which have no scanner step).
func (s *scanChain) next() int {
	if s.i < 0 {
		return -1
	}
	j := s.i
	for ; j < len(s.p.toks); j++ {
		if t := s.p.toks[j]; significant(t) && !(t.Kind == syntax.TokPunct && (t.Text == ")" || t.Text == "?" || t.Text == "!")) {
			return j
		}
	}
	return -1
}

// leads reports whether link l starts at the scanner's position.
func (s *scanChain) leads(l syntax.Expr) bool {
	j := s.next()
	switch n := l.(type) {
	case *syntax.MemberExpr:
		return s.isPunct(j, ".", "?.") && s.p.toks[s.p.nextSignificant(j+1)].Text == n.Name
	case *syntax.MethodCall:
		return s.isPunct(j, ".", "?.") && s.p.toks[s.p.nextSignificant(j+1)].Text == n.Name
	case *syntax.IndexExpr, *syntax.SliceExpr:
		return s.isPunct(j, "[", "?.[", "?.")
	}
	return true // `?` and `!` are skipped by next
}

func (s *scanChain) isPunct(j int, vs ...string) bool {
	if j < 0 || j >= len(s.p.toks) {
		return false
	}
	t := s.p.toks[j]
	if t.Kind != syntax.TokPunct {
		return false
	}
	for _, v := range vs {
		if t.Text == v {
			return true
		}
	}
	return false
}

// member moves past `.name` and returns the position of its `.` and, for a
// call, of its `(` (zero positions when the chain is lost).
func (s *scanChain) member(name string, call bool) (dot, paren syntax.Pos) {
	j := s.next()
	if !s.isPunct(j, ".", "?.") || s.p.toks[s.p.nextSignificant(j+1)].Text != name {
		s.i = -1
		return syntax.Pos{}, syntax.Pos{}
	}
	dot = s.p.toks[j].Pos
	k := s.p.nextSignificant(j + 1)
	if !call {
		s.i = k + 1
		return dot, syntax.Pos{}
	}
	open := s.p.nextSignificant(k + 1)
	if s.isPunct(open, "<") {
		open = s.p.nextSignificant(s.closeAngle(open) + 1) // `.map<string>(`
	}
	if !s.isPunct(open, "(") {
		s.i = -1
		return dot, syntax.Pos{}
	}
	s.i = open + 1
	if c, ok := s.p.closer[open]; ok {
		s.i = c + 1
	}
	return dot, s.p.toks[open].Pos
}

// closeAngle is the index of the `>` closing the `<` at j (a call's
// type arguments), or len(toks) when there is none.
func (s *scanChain) closeAngle(j int) int {
	depth := 0
	for ; j < len(s.p.toks); j++ {
		t := s.p.toks[j]
		if t.Kind != syntax.TokPunct {
			continue
		}
		switch t.Text {
		case "<":
			depth++
		case ">":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return j
}

// bracket moves past the next `[…]`.
func (s *scanChain) bracket() {
	j := s.next()
	if s.isPunct(j, "?.") {
		j = s.p.nextSignificant(j + 1)
	}
	if !s.isPunct(j, "[", "?.[") {
		s.i = -1
		return
	}
	s.i = j + 1
	if c, ok := s.p.closer[j]; ok {
		s.i = c + 1
	}
}

// call prints `f(args)` or `f<T>(args)`.
func (p *printer) call(x *syntax.CallExpr) doc {
	d := concat{text(x.Fn.Name), p.typeArgs(x.TypeArgs)}
	paren := p.nextPunct(x.Fn.At, "(")
	if len(x.TypeArgs) > 0 {
		paren = p.afterTypeArgs(x.Fn.At)
	}
	return append(d, p.args(x.Args, paren))
}

// typeArgs prints a call's type arguments `<A, B>`, or nothing.
func (p *printer) typeArgs(targs []syntax.TypeExpr) doc {
	if len(targs) == 0 {
		return concat{}
	}
	d := concat{text("<")}
	for i, t := range targs {
		if i > 0 {
			d = append(d, text(", "))
		}
		d = append(d, p.typ(t))
	}
	return append(d, text(">"))
}

// afterTypeArgs is the `(` after `name<…>`.
func (p *printer) afterTypeArgs(name syntax.Pos) syntax.Pos {
	i := p.tokenAt(name)
	if i < 0 {
		return syntax.Pos{}
	}
	depth := 0
	for j := i + 1; j < len(p.toks); j++ {
		t := p.toks[j]
		if t.Kind != syntax.TokPunct {
			continue
		}
		switch t.Text {
		case "<":
			depth++
		case ">":
			depth--
		case "(":
			if depth == 0 {
				return t.Pos
			}
		}
	}
	return syntax.Pos{}
}

// args prints a parenthesised argument list whose `(` is at paren. A
// trailing closure argument does not force the list to break.
func (p *printer) args(args []syntax.Expr, paren syntax.Pos) doc {
	closeAt := p.closing(paren)
	if closeAt == paren {
		closeAt = syntax.Pos{}
	}
	elems := p.exprElems(args)
	if n := len(args); n > 0 && closeAt.IsValid() && !p.commentsOutsideLast(args[n-1], closeAt) && hugs(args) {
		// f(a, [ … ]) and f({ x -> … }): the last argument opens on the
		// call's line and only it breaks. Not with a comment inside the
		// parentheses but outside the last argument's brackets, nor with
		// one not yet printed before the `(` (`f /* c */ (x, [ … ])`,
		// `a.// c` then `f(x, { … })`): printed after the `(`, it is
		// inside them the next run, which would not hug. A comment within
		// the last argument's own brackets is printed by that argument, as
		// it would be anywhere else (`register([` … `// why` … `])`).
		var d concat
		d = append(d, text("("))
		for i, a := range args {
			if i > 0 {
				d = append(d, text(", "))
			}
			d = append(d, p.expr(a))
		}
		return append(d, text(")"))
	}
	return p.seq("(", elems, ")", closeAt, false)
}

// commentsOutsideLast reports whether a comment not yet printed lies before
// the call's closing parenthesis at closeAt and outside the brackets of
// the last argument: before its opening `[`/`{`, or after its closing one.
// A last argument that does not start with a bracket counts as a whole.
func (p *printer) commentsOutsideLast(last syntax.Expr, closeAt syntax.Pos) bool {
	open := syntax.ExprStart(last)
	i := p.tokenAt(open)
	if i < 0 || p.toks[i].Kind != syntax.TokPunct || (p.toks[i].Text != "[" && p.toks[i].Text != "{") {
		return p.hasComments(syntax.Pos{}, closeAt)
	}
	shut := p.closing(open)
	if shut == open {
		return p.hasComments(syntax.Pos{}, closeAt)
	}
	return p.hasComments(syntax.Pos{}, open) || p.hasComments(shut, closeAt)
}

// hugs reports whether an argument list keeps its parentheses on the
// lines of its last argument: that argument is a bracketed literal, a
// closure, a match or a call that hugs in turn, and the others are simple.
func hugs(args []syntax.Expr) bool {
	for _, a := range args[:len(args)-1] {
		if !simple(a) {
			return false
		}
	}
	switch x := args[len(args)-1].(type) {
	case *syntax.ListLit:
		return len(x.Elems) > 0
	case *syntax.DictLit:
		return len(x.Entries) > 0
	case *syntax.StructLit:
		return len(x.Fields) > 0
	case *syntax.ClosureLit, *syntax.MatchExpr:
		return true
	case *syntax.CallExpr:
		return len(x.Args) > 0 && hugs(x.Args)
	case *syntax.MethodCall:
		return len(x.Args) > 0 && simple(x.X) && hugs(x.Args)
	}
	return false
}

// simple reports whether an expression is short and unbreakable enough to
// stay in front of a hugged argument.
func simple(x syntax.Expr) bool {
	switch x := x.(type) {
	case *syntax.Ident, *syntax.IntLit, *syntax.FloatLit, *syntax.DurationLit, *syntax.BoolLit, *syntax.NilLit:
		return true
	case *syntax.StringLit:
		return len(x.Value) <= 40 && !strings.Contains(x.Value, "\n")
	case *syntax.MemberExpr:
		return simple(x.X)
	case *syntax.UnaryExpr:
		return simple(x.X)
	}
	return false
}

// closure prints `{ params -> body }` or `fn(params) -> R { body }`.
func (p *printer) closure(x *syntax.ClosureLit) doc {
	if x.Kind == syntax.ClosureFn {
		d := concat{text("fn"), p.params(x.Params, p.nextPunct(x.At, "(")), p.returnThrows(x.Return, x.Throws), text(" ")}
		return append(d, p.block(x.Body))
	}
	// the parameters keep their comments where they are, a line comment
	// breaking the line (indented, like the body)
	var head concat
	for i, prm := range x.Params {
		if i > 0 {
			head = append(head, p.punct(p.tokenBeforeIs(prm.At, ","), ", "))
		}
		head = append(head, p.inline(prm.At), p.param(prm))
	}
	after := x.Body.End
	if len(x.Body.Stmts) > 0 {
		after = p.stmtStart(x.Body.Stmts[0])
	}
	head = append(head, p.punct(p.tokenBeforeIs(after, "->"), " ->"))
	return p.blockWith(x.Body, indent{head}, x.Body.Stmts)
}

func (p *printer) returnThrows(ret, throws syntax.TypeExpr) doc {
	var d concat
	if ret != nil {
		d = append(d, p.punct(p.tokenBeforeIs(ret.Position(), "->"), " -> "), p.typ(ret))
	}
	if throws != nil {
		d = append(d, p.punct(p.tokenBeforeIs(throws.Position(), "throws"), " throws "), p.typ(throws))
	}
	return d
}

// ifExpr prints an if; at statement level (stmt) its blocks are always
// broken, as an expression short ones may stay on one line.
func (p *printer) ifExpr(x *syntax.IfExpr, stmt bool) doc {
	blk := p.block
	if stmt {
		blk = p.body
	}
	d := concat{text("if "), p.expr(x.Cond), text(" "), blk(x.Then)}
	switch e := x.Else.(type) {
	case nil:
	case *syntax.IfExpr:
		// `else /* c */ if`: a comment before the `if` stays there
		d = append(d, p.keyword(x.Then.End, "else"), p.inline(e.At), p.ifExpr(e, stmt))
	case *syntax.Block:
		d = append(d, p.keyword(x.Then.End, "else"), blk(e))
	}
	return d
}

func (p *printer) match(x *syntax.MatchExpr) doc {
	d := concat{text("match "), p.expr(x.X), text(" {")}
	items := make([]item, len(x.Arms))
	for i, a := range x.Arms {
		a := a
		items[i] = item{start: syntax.ExprStart(a.Patterns[0]), print: func() doc { return p.arm(a) }}
	}
	end := p.closing(p.matchBrace(x))
	p.setEnds(items, end)
	if len(items) == 0 {
		return append(d, p.inline(end), text("}"))
	}
	return append(d, p.afterOpen(p.matchBrace(x), items[0].start), indent{hardline, p.list(items, end)}, hardline, text("}"))
}

// matchBrace is the `{` that opens a match's arms: the first `{` at depth
// 0 after the subject.
func (p *printer) matchBrace(x *syntax.MatchExpr) syntax.Pos {
	if len(x.Arms) > 0 {
		// the last `{` before the first arm's pattern
		i := p.tokenAt(p.startOf(syntax.ExprStart(x.Arms[0].Patterns[0])))
		for j := i - 1; j >= 0; j-- {
			if t := p.toks[j]; t.Kind == syntax.TokPunct && t.Text == "{" {
				return t.Pos
			}
		}
	}
	return p.nextPunct(syntax.ExprStart(x.X), "{")
}

func (p *printer) arm(a *syntax.MatchArm) doc {
	// An or-pattern too long for its line breaks after each `|`, the
	// alternatives after the first one level in (docs/fmt.md); one with
	// comments among its alternatives keeps them where they are.
	last := syntax.ExprStart(a.Patterns[len(a.Patterns)-1])
	commented := p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(last)
	var rest concat
	for _, pat := range a.Patterns[1:] {
		bar := p.tokenBeforeIs(syntax.ExprStart(pat), "|")
		if commented {
			rest = append(rest, p.punct(bar, " | "))
		} else {
			rest = append(rest, text(" |"), sp)
		}
		rest = append(rest, p.expr(pat))
	}
	d := concat{p.expr(a.Patterns[0])}
	switch {
	case commented:
		d = append(d, rest...)
	case rest != nil:
		d = concat{grp(d[0], indent{rest})}
	}
	if a.Guard != nil {
		d = append(d, p.punct(p.tokenBeforeIs(syntax.ExprStart(a.Guard), "if"), " if "), p.expr(a.Guard))
	}
	// A line comment before the `->` is left to the body, which puts it
	// inside, after the `{` (as one before the `{` of any block): after
	// the `->` it would push the `{` to the next line, and the next
	// formatting would move it into the block.
	before, _ := p.commentsBefore(p.tokenBeforeIs(a.Body.At, "->"), false)
	return append(d, before, text(" -> "), p.block(a.Body))
}

func (p *printer) try(x *syntax.TryExpr, stmt bool) doc {
	blk := p.block
	if stmt {
		blk = p.body
	}
	d := concat{text("try "), blk(x.Body)}
	if x.HasCatch {
		d = append(d, p.keyword(x.Body.End, "catch"))
		if x.CatchVar != "" {
			// indented: a line comment after `catch (` puts the variable
			// on the next line, one level in (docs/fmt.md "Comments")
			open, close := p.catchParens(x.Body.End)
			if !close.IsValid() {
				close = x.Catch.At // `catch e {`: the comments after e stay before the `)` written
			}
			v := concat{p.catchVarComments(open), text(x.CatchVar)}
			if x.CatchType != nil {
				v = append(v, text(": "), p.typ(x.CatchType))
			}
			d = append(d, text("("), indent{v}, p.beforeClose(close), text(") "))
		}
		d = append(d, blk(x.Catch))
	}
	if x.Finally != nil {
		end := x.Body.End
		if x.HasCatch {
			end = x.Catch.End
		}
		d = append(d, p.keyword(end, "finally"), blk(x.Finally))
	}
	return d
}

// catchParens finds the `catch` following the try body that ends at
// bodyEnd and returns the token the caught variable follows — the `(`, or
// the `catch` itself when the variable is written bare (`catch e {`) —
// and the `)` that closes the `(` (the zero Pos for a bare variable).
func (p *printer) catchParens(bodyEnd syntax.Pos) (open, close syntax.Pos) {
	i := p.tokenAt(bodyEnd)
	if i < 0 {
		return syntax.Pos{}, syntax.Pos{}
	}
	if i = p.nextSignificant(i + 1); i == len(p.toks) {
		return syntax.Pos{}, syntax.Pos{}
	}
	open = p.toks[i].Pos // catch
	if j := p.nextSignificant(i + 1); j < len(p.toks) && p.toks[j].Kind == syntax.TokPunct && p.toks[j].Text == "(" {
		return p.toks[j].Pos, p.closing(p.toks[j].Pos)
	}
	return open, syntax.Pos{}
}

// catchVarComments emits the comments between open (the `(` of
// `catch (`, or a bare variable's `catch`) and the caught variable: left
// to the catch block, they would move into it.
func (p *printer) catchVarComments(open syntax.Pos) doc {
	i := p.tokenAt(open)
	if i < 0 {
		return nil
	}
	if i = p.nextSignificant(i + 1); i == len(p.toks) {
		return nil
	}
	var out concat
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(p.toks[i].Pos) {
		c := p.comments[p.next]
		p.next++
		if c.nlAfter {
			out = append(out, commentText(strings.TrimRight(c.tok.Text, " \t\r")), hardline)
		} else {
			out = append(out, text(c.tok.Text+" ")) // `catch (/* c */ e)`
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// beforeClose emits the comments written before the `)` at close, after
// the last item (`catch (e /* why */)`): they stay there.
func (p *printer) beforeClose(close syntax.Pos) doc {
	var out concat
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(close) {
		c := p.comments[p.next]
		p.next++
		t := commentText(strings.TrimRight(c.tok.Text, " \t\r"))
		if c.trailing {
			out = append(out, text(" "), t)
		} else {
			out = append(out, indent{hardline, t})
		}
		if c.nlAfter {
			out = append(out, hardline)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (p *printer) parallel(x *syntax.ParallelExpr) doc {
	d := concat{text("parallel ")}
	switch x.Mode {
	case syntax.ParallelEach:
		d = append(d, text("each "))
	case syntax.ParallelSettle:
		d = append(d, text("settle "))
	}
	d = append(d, p.expr(x.Arg), text(" "))
	if x.MaxConcurrent != nil {
		// All the comments between the items and `with` stay before
		// `with`: left to the count, a line comment would end the line
		// inside the braces (`with { max_concurrent: // c` and the count
		// on the next line). Those on the items' line stay there; those
		// on lines of their own stay on their lines, one level in like
		// `with`, which then starts the next line.
		withAt := p.keywordBefore(syntax.ExprStart(x.MaxConcurrent), "with")
		before, lines := p.commentsBefore(withAt, true)
		for _, c := range before {
			d = append(d, c, text(" "))
		}
		// the rest, from the first on a line of its own: each ends with
		// a line break, or a space before `with` on its line
		own := p.inline(withAt)
		opts := concat{text("with { max_concurrent: "), p.expr(x.MaxConcurrent), text(" } ")}
		switch {
		case own != nil:
			d = append(d, lines, breakParent{}, indent{own, opts})
		case len(lines) > 0:
			d = append(d, lines, breakParent{}, indent{hardline, opts})
		default:
			d = append(d, opts)
		}
	}
	var head doc
	if x.Param != "" {
		head = text(x.Param + " ->")
	}
	d = append(d, p.blockWith(x.Body, head, x.Body.Stmts))
	if x.Stream {
		d = append(d, text(" as stream"))
	}
	return d
}

func (p *printer) selectExpr(x *syntax.SelectExpr) doc {
	var items []item
	for _, c := range x.Cases {
		c := c
		items = append(items, item{start: c.At, print: func() doc {
			return concat{text(c.Name + " from "), p.expr(c.Channel), text(" "), p.block(c.Body)}
		}})
	}
	if x.TimeoutBody != nil {
		items = append(items, item{start: p.keywordBefore(x.TimeoutBody.At, "timeout"), print: func() doc {
			return concat{text("timeout "), p.expr(x.Timeout), text(" "), p.block(x.TimeoutBody)}
		}})
	}
	if x.Default != nil {
		items = append(items, item{start: p.keywordBefore(x.Default.At, "default"), print: func() doc {
			return concat{text("default "), p.block(x.Default)}
		}})
	}
	sortItems(items)
	open := p.nextPunct(x.At, "{")
	end := p.closing(open)
	p.setEnds(items, end)
	if len(items) == 0 {
		return concat{text("select {"), p.inline(end), text("}")}
	}
	return concat{text("select {"), indent{hardline, p.list(items, end)}, hardline, text("}")}
}

// keywordBefore finds the last occurrence of the word kw before pos.
func (p *printer) keywordBefore(pos syntax.Pos, kw string) syntax.Pos {
	i := p.tokenAt(pos)
	for j := i - 1; j >= 0; j-- {
		if p.toks[j].Text == kw {
			return p.toks[j].Pos
		}
	}
	return pos
}

func sortItems(items []item) {
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && items[j].start.Before(items[j-1].start); j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
}

package format

import (
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// printer holds what the tree lacks: the token stream (for comments,
// literals as written and where statements end) and the comments not yet
// emitted.
type printer struct {
	toks     []syntax.Token
	index    map[syntax.Pos]int // token index by start position
	comments []comment
	next     int         // first comment not yet emitted
	lastLine int         // source line on which the last emitted element ended
	closer   map[int]int // token index of an opening bracket → its closing one
	// keyword forms that begin a statement but not as its statement form
	// (`(if c { a } else { b }) |> f`): printed in parentheses, without
	// which the statement would parse as the `if` alone
	parens map[syntax.Expr]bool
	// the `(` of parentheses printed broken to keep comments inside them
	// (commentedParens)
	broken map[syntax.Pos]bool
}

type comment struct {
	tok      syntax.Token
	trailing bool // follows code on the same line
	block    bool // a /* */ comment: code may follow it on its last line
	nlAfter  bool // a line break follows it
}

func newPrinter(toks []syntax.Token) *printer {
	p := &printer{toks: toks, index: make(map[syntax.Pos]int, len(toks)), closer: map[int]int{}, parens: map[syntax.Expr]bool{}, broken: map[syntax.Pos]bool{}}
	prevLine := 0
	var open []int
	for i, t := range toks {
		p.index[t.Pos] = i
		if t.Kind == syntax.TokPunct {
			switch t.Text {
			case "(", "[", "{":
				open = append(open, i)
			case ")", "]", "}":
				if n := len(open); n > 0 {
					p.closer[open[n-1]] = i
					open = open[:n-1]
				}
			}
		}
		switch t.Kind {
		case syntax.TokComment, syntax.TokDoc:
			c := comment{tok: t, trailing: prevLine == t.Pos.Line}
			c.block = strings.HasPrefix(t.Text, "/*")
			c.nlAfter = !c.block || i+1 < len(toks) && (toks[i+1].Kind == syntax.TokNewline || toks[i+1].Kind == syntax.TokEOF)
			p.comments = append(p.comments, c)
			if c.block {
				prevLine = t.End().Line
			}
		case syntax.TokNewline:
		default:
			prevLine = t.End().Line
		}
	}
	return p
}

// significant reports whether a token is code (not a comment, line break
// or statement separator).
func significant(t syntax.Token) bool {
	switch t.Kind {
	case syntax.TokComment, syntax.TokDoc, syntax.TokNewline:
		return false
	case syntax.TokPunct:
		return t.Text != ";"
	}
	return true
}

// tokenAt is the index of the token starting at pos, or -1.
func (p *printer) tokenAt(pos syntax.Pos) int {
	if i, ok := p.index[pos]; ok {
		return i
	}
	return -1
}

// textAt is the source text of the token starting at pos.
func (p *printer) textAt(pos syntax.Pos) string {
	if i := p.tokenAt(pos); i >= 0 {
		return p.toks[i].Text
	}
	panic(unsupported("a node without a token at " + posString(pos)))
}

func posString(p syntax.Pos) string {
	return strings.Join([]string{itoa(p.Line), itoa(p.Col)}, ":")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// closing is the position of the bracket that closes the one at pos (or
// pos itself when there is none).
func (p *printer) closing(pos syntax.Pos) syntax.Pos {
	if i, ok := p.closer[p.tokenAt(pos)]; ok {
		return p.toks[i].Pos
	}
	return pos
}

// nextPunct is the position of the first punctuation v at or after pos.
func (p *printer) nextPunct(pos syntax.Pos, v string) syntax.Pos {
	i := p.tokenAt(pos)
	if i < 0 {
		return pos
	}
	for ; i < len(p.toks); i++ {
		if t := p.toks[i]; t.Kind == syntax.TokPunct && t.Text == v {
			return t.Pos
		}
	}
	return pos
}

// trailingComments emits the comments before pos that trail code on their
// line (after a separator such as a comma).
func (p *printer) trailingComments(pos syntax.Pos) doc {
	var out concat
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(pos) && p.comments[p.next].trailing {
		c := p.comments[p.next]
		p.next++
		out = append(out, commentText(strings.TrimRight(c.tok.Text, " \t\r")))
		if c.nlAfter {
			out = append(out, breakParent{})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// afterOpen emits the comments that end the line of the opening brace at
// open, before first (the first statement or member, or the closing
// brace): `fn f() { // why` keeps its comment after the brace. With no
// open position it takes every such comment before first (endingLine).
func (p *printer) afterOpen(open, first syntax.Pos) doc {
	var out concat
	for p.next < len(p.comments) {
		c := p.comments[p.next]
		if !c.trailing || !c.nlAfter || !c.tok.Pos.Before(first) {
			break
		}
		if open.IsValid() && (c.tok.Pos.Line != open.Line || !open.Before(c.tok.Pos)) {
			break
		}
		p.next++
		if len(out) > 0 {
			out = append(out, hardline) // each ended its own line (`a.// c` then `f( // d`)
		}
		out = append(out, commentText(strings.TrimRight(c.tok.Text, " \t\r")), breakParent{})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// keyword prints ` kw ` (else, catch, finally) after a block that ends at
// end, keeping a comment written between them where it was: after the
// `}` (or on a line of its own), with kw starting the next line.
func (p *printer) keyword(end syntax.Pos, kw string) doc {
	i := p.tokenAt(end)
	if i < 0 {
		return text(" " + kw + " ")
	}
	if i = p.nextSignificant(i + 1); i == len(p.toks) {
		return text(" " + kw + " ")
	}
	if c := p.inline(p.toks[i].Pos); c != nil {
		if !p.comments[p.next-1].nlAfter {
			return concat{c, text(kw + " ")} // `} /* c */ else {` stays one line
		}
		return concat{c, hardline, text(kw + " ")}
	}
	return text(" " + kw + " ")
}

// tokenBefore is the index of the last significant token before pos, or
// -1.
func (p *printer) tokenBefore(pos syntax.Pos) int {
	i := p.tokenAt(pos)
	if i < 0 {
		return -1
	}
	for i--; i >= 0; i-- {
		if significant(p.toks[i]) {
			return i
		}
	}
	return -1
}

// nextSignificant is the index of the first significant token at or
// after index i, or len(p.toks).
func (p *printer) nextSignificant(i int) int {
	for i < len(p.toks) && !significant(p.toks[i]) {
		i++
	}
	return i
}

// endBefore is the position where the last significant token before pos
// ends (the end of the statement that precedes pos).
func (p *printer) endBefore(pos syntax.Pos) syntax.Pos {
	i := p.tokenAt(pos)
	if i < 0 {
		i = len(p.toks) - 1
	}
	for i--; i >= 0; i-- {
		if significant(p.toks[i]) {
			return p.toks[i].End()
		}
	}
	return syntax.Pos{}
}

// startOf widens a start position over the opening parentheses written
// before it (a statement such as `(a + b).f()` starts at its `(`).
func (p *printer) startOf(pos syntax.Pos) syntax.Pos {
	i := p.tokenAt(pos)
	if i < 0 {
		return pos
	}
	for j := i - 1; j >= 0; j-- {
		t := p.toks[j]
		if !significant(t) {
			continue
		}
		if t.Kind == syntax.TokPunct && t.Text == "(" {
			pos = t.Pos
			continue
		}
		break
	}
	return pos
}

// commentDoc is the text of a comment; `///` runs are re-indented line by
// line.
func commentDoc(t syntax.Token) doc {
	if t.Kind == syntax.TokDoc && strings.HasPrefix(t.Text, "///") {
		lines := strings.Split(t.Text, "\n")
		var out concat
		for i, l := range lines {
			if i > 0 {
				out = append(out, hardline)
			}
			out = append(out, text(strings.TrimRight(strings.TrimSpace(l), " \t\r")))
		}
		return out
	}
	return text(strings.TrimRight(t.Text, " \t\r"))
}

// inline emits, inside an expression or declaration, the comments that
// come before pos.
func (p *printer) inline(pos syntax.Pos) doc {
	var out concat
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(pos) {
		c := p.comments[p.next]
		p.next++
		switch {
		case c.trailing && !c.nlAfter:
			out = append(out, leadComment(c.tok.Text))
			continue
		case c.trailing:
			out = append(out, commentText(strings.TrimRight(c.tok.Text, " \t\r")))
		default:
			out = append(out, hardline, commentDoc(c.tok))
		}
		if c.nlAfter {
			out = append(out, hardline)
		} else {
			out = append(out, text(" "))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// tokenBeforeIs is the position of the token s (punctuation or keyword)
// written just before the node that starts at start, across the opening
// parentheses before the node, or the zero position when the token there
// is another one: the `,` before a list element, the `:` before a type,
// the `=` before a value, the `->` before a body.
func (p *printer) tokenBeforeIs(start syntax.Pos, s string) syntax.Pos {
	if i := p.tokenBefore(p.startOf(start)); i >= 0 && p.toks[i].Text == s && p.toks[i].Kind != syntax.TokString {
		return p.toks[i].Pos
	}
	return syntax.Pos{}
}

// punct prints s, the punctuation or keyword whose token is at pos (s
// alone when pos is zero), with the comments written before that token
// (docs/fmt.md "Comments"): a /* */ comment on the line of the code
// before it stays before it (`a /* c */: 1`); a line comment, which ends
// its line, moves after it (`a: // c`), and the line breaks there.
func (p *printer) punct(pos syntax.Pos, s string) doc {
	before, lines := p.commentsBefore(pos, true)
	if before == nil && lines == nil {
		return text(s)
	}
	if lines == nil {
		return concat{before, text(s)}
	}
	return concat{before, text(strings.TrimRight(s, " ")), lines, hardline}
}

// opValue prints ` op value` for the `=` (or compound operator, or a
// for loop's `in`) at opPos.
// Comments that end the operator's line stay after it, and the value
// starts the next line one level in (`let z = // why` then `x + y`):
// printed by the value, they left it unindented at the start of its line.
func (p *printer) opValue(opPos syntax.Pos, op string, value syntax.Expr) doc {
	lead := p.punct(opPos, " "+op+" ")
	start := p.startOf(syntax.ExprStart(value)) // a comment after its `(` is the value's
	var ending concat
	for opPos.IsValid() && p.next < len(p.comments) {
		c := p.comments[p.next]
		if !opPos.Before(c.tok.Pos) || !c.tok.Pos.Before(start) || c.tok.Pos.Line != opPos.Line || !c.trailing {
			break
		}
		if len(ending) > 0 {
			ending = append(ending, text(" "))
		}
		ending = append(ending, commentText(strings.TrimRight(c.tok.Text, " \t\r")))
		p.next++
		if c.nlAfter {
			return concat{lead, ending, breakParent{}, indent{hardline, p.expr(value)}}
		}
	}
	if len(ending) > 0 {
		ending = append(ending, text(" ")) // `/* c */` beside the value
	}
	return concat{lead, ending, p.expr(value)}
}

// commentsBefore takes the comments before pos that trail code on their
// line: the /* */ ones (before), which may stay there, and, when
// withLines, the line comments (lines), which must end a line and so
// follow the token at pos. The first comment on a line of its own stops
// it.
func (p *printer) commentsBefore(pos syntax.Pos, withLines bool) (before, lines concat) {
	if !pos.IsValid() {
		return nil, nil
	}
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(pos) {
		c := p.comments[p.next]
		if !c.trailing || !c.block && !withLines {
			break
		}
		p.next++
		t := commentText(strings.TrimRight(c.tok.Text, " \t\r"))
		if c.block {
			before = append(before, t)
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, hardline)
		}
		lines = append(lines, t)
	}
	return before, lines
}

// item is one element of a statement list: its start, the position just
// after its end, and how to print it.
type item struct {
	start, end syntax.Pos
	blockDecl  bool // a declaration with a body: blank lines around it
	print      func() doc
}

// setEnds ends each item after its last significant token before the
// next item's start (the last item's, before boundary), so the comments
// between two items go to the later one.
func (p *printer) setEnds(items []item, boundary syntax.Pos) {
	for i := range items {
		next := boundary
		if i+1 < len(items) {
			next = items[i+1].start
		}
		items[i].end = p.endBefore(next)
	}
}

// braced prints a declaration body of items between the braces at open
// and end: one item a line, or {} when it holds neither items nor
// comments.
func (p *printer) braced(items []item, open, end syntax.Pos) concat {
	p.setEnds(items, end)
	if len(items) == 0 && !p.hasComments(open, end) {
		return concat{text("{}")}
	}
	return concat{text("{"), p.afterOpen(open, firstStart(items, end)), indent{hardline, p.list(items, end)}, hardline, text("}")}
}

// list prints statements (or members) one per line. boundary is where the
// list ends (its closing brace, or the end of the file).
func (p *printer) list(items []item, boundary syntax.Pos) doc {
	var out concat
	p.lastLine = 0
	for i, it := range items {
		// Comments before the item that trail the previous one were taken
		// by it; the rest stand on their own lines.
		needBlank := i > 0 && (it.blockDecl || items[i-1].blockDecl)
		first := true
		sameLine := false // code follows the last comment on its line (`/* c */ f()`): it stays there
		for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(it.start) {
			c := p.comments[p.next]
			p.next++
			switch {
			case sameLine:
			case (first && needBlank) || (p.lastLine > 0 && c.tok.Pos.Line-p.lastLine > 1):
				out = append(out, blankline{})
			case len(out) > 0:
				out = append(out, hardline)
			}
			first = false
			out = append(out, commentDoc(c.tok))
			p.lastLine = c.tok.End().Line
			if sameLine = !c.nlAfter; sameLine {
				out = append(out, text(" "))
			}
		}
		switch {
		case sameLine:
		case first && needBlank:
			out = append(out, blankline{})
		case p.lastLine > 0 && it.start.Line-p.lastLine > 1:
			out = append(out, blankline{})
		case len(out) > 0:
			out = append(out, hardline)
		}
		out = append(out, it.print())
		p.lastLine = it.end.Line
		// Comments on the line the item ends on trail it.
		next := boundary
		if i+1 < len(items) {
			next = items[i+1].start
			if p.endsInPropagate(next) {
				// `let v = f()?; c ? a : b`: on separate lines, the
				// `?` would start a ternary
				out = append(out, text(";"))
			}
		}
		for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(next) {
			c := p.comments[p.next]
			if !c.trailing || c.tok.Pos.Line != p.lastLine {
				break
			}
			p.next++
			out = append(out, commentText(strings.TrimRight(c.tok.Text, " \t\r")))
			if c.nlAfter {
				out = append(out, breakParent{})
			}
			p.lastLine = c.tok.End().Line
		}
	}
	// Comments left before the boundary close the list.
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(boundary) {
		c := p.comments[p.next]
		p.next++
		switch {
		case c.trailing && c.tok.Pos.Line == p.lastLine:
			out = append(out, commentText(strings.TrimRight(c.tok.Text, " \t\r")), breakParent{})
		default:
			if p.lastLine > 0 && c.tok.Pos.Line-p.lastLine > 1 {
				out = append(out, blankline{})
			} else if len(out) > 0 {
				out = append(out, hardline)
			}
			out = append(out, commentDoc(c.tok))
		}
		p.lastLine = c.tok.End().Line
	}
	return out
}

// endsInPropagate reports whether the item before the one starting at
// next ends with a propagating `?` and was separated from it by `;`: the
// `;` must stay, since after a line break a statement holding `c ? a : b`
// would continue the `?` as a ternary.
func (p *printer) endsInPropagate(next syntax.Pos) bool {
	i := p.tokenAt(next)
	if i < 0 {
		return false
	}
	semi := false
	for i--; i >= 0; i-- {
		t := p.toks[i]
		if t.Kind == syntax.TokPunct && t.Text == ";" {
			semi = true
		}
		if significant(t) {
			return semi && t.Kind == syntax.TokPunct && t.Text == "?"
		}
	}
	return false
}

// hasComments reports whether a comment lies between two positions.
func (p *printer) hasComments(from, to syntax.Pos) bool {
	for i := p.next; i < len(p.comments); i++ {
		c := p.comments[i].tok.Pos
		if !c.Before(to) {
			return false
		}
		if !c.Before(from) {
			return true
		}
	}
	return false
}

// file prints a whole file.
func (p *printer) file(f *syntax.File) doc {
	eof := p.toks[len(p.toks)-1].Pos
	items := p.stmtItems(f.Items, eof, true)
	return p.list(items, syntax.Pos{Line: eof.Line + 1})
}

// stmtItems makes list items of statements; boundary is the list's end.
func (p *printer) stmtItems(stmts []syntax.Stmt, boundary syntax.Pos, top bool) []item {
	items := make([]item, len(stmts))
	for i, s := range stmts {
		s := s
		items[i] = item{start: p.stmtStart(s), blockDecl: top && isBlockDecl(s), print: func() doc { return p.stmt(s) }}
	}
	p.setEnds(items, boundary)
	return items
}

func isBlockDecl(s syntax.Stmt) bool {
	switch s.(type) {
	case *syntax.FnDecl, *syntax.PipelineDecl, *syntax.ToolDecl, *syntax.StructDecl, *syntax.EnumDecl,
		*syntax.InterfaceDecl, *syntax.ImplBlock, *syntax.SkillDecl, *syntax.EvalPackDecl:
		return true
	}
	return false
}

// stmtStart is where a statement's first token is: before its attributes,
// at the leftmost operand of an expression, before opening parentheses.
func (p *printer) stmtStart(s syntax.Stmt) syntax.Pos {
	var pos syntax.Pos
	switch s := s.(type) {
	case *syntax.ExprStmt:
		pos = syntax.ExprStart(s.X)
	case *syntax.AssignStmt:
		pos = syntax.ExprStart(s.Target)
	default:
		pos = s.Position()
	}
	if attrs := syntax.AttrsOf(s); len(attrs) > 0 && attrs[0].At.Before(pos) {
		pos = attrs[0].At
	}
	return p.startOf(pos)
}

// block prints `{ statements }`. Statements go one per line; a block that
// was written on one line with at most one simple statement and no
// comments stays on one line when it fits.
func (p *printer) block(b *syntax.Block) doc {
	return p.blockWith(b, nil, b.Stmts)
}

// body prints a block one statement per line, whatever its source layout
// (the bodies of declarations, loops and statement-level if and try).
func (p *printer) body(b *syntax.Block) doc {
	if c := p.beforeOpen(b.At); c != nil {
		return concat{c, p.body(b)}
	}
	ending := p.endingBeforeOpen(b.At)
	if ending == nil && len(b.Stmts) == 0 && !p.hasComments(b.At, b.End) {
		return text("{}")
	}
	items := p.stmtItems(b.Stmts, b.End, false)
	return concat{text("{"), ending, p.afterOpen(b.At, firstStart(items, b.End)), indent{hardline, p.list(items, b.End)}, hardline, text("}")}
}

// beforeOpen emits the /* */ comments written before the `{` at open
// with code after them on their line (`if a /* c */ {`): they stay before
// the brace (docs/fmt.md "Comments").
func (p *printer) beforeOpen(open syntax.Pos) doc {
	var out concat
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(open) && !p.comments[p.next].nlAfter {
		c := p.comments[p.next]
		p.next++
		out = append(out, commentText(c.tok.Text), text(" "))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// endingBeforeOpen takes the line comments that end the line before
// the `{` at open, written on the next line (`for x in xs // c` then
// `{`): they move after the brace (`for x in xs { // c`), as a line comment before
// a token does; left to the block, they became its first line, with a
// blank line after them (docs/fmt.md "Comments").
func (p *printer) endingBeforeOpen(open syntax.Pos) doc {
	var out concat
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(open) && p.comments[p.next].trailing {
		c := p.comments[p.next]
		if c.block {
			break // after the brace, a /* */ comment would not end its line the next time
		}
		p.next++
		if len(out) > 0 {
			out = append(out, hardline)
		}
		out = append(out, commentText(strings.TrimRight(c.tok.Text, " \t\r")), breakParent{})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// firstStart is where the first item starts, or end when there is none.
func firstStart(items []item, end syntax.Pos) syntax.Pos {
	if len(items) > 0 {
		return items[0].start
	}
	return end
}

// costRouteBody prints the block of a `cost_route`: its options one per
// line, then its statements.
func (p *printer) costRouteBody(s *syntax.CostRouteStmt) doc {
	b := s.Body
	if len(s.Options) == 0 {
		return p.body(b)
	}
	items := make([]item, 0, len(s.Options)+len(b.Stmts))
	for _, o := range s.Options {
		items = append(items, item{start: o.At, print: func() doc { return p.entry(o) }})
	}
	for _, st := range b.Stmts {
		items = append(items, item{start: p.stmtStart(st), print: func() doc { return p.stmt(st) }})
	}
	p.setEnds(items, b.End)
	return concat{text("{"), p.afterOpen(b.At, firstStart(items, b.End)), indent{hardline, p.list(items, b.End)}, hardline, text("}")}
}

// blockWith prints a block whose first line carries head after the brace
// (a closure's parameters) and whose statements are stmts.
func (p *printer) blockWith(b *syntax.Block, head doc, stmts []syntax.Stmt) doc {
	// A /* */ comment written before the `{` on its line (`-> /* c */
	// { 1 }`) stays before it: inside, it would keep the block from staying on one line the
	// next time (formatting would not be idempotent).
	if c := p.beforeOpen(b.At); c != nil {
		return concat{c, p.blockWith(b, head, stmts)}
	}
	open := concat{text("{")}
	if head != nil {
		open = append(open, text(" "), head)
	}
	if ending := p.endingBeforeOpen(b.At); ending != nil {
		items := p.stmtItems(stmts, b.End, false)
		open = append(open, ending, p.afterOpen(b.At, firstStart(items, b.End)))
		return concat{open, indent{hardline, p.list(items, b.End)}, hardline, text("}")}
	}
	if len(stmts) == 0 && !p.hasComments(b.At, b.End) {
		if head != nil {
			return concat{open, text(" }")}
		}
		return text("{}")
	}
	if p.oneLine(b, stmts) {
		// a /* */ comment beside the statement (`{ x -> /* c */ x + 1 }`)
		// stays beside it, on the one line
		before := p.inline(p.stmtStart(stmts[0]))
		st := p.stmt(stmts[0])
		return grp(open, indent{sp, before, st, p.inline(b.End)}, sp, text("}"))
	}
	items := p.stmtItems(stmts, b.End, false)
	open = append(open, p.afterOpen(b.At, firstStart(items, b.End)))
	body := p.list(items, b.End)
	return concat{open, indent{hardline, body}, hardline, text("}")}
}

// oneLine reports whether a block may be printed on one line: it was
// written on one line, so the comments in it are /* */ comments beside
// code, which stay there.
func (p *printer) oneLine(b *syntax.Block, stmts []syntax.Stmt) bool {
	if len(stmts) != 1 || b.At.Line != b.End.Line {
		return false
	}
	switch s := stmts[0].(type) {
	case *syntax.ExprStmt:
		switch s.X.(type) {
		case *syntax.IfExpr, *syntax.MatchExpr, *syntax.TryExpr, *syntax.RetryExpr, *syntax.ParallelExpr,
			*syntax.DeadlineExpr, *syntax.SelectExpr, *syntax.SpawnExpr, *syntax.MutexExpr:
			return false
		}
		return true
	case *syntax.ReturnStmt, *syntax.ThrowStmt, *syntax.BreakStmt, *syntax.ContinueStmt, *syntax.AssignStmt,
		*syntax.YieldStmt, *syntax.EmitStmt, *syntax.LetStmt:
		return true
	}
	return false
}

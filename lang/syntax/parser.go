package syntax

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/harnlang/harn/lang/diag"
)

// Parse parses one source file. The error, if any, is the first lexer or
// parse error as a *diag.Error.
func Parse(path string, src []byte) (*File, error) {
	f := &File{Path: path}
	sc := newScanner(path, string(src), 1, 1, true)
	err := run(sc, func(lex *lexer.PeekingLexer) {
		f.Doc = fileDoc(lex)
		// A file is a statement list up to the end of the file, parsed by
		// hand: a participle production around it would only call stmts,
		// and building one is part of every harn start.
		f.Items = cursorFor(lex).stmts(true)
	})
	if err != nil {
		err.File = path
		hint(err, path, src)
		return nil, err
	}
	f.Comments = sc.commentAt
	return f, nil
}

// ParseExpr parses src as a single expression.
func ParseExpr(src string) (Expr, error) {
	var x Expr
	err := run(newScanner("", src, 1, 1, false), func(lex *lexer.PeekingLexer) {
		c := cursorFor(lex)
		x = c.expr()
		if t := c.peek(); t.Type != tEOF {
			fail(t, "end of expression")
		}
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}

// run scans all tokens, then calls parse with the parse state registered
// for the token stream, turning a bailout (or any other panic) into an
// error.
func run(sc *scanner, parse func(*lexer.PeekingLexer)) (err *diag.Error) {
	toks, lerr := sc.all()
	if lerr != nil {
		return lerr
	}
	lex := peekingLexer(toks)
	defer register(lex, &parseState{})()
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r)
		}
	}()
	parse(lex)
	return nil
}

func recovered(r any) *diag.Error {
	if b, ok := r.(bailout); ok {
		return b.err
	}
	msg := fmt.Sprintf("internal parser error: %v", r)
	return &diag.Error{Msg: msg, Golden: msg, Phase: diag.PhaseParse}
}

// peekingLexer puts tokens into participle's PeekingLexer. lexer.Upgrade
// would copy them in one append at a time, and with 64-byte tokens that
// growth was a fifth of the parse time, so the scanned slice is installed
// directly, at the field offset found once by reflection (reflecting on
// every parse cost a run of an empty file about 1 % of its start-up).
// Should participle's layout ever change, Upgrade is used.
func peekingLexer(toks []lexer.Token) *lexer.PeekingLexer {
	off, ok := peekingTokensField()
	if !ok {
		pl, _ := lexer.Upgrade(&tokenList{toks: toks}, tNewline, tDoc)
		return pl
	}
	pl, _ := lexer.Upgrade(&tokenList{toks: toks[len(toks)-1:]}, tNewline, tDoc)
	*(*[]lexer.Token)(unsafe.Add(unsafe.Pointer(pl), off)) = toks
	pl.FastForward(-1) // move past leading elided tokens
	return pl
}

// peekingTokensField is the offset of PeekingLexer's token slice, and
// whether it has the type peekingLexer writes.
var peekingTokensField = sync.OnceValues(func() (uintptr, bool) {
	f, ok := reflect.TypeOf(lexer.PeekingLexer{}).FieldByName("tokens")
	if !ok || f.Type != reflect.TypeOf([]lexer.Token(nil)) {
		return 0, false
	}
	return f.Offset, true
})

// tokenList replays scanned tokens as a lexer.Lexer.
type tokenList struct{ toks []lexer.Token }

func (l *tokenList) Next() (lexer.Token, error) {
	t := l.toks[0]
	if len(l.toks) > 1 {
		l.toks = l.toks[1:]
	}
	return t, nil
}

// ---- per-parse state ----

// maxDepth bounds the nesting of expressions, blocks and types so that no
// input can exhaust the stack.
const maxDepth = 1000

// maxNesting is upstream's limit on nested blocks and on the expressions
// that call nestIn (ternary, prefix operators, `**`, parentheses, indexes)
// (docs/spec/newer.md §4.4).
const maxNesting = 64

// parseState is what the parser needs beyond the token stream.
type parseState struct {
	depth int
	nest  int // nesting levels counted against maxNesting
	// ternary holds ternaryAhead's answer for a `?` (by offset) that an
	// earlier scan passed at its own bracket depth, so a run of `?`s in
	// one expression or list is scanned once, not once per `?`.
	ternary map[int]bool
}

// Participle instantiates Parseable hooks itself and hands them only the
// token stream, so the state of a parse in progress is found through the
// stream: every parse registers its token array here for its duration.
var live sync.Map // *lexer.Token (first token of a stream) → *parseState

func register(lex *lexer.PeekingLexer, st *parseState) (unregister func()) {
	key := &lex.Range(0, 1)[0]
	live.Store(key, st)
	return func() { live.Delete(key) }
}

func stateOf(lex *lexer.PeekingLexer) *parseState {
	if v, ok := live.Load(&lex.Range(0, 1)[0]); ok {
		return v.(*parseState)
	}
	return &parseState{}
}

// ---- errors ----

// bailout carries the first error out of the parse; run recovers it.
type bailout struct{ err *diag.Error }

// expectedError is upstream's "Expected <what>, got <token> at L:C".
func expectedError(t *lexer.Token, what, got string) *diag.Error {
	e := &diag.Error{Line: t.Pos.Line, Col: t.Pos.Column, Phase: diag.PhaseParse}
	if t.Type == tEOF {
		e.Golden = "Unexpected end of file, expected " + what
		e.Msg = "unexpected end of file, expected " + what
		return e
	}
	e.Golden = fmt.Sprintf("Expected %s, got %s at %d:%d", what, got, t.Pos.Line, t.Pos.Column)
	e.Msg = fmt.Sprintf("expected %s, found %s", what, spell(t, got))
	return e
}

// fail reports that t is not the expected thing.
func fail(t *lexer.Token, what string) {
	panic(bailout{expectedError(t, what, render(t))})
}

// failName is fail for a place where a name was expected.
func failName(t *lexer.Token, what string) {
	panic(bailout{expectedError(t, what, renderName(t))})
}

// failExpectedAt is upstream's "Expected <what>, got <got> at L:C" for
// a got that is no single token.
func failExpectedAt(p Pos, what, got string) {
	panic(bailout{&diag.Error{Line: p.Line, Col: p.Col, Phase: diag.PhaseParse,
		Golden: fmt.Sprintf("Expected %s, got %s at %d:%d", what, got, p.Line, p.Col),
		Msg:    fmt.Sprintf("expected %s, found %s", what, got)}})
}

// failAt reports a message of its own at p.
func failAt(p Pos, msg string) {
	panic(bailout{&diag.Error{Line: p.Line, Col: p.Col, Msg: msg,
		Golden: fmt.Sprintf("%s at %d:%d", msg, p.Line, p.Col), Phase: diag.PhaseParse}})
}

// fromParticiple converts an error participle produced itself (a grammar
// literal that did not match); what names the expectation when participle
// cannot.
func fromParticiple(err error, what string) *diag.Error {
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		t := ute.Unexpected
		if w := participleExpect(ute.Message()); w != "" {
			what = w
		}
		return expectedError(&t, what, render(&t))
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		p := pe.Position()
		return &diag.Error{Line: p.Line, Col: p.Column, Msg: pe.Message(),
			Golden: fmt.Sprintf("%s at %d:%d", pe.Message(), p.Line, p.Column), Phase: diag.PhaseParse}
	}
	return &diag.Error{Msg: err.Error(), Golden: err.Error(), Phase: diag.PhaseParse}
}

// participleExpect extracts the first expected symbol from participle's
// `unexpected token "x" (expected "(" …)`.
func participleExpect(msg string) string {
	i := strings.LastIndex(msg, "(expected ")
	if i < 0 {
		return ""
	}
	rest := strings.TrimSuffix(msg[i+len("(expected "):], ")")
	if f := strings.Fields(rest); len(f) > 0 {
		rest = f[0]
	}
	switch {
	case strings.HasPrefix(rest, `"`):
		return strings.Trim(rest, `"`)
	case rest == "<ident>":
		return "identifier"
	}
	return ""
}

func at(p lexer.Position) Pos { return Pos{Line: p.Line, Col: p.Column} }

// ---- the cursor ----

// cursor is the hand-written side of the parser: a view of participle's
// token stream plus the parse state.
type cursor struct {
	lex *lexer.PeekingLexer
	st  *parseState
}

func cursorFor(lex *lexer.PeekingLexer) cursor {
	return cursor{lex: lex, st: stateOf(lex)}
}

func (c cursor) peek() *lexer.Token { return c.lex.Peek() }
func (c cursor) next() *lexer.Token { return c.lex.Next() }

// peekAt looks k significant tokens ahead (0 is peek).
func (c cursor) peekAt(k int) *lexer.Token {
	cp := c.lex.MakeCheckpoint()
	for range k {
		c.lex.Next()
	}
	t := c.lex.Peek()
	c.lex.LoadCheckpoint(cp)
	return t
}

func isNewline(t lexer.Token) bool { return t.Type == tNewline }

// nl reports whether a line break separates the previous token from the
// next significant one.
func (c cursor) nl() bool {
	t, _ := c.lex.PeekAny(isNewline)
	return t.Type == tNewline
}

// newlineToken is the line break before the next token, for errors.
func (c cursor) newlineToken() *lexer.Token {
	t, _ := c.lex.PeekAny(isNewline)
	return &t
}

// sameLine fails unless the next token is on the current line (the operand
// after `to`, a ternary's `?` or `:`).
func (c cursor) sameLine(what string) {
	if c.nl() {
		fail(c.newlineToken(), what)
	}
}

// expect consumes the punctuation or keyword v or fails.
func (c cursor) expect(v string) *lexer.Token {
	t := c.peek()
	if t.Value != v || (t.Type != tPunct && t.Type != tKeyword && t.Type != tIdent) {
		fail(t, v)
	}
	return c.next()
}

func (c cursor) accept(v string) bool {
	if t := c.peek(); t.Value == v && (t.Type == tPunct || t.Type == tKeyword) {
		c.next()
		return true
	}
	return false
}

func (c cursor) enter() {
	c.st.depth++
	if c.st.depth > maxDepth {
		t := c.peek()
		failAt(at(t.Pos), "Nesting too deep")
	}
}

func (c cursor) leave() { c.st.depth-- }

// nestIn enters one level of a construct that counts against the nesting
// limit; context names it in the error. nestOut leaves it.
func (c cursor) nestIn(context string) {
	c.st.nest++
	if c.st.nest > maxNesting {
		t := c.peek()
		failExpectedAt(at(t.Pos), fmt.Sprintf("parser nesting depth within %d levels", maxNesting), context+" nesting depth exceeded")
	}
}

func (c cursor) nestOut() { c.st.nest-- }

// endLine is the line on which token t ends (a string or comment may
// span lines).
func endLine(t *lexer.Token) int {
	return t.Pos.Line + strings.Count(t.Value, "\n")
}

// atSpread reports whether `...` (three adjacent `.` tokens) comes next.
func (c cursor) atSpread() bool {
	t := c.peek()
	if !isPunct(t, ".") {
		return false
	}
	t1, t2 := c.peekAt(1), c.peekAt(2)
	return isPunct(t1, ".") && isPunct(t2, ".") &&
		t1.Pos.Offset == t.Pos.Offset+1 && t2.Pos.Offset == t.Pos.Offset+2
}

func (c cursor) skipSpread() {
	c.next()
	c.next()
	c.next()
}

// ---- statement lists ----

// stmts parses a statement list up to (not including) the closing `}`, or
// to the end of the file at top level. Statements are separated by `;` or
// by starting on a later line than the previous one ended.
func (c cursor) stmts(top bool) []Stmt {
	if top {
		return c.items(true, "top-level item")
	}
	return c.items(false, "statement")
}

// items is stmts naming its items in the separator error: a tool body's
// statements are `tool body item`s (docs/spec/newer.md §4.3).
func (c cursor) items(top bool, item string) []Stmt {
	c.enter()
	defer c.leave()
	if !top {
		c.nestIn("source")
		defer c.nestOut()
	}
	var out []Stmt
	for {
		t := c.peek()
		if t.Type == tEOF || (!top && isPunct(t, "}")) {
			return out
		}
		out = append(out, c.statement(top))
		c.itemSeparator(item, top)
	}
}

// itemSeparator checks what follows one item of a list of items, naming
// the item in the error (docs/spec/newer.md §4.3: `statement`, `tool body item`,
// `skill field`); a top-level list ends at end of file, others at `}`.
func (c cursor) itemSeparator(item string, top bool) {
	t := c.peek()
	switch {
	case isPunct(t, ";"):
		c.next()
		if t := c.peek(); isPunct(t, ";") {
			fail(t, "expression")
		}
	case t.Type == tEOF || (!top && isPunct(t, "}")):
	case c.nl():
		// a line break the lexer saw: not one inside a block comment or
		// joined by a trailing `\` (docs/spec/language.md §1.1, §1.2)
	default:
		fail(t, item+" separator (`;` or newline)")
	}
}

// block parses `{ statements }`.
func (c cursor) block() *Block {
	open := c.expect("{")
	b := &Block{At: at(open.Pos)}
	b.Stmts = c.stmts(false)
	b.End = at(c.expect("}").Pos)
	return b
}

// docBefore returns the doc comment that immediately precedes the next
// token (only line breaks between, no blank line).
func (c cursor) docBefore() string {
	_, nextRaw := c.lex.PeekAny(func(lexer.Token) bool { return false })
	between := c.lex.Range(c.lex.RawCursor(), nextRaw)
	for i := len(between) - 1; i >= 0; i-- {
		if d := between[i]; d.Type == tDoc {
			if c.peek().Pos.Line-endLine(&d) <= 1 {
				return docText(d.Value)
			}
			return ""
		}
	}
	return ""
}

// fileDoc finds the module doc comment: the first doc comment before the
// first item, unless it is the one attached to that item. An import takes
// no doc comment, so one directly above a first import is the module's.
func fileDoc(lex *lexer.PeekingLexer) string {
	c := cursorFor(lex)
	_, firstRaw := lex.PeekAny(func(lexer.Token) bool { return false })
	var docs []lexer.Token
	for _, t := range lex.Range(0, firstRaw) {
		if t.Type == tDoc {
			docs = append(docs, t)
		}
	}
	if len(docs) == 0 {
		return ""
	}
	if len(docs) == 1 && c.peek().Type != tEOF && !c.importAhead() && c.docBefore() != "" {
		return ""
	}
	return docText(docs[0].Value)
}

// importAhead reports whether the next item is an import (`import` or
// `pub import`).
func (c cursor) importAhead() bool {
	t := c.peek()
	if t.Type == tKeyword && t.Value == "pub" {
		t = c.peekAt(1)
	}
	return t.Type == tKeyword && t.Value == "import"
}

// statement parses one statement or declaration, choosing the production
// by its first token.
func (c cursor) statement(top bool) Stmt {
	t := c.peek()
	p := prods()
	switch t.Type {
	case tKeyword:
		switch t.Value {
		case "let", "var", "const":
			return parse(p.let.get(), c.lex).ast()
		case "pub", "import":
			if top || t.Value == "pub" {
				return c.declaration(top)
			}
		case "pipeline":
			if top {
				return c.declaration(top)
			}
		case "fn":
			if !isPunct(c.peekAt(1), "(") {
				return c.declaration(top)
			}
		case "tool", "struct", "enum", "type", "interface", "impl", "skill", "eval_pack":
			return c.declaration(top)
		case "for":
			return parse(p.forStmt.get(), c.lex).ast()
		case "while":
			return parse(p.while.get(), c.lex).ast()
		case "defer", "mutex":
			if n := c.peekAt(1); t.Value == "defer" && isPunct(n, "(") {
				fail(n, "{") // `defer` takes no key, unlike `mutex(key)`
			}
			return parse(p.deferStmt.get(), c.lex).ast()
		case "return", "yield":
			return parse(p.ret.get(), c.lex).ast()
		case "throw", "emit":
			return parse(p.throw.get(), c.lex).ast()
		case "guard":
			return parse(p.guard.get(), c.lex).ast()
		case "require":
			return parse(p.require.get(), c.lex).ast()
		case "break", "continue":
			return parse(p.jump.get(), c.lex).ast()
		case "override":
			return parse(p.override.get(), c.lex).ast()
		case "try":
			if isPunct(c.peekAt(1), "*") {
				break
			}
			fallthrough
		case "select":
			if isPunct(c.peekAt(1), "(") {
				break
			}
			return &ExprStmt{X: c.keywordExpr()}
		case "if", "match", "retry", "parallel", "deadline":
			return &ExprStmt{X: c.keywordExpr()}
		}
	case tIdent:
		if t.Value == "gen" && isKw(c.peekAt(1), "fn") {
			return c.declaration(top)
		}
		// A contextual word: a block starter only here and before `{`.
		if t.Value == "scope" && isPunct(c.peekAt(1), "{") {
			c.next()
			return &ScopeStmt{At: at(t.Pos), Body: c.block()}
		}
		if t.Value == "cost_route" && isPunct(c.peekAt(1), "{") {
			c.next()
			return c.costRoute(at(t.Pos))
		}
	case tPunct:
		if t.Value == "@" {
			return c.declaration(top)
		}
	}
	return c.exprStmt(top)
}

// costRoute parses `{ key: value … body }` after `cost_route`: entries
// `name: value` (a name followed by `:` cannot start a statement), each
// ended by a comma or a separator, then the body's statements.
func (c cursor) costRoute(pos Pos) Stmt {
	open := c.expect("{")
	s := &CostRouteStmt{At: pos}
	for isName(c.peek()) && isPunct(c.peekAt(1), ":") {
		k := c.next()
		c.next()
		s.Options = append(s.Options, &DictEntry{At: at(k.Pos), KeyName: k.Value, Value: c.expr()})
		if !c.accept(",") {
			c.itemSeparator("cost_route option", false)
		}
	}
	s.Body = &Block{At: at(open.Pos), Stmts: c.stmts(false)}
	s.Body.End = at(c.expect("}").Pos)
	return s
}

// exprStmt parses an expression statement or an assignment. It is written
// by hand rather than as a production because it is by far the most
// frequent statement and is little more than an expression.
func (c cursor) exprStmt(top bool) Stmt {
	// The tree keeps no parentheses, so a target whose root sits in them
	// (`(x) = 2`, `(d).a = 5`) is recognised by the statement's first
	// token: an assignable chain starting with `(` has a parenthesised
	// root, which is not the identifier docs/spec/language.md §2.3 asks for.
	paren := isPunct(c.peek(), "(")
	x := c.expr()
	t := c.peek()
	if t.Type != tPunct || c.nl() || paren || !assignable(x) {
		// Upstream takes the assignment branch only for a valid target, so
		// for any other left side the operator breaks the statement.
		return &ExprStmt{X: x}
	}
	switch t.Value {
	case "=", "+=", "-=", "*=", "/=", "%=":
		c.next()
		return &AssignStmt{At: x.Position(), Target: x, Op: t.Value, Value: c.expr()}
	}
	return &ExprStmt{X: x}
}

// declaration parses an item that may carry attributes, `pub` and a doc
// comment.
func (c cursor) declaration(top bool) Stmt {
	doc := c.docBefore()
	if by := prods().declBy[c.peek().Value]; by != nil {
		return finishDecl(by(c.lex), nil, nil, top, doc)
	}
	// `pub` plus a keyword needs no trial of every declaration either.
	if t := c.peek(); t.Type == tKeyword && t.Value == "pub" {
		if by := prods().declBy[c.peekAt(1).Value]; by != nil && c.peekAt(1).Type == tKeyword {
			pub := &opt[sPub]{Pos: c.next().Pos}
			return finishDecl(by(c.lex), nil, pub, top, doc)
		}
	}
	if isPunct(c.peek(), "@") {
		if d := c.declAfterAttrs(); doc == "" {
			doc = d
		}
	}
	g, err := prods().decl.get().ParseFromLexer(c.lex, allowTrailing)
	if err != nil {
		// What follows attributes or pub is one of many productions;
		// participle can only name the first.
		var ute *participle.UnexpectedTokenError
		if errors.As(err, &ute) && ute.Unexpected.Pos == c.peek().Pos {
			fail(c.peek(), "declaration")
		}
		panic(bailout{fromParticiple(err, "declaration")})
	}
	return g.ast(top, doc)
}

// parse runs a participle production at the cursor.
func parse[G any](p *participle.Parser[G], lex *lexer.PeekingLexer) *G {
	g, err := p.ParseFromLexer(lex, allowTrailing)
	if err != nil {
		panic(bailout{fromParticiple(err, "declaration")})
	}
	return g
}

var allowTrailing = participle.AllowTrailing(true)

// declKeywords are the words that may follow attributes.
var declKeywords = map[string]bool{
	"pub": true, "fn": true, "gen": true, "tool": true, "skill": true, "pipeline": true, "struct": true,
	"enum": true, "type": true, "interface": true, "impl": true, "eval_pack": true,
}

// declAfterAttrs looks past the attributes at the cursor and fails unless
// a declaration follows them (docs/spec/newer.md §4.5). It returns the
// doc comment written between the attributes and the declaration, if any
// (`@test` then `/// Doc.` then `fn`: docs/fmt.md keeps it there).
func (c cursor) declAfterAttrs() (doc string) {
	cp := c.lex.MakeCheckpoint()
	defer c.lex.LoadCheckpoint(cp)
	for isPunct(c.lex.Peek(), "@") {
		c.lex.Next()
		if n := c.lex.Peek(); n.Type != tIdent && n.Value != "retry" {
			return // no attribute name: the attribute's own error comes first
		}
		c.lex.Next() // the name
		if !isPunct(c.lex.Peek(), "(") {
			continue
		}
		for depth := 0; ; {
			t := c.lex.Next()
			if t.Type == tEOF {
				return // the attribute's own error comes first
			}
			if isPunct(t, "(") {
				depth++
			} else if isPunct(t, ")") {
				if depth--; depth == 0 {
					break
				}
			}
		}
	}
	doc = c.docBefore()
	t := c.lex.Peek()
	if t.Type == tKeyword && t.Value == "pub" {
		c.lex.Next()
		if n := c.lex.Peek(); n.Type != tEOF && n.Value != "pub" && declKeywords[n.Value] {
			return
		}
	}
	if t.Type != tEOF && !declKeywords[t.Value] || t.Value == "pub" {
		failExpectedAt(at(t.Pos), "fn/tool/skill/pipeline/struct/enum/type/interface/impl declaration after `@attr`", "non-declaration statement")
	}
	return doc
}

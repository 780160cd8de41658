package syntax

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// This file holds the participle.Parseable leaves of the grammar. A hook
// either declines without consuming anything (participle.NextMatch), so
// that an optional part of a production is simply absent, or it commits and
// then reports any error itself, with upstream's wording, by bailing out of
// the whole parse.

// spelling names a token a production requires; it is also what the error
// says was expected.
type spelling interface{ spell() string }

type (
	sRParen  struct{}
	sLBrace  struct{}
	sRBrace  struct{}
	sColon   struct{}
	sArrow   struct{}
	sFrom    struct{}
	sMaxConc struct{}
	sPub     struct{}
)

func (sRParen) spell() string  { return ")" }
func (sLBrace) spell() string  { return "{" }
func (sRBrace) spell() string  { return "}" }
func (sColon) spell() string   { return ":" }
func (sArrow) spell() string   { return "->" }
func (sFrom) spell() string    { return "from" }
func (sMaxConc) spell() string { return "max_concurrent" }
func (sPub) spell() string     { return "pub" }

// tok is a required token.
type tok[S spelling] struct{ Pos lexer.Position }

func (h *tok[S]) Parse(lex *lexer.PeekingLexer) error {
	var s S
	t := lex.Peek()
	if !spelled(t, s.spell()) {
		fail(t, s.spell())
	}
	h.Pos = lex.Next().Pos
	return nil
}

// spelled reports whether t is the token text spells, not a string
// literal holding that text.
func spelled(t *lexer.Token, text string) bool {
	return t.Value == text && t.Type != tString && t.Type != tRaw && t.Type != tInterp
}

// opt is an optional token; its position is kept.
type opt[S spelling] struct{ Pos lexer.Position }

func (h *opt[S]) Parse(lex *lexer.PeekingLexer) error {
	var s S
	t := lex.Peek()
	if !spelled(t, s.spell()) {
		return participle.NextMatch
	}
	h.Pos = lex.Next().Pos
	return nil
}

// pubFn is the `pub` of an impl method: a method is all that may follow
// it, so anything else is reported there (`Expected fn, got let`).
type pubFn struct{ Pos lexer.Position }

func (h *pubFn) Parse(lex *lexer.PeekingLexer) error {
	c := cursor{lex: lex}
	if !isKw(c.peek(), "pub") {
		return participle.NextMatch
	}
	h.Pos = c.next().Pos
	if t := c.peek(); !isKw(t, "fn") && !(is(t, tIdent, "gen") && isKw(c.peekAt(1), "fn")) {
		fail(t, "fn")
	}
	return nil
}

func (h *opt[S]) token() *lexer.Token {
	var s S
	return &lexer.Token{Type: tPunct, Value: s.spell(), Pos: h.Pos}
}

// role names what a required identifier is, for errors.
type role interface{ what() string }

type (
	rFn      struct{}
	rType    struct{}
	rVar     struct{}
	rBound   struct{}
	rImport  struct{}
	rVariant struct{}
	rNS      struct{}
	rSkill   struct{}
)

func (rFn) what() string      { return "function name" }
func (rType) what() string    { return "type name" }
func (rVar) what() string     { return "variable name" }
func (rBound) what() string   { return "interface name" }
func (rImport) what() string  { return "import name" }
func (rVariant) what() string { return "variant name" }
func (rNS) what() string      { return "namespace name" }
func (rSkill) what() string   { return "skill name" }

// name is a required identifier.
type name[R role] struct {
	Pos  lexer.Position
	Name string
}

func (h *name[R]) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	if t.Type != tIdent {
		var r R
		failName(t, r.what())
	}
	h.Pos, h.Name = t.Pos, t.Value
	lex.Next()
	return nil
}

// ident is an optional identifier.
type ident struct {
	Pos  lexer.Position
	Name string
}

func (h *ident) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	if t.Type != tIdent {
		return participle.NextMatch
	}
	h.Pos, h.Name = t.Pos, t.Value
	lex.Next()
	return nil
}

func (h *ident) ast() *Ident { return &Ident{At: at(h.Pos), Name: h.Name} }

// listName is the name that starts an item of a braced list (imported
// names, enum variants, select cases): it declines only where the list
// may end (`}`, or the end of the file, which
// the `}` then reports), so anything else there is a bad name rather than
// a missing `}`.
type listName[R role] struct{ ident }

func (h *listName[R]) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	if closesList(t) {
		return participle.NextMatch
	}
	if t.Type != tIdent {
		var r R
		failName(t, r.what())
	}
	return h.ident.Parse(lex)
}

// closesList reports a token where a braced list may end: its `}`, or
// the end of the file, which the missing `}` then reports.
func closesList(t *lexer.Token) bool { return isPunct(t, "}") || t.Type == tEOF }

// fieldName is a struct field name: an identifier or a keyword. Like
// listName it declines only where the field list may end.
type fieldName struct {
	Pos  lexer.Position
	Name string
}

func (h *fieldName) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	if closesList(t) {
		return participle.NextMatch
	}
	if !isName(t) {
		fail(t, "field name")
	}
	if isKw(t, "pub") {
		// `pub y: int`: a modifier the grammar has no place for (fields
		// are visible wherever the struct is), not a field named `pub`
		if next := cursorFor(lex).peekAt(1); isName(next) && next.Pos.Line == t.Pos.Line {
			failName(t, "field name")
		}
	}
	h.Pos, h.Name = t.Pos, t.Value
	lex.Next()
	return nil
}

// attrName is an attribute name: an identifier or `retry`.
type attrName struct{ Name string }

func (h *attrName) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	if t.Type != tIdent && !isKw(t, "retry") {
		failName(t, "attribute name")
	}
	h.Name = lex.Next().Value
	return nil
}

// str is a required plain string literal.
type str struct {
	Pos   lexer.Position
	Value string
}

func (h *str) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	if t.Type != tString && t.Type != tRaw {
		fail(t, "string")
	}
	h.Pos, h.Value = t.Pos, stringValue(t)
	lex.Next()
	return nil
}

// packTitle is the title string of an eval_pack that has no name; it
// is the last thing an eval_pack head may be, so the error names both.
type packTitle struct{ str }

func (h *packTitle) Parse(lex *lexer.PeekingLexer) error {
	if t := lex.Peek(); t.Type != tString && t.Type != tRaw {
		failName(t, "eval_pack name or title string")
	}
	return h.str.Parse(lex)
}

// importPath is the path string of an import (docs/spec/newer.md §4.1 names it
// `import path string` when something else stands there).
type importPath struct{ str }

func (h *importPath) Parse(lex *lexer.PeekingLexer) error {
	if t := lex.Peek(); t.Type != tString && t.Type != tRaw {
		fail(t, "import path string")
	}
	return h.str.Parse(lex)
}

// optStr is an optional plain string literal.
type optStr struct{ str }

func (h *optStr) Parse(lex *lexer.PeekingLexer) error {
	if t := lex.Peek(); t.Type != tString && t.Type != tRaw {
		return participle.NextMatch
	}
	return h.str.Parse(lex)
}

// expr is a required expression.
type expr struct{ X Expr }

func (h *expr) Parse(lex *lexer.PeekingLexer) error {
	h.X = cursorFor(lex).expr()
	return nil
}

// mutexTimeout is the second argument of `mutex(key, …)`: a timeout
// given as `timeout: d` or as a value (a duration, or an options dict
// `{timeout: d}` as sync_mutex_acquire takes). Like an argument list it
// may end in a comma (`mutex(k,)`, `mutex(k, 5s,)`), as `harn fmt` writes
// it when a comment breaks the list.
type mutexTimeout struct {
	X     Expr
	named bool
}

func (h *mutexTimeout) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	if isPunct(c.peek(), ")") {
		return participle.NextMatch
	}
	if t := c.peek(); t.Type == tIdent && t.Value == "timeout" && isPunct(c.peekAt(1), ":") {
		c.next()
		c.next()
		h.named = true
	}
	h.X = c.expr()
	if isPunct(c.peek(), ",") && isPunct(c.peekAt(1), ")") {
		c.next()
	}
	return nil
}

// retValue is the optional value of `return`/`yield`: absent before a line
// break, `;`, `}` or the end of the file.
type retValue struct{ X Expr }

func (h *retValue) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	if t := c.peek(); c.nl() || t.Type == tEOF || isPunct(t, ";") || isPunct(t, "}") {
		return participle.NextMatch
	}
	h.X = c.expr()
	return nil
}

// armPattern is one pattern of a match arm; it declines at the closing
// brace so that the list of arms can end.
type armPattern struct{ X Expr }

func (h *armPattern) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	if closesList(c.peek()) {
		return participle.NextMatch
	}
	h.X = c.expr()
	return nil
}

// altPattern is a pattern after an arm's `|`: the `|` commits to it, so
// it never declines (`1 |` at the end of the file lacks an expression, not
// an arrow).
type altPattern struct{ X Expr }

func (h *altPattern) Parse(lex *lexer.PeekingLexer) error {
	h.X = cursorFor(lex).expr()
	return nil
}

// asStream is `as stream` after a parallel body, on the same line (`as`
// is an ordinary identifier elsewhere).
type asStream struct{}

func (h *asStream) Parse(lex *lexer.PeekingLexer) error {
	c := cursor{lex: lex}
	if !is(c.peek(), tIdent, "as") || c.nl() {
		return participle.NextMatch
	}
	c.next()
	if !is(c.peek(), tIdent, "stream") {
		fail(c.peek(), "stream")
	}
	c.next()
	return nil
}

// elseIf is the `if …` after an `else`; chains of them nest like any
// other expression.
type elseIf struct{ X *IfExpr }

func (h *elseIf) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	if !isKw(c.peek(), "if") {
		return participle.NextMatch
	}
	c.enter()
	defer c.leave()
	h.X = parse(prods().ifExpr.get(), lex).ast()
	return nil
}

// docComment reads, without consuming anything, the doc comment that
// immediately precedes the next token.
type docComment struct{ Text string }

func (h *docComment) Parse(lex *lexer.PeekingLexer) error {
	h.Text = cursor{lex: lex}.docBefore()
	return nil
}

// primary is a primary expression without postfix operators (the count
// of `retry`, the duration of `deadline`).
type primary struct{ X Expr }

func (h *primary) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	c.enter()
	defer c.leave()
	h.X, _ = c.primary()
	return nil
}

// operand is the count of `retry` or the duration of `deadline`: a
// primary before the block. Written without it, the block is read as the
// operand (a dict, as upstream's parser reads it), and the error that
// follows gets a help naming what is missing.
type operand[K operandKind] struct{ primary }

type operandKind interface{ missing() string }

type (
	kRetry    struct{}
	kDeadline struct{}
)

func (kRetry) missing() string {
	return "`retry` takes the number of attempts before its block: `retry 3 { … }`"
}

func (kDeadline) missing() string {
	return "`deadline` takes a duration before its block: `deadline 5s { … }`"
}

func (h *operand[K]) Parse(lex *lexer.PeekingLexer) error {
	if !isPunct(lex.Peek(), "{") {
		return h.primary.Parse(lex)
	}
	var k K
	defer func() {
		if r := recover(); r != nil {
			if b, ok := r.(bailout); ok && b.err.Help == "" {
				b.err.Help = k.missing()
			}
			panic(r)
		}
	}()
	h.primary.Parse(lex)
	if t := lex.Peek(); !isPunct(t, "{") {
		fail(t, "{") // the block was the operand
	}
	return nil
}

// typ is a required type expression.
type typ struct{ T TypeExpr }

func (h *typ) Parse(lex *lexer.PeekingLexer) error {
	h.T = cursorFor(lex).typeExpr()
	return nil
}

// thrown is the type after `throws`, result the one after `->` in a
// declaration. When the type is left out and the body's `{` follows, the
// grammar reads that brace as a shape type (docs/spec/language.md §2.4)
// and fails inside the body, as upstream's parser does (`fn f() throws {`
// then `return 1`: `Expected :, got int(1)`); the error then gets a help
// naming the missing type.
type (
	thrown struct{ typ }
	result struct{ typ }
)

func (h *thrown) Parse(lex *lexer.PeekingLexer) error {
	return h.typ.parseBeforeBody(lex, "the type after `throws` is missing (`throws string`, `throws MyError`)")
}

func (h *result) Parse(lex *lexer.PeekingLexer) error {
	return h.typ.parseBeforeBody(lex, "the result type after `->` is missing (`-> int`, `-> Point`)")
}

// parseBeforeBody parses a type that a body follows; missing explains the
// error when the body's `{` was taken for a shape type.
func (h *typ) parseBeforeBody(lex *lexer.PeekingLexer, missing string) error {
	if bodyNotShape(lex) {
		defer func() {
			if r := recover(); r != nil {
				if b, ok := r.(bailout); ok && b.err.Help == "" {
					b.err.Help = missing + ", so the body's `{` was read as a shape type"
				}
				panic(r)
			}
		}()
	}
	return h.Parse(lex)
}

// block is a required `{ … }` block.
type block struct{ B *Block }

func (h *block) Parse(lex *lexer.PeekingLexer) error {
	h.B = cursorFor(lex).block()
	return nil
}

// params is a required parenthesised parameter list.
type params struct{ List []*Param }

func (h *params) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	c.expect("(")
	h.List = c.params(")", false)
	return nil
}

// optParams is an optional parenthesised parameter list (enum variants).
type optParams struct{ params }

func (h *optParams) Parse(lex *lexer.PeekingLexer) error {
	if !isPunct(lex.Peek(), "(") {
		return participle.NextMatch
	}
	return h.params.Parse(lex)
}

// names is a parenthesised list of parameter names without types or
// defaults (an override's).
type names struct{ List []string }

func (h *names) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	c.expect("(")
	for !c.accept(")") {
		t := c.peek()
		if t.Type != tIdent {
			failName(t, "parameter name")
		}
		h.List = append(h.List, c.next().Value)
		if !c.accept(",") {
			c.expect(")")
			break
		}
	}
	return nil
}

// pipeParams is a pipeline's parameter list: names with optional types.
type pipeParams struct{ List []*Param }

func (h *pipeParams) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	c.expect("(")
	h.List = c.params(")", true)
	return nil
}

// typeParams is an optional `<T, in U, out V>` list.
type typeParams struct{ List []*TypeParam }

func (h *typeParams) Parse(lex *lexer.PeekingLexer) error {
	return h.parse(lex, false)
}

// parse reads the list; bounded allows a function's inline bounds,
// `<T: A + B>`, spelled as in a where clause.
func (h *typeParams) parse(lex *lexer.PeekingLexer, bounded bool) error {
	c := cursorFor(lex)
	if !isPunct(c.peek(), "<") {
		return participle.NextMatch
	}
	c.next()
	for {
		t := c.peek()
		tp := &TypeParam{At: at(t.Pos)}
		if (isKw(t, "in") || is(t, tIdent, "out")) && c.peekAt(1).Type == tIdent {
			tp.Variance = c.next().Value
			t = c.peek()
		}
		if t.Type != tIdent {
			failName(t, "type parameter name")
		}
		tp.Name = c.next().Value
		if bounded && isPunct(c.peek(), ":") {
			c.next()
			for {
				b := c.peek()
				if b.Type != tIdent {
					failName(b, "interface name")
				}
				c.next()
				name := b.Value
				if isPunct(c.peek(), ".") {
					// `ns.Iface`: an interface of a namespace import
					c.next()
					m := c.peek()
					if m.Type != tIdent {
						failName(m, "interface name")
					}
					name += "." + c.next().Value
				}
				tp.Bounds = append(tp.Bounds, name)
				tp.BoundsAt = append(tp.BoundsAt, at(b.Pos))
				if args := c.boundArgs(); args != nil {
					if tp.boundArgs == nil {
						tp.boundArgs = make([][]TypeExpr, len(tp.Bounds)-1, len(tp.Bounds))
					}
					tp.boundArgs = append(tp.boundArgs, args)
				} else if tp.boundArgs != nil {
					tp.boundArgs = append(tp.boundArgs, nil)
				}
				if !c.accept("+") {
					break
				}
			}
		}
		h.List = append(h.List, tp)
		if !c.accept(",") {
			break
		}
	}
	c.expect(">")
	return nil
}

// pattern is the binding pattern of let/var/const.
type pattern struct{ P Pattern }

func (h *pattern) Parse(lex *lexer.PeekingLexer) error {
	h.P = cursorFor(lex).pattern(false)
	return nil
}

// forPattern is the pattern of a for loop, which may also be `(a, b)`.
type forPattern struct{ P Pattern }

func (h *forPattern) Parse(lex *lexer.PeekingLexer) error {
	h.P = cursorFor(lex).pattern(true)
	return nil
}

// scopedPath is the `a::b::` of `import a::b::{x}`, normalised to "a/b".
type scopedPath struct {
	Pos  lexer.Position
	Path string
}

func (h *scopedPath) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	t := c.peek()
	if t.Type != tIdent {
		return participle.NextMatch
	}
	if !isPunct(c.peekAt(1), ":") {
		fail(t, "import path string") // `import name` without `::`
	}
	h.Pos = t.Pos
	for {
		t := c.peek()
		if t.Type != tIdent {
			failName(t, "module name")
		}
		if h.Path != "" {
			h.Path += "/"
		}
		h.Path += c.next().Value
		c.expect(":")
		c.expect(":")
		if isPunct(c.peek(), "{") {
			if next := c.peekAt(1); isPunct(next, "}") {
				failName(next, "import name") // `a::{}` names nothing (docs/spec/language.md §2.2)
			}
			return nil
		}
	}
}

// starImport is `* as name from "path"` after `import`; the `*` commits
// to it, so each missing part is reported as such.
type starImport struct {
	Name name[rNS]
	Path importPath
}

func (h *starImport) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	if !isPunct(c.peek(), "*") {
		return participle.NextMatch
	}
	c.next()
	c.expect("as")
	h.Name.Parse(lex)
	c.expect("from")
	return h.Path.Parse(lex)
}

// attrArgs is an attribute's optional argument list.
type attrArgs struct{ List []*AttrArg }

func (h *attrArgs) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	if !isPunct(c.peek(), "(") || c.nl() {
		return participle.NextMatch
	}
	c.next()
	for !c.accept(")") {
		arg := &AttrArg{}
		if t := c.peek(); (t.Type == tIdent || isKw(t, "retry")) && isPunct(c.peekAt(1), ":") {
			arg.Name = c.next().Value
			c.next()
		}
		arg.Value = c.attrValue()
		h.List = append(h.List, arg)
		if !c.accept(",") {
			c.expect(")")
			break
		}
	}
	return nil
}

// toolBody is `{ [description "…"] statements }`.
type toolBody struct {
	Description string
	Body        *Block
}

func (h *toolBody) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	open := c.expect("{")
	h.Body = &Block{At: at(open.Pos)}
	if t := c.peek(); is(t, tIdent, "description") {
		if s := c.peekAt(1); s.Type == tString || s.Type == tRaw {
			c.next()
			h.Description = stringValue(c.next())
			c.itemSeparator("tool body item", false)
		}
	}
	h.Body.Stmts = c.items(false, "tool body item")
	h.Body.End = at(c.expect("}").Pos)
	return nil
}

// taskBody is the body of `parallel`: `{ [name ->] statements }`.
type taskBody struct {
	Param string
	Body  *Block
}

func (h *taskBody) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	open := c.expect("{")
	h.Body = &Block{At: at(open.Pos)}
	if t := c.peek(); t.Type == tIdent && isPunct(c.peekAt(1), "->") {
		h.Param = c.next().Value
		c.next()
	} else if t.Type == tKeyword && isPunct(c.peekAt(1), "->") {
		failName(t, "parameter name") // as in a closure's `{ x -> … }`
	} else if t.Type == tIdent && isPunct(c.peekAt(1), ",") && c.paramListAhead() {
		// docs/spec/language.md §13: one parameter, the item or the index.
		// Upstream reads `x` as a statement and stops at the comma.
		err := expectedError(c.peekAt(1), "statement separator (`;` or newline)", ",")
		err.Msg = "a `parallel` body takes one parameter, the item (`parallel each xs { x -> … }`) or the index (`parallel n { i -> … }`)"
		// said here, so that the keyword-typo hint does not read the
		// parameter name as a misspelt keyword (`i` → `if`)
		err.Help = "keep one parameter; for an item and its index, run `parallel each xs.enumerate() { e -> … }` and read `e.index` and `e.value`"
		panic(bailout{err})
	}
	h.Body.Stmts = c.stmts(false)
	h.Body.End = at(c.expect("}").Pos)
	return nil
}

// paramListAhead reports whether the next tokens are `a, b, … ->`.
func (c cursor) paramListAhead() bool {
	for i := 0; ; i += 2 {
		if c.peekAt(i).Type != tIdent {
			return false
		}
		switch next := c.peekAt(i + 1); {
		case isPunct(next, "->"):
			return i > 0
		case !isPunct(next, ","):
			return false
		}
	}
}

// skillBody is `{ name expr … }`.
type skillBody struct{ Fields []*SkillField }

func (h *skillBody) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	c.expect("{")
	for {
		t := c.peek()
		if isPunct(t, "}") {
			c.next()
			return nil
		}
		if t.Type == tEOF {
			fail(t, "}") // as every other unclosed body
		}
		if !isName(t) {
			failName(t, "field name")
		}
		c.next()
		h.Fields = append(h.Fields, &SkillField{At: at(t.Pos), Name: t.Value, Value: c.expr()})
		c.itemSeparator("skill field", false)
	}
}

// evalBody is the body of an eval_pack.
type evalBody struct{ Items []*EvalPackItem }

func (h *evalBody) Parse(lex *lexer.PeekingLexer) error {
	c := cursorFor(lex)
	c.expect("{")
	for {
		t := c.peek()
		if isPunct(t, "}") {
			c.next()
			return nil
		}
		if t.Type == tEOF {
			fail(t, "}") // as every other unclosed body
		}
		item := &EvalPackItem{At: at(t.Pos)}
		switch next := c.peekAt(1); {
		case t.Type == tIdent && isPunct(next, ":"):
			item.Key = c.next().Value
			c.next()
			item.Value = c.expr()
		case is(t, tIdent, "summarize") && isPunct(next, "{"):
			c.next()
			item.Summarize = c.block()
		default:
			item.Stmt = c.statement(false)
		}
		h.Items = append(h.Items, item)
		c.itemSeparator("statement", false)
	}
}

// body names a declaration body whose items each start with a keyword,
// and says what the body holds, for the help of an error.
type body interface{ holds() string }

type (
	kInterface struct{}
	kImpl      struct{}
)

func (kInterface) holds() string {
	return "an interface body holds method signatures (`fn area(self) -> float`) and associated types (`type Item`)"
}

func (kImpl) holds() string {
	return "an impl body holds methods (`fn area(self) { … }`) and associated types (`type Item = int`)"
}

// membersEnd is the `}` closing an interface or impl body. The members
// before it each start with `fn` (or `type`), so anything else where the
// next member would start is reported as upstream's item loop does, as a
// missing `fn` (`Expected fn, got let`); only the end of the file is a
// missing `}`.
type membersEnd[B body] struct{ Pos lexer.Position }

func (h *membersEnd[B]) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	switch {
	case isPunct(t, "}"):
		h.Pos = lex.Next().Pos
		return nil
	case t.Type == tEOF:
		fail(t, "}")
	}
	var b B
	err := expectedError(t, "fn", render(t))
	err.Help = b.holds()
	if _, ok := any(b).(kInterface); ok && isKw(t, "throws") {
		// docs/spec/language.md §2.2: MethodSig ends with its result type
		err.Help = "an interface method signature has no `throws` clause (`fn parse(self) -> Doc`); declare it on the method of each `impl` (`fn parse(self) -> Doc throws ParseError { … }`)"
	}
	panic(bailout{err})
}

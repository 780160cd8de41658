package syntax

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/harnlang/harn/lang/diag"
)

// This file adds hints to a parse error after the fact, from a rescan of
// the source: the bracket a file ends inside, and the keyword a misspelt
// word was probably meant to be. The upstream message (Golden) is left as
// it is; the hints go to Help and Notes.

// keywordLookalikes are other languages' words for Harn keywords, and the
// keyword each stands for.
var keywordLookalikes = map[string]string{
	"function": "fn", "func": "fn", "def": "fn", "fun": "fn",
	"elif": "else if", "elsif": "else if", "elseif": "else if",
	"foreach": "for", "switch": "match", "case": "match", "class": "struct",
	"export": "pub", "public": "pub", "val": "const", "raise": "throw",
	"except": "catch", "rescue": "catch", "loop": "while true",
}

// builtinTypeNames are the built-in type names: a word among them is a type
// written where the parser did not expect one (`var x int = 1`), never a
// misspelt keyword (`int` is not `in`).
var builtinTypeNames = map[string]bool{
	"int": true, "float": true, "string": true, "bool": true, "list": true, "dict": true,
	"set": true, "bytes": true, "duration": true, "any": true, "never": true,
	"unknown": true, "closure": true, "decimal": true,
}

// outputWords are other languages' statements, and Harn functions called
// without parentheses, that print or stop: what to write instead.
var outputWords = map[string]string{
	"print": "print(…)", "println": "println(…)", "echo": "println(…)", "puts": "println(…)",
	"printf": "println(format(…))", "exit": "exit(…)", "sleep": "sleep(…)", "assert": "assert(…)",
}

// hint explains err, a parse error in src, in terms a reader can act on.
func hint(err *diag.Error, path string, src []byte) {
	if err.Phase != diag.PhaseParse || err.Help != "" {
		return
	}
	toks, lerr := newScanner(path, string(src), 1, 1, true).all()
	if lerr != nil {
		return
	}
	var sig []lexer.Token // significant tokens, with newlines kept as separators
	for _, t := range toks {
		if t.Type != tDoc {
			sig = append(sig, t)
		}
	}
	if strings.Contains(err.Msg, "end of file") {
		if open := unclosed(sig); open != nil {
			err.Help = fmt.Sprintf("the `%s` opened at %d:%d is never closed", open.Value, open.Pos.Line, open.Pos.Column)
			err.Notes = append(err.Notes, &diag.Error{File: path, Line: open.Pos.Line, Col: open.Pos.Column,
				Msg: "unclosed `" + open.Value + "` opened here", Phase: diag.PhaseParse})
		}
		return
	}
	at := tokenAt(sig, err.Line, err.Col)
	if at < 0 {
		return
	}
	wanted, _, _ := strings.Cut(strings.TrimPrefix(err.Msg, "expected "), ", found ")
	if err.Help = pubBlock(sig, at); err.Help != "" {
		return
	}
	if err.Help = badTarget(sig, at, wanted); err.Help != "" {
		return
	}
	if err.Help = throwsClause(sig, at); err.Help != "" {
		return
	}
	if err.Help = structSpread(sig, at); err.Help != "" {
		return
	}
	if err.Help = selectArrow(sig, at, wanted); err.Help != "" {
		return
	}
	if err.Help = foreignLiteralForm(sig, at, wanted); err.Help != "" {
		return
	}
	if err.Help = foreignForm(sig, at, wanted); err.Help != "" {
		return
	}
	if err.Help = tryForm(sig, at, wanted); err.Help != "" {
		return
	}
	if err.Help = joinedLines(sig, at, wanted, src); err.Help != "" {
		return
	}
	if help, member := declarationMember(sig, at, wanted); help != "" {
		err.Help = help
		if member != nil && member != &sig[at] && member.Type == tKeyword {
			err.Notes = append(err.Notes, &diag.Error{File: path, Line: member.Pos.Line, Col: member.Pos.Column,
				Msg: "`" + member.Value + "` does not start a " + strings.TrimSuffix(wanted, " name"), Phase: diag.PhaseParse})
		}
		return
	}
	if err.Help = foreignOperator(sig, at, wanted == ")" || wanted == "]"); err.Help != "" {
		return
	}
	if err.Help = numberSuffix(sig, at); err.Help != "" {
		return
	}
	if err.Help = typeArgsGlued(sig, at, wanted); err.Help != "" {
		return
	}
	if err.Help = bareCall(sig, at); err.Help != "" {
		return
	}
	if err.Help = selectCase(sig, at, wanted); err.Help != "" {
		return
	}
	if err.Help = taskForm(sig, at, wanted); err.Help != "" {
		return
	}
	if word, kw := misspeltKeyword(sig, at); kw != "" {
		err.Help = fmt.Sprintf("`%s` is not a keyword; did you mean `%s`?", word, kw)
	}
}

// foreignOperators are other languages' operator words and what Harn
// writes instead.
var foreignOperators = map[string]string{"and": "&&", "or": "||"}

// foreignOperator explains toks[at], the token where the parse failed,
// when it is part of another language's operator or form: `and`, `===`,
// `x++`, `1..5`, `x => y`, a closure without braces (`x -> x * 2`,
// `(a, b) -> a + b`, `lambda x: x`), and, where a list or call should
// have closed (closing), `f(x: 1)`, `mutex(timeout: d)` and `[x for x in xs]`.
func foreignOperator(toks []lexer.Token, at int, closing bool) string {
	t := &toks[at]
	glued := func(i int) bool { // toks[i] is punctuation that touches toks[i+1]
		return i >= 0 && i+1 < len(toks) && toks[i].Type == tPunct && touches(&toks[i], &toks[i+1])
	}
	switch {
	case isPunct(t, "->") || closing && isPunct(t, ",") && arrowParams(toks, at) ||
		at >= 2 && is(&toks[at-2], tIdent, "lambda") && toks[at-1].Type == tIdent:
		// `x -> x * 2`, `(a, b) -> a + b`, `lambda x: x`: a closure without braces
		return "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"
	case is(t, tIdent, "not"):
		return "`not` is an operator only in `not in`; did you mean `!`?"
	case closing && isKw(t, "for"):
		// `[x for x in xs]`: a for after an element, on its line
		return "Harn has no comprehensions; use `xs.map({ x -> … })` and `.filter(…)`, or a `for` loop"
	case t.Type == tIdent && foreignOperators[t.Value] != "":
		return fmt.Sprintf("`%s` is not an operator in Harn; did you mean `%s`?", t.Value, foreignOperators[t.Value])
	case t.Type != tPunct:
		return ""
	case t.Value == "=" && glued(at-1) && (toks[at-1].Value == "==" || toks[at-1].Value == "!="):
		return fmt.Sprintf("Harn has no `%s=`; `%s` already compares without conversions", toks[at-1].Value, toks[at-1].Value)
	case t.Value == "=" && glued(at) && isPunct(&toks[at+1], ">"):
		return "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"
	case (t.Value == "+" || t.Value == "-") && glued(at-1) && toks[at-1].Value == t.Value:
		return fmt.Sprintf("Harn has no `%s%s`; write `x %s= 1`", t.Value, t.Value, t.Value)
	case t.Value == "." && glued(at-1) && toks[at-1].Value == ".":
		return "ranges are written `a to b` (`a to b exclusive` leaves `b` out)"
	case closing && t.Value == ":" && at >= 3 && is(&toks[at-1], tIdent, "timeout") &&
		isPunct(&toks[at-2], "(") && isKw(&toks[at-3], "mutex"):
		// `mutex(timeout: 50ms) { … }`: the bare form has no header
		return "a bare `mutex { … }` takes no timeout; name its lock to give one: `mutex(\"key\", timeout: 50ms) { … }`"
	case closing && t.Value == ":" && at >= 3 && toks[at-1].Type == tIdent && isPunct(&toks[at-2], ",") &&
		isKw(calleeOf(toks, at-2), "mutex"):
		// `mutex("k", timout: 50ms)`: the header's one named value
		return "the only option of a `mutex` header is `timeout:`: `mutex(\"key\", timeout: 50ms) { … }`"
	case closing && t.Value == ":" && at >= 3 && toks[at-1].Type == tIdent &&
		(isPunct(&toks[at-2], ",") || isPunct(&toks[at-2], "(") && toks[at-3].Type == tIdent):
		// `f(x: 1)`: where the parser wanted `)`, a name and a colon
		return "Harn has no named arguments; pass the values in order, or one dict (`f({x: 1})`)"
	}
	return ""
}

// typeArgsGlued explains `list<int>= [1]`: the longest match makes `>=`
// one token (docs/spec/language.md §1.8), so the `>` closing the type
// arguments is missing.
func typeArgsGlued(toks []lexer.Token, at int, wanted string) string {
	if wanted != ">" || !isPunct(&toks[at], ">=") {
		return ""
	}
	return "`>=` is one token; put a space between the `>` closing the type arguments and the `=`: `list<int> = …`"
}

// calleeOf is the token before the parenthesis left open at toks[at]
// (the callee of the call toks[at] is an argument of), or a blank token.
func calleeOf(toks []lexer.Token, at int) *lexer.Token { return beforeOpen(toks, at, "(") }

// beforeOpen is the token before the bracket left open at toks[at] when
// that bracket is open (`(`, `[` or `{`), or a blank token.
func beforeOpen(toks []lexer.Token, at int, open string) *lexer.Token {
	if i := openBracket(toks, at); i >= 1 && isPunct(&toks[i], open) {
		return &toks[i-1]
	}
	return &lexer.Token{}
}

// openBracket is the index of the innermost bracket left open at
// toks[at] (scanning back from it, inclusive), or -1.
func openBracket(toks []lexer.Token, at int) int {
	depth := 0
	for i := at; i >= 0; i-- {
		switch {
		case isPunct(&toks[i], ")") || isPunct(&toks[i], "]") || isPunct(&toks[i], "}"):
			depth++
		case isPunct(&toks[i], "(") || isPunct(&toks[i], "[") || isPunct(&toks[i], "{"):
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// arrowParams reports whether toks[at], a comma, continues another
// language's closure parameter list: `(a, b) -> …` or `(a, b) => …`.
func arrowParams(toks []lexer.Token, at int) bool {
	if at < 2 || toks[at-1].Type != tIdent || !isPunct(&toks[at-2], "(") {
		return false
	}
	i := at
	for i+1 < len(toks) && isPunct(&toks[i], ",") && toks[i+1].Type == tIdent {
		i += 2
	}
	if i+1 >= len(toks) || !isPunct(&toks[i], ")") {
		return false
	}
	next := &toks[i+1]
	return isPunct(next, "->") || isPunct(next, "=") && i+2 < len(toks) && isPunct(&toks[i+2], ">") && touches(next, &toks[i+2])
}

// foreignForm explains toks[at], the token where the parse failed, given
// what the parser wanted there, when another language's form of a
// declaration or arm stands in its place: `1 => …`, `case 1` and a
// struct pattern `Cat { name }` in a match, `fn f() => x`, `fn f(): int`, `<T: Bound>`, `|x| x`,
// `catch (Error e)`, `{a = 1}`.
func foreignForm(toks []lexer.Token, at int, wanted string) string {
	t := &toks[at]
	fatArrow := isPunct(t, "=") && at+1 < len(toks) && isPunct(&toks[at+1], ">") && touches(t, &toks[at+1])
	prev := func(k int, v string) bool { // toks[at-k] is the punctuation or keyword v
		return at >= k && (isPunct(&toks[at-k], v) || isKw(&toks[at-k], v))
	}
	switch wanted {
	case "->":
		if fatArrow {
			return "a match arm is written `pattern -> { … }`"
		}
		if at > 0 && is(&toks[at-1], tIdent, "case") {
			return "a match arm is written `pattern -> { … }`, with no `case` before it"
		}
		if isPunct(t, "{") && at > 0 && toks[at-1].Type == tIdent && capitalized(toks[at-1].Value) {
			// `Cat { name } -> …`: another language's struct pattern
			return "a pattern cannot destructure a struct; bind the value (`c -> { c.name }`) and read its fields, or add a guard (`c if c.name == \"x\" -> { … }`)"
		}
	case "{":
		if fatArrow {
			return "a body is a block in braces: `fn f(x) { return x * 2 }`"
		}
		if isPunct(t, ":") && prev(1, ")") {
			return "a result type follows `->`: `fn f() -> int { … }`"
		}
		if kw := conditionKeyword(toks, at); isPunct(t, "=") && !fatArrow && kw != "" {
			// `if x = 1 {`: an assignment where a condition should be
			article := map[string]string{"if": "an"}[kw]
			if article == "" {
				article = "a"
			}
			return "`=` assigns; " + article + " `" + kw + "` condition compares with `==`"
		}
	case "variable name":
		if at >= 2 && isPunct(&toks[at-1], "(") && isKw(&toks[at-2], "for") && (isKw(t, "let") || isKw(t, "var")) {
			// `for (let i = 0; i < n; i++)`
			return "Harn has no C-style `for`; loop with `for i in 0 to n - 1 { … }`, `for i in range(n) { … }` or `while`"
		}
	case ">":
		if isPunct(t, ":") {
			return "bounds go in a `where` clause: `fn f<T>(x: T) where T: Display { … }`"
		}
	case "expression":
		if isPunct(t, "|") || isPunct(t, "||") {
			return "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"
		}
	case ")":
		if t.Type == tIdent && at >= 4 && toks[at-1].Type == tIdent && prev(2, "(") && prev(3, "catch") {
			return "a typed catch names the variable first: `catch (" + t.Value + ": " + toks[at-1].Value + ")`"
		}
	case ":":
		if isPunct(t, "=") {
			return "dict entries are written `key: value`"
		}
	}
	return ""
}

// tryForm explains toks[at] when another language's error-handling form
// stands there (docs/spec/language.md §8): `try? f()`, `try! f()` and
// `try f()` (a try takes a block), a second `catch` or a `catch` after
// `finally`, and `throw` where a value is expected (`x ?? throw "m"`).
func tryForm(toks []lexer.Token, at int, wanted string) string {
	t := &toks[at]
	switch {
	case wanted == "{" && at >= 1 && isKw(&toks[at-1], "try"):
		switch {
		case isPunct(t, "?") && touches(&toks[at-1], t):
			return "Harn has no `try?`: `try { … }` gives a Result (`Result.Ok(v)` or `Result.Err(e)`), and `unwrap_or(try { … }, d)` a default in place of a failure"
		case isPunct(t, "!") && touches(&toks[at-1], t):
			return "Harn has no `try!`: drop it, and a failure propagates by itself (`unwrap(r)` takes the value of a Result)"
		case t.Type != tNewline:
			return "`try` takes a block: `try { … }` gives a Result, `try { … } catch (e) { … }` handles the failure"
		}
	case isKw(t, "catch") && strings.HasSuffix(wanted, "separator (`;` or newline)") && at >= 1 && isPunct(&toks[at-1], "}"):
		open := openBracket(toks, at-2) // the `{` the `}` closes
		switch {
		case open >= 1 && isKw(&toks[open-1], "finally"):
			return "`catch` comes before `finally`: `try { … } catch (e) { … } finally { … }`"
		case open >= 1 && catchHeader(toks, open):
			return "a `try` has one `catch`, which receives every failure: branch on it inside (`match e { … }`), or nest a `try` with a typed `catch (e: Name)` in another"
		}
	case isKw(t, "throw") && wanted == "expression":
		return "`throw` is a statement, not a value: test first, as in `guard x != nil else { throw \"missing\" }`"
	}
	return ""
}

// catchHeader reports whether the `{` at toks[open] starts a catch body:
// `catch {`, `catch e {` or `catch (…) {`.
func catchHeader(toks []lexer.Token, open int) bool {
	before := open - 1
	switch {
	case isKw(&toks[before], "catch"):
		return true
	case toks[before].Type == tIdent:
		return before >= 1 && isKw(&toks[before-1], "catch")
	case isPunct(&toks[before], ")"):
		p := openBracket(toks, before-1) // the `(` the `)` closes
		return p >= 1 && isKw(&toks[p-1], "catch")
	}
	return false
}

// joinedLines explains a missing separator before toks[at] when the item
// before it ended on an earlier line: the lines between were joined by a
// block comment spanning them or by a `\` at the end of a line, neither
// of which yields a line break (docs/spec/language.md §1.1, §1.2).
func joinedLines(toks []lexer.Token, at int, wanted string, src []byte) string {
	if !strings.HasSuffix(wanted, "separator (`;` or newline)") || at < 1 {
		return ""
	}
	prev, t := &toks[at-1], &toks[at]
	if prev.Type == tNewline || endLine(prev) >= t.Pos.Line {
		return ""
	}
	from := min(prev.Pos.Offset+len(prev.Value), t.Pos.Offset)
	switch gap := string(src[from:t.Pos.Offset]); {
	case strings.Contains(gap, "*/"):
		return "a block comment spanning lines is no line break; end the statement before it with `;` or start a new line after the `*/`"
	case strings.Contains(gap, "\\"):
		return "a `\\` at the end of a line joins it to the next, so both statements stand on one line; remove the `\\` or add `;`"
	}
	return ""
}

// memberKeywords are the words that start a statement or declaration
// rather than a struct field or an enum variant.
var memberKeywords = map[string]bool{
	"let": true, "var": true, "const": true, "fn": true, "gen": true, "pub": true,
	"type": true, "struct": true, "enum": true, "impl": true, "return": true,
}

// declarationMember explains a parse error inside a struct or enum body,
// where the parser wanted a field or variant name (wanted): a binding, a
// method or an attribute written among the fields, or a field with a
// default value. It returns the help and the token that started the
// member at fault (nil when it is toks[at] itself or unknown).
func declarationMember(toks []lexer.Token, at int, wanted string) (string, *lexer.Token) {
	kind := map[string]string{"field name": "struct", "variant name": "enum"}[wanted]
	if kind == "" || enclosingDecl(toks, at) != kind {
		return "", nil
	}
	start := at // the first token of the member, on the error's line
	for start > 0 && toks[start-1].Pos.Line == toks[at].Pos.Line &&
		!isPunct(&toks[start-1], "{") && !isPunct(&toks[start-1], ",") && toks[start-1].Type != tNewline {
		start--
	}
	first := &toks[start]
	article, holds := "a ", "a struct body holds fields written `name: type` (`name?: type` for an optional one)"
	if kind == "enum" {
		article, holds = "an ", "an enum body holds variants (`Red`, `Circle(r: float)`)"
	}
	const methods = "; methods go in an `impl` block after it"
	switch {
	case isPunct(&toks[at], "@") || isPunct(first, "@"):
		return "attributes stand before a declaration, not before a " + strings.TrimSuffix(wanted, " name") + "; " + holds, first
	case first.Type == tKeyword && (first.Value == "fn" || first.Value == "gen") ||
		first.Type == tKeyword && first.Value == "pub" && start+1 < len(toks) && isKw(&toks[start+1], "fn"):
		return holds + methods, first
	case kind == "struct" && first == &toks[at] && isKw(first, "pub") && at+1 < len(toks) && isName(&toks[at+1]):
		return "struct fields take no `pub`: every field is visible wherever the struct is; write `" + toks[at+1].Value + ": …`", first
	case first.Type == tKeyword && memberKeywords[first.Value]:
		return "`" + first.Value + "` has no place in " + article + kind + " body: " + holds + methods, first
	case kind == "struct" && isPunct(&toks[at], "="):
		return "struct fields have no default values: " + holds + ", and a literal gives every value (`S { name: … }`)", first
	case kind == "enum" && isPunct(&toks[at], "="):
		return "enum variants have no values of their own: " + holds, first
	}
	return holds, first
}

// enclosingDecl is "struct" or "enum" when toks[at] stands directly in the
// body of such a declaration (not in a shape type or call inside it), else "".
func enclosingDecl(toks []lexer.Token, at int) string {
	i := openBracket(toks, at-1)
	if i < 0 || !isPunct(&toks[i], "{") {
		return ""
	}
	// `struct Name<T, U> {`: only a name and type parameters between
	for j := i - 1; j >= 0 && (toks[j].Type == tIdent || isPunct(&toks[j], "<") ||
		isPunct(&toks[j], ">") || isPunct(&toks[j], ",") || isKw(&toks[j], "struct") || isKw(&toks[j], "enum") ||
		isKw(&toks[j], "in")); j-- {
		if isKw(&toks[j], "struct") || isKw(&toks[j], "enum") {
			return toks[j].Value
		}
	}
	return ""
}

// conditionKeyword is the `if`, `while` or `guard` whose condition
// toks[at] stands in, on the same line, or "".
func conditionKeyword(toks []lexer.Token, at int) string {
	for i := at - 1; i >= 0 && toks[i].Type != tNewline && toks[i].Pos.Line == toks[at].Pos.Line; i-- {
		switch {
		case isPunct(&toks[i], "{") || isPunct(&toks[i], "}") || isPunct(&toks[i], ";"):
			return ""
		case isKw(&toks[i], "if") || isKw(&toks[i], "while") || isKw(&toks[i], "guard"):
			return toks[i].Value
		}
	}
	return ""
}

// numberSuffix explains toks[at], the token where the parse failed, when
// it is a word glued to a number: another language's number syntax
// (`1_000`, `1e3`, `0x1f`) or a duration Harn spells otherwise (`1.5s`,
// `5sec`).
func numberSuffix(toks []lexer.Token, at int) string {
	if at < 1 {
		return ""
	}
	t, num := &toks[at], &toks[at-1]
	if t.Type != tIdent || num.Type != tInt && num.Type != tFloat || !touches(num, t) {
		return ""
	}
	w := t.Value
	switch {
	case strings.HasPrefix(w, "_"):
		return "numbers have no digit separators; write the digits together (`1000`)"
	case num.Value == "0" && len(w) > 1 && strings.ContainsRune("xob", rune(w[0])):
		return "numbers are written in decimal only (no `0x`, `0o` or `0b` literals)"
	case w[0] == 'e' && len(w) > 1 && strings.Trim(w[1:], "0123456789") == "":
		return "numbers have no exponent notation; write the number out, or use `**` (`1.5 * 10 ** 3`)"
	case num.Type == tFloat && isDurationUnit(w):
		return "a duration is a whole number of one unit (`1500ms`, not `1.5s`)"
	case num.Type == tInt && strings.ContainsRune("mshdw", rune(w[0])): // 5sec, 2min, 3days
		return "a duration is a whole number directly followed by `ms`, `s`, `m`, `h`, `d` or `w` (`5s`, `2m`)"
	}
	return ""
}

// structSpread explains `Point {...p, x: 1}`: a struct literal starts
// with a `name: value` field (docs/spec/language.md §2.7 rule 2), so the
// grammar reads `Point` as a name and fails at the `{` (the golden text
// stays that failure). The constructor takes the merged dict.
func structSpread(toks []lexer.Token, at int) string {
	if at < 1 || at+3 >= len(toks) || !isPunct(&toks[at], "{") || toks[at-1].Type != tIdent || !upper(toks[at-1].Value) {
		return ""
	}
	for i := at + 1; i <= at+3; i++ {
		if !isPunct(&toks[i], ".") {
			return ""
		}
	}
	name := toks[at-1].Value
	return "a struct literal cannot start with a spread (`" + name + " {...p, x: 1}`); give the merged dict to the constructor instead (`" + name + "({...p, x: 1})`)"
}

// tokenAt is the index of the token at line:col, or -1.
func tokenAt(toks []lexer.Token, line, col int) int {
	for i, t := range toks {
		if t.Pos.Line == line && t.Pos.Column == col {
			return i
		}
	}
	return -1
}

// touches reports whether token a ends where token b starts.
func touches(a, b *lexer.Token) bool { return a.Pos.Offset+len(a.Value) == b.Pos.Offset }

// unclosed returns the innermost bracket left open at the end of toks.
func unclosed(toks []lexer.Token) *lexer.Token {
	var stack []*lexer.Token
	for i := range toks {
		t := &toks[i]
		if t.Type != tPunct {
			continue
		}
		switch v := t.Value; {
		case strings.HasSuffix(v, "(") || strings.HasSuffix(v, "[") || v == "{":
			stack = append(stack, t)
		case v == ")" || v == "]" || v == "}":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if len(stack) == 0 {
		return nil
	}
	return stack[len(stack)-1]
}

// misspeltKeyword looks at toks[at], the token where the parse failed,
// and the word that starts its statement: an identifier close to a
// keyword, or another language's word for one, is probably that keyword.
//
// A value keyword (`true`, `false`, `nil`) is never offered: a name
// stands wherever a value does, so the parse would fail at it as well
// (`var tries tries = 0` is no misspelt `true`). A one-letter first word
// is a variable or a function called without parentheses (`f x`,
// `i mutex`), and a first word is never offered a keyword that cannot
// begin a statement (`t let` is no misspelt `to`).
func misspeltKeyword(toks []lexer.Token, at int) (word, kw string) {
	// the statement's first word, when the failing token follows it
	if at > 0 && toks[at-1].Type == tIdent && len(toks[at-1].Value) >= 2 && startsStatement(toks, at-1) {
		if kw := keywordFor(toks[at-1].Value); kw != "" && !valueKeyword(kw) && !clauseKeyword(kw) {
			return toks[at-1].Value, kw
		}
	}
	if t := toks[at]; t.Type == tIdent && len(t.Value) >= 3 && !builtinTypeNames[t.Value] {
		if kw := keywordFor(t.Value); kw != "" && !valueKeyword(kw) {
			return t.Value, kw
		}
	}
	return "", ""
}

// valueKeyword reports whether kw is a keyword that is a value.
func valueKeyword(kw string) bool { return kw == "true" || kw == "false" || kw == "nil" }

// clauseKeyword reports whether kw only continues a construct inside a
// line and so never begins a statement (`1 to 5`, `x in xs`, `import {…}
// from`, `extends p`, `throws E`).
func clauseKeyword(kw string) bool {
	switch kw {
	case "to", "in", "exclusive", "from", "extends", "throws":
		return true
	}
	return false
}

// selectCase explains toks[at] where a `select` case wanted `from`:
// another language's case form, `case v from ch` or Go's `v <- ch`.
func selectCase(toks []lexer.Token, at int, wanted string) string {
	if wanted != "from" {
		return ""
	}
	if at >= 2 && is(&toks[at-1], tIdent, "case") {
		return "a `select` case has no `case` keyword: `v from ch { … }`"
	}
	if isPunct(&toks[at], "<") && at+1 < len(toks) && isPunct(&toks[at+1], "-") && touches(&toks[at], &toks[at+1]) {
		return "a `select` case receives with `from`: `v from ch { … }`"
	}
	return ""
}

// foreignLiteralForm explains toks[at] where another language's form of a
// string, loop or import stands: a Python f-string `f"hi {x}"` (Harn
// interpolates `${…}` in every plain string), JavaScript's `for x of xs`
// and Python's `import json` (an import path is a string).
func foreignLiteralForm(toks []lexer.Token, at int, wanted string) string {
	t := &toks[at]
	switch {
	case (t.Type == tString || t.Type == tInterp) && at >= 1 && toks[at-1].Type == tIdent &&
		(toks[at-1].Value == "f" || toks[at-1].Value == "F") && touches(&toks[at-1], t):
		return "Harn has no f-strings: every plain string interpolates `${…}`, as in `\"total: ${n}\"`"
	case wanted == "in" && is(t, tIdent, "of"):
		return "a `for` loop takes its items with `in`: `for x in xs { … }`"
	case wanted == "import path string" && t.Type == tIdent && at >= 1 && (isKw(&toks[at-1], "import") || isKw(&toks[at-1], "from")):
		kw := toks[at-1].Value
		return "an import names its module as a string: `" + kw + " \"std/" + t.Value + "\"` for a standard module, `" + kw + " \"./" + t.Value + "\"` for a file beside this one"
	}
	return ""
}

// selectArrow explains toks[at] where a `select` case wanted its block
// and found a match arm's arrow (`v from ch -> { … }`, `timeout 5s => …`,
// `default: …`): the cases of docs/spec/language.md §13 run a block
// directly, so the closure hint foreignOperator would give is wrong here.
func selectArrow(toks []lexer.Token, at int, wanted string) string {
	t := &toks[at]
	arrow := isPunct(t, "->") || isPunct(t, ":") ||
		isPunct(t, "=") && at+1 < len(toks) && isPunct(&toks[at+1], ">") && touches(t, &toks[at+1])
	if wanted != "{" || !arrow || !isKw(openerOf(toks, at), "select") {
		return ""
	}
	start := at - 1 // the first token of the case, on its line
	for start > 0 && toks[start-1].Type != tNewline && !isPunct(&toks[start-1], "{") && !isPunct(&toks[start-1], "}") && !isPunct(&toks[start-1], ";") {
		start--
	}
	form := "v from ch { … }"
	switch {
	case start >= 0 && (toks[start].Type == tIdent || toks[start].Type == tKeyword) && toks[start].Value == "default":
		form = "default { … }"
	case start >= 0 && (toks[start].Type == tIdent || toks[start].Type == tKeyword) && toks[start].Value == "timeout":
		form = "timeout 5s { … }"
	}
	return "a `select` case runs its block directly, without `" + arrowText(toks, at) + "`: `" + form + "`"
}

func arrowText(toks []lexer.Token, at int) string {
	if isPunct(&toks[at], "=") {
		return "=>"
	}
	return toks[at].Value
}

// taskForm explains toks[at] where a `spawn` or `parallel` form wanted
// its block, or a `select` wanted a case: `spawn f()`, `with
// max_concurrent: 2` without braces, `as stream` before the body, a mode
// word `parallel` does not have (`parallel map xs { … }`), and an `else`
// case.
func taskForm(toks []lexer.Token, at int, wanted string) string {
	t := &toks[at]
	word := func(i int, v string) bool { // toks[i] is the word v, keyword or not
		return i >= 0 && i < len(toks) && (toks[i].Type == tIdent || toks[i].Type == tKeyword) && toks[i].Value == v
	}
	switch {
	case wanted == "{" && word(at-1, "spawn"):
		return "`spawn` runs a block: `spawn { … }`"
	case wanted == "{" && word(at-1, "with") && word(at, "max_concurrent"):
		return "the options after `with` are a dict in braces: `with { max_concurrent: 4 }`"
	case wanted == "{" && word(at, "as") && word(at+1, "stream"):
		return "`as stream` follows the body: `parallel each xs { x -> … } as stream`"
	case wanted == "stream" && (word(at-1, "as") || toks[at-1].Type == tNewline && word(at-2, "as")):
		return "`as` after a `parallel` body takes `stream`: `parallel each xs { x -> … } as stream`"
	case parallelHeader(toks, at) >= 0:
		// a body left out (`parallel each xs`), or another library's mode
		// word (`parallel map xs`, `parallel map [1, 2]`, `parallel race
		// fs`): the forms are those of docs/spec/language.md §13
		p := parallelHeader(toks, at)
		mode := p+2 < len(toks) && toks[p+1].Type == tIdent && !word(p+1, "each") && !word(p+1, "settle") &&
			toks[p+2].Pos.Line == toks[p+1].Pos.Line && !isPunct(&toks[p+2], "{") && !isPunct(&toks[p+2], "(")
		if wanted != "{" && !mode {
			break
		}
		const forms = "the `parallel` forms are `parallel N { i -> … }`, `parallel each xs { x -> … }` and `parallel settle xs { x -> … }`"
		if mode && toks[p+1].Value == "race" {
			return "a race is the builtin `parallel_race([f, g])`; " + forms
		}
		return forms
	case wanted == "variable name" && isKw(t, "else") && isKw(openerOf(toks, at-1), "select"):
		return "a `select` case that runs when nothing is ready is `default { … }`"
	}
	return ""
}

// parallelHeader is the index of the `parallel` keyword whose header
// (what stands between it and its body) toks[at] is in or follows, or
// -1. Newlines just before toks[at] are skipped, since a header with its
// body left out fails at the next line; the scan stops at a brace left
// open (a body or block toks[at] is in) and at the start of a statement.
func parallelHeader(toks []lexer.Token, at int) int {
	i := at - 1
	for i >= 0 && toks[i].Type == tNewline {
		i--
	}
	depth := 0
	for ; i >= 0; i-- {
		t := &toks[i]
		switch {
		case isPunct(t, ")") || isPunct(t, "]") || isPunct(t, "}"):
			depth++
		case isPunct(t, "(") || isPunct(t, "["):
			depth = max(depth-1, 0) // one left open is the header's expression
		case isPunct(t, "{"):
			if depth == 0 {
				return -1
			}
			depth--
		case depth == 0 && (t.Type == tNewline || isPunct(t, ";")):
			return -1
		case depth == 0 && isKw(t, "parallel"):
			return i
		}
	}
	return -1
}

// throwsClause explains toks[at] when it is a `throws` the grammar does
// not take there (docs/spec/language.md §2.2, §9.4): after `where` (the
// chosen order is result type, `throws`, `where`), in a function type
// (`fn(int) -> int throws E`), or anywhere else but after the result of
// a `fn`, `tool` or `pipeline` declaration or an anonymous `fn`.
func throwsClause(toks []lexer.Token, at int) string {
	if isPunct(&toks[at], "->") {
		// `fn f() throws E -> int {`: the clause written before the result type
		for i := at - 1; i >= 1 && toks[i].Type != tNewline && !isPunct(&toks[i], "{") && !isPunct(&toks[i], "}"); i-- {
			if isKw(&toks[i], "throws") && isPunct(&toks[i-1], ")") {
				return "`throws` follows the result type: `fn f(x: int) -> int throws E { … }`"
			}
		}
		return ""
	}
	if !isKw(&toks[at], "throws") {
		return ""
	}
	for i := at - 1; i >= 0 && toks[i].Type != tNewline && !isPunct(&toks[i], "{") && !isPunct(&toks[i], "}"); i-- {
		switch {
		case (toks[i].Type == tIdent || toks[i].Type == tKeyword) && toks[i].Value == "where":
			return "`throws` comes before `where`: `fn f<T>(x: T) -> T throws E where T: Show { … }`"
		case isKw(&toks[i], "fn") && i+1 < len(toks) && isPunct(&toks[i+1], "("):
			return "a function type has no `throws` clause: write `fn(int) -> int`; `throws` goes on a declaration (`fn f(x: int) -> int throws E { … }`) or an anonymous `fn(x: int) -> int throws E { … }`"
		}
	}
	return "`throws` follows the result type of a `fn`, `tool` or `pipeline` declaration: `fn f(x: int) -> int throws E { … }`"
}

// openerOf is the token before the brace left open at toks[at] (the
// keyword of the block toks[at] is in), or a blank token.
func openerOf(toks []lexer.Token, at int) *lexer.Token { return beforeOpen(toks, at, "{") }

// bareCall explains toks[at], the token where the parse failed, when the
// statement starts with a word that prints or stops in another language,
// or a Harn function, followed by its argument without parentheses
// (`print "x"`, `exit 1`), and `await` written as a keyword.
func bareCall(toks []lexer.Token, at int) string {
	if at >= 1 && is(&toks[at-1], tIdent, "await") && toks[at].Type == tIdent {
		// `await h`, `let v = await fetch()`: other languages' await keyword
		return "`await` is a function here: `await(task)`"
	}
	if at < 1 || toks[at-1].Type != tIdent || !startsStatement(toks, at-1) || isPunct(&toks[at], "(") {
		return ""
	}
	call, ok := outputWords[toks[at-1].Value]
	if !ok {
		return ""
	}
	return fmt.Sprintf("a call needs parentheses: `%s`", call)
}

func startsStatement(toks []lexer.Token, i int) bool {
	if i == 0 {
		return true
	}
	p := toks[i-1]
	return p.Type == tNewline || p.Type == tPunct && (p.Value == "{" || p.Value == "}" || p.Value == ";")
}

func keywordFor(word string) string {
	if kw, ok := keywordLookalikes[word]; ok {
		return kw
	}
	if capitalized(word) {
		// keywords are lower-case: a capitalised word is a keyword in
		// another case (`Return`), else a type or constructor name that
		// merely looks like one (`Cat` is not `let`)
		lower := strings.ToLower(word)
		if kw, ok := keywordLookalikes[lower]; ok {
			return kw
		}
		if slices.Contains(Keywords(), lower) {
			return lower
		}
		return ""
	}
	candidates := Keywords()
	for w := range keywordLookalikes {
		candidates = append(candidates, w)
	}
	s := closestTypo(word, candidates)
	if kw, ok := keywordLookalikes[s]; ok {
		return kw
	}
	return s
}

// closestTypo is the candidate word is most likely a slip of the keyboard
// for, or "": one that starts with the same letter and is one edit away
// (two for words longer than four letters), a swap of two neighbouring
// letters counting as one edit (`retrun`, `esle`). The looser rule of
// variable-name suggestions (docs/spec/language.md §3.2) would offer
// unrelated keywords for other languages' words (`loop` is not `tool`,
// `go` is not `to`). Ties go to the smaller distance, then to a word the
// typed letters all appear in (a letter left out), then the closer
// length, then the byte-wise smaller word.
func closestTypo(word string, candidates []string) string {
	limit := 1
	if len(word) > 4 {
		limit = 2
	}
	best, bestDist, bestLenDiff, bestDropped := "", 0, 0, false
	for _, c := range candidates {
		if c == word || c == "" || c[0] != word[0] {
			continue
		}
		lenDiff := len(c) - len(word)
		if lenDiff < 0 {
			lenDiff = -lenDiff
		}
		if lenDiff > limit {
			continue
		}
		d := diag.EditDistance(word, c, limit)
		if d > limit {
			continue
		}
		dropped := subsequence(word, c)
		if best == "" || d < bestDist || d == bestDist && (dropped && !bestDropped ||
			dropped == bestDropped && (lenDiff < bestLenDiff || lenDiff == bestLenDiff && c < best)) {
			best, bestDist, bestLenDiff, bestDropped = c, d, lenDiff, dropped
		}
	}
	return best
}

// subsequence reports whether the bytes of word appear in c in order, as
// when a letter of c was left out (`retrn` in `return`, not in `retry`).
func subsequence(word, c string) bool {
	i := 0
	for j := 0; j < len(c) && i < len(word); j++ {
		if c[j] == word[i] {
			i++
		}
	}
	return i == len(word)
}

// capitalized reports whether word starts with an upper-case letter, as
// struct, enum and type names do and no keyword does.
func capitalized(word string) bool {
	r, _ := utf8.DecodeRuneInString(word)
	return unicode.IsUpper(r)
}

func isDurationUnit(suffix string) bool {
	_, ok := DurationUnitMs(suffix)
	return ok
}

// pubBlock explains `pub impl`: `pub` marks only what a module exports
// (docs/spec/language.md §2.2 notes), which
// an `impl` block is not; its methods are.
func pubBlock(sig []lexer.Token, at int) string {
	if !isKw(&sig[at], "pub") || at+1 >= len(sig) {
		return ""
	}
	if isKw(&sig[at+1], "impl") {
		return "an `impl` block cannot be `pub`; mark its methods `pub fn` instead"
	}
	return ""
}

// badTarget explains an `=` after an expression that is not a place
// (docs/spec/language.md §3.3): an optional chain or a
// call result on the same line before it, where a separator was wanted.
func badTarget(sig []lexer.Token, at int, wanted string) string {
	if !isPunct(&sig[at], "=") || !strings.Contains(wanted, "separator") {
		return ""
	}
	line, depth := sig[at].Pos.Line, 0
	help := ""
	for i := at - 1; i >= 0 && sig[i].Pos.Line == line; i-- {
		t := &sig[i]
		switch {
		case isPunct(t, ")") || isPunct(t, "]"):
			if depth == 0 && isPunct(t, ")") && help == "" {
				help = "cannot assign to a call result; assign to a variable or to a field of one"
			}
			depth++
		case isPunct(t, "(") || isPunct(t, "["):
			depth--
		case depth == 0 && isPunct(t, "?."):
			return "cannot assign to an optional chain (`?.`); check for nil first and assign through `.`"
		}
	}
	return help
}

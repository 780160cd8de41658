package syntax

import (
	"slices"
	"strconv"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types. Literal tokens keep their source text in Value (strings
// with their quotes), so a grammar literal such as "fn" can only ever match
// the keyword.
const (
	tEOF      = lexer.EOF
	tIdent    = lexer.TokenType(-2)
	tKeyword  = lexer.TokenType(-3)
	tInt      = lexer.TokenType(-4)
	tFloat    = lexer.TokenType(-5)
	tDuration = lexer.TokenType(-6)
	tString   = lexer.TokenType(-7) // "…" or """…""" without interpolation
	tRaw      = lexer.TokenType(-8) // r"…" or r#"…"#
	tInterp   = lexer.TokenType(-9) // "…" or """…""" with ${…}
	tPunct    = lexer.TokenType(-10)
	tNewline  = lexer.TokenType(-11) // elided
	tDoc      = lexer.TokenType(-12) // elided
	tComment  = lexer.TokenType(-13) // only from Scan; never reaches the parser
)

var symbols = map[string]lexer.TokenType{
	"EOF":      tEOF,
	"Ident":    tIdent,
	"Keyword":  tKeyword,
	"Int":      tInt,
	"Float":    tFloat,
	"Duration": tDuration,
	"String":   tString,
	"Raw":      tRaw,
	"Interp":   tInterp,
	"Punct":    tPunct,
	"Newline":  tNewline,
	"Doc":      tDoc,
}

// keywordList holds the reserved words of docs/spec/language.md §1.4,
// sorted: plain data, where a map would be built at every harn start.
var keywordList = [...]string{
	"break", "catch", "const", "continue", "deadline", "defer", "else", "emit", "enum",
	"eval_pack", "exclusive", "extends", "false", "finally", "fn", "for", "from", "guard", "if",
	"impl", "import", "in", "interface", "let", "match", "mutex", "nil", "override", "parallel",
	"pipeline", "pub", "require", "retry", "return", "select", "skill", "spawn", "struct",
	"throw", "throws", "to", "tool", "true", "try", "type", "var", "while", "yield",
}

// IsKeyword reports whether s is a reserved word (docs/spec/language.md §1.4).
func IsKeyword(s string) bool {
	_, found := slices.BinarySearch(keywordList[:], s)
	return found
}

func is(t *lexer.Token, typ lexer.TokenType, v string) bool {
	return t.Type == typ && t.Value == v
}

func isPunct(t *lexer.Token, v string) bool { return t.Type == tPunct && t.Value == v }
func isKw(t *lexer.Token, v string) bool    { return t.Type == tKeyword && t.Value == v }

// isName reports whether t may be used where a property name, dict key or
// shape field is expected: an identifier or any keyword (docs/spec/newer.md §1.1;
// April excluded five keywords).
func isName(t *lexer.Token) bool {
	return t.Type == tIdent || t.Type == tKeyword
}

// render spells a token the way upstream's parse errors do.
func render(t *lexer.Token) string {
	switch t.Type {
	case tIdent:
		return "id(" + t.Value + ")"
	case tInt:
		if n, err := strconv.ParseInt(t.Value, 10, 64); err == nil {
			return "int(" + strconv.FormatInt(n, 10) + ")"
		}
		f, _ := strconv.ParseFloat(t.Value, 64)
		return "float(" + strconv.FormatFloat(f, 'f', -1, 64) + ")"
	case tFloat:
		f, _ := strconv.ParseFloat(t.Value, 64)
		return "float(" + strconv.FormatFloat(f, 'f', -1, 64) + ")"
	case tDuration:
		return "duration(" + strconv.FormatInt(durationMs(t.Value), 10) + "ms)"
	case tString:
		return "str(" + stringValue(t) + ")"
	case tRaw:
		return "rstr(" + stringValue(t) + ")"
	case tInterp:
		return "istr(...)"
	case tNewline:
		return `\n`
	case tEOF:
		return "end of file"
	}
	return t.Value
}

// spell is a token as the reworded message shows it: upstream's rendered
// form (golden) except for names, numbers and strings, which upstream
// wraps in its internal token names (`id(x)`, `int(2)`); those are
// quoted as written. A line break, which upstream renders `\n`, is
// called the end of the line.
func spell(t *lexer.Token, golden string) string {
	switch t.Type {
	case tIdent, tInt, tFloat, tDuration:
		return "`" + t.Value + "`"
	case tString, tRaw:
		return "string " + t.Value
	case tInterp:
		return "interpolated string"
	case tNewline:
		return "end of line"
	}
	return golden
}

// renderName spells a token found where a name was expected: keywords are
// called out as reserved.
func renderName(t *lexer.Token) string {
	if t.Type == tKeyword {
		return "'" + t.Value + "' (reserved keyword)"
	}
	return render(t)
}

// durationMs converts a duration token's text ("5s", "1500ms") to
// milliseconds, saturating on overflow.
func durationMs(text string) int64 {
	i := 0
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	unit, _ := DurationUnitMs(text[i:])
	n, err := strconv.ParseInt(text[:i], 10, 64)
	if err != nil || n > (1<<63-1)/unit {
		return 1<<63 - 1
	}
	return n * unit
}

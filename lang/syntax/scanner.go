package syntax

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/harnlang/harn/lang/diag"
)

// lexDef is the scanner as a participle lexer definition.
var lexDef harnLexer

type harnLexer struct{}

var _ lexer.BytesDefinition = harnLexer{}

func (harnLexer) Symbols() map[string]lexer.TokenType { return symbols }

func (d harnLexer) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (harnLexer) LexBytes(filename string, b []byte) (lexer.Lexer, error) {
	return newScanner(filename, string(b), 1, 1, true), nil
}

func (harnLexer) LexString(filename string, s string) (lexer.Lexer, error) {
	return newScanner(filename, s, 1, 1, true), nil
}

// scanner turns source text into tokens, one per call to Next.
type scanner struct {
	src       string
	file      string
	off       int
	line, col int  // of src[off]; col counts characters
	whole     bool // src is a whole file: a shebang is allowed at its start
	start     int  // offset of the file's first character (3 past a BOM)
	lastNL    bool // the previous token was a Newline, so line feeds collapse
	comments  bool // also yield plain comments and the shebang (Scan)
	badUTF8   int  // offset of the first byte that is not UTF-8, or -1
	// commentAt is where each `//` and `/*` comment (doc comments too)
	// starts, in order.
	commentAt []Pos
}

func newScanner(file, src string, line, col int, whole bool) *scanner {
	s := &scanner{src: src, file: file, line: line, col: col, whole: whole, lastNL: true, badUTF8: -1}
	if !utf8.ValidString(src) {
		s.badUTF8 = firstInvalidUTF8(src)
	}
	if whole && strings.HasPrefix(src, "\uFEFF") {
		s.off, s.start = 3, 3
	}
	return s
}

func (s *scanner) pos() lexer.Position {
	return lexer.Position{Filename: s.file, Offset: s.off, Line: s.line, Column: s.col}
}

func (s *scanner) errorf(p lexer.Position, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...) + fmt.Sprintf(" at %d:%d", p.Line, p.Column)
	return &diag.Error{File: s.file, Line: p.Line, Col: p.Column, Msg: msg, Golden: msg, Phase: diag.PhaseLex}
}

// unexpected is the error for a character no token starts with, at the
// scanner's position, with a hint for the characters other languages
// give a meaning Harn spells differently.
func (s *scanner) unexpected(p lexer.Position) error {
	return withHelp(s.errorf(p, "Unexpected character %s", quoteChar(s.src[s.off:])), charHints[s.src[s.off]])
}

// withHelp adds a help line to a lexer error.
func withHelp(err error, help string) error {
	err.(*diag.Error).Help = help
	return err
}

var charHints = map[byte]string{
	'\'': "strings are written in double quotes (`\"text\"`)",
	'`':  "strings are written in double quotes (`\"text\"`), or as raw strings (`r\"text\"`)",
	'#':  "comments start with `//` (`#` is allowed only in a `#!` line at the very start of the file)",
	'\\': "a backslash outside a string may only end a line, to continue it on the next",
	'$':  "`${…}` interpolates only inside a string (`\"${name}\"`)",
}

// advance moves past one character.
func (s *scanner) advance() {
	c := s.src[s.off]
	switch {
	case c == '\n':
		s.off++
		s.line++
		s.col = 1
	case c < utf8.RuneSelf:
		s.off++
		s.col++
	default:
		_, n := utf8.DecodeRuneInString(s.src[s.off:])
		s.off += n
		s.col++
	}
}

func (s *scanner) peekByte(k int) byte {
	if s.off+k < len(s.src) {
		return s.src[s.off+k]
	}
	return 0
}

func (s *scanner) token(typ lexer.TokenType, start lexer.Position) lexer.Token {
	s.lastNL = typ == tNewline
	return lexer.Token{Type: typ, Value: s.src[start.Offset:s.off], Pos: start}
}

// firstInvalidUTF8 is the offset of the first byte of src that does not
// start a valid UTF-8 sequence.
func firstInvalidUTF8(src string) int {
	for off := 0; off < len(src); {
		r, n := utf8.DecodeRuneInString(src[off:])
		if r == utf8.RuneError && n <= 1 {
			return off
		}
		off += n
	}
	return -1
}

// invalidUTF8 is the error for a source that is not UTF-8, at its first
// bad byte: Harn source is UTF-8 text, and a string literal holding a
// stray byte would otherwise reach the program as U+FFFD.
func (s *scanner) invalidUTF8() error {
	for s.off < s.badUTF8 {
		s.advance()
	}
	return s.errorf(s.pos(), "Invalid UTF-8 byte %s in source", quoteChar(s.src[s.off:]))
}

func (s *scanner) Next() (lexer.Token, error) {
	if s.badUTF8 >= 0 {
		return lexer.Token{}, s.invalidUTF8()
	}
	for s.off < len(s.src) {
		c := s.src[s.off]
		start := s.pos()
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			s.off++
			s.col++
		case c == '\n':
			s.advance()
			if !s.lastNL {
				s.lastNL = true
				return lexer.Token{Type: tNewline, Value: "\n", Pos: start}, nil
			}
		case c == '#' && s.off == s.start && s.whole && s.peekByte(1) == '!':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.advance()
			}
			if s.comments {
				return s.token(tComment, start), nil
			}
		case c == '\\':
			switch {
			case s.peekByte(1) == '\n':
				s.advance()
				s.advance()
			case s.peekByte(1) == '\r' && s.peekByte(2) == '\n':
				s.advance()
				s.advance()
				s.advance()
			default:
				return lexer.Token{}, s.unexpected(start)
			}
		case c == '/' && s.peekByte(1) == '/':
			s.commentAt = append(s.commentAt, Pos{Line: start.Line, Col: start.Column})
			if tok, ok := s.lineComment(start); ok {
				return tok, nil
			} else if s.comments {
				return s.token(tComment, start), nil
			}
		case c == '/' && s.peekByte(1) == '*':
			s.commentAt = append(s.commentAt, Pos{Line: start.Line, Col: start.Column})
			tok, ok, err := s.blockComment(start)
			if err != nil {
				return lexer.Token{}, err
			}
			if ok {
				return tok, nil
			} else if s.comments {
				return s.token(tComment, start), nil
			}
		case c == '"':
			return s.str(start)
		case c == 'r' && (s.peekByte(1) == '"' || s.peekByte(1) == '#' && s.rawHashes() >= 0):
			return s.raw(start)
		case c >= '0' && c <= '9':
			return s.number(start)
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			return s.ident(start), nil
		case c >= utf8.RuneSelf:
			r, _ := utf8.DecodeRuneInString(s.src[s.off:])
			if isIdentStart(r) {
				return s.ident(start), nil
			}
			return lexer.Token{}, s.unexpected(start)
		default:
			if n := punctLen(s.src[s.off:]); n > 0 {
				s.off += n
				s.col += n
				return s.token(tPunct, start), nil
			}
			return lexer.Token{}, s.unexpected(start)
		}
	}
	s.lastNL = false
	return lexer.EOFToken(s.pos()), nil
}

// quoteChar quotes the character src starts with for an error message:
// as itself when it prints, escaped when it is a control character or
// not UTF-8 (a binary file), so the message never carries raw control
// bytes to the terminal.
func quoteChar(src string) string {
	r, n := utf8.DecodeRuneInString(src)
	switch {
	case r == utf8.RuneError && n <= 1:
		return fmt.Sprintf("'\\x%02x'", src[0])
	case unicode.IsPrint(r):
		return "'" + string(r) + "'"
	}
	return strconv.QuoteRune(r)
}

// all scans the whole source.
func (s *scanner) all() ([]lexer.Token, *diag.Error) {
	toks := make([]lexer.Token, 0, (len(s.src)-s.off)/3+8)
	for {
		t, err := s.Next()
		if err != nil {
			return nil, err.(*diag.Error)
		}
		toks = append(toks, t)
		if t.Type == tEOF {
			return toks, nil
		}
	}
}

// punctLen is the length of the operator or punctuation at the start of
// src (longest match), or 0.
func punctLen(src string) int {
	if len(src) >= 2 {
		switch src[:2] {
		case "==", "!=", "&&", "||", "|>", "??", "**", "?.", "->", "<=", ">=", "+=", "-=", "*=", "/=", "%=":
			return 2
		}
	}
	switch src[0] {
	case '=', '!', '.', '+', '-', '*', '/', '%', '<', '>', '?', '|', '@', '{', '}', '(', ')', '[', ']', ',', ':', ';', '&':
		return 1
	}
	return 0
}

// lineComment skips a `//` comment. A `///` comment is a doc comment;
// consecutive `///` lines form one Doc token.
func (s *scanner) lineComment(start lexer.Position) (lexer.Token, bool) {
	doc := isLineDoc(s.src[s.off:])
	s.skipLine()
	if !doc {
		return lexer.Token{}, false
	}
	for {
		// Look past the line feed and indentation for another `///` line.
		i := s.off
		if i < len(s.src) && s.src[i] == '\n' {
			i++
		} else {
			break
		}
		for i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t' || s.src[i] == '\r') {
			i++
		}
		if !isLineDoc(s.src[i:]) {
			break
		}
		for s.off < i {
			s.advance()
		}
		s.skipLine()
	}
	return s.token(tDoc, start), true
}

func isLineDoc(src string) bool {
	return strings.HasPrefix(src, "///") && !strings.HasPrefix(src, "////")
}

func (s *scanner) skipLine() {
	for s.off < len(s.src) && s.src[s.off] != '\n' {
		s.advance()
	}
}

// blockComment skips a nesting `/* */` comment; `/** */` first on its
// line is a doc comment (after code on the same line it is a trailing
// comment, which `harn fmt` keeps on that line).
func (s *scanner) blockComment(start lexer.Position) (lexer.Token, bool, error) {
	rest := s.src[s.off:]
	doc := strings.HasPrefix(rest, "/**") && !strings.HasPrefix(rest, "/**/") && !strings.HasPrefix(rest, "/***") &&
		strings.TrimLeft(s.src[strings.LastIndexByte(s.src[:s.off], '\n')+1:s.off], " \t\r") == ""
	s.off += 2
	s.col += 2
	depth := 1
	for depth > 0 {
		if s.off >= len(s.src) {
			return lexer.Token{}, false, s.errorf(start, "Unterminated block comment")
		}
		switch {
		case s.src[s.off] == '/' && s.peekByte(1) == '*':
			depth++
			s.off += 2
			s.col += 2
		case s.src[s.off] == '*' && s.peekByte(1) == '/':
			depth--
			s.off += 2
			s.col += 2
		default:
			s.advance()
		}
	}
	if !doc {
		return lexer.Token{}, false, nil
	}
	return s.token(tDoc, start), true, nil
}

// str scans a plain or triple-quoted string. Interpolations are only
// delimited here (by brace counting, quotes ignored); the parser splits and
// parses them.
func (s *scanner) str(start lexer.Position) (lexer.Token, error) {
	if strings.HasPrefix(s.src[s.off:], `"""`) {
		return s.tripleStr(start)
	}
	s.advance()
	typ := tString
	for {
		if s.off >= len(s.src) || s.src[s.off] == '\n' {
			return lexer.Token{}, s.errorf(start, "Unterminated string")
		}
		switch c := s.src[s.off]; {
		case c == '"':
			s.advance()
			return s.token(typ, start), nil
		case c == '\\':
			s.advance()
			if s.off < len(s.src) && s.src[s.off] != '\n' {
				s.advance()
			}
		case c == '$' && s.peekByte(1) == '{':
			typ = tInterp
			if err := s.interpolation(start); err != nil {
				return lexer.Token{}, err
			}
		default:
			s.advance()
		}
	}
}

func (s *scanner) tripleStr(start lexer.Position) (lexer.Token, error) {
	s.off += 3
	s.col += 3
	typ := tString
	for {
		rest := s.src[s.off:]
		switch {
		case rest == "":
			return lexer.Token{}, s.errorf(start, "Unterminated string")
		case strings.HasPrefix(rest, `"""`):
			s.off += 3
			s.col += 3
			return s.token(typ, start), nil
		case strings.HasPrefix(rest, `\${`):
			s.off += 3
			s.col += 3
		case strings.HasPrefix(rest, "${"):
			typ = tInterp
			if err := s.interpolation(start); err != nil {
				return lexer.Token{}, err
			}
		default:
			s.advance()
		}
	}
}

// interpolation skips `${ … }` up to the balancing brace (holeEnd).
func (s *scanner) interpolation(strStart lexer.Position) error {
	s.off += 2
	s.col += 2
	from := s.off
	end, bad := holeEnd(s.src, s.off)
	stop := end
	if bad >= 0 {
		stop = bad
	} else if end < 0 {
		return s.errorf(strStart, "Unterminated string")
	}
	for s.off < stop {
		s.advance()
	}
	switch {
	case bad >= 0:
		return withHelp(s.errorf(s.pos(), "Unexpected character '\\'"),
			"a `${…}` hole holds code, where a nested string needs no backslashes: `\"${f(\"x\")}\"`")
	case strings.TrimSpace(s.src[from:s.off]) == "":
		return withHelp(s.errorf(s.pos(), "Unexpected character '}'"),
			"an interpolation needs an expression between `${` and `}`; for a literal `${` write `\\${`")
	}
	s.advance()
	return nil
}

// rawHashes counts the `#` after an `r` that open a raw string, or -1 when
// they are not followed by a quote.
func (s *scanner) rawHashes() int {
	n := 0
	for s.peekByte(1+n) == '#' {
		n++
	}
	if s.peekByte(1+n) != '"' {
		return -1
	}
	return n
}

func (s *scanner) raw(start lexer.Position) (lexer.Token, error) {
	hashes := s.rawHashes()
	s.off += 2 + hashes
	s.col += 2 + hashes
	closing := `"` + strings.Repeat("#", hashes)
	for {
		if s.off >= len(s.src) || (hashes == 0 && s.src[s.off] == '\n') {
			return lexer.Token{}, s.errorf(start, "Unterminated string")
		}
		if strings.HasPrefix(s.src[s.off:], closing) {
			s.off += len(closing)
			s.col += len(closing)
			return s.token(tRaw, start), nil
		}
		s.advance()
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) number(start lexer.Position) (lexer.Token, error) {
	for s.off < len(s.src) && isDigit(s.src[s.off]) {
		s.off++
		s.col++
	}
	if s.peekByte(0) == '.' && isDigit(s.peekByte(1)) {
		s.off++
		s.col++
		for s.off < len(s.src) && isDigit(s.src[s.off]) {
			s.off++
			s.col++
		}
		return s.token(tFloat, start), nil
	}
	if n := s.durationUnitLen(); n > 0 {
		s.off += n
		s.col += n
		return s.token(tDuration, start), nil
	}
	digits := s.src[start.Offset:s.off]
	if _, err := strconv.ParseInt(digits, 10, 64); err != nil {
		return lexer.Token{}, s.errorf(start, "Integer literal `%s` is out of range for int (i64)", digits)
	}
	return s.token(tInt, start), nil
}

// durationUnitLen is the length of the duration unit at src[off], or 0
// where none is. A unit ends at an identifier boundary
// (docs/spec/newer.md §1.13): `5m` and `5ms` are durations, `5min` is
// not.
func (s *scanner) durationUnitLen() int {
	rest := s.src[s.off:]
	for _, u := range DurationUnits {
		if strings.HasPrefix(rest, u.Suffix) && !s.wordCharAt(s.off+len(u.Suffix)) {
			return len(u.Suffix)
		}
	}
	return 0
}

// wordCharAt reports whether src[i] continues an identifier.
func (s *scanner) wordCharAt(i int) bool {
	return i < len(s.src) && (s.src[i] == '_' || s.letterOrDigitAt(i))
}

func (s *scanner) letterOrDigitAt(i int) bool {
	if i >= len(s.src) {
		return false
	}
	c := s.src[i]
	if c < utf8.RuneSelf {
		return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	r, _ := utf8.DecodeRuneInString(s.src[i:])
	return isIdentPart(r)
}

// isIdentStart reports whether r may start an identifier: a Unicode
// alphabetic character (the Alphabetic property, as upstream's
// char::is_alphabetic: letters, letter numbers such as 'Ⅻ' and the
// other alphabetic marks such as Devanagari vowel signs) — '_' and ASCII
// letters are handled by the caller (docs/spec/language.md §1.3).
func isIdentStart(r rune) bool {
	return unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.Other_Alphabetic)
}

// isIdentPart reports whether r may continue an identifier: alphabetic or
// numeric (any number category, as char::is_alphanumeric).
func isIdentPart(r rune) bool {
	return isIdentStart(r) || unicode.IsNumber(r)
}

// IsIdentChar reports whether r may stand inside an identifier ('_',
// alphabetic or numeric), for tools that find a word in source text.
func IsIdentChar(r rune) bool { return r == '_' || isIdentPart(r) }

func (s *scanner) ident(start lexer.Position) lexer.Token {
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			s.off++
			s.col++
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeRuneInString(s.src[s.off:])
		if !isIdentPart(r) {
			break
		}
		s.off += n
		s.col++
	}
	if IsKeyword(s.src[start.Offset:s.off]) {
		return s.token(tKeyword, start)
	}
	return s.token(tIdent, start)
}

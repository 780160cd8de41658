package syntax

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/harnlang/harn/lang/diag"
)

// This file exposes the scanner's token stream, comments included, to
// tools that work on source text rather than on the tree alone: the
// formatter places comments by position and copies literals as written,
// the language server colours tokens. The parser never sees comment
// tokens.

// TokenKind classifies a scanned token.
type TokenKind int

const (
	TokEOF      TokenKind = iota
	TokIdent              // identifier (including contextual words such as `as`)
	TokKeyword            // reserved word
	TokInt                // integer literal
	TokFloat              // float literal
	TokDuration           // duration literal
	TokString             // "…" or """…""" without interpolation
	TokRaw                // r"…" or r#"…"#
	TokInterp             // string with ${…}
	TokPunct              // operator or punctuation
	TokNewline            // one per run of line feeds
	TokComment            // `//…`, `/*…*/` or the shebang line
	TokDoc                // `///…` lines or `/**…*/`
)

// Token is one token with its source text as written.
type Token struct {
	Kind   TokenKind
	Text   string
	Pos    Pos
	Offset int // byte offset of the first character
}

// End is the position just after the token's last character.
func (t Token) End() Pos {
	if i := strings.LastIndexByte(t.Text, '\n'); i >= 0 {
		return Pos{Line: t.Pos.Line + strings.Count(t.Text, "\n"), Col: 1 + len([]rune(t.Text[i+1:]))}
	}
	return Pos{Line: t.Pos.Line, Col: t.Pos.Col + len([]rune(t.Text))}
}

// Scan returns every token of a whole file, comments included, ending with
// TokEOF. The error is the lexer error Parse would report.
func Scan(path string, src []byte) ([]Token, error) {
	sc := newScanner(path, string(src), 1, 1, true)
	sc.comments = true
	out := make([]Token, 0, len(src)/3+8)
	for {
		t, err := sc.Next()
		if err != nil {
			de := err.(*diag.Error)
			de.File = path
			return nil, de
		}
		out = append(out, Token{Kind: kindOf[t.Type], Text: t.Value, Pos: at(t.Pos), Offset: t.Pos.Offset})
		if t.Type == tEOF {
			return out, nil
		}
	}
}

var kindOf = map[lexer.TokenType]TokenKind{
	tEOF: TokEOF, tIdent: TokIdent, tKeyword: TokKeyword, tInt: TokInt,
	tFloat: TokFloat, tDuration: TokDuration, tString: TokString, tRaw: TokRaw,
	tInterp: TokInterp, tPunct: TokPunct, tNewline: TokNewline, tComment: TokComment,
	tDoc: TokDoc,
}

// Where is the kind of text an offset of a source lies in.
type Where int

const (
	InCode    Where = iota
	InComment       // a line, block or doc comment (or the shebang line)
	InString        // a string literal, outside its ${…} holes
)

// WhereAt tells whether offset off of src lies in code, in a comment or in
// a string literal, for tools that act on text as it is typed (the
// language server's completion): a comment or string the text does not
// terminate yet counts, and the inside of a `${…}` hole is code. start is
// the offset of the comment or string. A lexical error before off (a
// stray character) makes the answer InCode.
func WhereAt(src string, off int) (w Where, start int) {
	if off > len(src) {
		off = len(src)
	}
	prefix := src[:off]
	sc := newScanner("", prefix, 1, 1, true)
	sc.comments = true
	for {
		t, err := sc.Next()
		if err != nil {
			de, _ := err.(*diag.Error)
			if de == nil {
				return InCode, 0
			}
			start := offsetAt(prefix, de.Line, de.Col)
			switch {
			case strings.HasPrefix(de.Msg, "Unterminated block comment"):
				return InComment, start
			case strings.HasPrefix(de.Msg, "Unterminated string") && !inOpenHole(prefix, start):
				return InString, start
			}
			return InCode, 0
		}
		if t.Type == tEOF {
			return InCode, 0
		}
		if t.Pos.Offset+len(t.Value) < off {
			continue
		}
		// The token reaches the cursor: a line comment goes on to the end
		// of its line; a closed block comment or string is behind it.
		if (t.Type == tComment || t.Type == tDoc) && !strings.HasPrefix(t.Value, "/*") {
			return InComment, t.Pos.Offset
		}
		return InCode, 0
	}
}

// offsetAt converts a line and column (in characters) of src to a byte
// offset.
func offsetAt(src string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(src); c++ {
		_, n := utf8.DecodeRuneInString(src[off:])
		off += n
	}
	return off
}

// inOpenHole reports whether the unterminated string literal starting at
// src[start] ends inside a `${…}` hole (raw strings have none).
func inOpenHole(src string, start int) bool {
	i := start + 1
	triple := strings.HasPrefix(src[start:], `"""`)
	switch {
	case triple:
		i = start + 3
	case src[start] != '"':
		return false
	}
	for i < len(src) {
		switch {
		case triple && strings.HasPrefix(src[i:], `\${`):
			i += 3
		case !triple && src[i] == '\\':
			i += 2
		case strings.HasPrefix(src[i:], "${"):
			end, _ := holeEnd(src, i+2)
			if end < 0 {
				return true
			}
			i = end + 1
		default:
			i++
		}
	}
	return false
}

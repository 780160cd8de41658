package syntax

import (
	"strings"

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

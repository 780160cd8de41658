package lsp

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/harnlang/harn/lang/syntax"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Positions. The tree counts lines from 1 and columns in characters from
// 1; the protocol counts both from 0 and columns in UTF-16 code units.

// splitLines splits text into lines without their line feeds.
func splitLines(text string) []string {
	return strings.Split(text, "\n")
}

// toPosition converts a tree position.
func toPosition(lines []string, p syntax.Pos) protocol.Position {
	line := p.Line - 1
	if line < 0 {
		return protocol.Position{}
	}
	if line >= len(lines) {
		return protocol.Position{Line: protocol.UInteger(len(lines)), Character: 0}
	}
	units, col := 0, 1
	for _, r := range lines[line] {
		if col >= p.Col {
			break
		}
		units += utf16.RuneLen(r)
		col++
	}
	if col < p.Col {
		units += p.Col - col // past the end of the line
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(units)}
}

// lineCursor converts tree positions that come in order, as the tokens of
// a document do: it resumes from the last position converted on the same
// line instead of scanning the line from its start, so converting every
// token of a line costs one pass over the line (toPosition per token would
// cost a pass per token: quadratic in the length of a long line).
type lineCursor struct {
	lines []string
	line  int // index of the line of the last position, -1 before the first
	col   int // its column (from 1)
	units int // its UTF-16 column
	off   int // its byte offset in the line
	steps int // characters scanned so far (tests pin linearity with it)
}

func newLineCursor(lines []string) *lineCursor { return &lineCursor{lines: lines, line: -1} }

// position is toPosition(c.lines, p).
func (c *lineCursor) position(p syntax.Pos) protocol.Position {
	line := p.Line - 1
	if line < 0 || line >= len(c.lines) {
		return toPosition(c.lines, p)
	}
	if line != c.line || p.Col < c.col {
		c.line, c.col, c.units, c.off = line, 1, 0, 0
	}
	text := c.lines[line]
	for c.col < p.Col && c.off < len(text) {
		r, n := utf8.DecodeRuneInString(text[c.off:])
		c.units += utf16.RuneLen(r)
		c.off += n
		c.col++
		c.steps++
	}
	units := c.units
	if c.col < p.Col {
		units += p.Col - c.col // past the end of the line
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(units)}
}

// fromPosition converts a protocol position.
func fromPosition(lines []string, p protocol.Position) syntax.Pos {
	line := int(p.Line)
	if line >= len(lines) {
		return syntax.Pos{Line: line + 1, Col: 1}
	}
	units, col := 0, 1
	for _, r := range lines[line] {
		if units >= int(p.Character) {
			break
		}
		units += utf16.RuneLen(r)
		col++
	}
	return syntax.Pos{Line: line + 1, Col: col}
}

// offsetOf is the byte offset of a protocol position.
func offsetOf(lines []string, p protocol.Position) int {
	off := 0
	for i := 0; i < int(p.Line) && i < len(lines); i++ {
		off += len(lines[i]) + 1
	}
	if int(p.Line) >= len(lines) {
		return max(off-1, 0)
	}
	units := 0
	for i, r := range lines[p.Line] {
		if units >= int(p.Character) {
			return off + i
		}
		units += utf16.RuneLen(r)
	}
	return off + len(lines[p.Line])
}

// rangeOf is the range of n characters from p on one line.
func rangeOf(lines []string, p syntax.Pos, n int) protocol.Range {
	return protocol.Range{Start: toPosition(lines, p), End: toPosition(lines, syntax.Pos{Line: p.Line, Col: p.Col + n})}
}

// wordRange covers the identifier or number starting at p (at least one
// character).
func wordRange(lines []string, p syntax.Pos) protocol.Range {
	n := 1
	if p.Line-1 < len(lines) {
		line := []rune(lines[p.Line-1])
		i := p.Col - 1
		j := i
		for j < len(line) && syntax.IsIdentChar(line[j]) {
			j++
		}
		if j > i {
			n = j - i
		}
	}
	return rangeOf(lines, p, n)
}

// wholeRange covers a whole text.
func wholeRange(text string) protocol.Range {
	lines := splitLines(text)
	last := lines[len(lines)-1]
	return protocol.Range{End: protocol.Position{Line: protocol.UInteger(len(lines) - 1),
		Character: protocol.UInteger(len(utf16.Encode([]rune(last))))}}
}

// tokenAt is the index of the token containing p, or -1.
func tokenAt(toks []syntax.Token, p syntax.Pos) int {
	for i, t := range toks {
		if t.Kind == syntax.TokEOF {
			break
		}
		end := t.End()
		if !before(p, t.Pos) && before(p, end) {
			return i
		}
	}
	return -1
}

// identAtCursor is the identifier token under or just before the cursor.
func identAtCursor(toks []syntax.Token, p syntax.Pos) (syntax.Token, bool) {
	if i := tokenAt(toks, p); i >= 0 && (toks[i].Kind == syntax.TokIdent) {
		return toks[i], true
	}
	if p.Col > 1 {
		if i := tokenAt(toks, syntax.Pos{Line: p.Line, Col: p.Col - 1}); i >= 0 && toks[i].Kind == syntax.TokIdent {
			return toks[i], true
		}
	}
	return syntax.Token{}, false
}

// before reports whether a comes before b in the file.
func before(a, b syntax.Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// Package diag owns user-facing diagnostics for source programs: one
// positioned error type shared by the lexer, parser, resolver, checker and
// compiler, the caret rendering every one of them uses, and the spelling
// suggestions behind "did you mean".
package diag

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Severity distinguishes errors from warnings.
type Severity int

const (
	SevError Severity = iota
	SevWarning
)

// Phase names the stage that produced a diagnostic. It decides how the
// message is phrased in the upstream golden form (docs/spec/language.md §12.4).
type Phase int

const (
	PhaseLex Phase = iota
	PhaseParse
	PhaseStatic  // resolver and checker
	PhaseCompile // break/continue outside a loop, try* at top level
)

// Error is a diagnostic anchored at a source position.
type Error struct {
	File     string
	Line     int // 1-based; 0 when unknown
	Col      int // 1-based, in characters; 0 when unknown
	Msg      string
	Help     string // optional help line
	Code     string // optional code such as HARN-NAM-101
	Phase    Phase
	Severity Severity
	// Golden is the message in upstream's unreworded form, when it differs
	// from Msg (for example parse errors carry " at L:C"). Empty means Msg.
	Golden string
	// Notes are secondary locations, possibly in other files (where an
	// imported name is declared). Render leaves them out; RenderWithNotes
	// includes them.
	Notes []*Error
}

func (e *Error) Error() string {
	if e.File != "" && e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

// GoldenText is the message as upstream's golden-output runner sees it.
func (e *Error) GoldenText() string {
	if e.Golden != "" {
		return e.Golden
	}
	if e.Phase == PhaseCompile {
		return fmt.Sprintf("Compile error at line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// List is several diagnostics, in the order they were found.
type List []*Error

// SortByPosition orders the diagnostics by line and column, keeping the
// order of those at one position.
func (l List) SortByPosition() {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Col < l[j].Col
	})
}

func (l List) Error() string {
	var sb strings.Builder
	for i, e := range l {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(e.Error())
	}
	return sb.String()
}

// Render writes the diagnostic the way `harn` prints it, its code (when it
// has one) in brackets after the severity (docs/spec/newer.md §3.1):
//
//	error[HARN-TYP-007]: message
//	  --> file:line:col
//	   |
//	 3 | let x = 1 +
//	   |           ^
//	   = help: ...
//
// src is the file's text (may be nil when unavailable).
func Render(e *Error, src []byte) string {
	var sb strings.Builder
	sb.WriteString(label(e))
	sb.WriteString(": ")
	if e.Phase == PhaseCompile && e.Severity == SevError {
		// `compile error: Compile error at line N: <message>`
		// (docs/spec/language.md §12.2)
		sb.WriteString("compile error: ")
		sb.WriteString(e.GoldenText())
	} else {
		sb.WriteString(e.Msg)
	}
	sb.WriteByte('\n')
	sb.WriteString(RenderLocation(e, src))
	if e.Help != "" {
		fmt.Fprintf(&sb, "  = help: %s\n", e.Help)
	}
	return sb.String()
}

// label is the head of a rendered diagnostic before ": ": the severity,
// then the code in brackets when there is one (`warning`,
// `error[HARN-NAM-002]`).
func label(e *Error) string {
	s := "error"
	if e.Severity == SevWarning {
		s = "warning"
	}
	if e.Code != "" {
		s += "[" + e.Code + "]"
	}
	return s
}

// TrimLabel removes a leading rendered label ("error: ",
// "warning[HARN-OWN-001]: ") from a line of rendered output, for callers
// that show the message without it.
func TrimLabel(line string) string {
	for _, sev := range []string{"error", "warning"} {
		rest, ok := strings.CutPrefix(line, sev)
		if !ok {
			continue
		}
		if code, after, ok := strings.Cut(rest, "]: "); ok && strings.HasPrefix(code, "[") && !strings.ContainsAny(code, " \n") {
			return after
		}
		if after, ok := strings.CutPrefix(rest, ": "); ok {
			return after
		}
	}
	return line
}

// RenderWithNotes renders e and then each of its notes ("note: msg" and
// its location); source returns a file's text (nil when unavailable).
func RenderWithNotes(e *Error, source func(file string) []byte) string {
	var sb strings.Builder
	sb.WriteString(Render(e, source(e.File)))
	for _, n := range e.Notes {
		fmt.Fprintf(&sb, "note: %s\n", n.Msg)
		if n.Line > 0 {
			sb.WriteString(RenderLocation(n, source(n.File)))
		} else if n.File != "" {
			fmt.Fprintf(&sb, "  --> %s\n", n.File)
		}
	}
	return sb.String()
}

// RenderLocation renders the "--> file:line:col" line, the source line and
// the caret under the column (empty when the position is unknown).
func RenderLocation(e *Error, src []byte) string {
	var sb strings.Builder
	if e.File != "" && e.Line > 0 {
		fmt.Fprintf(&sb, "  --> %s:%d:%d\n", e.File, e.Line, e.Col)
		if line, ok := sourceLine(src, e.Line); ok {
			num := fmt.Sprint(e.Line)
			pad := strings.Repeat(" ", len(num))
			col := e.Col
			if col < 1 {
				col = 1
			}
			line, col = clip(visible(line), col)
			fmt.Fprintf(&sb, "%s |\n", pad)
			fmt.Fprintf(&sb, "%s | %s\n", num, line)
			fmt.Fprintf(&sb, "%s | %s^\n", pad, caretIndent(line, col))
		}
	}
	return sb.String()
}

// maxShownLine is the widest source line a snippet shows in full; a
// longer one (minified or generated code) is clipped to a window around
// the column, marked with "…" on the clipped sides.
const maxShownLine = 160

// clip cuts a long line to a window around col and returns the window and
// the column inside it. Widths are terminal columns (columnWidth), so a
// line of CJK text is clipped as soon as it would overflow, not only at
// twice the width.
func clip(line string, col int) (string, int) {
	runes := []rune(line)
	width := 0
	for _, r := range runes {
		width += columnWidth(r)
	}
	if width <= maxShownLine {
		return line, col
	}
	at := min(max(col-1, 0), len(runes)) // index of the rune under the caret
	start, used := at, 0
	for start > 0 && used+columnWidth(runes[start-1]) <= maxShownLine/2 {
		start--
		used += columnWidth(runes[start])
	}
	end := at
	for end < len(runes) && used+columnWidth(runes[end]) <= maxShownLine {
		used += columnWidth(runes[end])
		end++
	}
	for start > 0 && used+columnWidth(runes[start-1]) <= maxShownLine {
		start--
		used += columnWidth(runes[start])
	}
	out := string(runes[start:end])
	col -= start
	if start > 0 {
		out = "…" + out
		col++
	}
	if end < len(runes) {
		out += "…"
	}
	return out, col
}

// columnWidth is the number of terminal columns r takes (a tab counts one).
func columnWidth(r rune) int {
	switch {
	case isWide(r):
		return 2
	case isZeroWidth(r):
		return 0
	}
	return 1
}

// visible makes a source line safe to print: control characters other
// than tab become their Unicode pictures (U+2400 onwards) and bytes that
// are not UTF-8 become U+FFFD, one rune for one, so the caret still lines
// up and a binary file or an escape sequence never reaches the terminal.
func visible(line string) string {
	clean := true
	for _, r := range line {
		if r == utf8.RuneError || r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 {
			clean = false
			break
		}
	}
	if clean {
		return line
	}
	var sb strings.Builder
	for _, r := range line {
		switch {
		case r == '\t':
		case r < 0x20:
			r += 0x2400
		case r == 0x7f:
			r = 0x2421
		case r > 0x7f && r < 0xa0:
			r = utf8.RuneError
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// sourceLine returns line n (1-based) of src without its line ending.
func sourceLine(src []byte, n int) (string, bool) {
	if src == nil || n < 1 {
		return "", false
	}
	lines := strings.Split(string(src), "\n")
	if n > len(lines) {
		return "", false
	}
	return strings.TrimRight(lines[n-1], "\r"), true
}

// caretIndent reproduces the whitespace before column col (tabs kept as
// tabs so the caret lines up in a terminal): one space per character,
// two for an East Asian wide or fullwidth one (CJK, most emoji), which a
// terminal shows two columns wide, none for a combining mark or a
// zero-width format character, which a terminal draws over the character
// before it or not at all. col counts characters, as the reported column
// does.
func caretIndent(line string, col int) string {
	var sb strings.Builder
	i := 1
	for _, r := range line {
		if i >= col {
			break
		}
		switch {
		case r == '\t':
			sb.WriteByte('\t')
		case isWide(r):
			sb.WriteString("  ")
		case isZeroWidth(r):
		default:
			sb.WriteByte(' ')
		}
		i++
	}
	for ; i < col; i++ {
		sb.WriteByte(' ')
	}
	return sb.String()
}

// isZeroWidth reports whether a terminal shows r in no column of its own:
// a combining mark (the accent of a decomposed "é") or an invisible
// format character (zero-width space and joiner, byte-order mark); the
// soft hyphen, which terminals draw, is not one.
func isZeroWidth(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me) || unicode.Is(unicode.Cf, r) && r != '\u00ad'
}

// isWide reports whether a terminal shows r two columns wide.
func isWide(r rune) bool {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return true
	}
	return false
}

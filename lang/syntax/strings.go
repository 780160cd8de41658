package syntax

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// This file turns string tokens (which keep their source text) into values:
// escapes, raw strings, interpolation splitting and the triple-quoted
// dedent of docs/spec/language.md §1.7.

// hole is one `${…}` of an interpolated string: its text and where the
// text starts in the source.
type hole struct {
	text      string
	line, col int
}

// stringValue is the value of a string token without interpolation.
func stringValue(t *lexer.Token) string {
	v := t.Value
	switch {
	case t.Type == tRaw:
		hashes := strings.IndexByte(v, '"') - 1
		// A multi-line r#"…"# reads CRLF line ends as LF, as """…""" does.
		return strings.ReplaceAll(v[2+hashes:len(v)-1-hashes], "\r\n", "\n")
	case strings.HasPrefix(v, `"""`):
		segs, _ := splitTriple(t)
		return dedent(segs)[0]
	default:
		segs, _ := splitPlain(t)
		return segs[0]
	}
}

// splitString splits an interpolated string token into literal segments
// (one more than holes) with escapes and dedent applied.
func splitString(t *lexer.Token) ([]string, []hole) {
	if strings.HasPrefix(t.Value, `"""`) {
		segs, holes := splitTriple(t)
		return dedent(segs), holes
	}
	return splitPlain(t)
}

// walker steps through a token's source text keeping line and column.
type walker struct {
	s         string
	i         int
	line, col int
}

func (w *walker) step() {
	c := w.s[w.i]
	switch {
	case c == '\n':
		w.i++
		w.line++
		w.col = 1
	case c < utf8.RuneSelf:
		w.i++
		w.col++
	default:
		_, n := utf8.DecodeRuneInString(w.s[w.i:])
		w.i += n
		w.col++
	}
}

func (w *walker) skip(n int) {
	for end := w.i + n; w.i < end; {
		w.step()
	}
}

// hole reads `${ … }` at the walker's position. The scanner has already
// checked that the hole is well formed (holeEnd).
func (w *walker) hole() hole {
	w.skip(2)
	h := hole{line: w.line, col: w.col}
	from := w.i
	end, _ := holeEnd(w.s, w.i)
	if end < 0 {
		end = len(w.s)
	}
	for w.i < end {
		w.step()
	}
	h.text = w.s[from:w.i]
	if w.i < len(w.s) {
		w.step()
	}
	return h
}

// holeEnd finds the `}` that closes the interpolation hole whose text
// starts at src[i] (docs/spec/newer.md §1.8): braces are counted, but a `"` starts
// a nested string literal whose escapes, braces and own holes do not
// count. It returns the offset of the closing brace, or -1 when the hole
// is unterminated; bad is the offset of a backslash met in expression
// position (an error), else -1. Each byte is visited once.
func holeEnd(src string, i int) (end, bad int) {
	depth := 1
	for i < len(src) {
		switch src[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, -1
			}
		case '\\':
			return -1, i
		case '"':
			j, bad := nestedStringEnd(src, i+1)
			if j < 0 || bad >= 0 {
				return -1, bad
			}
			i = j
		}
		i++
	}
	return -1, -1
}

// nestedStringEnd finds the closing quote of a plain string literal inside
// an interpolation hole, its text starting at src[i].
func nestedStringEnd(src string, i int) (end, bad int) {
	for i < len(src) {
		switch src[i] {
		case '"':
			return i, -1
		case '\n':
			return -1, -1
		case '\\':
			i++
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				j, bad := holeEnd(src, i+2)
				if j < 0 {
					return -1, bad
				}
				i = j
			}
		}
		i++
	}
	return -1, -1
}

func splitPlain(t *lexer.Token) ([]string, []hole) {
	w := walker{s: t.Value[:len(t.Value)-1], line: t.Pos.Line, col: t.Pos.Column}
	w.step() // opening quote
	var segs []string
	var holes []hole
	var sb strings.Builder
	for w.i < len(w.s) {
		c := w.s[w.i]
		switch {
		case c == '\\' && w.i+1 < len(w.s):
			e := w.s[w.i+1]
			switch e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case '\\':
				sb.WriteByte('\\')
			case '"':
				sb.WriteByte('"')
			case '$':
				sb.WriteByte('$')
			case 'r':
				sb.WriteByte('\r')
			case '0':
				sb.WriteByte(0)
			default:
				w.step()
				from := w.i
				w.step()
				sb.WriteByte('\\')
				sb.WriteString(w.s[from:w.i])
				continue
			}
			w.skip(2)
		case c == '$' && w.i+1 < len(w.s) && w.s[w.i+1] == '{':
			segs = append(segs, sb.String())
			sb.Reset()
			holes = append(holes, w.hole())
		default:
			from := w.i
			w.step()
			sb.WriteString(w.s[from:w.i])
		}
	}
	return append(segs, sb.String()), holes
}

func splitTriple(t *lexer.Token) ([]string, []hole) {
	w := walker{s: t.Value[:len(t.Value)-3], line: t.Pos.Line, col: t.Pos.Column}
	w.skip(3)
	if strings.HasPrefix(w.s[w.i:], "\n") {
		w.step()
	} else if strings.HasPrefix(w.s[w.i:], "\r\n") {
		w.skip(2)
	}
	var segs []string
	var holes []hole
	var sb strings.Builder
	for w.i < len(w.s) {
		rest := w.s[w.i:]
		switch {
		case strings.HasPrefix(rest, `\${`):
			sb.WriteString("${")
			w.skip(3)
		case strings.HasPrefix(rest, "${"):
			segs = append(segs, sb.String())
			sb.Reset()
			holes = append(holes, w.hole())
		case strings.HasPrefix(rest, "\r\n"):
			// A file saved with CRLF line ends gives the same text as one
			// with LF ends, as the rest of the lexer treats them alike.
			sb.WriteByte('\n')
			w.skip(2)
		default:
			from := w.i
			w.step()
			sb.WriteString(w.s[from:w.i])
		}
	}
	return append(segs, sb.String()), holes
}

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

func indentOf(line string) int {
	n := 0
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	return n
}

// dedent applies the triple-quoted string rules of docs/spec/language.md §1.7 to the
// literal segments (holes sit between them).
func dedent(segs []string) []string {
	k := -1
	for _, line := range strings.Split(strings.Join(segs, ""), "\n") {
		if !isBlank(line) {
			if n := indentOf(line); k < 0 || n < k {
				k = n
			}
		}
	}
	if len(segs) == 1 {
		text := segs[0]
		switch {
		case k < 0:
			return segs
		case k == 0:
			return []string{strings.TrimSuffix(text, "\n")}
		}
		lines := strings.Split(text, "\n")
		for i, line := range lines {
			if isBlank(line) {
				lines[i] = ""
			} else {
				lines[i] = line[k:]
			}
		}
		return []string{strings.TrimSuffix(strings.Join(lines, "\n"), "\n")}
	}
	out := make([]string, len(segs))
	copy(out, segs)
	if k <= 0 {
		if last := len(out) - 1; isBlank(out[last]) {
			out[last] = ""
		}
		return out
	}
	for i, seg := range out {
		pieces := strings.Split(seg, "\n")
		for j, p := range pieces {
			if isBlank(p) {
				pieces[j] = ""
			} else {
				pieces[j] = p[min(k, indentOf(p)):]
			}
		}
		out[i] = strings.TrimSuffix(strings.Join(pieces, "\n"), "\n")
	}
	return out
}

// docText strips comment markers from a Doc token: `///` runs and
// `/** */` blocks lose their markers, leading `*` and surrounding spaces.
func docText(raw string) string {
	block := strings.HasPrefix(raw, "/**")
	if block {
		raw = strings.TrimSuffix(strings.TrimPrefix(raw, "/**"), "*/")
	}
	lines := strings.Split(raw, "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if block {
			line = strings.TrimSpace(strings.TrimPrefix(line, "*"))
		} else {
			line = strings.TrimSpace(strings.TrimPrefix(line, "///"))
		}
		lines[i] = line
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

package repl

import (
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// Incomplete reports whether src, the lines of an entry typed so far,
// needs more lines: a bracket, a triple-quoted string, an interpolation or
// a block comment is still open, or the last line ends with a backslash
// (docs/spec/language.md §1.1), a binary operator or `.`/`?.` (§2.6), an
// assignment operator, `->`, or a type's `|` or `&`: everything a script
// may continue on the next line. A `>` may also close a type's arguments
// (`type L = list<int>`), so it continues only an entry that does not
// parse as it stands. Strings and comments are skipped, so brackets
// inside them do not count. Anything else — including text that will not
// parse — is complete and goes to the parser, which reports the problem.
// (A line that starts with an operator cannot continue the previous entry
// at the prompt: end the previous line with the operator instead.)
func Incomplete(src string) bool {
	sc := scanner{src: src}
	sc.code()
	if sc.open || sc.depth > 0 {
		return true
	}
	tail := strings.TrimRight(string(sc.tail), " ")
	for _, op := range continuing {
		if strings.HasSuffix(tail, op) {
			return true
		}
	}
	// greater-than, or the end of a type's arguments
	if strings.HasSuffix(tail, ">") {
		_, err := syntax.Parse("<entry>", []byte(src))
		return err != nil
	}
	return false
}

// continuing are the line endings after which an entry always goes on:
// every binary operator but `>` (`==`, `<=`, `>=` and the assignment
// operators end in `=`, `**` in `*`, `||` in `|`, `&&` in `&`, `?.` in
// `.`, `not in` in ` in`), the `|` and `&` of types, and `->`.
var continuing = []string{"\\", "|>", "->", "|", "&", "=", "<", "+", "-", "??", "*", "/", "%", ".", " in"}

type scanner struct {
	src   string
	i     int
	depth int    // open brackets of the top-level code
	open  bool   // a string, interpolation or comment is unterminated
	tail  []byte // the last few bytes of code: strings as '"', comments and spaces as ' '
}

// note records code bytes for the tail.
func (sc *scanner) note(c byte) {
	if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
		c = ' '
		if n := len(sc.tail); n > 0 && sc.tail[n-1] == ' ' {
			return
		}
	}
	sc.tail = append(sc.tail, c)
	if len(sc.tail) > 16 {
		sc.tail = append(sc.tail[:0], sc.tail[len(sc.tail)-8:]...)
	}
}

func (sc *scanner) peek(off int) byte {
	if sc.i+off < len(sc.src) {
		return sc.src[sc.i+off]
	}
	return 0
}

// code scans the entry, counting brackets outside strings and comments.
func (sc *scanner) code() {
	depth := 0
	for sc.i < len(sc.src) {
		c := sc.src[sc.i]
		switch {
		case c == '/' && sc.peek(1) == '/':
			for sc.i < len(sc.src) && sc.src[sc.i] != '\n' {
				sc.i++
			}
			sc.note(' ')
			continue
		case c == '/' && sc.peek(1) == '*':
			sc.blockComment()
			if sc.open {
				return
			}
			sc.note(' ')
			continue
		case c == '"' && sc.peek(1) == '"' && sc.peek(2) == '"':
			sc.i += 3
			sc.tripleString()
			if sc.open {
				return
			}
			sc.note('"')
			continue
		case c == '"':
			sc.i++
			sc.plainString()
			if sc.open {
				return
			}
			sc.note('"')
			continue
		case c == 'r' && (sc.peek(1) == '"' || sc.peek(1) == '#') && !sc.identBefore():
			if sc.rawString() {
				sc.note('"')
				continue
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		}
		sc.note(c)
		sc.i++
	}
	sc.depth = depth
}

// identBefore reports whether the byte before the cursor continues an
// identifier (so an `r` there is not a raw-string prefix).
func (sc *scanner) identBefore() bool {
	if sc.i == 0 {
		return false
	}
	c := sc.src[sc.i-1]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func (sc *scanner) blockComment() {
	nest := 0
	for sc.i < len(sc.src) {
		switch {
		case sc.src[sc.i] == '/' && sc.peek(1) == '*':
			nest++
			sc.i += 2
		case sc.src[sc.i] == '*' && sc.peek(1) == '/':
			nest--
			sc.i += 2
			if nest == 0 {
				return
			}
		default:
			sc.i++
		}
	}
	sc.open = true
}

// plainString scans a "…" string after its opening quote. It ends at the
// line's end if unterminated (an error the parser reports).
func (sc *scanner) plainString() {
	for sc.i < len(sc.src) {
		c := sc.src[sc.i]
		switch {
		case c == '\\':
			sc.i += 2
			continue
		case c == '"':
			sc.i++
			return
		case c == '\n':
			return
		case c == '$' && sc.peek(1) == '{':
			sc.i += 2
			sc.interpolation()
			if sc.open {
				return
			}
			continue
		}
		sc.i++
	}
}

func (sc *scanner) tripleString() {
	for sc.i < len(sc.src) {
		c := sc.src[sc.i]
		switch {
		case c == '\\' && sc.peek(1) == '$' && sc.peek(2) == '{':
			sc.i += 3
			continue
		case c == '"' && sc.peek(1) == '"' && sc.peek(2) == '"':
			sc.i += 3
			return
		case c == '$' && sc.peek(1) == '{':
			sc.i += 2
			sc.interpolation()
			if sc.open {
				return
			}
			continue
		}
		sc.i++
	}
	sc.open = true
}

// interpolation skips `${…}` text after the `${`: braces are counted and
// quotes ignored (docs/spec/language.md §1.7).
func (sc *scanner) interpolation() {
	depth := 0
	for sc.i < len(sc.src) {
		switch sc.src[sc.i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				sc.i++
				return
			}
			depth--
		}
		sc.i++
	}
	sc.open = true
}

// rawString scans r"…" or r#"…"# at the cursor; it reports false when
// the text is not a raw string after all.
func (sc *scanner) rawString() bool {
	j := sc.i + 1
	hashes := 0
	for j < len(sc.src) && sc.src[j] == '#' {
		hashes++
		j++
	}
	if j >= len(sc.src) || sc.src[j] != '"' {
		return false
	}
	j++
	for j < len(sc.src) && sc.src[j] != '\n' {
		if sc.src[j] == '"' {
			k := 0
			for k < hashes && j+1+k < len(sc.src) && sc.src[j+1+k] == '#' {
				k++
			}
			if k == hashes {
				sc.i = j + 1 + hashes
				return true
			}
		}
		j++
	}
	sc.i = j
	return true
}

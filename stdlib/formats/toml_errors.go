package formats

// TOML parse errors worded as upstream's reader, Rust's `toml` crate
// (toml_edit's parser), words them (recalled; docs/builtins-areas.md):
//
//	TOML parse error at line 1, column 9
//	  |
//	1 | a = "abc
//	  |         ^
//	invalid basic string
//
// go-toml decodes the document; when it refuses one, tomlCrateError
// re-reads the text the way the crate's grammar does to find where the
// crate stops and what it expected there. The semantic mistakes the
// grammar cannot see (a key or table defined twice) come from go-toml's
// report, named as the crate names them.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	toml "github.com/pelletier/go-toml/v2"
)

// tomlCrateRefuses is the crate's text for a document go-toml read but
// the crate refuses, or "": go-toml reads TOML 1.1, which lets an inline
// table span lines or end in a comma and has the `\e` and `\xHH`
// escapes, while the crate reads TOML 1.0.
func tomlCrateRefuses(text string) string {
	sc := &tomlScanner{s: text, trusted: true}
	if off, msg, found := sc.document(); found {
		return tomlSnippet(text, off, msg)
	}
	return ""
}

// tomlCrateError is the crate's text for a document go-toml refused
// with err: the place, the line with a caret under it, and the reason.
func tomlCrateError(text string, err error) string {
	sc := &tomlScanner{s: text}
	if off, msg, found := sc.document(); found {
		return tomlSnippet(text, off, msg)
	}
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return strings.TrimPrefix(err.Error(), "toml: ")
	}
	row, col := de.Position()
	what := strings.TrimPrefix(de.Error(), "toml: ")
	start := tomlRowStart(text, row)
	if msg, ok := sc.duplicateMessage(what, de.Key(), row, start); ok {
		return tomlSnippet(text, start, msg)
	}
	return tomlSnippet(text, min(tomlRowOffset(text, row)+max(col-1, 0), len(text)), what)
}

// tomlRowOffset is the byte offset where go-toml's 1-based row starts.
func tomlRowOffset(text string, row int) int {
	off := 0
	for r := 1; r < row; r++ {
		nl := strings.IndexByte(text[off:], '\n')
		if nl < 0 {
			return len(text)
		}
		off += nl + 1
	}
	return off
}

// tomlRowStart is where the first thing on a row starts: the key or the
// table header the crate reports a duplicate at.
func tomlRowStart(text string, row int) int {
	off := tomlRowOffset(text, row)
	for off < len(text) && (text[off] == ' ' || text[off] == '\t') {
		off++
	}
	return off
}

// duplicateMessage names a key or table go-toml refused as defined
// twice as the crate does: duplicate key `k` in table `t` (in
// document root at the top), after `invalid table header` when a
// header repeats it. key is go-toml's key: the header's whole path, or
// a key-value's key under its table.
func (sc *tomlScanner) duplicateMessage(what string, key []string, row, start int) (string, bool) {
	dup := strings.HasSuffix(what, " is already defined") || strings.Contains(what, " already exists") || strings.HasSuffix(what, "should be a table, not a value")
	if !dup || len(key) == 0 {
		return "", false
	}
	header := start < len(sc.s) && sc.s[start] == '['
	var table []string
	if !header {
		table = append(table, sc.headerBefore(row)...)
	}
	table = append(table, key[:len(key)-1]...)
	msg := "duplicate key `" + key[len(key)-1] + "` in "
	if len(table) == 0 {
		msg += "document root"
	} else {
		msg += "table `" + strings.Join(table, ".") + "`"
	}
	if header {
		return "invalid table header\n" + msg, true
	}
	return msg, true
}

// headerBefore is the key path of the last table header above the
// 1-based row, as the scan recorded it.
func (sc *tomlScanner) headerBefore(row int) []string {
	var path []string
	for _, h := range sc.headers {
		if h.row < row {
			path = h.path
		}
	}
	return path
}

// tomlSnippet lays out an error at byte offset off as the crate does:
// the line and column (columns count characters), a gutter, the line,
// and a caret under the place (one past the end at the end of input).
// The line is shown without the \r of a CRLF line end.
func tomlSnippet(text string, off int, msg string) string {
	line, col := tomlPosition(text, off)
	content := strings.TrimSuffix(strings.Split(text, "\n")[line], "\r")
	gutter := strings.Repeat(" ", len(fmt.Sprint(line+1))+1)
	return fmt.Sprintf("TOML parse error at line %d, column %d\n%s|\n%d | %s\n%s|%s^\n%s",
		line+1, col+1, gutter, line+1, content, gutter, strings.Repeat(" ", col+1), msg)
}

// tomlPosition is the crate's 0-based line and column of offset off: at
// the end of the text it is one past the last character, on that
// character's line.
func tomlPosition(text string, off int) (line, col int) {
	if text == "" {
		return 0, off
	}
	extra := 0
	if off >= len(text) {
		extra = off - len(text) + 1
		_, size := utf8.DecodeLastRuneInString(text)
		off = len(text) - size
	}
	start := strings.LastIndexByte(text[:off], '\n') + 1
	line = strings.Count(text[:start], "\n")
	_, size := utf8.DecodeRuneInString(text[off:])
	return line, utf8.RuneCountInString(text[start:off+size]) - 1 + extra
}

// tomlHeader is a table header the scan passed: its key path and row.
type tomlHeader struct {
	path []string
	row  int
}

// tomlScanner reads a document by the crate's grammar, only to find
// where the crate would stop; go-toml does the decoding.
type tomlScanner struct {
	s       string
	i       int
	headers []tomlHeader
	trusted bool // go-toml read the document, so its scalars are good
}

// tomlStop is a place the grammar stops. cut is false where the crate
// would try something else (a value that is not there), so an array or
// inline table reports its missing close instead.
type tomlStop struct {
	off int
	msg string
	cut bool
}

func (sc *tomlScanner) stop(msg string) *tomlStop {
	return &tomlStop{off: sc.i, msg: msg, cut: true}
}

func (sc *tomlScanner) peek() byte {
	if sc.i < len(sc.s) {
		return sc.s[sc.i]
	}
	return 0
}

func (sc *tomlScanner) ws() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

func (sc *tomlScanner) newline() bool {
	if strings.HasPrefix(sc.s[sc.i:], "\n") {
		sc.i++
		return true
	}
	if strings.HasPrefix(sc.s[sc.i:], "\r\n") {
		sc.i += 2
		return true
	}
	return false
}

func (sc *tomlScanner) comment() {
	if sc.peek() != '#' {
		return
	}
	for sc.i < len(sc.s) && sc.s[sc.i] != '\n' && !strings.HasPrefix(sc.s[sc.i:], "\r\n") {
		sc.i++
	}
}

// document scans the whole text and reports the first place the crate
// would stop, with its reason.
func (sc *tomlScanner) document() (int, string, bool) {
	for {
		sc.ws()
		if sc.i >= len(sc.s) {
			return 0, "", false
		}
		var st *tomlStop
		switch c := sc.peek(); {
		case c == '#':
			sc.comment()
		case c == '\n' || c == '\r':
			if !sc.newline() {
				sc.i++
			}
		case c == '[':
			st = sc.header()
		default:
			_, st = sc.keyval()
			if st == nil {
				st = sc.lineEnd("")
			}
		}
		if st != nil {
			return st.off, st.msg, true
		}
	}
}

// lineEnd is what may follow a key-value or a header on its line.
func (sc *tomlScanner) lineEnd(label string) *tomlStop {
	sc.ws()
	sc.comment()
	if sc.i >= len(sc.s) || sc.newline() {
		return nil
	}
	return sc.stop(label + "expected newline, `#`")
}

func (sc *tomlScanner) header() *tomlStop {
	const label = "invalid table header\n"
	row := strings.Count(sc.s[:sc.i], "\n") + 1
	closer := "]"
	sc.i++
	if sc.peek() == '[' {
		closer = "]]"
		sc.i++
	}
	path, st := sc.key()
	if st != nil {
		return st
	}
	if !strings.HasPrefix(sc.s[sc.i:], closer) {
		return sc.stop(label + "expected `.`, `" + closer + "`")
	}
	sc.i += len(closer)
	sc.headers = append(sc.headers, tomlHeader{path: path, row: row})
	return sc.lineEnd(label)
}

// key reads a dotted key; a key that is not there is `invalid key`.
func (sc *tomlScanner) key() ([]string, *tomlStop) {
	var path []string
	for {
		sc.ws()
		start := sc.i
		part, st := sc.simpleKey()
		if st != nil {
			if len(path) > 0 && !st.cut {
				sc.i = start - 1 // the crate backs up to the dot
				for sc.i > 0 && sc.s[sc.i] != '.' {
					sc.i--
				}
				return path, nil
			}
			return nil, st
		}
		path = append(path, part)
		sc.ws()
		if sc.peek() != '.' {
			return path, nil
		}
		sc.i++
	}
}

func (sc *tomlScanner) simpleKey() (string, *tomlStop) {
	switch sc.peek() {
	case '"':
		return sc.basicString()
	case '\'':
		return sc.literalString()
	}
	start := sc.i
	for sc.i < len(sc.s) && isTOMLBareKeyByte(sc.s[sc.i]) {
		sc.i++
	}
	if sc.i == start {
		return "", &tomlStop{off: sc.i, msg: "invalid key"}
	}
	return sc.s[start:sc.i], nil
}

func isTOMLBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// keyval reads `key = value`. A bare key that is not there stops
// without cut: in an inline table it ends the table.
func (sc *tomlScanner) keyval() ([]string, *tomlStop) {
	path, st := sc.key()
	if st != nil {
		return nil, st
	}
	if sc.peek() != '=' {
		return nil, sc.stop("expected `.`, `=`")
	}
	sc.i++
	sc.ws()
	if st := sc.value(); st != nil {
		st.cut = true
		if st.msg == "" {
			st.msg = "invalid string\nexpected `\"`, `'`"
		}
		return nil, st
	}
	return path, nil
}

// value reads one value. A value that is not there stops without a
// message and without cut: the caller names what it expected.
func (sc *tomlScanner) value() *tomlStop {
	switch c := sc.peek(); c {
	case '"':
		_, st := sc.basicString()
		return st
	case '\'':
		_, st := sc.literalString()
		return st
	case '[':
		return sc.array()
	case '{':
		return sc.inlineTable()
	}
	return sc.scalar()
}

// scalar reads the longest start of the text here that is a whole
// number, date, time, boolean, inf or nan, as the crate's alternatives
// do; what follows it is the caller's to judge.
func (sc *tomlScanner) scalar() *tomlStop {
	end := sc.i
	for end < len(sc.s) && isTOMLScalarByte(sc.s[end]) {
		end++
	}
	// a date and a time may be separated by one space
	if end+1 < len(sc.s) && sc.s[end] == ' ' && sc.s[end+1] >= '0' && sc.s[end+1] <= '9' && strings.Count(sc.s[sc.i:end], "-") >= 2 {
		end++
		for end < len(sc.s) && isTOMLScalarByte(sc.s[end]) {
			end++
		}
	}
	if sc.trusted && end > sc.i {
		sc.i = end
		return nil
	}
	// The whole run first; then its starts from the longest, but none
	// past tomlMaxScalarPrefix bytes: each try decodes the start again,
	// so trying every start of a long run would take quadratic time.
	for try := end; try > sc.i; try-- {
		var m map[string]any
		if toml.Unmarshal([]byte("v = "+sc.s[sc.i:try]), &m) == nil {
			sc.i = try
			return nil
		}
		if try == end {
			try = min(end, sc.i+tomlMaxScalarPrefix+1)
		}
	}
	return &tomlStop{off: sc.i}
}

// tomlMaxScalarPrefix is the longest start of a scalar run that scalar
// tries as a value of its own when the whole run is not one; a longer
// valid value (a float of hundreds of digits) with junk after it is
// reported where it starts.
const tomlMaxScalarPrefix = 256

func isTOMLScalarByte(c byte) bool {
	return isTOMLBareKeyByte(c) || c == '+' || c == '.' || c == ':'
}

func (sc *tomlScanner) array() *tomlStop {
	sc.i++
	for {
		sc.wsCommentNewline()
		if sc.peek() == ']' {
			sc.i++
			return nil
		}
		start := sc.i
		if st := sc.value(); st != nil {
			if st.cut {
				return st
			}
			sc.i = start
			return sc.stop("invalid array\nexpected `]`")
		}
		sc.wsCommentNewline()
		if sc.peek() != ',' {
			if sc.peek() == ']' {
				sc.i++
				return nil
			}
			return sc.stop("invalid array\nexpected `]`")
		}
		sc.i++
	}
}

func (sc *tomlScanner) wsCommentNewline() {
	for {
		sc.ws()
		sc.comment()
		if !sc.newline() {
			return
		}
	}
}

func (sc *tomlScanner) inlineTable() *tomlStop {
	sc.i++
	open := sc.i
	seen := map[string]bool{}
	const missingClose = "invalid inline table\nexpected `}`"
	comma := -1
	for {
		before := sc.i
		path, st := sc.keyval()
		if st != nil {
			if st.cut {
				return st
			}
			if comma >= 0 {
				sc.i = comma // the crate backs up to the comma
				return sc.stop(missingClose)
			}
			sc.i = before
			sc.ws()
			if sc.peek() == '}' {
				sc.i++
				return nil
			}
			return sc.stop(missingClose)
		}
		name := strings.Join(path, "\x00")
		if seen[name] {
			return &tomlStop{off: open, msg: "duplicate key `" + path[len(path)-1] + "`", cut: true}
		}
		seen[name] = true
		sc.ws()
		switch sc.peek() {
		case ',':
			comma = sc.i
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return sc.stop(missingClose)
		}
	}
}

// basicString reads "…" or """…""".
func (sc *tomlScanner) basicString() (string, *tomlStop) {
	if strings.HasPrefix(sc.s[sc.i:], `"""`) {
		sc.i += 3
		for sc.i < len(sc.s) {
			if strings.HasPrefix(sc.s[sc.i:], `"""`) {
				sc.closeQuotes('"')
				return "", nil
			}
			if sc.s[sc.i] == '\\' {
				if st := sc.escape(true); st != nil {
					return "", st
				}
				continue
			}
			sc.i++
		}
		return "", sc.stop("invalid multiline basic string")
	}
	sc.i++
	start := sc.i
	for sc.i < len(sc.s) {
		switch c := sc.s[sc.i]; {
		case c == '"':
			sc.i++
			return sc.s[start : sc.i-1], nil
		case c == '\\':
			if st := sc.escape(false); st != nil {
				return "", st
			}
			continue
		case c == '\n' || c < 0x20 && c != '\t' || c == 0x7f:
			return "", sc.stop("invalid basic string")
		}
		sc.i++
	}
	return "", sc.stop("invalid basic string")
}

// escape reads a backslash escape at sc.i, leaving sc.i after it.
func (sc *tomlScanner) escape(multiline bool) *tomlStop {
	sc.i++
	if multiline {
		j := sc.i
		for j < len(sc.s) && (sc.s[j] == ' ' || sc.s[j] == '\t') {
			j++
		}
		if j < len(sc.s) && (sc.s[j] == '\n' || sc.s[j] == '\r') {
			sc.i = j
			return nil
		}
	}
	if sc.i >= len(sc.s) {
		return sc.stop("invalid escape sequence\nexpected `b`, `f`, `n`, `r`, `t`, `u`, `U`, `\\`, `\"`")
	}
	c := sc.s[sc.i]
	sc.i++
	switch c {
	case 'b', 'f', 'n', 'r', 't', '\\', '"':
		return nil
	case 'u', 'U':
		n, label := 4, "invalid unicode 4-digit hex code"
		if c == 'U' {
			n, label = 8, "invalid unicode 8-digit hex code"
		}
		// the crate reports a short or out-of-range code where its digits start
		digits := sc.i
		for k := 0; k < n; k++ {
			if sc.i >= len(sc.s) || !isHexByte(sc.s[sc.i]) {
				sc.i = digits
				return sc.stop(label)
			}
			sc.i++
		}
		if v, _ := strconv.ParseUint(sc.s[digits:sc.i], 16, 32); v > unicode.MaxRune || v >= 0xD800 && v <= 0xDFFF {
			sc.i = digits
			return sc.stop(label + "\nvalue is out of range")
		}
		return nil
	}
	_, size := utf8.DecodeRuneInString(sc.s[sc.i-1:])
	sc.i += size - 1
	return sc.stop("invalid escape sequence\nexpected `b`, `f`, `n`, `r`, `t`, `u`, `U`, `\\`, `\"`")
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// literalString reads '…' or ”'…”'.
func (sc *tomlScanner) literalString() (string, *tomlStop) {
	if strings.HasPrefix(sc.s[sc.i:], "'''") {
		sc.i += 3
		end := strings.Index(sc.s[sc.i:], "'''")
		if end < 0 {
			sc.i = len(sc.s)
			return "", sc.stop("invalid multiline literal string")
		}
		sc.i += end
		sc.closeQuotes('\'')
		return "", nil
	}
	sc.i++
	start := sc.i
	for sc.i < len(sc.s) {
		switch c := sc.s[sc.i]; {
		case c == '\'':
			sc.i++
			return sc.s[start : sc.i-1], nil
		case c == '\n' || c < 0x20 && c != '\t' || c == 0x7f:
			return "", sc.stop("invalid literal string")
		}
		sc.i++
	}
	return "", sc.stop("invalid literal string")
}

// closeQuotes passes the three quotes closing a multi-line string and
// up to two more, which belong to the string.
func (sc *tomlScanner) closeQuotes(q byte) {
	sc.i += 3
	for k := 0; k < 2 && sc.peek() == q; k++ {
		sc.i++
	}
}

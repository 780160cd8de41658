package text

// Pattern errors in upstream's words. Upstream compiles patterns with
// Rust's regex crate, whose syntax errors read
//
//	regex parse error:
//	    a(b
//	     ^
//	error: unclosed group
//
// (the pattern, carets under the offending span, then what is wrong).
// Go's regexp/syntax finds the same mistakes but names them by code and
// fragment, so rustRegexError works out where the mistake is in the
// pattern as written and words it as the regex crate does. A mistake it
// has no wording for keeps Go's text.

import (
	"errors"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// rustRegexError is the regex crate's text for err, a failure to parse
// pattern (verbose: the x flag is on), or "" when it has none.
func rustRegexError(pattern string, verbose bool, err error) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return ""
	}
	p := []rune(pattern)
	scan := scanPattern(p, verbose)
	start, end, msg := -1, -1, ""
	switch se.Code {
	case syntax.ErrMissingParen:
		if n := len(scan.openGroups); n > 0 {
			start, end, msg = scan.openGroups[n-1], scan.openGroups[n-1]+1, "unclosed group"
		}
	case syntax.ErrUnexpectedParen:
		if scan.unopened >= 0 {
			start, end, msg = scan.unopened, scan.unopened+1, "unopened group"
		}
	case syntax.ErrMissingRepeatArgument:
		if scan.bareRepeat >= 0 {
			start, end, msg = scan.bareRepeat, scan.bareRepeat+1, "repetition operator missing expression"
		}
	case syntax.ErrMissingBracket:
		if n := len(scan.openClasses); n > 0 {
			c := scan.openClasses[n-1]
			start, end, msg = c.start, c.end, "unclosed character class"
		}
	case syntax.ErrTrailingBackslash:
		start, end, msg = len(p)-1, len(p), "incomplete escape sequence, reached end of pattern prematurely"
	case syntax.ErrInvalidEscape:
		if at := runeIndex(pattern, se.Expr); at >= 0 && len([]rune(se.Expr)) == 2 {
			start, end, msg = at, at+2, "unrecognized escape sequence"
			if c := []rune(se.Expr)[1]; c >= '0' && c <= '9' {
				msg = "backreferences are not supported"
			}
		}
	case syntax.ErrInvalidPerlOp:
		if start, end, msg = lookAroundError(pattern, se.Expr); msg == "" {
			start, end, msg = flagError(pattern, se.Expr)
		}
	case syntax.ErrInvalidCharRange:
		if at := runeIndex(pattern, se.Expr); at >= 0 {
			start, end = at, at+len([]rune(se.Expr))
			msg = "invalid character class range, the start must be <= the end"
			if strings.HasPrefix(se.Expr, `\p`) || strings.HasPrefix(se.Expr, `\P`) {
				msg = "Unicode property not found"
			}
		}
	case syntax.ErrInvalidRepeatSize:
		if at := runeIndex(pattern, se.Expr); at >= 0 && countsReversed(se.Expr) {
			start, end, msg = at, at+len([]rune(se.Expr)), "invalid repetition count range, the start must be <= the end"
		}
	case syntax.ErrInvalidNamedCapture:
		// Go reads a look-behind `(?<=` as a badly named group.
		if start, end, msg = lookAroundError(pattern, se.Expr); msg == "" {
			start, end, msg = captureNameError(pattern, se.Expr)
		}
	}
	if msg == "" || start < 0 || end > len(p) {
		return ""
	}
	return "regex parse error:\n" + notatePattern(pattern, start, end) + "error: " + msg
}

// patternScan is what scanPattern finds in a pattern: the groups and
// bracket classes still open at its end (by rune offset, outermost
// first), the first `)` closing nothing and the first repetition
// operator with nothing to repeat (-1 when none).
type patternScan struct {
	openGroups  []int
	openClasses []classOpen
	unopened    int
	bareRepeat  int
	badCount    spanError      // the first counted repetition the crate refuses
	names       map[string]int // group name → rune offset of its first use
	dupName     spanError      // the first name used twice
	dupFirst    int            // offset of that name's first use
	badEscape   spanError      // the first escape the crate refuses and Go reads
	badFlag     spanError      // the first flag group the crate refuses and Go reads
	flagFirst   int            // for a duplicate flag, the offset of its first use
	badUTF8     spanError      // the first item ASCII mode refuses: one that can match invalid UTF-8, a Unicode class
	modes       []regexFlags   // the crate's u and x flags per open group

	// where the next `}`, `:]`, `>` and end of a group opening lie
	braceEnd, posixEnd, nameEnd, openEnd nextFinder

	nest   nestScan // the shape of the crate's syntax tree, for its nest limit
	length int      // the pattern's length in runes
}

// noteEscape records an escape at p[i] the crate refuses although Go
// reads it (\Q and \E quoting, a bad hex escape), and in ASCII mode one
// that can match invalid UTF-8; it returns the offset of the escape's
// last rune.
func (s *patternScan) noteEscape(p []rune, i int) int {
	end := s.skipEscape(p, i)
	if i+1 >= len(p) {
		return end
	}
	bad := spanError{}
	switch e := p[i+1]; e {
	case 'Q', 'E':
		bad = spanError{i, i + 2, "unrecognized escape sequence"}
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		// Go reads \0 and \12 as octal; the crate has no octal escapes
		bad = spanError{i, i + 2, "backreferences are not supported"}
	case 'x':
		bad = s.hexEscapeError(p, i)
		if bad.msg == "" && !s.unicodeMode() && i+3 < len(p) && p[i+2] != '{' && isHexRune(p[i+2]) && p[i+2] >= '8' {
			s.noteUTF8(spanError{i, i + 4, "pattern can match invalid UTF-8"})
		}
	case 'u', 'U':
		// the braced forms are \x{…} to the crate (and to translateRegex)
		if i+2 < len(p) && p[i+2] == '{' {
			bad = s.hexEscapeError(p, i)
		}
	case 'D', 'W', 'S':
		if !s.unicodeMode() {
			s.noteUTF8(spanError{i, i + 2, "pattern can match invalid UTF-8"})
		}
	case 'p', 'P':
		// a Unicode class in ASCII mode, refused as the crate translates
		// the pattern (where it also refuses what can match invalid UTF-8)
		if !s.unicodeMode() {
			last := end // `\p{Greek}`
			if i+2 < len(p) && p[i+2] != '{' {
				last = i + 2 // `\pL`
			}
			s.noteUTF8(spanError{i, last + 1, "Unicode not allowed here"})
		}
	}
	if bad.msg != "" && s.badEscape.msg == "" {
		s.badEscape = bad
	}
	return end
}

// hexEscapeError is the crate's error for a bad `\x` escape at p[i] (or
// a braced `\u{…}`, `\U{…}`): a digit that is not hex, or a braced value
// that is no Unicode scalar.
func (s *patternScan) hexEscapeError(p []rune, i int) spanError {
	j := i + 2
	if j >= len(p) {
		return spanError{}
	}
	if p[j] != '{' {
		for k := j; k < j+2 && k < len(p); k++ {
			if !isHexRune(p[k]) {
				return spanError{k, k + 1, "invalid hexadecimal digit"}
			}
		}
		return spanError{}
	}
	end := s.braceEnd.next(p, j+1, "}")
	if end < 0 {
		return spanError{}
	}
	for k := j + 1; k < end; k++ {
		if !isHexRune(p[k]) {
			return spanError{k, k + 1, "invalid hexadecimal digit"}
		}
	}
	if end == j+1 {
		return spanError{j + 1, end, "hexadecimal literal empty"}
	}
	if v, err := strconv.ParseUint(string(p[j+1:end]), 16, 32); err != nil || v > unicode.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return spanError{j + 1, end, "hexadecimal literal is not a Unicode scalar value"}
	}
	return spanError{}
}

func isHexRune(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *patternScan) unicodeMode() bool {
	return s.modes[len(s.modes)-1].unicode
}

func (s *patternScan) noteUTF8(bad spanError) {
	if s.badUTF8.msg == "" {
		s.badUTF8 = bad
	}
}

// noteFlags checks the flags of the group or flag setting opening at
// p[i] (`(?i-s)`, `(?x:`) as the crate's parser does, recording the
// first duplicate flag, repeated or dangling `-` or end of pattern. A
// group whose flags hold a letter that is no flag is left to Go.
func (s *patternScan) noteFlags(p []rune, i int) {
	if i+2 >= len(p) || p[i+1] != '?' || !strings.ContainsRune("imsUuxR-", p[i+2]) {
		return
	}
	seen := map[rune]int{}
	negation := -1 // a `-` no flag has followed yet
	firstNegation := -1
	for j := i + 2; ; j++ {
		if j >= len(p) {
			s.noteFlag(spanError{j, j, "expected flag but got end of regex"}, -1)
			return
		}
		c := p[j]
		switch {
		case c == ':' || c == ')':
			if negation >= 0 {
				s.noteFlag(spanError{negation, negation + 1, "dangling flag negation operator"}, -1)
			}
			return
		case c == '-':
			if firstNegation >= 0 {
				s.noteFlag(spanError{j, j + 1, "flag negation operator repeated"}, firstNegation)
			}
			negation = j
			if firstNegation < 0 {
				firstNegation = j
			}
		case strings.ContainsRune("imsUuxR", c):
			if first, dup := seen[c]; dup {
				s.noteFlag(spanError{j, j + 1, "duplicate flag"}, first)
			}
			seen[c] = j
			negation = -1
		default:
			return
		}
	}
}

func (s *patternScan) noteFlag(bad spanError, first int) {
	if s.badFlag.msg == "" {
		s.badFlag, s.flagFirst = bad, first
	}
}

// noteGroupName records the name of the group opening at p[i], if it
// has one (`(?P<name>` or `(?<name>`), and the first name used twice,
// which the crate refuses and Go accepts.
func (s *patternScan) noteGroupName(p []rune, i int) {
	j := i + 1
	if j >= len(p) || p[j] != '?' {
		return
	}
	j++
	if j < len(p) && p[j] == 'P' {
		j++
	}
	if j >= len(p) || p[j] != '<' || (j+1 < len(p) && (p[j+1] == '=' || p[j+1] == '!')) {
		return
	}
	end := s.nameEnd.next(p, j+1, ">")
	if end <= j+1 {
		return
	}
	name := string(p[j+1 : end])
	for k, c := range p[j+1 : end] {
		ok := c == '_' || unicode.IsLetter(c)
		if k > 0 {
			ok = ok || c == '.' || c == '[' || c == ']' || unicode.IsDigit(c)
		}
		if !ok && s.badEscape.msg == "" {
			at := j + 1 + k
			s.badEscape = spanError{at, at + 1, "invalid capture group character"}
			return
		}
	}
	if first, ok := s.names[name]; ok {
		if s.dupName.msg == "" {
			s.dupName, s.dupFirst = spanError{j + 1, end, "duplicate capture group name"}, first
		}
		return
	}
	if s.names == nil {
		s.names = map[string]int{}
	}
	s.names[name] = j + 1
}

// spanError is a mistake at the runes start to end of a pattern.
type spanError struct {
	start, end int
	msg        string
}

// classOpen is the span the regex crate reports for an unclosed class:
// the `[`, a `^` after it, and any leading `]` or `-` read as literals.
type classOpen struct {
	start, end int
	negated    bool
}

// noteRangeBoundary records a class range with a Perl class or a
// Unicode class at either end (`[\d-z]`, `[a-\w]`) at p[i], which the
// crate refuses and Go reads as a union.
func (s *patternScan) noteRangeBoundary(p []rune, i int) {
	isPerl := func(k int) bool {
		return k+1 < len(p) && p[k] == '\\' && strings.ContainsRune("dDwWsSpP", p[k+1])
	}
	bad := -1
	switch {
	case isPerl(i):
		end := s.skipEscape(p, i)
		if end+2 < len(p) && p[end+1] == '-' && p[end+2] != ']' && p[end+2] != '-' {
			bad = i
		}
	case i+2 < len(p) && !strings.ContainsRune(`\[-`, p[i]) && p[i+1] == '-' && isPerl(i+2):
		bad = i + 2
	}
	if bad >= 0 && s.badEscape.msg == "" {
		s.badEscape = spanError{bad, s.skipEscape(p, bad) + 1, "invalid range boundary, must be a literal"}
	}
}

// scanPattern walks p as the regex crate's parser does, far enough to
// find the places its errors point at: escapes are skipped whole, bracket
// classes nest, and in verbose mode whitespace and # comments are not
// pattern text.
func scanPattern(p []rune, verbose bool) patternScan {
	s := patternScan{unopened: -1, bareRepeat: -1, modes: []regexFlags{{unicode: true, verbose: verbose}}, length: len(p)}
	empty := true // nothing to repeat yet in the current alternative
	for i := 0; i < len(p); i++ {
		c := p[i]
		if len(s.openClasses) > 0 {
			switch {
			case c == '\\':
				s.noteRangeBoundary(p, i)
				end := s.noteEscape(p, i)
				s.nest.item(i, end+1)
				i = end
			case c == '[':
				if i+1 < len(p) && p[i+1] == ':' { // [:alpha:]
					if end := s.posixEnd.next(p, i+2, ":]"); end >= 0 {
						s.nest.asciiClass(i, end+2)
						i = end + 1
						continue
					}
				}
				i = s.openClass(p, i)
			case c == ']':
				if len(s.openClasses) == 1 && !s.unicodeMode() && s.openClasses[0].negated {
					s.noteUTF8(spanError{s.openClasses[0].start, i + 1, "pattern can match invalid UTF-8"})
				}
				s.openClasses = s.openClasses[:len(s.openClasses)-1]
				s.nest.closeClass(i)
				empty = false
			default:
				s.noteRangeBoundary(p, i)
				i = s.nest.classRune(p, i, s.modes[len(s.modes)-1].verbose)
			}
			continue
		}
		verbose := s.modes[len(s.modes)-1].verbose
		switch {
		case verbose && unicode.IsSpace(c):
		case verbose && c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		case c == '\\':
			end := s.noteEscape(p, i)
			s.nest.item(i, end+1)
			i = end
			empty = false
		case c == '.':
			if !s.unicodeMode() {
				s.noteUTF8(spanError{i, i + 1, "pattern can match invalid UTF-8"})
			}
			s.nest.item(i, i+1)
			empty = false
		case c == '[':
			i = s.openClass(p, i)
		case c == '(':
			s.noteFlags(p, i)
			opening := groupOpening(p, i, &s.openEnd)
			mode, _ := s.modes[len(s.modes)-1].after(opening)
			if flagsOnly(p, i) {
				s.modes[len(s.modes)-1] = mode
				end := indexFrom(p, i, ")")
				s.nest.item(i, end+1)
				i = end
				continue
			}
			s.modes = append(s.modes, mode)
			s.openGroups = append(s.openGroups, i)
			body := i + len([]rune(opening))
			s.nest.openGroup(i, body)
			empty = true
			s.noteGroupName(p, i)
			if plainOpening(opening) {
				i = body - 1 // a name or flags, not pattern text
			}
		case c == ')':
			if len(s.openGroups) == 0 {
				if s.unopened < 0 {
					s.unopened = i
				}
				continue
			}
			s.openGroups = s.openGroups[:len(s.openGroups)-1]
			if len(s.modes) > 1 {
				s.modes = s.modes[:len(s.modes)-1]
			}
			s.nest.closeGroup(i)
			empty = false
		case c == '|':
			s.nest.alternate(i)
			empty = true
		case c == '*' || c == '+' || c == '?':
			if empty && s.bareRepeat < 0 {
				s.bareRepeat = i
			}
			if i+1 < len(p) && p[i+1] == '?' { // lazy
				i++
			}
			s.nest.repeat(i + 1)
		case c == '{':
			// The crate reads every `{` outside a class as a counted
			// repetition; Go takes a malformed one as literal text.
			end, bad := countedRepetition(p, i, empty, s.modes[len(s.modes)-1].verbose)
			if bad.msg != "" && s.badCount.msg == "" {
				s.badCount = bad
			}
			i = end
			if bad.msg == "" {
				if i+1 < len(p) && p[i+1] == '?' { // lazy
					i++
				}
				s.nest.repeat(i + 1)
			}
		default:
			s.nest.item(i, i+1)
			empty = false
		}
	}
	return s
}

// countedRepetition reads the counted repetition `{m}`, `{m,}` or
// `{m,n}` at p[i] as the regex crate does, returning the offset of its
// last rune and, if it is malformed, the crate's error: nothing before it
// to repeat, no closing brace, or a count that is not a decimal (`{,3}`
// too: the crate's default parser has no empty minimum). Like the
// crate, it takes whitespace around each count (`{ 2 , 3 }`), and in
// verbose mode anywhere in it.
func countedRepetition(p []rune, i int, empty, verbose bool) (int, spanError) {
	if empty {
		return i, spanError{i, i + 1, "repetition operator missing expression"}
	}
	unclosed := func(at int) (int, spanError) {
		return len(p) - 1, spanError{i, at, "unclosed counted repetition"}
	}
	notDecimal := func(at int) (int, spanError) {
		return len(p) - 1, spanError{at, at, "repetition quantifier expects a valid decimal"}
	}
	skipSpace := func(j int) int {
		for j < len(p) && unicode.IsSpace(p[j]) {
			j++
		}
		return j
	}
	// decimal reads a count at p[j] as the crate's parse_decimal does:
	// where its digits start, where the reading stops, and whether
	// there were any
	decimal := func(j int) (int, int, bool) {
		j = skipSpace(j)
		start, any := j, false
		for j < len(p) && (p[j] >= '0' && p[j] <= '9' || verbose && any && unicode.IsSpace(p[j])) {
			if p[j] >= '0' && p[j] <= '9' {
				any = true
			}
			j++
		}
		return start, skipSpace(j), any
	}
	j := i + 1
	if verbose {
		j = skipSpace(j)
	}
	if j >= len(p) {
		return unclosed(len(p))
	}
	start, k, ok := decimal(j)
	if !ok {
		return notDecimal(start)
	}
	if k >= len(p) {
		return unclosed(len(p))
	}
	if p[k] == ',' {
		k++
		if verbose {
			k = skipSpace(k)
		}
		if k >= len(p) {
			return unclosed(len(p))
		}
		if p[k] != '}' {
			if start, k, ok = decimal(k); !ok {
				return notDecimal(start)
			}
		}
	}
	if k >= len(p) || p[k] != '}' {
		return unclosed(k)
	}
	return k, spanError{}
}

// groupOpening is the text of the group opening at p[i], as
// groupOpenLen measures it; only the opening is copied, and the search
// for its end (openEnd) resumes, so scanning a pattern of many groups
// stays linear.
func groupOpening(p []rune, i int, openEnd *nextFinder) string {
	end := i + 1
	if i+1 < len(p) && p[i+1] == '?' {
		if j := openEnd.nextAny(p, i+2, ":)>"); j >= 0 {
			end = j + 1
		}
	}
	return string(p[i:end])
}

// plainOpening reports whether a group opening (as groupOpening reads
// it) is one the crate reads whole: `(?:`, flags and `:`, or a name in
// angle brackets.
func plainOpening(open string) bool {
	if len(open) < 3 || !strings.HasSuffix(open, ":") && !strings.HasSuffix(open, ">") {
		return false
	}
	for _, c := range open[2 : len(open)-1] {
		if !(c == '_' || c == '.' || c == '[' || c == ']' || c == '-' || c == '<' || unicode.IsLetter(c) || unicode.IsDigit(c)) {
			return false
		}
	}
	return true
}

// rustOnlyError is the regex crate's error for a mistake Go's parser lets
// through (a malformed counted repetition, which Go reads as literal
// text, a name or flag given twice, an escape Go reads otherwise), or "":
// the first in the pattern, as the crate's parser stops there. scan is
// scanPattern's reading of pattern.
func rustOnlyError(pattern string, scan patternScan) string {
	first, aux := spanError{}, -1
	for _, c := range []struct {
		bad spanError
		aux int
	}{{scan.badCount, -1}, {scan.dupName, scan.dupFirst}, {scan.badEscape, -1}, {scan.badFlag, scan.flagFirst}} {
		if c.bad.msg != "" && (first.msg == "" || c.bad.start < first.start) {
			first, aux = c.bad, c.aux
		}
	}
	if first.msg == "" {
		return ""
	}
	return "regex parse error:\n" + notateTwice(pattern, first, aux) + "error: " + first.msg
}

// utf8Error is the crate's error for a pattern that parses but, in ASCII
// mode (`(?-u)`), can match bytes that are not UTF-8: `.`, a negated
// class, `\W`, `\xFF`. The crate's text regexes refuse those. scan is
// scanPattern's reading of pattern.
func utf8Error(pattern string, scan patternScan) string {
	bad := scan.badUTF8
	if bad.msg == "" {
		return ""
	}
	return "regex parse error:\n" + notatePattern(pattern, bad.start, bad.end) + "error: " + bad.msg
}

// notateTwice notates bad, and when aux is a place (the first use of a
// name or flag given twice) marks that too on a one-line pattern, as the
// crate points at both.
func notateTwice(pattern string, bad spanError, aux int) string {
	if aux < 0 || strings.Contains(pattern, "\n") {
		return notatePattern(pattern, bad.start, bad.end)
	}
	note := notatePattern(pattern, aux, aux+bad.end-bad.start)
	lines := strings.SplitAfter(note, "\n")
	carets := []rune(strings.TrimSuffix(lines[1], "\n"))
	for len(carets) < 4+bad.end {
		carets = append(carets, ' ')
	}
	for k := bad.start; k < bad.end; k++ {
		carets[4+k] = '^'
	}
	return lines[0] + string(carets) + "\n"
}

// skipEscape returns the offset of the last rune of the escape starting
// at p[i] (a backslash): the escaped rune, or a whole `\p{…}`/`\x{…}`
// or braced word assertion (`\b{end}`).
func (s *patternScan) skipEscape(p []rune, i int) int {
	if i+1 >= len(p) {
		return i
	}
	switch p[i+1] {
	case 'b':
		// a braced word assertion (`\b{start}`): the longest is
		// `\b{start-half}`, so only that many runes need reading
		if form := wordAssertion(string(p[i:min(len(p), i+len(`\b{start-half}`))])); form != "" {
			return i + len(form) - 1
		}
	case 'p', 'P', 'x', 'u', 'U':
		if i+2 < len(p) && p[i+2] == '{' {
			if end := s.braceEnd.next(p, i+3, "}"); end >= 0 {
				return end
			}
		}
	}
	return i + 1
}

// openClass records the class opening at p[i] and returns the offset of
// the last rune of its span, where the scan goes on.
func (s *patternScan) openClass(p []rune, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	first := j // a ']' here is a literal
	for j < len(p) && p[j] == '-' {
		j++
	}
	if j == first && j < len(p) && p[j] == ']' {
		j++
	}
	s.openClasses = append(s.openClasses, classOpen{i, j, j > i+1 && p[i+1] == '^'})
	body := i + 1
	if j > i+1 && p[i+1] == '^' {
		body++
	}
	s.nest.openClass(i, body, j-body, j)
	return j - 1
}

// flagsOnly reports whether p[i:] starts a flag setting such as `(?i)`,
// which opens no group and gives a following repetition nothing to repeat.
func flagsOnly(p []rune, i int) bool {
	if i+2 >= len(p) || p[i+1] != '?' {
		return false
	}
	for j := i + 2; j < len(p); j++ {
		switch {
		case p[j] == ')':
			return j > i+2
		case !strings.ContainsRune("imsUuxR-", p[j]):
			return false
		}
	}
	return false
}

// indexFrom is the rune offset of the first sub at or after from, or -1.
func indexFrom(p []rune, from int, sub string) int {
	s := []rune(sub)
	for i := max(from, 0); i+len(s) <= len(p); i++ {
		if slices.Equal(p[i:i+len(s)], s) {
			return i
		}
	}
	return -1
}

// nextFinder finds the next occurrence of something at or after an
// offset for a scan whose offsets only grow, reusing its last answer
// while it still holds. Searched afresh at each `(?` of `(?(?(?…`, or
// each `[:` of `[[:[[:…`, with no end in the pattern, a scan would read
// to the end each time: quadratic, seconds for 100 KB.
type nextFinder struct {
	from, at int // the last offset asked about and its answer (-1: none)
	asked    bool
}

// next is indexFrom(p, from, sub), sub the same at every call.
func (f *nextFinder) next(p []rune, from int, sub string) int {
	if !f.holds(from) {
		f.from, f.at, f.asked = from, indexFrom(p, from, sub), true
	}
	return f.at
}

// nextAny is the offset of the first rune of set at or after from, or
// -1, set the same at every call.
func (f *nextFinder) nextAny(p []rune, from int, set string) int {
	if !f.holds(from) {
		f.from, f.at, f.asked = from, -1, true
		for j := max(from, 0); j < len(p); j++ {
			if strings.ContainsRune(set, p[j]) {
				f.at = j
				break
			}
		}
	}
	return f.at
}

// nextAnyByte is nextAny in a string of bytes, set ASCII.
func (f *nextFinder) nextAnyByte(p string, from int, set string) int {
	if !f.holds(from) {
		f.from, f.at, f.asked = from, -1, true
		if j := strings.IndexAny(p[min(from, len(p)):], set); j >= 0 {
			f.at = min(from, len(p)) + j
		}
	}
	return f.at
}

// holds reports whether the last answer is the answer for from too: no
// occurrence lies between the offset last asked about and from.
func (f *nextFinder) holds(from int) bool {
	return f.asked && from >= f.from && (f.at < 0 || from <= f.at)
}

// runeIndex is the rune offset of the first sub in s, or -1.
func runeIndex(s, sub string) int {
	if sub == "" {
		return -1
	}
	at := strings.Index(s, sub)
	if at < 0 {
		return -1
	}
	return len([]rune(s[:at]))
}

// lookAroundError places a look-around group, which the regex crate
// does not support.
func lookAroundError(pattern, expr string) (start, end int, msg string) {
	for _, look := range []string{"(?<=", "(?<!", "(?=", "(?!"} {
		if strings.HasPrefix(expr, look) {
			if at := runeIndex(pattern, look); at >= 0 {
				return at, at + len([]rune(look)), "look-around, including look-ahead and look-behind, is not supported"
			}
		}
	}
	return -1, -1, ""
}

// flagError places a flag letter the regex crate does not know, the last
// rune of a `(?…` fragment.
func flagError(pattern, expr string) (start, end int, msg string) {
	at := runeIndex(pattern, expr)
	if expr == "(?" && strings.HasSuffix(pattern, expr) {
		// `(?` ending the pattern: the crate finds the group unclosed
		// before any flag, and marks its `(`
		at = len([]rune(pattern)) - 2
		return at, at + 1, "unclosed group"
	}
	if !strings.HasPrefix(expr, "(?") || len(expr) <= 2 || at < 0 {
		return -1, -1, ""
	}
	if bad := []rune(expr)[len([]rune(expr))-1]; strings.ContainsRune("imsUuxR-:)", bad) {
		return -1, -1, ""
	}
	last := at + len([]rune(expr)) - 1
	return last, last + 1, "unrecognized flag"
}

// captureNameError places a bad group name: an empty one is pointed at
// where the name should start, otherwise its first character the regex
// crate does not allow (a letter or _ first, then also digits, ., [ and ]).
func captureNameError(pattern, expr string) (start, end int, msg string) {
	at := runeIndex(pattern, expr)
	open := strings.IndexByte(expr, '<')
	if at < 0 || open < 0 {
		return -1, -1, ""
	}
	name := []rune(strings.TrimSuffix(expr[open+1:], ">"))
	first := at + len([]rune(expr[:open+1]))
	if len(name) == 0 {
		return first, first, "empty capture group name"
	}
	for k, c := range name {
		ok := c == '_' || unicode.IsLetter(c)
		if k > 0 {
			ok = ok || c == '.' || c == '[' || c == ']' || unicode.IsDigit(c)
		}
		if !ok {
			return first + k, first + k + 1, "invalid capture group character"
		}
	}
	return -1, -1, ""
}

// countsReversed reports whether a counted repetition `{m,n}` has m > n.
func countsReversed(expr string) bool {
	lo, hi, ok := strings.Cut(strings.Trim(expr, "{}"), ",")
	if !ok {
		return false
	}
	m, err1 := strconv.Atoi(lo)
	n, err2 := strconv.Atoi(hi)
	return err1 == nil && err2 == nil && m > n
}

// notatePattern writes pattern with carets under the runes start to end
// (at least one), as the regex crate's error formatter does: one line
// indented four spaces, or, for a pattern of several lines, numbered
// lines between two rules of 79 tildes.
func notatePattern(pattern string, start, end int) string {
	lines := strings.Split(strings.TrimSuffix(pattern, "\n"), "\n")
	lineCount := len(lines)
	if strings.HasSuffix(pattern, "\n") {
		lineCount++
	}
	width := 0
	if lineCount > 1 {
		width = len(strconv.Itoa(lineCount))
	}
	var sb strings.Builder
	offset := 0
	for i, line := range lines {
		text := strings.TrimSuffix(line, "\r")
		if width > 0 {
			sb.WriteString(strings.Repeat(" ", width-len(strconv.Itoa(i+1))) + strconv.Itoa(i+1) + ": ")
		} else {
			sb.WriteString("    ")
		}
		sb.WriteString(text + "\n")
		n := len([]rune(line))
		if start >= offset && start <= offset+n {
			pad := 4
			if width > 0 {
				pad = 2 + width
			}
			sb.WriteString(strings.Repeat(" ", pad+start-offset) + strings.Repeat("^", max(1, end-start)) + "\n")
		}
		offset += n + 1
	}
	if width == 0 {
		return sb.String()
	}
	rule := strings.Repeat("~", 79) + "\n"
	return rule + sb.String() + rule
}

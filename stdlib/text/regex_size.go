package text

// The regex crate's size limit. Upstream compiles a pattern to a
// Thompson NFA and refuses it, with "Compiled regex exceeds size limit
// of 10485760 bytes.", once the NFA's states take more than 10 MiB.
// Go's regexp has no such limit of its own that stops early enough, and
// rustForms writes long and nested counts out as runs of repetitions,
// so without one a pattern such as `((((a){1000}){1000}){1000}){1000}`
// would be written out at exponential length. regexSize measures, as
// rustForms reads the pattern, a lower bound of the NFA the crate
// builds, and the pattern is refused as soon as that passes the limit:
//
//   - each state of the crate's NFA takes at least 32 bytes (its
//     builder's State enum), so the limit is 327,680 states;
//   - a literal character is a state per byte of its UTF-8 form; a class
//     or escape (`[a-z]`, `\p{Greek}`, `.`) at least as many states as
//     the UTF-8 form of its widest character; an assertion (`^`, `\b`)
//     one state;
//   - a capture group adds two states (its start and end); a
//     non-capturing group and an alternation add none;
//   - a repetition copies its item, as the crate's compiler does: `x{n}`
//     and `x{m,n}` n times, `x{m,}` m times (at least once), `x*`, `x+`
//     and `x?` once; an item that matches only the empty string (`(?:)`,
//     `(?:^)`, `\b`) counts once however often it is repeated, as the
//     crate caps such a repetition at one (and so its count is written
//     as at most one for Go too).
//
// This counts fewer states than the crate builds (the crate adds union
// states for alternations and optional copies, and many states for a
// Unicode class), so every pattern the crate takes is taken; a pattern
// the crate refuses may be taken when the estimate stays under the limit.
// A pattern with no repetition at all is never refused for size: its
// program is no longer than its text, and the crate searches a large
// alternation of literals without building an NFA at all.

import (
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	regexSizeLimit   = 10 << 20 // the crate's default size limit, in bytes
	regexStateBytes  = 32       // the least a state of the crate's NFA takes
	regexStatesLimit = regexSizeLimit / regexStateBytes
)

// errRegexTooBig is the crate's error for a program past its size limit.
var errRegexTooBig = &regexError{"Compiled regex exceeds size limit of " + strconv.Itoa(regexSizeLimit) + " bytes."}

// sizeItem is the measure of one item of a pattern (a character, class,
// group or repetition).
type sizeItem struct {
	states    int64 // a lower bound of the crate's NFA states for it
	product   int   // the largest product of nested counts in it, as Go's parser measures it
	emptyOnly bool  // it can match only the empty string
}

// repeated is the measure of the item repeated m to mx times (mx < 0:
// no end); counted says the repetition is a count (`{m,n}`), which Go
// measures in the product of nested counts, not `*`, `+` or `?`.
func (it sizeItem) repeated(m, mx int, counted bool) sizeItem {
	copies := int64(mx)
	if mx < 0 {
		copies = int64(max(m, 1))
	}
	if it.emptyOnly {
		copies = min(copies, 1)
	}
	out := sizeItem{states: mulStates(it.states, copies), product: it.product, emptyOnly: it.emptyOnly || mx == 0}
	if counted {
		k := mx
		if k < 0 {
			k = m
		}
		out.product = int(min(mulStates(int64(max(k, 1)), int64(it.product)), 1<<40))
	}
	return out
}

// mulStates multiplies two state counts, saturating past the limit.
func mulStates(a, b int64) int64 {
	const ceiling = 1 << 40
	if a == 0 || b == 0 {
		return 0
	}
	if a > ceiling/b {
		return ceiling
	}
	return a * b
}

// sizeLevel is the measure of the items of one open group (or of the
// whole pattern) so far, across its alternatives.
type sizeLevel struct {
	capture  bool
	states   int64
	product  int
	nonEmpty int // items that can match a non-empty string
}

// regexSize measures a pattern as rustForms reads it.
type regexSize struct {
	levels []sizeLevel
	total  int64 // the states of every item read so far
}

func (s *regexSize) add(it sizeItem) {
	l := &s.levels[len(s.levels)-1]
	l.states = min(l.states+it.states, 1<<40)
	l.product = max(l.product, it.product)
	if !it.emptyOnly {
		l.nonEmpty++
	}
	s.total = min(s.total+it.states, 1<<40)
}

// replace swaps the measure of the last item read, old, for it (the
// item repeated).
func (s *regexSize) replace(old, it sizeItem) {
	l := &s.levels[len(s.levels)-1]
	l.states -= old.states
	s.total -= old.states
	if !old.emptyOnly {
		l.nonEmpty--
	}
	s.add(it)
}

func (s *regexSize) open(capture bool) {
	s.levels = append(s.levels, sizeLevel{capture: capture})
}

// close ends the innermost group and returns its measure as an item of
// the enclosing one.
func (s *regexSize) close() sizeItem {
	if len(s.levels) < 2 {
		return sizeItem{}
	}
	l := s.levels[len(s.levels)-1]
	s.levels = s.levels[:len(s.levels)-1]
	s.total -= l.states
	it := sizeItem{states: l.states, product: max(l.product, 1), emptyOnly: l.nonEmpty == 0}
	if l.capture {
		it.states += 2 // the capture's start and end states
	}
	s.add(it)
	return it
}

func (s *regexSize) tooBig() bool { return s.total > regexStatesLimit }

// escapeSize measures an escape in Go syntax (`\b`, `\x{e9}`, `\p{L}`,
// `\.`); with markers, the marker runes of word assertions and CRLF
// anchors are assertions.
func escapeSize(esc string, markers bool) sizeItem {
	if len(esc) < 2 {
		return sizeItem{states: 1, product: 1}
	}
	if markers && (isMarkerEscape(esc) || esc[1] == 'b' && isMarkerEscape(esc[2:])) {
		return sizeItem{states: 1, product: 1, emptyOnly: true}
	}
	switch esc[1] {
	case 'b', 'B', 'A', 'z':
		return sizeItem{states: 1, product: 1, emptyOnly: true}
	case 'p', 'P', 'x', 'd', 'D', 'w', 'W', 's', 'S':
		return sizeItem{states: classStates(esc), product: 1}
	}
	_, n := utf8.DecodeRuneInString(esc[1:])
	return sizeItem{states: int64(n), product: 1}
}

// isMarkerEscape reports whether p starts with one of the marker runes
// translateRegex writes for the crate's assertions (regex_rust.go).
func isMarkerEscape(p string) bool {
	for _, m := range []string{`\x{10FFFC}`, `\x{10FFFD}`, `\x{10FFFE}`, `\x{10FFFF}`} {
		if strings.HasPrefix(p, m) {
			return true
		}
	}
	return false
}

// classStates is the least number of states the crate's NFA takes for
// the Go-syntax class or escape text: one per byte of the UTF-8 form of
// its widest character (the states along that character's path through
// the class's UTF-8 automaton), one for a class that matches nothing.
func classStates(text string) int64 {
	re, err := syntax.Parse(text, syntax.Perl)
	if err != nil {
		return 1
	}
	switch re.Op {
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 1
		}
		return int64(max(utf8.RuneLen(re.Rune[len(re.Rune)-1]), 1))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 4
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += max(utf8.RuneLen(r), 1)
		}
		return int64(max(n, 1))
	}
	return 1
}

// repetitionCounts reads a repetition operator (`*`, `+`, `?`, `{m}`,
// `{m,}`, `{m,n}`, lazy or not) as its least and most counts (-1: no
// most); ok is false for a count too large to read.
func repetitionCounts(rep string) (m, mx int, ok bool) {
	if len(rep) > 1 {
		rep = strings.TrimSuffix(rep, "?") // lazy
	}
	switch rep {
	case "*":
		return 0, -1, true
	case "+":
		return 1, -1, true
	case "?":
		return 0, 1, true
	}
	lo, hi, ranged := strings.Cut(strings.Trim(rep, "{}"), ",")
	m, err := strconv.Atoi(lo)
	if err != nil || m < 0 {
		return 0, 0, false
	}
	if !ranged {
		return m, m, true
	}
	if hi == "" {
		return m, -1, true
	}
	mx, err = strconv.Atoi(hi)
	if err != nil || mx < 0 {
		return 0, 0, false
	}
	return m, mx, true
}

// runeSize measures a character of Go-syntax pattern text outside a
// class and escape, n bytes long: `.`, an anchor or a literal.
func runeSize(c byte, n int) sizeItem {
	switch c {
	case '.':
		return sizeItem{states: 4, product: 1}
	case '^', '$':
		return sizeItem{states: 1, product: 1, emptyOnly: true}
	}
	return sizeItem{states: int64(n), product: 1}
}

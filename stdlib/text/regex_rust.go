package text

// Forms the regex crate accepts and Go's regexp/syntax does not (or reads
// differently), rewritten into Go syntax after translateRegex:
//
//   - a repetition of a repetition (`a**`, `a{2}+`, `(ab)?*`), which the
//     crate applies to the repeated item and Go refuses as a nested
//     repetition operator: the inner one is wrapped in `(?:…)`;
//   - nested classes and the class set operations `&&` (intersection),
//     `--` (difference) and `~~` (symmetric difference), left to right
//     at one precedence, below the union of juxtaposed items
//     (`[a-z&&[^aeiou]]`, `[\w--\d]`): Go reads `[` inside a class as a
//     literal, so such a class is computed here and written as ranges.

import (
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rustForms rewrites the crate-only forms of p (Go syntax, as
// translateRegex writes it). A class left open is reported as Go's
// missing-bracket error, which rustRegexError words as the crate does.
func rustForms(p string) (string, error) {
	var out []byte
	type frame struct{ atom int }
	atom := -1        // start in out of the last item a repetition applies to
	repeated := false // that item already ends in a repetition
	var stack []frame
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\':
			n := escapeLen(p, i)
			atom, repeated = len(out), false
			out = append(out, p[i:i+n]...)
			i += n
		case c == '[':
			class, n, err := rustClass(p, i)
			if err != nil {
				return "", err
			}
			atom, repeated = len(out), false
			out = append(out, class...)
			i += n
		case c == '(':
			n := groupOpenLen(p, i)
			if p[i+n-1] == ')' { // a flag setting such as (?i): nothing to repeat
				out = append(out, p[i:i+n]...)
				atom, repeated = -1, false
				i += n
				continue
			}
			stack = append(stack, frame{len(out)})
			out = append(out, p[i:i+n]...)
			atom, repeated = -1, false
			i += n
		case c == ')':
			out = append(out, c)
			if len(stack) > 0 {
				atom = stack[len(stack)-1].atom
				stack = stack[:len(stack)-1]
			}
			repeated = false
			i++
		case c == '|':
			out = append(out, c)
			atom, repeated = -1, false
			i++
		case c == '*' || c == '+' || c == '?' || (c == '{' && countEnd(p, i) > i):
			n := 1
			if c == '{' {
				n = countEnd(p, i) - i + 1
			}
			if n < len(p)-i && p[i+n] == '?' {
				n++ // lazy
			}
			if repeated && atom >= 0 {
				out = append(out[:atom], append([]byte("(?:"), append(out[atom:len(out):len(out)], ')')...)...)
			}
			out = append(out, p[i:i+n]...)
			repeated = atom >= 0
			i += n
		default:
			_, n := utf8.DecodeRuneInString(p[i:])
			atom, repeated = len(out), false
			out = append(out, p[i:i+n]...)
			i += n
		}
	}
	return string(out), nil
}

// escapeLen is the length of the escape at p[i] (a backslash): the
// escaped rune, or a whole `\p{…}`, `\x{…}`, `\pL` or `\x41`.
func escapeLen(p string, i int) int {
	if i+1 >= len(p) {
		return 1
	}
	switch p[i+1] {
	case 'p', 'P', 'x':
		if i+2 < len(p) && p[i+2] == '{' {
			if end := strings.IndexByte(p[i+2:], '}'); end >= 0 {
				return end + 3
			}
		}
		if p[i+1] == 'x' && i+3 < len(p) {
			return 4
		}
		if i+2 < len(p) {
			_, n := utf8.DecodeRuneInString(p[i+2:])
			return 2 + n
		}
	}
	_, n := utf8.DecodeRuneInString(p[i+1:])
	return 1 + n
}

// groupOpenLen is the length of a group's opening at p[i]: `(`, `(?:`,
// `(?P<name>`, `(?<name>`, `(?i:`, or a whole flag setting `(?i)`.
func groupOpenLen(p string, i int) int {
	if i+1 >= len(p) || p[i+1] != '?' {
		return 1
	}
	for j := i + 2; j < len(p); j++ {
		switch p[j] {
		case ':', ')', '>':
			return j - i + 1
		}
	}
	return 1
}

// countEnd is the offset of the `}` closing a well-formed counted
// repetition at p[i], or -1 (malformed ones were refused before).
func countEnd(p string, i int) int {
	j := i + 1
	for j < len(p) && (p[j] >= '0' && p[j] <= '9' || p[j] == ',') {
		j++
	}
	if j < len(p) && p[j] == '}' && j > i+1 {
		return j
	}
	return -1
}

// rustClass reads the bracket class at p[i] and returns it in Go syntax
// with its length: as written when it has no nested class and no set
// operation, else as the ranges of the set it stands for.
func rustClass(p string, i int) (string, int, error) {
	set, n, plain, err := readClass(p, i)
	if err != nil {
		return "", 0, err
	}
	if plain {
		return p[i : i+n], n, nil
	}
	return writeRanges(set), n, nil
}

// readClass parses the class at p[i], returning its set, its length and
// whether it is plain (a class Go reads the same way).
func readClass(p string, i int) (runeSet, int, bool, error) {
	j := i + 1
	negated := j < len(p) && p[j] == '^'
	if negated {
		j++
	}
	plain := true
	var acc runeSet // the result of the operations so far
	op := byte(0)   // the operation pending between acc and cur
	var cur runeSet // the union of the items since the last operation
	var chunk strings.Builder
	first := true // a `]` here is a literal
	flush := func() error {
		if chunk.Len() == 0 {
			return nil
		}
		rs, err := goClassSet(chunk.String())
		if err != nil {
			return err
		}
		cur = cur.union(rs)
		chunk.Reset()
		return nil
	}
	apply := func() {
		switch op {
		case 0:
			acc = cur
		case '&':
			acc = acc.intersect(cur)
		case '-':
			acc = acc.minus(cur)
		case '~':
			acc = acc.union(cur).minus(acc.intersect(cur))
		}
		cur = nil
	}
	for j < len(p) {
		c := p[j]
		switch {
		case c == ']' && !first:
			if err := flush(); err != nil {
				return nil, 0, false, err
			}
			apply()
			if negated {
				acc = acc.complement()
			}
			return acc, j + 1 - i, plain, nil
		case c == '\\':
			n := escapeLen(p, j)
			chunk.WriteString(p[j : j+n])
			j += n
		case c == '[' && j+1 < len(p) && p[j+1] == ':':
			end := strings.Index(p[j:], ":]")
			if end < 0 {
				chunk.WriteByte(c)
				j++
				break
			}
			chunk.WriteString(p[j : j+end+2])
			j += end + 2
		case c == '[':
			plain = false
			inner, n, _, err := readClass(p, j)
			if err != nil {
				return nil, 0, false, err
			}
			cur = cur.union(inner)
			j += n
		case (c == '&' || c == '-' || c == '~') && j+1 < len(p) && p[j+1] == c && !first:
			plain = false
			if err := flush(); err != nil {
				return nil, 0, false, err
			}
			apply()
			op = c
			j += 2
		default:
			_, n := utf8.DecodeRuneInString(p[j:])
			chunk.WriteString(p[j : j+n])
			j += n
		}
		first = false
	}
	return nil, 0, false, &syntax.Error{Code: syntax.ErrMissingBracket, Expr: p[i:]}
}

// goClassSet is the set of the Go class items text (`a-z\p{L}`), read
// without case folding (a fold flag applies to the class written back).
func goClassSet(items string) (runeSet, error) {
	re, err := syntax.Parse("["+items+"]", syntax.Perl&^syntax.FoldCase)
	if err != nil {
		return nil, err
	}
	switch re.Op {
	case syntax.OpCharClass:
		return runeSet(append([]rune(nil), re.Rune...)), nil
	case syntax.OpLiteral:
		var rs runeSet
		for _, r := range re.Rune {
			rs = rs.union(runeSet{r, r})
		}
		return rs, nil
	case syntax.OpAnyChar:
		return runeSet{0, utf8.MaxRune}, nil
	}
	return nil, nil
}

// runeSet is a sorted list of disjoint inclusive ranges, lo hi pairs.
type runeSet []rune

func (a runeSet) union(b runeSet) runeSet {
	all := append(append(runeSet(nil), a...), b...)
	// insertion sort by range start: classes are small
	for i := 2; i < len(all); i += 2 {
		for j := i; j >= 2 && all[j] < all[j-2]; j -= 2 {
			all[j], all[j-2] = all[j-2], all[j]
			all[j+1], all[j-1] = all[j-1], all[j+1]
		}
	}
	var out runeSet
	for i := 0; i < len(all); i += 2 {
		lo, hi := all[i], all[i+1]
		if n := len(out); n > 0 && lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], hi)
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

func (a runeSet) complement() runeSet {
	var out runeSet
	next := rune(0)
	for i := 0; i < len(a); i += 2 {
		if a[i] > next {
			out = append(out, next, a[i]-1)
		}
		next = a[i+1] + 1
	}
	if next <= utf8.MaxRune {
		out = append(out, next, utf8.MaxRune)
	}
	return out
}

func (a runeSet) intersect(b runeSet) runeSet {
	return a.complement().union(b.complement()).complement()
}

func (a runeSet) minus(b runeSet) runeSet {
	return a.intersect(b.complement())
}

// writeRanges writes set as a Go class; the empty set as a class that
// matches nothing.
func writeRanges(set runeSet) string {
	if len(set) == 0 {
		return `[^\x{0}-\x{10ffff}]`
	}
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < len(set); i += 2 {
		sb.WriteString(`\x{` + strconv.FormatInt(int64(set[i]), 16) + `}`)
		if set[i+1] != set[i] {
			sb.WriteString(`-\x{` + strconv.FormatInt(int64(set[i+1]), 16) + `}`)
		}
	}
	sb.WriteByte(']')
	return sb.String()
}

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
	"bytes"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rustForms rewrites the crate-only forms of p (Go syntax, as
// translateRegex writes it). A class left open is reported as Go's
// missing-bracket error, which rustRegexError words as the crate does.
// markers says the pattern runs on the Pike VM, where the marker runes
// translateRegex writes for the crate's word assertions and CRLF
// anchors are empty-width tests (markHalfBoundaries).
//
// As it goes it measures the program the regex crate would compile
// (regexSize), and refuses the pattern as the crate does, with
// errRegexTooBig, as soon as that passes the crate's size limit, before
// writing out any repetition that would take it there.
func rustForms(p string, markers bool) (string, error) {
	var out []byte
	atom := -1        // start in out of the last item a repetition applies to
	repeated := false // that item already ends in a repetition
	var groups []int  // start in out of each group open
	size := regexSize{levels: []sizeLevel{{}}}
	var last sizeItem // the measure of out[atom:]
	repetitions := false
	var openEnd nextFinder
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\':
			n := escapeLen(p, i)
			atom, repeated = len(out), false
			if markers && i+1 < len(p) && p[i+1] == 'b' && isMarkerEscape(p[i+n:]) {
				// `\b` and its marker are one assertion (`\>`): a
				// repetition applies to both
				n += escapeLen(p, i+n)
				repeated = true
			}
			last = escapeSize(p[i:i+n], markers)
			size.add(last)
			out = append(out, p[i:i+n]...)
			i += n
		case c == '[':
			class, n, err := rustClass(p, i)
			if err != nil {
				return "", err
			}
			atom, repeated = len(out), false
			last = sizeItem{states: classStates(class), product: 1}
			size.add(last)
			out = append(out, class...)
			i += n
		case c == '(':
			n := groupOpenLen(p, i, &openEnd)
			open := withoutRustFlags(p[i : i+n])
			if p[i+n-1] == ')' { // a flag setting such as (?i): nothing to repeat
				if open != "(?)" {
					out = append(out, open...)
				}
				atom, repeated = -1, false
				i += n
				continue
			}
			groups = append(groups, len(out))
			size.open(capturesIn(open))
			out = append(out, open...)
			atom, repeated = -1, false
			i += n
		case c == ')':
			out = append(out, c)
			if len(groups) > 0 {
				atom = groups[len(groups)-1]
				groups = groups[:len(groups)-1]
				last = size.close()
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
			rep := p[i : i+n]
			if atom < 0 {
				out = append(out, rep...) // nothing to repeat: Go refuses it
				repeated = false
				i += n
				continue
			}
			repetitions = true
			m, mx, ok := repetitionCounts(rep)
			if ok && last.emptyOnly && c == '{' && (m > 1 || mx > 1 || mx < 0) && (mx < 0 || mx >= m) {
				// an item that matches only the empty string: the crate
				// repeats it at most once, and so does Go, unexpanded
				lazy := rep[len(strings.TrimSuffix(rep, "?")):]
				hi := 1
				if mx >= 0 {
					hi = min(mx, 1)
				}
				m, mx = min(m, 1), hi
				rep = "{" + strconv.Itoa(m) + "," + strconv.Itoa(mx) + "}" + lazy
			}
			if repeated {
				out = append(out[:atom], append([]byte("(?:"), append(out[atom:len(out):len(out)], ')')...)...)
			}
			item := last
			if ok {
				item = last.repeated(m, mx, c == '{')
				size.replace(last, item)
				if size.tooBig() {
					return "", errRegexTooBig
				}
			}
			if long, product, ok := longRepetition(out, atom, rep, last.product); ok {
				out = append(out[:atom], long...)
				item.product = product
			} else {
				out = append(out, rep...)
			}
			last = item
			repeated = true
			i += n
		default:
			_, n := utf8.DecodeRuneInString(p[i:])
			atom, repeated = len(out), false
			last = runeSize(c, n)
			size.add(last)
			out = append(out, p[i:i+n]...)
			i += n
		}
	}
	if repetitions && size.tooBig() {
		return "", errRegexTooBig
	}
	return string(out), nil
}

// withoutRustFlags drops the `u`, `x` and `R` flags from a group opening
// (`(?u)`, `(?ix:`, `(?-u)`, `(?mR)`): Go has none of them.
// translateRegex has already written out what they ask for (ASCII
// classes, verbose whitespace removed, CRLF line anchors).
func withoutRustFlags(open string) string {
	if !strings.HasPrefix(open, "(?") || strings.Trim(open[2:len(open)-1], "imsUuxR-") != "" || !strings.ContainsAny(open, "uxR") {
		return open
	}
	drop := strings.NewReplacer("u", "", "x", "", "R", "")
	on, off, negated := strings.Cut(open[2:len(open)-1], "-")
	flags := drop.Replace(on)
	if off = drop.Replace(off); negated && off != "" {
		flags += "-" + off
	}
	if flags == "" && open[len(open)-1] == ':' {
		return "(?:"
	}
	return "(?" + flags + open[len(open)-1:]
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

// longRepetition writes item{m,n} (item is out[atom:]) with a count past Go's limit of 1,000
// (the crate has none), or one that takes the product of nested counts
// past it (`(?:a{100}){100}`; inner is the item's product of nested
// counts, as Go's parser measures it, see sizeItem.product), as a run of
// repetitions of at most 1,000 each (or 1,000 over the inner product):
// `a{2500}` is `(?:a){1000}(?:a){1000}(?:a){500}`, `a{0,1500}` is
// `(?:a){0,1000}(?:a){0,500}`. An item holding a capture group is
// repeated once fewer without its captures and then once with them, as
// a group reports its last repetition: `(a){1001}` is
// `(?:(?:a){1000})(a)`, `(a){0,1500}` is `(?:(?:(?:a){0,1000}…)(a))?`.
// It also returns the product of nested counts of what it writes.
// A range whose start is past its end stays for Go to refuse.
func longRepetition(out []byte, atom int, rep string, inner int) ([]byte, int, bool) {
	if atom < 0 || !strings.HasPrefix(rep, "{") {
		return nil, 0, false
	}
	item := out[atom:]
	lazy := strings.HasSuffix(rep, "?")
	lo, hi, ranged := strings.Cut(strings.Trim(rep, "{}?"), ",")
	m, err := strconv.Atoi(lo)
	if err != nil {
		return nil, 0, false
	}
	n := m // `{m}`
	if ranged {
		n = -1 // `{m,}`
		if hi != "" {
			if n, err = strconv.Atoi(hi); err != nil {
				return nil, 0, false
			}
		}
	}
	if ranged && n >= 0 && n < m || m > 100000 || n > 100000 {
		return nil, 0, false
	}
	if m < 2 && n < 2 {
		inner = 1 // as Go measures a count of at most one
	}
	if max(m, n)*inner <= 1000 {
		return nil, 0, false
	}
	chunk := max(1000/inner, 1)
	if capturesIn(string(item)) {
		before, after := max(m-1, 0), n-1
		if n < 0 {
			after = -1
		}
		return capturedLongRepetition(item, m, n, lazy, chunk), runProduct(before, after, chunk) * inner, true
	}
	return repetitionRun(item, m, n, lazy, chunk), runProduct(m, n, chunk) * inner, true
}

// runProduct is the largest count repetitionRun writes for item{m,n}
// (at least 1), the factor it adds to the item's product of nested
// counts.
func runProduct(m, n, chunk int) int {
	k := 1
	if m > 0 {
		k = max(k, min(m, chunk))
	}
	if n > m {
		k = max(k, min(n-m, chunk))
	}
	return k
}

// capturedLongRepetition is item{m,n} (n < 0 for no end) for an item
// holding captures: the repetitions but the last without them, then the
// last with them.
func capturedLongRepetition(item []byte, m, n int, lazy bool, chunk int) []byte {
	bare := withoutCaptures(item)
	before := max(m-1, 0)
	after := n - 1
	if n < 0 {
		after = -1
	}
	long := append([]byte("(?:"), repetitionRun(bare, before, after, lazy, chunk)...)
	long = append(long, ")"...)
	long = append(long, item...)
	if m == 0 {
		long = append(append([]byte("(?:"), long...), ")?"...)
		if lazy {
			long = append(long, '?')
		}
	}
	return long
}

// repetitionRun writes item{m,n} (n < 0 for no end) as a run of
// repetitions of at most chunk each.
func repetitionRun(item []byte, m, n int, lazy bool, chunk int) []byte {
	var long []byte
	piece := func(counts string) {
		long = append(long, "(?:"...)
		long = append(long, item...)
		long = append(long, ")"...)
		long = append(long, counts...)
		if lazy {
			long = append(long, '?')
		}
	}
	for left := m; left > 0; left -= chunk {
		piece("{" + strconv.Itoa(min(left, chunk)) + "}")
	}
	switch {
	case n < 0:
		piece("*")
	default:
		for left := n - m; left > 0; left -= chunk {
			piece("{0," + strconv.Itoa(min(left, chunk)) + "}")
		}
	}
	return long
}

// withoutCaptures is Go-syntax regex text with its capture groups made
// non-capturing.
func withoutCaptures(re []byte) []byte {
	var out []byte
	class := 0
	for i := 0; i < len(re); i++ {
		switch c := re[i]; {
		case c == '\\' && i+1 < len(re):
			out = append(out, c, re[i+1])
			i++
			continue
		case c == '[':
			class++
		case c == ']' && class > 0:
			class--
		case c == '(' && class == 0 && (i+1 >= len(re) || re[i+1] != '?'):
			out = append(out, "(?:"...)
			continue
		case c == '(' && class == 0 && (bytes.HasPrefix(re[i:], []byte("(?P<")) || bytes.HasPrefix(re[i:], []byte("(?<"))):
			out = append(out, "(?:"...)
			i += bytes.IndexByte(re[i:], '>')
			continue
		}
		out = append(out, re[i])
	}
	return out
}

// capturesIn reports whether Go-syntax regex text opens a capture group.
func capturesIn(re string) bool {
	for i := 0; i < len(re); i++ {
		switch {
		case re[i] == '\\':
			i++
		case re[i] == '(' && (i+1 >= len(re) || re[i+1] != '?' || strings.HasPrefix(re[i:], "(?P<") || strings.HasPrefix(re[i:], "(?<")):
			return true
		}
	}
	return false
}

// groupOpenLen is the length of a group's opening at p[i]: `(`, `(?:`,
// `(?P<name>`, `(?<name>`, `(?i:`, or a whole flag setting `(?i)`.
// openEnd resumes the search for the end of an opening, for a scan of
// many groups.
func groupOpenLen(p string, i int, openEnd *nextFinder) int {
	if i+1 >= len(p) || p[i+1] != '?' {
		return 1
	}
	if j := openEnd.nextAnyByte(p, i+2, ":)>"); j >= 0 {
		return j - i + 1
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
		case c == '[' && j+1 < len(p) && p[j+1] == ':' && isASCIIClassName(p[j:]):
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
	pairs := make([][2]rune, 0, (len(a)+len(b))/2)
	for _, s := range []runeSet{a, b} {
		for i := 0; i+1 < len(s); i += 2 {
			pairs = append(pairs, [2]rune{s[i], s[i+1]})
		}
	}
	slices.SortFunc(pairs, func(x, y [2]rune) int { return int(x[0] - y[0]) })
	var out runeSet
	for _, p := range pairs {
		if n := len(out); n > 0 && p[0] <= out[n-1]+1 {
			out[n-1] = max(out[n-1], p[1])
			continue
		}
		out = append(out, p[0], p[1])
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
	return "[" + rangeItems(set) + "]"
}

// unicodeProperty writes the class `\p{name}` (`\P{name}` when negated)
// in Go syntax, inside a bracket class or not. Go's parser already reads
// general categories and scripts by their short and long names, loosely;
// the regex crate also reads `gc=`, `sc=` and `scx=` forms
// (`\p{Script=Greek}`, also written `sc:Greek`, and `sc!=Greek` for
// the complement), an `Is` prefix (`\p{IsGreek}`) and the binary
// properties (`\p{White_Space}`, `\p{Alphabetic}`), which are resolved
// here, as are the ISO 15924 codes of the commonest scripts
// (`\p{sc=Grek}`). A name nothing knows is left for Go to refuse.
func unicodeProperty(name string, negated, inClass bool) string {
	if key, val, ok := strings.Cut(name, "!="); ok && isPropertyKey(key) {
		// `\p{sc!=Greek}` is `\P{sc=Greek}`
		return unicodeProperty(key+"="+val, !negated, inClass)
	}
	if key, val, ok := strings.Cut(name, ":"); ok && isPropertyKey(key) {
		// `\p{sc:Greek}` is `\p{sc=Greek}`
		name = key + "=" + val
	}
	letter := "p"
	if negated {
		letter = "P"
	}
	goName := func(n string) bool {
		_, err := syntax.Parse(`\p{`+n+`}`, syntax.Perl)
		return err == nil
	}
	candidates := []string{name}
	if key, val, ok := strings.Cut(name, "="); ok && isPropertyKey(key) {
		candidates = []string{val}
	}
	if full, ok := scriptCodes[looseName(candidates[0])]; ok {
		candidates = append(candidates, full)
	}
	if n := candidates[0]; strings.HasPrefix(looseName(n), "is") {
		candidates = append(candidates, strings.TrimLeft(n, " _-")[2:])
	}
	for _, n := range candidates {
		if goName(n) {
			return `\` + letter + "{" + n + "}"
		}
		if set, ok := binaryProperty(looseName(n)); ok {
			if negated {
				set = set.complement()
			}
			if inClass { // no property is empty or everything, so set has ranges
				return rangeItems(set)
			}
			return writeRanges(set)
		}
	}
	return `\` + letter + "{" + name + "}"
}

// isPropertyKey reports whether key names a property the crate reads
// with a value (`sc=Greek`): the general category or a script.
func isPropertyKey(key string) bool {
	switch looseName(key) {
	case "gc", "generalcategory", "sc", "script", "scx", "scriptextensions":
		return true
	}
	return false
}

// scriptCodes are the ISO 15924 codes the crate also takes for the
// commonest scripts (`\p{sc=Grek}`), by loose name.
var scriptCodes = map[string]string{
	"latn": "Latin", "grek": "Greek", "cyrl": "Cyrillic", "arab": "Arabic",
	"hebr": "Hebrew", "hani": "Han", "hira": "Hiragana", "kana": "Katakana",
	"hang": "Hangul", "deva": "Devanagari", "thai": "Thai", "armn": "Armenian",
	"geor": "Georgian", "ethi": "Ethiopic", "beng": "Bengali", "taml": "Tamil",
	"zyyy": "Common", "zinh": "Inherited", "qaai": "Inherited",
}

// looseName is a property name compared as Unicode's loose matching
// (UAX44-LM3) does: case, spaces, underscores and hyphens ignored.
func looseName(n string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-':
			return -1
		}
		return unicode.ToLower(r)
	}, n)
}

// binaryProperty is the set of a binary Unicode property by loose name:
// the ones Go's unicode package lists, and the derived Alphabetic,
// Uppercase, Lowercase, Cased, Math and the identifier properties, and
// the emoji properties.
func binaryProperty(loose string) (runeSet, bool) {
	letters := []*unicode.RangeTable{unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo}
	tables := map[string][]*unicode.RangeTable{
		"alphabetic": append(letters, unicode.Nl, unicode.Other_Alphabetic),
		"alpha":      append(letters, unicode.Nl, unicode.Other_Alphabetic),
		"uppercase":  {unicode.Lu, unicode.Other_Uppercase},
		"upper":      {unicode.Lu, unicode.Other_Uppercase},
		"lowercase":  {unicode.Ll, unicode.Other_Lowercase},
		"lower":      {unicode.Ll, unicode.Other_Lowercase},
		"cased":      {unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Uppercase, unicode.Other_Lowercase},
		"math":       {unicode.Sm, unicode.Other_Math},
		"space":      {unicode.White_Space},
		"wspace":     {unicode.White_Space},
	}[loose]
	if tables != nil {
		return tablesSet(tables...), true
	}
	// the identifier properties (UAX #31), without the pattern characters;
	// the X forms are taken as equal to them (they differ in a handful of
	// characters NFKC changes)
	notPattern := func(set runeSet) runeSet {
		return set.minus(tablesSet(unicode.Pattern_Syntax, unicode.Pattern_White_Space))
	}
	idStart := func() runeSet { return tablesSet(append(letters, unicode.Nl, unicode.Other_ID_Start)...) }
	switch loose {
	case "idstart", "ids", "xidstart", "xids":
		return notPattern(idStart()), true
	case "idcontinue", "idc", "xidcontinue", "xidc":
		return notPattern(idStart().union(tablesSet(unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue))), true
	}
	if set, ok := emojiProperty(loose); ok {
		return set, true
	}
	for name, t := range unicode.Properties {
		if looseName(name) == loose {
			return tablesSet(t), true
		}
	}
	return nil, false
}

// tablesSet is the union of Go's range tables as a set.
func tablesSet(tables ...*unicode.RangeTable) runeSet {
	var all runeSet
	for _, t := range tables {
		for _, r := range t.R16 {
			all = append(all, strideSet(rune(r.Lo), rune(r.Hi), rune(r.Stride))...)
		}
		for _, r := range t.R32 {
			all = append(all, strideSet(rune(r.Lo), rune(r.Hi), rune(r.Stride))...)
		}
	}
	return all.union(nil)
}

// strideSet is the runes lo, lo+stride, … up to hi.
func strideSet(lo, hi, stride rune) runeSet {
	if stride == 1 {
		return runeSet{lo, hi}
	}
	var set runeSet
	for r := lo; r <= hi; r += stride {
		set = append(set, r, r)
	}
	return set
}

// The crate's word assertions beyond \b and \B: `\<` and `\b{start}`
// (a word starts here), `\>` and `\b{end}` (a word ends here), and the
// half boundaries `\b{start-half}` (no word character before) and
// `\b{end-half}` (none after). Go has no such assertions, so each is
// written as a marker rune (a noncharacter no text holds), after `\b`
// for the whole forms, and markHalfBoundaries turns the markers of the
// compiled program into empty-width tests the Pike VM evaluates.
const (
	startHalfMarker = '\U0010FFFE'
	endHalfMarker   = '\U0010FFFF'

	emptyWordStartHalf syntax.EmptyOp = 1 << 6
	emptyWordEndHalf   syntax.EmptyOp = 1 << 7
)

// CRLF mode's line anchors (the R flag with m): `^` after \n, or after a
// \r not followed by \n; `$` before \r, or before a \n not preceded by
// \r, so that neither matches between the two of \r\n. Markers too.
const (
	crlfBeginMarker = '\U0010FFFC'
	crlfEndMarker   = '\U0010FFFD'

	// past syntax.EmptyOp's eight bits: the Pike VM tests the instruction's
	// whole uint32 argument
	emptyCRLFBeginLine uint32 = 1 << 8
	emptyCRLFEndLine   uint32 = 1 << 9
)

var crlfAnchorForms = map[byte]string{'^': `\x{10FFFC}`, '$': `\x{10FFFD}`}

var wordAssertionForms = map[string]string{
	`\<`:             `\b\x{10FFFE}`,
	`\b{start}`:      `\b\x{10FFFE}`,
	`\>`:             `\b\x{10FFFF}`,
	`\b{end}`:        `\b\x{10FFFF}`,
	`\b{start-half}`: `\x{10FFFE}`,
	`\b{end-half}`:   `\x{10FFFF}`,
}

// wordAssertion is the word assertion p starts with, or "".
func wordAssertion(p string) string {
	if strings.HasPrefix(p, `\<`) || strings.HasPrefix(p, `\>`) {
		return p[:2]
	}
	if strings.HasPrefix(p, `\b{`) {
		if end := strings.IndexByte(p, '}'); end > 0 {
			if _, ok := wordAssertionForms[p[:end+1]]; ok {
				return p[:end+1]
			}
		}
	}
	return ""
}

// markHalfBoundaries turns the marker runes of prog into the half
// boundary tests.
func markHalfBoundaries(prog *syntax.Prog) {
	for k := range prog.Inst {
		inst := &prog.Inst[k]
		if inst.Op != syntax.InstRune1 || len(inst.Rune) != 1 {
			continue
		}
		switch inst.Rune[0] {
		case startHalfMarker:
			inst.Op, inst.Arg, inst.Rune = syntax.InstEmptyWidth, uint32(emptyWordStartHalf), nil
		case endHalfMarker:
			inst.Op, inst.Arg, inst.Rune = syntax.InstEmptyWidth, uint32(emptyWordEndHalf), nil
		case crlfBeginMarker:
			inst.Op, inst.Arg, inst.Rune = syntax.InstEmptyWidth, emptyCRLFBeginLine, nil
		case crlfEndMarker:
			inst.Op, inst.Arg, inst.Rune = syntax.InstEmptyWidth, emptyCRLFEndLine, nil
		}
	}
}

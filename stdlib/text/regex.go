package text

// Regular expressions (docs/spec/builtins.md §3.13). Patterns are RE2 syntax with
// Unicode-aware \d \w \s \b. Go's regexp treats those classes as ASCII,
// so patterns are rewritten before compiling: \d → \p{Nd}, \w → letters,
// marks, decimal digits and connector punctuation, \s → the Unicode
// White_Space set; inside a bracket \W and \S become the ranges of the
// complements (`[\W_]`), and \u0041 / \u{41} name code points as \x{41}
// does. A word boundary cannot be rewritten, so a pattern that
// uses \b or \B runs on a small Pike VM over Go's compiled program whose
// empty-width test uses the Unicode word definition; everything else runs
// on regexp.Regexp. Both find leftmost-first matches and iterate them the
// same way. Forms of Rust's regex crate (upstream's) that Go's parser
// refuses or reads otherwise are rewritten first (regex_rust.go), and
// mistakes only the crate reports are found before Go parses
// (regex_errors.go).

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("regex_match", "regex_match(pattern, text, flags?) -> list<string>?", "every non-overlapping match as a string; nil when none", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Nil, nil
		}
		text := a.Text(1)
		_, ms, err := findMatches(th, a.Text(0), flagsArg(a, 2), text)
		if err != nil {
			return vm.Value{}, err
		}
		if len(ms) == 0 {
			return vm.Nil, nil
		}
		out := make([]vm.Value, len(ms))
		for i, m := range ms {
			out[i] = vm.Str(text[m[0]:m[1]])
		}
		return vm.Of(vm.NewList(out)), nil
	})
	replace := func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 3 {
			return vm.Nil, nil
		}
		repl, text := a.Text(1), a.Text(2)
		re, ms, err := findMatches(th, a.Text(0), "", text)
		if err != nil {
			return vm.Value{}, err
		}
		var sb strings.Builder
		last := 0
		for _, m := range ms {
			sb.WriteString(text[last:m[0]])
			re.expand(&sb, repl, text, m)
			last = m[1]
		}
		sb.WriteString(text[last:])
		return vm.Str(sb.String()), nil
	}
	lib.Def("regex_replace", "regex_replace(pattern, replacement, text) -> string?", "replace every match ($1, ${name}, $$)", replace)
	lib.Def("regex_replace_all", "regex_replace_all(pattern, replacement, text) -> string?", "alias of regex_replace", replace)
	lib.Def("regex_captures", "regex_captures(pattern, text) -> list<dict>", "one {match, groups, <named>} dict per match", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Of(vm.NewList(nil)), nil
		}
		text := a.Text(1)
		re, ms, err := findMatches(th, a.Text(0), "", text)
		if err != nil {
			return vm.Value{}, err
		}
		var out []vm.Value
		for _, m := range ms {
			b := vm.NewDictBuilder(4)
			b.Set("match", vm.Str(text[m[0]:m[1]]))
			groups := make([]vm.Value, 0, len(m)/2-1)
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] < 0 {
					groups = append(groups, vm.Nil)
					continue
				}
				gv := vm.Str(text[m[2*g]:m[2*g+1]])
				groups = append(groups, gv)
				if name := re.names[g]; name != "" {
					b.Set(name, gv)
				}
			}
			b.Set("groups", vm.Of(vm.NewList(groups)))
			out = append(out, vm.Of(b.Build()))
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("regex_split", "regex_split(text, pattern, flags?) -> list<string>?", "split text around every match, keeping empty pieces", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Nil, nil
		}
		text := a.Text(0)
		_, ms, err := findMatches(th, a.Text(1), flagsArg(a, 2), text)
		if err != nil {
			return vm.Value{}, err
		}
		var out []vm.Value
		last := 0
		for _, m := range ms {
			out = append(out, vm.Str(text[last:m[0]]))
			last = m[1]
		}
		out = append(out, vm.Str(text[last:]))
		return vm.Of(vm.NewList(out)), nil
	})
}

// findMatches compiles pattern with flags and finds its matches in text
// (as findAll reports them).
func findMatches(th *vm.Thread, pattern, flags, text string) (*harnRegex, [][]int, error) {
	re, err := compileRegex(th, pattern, flags)
	if err != nil {
		return nil, nil, err
	}
	ms, err := re.findAll(th, text)
	return re, ms, err
}

// flagsArg is the optional flags string (anything but a string means none).
func flagsArg(a vm.Args, i int) string {
	s, _ := a.Str(i)
	return s
}

// harnRegex is a compiled pattern.
type harnRegex struct {
	re      *regexp.Regexp // nil when prog is used
	literal string         // the whole pattern when it is one non-empty literal
	prog    *syntax.Prog   // Pike VM program for patterns with \b / \B
	ncap    int            // 2 × (groups + 1)
	names   []string       // group names by index ("" for unnamed)
}

type regexCacheKey struct{}

type regexCache struct {
	mu sync.Mutex
	m  map[string]*harnRegex
}

// compileRegex compiles (and caches per VM) pattern with flags.
func compileRegex(th *vm.Thread, pattern, flags string) (*harnRegex, error) {
	re, err := cachedRegex(th, pattern, flags)
	if err != nil {
		if msg := rustRegexError(pattern, strings.ContainsRune(flags, 'x'), err); msg != "" {
			return nil, vm.Throwf("Invalid regex: %s", msg)
		}
		return nil, vm.Throwf("Invalid regex: %s", err.Error())
	}
	return re, nil
}

// cachedRegex is compileRegex failing with newHarnRegex's own error.
func cachedRegex(th *vm.Thread, pattern, flags string) (*harnRegex, error) {
	cache := th.VM().Local(regexCacheKey{}, func() any { return &regexCache{m: map[string]*harnRegex{}} }).(*regexCache)
	key := flags + "\x00" + pattern
	cache.mu.Lock()
	re, ok := cache.m[key]
	cache.mu.Unlock()
	if ok {
		return re, nil
	}
	re, err := newHarnRegex(pattern, flags)
	if err != nil {
		return nil, err
	}
	cache.mu.Lock()
	if len(cache.m) > 1000 {
		cache.m = map[string]*harnRegex{}
	}
	cache.m[key] = re
	cache.mu.Unlock()
	return re, nil
}

type regexError struct{ msg string }

func (e *regexError) Error() string { return e.msg }

func newHarnRegex(pattern, flags string) (*harnRegex, error) {
	verbose := false
	var goFlags []byte
	for _, c := range flags {
		switch c {
		case 'i', 'm', 's':
			goFlags = append(goFlags, byte(c))
		case 'x':
			verbose = true
		default:
			return nil, &regexError{"unsupported regex flag '" + string(c) + "', expected one of i/m/s/x"}
		}
	}
	// A leading inline group may ask for verbose mode, which Go lacks.
	written := pattern
	if strings.HasPrefix(pattern, "(?") {
		if end := strings.IndexByte(pattern, ')'); end > 2 {
			inner := pattern[2:end]
			if strings.Trim(inner, "imsxU-") == "" && strings.Contains(inner, "x") && !strings.Contains(inner, "-") {
				verbose = true
				inner = strings.ReplaceAll(inner, "x", "")
				if inner == "" {
					pattern = pattern[end+1:]
				} else {
					pattern = "(?" + inner + ")" + pattern[end+1:]
				}
			}
		}
	}
	scan := scanPattern([]rune(written), verbose)
	if msg := rustOnlyError(written, scan); msg != "" {
		return nil, &regexError{msg}
	}
	if msg := nestError(written, scan); msg != "" {
		return nil, &regexError{msg}
	}
	translated, boundary := translateRegex(pattern, regexFlags{
		unicode:   true,
		verbose:   verbose,
		multiline: strings.ContainsRune(flags, 'm'),
		dotAll:    strings.ContainsRune(flags, 's'),
		fold:      strings.ContainsRune(flags, 'i'),
	})
	translated, err := rustForms(translated, boundary)
	if err != nil {
		return nil, err
	}
	if len(goFlags) > 0 {
		translated = "(?" + string(goFlags) + ")" + translated
	}
	parsed, err := syntax.Parse(translated, syntax.Perl)
	var se *syntax.Error
	if errors.As(err, &se) && se.Code == syntax.ErrLarge {
		// past Go's own limit, which lies past the crate's (regex_size.go)
		return nil, errRegexTooBig
	}
	if err != nil {
		return nil, err
	}
	if msg := utf8Error(written, scan); msg != "" {
		return nil, &regexError{msg}
	}
	names := parsed.CapNames()
	ncap := 2 * (parsed.MaxCap() + 1)
	if !boundary {
		re, err := regexp.Compile(translated)
		if err != nil {
			return nil, err
		}
		h := &harnRegex{re: re, ncap: ncap, names: names}
		// (not re.LiteralPrefix: it calls `^abc$` complete too)
		if lit := parsed.Simplify(); lit.Op == syntax.OpLiteral && lit.Flags&syntax.FoldCase == 0 {
			h.literal = string(lit.Rune)
		}
		return h, nil
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, err
	}
	markHalfBoundaries(prog)
	return &harnRegex{prog: prog, ncap: ncap, names: names}, nil
}

// Unicode replacements of the Perl classes. The word class is the regex
// crate's (perl_word, UTS #18 Annex C): Alphabetic — the letters, letter
// numbers such as Ⅻ and Other_Alphabetic such as Ⓐ — marks, decimal
// digits, connector punctuation and the joiners ZWNJ and ZWJ (so `\w+`
// keeps an emoji ZWJ sequence's joiners).
var uniWordItems = `\p{L}\p{M}\p{Nd}\p{Pc}\p{Nl}` + rangeItems(tablesSet(unicode.Other_Alphabetic, unicode.Join_Control))

const uniSpaceItems = `\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`

// uniNonWordItems and uniNonSpaceItems are the complements of the word
// and space classes as explicit ranges, for a negated Perl class inside
// a bracket (`[\W_]`), where a nested negation cannot be written.
var (
	uniNonWordItems  = sync.OnceValue(func() string { return complementItems(uniWordItems) })
	uniNonSpaceItems = sync.OnceValue(func() string { return complementItems(uniSpaceItems) })
)

func complementItems(items string) string {
	re, err := syntax.Parse("[^"+items+"]", syntax.Perl)
	if err != nil || re.Op != syntax.OpCharClass {
		panic("regex: bad class items " + items)
	}
	return rangeItems(re.Rune)
}

// rangeItems writes ranges (lo hi pairs, as syntax.Regexp.Rune holds a
// class) as Go class items: `\x{61}-\x{7a}`, or `\x{5f}` for one rune.
func rangeItems(ranges []rune) string {
	var sb strings.Builder
	for i := 0; i+1 < len(ranges); i += 2 {
		sb.WriteString(`\x{` + strconv.FormatInt(int64(ranges[i]), 16) + `}`)
		if ranges[i+1] != ranges[i] {
			sb.WriteString(`-\x{` + strconv.FormatInt(int64(ranges[i+1]), 16) + `}`)
		}
	}
	return sb.String()
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// translateRegex rewrites the Perl classes to their Unicode forms, strips
// verbose-mode whitespace and comments, and reports whether the pattern
// uses a word-boundary assertion.
func translateRegex(p string, start regexFlags) (string, bool) {
	var sb strings.Builder
	boundary := false
	inClass := false
	depth := 0          // classes nest, as in the regex crate
	classStart := false // just after `[` or `[^`, where `]` is literal
	// the u and x flags, per open group
	modes := []regexFlags{start}
	var openEnd nextFinder
	for i := 0; i < len(p); i++ {
		mode := modes[len(modes)-1]
		ascii, verbose := !mode.unicode, mode.verbose
		c := p[i]
		if verbose && !inClass {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				continue
			}
			if c == '#' {
				for i < len(p) && p[i] != '\n' {
					i++
				}
				continue
			}
		}
		if verbose && inClass && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			continue
		}
		if c == '\\' && i+1 < len(p) {
			e := p[i+1]
			i++
			classStart = false
			switch {
			case ascii && asciiPerlClass[e] != "":
				// ASCII mode: the crate's ASCII classes (the negated ones
				// are refused, utf8Error)
				if inClass {
					sb.WriteString(asciiPerlClass[e])
				} else {
					sb.WriteString("[" + asciiPerlClass[e] + "]")
				}
			case e == 'd' && !inClass:
				sb.WriteString(`\p{Nd}`)
			case e == 'd':
				sb.WriteString(`\p{Nd}`)
			case e == 'D':
				sb.WriteString(`\P{Nd}`)
			case e == 'w' && !inClass:
				sb.WriteString("[" + uniWordItems + "]")
			case e == 'w':
				sb.WriteString(uniWordItems)
			case e == 'W' && !inClass:
				sb.WriteString("[^" + uniWordItems + "]")
			case e == 's' && !inClass:
				sb.WriteString("[" + uniSpaceItems + "]")
			case e == 's':
				sb.WriteString(uniSpaceItems)
			case e == 'S' && !inClass:
				sb.WriteString("[^" + uniSpaceItems + "]")
			case e == 'W':
				// inside a class, as the ranges of the complement, so that
				// `[\W_]` and `[^\W]` stay Unicode-aware
				sb.WriteString(uniNonWordItems())
			case e == 'S':
				sb.WriteString(uniNonSpaceItems())
			case e == 'u' && i+1 < len(p) && p[i+1] == '{':
				// `\u{41}` is `\x{41}`
				if end := strings.IndexByte(p[i+1:], '}'); end >= 0 {
					sb.WriteString(`\x` + p[i+1:i+2+end])
					i += 1 + end
				} else {
					sb.WriteString(`\u`)
				}
			case e == 'u' && i+4 < len(p) && isHex4(p[i+1:i+5]):
				// `\u0041` is `\x{0041}`
				sb.WriteString(`\x{` + p[i+1:i+5] + `}`)
				i += 4
			case e == 'U' && i+1 < len(p) && p[i+1] == '{' && strings.IndexByte(p[i+1:], '}') >= 0:
				// `\U{1F600}` is `\x{1F600}`
				end := strings.IndexByte(p[i+1:], '}')
				sb.WriteString(`\x` + p[i+1:i+2+end])
				i += 1 + end
			case e == 'U' && i+8 < len(p) && isHex4(p[i+1:i+5]) && isHex4(p[i+5:i+9]):
				// `\U0001F600` is `\x{0001F600}`
				sb.WriteString(`\x{` + p[i+1:i+9] + `}`)
				i += 8
			case (e == '<' || e == '>' || e == 'b') && !inClass && wordAssertion(p[i-1:]) != "":
				// the crate's start/end-of-word assertions (regex_rust.go)
				form := wordAssertion(p[i-1:])
				boundary = true
				sb.WriteString(wordAssertionForms[form])
				i += len(form) - 2
			case ascii && (e == 'b' || e == 'B') && !inClass:
				// ASCII mode: Go's own \b is the ASCII word boundary
				sb.WriteByte('\\')
				sb.WriteByte(e)
			case (e == 'b' || e == 'B') && !inClass:
				boundary = true
				sb.WriteByte('\\')
				sb.WriteByte(e)
			case e == ' ':
				sb.WriteString(`\x20`)
			case (e == 'p' || e == 'P') && i+1 < len(p) && p[i+1] == '{' && strings.IndexByte(p[i+1:], '}') >= 0:
				end := strings.IndexByte(p[i+1:], '}')
				sb.WriteString(unicodeProperty(p[i+2:i+1+end], e == 'P', inClass))
				i += 1 + end
			case e == 'p' || e == 'P' || e == 'x':
				// copy a braced argument whole so verbose mode leaves it alone
				sb.WriteByte('\\')
				sb.WriteByte(e)
				if i+1 < len(p) && p[i+1] == '{' {
					if end := strings.IndexByte(p[i+1:], '}'); end >= 0 {
						sb.WriteString(p[i+1 : i+2+end])
						i += 1 + end
					}
				}
			default:
				sb.WriteByte('\\')
				r, size := utf8.DecodeRuneInString(p[i:])
				sb.WriteRune(r)
				i += size - 1
			}
			continue
		}
		if inClass {
			switch {
			case c == '[' && i+1 < len(p) && p[i+1] == ':' && isASCIIClassName(p[i:]):
				if end := strings.Index(p[i:], ":]"); end >= 0 {
					sb.WriteString(p[i : i+end+2])
					i += end + 1
					classStart = false
					continue
				}
			case c == ']' && !classStart:
				depth--
				inClass = depth > 0
			case c == '[':
				// a nested class, as the regex crate reads it (rustForms)
				depth++
				sb.WriteByte(c)
				classStart = true
				continue
			case c == '^' && classStart && p[i-1] == '[':
				sb.WriteByte(c)
				continue
			}
			classStart = false
			sb.WriteByte(c)
			continue
		}
		if c == '[' {
			inClass = true
			classStart = true
			depth = 1
		}
		if c == '{' {
			// a count with whitespace around its numbers (`{ 2 , 3 }`),
			// which the crate takes and Go reads as literal text
			if count, n := compactCount(p[i:]); n > 0 {
				sb.WriteString(count)
				i += n - 1
				continue
			}
		}
		if mode.crlf {
			// CRLF mode (R): \r ends a line too, and \r\n is one line end
			switch {
			case c == '.' && !mode.dotAll:
				sb.WriteString(`[^\n\r]`)
				continue
			case (c == '^' || c == '$') && mode.multiline:
				boundary = true
				sb.WriteString(crlfAnchorForms[c])
				continue
			}
		}
		if ascii && mode.fold {
			// ASCII mode folds only ASCII letters: Go's folding would
			// also take K (Kelvin) for k and ſ for s, and é for É
			if lit, size := asciiFoldLiteral(p[i:]); lit != "" {
				sb.WriteString(lit)
				i += size - 1
				continue
			}
		}
		switch c {
		case '(':
			open := p[i : i+groupOpenLen(p, i, &openEnd)]
			mode, setting := modes[len(modes)-1].after(open)
			if setting {
				modes[len(modes)-1] = mode
			} else {
				modes = append(modes, mode)
			}
			sb.WriteString(open) // whole, so a setting's `)` closes no group
			i += len(open) - 1
			continue
		case ')':
			if len(modes) > 1 {
				modes = modes[:len(modes)-1]
			}
		}
		sb.WriteByte(c)
	}
	return sb.String(), boundary
}

// compactCount is the counted repetition p starts with, written without
// the whitespace around its numbers, and its length in p; "", 0 when p
// starts with no count holding whitespace.
func compactCount(p string) (string, int) {
	end := strings.IndexByte(p, '}')
	if end < 0 || !strings.ContainsFunc(p[1:end], unicode.IsSpace) {
		return "", 0
	}
	lo, hi, ranged := strings.Cut(p[1:end], ",")
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	isCount := func(s string) bool {
		return s != "" && strings.Trim(s, "0123456789") == ""
	}
	if !isCount(lo) || hi != "" && !isCount(hi) {
		return "", 0
	}
	if !ranged {
		return "{" + lo + "}", end + 1
	}
	return "{" + lo + "," + hi + "}", end + 1
}

// asciiFoldLiteral is the literal letter p starts with as case folding
// in ASCII mode matches it, with its size: an ASCII letter and its
// other case only, any other letter only itself. "" for anything else.
func asciiFoldLiteral(p string) (string, int) {
	r, size := utf8.DecodeRuneInString(p)
	switch {
	case r < utf8.RuneSelf && unicode.IsLetter(r):
		return "(?-i:[" + string(unicode.ToLower(r)) + string(unicode.ToUpper(r)) + "])", 1
	case r >= utf8.RuneSelf && unicode.SimpleFold(r) != r:
		return "(?-i:" + string(r) + ")", size
	}
	return "", 0
}

// asciiPerlClass is the class items of each Perl class in the crate's
// ASCII mode (`(?-u)`).
var asciiPerlClass = map[byte]string{
	'd': `0-9`, 'w': `0-9A-Za-z_`, 's': `\t\n\v\f\r `,
}

// regexFlags is the part of the regex crate's flag state the rewriting
// follows, per group: Unicode mode (the u flag, off is ASCII mode),
// verbose mode (x) and CRLF mode (R), which Go lacks, and the
// multi-line (m) and dot-all (s) modes CRLF mode changes.
// It also follows case folding (i), which ASCII mode limits to ASCII
// letters.
type regexFlags struct{ unicode, verbose, crlf, multiline, dotAll, fold bool }

// after is the state a group opening (`(`, `(?x-u:`) or a flag setting
// (`(?-u)`) leaves, and whether it is a setting, which changes the
// enclosing group's state instead of opening one.
func (f regexFlags) after(open string) (regexFlags, bool) {
	setting := strings.HasSuffix(open, ")")
	if !strings.HasPrefix(open, "(?") || len(open) < 3 || strings.Trim(open[2:len(open)-1], "imsUuxR-") != "" {
		return f, setting
	}
	on, off, _ := strings.Cut(open[2:len(open)-1], "-")
	if strings.Contains(on, "u") {
		f.unicode = true
	}
	if strings.Contains(off, "u") {
		f.unicode = false
	}
	for _, flag := range []struct {
		letter string
		to     *bool
	}{{"x", &f.verbose}, {"R", &f.crlf}, {"m", &f.multiline}, {"s", &f.dotAll}, {"i", &f.fold}} {
		if strings.Contains(on, flag.letter) {
			*flag.to = true
		}
		if strings.Contains(off, flag.letter) {
			*flag.to = false
		}
	}
	return f, setting
}

// isASCIIClassName reports whether s starts with one of the ASCII
// classes `[:alpha:]` (or `[:^alpha:]`) the crate and Go know; any other
// `[:` inside a class opens a nested class in the crate. Only the
// longest such class (`[:^xdigit:]`) is searched for its end, so a scan
// asking at each `[:` of a long pattern stays linear.
func isASCIIClassName(s string) bool {
	end := strings.Index(s[:min(len(s), len("[:^xdigit:]"))], ":]")
	if end < 0 {
		return false
	}
	switch strings.TrimPrefix(s[2:end], "^") {
	case "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit":
		return true
	}
	return false
}

// findAll returns every non-overlapping match as capture index pairs
// (-1 for a group that did not take part). An empty match right after
// the previous match is skipped. On a large text th's interrupts stop
// the search (lib.OffThread).
func (r *harnRegex) findAll(th *vm.Thread, text string) ([][]int, error) {
	var ms [][]int
	if err := lib.OffThread(th, len(text), func() { ms = r.findAllIn(text) }); err != nil {
		return nil, err // the search may still be running: ms is not read
	}
	return ms, nil
}

func (r *harnRegex) findAllIn(text string) [][]int {
	if r.literal != "" {
		return findLiteral(r.literal, text)
	}
	if r.re != nil {
		return r.re.FindAllStringSubmatchIndex(text, -1)
	}
	var out [][]int
	prevEnd := -1
	for pos := 0; pos <= len(text); {
		m := r.pikeFind(text, pos)
		if m == nil {
			break
		}
		accept := true
		if m[1] == pos {
			if m[0] == prevEnd {
				accept = false
			}
			if pos < len(text) {
				_, w := utf8.DecodeRuneInString(text[pos:])
				pos += w
			} else {
				pos++
			}
		} else {
			pos = m[1]
		}
		prevEnd = m[1]
		if accept {
			out = append(out, m)
		}
	}
	return out
}

// findLiteral finds every non-overlapping occurrence of lit, leftmost
// first: a pattern that is one literal string matches in time linear in
// the text, where regexp's automaton takes the pattern's length per byte.
func findLiteral(lit, text string) [][]int {
	var out [][]int
	for at := 0; ; {
		i := strings.Index(text[at:], lit)
		if i < 0 {
			return out
		}
		out = append(out, []int{at + i, at + i + len(lit)})
		at += i + len(lit)
	}
}

// isUniWord is the Unicode \w (uniWordItems) used by \b.
func isUniWord(r rune) bool {
	return r >= 0 && (unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r) ||
		unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) || unicode.Is(unicode.Join_Control, r))
}

type pikeThread struct {
	pc  uint32
	cap []int
}

type pikeList struct {
	threads []pikeThread
}

// pikeFind finds the leftmost-first match starting at or after pos.
func (r *harnRegex) pikeFind(text string, pos int) []int {
	prog := r.prog
	seen := make([]int, len(prog.Inst))
	gen := 0
	var matched []int
	clist := &pikeList{}
	nlist := &pikeList{}
	caps := make([]int, r.ncap)

	var add func(l *pikeList, pc uint32, at int, cap []int, prev, next rune)
	add = func(l *pikeList, pc uint32, at int, cap []int, prev, next rune) {
		if seen[pc] == gen {
			return
		}
		seen[pc] = gen
		inst := &prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			add(l, inst.Out, at, cap, prev, next)
			add(l, inst.Arg, at, cap, prev, next)
		case syntax.InstNop:
			add(l, inst.Out, at, cap, prev, next)
		case syntax.InstCapture:
			if int(inst.Arg) < len(cap) {
				old := cap[inst.Arg]
				cap[inst.Arg] = at
				add(l, inst.Out, at, cap, prev, next)
				cap[inst.Arg] = old
			} else {
				add(l, inst.Out, at, cap, prev, next)
			}
		case syntax.InstEmptyWidth:
			ctx := syntax.EmptyOpContext(prev, next) &^ (syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary)
			before, after := isUniWord(prev), isUniWord(next)
			if before != after {
				ctx |= syntax.EmptyWordBoundary
			} else {
				ctx |= syntax.EmptyNoWordBoundary
			}
			if !before {
				ctx |= emptyWordStartHalf
			}
			if !after {
				ctx |= emptyWordEndHalf
			}
			wide := uint32(ctx)
			if prev < 0 || prev == '\n' || prev == '\r' && next != '\n' {
				wide |= emptyCRLFBeginLine
			}
			if next < 0 || next == '\r' || next == '\n' && prev != '\r' {
				wide |= emptyCRLFEndLine
			}
			if inst.Arg&^wide == 0 {
				add(l, inst.Out, at, cap, prev, next)
			}
		case syntax.InstFail:
		default:
			l.threads = append(l.threads, pikeThread{pc: pc, cap: append([]int(nil), cap...)})
		}
	}

	prev := rune(-1)
	if pos > 0 {
		prev, _ = utf8.DecodeLastRuneInString(text[:pos])
	}
	gen++
	for p := pos; ; {
		next, width := rune(-1), 0
		if p < len(text) {
			next, width = utf8.DecodeRuneInString(text[p:])
		}
		if matched == nil {
			for k := range caps {
				caps[k] = -1
			}
			caps[0] = p
			add(clist, uint32(prog.Start), p, caps, prev, next)
		}
		if len(clist.threads) == 0 && (matched != nil || p >= len(text)) {
			break
		}
		gen++
		nlist.threads = nlist.threads[:0]
		nextPrev := next
		var after rune = -1
		if p+width < len(text) {
			after, _ = utf8.DecodeRuneInString(text[p+width:])
		}
	threads:
		for _, t := range clist.threads {
			inst := &prog.Inst[t.pc]
			switch inst.Op {
			case syntax.InstMatch:
				t.cap[1] = p
				matched = t.cap
				break threads
			default:
				if next >= 0 && instMatches(inst, next) {
					add(nlist, inst.Out, p+width, t.cap, nextPrev, after)
				}
			}
		}
		clist, nlist = nlist, clist
		if p >= len(text) {
			break
		}
		prev = next
		p += width
	}
	return matched
}

func instMatches(inst *syntax.Inst, r rune) bool {
	switch inst.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	case syntax.InstRune1:
		return r == inst.Rune[0]
	case syntax.InstRune:
		return inst.MatchRune(r)
	}
	return false
}

// expand writes the replacement template for match m: $1, ${1}, $name,
// ${name}, $$. A $name takes the longest run of letters, digits and
// underscores; unknown groups expand to nothing.
//
// Each `${` takes the next `}` as its end; the search for it resumes
// where the last one stopped, so a template of many unclosed `${` is
// read in linear time.
func (r *harnRegex) expand(sb *strings.Builder, tmpl, text string, m []int) {
	closeAt := -2 // the last `}` found; -1: none after it, -2: not searched yet
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c != '$' || i+1 >= len(tmpl) {
			sb.WriteByte(c)
			continue
		}
		var name string
		switch n := tmpl[i+1]; {
		case n == '$':
			sb.WriteByte('$')
			i++
			continue
		case n == '{':
			if closeAt == -2 || closeAt >= 0 && closeAt < i+2 {
				if closeAt = strings.IndexByte(tmpl[i+2:], '}'); closeAt >= 0 {
					closeAt += i + 2
				}
			}
			if closeAt < 0 {
				sb.WriteByte(c)
				continue
			}
			name = tmpl[i+2 : closeAt]
			i = closeAt
		default:
			j := i + 1
			for j < len(tmpl) && (tmpl[j] == '_' || tmpl[j] < utf8.RuneSelf && (unicode.IsLetter(rune(tmpl[j])) || lib.ASCIIDigit(tmpl[j]))) {
				j++
			}
			if j == i+1 {
				sb.WriteByte(c)
				continue
			}
			name = tmpl[i+1 : j]
			i = j - 1
		}
		g := -1
		if n, err := strconv.Atoi(name); err == nil && n >= 0 {
			g = n
		} else {
			for k, nm := range r.names {
				if nm == name && nm != "" {
					g = k
					break
				}
			}
		}
		if g >= 0 && 2*g+1 < len(m) && m[2*g] >= 0 {
			sb.WriteString(text[m[2*g]:m[2*g+1]])
		}
	}
}

// RegexMatches reports whether pattern (Harn regex syntax, no flags)
// matches somewhere in s; a pattern that does not compile is an error.
func RegexMatches(th *vm.Thread, pattern, s string) (bool, error) {
	re, err := compileRegex(th, pattern, "")
	if err != nil {
		return false, err
	}
	ms, err := re.findAll(th, s)
	return len(ms) > 0, err
}

// RegexProblem says why pattern is not a regular expression the regex
// builtins read, in words for scripts (`missing closing )`, `invalid
// nested repetition operator: **`), or "" when it is one. Schemas check
// their `pattern`s with it before validating (stdlib/schema); the
// compiled pattern is kept in th's regex cache for the validation.
func RegexProblem(th *vm.Thread, pattern string) string {
	_, err := cachedRegex(th, pattern, "")
	if err == nil {
		return ""
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		if se.Expr == "" || se.Expr == pattern {
			return string(se.Code)
		}
		return string(se.Code) + ": " + se.Expr
	}
	return err.Error()
}

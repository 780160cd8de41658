package text

import (
	"fmt"
	"strings"
	"testing"
)

// longPatterns are patterns of about 100 KB that each took seconds to
// compile (or to word the error for) when every `(?` opening, `[:`
// class name, `(?P<` name or `\x{` escape searched for its end from
// scratch, reading to the end of the pattern (and copying it).
func longPatterns() map[string]string {
	var named strings.Builder
	for k := 0; k < 10000; k++ {
		fmt.Fprintf(&named, "(?P<g%d>a)", k)
	}
	return map[string]string{
		"(? x50000":          strings.Repeat("(?", 50000),
		"(?P< x25000":        strings.Repeat("(?P<", 25000),
		"[[: x33000":         strings.Repeat("[[:", 33000),
		"(?i x33000":         strings.Repeat("(?i", 33000),
		`\x{ x33000`:         strings.Repeat(`\x{`, 33000),
		"10000 named groups": named.String(),
	}
}

// Long malformed patterns are refused, and long valid ones compile, in
// time linear in their length. Before: 2.8 s for `(?i` x33000, 16 s for
// `(?` x50000, 19 s for `(?P<` x25000 and 40 s for `[[:` x33000.
func TestLongPatternsScanLinearly(t *testing.T) {
	for name, p := range longPatterns() {
		_, err := newHarnRegex(p, "")
		if name == "10000 named groups" {
			if err != nil {
				t.Errorf("%s: %.200v", name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: compiled", name)
			continue
		}
		if msg := rustRegexError(p, false, err); msg == "" && err.Error() == "" {
			t.Errorf("%s: no error text", name)
		}
	}
}

func BenchmarkLongPatterns(b *testing.B) {
	for name, p := range longPatterns() {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := newHarnRegex(p, ""); err != nil {
					rustRegexError(p, false, err)
				}
			}
		})
	}
}

// A replacement template of many unclosed `${` is read in linear time:
// each `${` searched for its `}` from scratch (quadratic: about 3 s for
// ten matches of this template before).
func TestLongTemplateExpandsLinearly(t *testing.T) {
	re, err := newHarnRegex("(a)", "")
	if err != nil {
		t.Fatal(err)
	}
	tmpl := "${1}" + strings.Repeat("${", 100000)
	want := "a" + strings.Repeat("${", 100000)
	for range 10 {
		var sb strings.Builder
		re.expand(&sb, tmpl, "a", []int{0, 1, 0, 1})
		if sb.String() != want {
			t.Fatalf("got %.40q…, want the `${` kept and ${1} expanded", sb.String())
		}
	}
}

// A pattern that is one literal string is searched with strings.Index
// (findLiteral): regex_split("ab" x40000, the same) took 12 s in the
// automaton, whose work per text byte grows with the pattern. The fast
// path must find exactly what regexp finds (docs/spec/builtins.md §3.13).
func TestLiteralPatternsMatchAsRegexp(t *testing.T) {
	cases := []struct{ pattern, flags, text string }{
		{"ab", "", "xxabyyabab"},
		{"aa", "", "aaaaa"},
		{"é", "", "café éé"},
		{"ab", "i", "AB ab aB"},
		{"a.b", "", "a.b axb"},
		{`a\.b`, "", "a.b axb"},
		{"x", "", ""},
		{"(ab)", "", "abab"},
		{"ab$", "", "ab ab"},
		{"^ab$", "", "ab ab"},
		{"^ab$", "", "ab"},
		{"(?m)^ab$", "", "ab\nab"},
		{`\Aab\z`, "", "abab"},
	}
	for _, c := range cases {
		re, err := newHarnRegex(c.pattern, c.flags)
		if err != nil {
			t.Fatalf("%.20q: %v", c.pattern, err)
		}
		got := re.findAllIn(c.text)
		want := re.re.FindAllStringSubmatchIndex(c.text, -1)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%.20q in %.20q: got %v, want %v", c.pattern, c.text, got, want)
		}
	}
	for _, lit := range []string{"ab", `a\.b`, "é", strings.Repeat("ab", 40000)} {
		if re, _ := newHarnRegex(lit, ""); re.literal == "" {
			t.Errorf("%.20q: not searched as a literal", lit)
		}
	}
	for _, p := range []string{"(ab)", "ab$", "^ab$", `\Aab\z`, "a.b", "x|y", "(?i)ab", "(?i:a)b"} {
		if re, _ := newHarnRegex(p, ""); re.literal != "" {
			t.Errorf("%q searched as the literal %q", p, re.literal)
		}
	}
	if re, _ := newHarnRegex("ab", "i"); re.literal != "" {
		t.Errorf("case-folded pattern searched as a literal")
	}
}

func BenchmarkLongLiteralPattern(b *testing.B) {
	p := strings.Repeat("ab", 40000)
	re, err := newHarnRegex(p, "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		re.findAllIn(p)
	}
}

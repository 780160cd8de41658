package text

import (
	"strconv"
	"strings"
	"testing"
)

// Patterns whose program passes the regex crate's size limit are refused
// with the crate's error before any repetition is written out (without
// the measure, writing nested counts out took minutes or ran out of
// memory).
func TestRegexSizeLimitRefused(t *testing.T) {
	cases := map[string]string{
		"nested {2} x120":        strings.Repeat("(?:", 120) + "a" + strings.Repeat("){2}", 120),
		"nested capture {2}":     strings.Repeat("(", 120) + "a" + strings.Repeat("){2}", 120),
		"nested {2} x64":         strings.Repeat("(?:", 64) + "a" + strings.Repeat("){2}", 64),
		"nested {1000} x8":       strings.Repeat("(?:", 8) + "a" + strings.Repeat("){1000}", 8),
		"nested capture {1001}":  strings.Repeat("(", 20) + "a" + strings.Repeat("){1001}", 20),
		"repeated repetitions":   "a" + strings.Repeat("{2}", 240),
		"one long count":         "a{400000}",
		"wide class":             `\w{1000}{1000}`,
		"dot":                    `.{100000}`,
		"word assertion pattern": `\b(?:\b{start}a){1000}{300}`,
		"lazy counts":            strings.Repeat("(?:", 30) + "a" + strings.Repeat("){2}?", 30),
		"class runs":             `(?:[\W_]{1000}){300}`,
	}
	for name, p := range cases {
		_, err := newHarnRegex(p, "")
		if err == nil || err.Error() != "Compiled regex exceeds size limit of 10485760 bytes." {
			t.Errorf("%s: got %v, want the size-limit error", name, err)
		}
	}
}

// Patterns under the limit compile as before and match.
func TestRegexSizeUnderLimit(t *testing.T) {
	cases := []struct{ pattern, text, want string }{
		{strings.Repeat("(", 10) + "a" + strings.Repeat("){2}", 10), strings.Repeat("a", 1025), strings.Repeat("a", 1024)},
		{"(?:(?:a){100}){3}", strings.Repeat("a", 601), strings.Repeat("a", 300) + "|" + strings.Repeat("a", 300)},
		{"a{2500}", strings.Repeat("a", 2501), strings.Repeat("a", 2500)},
		{"(?:a{2}){3}b", "aaaaaab", "aaaaaab"},
		{"([a-z0-9-]{1,63}\\.){1,127}", "ab.cd.", "ab.cd."},
	}
	for _, c := range cases {
		re, err := newHarnRegex(c.pattern, "")
		if err != nil {
			t.Errorf("%.40q: %v", c.pattern, err)
			continue
		}
		var got []string
		for _, m := range re.findAllIn(c.text) {
			got = append(got, c.text[m[0]:m[1]])
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%.40q: got %.60q, want %.60q", c.pattern, strings.Join(got, "|"), c.want)
		}
	}
}

// An item that matches only the empty string is repeated at most once,
// as the crate's translator caps it, so nesting its counts writes
// nothing out and is no program past the limit.
func TestRegexEmptyOnlyRepetition(t *testing.T) {
	cases := []struct{ pattern, text, want string }{
		{"(?:){1000}{1000}{1000}x", "xx", "x|x"},
		{"(?:^){1000}{1000}{1000}a", "aa", "a"},
		{"(?:\\b|^){0,5000}{5000}a", "a a", "a|a"},
		{"(){3,}a", "a", "a"},
		{"(?:$){2}?", "", ""},
	}
	for _, c := range cases {
		if got, err := matchTexts(c.pattern, "", c.text); err != nil {
			t.Errorf("%q: %v", c.pattern, err)
		} else if got != c.want {
			t.Errorf("%q on %q: got %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

// A repetition of the crate's `\<` / `\>` (written as `\b` and a
// marker) applies to the whole assertion, not to the marker alone.
func TestRegexWordAssertionRepeated(t *testing.T) {
	cases := []struct{ pattern, text, want string }{
		{`\>?`, "ab", "0-0|1-1|2-2"},
		{`\>{0,3}`, "ab", "0-0|1-1|2-2"},
		{`\<*x`, "ax x", "1-2|3-4"},
		{`\<{2}c`, "cc c", "0-1|3-4"},
	}
	for _, c := range cases {
		re, err := newHarnRegex(c.pattern, "")
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		var got []string
		for _, m := range re.findAllIn(c.text) {
			got = append(got, strconv.Itoa(m[0])+"-"+strconv.Itoa(m[1]))
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%q on %q: got %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

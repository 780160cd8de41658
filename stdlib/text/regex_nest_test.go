package text

import (
	"strings"
	"testing"
)

// nested is p wrapped in n groups opening with open.
func nested(open string, n int, p string) string {
	return strings.Repeat(open, n) + p + strings.Repeat(")", n)
}

// The crate refuses a syntax tree more than 250 levels deep, marking the
// first node past the limit; each group, class, repetition, alternation
// and concatenation of two items or more takes a level.
func TestRegexNestLimit(t *testing.T) {
	const msg = "error: exceed the maximum number of nested parentheses/brackets (250)"
	cases := []struct {
		pattern    string
		start, end int // the runes under the carets; 0, 0 when the pattern is not too deep
	}{
		{nested("(", 250, "a"), 0, 0},
		{nested("(", 251, "a"), 250, 253}, // the innermost group
		{nested("(?:", 251, "a"), 750, 755},
		{nested("(?i:", 251, "a"), 1000, 1006},
		{nested("(", 249, "ab"), 0, 0},
		{nested("(", 250, "ab"), 250, 252},      // the concatenation
		{nested("(", 249, "a|b"), 0, 0},         // the alternation at level 250
		{nested("(", 250, "a|bc"), 250, 254},    // the alternation
		{nested("(", 250, "(?i)a"), 250, 255},   // a flag setting is an item
		{nested("(", 249, "a*?"), 0, 0},         // lazy: one repetition
		{nested("(", 250, "a{2}"), 250, 254},    // the repetition
		{"x" + nested("(", 250, "a"), 250, 253}, // under a concatenation
		{strings.Repeat("[", 250) + "a" + strings.Repeat("]", 250), 0, 0},
		{strings.Repeat("[", 251) + "a" + strings.Repeat("]", 251), 250, 253},
		{strings.Repeat("[", 250) + "a-z" + strings.Repeat("]", 250), 0, 0}, // a range is one item
		{strings.Repeat("[", 250) + "az" + strings.Repeat("]", 250), 250, 252},
		{"a" + strings.Repeat("{1}", 250), 0, 0},
		{"a" + strings.Repeat("{1}", 251), 0, 4},                // the innermost repetition
		{nested("(", 300, "") + nested("(", 300, ""), 249, 351}, // the first in the walk
	}
	for _, c := range cases {
		_, err := newHarnRegex(c.pattern, "")
		if c.end == 0 {
			if err != nil {
				t.Errorf("%.20q…: %.200v", c.pattern, err)
			}
			continue
		}
		want := "regex parse error:\n" + notatePattern(c.pattern, c.start, c.end) + msg
		if err == nil || err.Error() != want {
			t.Errorf("%.20q… marked at %d-%d: got %.200v", c.pattern, c.start, c.end, err)
		}
	}
}

// The nest limit comes after the parse: an unclosed group in a deep
// pattern is reported as such.
func TestRegexNestLimitAfterParse(t *testing.T) {
	p := nested("(", 300, "a") + "("
	_, err := newHarnRegex(p, "")
	if err == nil {
		t.Fatal("no error")
	}
	if got := rustRegexError(p, false, err); !strings.HasSuffix(got, "error: unclosed group") {
		t.Errorf("got %.200q", got)
	}
}

// A pattern tens of thousands of levels deep is refused in one pass
// (before, 50,000 named groups took half a minute).
func TestRegexNestLimitDeepPattern(t *testing.T) {
	for _, open := range []string{"(", "(?:", "(?i:", "["} {
		close := ")"
		if open == "[" {
			close = "]"
		}
		p := strings.Repeat(open, 50000) + "a" + strings.Repeat(close, 50000)
		_, err := newHarnRegex(p, "")
		if err == nil || !strings.HasSuffix(err.Error(), "(250)") {
			t.Errorf("%s x50000: got %.100v", open, err)
		}
	}
}

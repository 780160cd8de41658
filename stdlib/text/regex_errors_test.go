package text

import (
	"regexp/syntax"
	"strings"
	"testing"
	"time"
)

// A bad pattern is reported as Rust's regex crate reports it: the pattern,
// carets under the mistake, and the crate's name for it.
func TestRustRegexError(t *testing.T) {
	cases := []struct{ pattern, flags, want string }{
		{"(", "", "    (\n    ^\nerror: unclosed group"},
		{"(a(b)", "", "    (a(b)\n    ^\nerror: unclosed group"},
		{`\d+(`, "", "    \\d+(\n       ^\nerror: unclosed group"},
		{"a)", "", "    a)\n     ^\nerror: unopened group"},
		{"*a", "", "    *a\n    ^\nerror: repetition operator missing expression"},
		{"a|+", "", "    a|+\n      ^\nerror: repetition operator missing expression"},
		{"(?i)?", "", "    (?i)?\n        ^\nerror: repetition operator missing expression"},
		{"[a", "", "    [a\n    ^\nerror: unclosed character class"},
		{"x[^]a", "", "    x[^]a\n     ^^^\nerror: unclosed character class"},
		{`\q`, "", "    \\q\n    ^^\nerror: unrecognized escape sequence"},
		{`(a)\1`, "", "    (a)\\1\n       ^^\nerror: backreferences are not supported"},
		{"a(?<=b)", "", "    a(?<=b)\n     ^^^^\nerror: look-around, including look-ahead and look-behind, is not supported"},
		{"(?!x)", "", "    (?!x)\n    ^^^\nerror: look-around, including look-ahead and look-behind, is not supported"},
		{"[z-a]", "", "    [z-a]\n     ^^^\nerror: invalid character class range, the start must be <= the end"},
		{"x{3,1}", "", "    x{3,1}\n     ^^^^^\nerror: invalid repetition count range, the start must be <= the end"},
		{"x{2000,1000}", "", "    x{2000,1000}\n     ^^^^^^^^^^^\nerror: invalid repetition count range, the start must be <= the end"},
		{"(?z)", "", "    (?z)\n      ^\nerror: unrecognized flag"},
		{`a\`, "", "    a\\\n     ^\nerror: incomplete escape sequence, reached end of pattern prematurely"},
		{"(?P<>a)", "", "    (?P<>a)\n        ^\nerror: empty capture group name"},
		{"(?P<a-b>x)", "", "    (?P<a-b>x)\n         ^\nerror: invalid capture group character"},
		{`é\p{Foo}`, "", "    é\\p{Foo}\n     ^^^^^^^\nerror: Unicode property not found"},
		{`a\012`, "", "    a\\012\n     ^^\nerror: backreferences are not supported"},
		{`\Q`, "", "    \\Q\n    ^^\nerror: unrecognized escape sequence"},
		{`\xZZ`, "", "    \\xZZ\n      ^\nerror: invalid hexadecimal digit"},
		{`\x{110000}`, "", "    \\x{110000}\n       ^^^^^^\nerror: hexadecimal literal is not a Unicode scalar value"},
		{`\U{110000}`, "", "    \\U{110000}\n       ^^^^^^\nerror: hexadecimal literal is not a Unicode scalar value"},
		{`\u{}`, "", "    \\u{}\n       ^\nerror: hexadecimal literal empty"},
		{`[\U{zz}]`, "", "    [\\U{zz}]\n        ^\nerror: invalid hexadecimal digit"},
		{`[\d-z]`, "", "    [\\d-z]\n     ^^\nerror: invalid range boundary, must be a literal"},
		{"(?i", "", "    (?i\n       ^\nerror: expected flag but got end of regex"},
		{"(?-)a", "", "    (?-)a\n      ^\nerror: dangling flag negation operator"},
		{"(?i-m-s)", "", "    (?i-m-s)\n       ^ ^\nerror: flag negation operator repeated"},
		{"(?ii)", "", "    (?ii)\n      ^^\nerror: duplicate flag"},
		{"(?<1a>x)", "", "    (?<1a>x)\n       ^\nerror: invalid capture group character"},
		{"(?-u).", "", "    (?-u).\n         ^\nerror: pattern can match invalid UTF-8"},
		{`(?-u:\W)`, "", "    (?-u:\\W)\n         ^^\nerror: pattern can match invalid UTF-8"},
		{"a(?", "", "    a(?\n     ^\nerror: unclosed group"},
		{`(?-u)\pL`, "", "    (?-u)\\pL\n         ^^^\nerror: Unicode not allowed here"},
		{`(?-u:[\p{Greek}])`, "", "    (?-u:[\\p{Greek}])\n          ^^^^^^^^^\nerror: Unicode not allowed here"},
		{"a # (\n)", "x", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n1: a # (\n2: )\n   ^\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\nerror: unopened group"},
	}
	for _, c := range cases {
		_, err := newHarnRegex(c.pattern, c.flags)
		if err == nil {
			t.Errorf("%q compiled", c.pattern)
			continue
		}
		got := rustRegexError(c.pattern, c.flags == "x", err)
		if got == "" {
			got = err.Error() // a mistake only the crate refuses (rustOnlyError)
		}
		if got != "regex parse error:\n"+c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.pattern, got, "regex parse error:\n"+c.want)
		}
	}
}

// A mistake the regex crate words differently or not at all keeps Go's text.
func TestRustRegexErrorFallsBack(t *testing.T) {
	// an item repeated past 100,000 times (longRepetition writes no runs
	// that long)
	_, err := newHarnRegex("(a){100001}", "")
	if err == nil {
		t.Fatal("(a){100001} compiled")
	}
	if got := rustRegexError("(a){100001}", false, err); got != "" {
		t.Errorf("(a){100001}: got %q, want the Go text kept", got)
	}
	if got := rustRegexError("x", false, &syntax.Error{Code: syntax.ErrLarge, Expr: "x"}); got != "" {
		t.Errorf("ErrLarge: got %q", got)
	}
}

// groupOpening reads a group's opening as groupOpenLen measures it.
func TestGroupOpening(t *testing.T) {
	for _, p := range []string{"(", "(a)", "(?", "(?i)a", "(?x-u:a)", "(?P<n>a)", "(?<n>a)", "(?:)", "(?i"} {
		if got, want := groupOpening([]rune(p), 0, &nextFinder{}), p[:groupOpenLen(p, 0, &nextFinder{})]; got != want {
			t.Errorf("%q: got %q, want %q", p, got, want)
		}
	}
}

// A pattern of many groups compiles in linear time: scanning it does not
// copy the rest of the pattern at each group (quadratic: seconds for
// 10,000 groups).
func TestManyGroupsCompileFast(t *testing.T) {
	p := strings.Repeat("(?:a)", 40000)
	done := make(chan error, 1)
	go func() {
		_, err := newHarnRegex(p, "")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("compiling 40,000 groups took over 10s")
	}
}

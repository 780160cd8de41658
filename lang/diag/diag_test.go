package diag

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSuggest(t *testing.T) {
	names := []string{"total_amount", "e", "println", "__internal", "count", "counter"}
	cases := []struct{ name, want string }{
		{"total_amout", "total_amount"}, // distance 1, long name
		{"x", "e"},                      // one-letter names: distance ≤ 1
		{"pritnln", "println"},          // a swap of neighbours is one edit
		{"__interna", ""},               // names starting with __ are never suggested
		{"zzzzzzzz", ""},                // nothing close enough
		{"coutn", "count"},              // ties: smallest distance, then closest length
	}
	for _, c := range cases {
		if got := Suggest(c.name, names); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEditDistanceCountsASwapAsOneEdit(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"lenght", "length", 1},
		{"Flaot", "float", 2}, // case, then a swap
		{"lnegth", "lenght", 2},
		{"abc", "abc", 0},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a swapped pair
	}
	for _, c := range cases {
		if got := EditDistance(c.a, c.b, 10); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := EditDistance("abcdef", "zzzzzz", 2); got != 3 {
		t.Errorf("EditDistance past the limit = %d, want limit+1 = 3", got)
	}
}

func TestSuggestCountsTranspositions(t *testing.T) {
	if got := Suggest("Flaot", []string{"float", "int", "string"}); got != "float" {
		t.Errorf("Suggest(Flaot) = %q, want float", got)
	}
	if got := Suggest("lnegth", []string{"length", "lines"}); got != "length" {
		t.Errorf("Suggest(lnegth) = %q, want length", got)
	}
}

func TestRenderShowsCaretUnderColumn(t *testing.T) {
	e := &Error{File: "a.harn", Line: 2, Col: 9, Msg: "boom", Help: "try again"}
	out := Render(e, []byte("let a = 1\nlet b = oops\n"))
	for _, want := range []string{"error: boom", "--> a.harn:2:9", "2 | let b = oops", "  |         ^", "= help: try again"} {
		if !strings.Contains(out, want) {
			t.Errorf("render missing %q:\n%s", want, out)
		}
	}
}

func TestGoldenText(t *testing.T) {
	parse := &Error{Msg: "expected x, found y", Golden: "Expected x, got y at 1:2", Phase: PhaseParse}
	if parse.GoldenText() != "Expected x, got y at 1:2" {
		t.Errorf("parse golden = %q", parse.GoldenText())
	}
	comp := &Error{Line: 3, Msg: "break outside of loop", Phase: PhaseCompile}
	if comp.GoldenText() != "Compile error at line 3: break outside of loop" {
		t.Errorf("compile golden = %q", comp.GoldenText())
	}
}

// A very long source line is clipped to a window around the column, the
// caret still under the right character (issue 17 item 11).
func TestRenderClipsLongLines(t *testing.T) {
	line := strings.Repeat("a", 100000) + "XYZ" + strings.Repeat("b", 100000)
	got := Render(&Error{File: "m.harn", Line: 1, Col: 100002, Msg: "boom"}, []byte(line+"\n"))
	if len(got) > 600 {
		t.Fatalf("snippet is %d bytes long", len(got))
	}
	lines := strings.Split(got, "\n")
	src, caret := lines[3], lines[4]
	i := strings.Index(caret, "^")
	if !strings.HasPrefix(src, "1 | …") || !strings.HasSuffix(src, "…") || i < 0 || []rune(src)[len([]rune(caret[:i]))] != 'Y' {
		t.Errorf("clipped snippet:\n%s", got)
	}
	// a line of wide characters is clipped by its width in columns
	wide := "let s = \"" + strings.Repeat("日", 100) + "\" + ;"
	got = Render(&Error{File: "w.harn", Line: 1, Col: 114, Msg: "boom"}, []byte(wide+"\n"))
	lines = strings.Split(got, "\n")
	src, caret = lines[3], lines[4]
	if !strings.HasPrefix(src, "1 | …") || !strings.HasSuffix(src, "+ ;") || caret != "  |"+strings.Repeat(" ", 160)+"^" {
		t.Errorf("clipped wide snippet:\n%s", got)
	}
	short := Render(&Error{File: "m.harn", Line: 1, Col: 3, Msg: "boom"}, []byte("let x = 1\n"))
	if !strings.Contains(short, "1 | let x = 1\n  |   ^\n") {
		t.Errorf("short line changed:\n%s", short)
	}
}

// A coded diagnostic renders its code in brackets after the severity
// (docs/spec/newer.md §3.1); one without a code keeps the plain label.
func TestRenderShowsCode(t *testing.T) {
	src := []byte("let label: string = 42\n")
	cases := []struct {
		e    *Error
		want string
	}{
		{&Error{File: "a.harn", Line: 1, Col: 21, Code: "HARN-TYP-007", Msg: "let binding `label`: expected string, found int"},
			"error[HARN-TYP-007]: let binding `label`: expected string, found int\n  --> a.harn:1:21\n"},
		{&Error{File: "a.harn", Line: 1, Col: 1, Code: "HARN-OWN-001", Severity: SevWarning, Msg: "Cannot assign to 'x'"},
			"warning[HARN-OWN-001]: Cannot assign to 'x'\n"},
		{&Error{File: "a.harn", Line: 1, Col: 1, Msg: "unreachable code", Severity: SevWarning}, "warning: unreachable code\n"},
		{&Error{File: "a.harn", Line: 1, Col: 1, Msg: "boom"}, "error: boom\n"},
	}
	for _, c := range cases {
		if got := Render(c.e, src); !strings.HasPrefix(got, c.want) {
			t.Errorf("Render = %q, want prefix %q", got, c.want)
		}
	}
}

func TestTrimLabel(t *testing.T) {
	for in, want := range map[string]string{
		"error[HARN-TYP-007]: let binding `x`: expected int, found string": "let binding `x`: expected int, found string",
		"warning[HARN-OWN-003]: owned binding `x` escapes":                 "owned binding `x` escapes",
		"warning: unreachable code":                                        "unreachable code",
		"error: boom [x]: y":                                               "boom [x]: y",
		"warning[not a code: x":                                            "warning[not a code: x",
		"  --> a.harn:1:1":                                                 "  --> a.harn:1:1",
	} {
		if got := TrimLabel(in); got != want {
			t.Errorf("TrimLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// A short candidate is not proposed for a longer name: the allowance
// comes from the shorter of the two (docs/spec/language.md §3.2 takes it
// from the misspelt name alone).
func TestSuggestShortCandidates(t *testing.T) {
	names := []string{"e", "pi", "len", "items", "println"}
	cases := []struct{ name, want string }{
		{"q", "e"},     // one letter for one letter, as the spec's example
		{"qz", ""},     // not `e` for a two-letter name without it
		{"xe", "e"},    // a two-letter name that contains it
		{"abe", ""},    // distance 2 to `e`, allowed by the name's length alone
		{"pie", "pi"},  // distance 1 from a two-letter name
		{"pipe", ""},   // distance 2 from `pi`, too far for a two-letter name
		{"lne", "len"}, // transposition inside a short name
		{"itmes", "items"},
	}
	for _, c := range cases {
		if got := Suggest(c.name, names); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestRenderHidesControlCharacters pins that a snippet never writes raw
// control bytes (an escape sequence, a binary file) to the terminal, and
// that the caret still lines up under the column.
func TestRenderHidesControlCharacters(t *testing.T) {
	src := []byte("\x7fELF\x1b[2J\xff\x00 x\r\n")
	got := Render(&Error{File: "b.harn", Line: 1, Col: 11, Msg: "boom"}, src)
	want := "1 | ␡ELF␛[2J\uFFFD␀ x\n  |           ^\n"
	if !strings.Contains(got, want) {
		t.Errorf("Render =\n%s\nwant it to contain\n%s", got, want)
	}
	if strings.ContainsAny(got, "\x7f\x1b\x00\r") || !utf8.ValidString(got) {
		t.Errorf("Render = %q: raw control bytes or invalid UTF-8", got)
	}
}

// The caret lines up under the column in a terminal: a wide character
// (CJK, fullwidth, emoji) before it takes two columns, a tab stays a tab;
// the reported column still counts characters.
func TestRenderCaretAfterWideCharacters(t *testing.T) {
	for _, c := range []struct {
		line  string
		col   int
		caret string
	}{
		{`let s = "日本" + 1`, 14, "  | " + strings.Repeat(" ", 15) + "^"},
		{`let s = "ｘ" + 1`, 13, "  | " + strings.Repeat(" ", 13) + "^"},
		{`let s = "😀" + 1`, 13, "  | " + strings.Repeat(" ", 13) + "^"},
		{"\tlet s = \"é\" + 1", 14, "  | \t" + strings.Repeat(" ", 12) + "^"},
		// a combining accent and a zero-width space take no column
		{"let s = \"e\u0301\" + 1", 15, "  | " + strings.Repeat(" ", 13) + "^"},
		{"let s = \"a\u200bb\" + 1", 15, "  | " + strings.Repeat(" ", 13) + "^"},
	} {
		got := Render(&Error{File: "p.harn", Line: 1, Col: c.col, Msg: "m"}, []byte(c.line+"\n"))
		lines := strings.Split(got, "\n")
		if len(lines) < 5 || lines[1] != fmt.Sprintf("  --> p.harn:1:%d", c.col) || lines[4] != c.caret {
			t.Errorf("%q col %d:\n%s", c.line, c.col, got)
		}
	}
}

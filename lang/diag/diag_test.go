package diag

import (
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	names := []string{"total_amount", "e", "println", "__internal", "count", "counter"}
	cases := []struct{ name, want string }{
		{"total_amout", "total_amount"}, // distance 1, long name
		{"x", "e"},                      // one-letter names: distance ≤ 1
		{"pritnln", "println"},          // transposition = distance 2
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

package lsp

import (
	"testing"
)

// docs/lsp.md (Formatting): the formatting edit replaces only the lines
// that change, and applying it gives the formatted text exactly.
func TestReplaceAllTouchesOnlyChangedLines(t *testing.T) {
	for _, c := range []struct {
		text, out string
		first     int // the edit's first line
	}{
		{"let a = 1\nlet  b = 2\nlet c = 3\n", "let a = 1\nlet b = 2\nlet c = 3\n", 1},
		{"a\nb\n", "a\nb\nc\n", 2},
		{"a\nb\nc\n", "a\nc\n", 1},
		{"a\nb", "a\nc", 1},
		{"a\nb", "a\nb\n", 1},
		{"a\nb\n", "a\nb", 1},
		{"x\r\ny\r\n", "x\r\nz\r\n", 1},
		{"", "a\n", 0},
		{"a\n", "", 0},
		{"same\nsame\n", "same\nsame\nsame\n", 2},
		{"😀 a\n  b\n", "😀 a\nb\n", 1},
	} {
		edits := replaceAll(c.text, c.out)
		if len(edits) != 1 {
			t.Fatalf("%q → %q: %d edits", c.text, c.out, len(edits))
		}
		if got := applyEdits(c.text, edits); got != c.out {
			t.Errorf("%q → %q: applying %v gives %q", c.text, c.out, edits, got)
		}
		if l := int(edits[0].Range.Start.Line); l != c.first {
			t.Errorf("%q → %q: the edit starts on line %d, want %d", c.text, c.out, l, c.first)
		}
	}
	if e := replaceAll("a\n", "a\n"); len(e) != 0 {
		t.Errorf("an unchanged text has edits %v", e)
	}
}

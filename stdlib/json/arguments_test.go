package json

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// TestParseArguments pins the one rule for a model's tool-call argument
// text: blank is the empty object, JSON is read as Parse reads it, and
// other text is an error saying where it broke.
func TestParseArguments(t *testing.T) {
	for _, c := range []struct{ text, value, err string }{
		{"", "{}", ""},
		{" \n\t", "{}", ""},
		{`{"a": 1.0, "b": [1, 2e2]}`, "{a: 1.0, b: [1, 200.0]}", ""},
		{` [1] `, "[1]", ""},
		{`{a: 1`, "", "arguments are not JSON: key must be a string at line 1 column 2"},
		{`{"a": 1} x`, "", "arguments are not JSON: trailing characters at line 1 column 10"},
	} {
		v, err := ParseArguments(c.text)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: got %v, want error %q", c.text, err, c.err)
			}
			continue
		}
		if err != nil || vm.ToDisplay(v) != c.value {
			t.Errorf("%q: got %v, %v; want %s", c.text, v, err, c.value)
		}
	}
}

package tool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnlang/harn/vm"
)

// Integral numbers reach an `integer` parameter as Harn ints; integers
// outside int64 and numbers no float64 holds are refused before the
// handler runs (issue 17 item 6).
func TestIntegerInputs(t *testing.T) {
	var got []string
	typer := vm.NewBuiltin("h", "h(a)", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d := a.At(0).Object().(*vm.Dict)
		var parts []string
		d.Range(func(k string, v vm.Value) bool {
			parts = append(parts, k+"="+v.Type()+":"+vm.ToDisplay(v))
			return true
		})
		got = append(got, strings.Join(parts, ","))
		return vm.Nil, nil
	})
	d := jv(t, `{"name":"t","inputSchema":{"type":"object","properties":{
		"n":{"type":"integer"},
		"f":{"type":"number"},
		"l":{"type":"array","items":{"type":"integer"}},
		"o":{"anyOf":[{"type":"string"},{"type":"integer"}]},
		"r":{"$ref":"#/$defs/count"}},
		"$defs":{"count":{"type":"integer","minimum":0}}}}`).Object().(*vm.Dict).Set("handler", vm.Of(typer))
	pt, _ := prepared(t, vm.Of(d)).Tool("t")
	th := newThread()
	for _, c := range []struct{ args, want string }{
		{`{"n": 1.0}`, "n=int:1"},
		{`{"n": 1e0}`, "n=int:1"},
		{`{"n": 10E-1}`, "n=int:1"},
		{`{"n": -9223372036854775808}`, "n=int:-9223372036854775808"},
		{`{"n": 9.223372036854775807e18}`, "n=int:9223372036854775807"},
		{`{"f": 1.0}`, "f=float:1.0"},
		{`{"l": [1.0, 2e0, 3]}`, "l=list:[1, 2, 3]"},
		{`{"o": 2.0}`, "o=int:2"},
		{`{"r": 5e0}`, "r=int:5"},
	} {
		got = nil
		o := pt.Invoke(th, parseArgs(t, c.args))
		if o.Kind != Success || len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: outcome %d %q, handler saw %q, want %q", c.args, o.Kind, o.Summary, got, c.want)
		}
	}
	for _, c := range []struct{ args, want string }{
		{`{"n": 9223372036854775808}`, "/* failed type (integer outside the 64-bit range)"},
		{`{"n": -9223372036854775809}`, "/* failed type (integer outside the 64-bit range)"},
		{`{"n": 1e400}`, "/* failed type (number outside the 64-bit float range)"},
		{`{"f": -1e400}`, "/* failed type (number outside the 64-bit float range)"},
		{`{"extra": [1e999]}`, "/*/[] failed type (number outside the 64-bit float range)"},
		{`{"l": [1, 1e19]}`, "/*/[] failed type (integer outside the 64-bit range)"},
	} {
		got = nil
		o := pt.Invoke(th, parseArgs(t, c.args))
		if o.Kind != InvalidInput || !strings.Contains(o.Summary, c.want) || got != nil {
			t.Errorf("%s: outcome %d %q (handler saw %q), want input refused with %q", c.args, o.Kind, o.Summary, got, c.want)
		}
	}
}

// FromJSON reads a number's text as json_parse does
// (docs/spec/builtins.md §3.12): -0 and numbers with a fraction or
// exponent are floats, integers within 64 bits ints.
func TestFromJSONNumbersAsJSONParse(t *testing.T) {
	for text, want := range map[string]string{
		"-0": "float:-0.0", "0": "int:0", "123.0": "float:123.0", "1e2": "float:100.0",
		"9007199254740993": "int:9007199254740993", "12345678901234567890": "float:12345678901234567000",
	} {
		v := FromJSON(json.Number(text))
		if got := v.Type() + ":" + vm.ToDisplay(v); got != want {
			t.Errorf("%s: %s, want %s", text, got, want)
		}
	}
}

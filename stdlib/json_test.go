package stdlib_test

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

func TestJSONParse(t *testing.T) {
	runT2(t, []t2case{
		{"json_parse", []vm.Value{sv(`{"b": 1.0, "a": [1, 2e2, null], "c": "x"}`)}, "{a: [1, 200.0, nil], b: 1.0, c: x}"},
		{"json_parse", []vm.Value{sv(`{"a": 1, "a": 2}`)}, "{a: 2}"},
		{"json_parse", []vm.Value{sv(`18446744073709551615`)}, "18446744073709552000"},
		{"json_parse", []vm.Value{sv(`9223372036854775807`)}, "9223372036854775807"},
		{"json_parse", []vm.Value{sv(`-0`)}, "-0.0"},
		{"json_parse", []vm.Value{sv(`"a\u00e9\ud83d\ude00\n"`)}, "aé😀\n"},
		{"json_parse", []vm.Value{sv(` [ ] `)}, "[]"},
		{"json_parse", []vm.Value{iv(5)}, "5"},
		{"json_parse", nil, "ERR: json_parse requires 1 argument"},
		{"json_parse", []vm.Value{sv(``)}, "ERR: JSON parse error: EOF while parsing a value at line 1 column 0"},
		{"json_parse", []vm.Value{sv(`{bad`)}, "ERR: JSON parse error: key must be a string at line 1 column 2"},
		{"json_parse", []vm.Value{sv(`[1,]`)}, "ERR: JSON parse error: trailing comma at line 1 column 4"},
		{"json_parse", []vm.Value{sv(`{"a":1,}`)}, "ERR: JSON parse error: trailing comma at line 1 column 8"},
		{"json_parse", []vm.Value{sv(`[1 2]`)}, "ERR: JSON parse error: expected `,` or `]` at line 1 column 4"},
		{"json_parse", []vm.Value{sv(`{"a":1 "b"}`)}, "ERR: JSON parse error: expected `,` or `}` at line 1 column 8"},
		{"json_parse", []vm.Value{sv(`{"a" 1}`)}, "ERR: JSON parse error: expected `:` at line 1 column 6"},
		{"json_parse", []vm.Value{sv(`[1`)}, "ERR: JSON parse error: EOF while parsing a list at line 1 column 2"},
		{"json_parse", []vm.Value{sv(`{"a":1`)}, "ERR: JSON parse error: EOF while parsing an object at line 1 column 6"},
		{"json_parse", []vm.Value{sv(`"abc`)}, "ERR: JSON parse error: EOF while parsing a string at line 1 column 4"},
		{"json_parse", []vm.Value{sv("[\n  1,\n  x]")}, "ERR: JSON parse error: expected value at line 3 column 3"},
		{"json_parse", []vm.Value{sv(`1 2`)}, "ERR: JSON parse error: trailing characters at line 1 column 3"},
		{"json_parse", []vm.Value{sv(`"\q"`)}, "ERR: JSON parse error: invalid escape at line 1 column 3"},
		{"json_parse", []vm.Value{sv(`NaN`)}, "ERR: JSON parse error: expected value at line 1 column 1"},
		{"json_parse", []vm.Value{sv(`tru`)}, "ERR: JSON parse error: EOF while parsing a value at line 1 column 3"},
		{"json_parse", []vm.Value{sv(`01`)}, "ERR: JSON parse error: invalid number at line 1 column 2"},
		{"json_parse", []vm.Value{sv(`1e999`)}, "ERR: JSON parse error: number out of range at line 1 column 5"},
		{"json_parse", []vm.Value{sv("\"a\nb\"")}, "ERR: JSON parse error: control character (\\u0000-\\u001F) found while parsing a string at line 2 column 0"},
	})
}

var pointOne = 0.1

func TestJSONStringify(t *testing.T) {
	e := newT2(t)
	v := mustParse(t, `{"name":"Ada","scores":[1.0,2.5],"meta":{"ok":true,"missing":null},"tag":"a\"b\\c\nd"}`)
	if got := e.show(t, "json_stringify", v); got != `{"meta":{"missing":null,"ok":true},"name":"Ada","scores":[1,2.5],"tag":"a\"b\\c\nd"}` {
		t.Errorf("E8: %s", got)
	}
	cases := []struct {
		in   vm.Value
		want string
	}{
		{lv(fv(1.0), fv(math.Copysign(0, -1)), fv(0.5), fv(1e15), fv(pointOne+0.2)), `[1,-0,0.5,1000000000000000,0.30000000000000004]`},
		{lv(fv(math.NaN()), fv(math.Inf(1)), fv(math.Inf(-1))), `[NaN,inf,-inf]`},
		{lv(vm.Of(vm.Ok(iv(1))), vm.DurationOf(int64(5000)), vm.Of(&vm.Range{Start: 1, End: 3, Inclusive: true}), vm.Of(vm.NewSet([]vm.Value{iv(1), iv(2)}))), `[null,null,"1 to 3",[1,2]]`},
		{vm.Of(vm.NewStruct("P", []vm.Field{{Name: "y", Value: iv(2)}, {Name: "x", Value: iv(1)}})), `{"x":1,"y":2}`},
		{vm.Of(stdlib.NewBytes([]byte("hi"))), `{"$bytes_b64":"aGk="}`},
		{sv("tab\there \"q\" back\\ é/<>&\u007f\u0001\r"), `"tab\there \"q\" back\\ é/<>&\u007f\u0001\r"`},
		{vm.Nil, `null`},
	}
	for _, c := range cases {
		if got := e.show(t, "json_stringify", c.in); got != c.want {
			t.Errorf("json_stringify(%s) = %s, want %s", vm.ToDisplay(c.in), got, c.want)
		}
	}
	if got := e.show(t, "json_stringify"); got != "ERR: json_stringify requires 1 argument" {
		t.Errorf("arity: %s", got)
	}
}

func TestJSONExtractAndPointer(t *testing.T) {
	doc := mustParse(t, `{"a":[10,{"b":"x"}],"c/d":1,"e~f":2}`)
	small := mustParse(t, `{"a":[1,2],"b":{"c":3}}`)
	runT2(t, []t2case{
		{"json_extract", []vm.Value{sv("Here:\n```json\n{\"a\": 1}\n```\nDone")}, "{a: 1}"},
		{"json_extract", []vm.Value{sv(`noise {"a": {"b": "}"}} tail`), sv("a")}, "{b: }}"},
		{"json_extract", []vm.Value{sv("list: [1, 2] end")}, "[1, 2]"},
		{"json_extract", []vm.Value{sv(" 42 ")}, "42"},
		{"json_extract", []vm.Value{sv(`{"a": 1}`), sv("z")}, "ERR: json_extract: key 'z' not found"},
		{"json_extract", []vm.Value{sv(`[1]`), sv("z")}, "ERR: json_extract: parsed value is not a dict, cannot extract key"},
		{"json_extract", []vm.Value{sv(`{oops}`)}, "ERR: json_extract: failed to parse JSON: key must be a string at line 1 column 2"},
		{"json_extract", nil, "ERR: json_extract requires at least 1 argument: text"},
		{"json_pointer", []vm.Value{doc, sv("/a/1/b")}, "x"},
		{"json_pointer", []vm.Value{doc, sv("/c~1d")}, "1"},
		{"json_pointer", []vm.Value{doc, sv("/e~0f")}, "2"},
		{"json_pointer", []vm.Value{doc, sv("/a/01")}, "nil"},
		{"json_pointer", []vm.Value{doc, sv("/a/5")}, "nil"},
		{"json_pointer", []vm.Value{doc, sv("")}, vm.ToDisplay(doc)},
		{"json_pointer", []vm.Value{doc, sv("a")}, "ERR: json_pointer: pointer must be empty or start with '/'"},
		{"json_pointer", []vm.Value{doc, sv("/a~2")}, "ERR: json_pointer: invalid escape '~2' in pointer"},
		{"json_pointer", []vm.Value{doc, sv("/a~")}, "ERR: json_pointer: dangling '~' in pointer"},
		{"json_pointer", []vm.Value{doc}, "ERR: json_pointer requires 2 arguments"},
		{"json_pointer_set", []vm.Value{small, sv("/b/c"), iv(30)}, "{a: [1, 2], b: {c: 30}}"},
		{"json_pointer_set", []vm.Value{small, sv("/b/d"), iv(4)}, "{a: [1, 2], b: {c: 3, d: 4}}"},
		{"json_pointer_set", []vm.Value{small, sv("/a/-"), iv(9)}, "{a: [1, 2, 9], b: {c: 3}}"},
		{"json_pointer_set", []vm.Value{small, sv("/a/2"), iv(9)}, "{a: [1, 2, 9], b: {c: 3}}"},
		{"json_pointer_set", []vm.Value{small, sv("/a/7"), iv(9)}, "{a: [1, 2], b: {c: 3}}"},
		{"json_pointer_set", []vm.Value{small, sv("/x/y"), iv(1)}, "{a: [1, 2], b: {c: 3}}"},
		{"json_pointer_set", []vm.Value{small, sv(""), iv(1)}, "1"},
		{"json_pointer_set", []vm.Value{small, sv("/a")}, "ERR: json_pointer_set requires 3 arguments"},
		{"json_pointer_delete", []vm.Value{small, sv("/a/0")}, "{a: [2], b: {c: 3}}"},
		{"json_pointer_delete", []vm.Value{small, sv("/b/c")}, "{a: [1, 2], b: {}}"},
		{"json_pointer_delete", []vm.Value{small, sv("/missing")}, "{a: [1, 2], b: {c: 3}}"},
		{"json_pointer_delete", []vm.Value{small, sv("")}, "nil"},
		{"json_pointer_delete", []vm.Value{small, sv("x")}, "ERR: json_pointer_delete: pointer must be empty or start with '/'"},
	})
}

func TestJQ(t *testing.T) {
	data := mustParse(t, `{"items":[{"n":1},{"n":5},{"n":7}],"b":1,"a":2}`)
	runT2(t, []t2case{
		{"jq", []vm.Value{data, sv(".items | .[] | .n")}, "[1, 5, 7]"},
		{"jq", []vm.Value{data, sv(".items[] | select(.n > 2) | .n")}, "[5, 7]"},
		{"jq", []vm.Value{data, sv("keys")}, "[[a, b, items]]"},
		{"jq", []vm.Value{lv(iv(1), iv(2), iv(3)), sv("length")}, "[3]"},
		{"jq", []vm.Value{data, sv(".a, .b")}, "[2, 1]"},
		{"jq", []vm.Value{data, sv(`."a"`)}, "[2]"},
		{"jq", []vm.Value{data, sv(".items | map(.n)")}, "[[1, 5, 7]]"},
		{"jq", []vm.Value{data, sv(".items[1:]")}, "[[{n: 5}, {n: 7}]]"},
		{"jq", []vm.Value{data, sv(".items[-1].n")}, "[7]"},
		{"jq", []vm.Value{data, sv("{x: .a, b}")}, "[{b: 1, x: 2}]"},
		{"jq", []vm.Value{data, sv(".a == 2 and .b != 2")}, "[true]"},
		{"jq", []vm.Value{data, sv(".a < 1 or (.b | not)")}, "[false]"},
		{"jq", []vm.Value{data, sv(".items[0] | type")}, "[object]"},
		{"jq", []vm.Value{data, sv("[.. | numbers]")}, "[[2, 1, 1, 5, 7]]"},
		{"jq", []vm.Value{data, sv("[.. | input?]")}, "ERR: jq: error: input/0 is not defined"},
		{"jq", []vm.Value{lv(iv(1), lv(iv(2))), sv("[..]")}, "[[[1, [2]], 1, [2], 2]]"},
		{"jq", []vm.Value{dv("a", iv(1)), sv("values")}, "[[1]]"},
		{"jq", []vm.Value{iv(5), sv(".a")}, `ERR: Cannot index number with "a"`},
		{"jq", []vm.Value{iv(5), sv(".[]")}, "ERR: Cannot iterate over number (5)"},
		{"jq", []vm.Value{iv(5), sv(".a?")}, "[]"},
		{"jq", []vm.Value{iv(5), sv(".a |")}, "ERR: jq: parse error: unexpected end of expression at position 4"},
		{"jq", []vm.Value{iv(5)}, "ERR: jq requires 2 arguments"},
		{"jq_first", []vm.Value{data, sv(".items | .[1] | .n")}, "5"},
		{"jq_first", []vm.Value{lv(), sv(".[]")}, "nil"},
	})
}

func TestJQOperators(t *testing.T) {
	data := mustParse(t, `{"a":2,"b":null,"s":"hi","l":[3,1,2],"o":{"x":1}}`)
	runT2(t, []t2case{
		{"jq", []vm.Value{data, sv(".a + 1, .a - 1, .a * 3, .a / 4, .a % 2")}, "[3, 1, 6, 0.5, 0]"},
		{"jq", []vm.Value{data, sv(".b // \"dflt\", .a // 5")}, "[dflt, 2]"},
		{"jq", []vm.Value{data, sv(".s + \"!\", .l + [9], .o + {y: 2}")}, "[hi!, [3, 1, 2, 9], {x: 1, y: 2}]"},
		{"jq", []vm.Value{data, sv(".l - [1]")}, "[[3, 2]]"},
		{"jq", []vm.Value{data, sv("(.s | length), (.o | length), (.b | length), (-5 | length)")}, "[2, 1, 0, 5]"},
		{"jq", []vm.Value{data, sv(".l | keys")}, "[[0, 1, 2]]"},
		{"jq", []vm.Value{data, sv("[.a, .s, .b, .l, .o] | map(type)")}, "[[number, string, null, array, object]]"},
		{"jq", []vm.Value{data, sv("null < false, false < 1, 1 < \"a\", \"a\" < [], [] < {}, [1, 2] < [1, 3], {a: 1} == {a: 1}")}, "[true, true, true, true, true, true, true]"},
		{"jq", []vm.Value{data, sv(".a >= 2, .a <= 1, .a != 2")}, "[true, false, false]"},
		{"jq", []vm.Value{data, sv("{k: .a | tostring, (.s): 1}")}, "[{hi: 1, k: 2}]"},
		{"jq", []vm.Value{data, sv(".l | has(\"a\")")}, "ERR: Cannot check whether array has a string key"},
		{"jq", []vm.Value{data, sv("(.l | add), .l[1:2], .s[1:], has(\"a\"), (.l | has(5))")}, "[6, [1], i, true, false]"},
		{"jq", []vm.Value{data, sv("(\"12\" | tonumber), (.l | first), empty, (.l | last)")}, "[12, 3, 2]"},
		{"jq", []vm.Value{data, sv("\"12\" | tonumber, (.l | input)")}, "ERR: jq: error: input/0 is not defined"},
		{"jq", []vm.Value{data, sv("\"12\" | tonumber")}, "[12]"},
		{"jq", []vm.Value{data, sv(".s - 1")}, "ERR: string (\"hi\") and number (1) cannot be subtracted"},
		{"jq", []vm.Value{data, sv(".a / 0")}, "ERR: number (2) and number (0) cannot be divided because the divisor is zero"},
		{"jq", []vm.Value{data, sv(".s | keys")}, "ERR: string (\"hi\") has no keys"},
		{"jq", []vm.Value{data, sv("true | length")}, "ERR: boolean (true) has no length"},
		{"jq", []vm.Value{data, sv(".[\"a\"], .l[-1:], .l[:1]")}, "[2, [2], [3]]"},
		{"jq", []vm.Value{data, sv("{")}, "ERR: jq: parse error: unexpected end of expression in object construction at position 1"},
		{"jq", []vm.Value{data, sv(".a ~")}, "ERR: jq: parse error: unexpected character '~' at position 3"},
	})
}

// jq's ordering of lists nested past vm.MaxValueDepth is a catchable error,
// not a Go stack overflow (issue 17 item 3); the stack is capped at 8 MiB
// here, which the old recursive comparison overran.
func TestJQCompareDeepLists(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(8 << 20))
	deep := func(leaf int64) vm.Value {
		v := lv(iv(leaf))
		for i := 0; i < 200000; i++ {
			v = lv(v)
		}
		return v
	}
	x := lv(deep(1), deep(2))
	want := "ERR: Runtime error: value nested too deeply to compare (over 10000 levels)"
	runT2(t, []t2case{
		{"jq", []vm.Value{x, sv(".[0] < .[1]")}, want},
		{"jq", []vm.Value{lv(lv(iv(1)), lv(iv(2))), sv(".[0] < .[1]")}, "[true]"},
	})
}

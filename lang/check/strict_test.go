package check

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// strictErrors checks src in strict-types mode and returns its
// diagnostics, one line each.
func strictErrors(t *testing.T, src string) []string {
	t.Helper()
	f, err := syntax.Parse("test.harn", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	u := universe{"json_parse": true, "llm_call": true, "schema_is": true, "schema_expect": true, "println": true}
	info := resolve.File(f, resolve.Options{Universe: u})
	out := strings.TrimRight(format(File(f, info, Options{StrictTypes: true})), "\n")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func TestStrictTypes(t *testing.T) {
	parse := "let data = json_parse(\"{}\")\n"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"property", parse + "println(data.name)", []string{"error: Direct property access `data.name` on unvalidated value 'data' from `json_parse` (strict types)"}},
		{"subscript", parse + "println(data[\"name\"])", []string{"error: Direct property access `data[…]` on unvalidated value 'data'"}},
		{"copy", parse + "let c = data\nprintln(c.name)", []string{"unvalidated value 'c' from `json_parse`"}},
		{"schema_is", parse + "if schema_is(data, {}) {\n  println(data.name)\n}", nil},
		{"schema_is scope ends", parse + "if schema_is(data, {}) {\n  println(data.name)\n}\nprintln(data.age)", []string{"`data.age`"}},
		{"guard", "fn f() {\n  let d = json_parse(\"{}\")\n  guard schema_is(d, {}) else {\n    return\n  }\n  println(d.name)\n}", nil},
		{"schema_expect", parse + "schema_expect(data, {})\nprintln(data.name)", nil},
		{"schema_expect result", parse + "let v = schema_expect(data, {})\nprintln(v.name)", nil},
		{"shape annotation", "let u: {name: string} = json_parse(\"{}\")\nprintln(u.name)", nil},
		{"dict annotation", "let u: dict = json_parse(\"{}\")\nprintln(u.name)", []string{"unvalidated value 'u'"}},
		{"reassigned", "var d = json_parse(\"{}\")\nd = {name: 1}\nprintln(d.name)", nil},
		{"llm envelope", "let r = llm_call(\"hi\")\nprintln(r.text)", nil},
		{"llm other field", "let r = llm_call(\"hi\")\nprintln(r.data)", []string{"unvalidated value 'r' from `llm_call`"}},
		{"llm options unseen", "fn f(opts) {\n  let r = llm_call(\"hi\", nil, opts)\n  println(r.data)\n}", nil},
		{"llm options literal", "let r = llm_call(\"hi\", {model: \"m\"})\nprintln(r.data)", []string{"unvalidated value 'r' from `llm_call`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strictErrors(t, tc.src)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("diagnostic %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
	// off by default
	f, _ := syntax.Parse("test.harn", []byte(parse+"println(data.name)"))
	info := resolve.File(f, resolve.Options{Universe: universe{"json_parse": true, "println": true}})
	if d := File(f, info, Options{}); len(d) != 0 {
		t.Errorf("strict types without the option: %v", d)
	}
}

package json

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// FuzzJQ runs arbitrary jq expressions on a fixed nested value: any
// expression may fail, but only with an error, never a panic.
//
//	go test ./stdlib/json -run '^$' -fuzz FuzzJQ -fuzztime 2m
func FuzzJQ(f *testing.F) {
	for _, seed := range []string{
		".", "..", ".a.b[0]", ".[] | select(.x > 1)", "map(.+1) | add", "{a: .x, b}",
		".[] as $x | $x * 2", "reduce .[] as $x (0; . + $x)", "if . then 1 elif . == 2 then 3 else 4 end",
		"sort_by(.n) | group_by(.k) | map(length)", "to_entries | from_entries", "[limit(2; range(10))]",
		"[.. | numbers] | min, max", "join(\",\")", "test(\"a+\")", "tojson | fromjson", "flatten(2)",
		".a // \"d\"", ".[1:3]", "keys | length", "contains({a: [1]})", "[paths]", "$x", "(", "[.[]?]",
		".l[] |= . * 2", ".a += 1", "del(.l[0, 2])", ".n.deep = 1", ".c //= 3", "path(..)", "(.a, .b) = 0",
		"def f: if . > 0 then . - 1 | f else . end; 5 | f", "def g(h; $n): [h, $n]; g(.x; 2)",
		"try error(\"x\") catch .", "[foreach .l[] as {n: $n} (0; . + $n; [$n, .])]",
		". as {a: {b: [$p, $q]}} | [$p, $q]", "\"v=\\(.x) \\(.s)\"", "@csv \"\\([1, \"a\"])\"", ".l | @json",
		"walk(if type == \"number\" then . + 1 else . end)", ".s | sub(\"b\"; \"B\"; \"g\")", "[.s | match(\"(?<x>.)\"; \"g\")]",
	} {
		f.Add(seed)
	}
	input, err := Parse(`{"a": {"b": [1, 2, {"c": true}]}, "x": 2, "n": null, "s": "abc",
		"l": [{"n": 3, "k": "p"}, {"n": 1, "k": "q"}, {"n": 2, "k": "p"}], "f": 1.5}`)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if len(expr) > 4096 {
			return
		}
		for _, in := range []vm.Value{input, vm.Nil, vm.IntOf(3), vm.Str("x,y")} {
			runJQ(in, expr) // errors are fine; a panic fails the fuzz run
		}
	})
}

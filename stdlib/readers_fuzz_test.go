package stdlib_test

import "testing"

// FuzzReaders feeds arbitrary text to the JSON, YAML and TOML readers and
// writes back what they accept: no input may panic or overflow the stack
// (issue 17 fuzzing; crashers are kept in testdata/fuzz/FuzzReaders).
func FuzzReaders(f *testing.F) {
	for _, seed := range []string{
		`{"a": [1, 2.5, "x", null, true]}`, "[[[[[[[[[[]]]]]]]]]]", `"\ud800"`, "1e400",
		"a: &x {b: 1}\nc:\n  <<: *x\n", "- [a, b]\n- {c: d}\n", "a: !!binary aGk=\n", "*a",
		"a = 1\n[t]\nc = [1.5, true]\n[[arr]]\nn = 1\n", "a = 1979-05-27T07:32:00Z\n", "x = {y = {z = 1}}\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e := newT2(t)
		for _, pair := range [][2]string{{"json_parse", "json_stringify"}, {"yaml_parse", "yaml_stringify"}, {"toml_parse", ""}} {
			e.show(t, pair[0], sv(src))
			if pair[1] != "" {
				if v, err := e.call(t, pair[0], sv(src)); err == nil {
					e.show(t, pair[1], v)
				}
			}
		}
	})
}

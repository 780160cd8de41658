package check

import "testing"

// The union of a join expression's branches fits only when every branch
// does (branches.go).
func TestBranchUnion(t *testing.T) {
	decl := "fn need(n: int) -> int {\n  return n\n}\nlet flag = len([1]) > 0\n"
	runCases(t, []checkCase{
		{"ternary argument", decl + "need(flag ? 1 : \"a\")", []string{"error: argument 1 `n`: expected int, found int | string"}},
		{"if binding", decl + "let v = if flag { 1 } else { \"a\" }\nneed(v)", []string{"error: argument 1 `n`: expected int, found int | string"}},
		{"match return", "fn f(k: string) -> int {\n  return match k {\n    \"a\" -> { 1 }\n    _ -> { 2.5 }\n  }\n}\nf(\"a\")",
			[]string{"error: return value: expected int, found int | float"}},
		{"else-if chain", decl + "let v = if flag { 1 } else if len([]) > 0 { \"b\" } else { 3 }\nneed(v)",
			[]string{"error: argument 1 `n`: expected int, found int | string"}},
		{"twin: nil branch", decl + "let v = flag ? 1 : nil\nneed(v ?? 0)\nneed(if flag { 1 } else { nil } ?? 0)", nil},
		{"twin: constant condition", decl + "need(true ? 1 : \"a\")\nneed(if false { \"a\" } else { 2 })", nil},
		{"twin: narrowed", decl + "let v = flag ? 1 : \"a\"\nif type_of(v) == \"int\" {\n  need(v)\n}", nil},
		{"twin: reassigned", decl + "var v = flag ? 1 : \"a\"\nv = 2\nneed(v)", nil},
		{"twin: builtin branch", decl + "need(flag ? to_int(\"1\") : 0)", nil},
	})
}

// `type_of(x) == "a" || type_of(x) == "b"` narrows a declared union to
// the members of those kinds (narrow.go eitherKind).
func TestTypeOfEither(t *testing.T) {
	decl := "fn need(n: int) -> int {\n  return n\n}\n"
	runCases(t, []checkCase{
		{"two kinds", decl + "fn f(v: int | string | bool) -> int {\n  if type_of(v) == \"int\" || type_of(v) == \"bool\" {\n    return need(v)\n  }\n  return 0\n}",
			[]string{"error: argument 1 `n`: expected int, found int | bool"}},
		{"twin: one member left", decl + "fn f(v: int | string) -> int {\n  if type_of(v) == \"int\" || type_of(v) == \"float\" {\n    return need(v)\n  }\n  return 0\n}", nil},
		{"twin: other paths tell nothing", decl + "fn f(v: int | string, w: int | string) -> int {\n  if type_of(v) == \"int\" || type_of(w) == \"int\" {\n    return 1\n  }\n  return 0\n}", nil},
	})
}

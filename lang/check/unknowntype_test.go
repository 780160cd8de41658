package check

import "testing"

// Annotations naming no type are warned about wherever a type is written
// (unknowntype.go).
func TestUnknownTypeNames(t *testing.T) {
	const w = "warning: unknown type `Strng` — did you mean `string`?"
	runCases(t, []checkCase{
		{"closure parameter", "let f = { s: Strng -> s }", []string{w}},
		{"struct field", "struct S {\n  a: Strng\n}", []string{w}},
		{"alias body", "type A = list<Strng>", []string{w}},
		{"enum payload", "enum E {\n  V(x: Strng)\n}", []string{w}},
		{"interface method", "interface I {\n  fn m(self, x: Strng)\n}", []string{w}},
		{"impl method result", "struct S {\n  a: int\n}\nimpl S {\n  fn m(self) -> Strng {\n    return \"\"\n  }\n}", []string{w}},
		{"twin: own type parameters and associated types", "struct B<T> {\n  v: T\n}\ninterface I {\n  type Item\n  fn m(self) -> Item\n}\ntype P<A> = {a: A}\nenum E<T> {\n  V(x: T)\n}", nil},
	})
}

// TestUnknownTypeSuggestsHandles: a misspelt harness handle type gets a
// suggestion, as other builtin type names do.
func TestUnknownTypeSuggestsHandles(t *testing.T) {
	got := checkSrc(t, "fn f(h: Harnes) { return h }\n")
	if len(got) != 1 || got[0].Help != "did you mean `Harness`?" {
		t.Errorf("want the Harness suggestion, got %s", format(got))
	}
}

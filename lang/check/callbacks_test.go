package check

import "testing"

// Closure callbacks take their parameter types from what calls them
// (callbacks.go).
func TestCallbackParams(t *testing.T) {
	runCases(t, []checkCase{
		{"list element", "let xs: list<int> = [1]\nxs.map({ x -> x + \"a\" })", []string{"error: can't add int and string"}},
		{"reduce item", "let xs: list<string> = [\"a\"]\nxs.reduce(0, { acc, x -> x - 1 })", []string{"error: can't use '-' on string and int"}},
		{"dict key", "let d: dict<string, int> = {a: 1}\nd.map_keys({ k -> k - 1 })", []string{"error: can't use '-' on string and int"}},
		{"fn parameter", "fn ap(f: fn(string) -> int) -> int {\n  return f(\"a\")\n}\nap({ s -> s * \"b\" })", []string{"error: can't multiply string and string"}},
		{"generic", "fn tw<T>(v: T, f: fn(T) -> T) -> T {\n  return f(v)\n}\ntw(\"a\", { s -> s - 1 })", []string{"error: can't use '-' on string and int"}},
		{"nilable declared", "let xs: list<int?> = [1]\nxs.map({ x -> x + 1 })", []string{"error: operator `+` cannot be applied to nilable type `int?`"}},
		{"twin: annotated parameter wins", "let xs: list<int> = [1]\nxs.map({ x: any -> x + \"a\" })", nil},
		{"twin: any elements", "let xs: list<any> = [1]\nxs.map({ x -> x + \"a\" })", nil},
		{"twin: unbound type parameter", "fn tw<T>(f: fn(T) -> T) {\n  return f\n}\ntw({ s -> s - 1 })", nil},
		{"stream.map element", "let xs: list<int> = [1]\nstream.map(xs, { x -> x + \"a\" })", []string{"error: can't add int and string"}},
		{"stream.fold item", "let xs: list<string> = [\"a\"]\nstream.fold(xs, 0, { acc, x -> x - 1 })", []string{"error: can't use '-' on string and int"}},
		{"twin: stream.fold accumulator untyped", "let xs: list<string> = [\"a\"]\nstream.fold(xs, 0, { acc, x -> acc - 1 })", nil},
		{"twin: stream shadowed", "let stream = {map: { s, f -> s }}\nlet xs: list<int> = [1]\nstream.map(xs, { x -> x + \"a\" })", nil},
		{"twin: caught", "let xs: list<string> = [\"a\"]\ntry {\n  xs.map({ x -> x - 1 })\n} catch (e) {\n  e\n}", nil},
	})
}

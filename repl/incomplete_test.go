package repl

import "testing"

func TestIncomplete(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"1 + 2\n", false},
		{"fn f() {\n", true},
		{"fn f() {\n  return 1\n}\n", false},
		{"let xs = [\n  1,\n", true},
		{"call(1,\n", true},
		{"let s = \"{ not a bracket\"\n", false},
		{"let s = \"${ {a: 1}.a }\"\n", false},
		{"let s = \"\"\"\nopen\n", true},
		{"let s = \"\"\"\nclosed\n\"\"\"\n", false},
		{"let s = \"\"\"${\n", true},
		{"/* open comment\n", true},
		{"/* a /* nested */ still open\n", true},
		{"/* a /* nested */ closed */ 1\n", false},
		{"// { comment\n", false},
		{"let r = r\"{\"\n", false},
		{"let r = r#\"a \" {\"#\n", false},
		{"let x = 1 +\n", true},
		{"let ok = a &&\n", true},
		{"xs.\n", true},
		{"1 |>\n", true},
		{"for x in\n", true},
		{"let bin = 1\n", false},
		{"let x = 1 \\\n", true},
		{"type L = list<int>\n", false},
		{"let m: dict<string, list<int>> = {}\n", false},
		// every binary operator and assignment operator continues (docs/spec/language.md §2.6)
		{"let q = 1 <\n", true},
		{"let q = 1 >\n", true},
		{"let q = a<b>\n", true}, // not a type: (a < b) > …
		{"fn f() -> list<int>\n", true},
		{"fn f() ->\n", true},
		{"let x =\n", true},
		{"cnt =\n", true},
		{"cnt +=\n", true},
		{"cnt -=\n", true},
		{"cnt *=\n", true},
		{"cnt /=\n", true},
		{"cnt %=\n", true},
		{"let z = 2 **\n", true},
		{"let o = a ||\n", true},
		{"let b = a >=\n", true},
		{"let n = x not in\n", true},
		{"let v = d?.\n", true},
		{"type U = int |\n", true},
		{"type AB = A &\n", true},
		{"let v = f()?\n", false},
		{"let s = \"a =\"\n", false},
		{"let x = 1 // a = b +\n", false},
		{"x = -1\n", false},
		{"}\n", false},
		{"let s = \"unterminated\n", false},
	}
	for _, tt := range tests {
		if got := Incomplete(tt.src); got != tt.want {
			t.Errorf("Incomplete(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

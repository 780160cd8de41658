package syntax

import (
	"slices"
	"testing"
)

// declaredNames lists the struct and enum names written anywhere in src,
// found by walking it with NestedStmts.
func declaredNames(t *testing.T, src string) []string {
	t.Helper()
	f, err := Parse("t.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var walk func([]Stmt)
	walk = func(stmts []Stmt) {
		for _, s := range stmts {
			switch d := s.(type) {
			case *StructDecl:
				names = append(names, d.Name)
			case *EnumDecl:
				names = append(names, d.Name)
			}
			for _, inner := range NestedStmts(s) {
				walk(inner)
			}
		}
	}
	walk(f.Items)
	return names
}

func TestNestedStmtsReachesEveryBody(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"impl method", "struct P { x: int }\nimpl P {\n  fn go(self) {\n    enum A { X }\n  }\n}", []string{"P", "A"}},
		{"closure argument", "let xs = [1].map({ n ->\n  enum B { X }\n  n\n})", []string{"B"}},
		{"spawn argument", "let t = await(spawn {\n  struct C { v: int }\n  1\n})", []string{"C"}},
		{"closure in a closure", "foo({ a -> bar({ b ->\n  enum D { X }\n  b\n}) })", []string{"D"}},
		{"if inside a call argument", "println(if true {\n  enum E { X }\n  1\n} else { 2 })", []string{"E"}},
		{"order", "fn f() {\n  enum F { X }\n}\nlet g = h({ ->\n  enum G { X }\n})", []string{"F", "G"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := declaredNames(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("declared %v, want %v", got, tt.want)
			}
		})
	}
}

package project

import "testing"

func TestGlob(t *testing.T) {
	cases := []struct {
		pat, path string
		want      bool
	}{
		{"*.go", "a/b/c.go", true},
		{"*.go", "a/b/c.gox", false},
		{"a/*.go", "a/c.go", true},
		{"a/*.go", "a/b/c.go", false},
		{"a/**/*.go", "a/c.go", true},
		{"a/**/*.go", "a/b/c/d.go", true},
		{"**/x", "x", true},
		{"a/**", "a/b/c", true},
		{"/top", "top", true},
		{"/top", "sub/top", false},
		{"file?.txt", "file1.txt", true},
		{"[ab].txt", "b.txt", true},
		{"[!ab].txt", "b.txt", false},
		{"[!ab].txt", "c.txt", true},
		{`\*.txt`, "*.txt", true},
		{`\*.txt`, "a.txt", false},
		{"a+b(c).txt", "a+b(c).txt", true},
		{"[unclosed", "[unclosed", true},
	}
	for _, c := range cases {
		g, err := compileGlob(c.pat)
		if err != nil {
			t.Fatalf("%s: %v", c.pat, err)
		}
		if got := g.match(c.path); got != c.want {
			t.Errorf("%q ~ %q = %v, want %v", c.pat, c.path, got, c.want)
		}
	}
}

func TestKeyMatch(t *testing.T) {
	for _, c := range []struct {
		pat, key string
		want     bool
	}{
		{"lang/*", "lang/go/x", true},
		{"lang/?", "lang/g", true},
		{"lang/?", "lang/go", false},
		{"exact", "exact", true},
		{"a.b", "axb", false},
		{"*", "", true},
	} {
		if got := keyMatch(c.pat, c.key); got != c.want {
			t.Errorf("%q ~ %q = %v", c.pat, c.key, got)
		}
	}
}

func TestIgnoredLastRuleWins(t *testing.T) {
	rules := parseGitignore("*.log\n!keep.log\nkeep.log\n", "")
	if !ignored(rules, "keep.log", false) {
		t.Error("the last matching rule decides")
	}
	rules = parseGitignore("build/\n", "sub")
	if !ignored(rules, "sub/x/build", true) || ignored(rules, "build", true) || ignored(rules, "sub/build", false) {
		t.Error("directory-only rules apply below their .gitignore, to directories")
	}
}

func TestReadGoMod(t *testing.T) {
	m := &manifestInfo{}
	readGoMod("// c\nmodule \"ex.com/m\" // x\n\ngo 1.21\n\nrequire a.com/b v1.0.0\nrequire (\n\tc.com/d v2.0.0 // indirect\n)\n", m)
	if m.name != "ex.com/m" || m.langVersion != "1.21" || len(m.deps) != 2 || m.deps[0] != "a.com/b" || m.deps[1] != "c.com/d" {
		t.Errorf("%+v", m)
	}
}

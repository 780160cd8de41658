package skills

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/vm"
)

func dictOf(kv ...any) *vm.Dict {
	b := vm.NewDictBuilder(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		var v vm.Value
		switch x := kv[i+1].(type) {
		case string:
			v = vm.Str(x)
		case bool:
			v = vm.BoolOf(x)
		case int:
			v = vm.IntOf(int64(x))
		case []string:
			items := make([]vm.Value, len(x))
			for j, s := range x {
				items[j] = vm.Str(s)
			}
			v = vm.Of(vm.NewList(items))
		case vm.Value:
			v = x
		}
		b.Set(kv[i].(string), v)
	}
	return b.Build()
}

func errText(err error) string {
	if e, ok := err.(*vm.Error); ok {
		if e.Msg != "" {
			return e.Msg
		}
		return vm.ToDisplay(e.Value)
	}
	return err.Error()
}

func TestValidName(t *testing.T) {
	for _, n := range []string{"a", "code-review", "v1.2", "_x", "A_b-c.d"} {
		if !validName(n) {
			t.Errorf("validName(%q) = false", n)
		}
	}
	for _, n := range []string{"", "-x", ".x", "a b", "a/b", "é"} {
		if validName(n) {
			t.Errorf("validName(%q) = true", n)
		}
	}
}

func TestBuildChecksFields(t *testing.T) {
	cases := []struct {
		fields *vm.Dict
		want   string // "" means no error
	}{
		{dictOf("description", "d", "tags", []string{"a"}, "always_on", true), ""},
		{dictOf("description", 1), "x: description must be a string, got int"},
		{dictOf("when_to_use", true), "x: when_to_use must be a string, got bool"},
		{dictOf("tags", "a"), "x: tags must be a list of strings, got string"},
		{dictOf("paths", vm.Of(vm.NewList([]vm.Value{vm.IntOf(1)}))), "x: paths must be a list of strings, got an item of type int"},
		{dictOf("always_on", "yes"), "x: always_on must be a bool, got string"},
		{dictOf("body", "a", "instructions", "b"), "x: give instructions or body, not both"},
		{dictOf("name", "y"), `x: the name field "y" does not match the skill name "s"`},
	}
	for i, c := range cases {
		_, err := build("x", vm.Str("s"), c.fields)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d: unexpected error %v", i, errText(err))
		case c.want != "" && (err == nil || errText(err) != c.want):
			t.Errorf("case %d: got %v, want %q", i, err, c.want)
		}
	}
}

func TestBuildBodyBecomesInstructions(t *testing.T) {
	s, err := build("x", vm.Str("s"), dictOf("body", "text", "owner", "me"))
	if err != nil {
		t.Fatal(errText(err))
	}
	if s.Has("body") || field(s, fInstructions) != "text" || field(s, "owner") != "me" || skillName(s) != "s" {
		t.Errorf("got %s", vm.ToDisplay(vm.Of(s)))
	}
}

func TestDefineReplacesAndMovesToEnd(t *testing.T) {
	a1 := dictOf("name", "a", "description", "1")
	b := dictOf("name", "b")
	a2 := dictOf("name", "a", "description", "2")
	got := define(define(define(nil, a1), b), a2)
	if len(got) != 2 || skillName(got[0]) != "b" || field(got[1], fDescription) != "2" {
		t.Errorf("got %v", got)
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"**/*.go", "main.go", true},
		{"**/*.go", "cmd/harn/main.go", true},
		{"src/**", "src/a/b/c.txt", true},
		{"src/**", "src", true},
		{"src/*.ts", "src/a.ts", true},
		{"src/*.ts", "src/x/a.ts", false},
		{"src/**/test_*.py", "src/a/b/test_x.py", true},
		{"docs/*.md", "./docs/a.md", true},
		{"[", "[", false},
	}
	for _, c := range cases {
		if got := globMatch(c.glob, c.path); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}

func TestByQueryRanksAndIgnoresStopWords(t *testing.T) {
	skills := []*vm.Dict{
		dictOf("name", "lint", "description", "Check code style"),
		dictOf("name", "deploy", "description", "Deployment to production", "tags", []string{"ops"}),
		dictOf("name", "code-review", "when_to_use", "reviewing a diff"),
	}
	names := func(ds []*vm.Dict) string {
		var out []string
		for _, d := range ds {
			out = append(out, skillName(d))
		}
		return strings.Join(out, ",")
	}
	for q, want := range map[string]string{
		"review the code":     "code-review,lint",
		"deploy":              "deploy",
		"OPS":                 "deploy",
		"prod":                "deploy",
		"how to do it":        "",
		"co":                  "",
		"diff for code style": "code-review,lint",
	} {
		if got := names(byQuery(skills, q)); got != want {
			t.Errorf("byQuery(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestParseSkillFile(t *testing.T) {
	s, err := parseSkillFile("/x/deploy/SKILL.md", "\ufeff---\r\nwhen-to-use: shipping\r\ntags: [a]\r\n---\r\n\r\nBody line.\r\n")
	if err != nil {
		t.Fatal(errText(err))
	}
	if skillName(s) != "deploy" || field(s, fWhenToUse) != "shipping" || field(s, fInstructions) != "Body line." || field(s, "source") != "/x/deploy/SKILL.md" {
		t.Errorf("got %s", vm.ToDisplay(vm.Of(s)))
	}
	s, err = parseSkillFile("/x/notes.md", "+++\nname = \"n\"\nalways_on = true\n+++\n")
	if err != nil {
		t.Fatal(errText(err))
	}
	if skillName(s) != "n" || !alwaysOn(s) || s.Has(fInstructions) {
		t.Errorf("got %s", vm.ToDisplay(vm.Of(s)))
	}
	s, err = parseSkillFile("/x/plain.txt", "just text\n")
	if err != nil || skillName(s) != "plain" || field(s, fInstructions) != "just text" {
		t.Errorf("plain file: %v %v", s, err)
	}
	// an empty YAML front matter is no fields
	s, err = parseSkillFile("/x/e.md", "---\n---\nbody")
	if err != nil || skillName(s) != "e" || field(s, fInstructions) != "body" {
		t.Errorf("empty front matter: %v %v", s, err)
	}
	for text, want := range map[string]string{
		"---\nname: x\n":                 "the front matter opened by --- is not closed",
		"+++\nname = \n+++\n":            "TOML front matter: ",
		"---\n: [\n---\n":                "YAML front matter: ",
		"---\n42\n---\n":                 "the front matter must be a table of fields, got int",
		"---\ninstructions: a\n---\nb\n": "instructions are given both in the front matter and as the body",
		"---\ndescription: [1]\n---\n":   "description must be a string, got list",
	} {
		_, err := parseSkillFile("/x/f.md", text)
		if err == nil || !strings.Contains(errText(err), want) || !strings.HasPrefix(errText(err), "load_skill: /x/f.md: ") {
			t.Errorf("%q: got %v, want %q", text, err, want)
		}
	}
}

func TestRender(t *testing.T) {
	s := dictOf("name", "d", "description", " Desc ", "paths", []string{"a", "b"}, "instructions", "Do it.\n")
	want := "## Skill: d\n\nDesc\n\nApplies to: a, b\n\nDo it."
	if got := render(s); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

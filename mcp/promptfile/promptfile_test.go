package promptfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
)

// TestParseFrontMatterTypes: a front-matter field of the wrong type is
// reported with its key, the Harn type it got and its line, in the words
// of the other front-matter readers (no Go type names).
func TestParseFrontMatterTypes(t *testing.T) {
	cases := map[string]string{
		"---\nid = 3\n---\nbody":                                                                  ":2: front matter: id must be a string, got int",
		"---\ntitle = \"t\"\ndescription = [\"d\"]\n---\nbody":                                    ":3: front matter: description must be a string, got list",
		"---\nid = \"r\"\n[[arguments]]\nname = \"a\"\nrequired = \"yes\"\n---\n":                 ":3: front matter: arguments[0].required must be a bool, got string",
		"---\n[[arguments]]\nname = \"a\"\n[[arguments]]\nname = \"b\"\nsuggestions = [1]\n---\n": ":2: front matter: arguments[1].suggestions must be a list of strings, got an item of type int",
		"---\narguments = \"code\"\n---\n":                                                        ":2: front matter: arguments must be a list of tables ([[arguments]]), got string",
	}
	dir := t.TempDir()
	for src, want := range cases {
		path := filepath.Join(dir, "p.harn.prompt")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Parse(path)
		if err == nil || err.Error() != path+want {
			t.Errorf("%q: got %v, want %s%s", src, err, path, want)
		}
		if err != nil && strings.Contains(err.Error(), "promptfile.") {
			t.Errorf("%q: the message names a Go type: %v", src, err)
		}
	}
}

// TestParseFrontMatterFields: the declared fields are read, required
// defaults to true and completions stand in for suggestions.
func TestParseFrontMatterFields(t *testing.T) {
	src := "---\nname = \"rev\"\ntitle = \"T\"\ndescription = \"D\"\nextra = 1\n[[arguments]]\nname = \"code\"\n[[arguments]]\nname = \"lang\"\nrequired = false\ncompletions = [\"go\"]\n---\nReview {{ lang }}: {{ code }}"
	path := filepath.Join(t.TempDir(), "r.harn.prompt")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "rev" || p.Title != "T" || p.Description != "D" || p.Body != "Review {{ lang }}: {{ code }}" {
		t.Errorf("fields: %+v", p)
	}
	if len(p.Args) != 2 || !p.Args[0].Required || p.Args[1].Required || strings.Join(p.Args[1].Suggestions, ",") != "go" {
		t.Errorf("arguments: %+v", p.Args)
	}
}

// TestGetRenderErrorLine: a render failure of prompts/get is the
// template's message, its line counting the prompt file's front matter.
func TestGetRenderErrorLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.harn.prompt")
	if err := os.WriteFile(path, []byte("---\nid = \"r\"\n---\nfirst\nthen {{ x | shout }}"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	args := jsonv.NewObject(1)
	args.Set("x", "v")
	params := jsonv.NewObject(1)
	params.Set("arguments", args)
	res, _ := json.Marshal(p.Get(params))
	if !strings.Contains(string(res), `"prompt r: at 5:6: unknown filter `+"`shout`"+`"`) {
		t.Errorf("got %s", res)
	}
}

package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBadPromptReportedOnceWithLine: a prompt file whose front matter
// does not parse is left out and reported with its file and line, once
// (not again on every catalog request), and again after it changes.
func TestBadPromptReportedOnceWithLine(t *testing.T) {
	c := newClient(t)
	bad := filepath.Join(c.root, "prompts", "bad.harn.prompt")
	os.WriteFile(bad, []byte("---\nid = \"bad\"\ntitle = [\n---\nbody\n"), 0o644)
	c.initialize()
	for range 3 {
		c.call("prompts/list", nil)
	}
	want := "[harn] mcp: prompt " + bad + ":3: front matter: "
	if n := strings.Count(c.stderr.String(), want); n != 1 {
		t.Fatalf("reported %d times, want once as %q; stderr:\n%s", n, want, c.stderr.String())
	}
	os.WriteFile(bad, []byte("---\nid = \"bad\"\n"), 0o644)
	c.call("prompts/list", nil)
	c.call("prompts/list", nil)
	if n := strings.Count(c.stderr.String(), "[harn] mcp: prompt "+bad+":1: front matter opened with --- is not closed"); n != 1 {
		t.Fatalf("changed file reported %d times; stderr:\n%s", n, c.stderr.String())
	}
}

// TestPromptNotUTF8LeftOut: a prompt file that is not valid UTF-8 is read
// strictly, as render reads a template (docs/spec/builtins.md §4.8): it is
// left out of prompts/list and reported, not served with U+FFFD in it.
func TestPromptNotUTF8LeftOut(t *testing.T) {
	c := newClient(t)
	bad := filepath.Join(c.root, "prompts", "latin1.harn.prompt")
	os.WriteFile(bad, []byte("---\nid = \"latin1\"\n---\ncaf\xe9 {{ x }}\n"), 0o644)
	c.initialize()
	list := c.call("prompts/list", nil)
	if strings.Contains(fmt.Sprint(list), "latin1") {
		t.Fatalf("prompts/list lists the non-UTF-8 prompt: %s", list)
	}
	want := "[harn] mcp: prompt " + bad + ": stream did not contain valid UTF-8"
	if !strings.Contains(c.stderr.String(), want) {
		t.Fatalf("stderr lacks %q:\n%s", want, c.stderr.String())
	}
}

// docs/spec/orchestrator.md §7: prompts of a dependency's package
// (.harn/packages/<alias>/) are named <alias>/…, with or without an id;
// colliding names fall back to the path-based names, then -2, -3; a
// template's {{ if }} and {{ for }} blocks render; images become image
// messages after the text.
func TestPromptLibrariesCollisionsAndBlocks(t *testing.T) {
	dir := writeFixture(t)
	write := func(name, src string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("harn.toml", fixtureManifest+"\n[dependencies]\nkit = \"github.com/acme/kit\"\n")
	write(".harn/packages/kit/greet.harn.prompt", "Hi {{ who }}")
	write(".harn/packages/kit/sub/named.harn.prompt", "---\nid = \"fancy\"\n---\nFancy")
	write(".harn/packages/other/ignored.harn.prompt", "not a dependency")
	write("a/dup.harn.prompt", "---\nid = \"same\"\n---\nA")
	write("b/dup.harn.prompt", "---\nid = \"same\"\n---\nB")
	write("kit/greet.harn.prompt", "Root") // the same path-based name as the package's
	write("pix.png", "\x89PNG")
	write("blocks.harn.prompt", "---\nid = \"blocks\"\nimages = [\"pix.png\"]\n[[arguments]]\nname = \"items\"\n[[arguments]]\nname = \"loud\"\nrequired = false\n---\n"+
		"{{ if loud }}LOUD {{ end }}{{ for x in items }}[{{ x }}]{{ end }}")
	c := newClientIn(t, dir, nil)
	c.initialize()
	var names []string
	for _, p := range get(c.call("prompts/list", nil), "result", "prompts").([]any) {
		names = append(names, get(p, "name").(string))
	}
	slices.Sort(names)
	if got := strings.Join(names, " "); got != "a/dup b/dup blocks kit/fancy kit/greet kit/greet-2 prompts/inferred review" {
		t.Errorf("prompts %s", got)
	}
	res := c.call("prompts/get", map[string]any{"name": "blocks", "arguments": map[string]any{"items": []any{1, 2}, "loud": true}})
	msgs, _ := get(res, "result", "messages").([]any)
	if len(msgs) != 2 || get(msgs, 0, "content", "text") != "LOUD [1][2]" ||
		!sameJSON(get(msgs, 1), `{"role":"user","content":{"type":"image","data":"iVBORw==","mimeType":"image/png"}}`) {
		t.Errorf("blocks %s", js(res))
	}
	if got := get(c.call("prompts/get", map[string]any{"name": "kit/greet", "arguments": map[string]any{"who": "Ann"}}), "result", "messages", 0, "content", "text"); got != "Hi Ann" {
		t.Errorf("kit/greet %v", got)
	}
	if got := get(c.call("prompts/get", map[string]any{"name": "kit/greet-2"}), "result", "messages", 0, "content", "text"); got != "Root" {
		t.Errorf("kit/greet-2 %v", got)
	}
}

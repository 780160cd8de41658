package mcpserver

import (
	"os"
	"path/filepath"
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

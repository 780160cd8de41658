package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A flag whose value is missing, or whose next argument is another
// option, is a usage error (exit 2) naming the flag; it never takes the
// option as its value. --name=V still gives any value.
func TestFlagValueMissing(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "serve", "--state-dir", "--config", "x.toml"}, "error: --state-dir needs a value, got the option --config (write --state-dir=--config for a value that starts with --)"},
		{[]string{"mcp", "serve", "--config", "--transport", "http"}, "error: --config needs a value, got the option --transport"},
		{[]string{"mcp", "serve", "--bind", "--path", "/x"}, "error: --bind needs a value, got the option --path"},
		{[]string{"mcp", "serve", "--path"}, "error: --path needs a value\n"},
		{[]string{"orchestrator", "fire", "t", "--payload", "--json"}, "error: --payload needs a value, got the option --json"},
		{[]string{"orchestrator", "queue", "--state-dir", "--json"}, "error: --state-dir needs a value, got the option --json"},
		{[]string{"mcp", "discover", "http://127.0.0.1:1/", "--timeout", "--json"}, "error: --timeout needs a value, got the option --json"},
		{[]string{"serve", "mcp", "--bind", "--transport", "http", "x.harn"}, "error: --bind needs a value, got the option --transport"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
	// The = form takes a value that starts with --: here a state
	// directory called --odd, which the read-only command refuses
	// because it does not exist (not as a usage error).
	odd := filepath.Join(dir, "--odd")
	var out, errb bytes.Buffer
	t.Setenv("HARN_EVENT_LOG_URL", "")
	code := run([]string{"orchestrator", "queue", "--config", fixtureManifest, "--state-dir=" + odd}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "error: no state directory "+odd) {
		t.Errorf("--state-dir=%s: exit %d, stderr %s", odd, code, errb.String())
	}
	if _, err := os.Stat(odd); err == nil {
		t.Errorf("%s was created", odd)
	}
}

// The project commands read option values the same way: a missing value,
// or another option in its place, is a usage error naming the option,
// and every documented spelling (--name V, --name=V, -t V) still works.
func TestProjectCommandOptionValues(t *testing.T) {
	widget := "testdata/tool_run/fixtures/widget.harn"
	got := func(opt, next string) string {
		return "error: " + opt + " needs a value, got the option " + next + " (write " + opt + "=" + next + " for a value that starts with --)\n"
	}
	usage := []struct {
		args []string
		want string
	}{
		{[]string{"tool", "schema", widget, "--surface", "--pretty"}, got("--surface", "--pretty")},
		{[]string{"tool", "schema", widget, "--surface"}, "error: --surface needs a value\n"},
		{[]string{"tool", "sdk", widget, "--lang", "--out", "x"}, got("--lang", "--out")},
		{[]string{"tool", "completions", widget, "--shell", "--surface", "script"}, got("--shell", "--surface")},
		{[]string{"tool", "diff", widget, widget, "--fail-on", "--json"}, got("--fail-on", "--json")},
		{[]string{"tool", "diff", widget, widget, "--surface"}, "error: --surface needs a value\n"},
		{[]string{"tool", "run", "--surface", "--help"}, got("--surface", "--help")},
		{[]string{"tool", "run", "--surface"}, "error: --surface needs a value\n"},
		{[]string{"init", t.TempDir(), "--template", "--name", "x"}, got("--template", "--name")},
		{[]string{"init", t.TempDir(), "-t", "--name", "x"}, got("-t", "--name")},
		{[]string{"init", t.TempDir(), "--name"}, "error: --name needs a value\n"},
		{[]string{"lint", "--disable", "--fix", "x.harn"}, got("--disable", "--fix")},
		{[]string{"lint", "--explain"}, "error: --explain needs a value\n"},
		{[]string{"test", "--filter", "--json"}, got("--filter", "--json")},
		{[]string{"test", "--junit", "--json"}, got("--junit", "--json")},
		{[]string{"test", "--timeout"}, "error: --timeout needs a value\n"},
		{[]string{"test", "conformance", "--filter", "--help"}, got("--filter", "--help")},
		{[]string{"test", "conformance", "--filter"}, "error: --filter needs a value\n"},
	}
	for _, c := range usage {
		out, errOut, code := runHarn(c.args...)
		if code != 2 || !strings.HasPrefix(errOut, c.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and stderr starting %q", c.args, code, out, errOut, c.want)
		}
	}

	dir := t.TempDir()
	testFile := filepath.Join(dir, "a_test.harn")
	os.WriteFile(testFile, []byte("fn test_ok() { assert(true) }\nfn test_other() { assert(true) }\n"), 0o644)
	spellings := []struct {
		args []string
		want string // in stdout
	}{
		{[]string{"tool", "schema", widget, "--surface=script"}, `"harn-tools/2.0"`},
		{[]string{"tool", "schema", widget, "--surface", "script"}, `"harn-tools/2.0"`},
		{[]string{"tool", "completions", widget, "--shell=bash"}, "complete"},
		{[]string{"tool", "diff", widget, widget, "--fail-on=breaking", "--surface=script"}, ""},
		{[]string{"tool", "run", "--surface=script", widget, "--help"}, "Usage"},
		{[]string{"init", filepath.Join(dir, "p1"), "--template=library", "--name=lib1"}, "lib.harn"},
		{[]string{"init", filepath.Join(dir, "p2"), "-t", "library", "--name", "lib2"}, "lib.harn"},
		{[]string{"init", filepath.Join(dir, "p3"), "-t=tool-server"}, "main.harn"},
		{[]string{"lint", "--explain=unused-import"}, "unused-import"},
		{[]string{"lint", "--disable=naming,missing-doc", testFile}, ""},
		{[]string{"test", dir, "--filter=test_ok", "--json"}, `"test_ok"`},
		{[]string{"test", dir, "--timeout", "30s", "--filter", "test_other"}, "test_other"},
		{[]string{"test", "conformance", "../../conformance", "--filter=lexical/"}, "passed"},
	}
	for _, c := range spellings {
		out, errOut, code := runHarn(c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, stderr %s, stdout:\n%s\nwant exit 0 and %q", c.args, code, errOut, out, c.want)
		}
	}
}

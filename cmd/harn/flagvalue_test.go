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

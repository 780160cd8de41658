//go:build !harnlite

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOrchestratorDLQListCountsAttempts: a dead letter of a binding that
// is not retried was tried once; dlq list says "1 attempt".
func TestOrchestratorDLQListCountsAttempts(t *testing.T) {
	state := t.TempDir()
	project := []string{"--config", fixtureManifest, "--state-dir", state}
	var out, errb bytes.Buffer
	if code := run(append([]string{"orchestrator", "fire", "cron-fail"}, project...), nil, &out, &errb); code != 1 || !strings.Contains(out.String(), "status:  dlq") {
		t.Fatalf("fire cron-fail: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run(append([]string{"orchestrator", "dlq", "list"}, project...), nil, &out, &errb); code != 0 {
		t.Fatalf("dlq list: exit %d\n%s", code, errb.String())
	}
	if !regexp.MustCompile(`^dlq_\S+  cron-fail  trigger_evt_\S+  \S+ \(1 attempt\): `).MatchString(out.String()) {
		t.Errorf("dlq list:\n%s", out.String())
	}
}

// TestOrchestratorJSONKeepsHTMLCharacters: `--json` is the tools' JSON
// (docs/orchestrator.md), which writes `<`, `>` and `&` as they are; so
// does the text output's result line.
func TestOrchestratorJSONKeepsHTMLCharacters(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"harn.toml": "[[triggers]]\nid = \"echo\"\nkind = \"manual\"\nhandler = \"echo\"\n",
		"lib.harn":  "fn echo(e) { return e }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	project := []string{"--config", filepath.Join(dir, "harn.toml"), "--state-dir", filepath.Join(dir, "state"), "--payload", `{"s": "<a&b>"}`}
	for _, extra := range [][]string{{"--json"}, nil} {
		var out, errb bytes.Buffer
		if code := run(append(append([]string{"orchestrator", "fire", "echo"}, project...), extra...), nil, &out, &errb); code != 0 {
			t.Fatalf("fire %v: exit %d\n%s%s", extra, code, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), `"<a&b>"`) || strings.Contains(out.String(), `\u003c`) {
			t.Errorf("fire %v escapes HTML characters:\n%s", extra, out.String())
		}
	}
}

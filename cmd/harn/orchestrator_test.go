//go:build !harnlite

package main

import (
	"bytes"
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

//go:build !harnlite

package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/sqlite"
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

// TestOrchestratorFireInterrupted: Ctrl-C during `harn orchestrator fire`
// stops the wait at once and says which event runs on and how to follow
// it (docs/orchestrator.md); the attempt running in the process is let
// finish unless a second Ctrl-C leaves it to its lease. Exit status 130.
func TestOrchestratorFireInterrupted(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"harn.toml": "[[triggers]]\nid = \"slow\"\nkind = \"manual\"\nhandler = \"slow\"\n",
		"lib.harn":  "fn slow(e) {\n  eprintln(\"handler started\")\n  sleep(20s)\n  return \"done\"\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "orchestrator", "fire", "slow", "--config", filepath.Join(dir, "harn.toml"), "--state-dir", filepath.Join(dir, "state"))
	cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(want string) string {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stderr ended before %q", want)
				}
				if strings.Contains(l, want) {
					return l
				}
			case <-timeout:
				t.Fatalf("no stderr line with %q", want)
			}
		}
	}
	start := time.Now()
	next("handler started")
	cmd.Process.Signal(syscall.SIGINT)
	if l := next("interrupted:"); !regexp.MustCompile(`stopped waiting for event trigger_evt_\S+ \(binding slow\); it was accepted and continues`).MatchString(l) {
		t.Errorf("interrupt line %q", l)
	}
	next("follow it with: harn orchestrator queue")
	next("Ctrl-C again")
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d (%v)", code, err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("took %s: the interrupt waited for the handler", d)
	}
}

// TestOrchestratorFireKeepsNumbers: `fire --payload` records the
// payload's numbers with their text, and the handler (of the fire and of
// its replay, which reads the recorded event) is handed them as
// json_parse reads them (docs/orchestrator.md, "Numbers in events"); a
// number out of a float's range is refused before the event is
// accepted.
func TestOrchestratorFireKeepsNumbers(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"harn.toml": "[[triggers]]\nid = \"m\"\nkind = \"manual\"\nhandler = \"types\"\n",
		"lib.harn":  "fn types(e) { return to_string(e.v) + \":\" + type_of(e.v) + \" \" + to_string(e.f) + \":\" + type_of(e.f) }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(dir, "state")
	project := []string{"--config", filepath.Join(dir, "harn.toml"), "--state-dir", state, "--json"}
	const seen = `"result": "9007199254740993:int 123.0:float"`
	var out, errb bytes.Buffer
	if code := run(append([]string{"orchestrator", "fire", "m", "--payload", `{"v": 9007199254740993, "f": 123.0}`}, project...), nil, &out, &errb); code != 0 || !strings.Contains(out.String(), seen) {
		t.Fatalf("fire: exit %d\n%s%s", code, out.String(), errb.String())
	}
	id := regexp.MustCompile(`"event_id": "(trigger_evt_[^"]+)"`).FindStringSubmatch(out.String())
	if id == nil {
		t.Fatalf("no event id:\n%s", out.String())
	}
	log, err := sqlite.Open(context.Background(), filepath.Join(state, "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := log.Read(context.Background(), "triggers.events", 0, 0)
	log.Close()
	if err != nil || len(recs) != 1 || !strings.Contains(string(recs[0].Payload), `"f":123.0`) || !strings.Contains(string(recs[0].Payload), `"v":9007199254740993`) {
		t.Fatalf("recorded: %v %v", err, recs)
	}
	out.Reset()
	if code := run(append([]string{"orchestrator", "replay", id[1]}, project...), nil, &out, &errb); code != 0 || !strings.Contains(out.String(), seen) {
		t.Fatalf("replay: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code := run(append([]string{"orchestrator", "fire", "m", "--payload", `{"ms": 1e400}`}, project...), nil, &out, &errb)
	if code != 1 || strings.Contains(out.String(), "trigger_evt_") || !strings.Contains(errb.String(), "event not accepted: ms: number 1e400 is out of range") {
		t.Fatalf("1e400: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

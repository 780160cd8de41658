//go:build !harnlite

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
	serveOnce(t, fixtureManifest, state)
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

// TestOrchestratorQueueCountsRecords: `harn orchestrator queue` counts
// each topic's records in words that agree with the count ("1 record",
// "0 records"), as dlq list counts attempts.
func TestOrchestratorQueueCountsRecords(t *testing.T) {
	state := t.TempDir()
	serveOnce(t, fixtureManifest, state)
	project := []string{"--config", fixtureManifest, "--state-dir", state}
	var out, errb bytes.Buffer
	if code := run(append([]string{"orchestrator", "fire", "cron-fail"}, project...), nil, &out, &errb); code != 1 {
		t.Fatalf("fire cron-fail: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run(append([]string{"orchestrator", "queue"}, project...), nil, &out, &errb); code != 0 {
		t.Fatalf("queue: exit %d\n%s", code, errb.String())
	}
	for _, want := range []string{"\noutbox    1 record\n", "\nattempts  1 record\n", "\ndlq       1 record\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("queue lacks %q:\n%s", want, out.String())
		}
	}
}

// TestOrchestratorFireSaysDuplicate: a fire that its binding's
// dedupe_key finds already accepted gets the first event's handle
// (docs/orchestrator.md, dedupe_key); the text output says so, as
// --json does with "duplicate": true, rather than showing the first
// event as if it had just run.
func TestOrchestratorFireSaysDuplicate(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"harn.toml": "[[triggers]]\nid = \"d\"\nkind = \"manual\"\nhandler = \"echo\"\ndedupe_key = \"payload.order_id\"\n",
		"lib.harn":  "fn echo(e) { return e.payload }\n",
	})
	serveOnce(t, filepath.Join(dir, "harn.toml"), filepath.Join(dir, "state"))
	project := []string{"--config", filepath.Join(dir, "harn.toml"), "--state-dir", filepath.Join(dir, "state"), "--payload", `{"payload": {"order_id": 7}}`}
	var outs []string
	for range 2 {
		var out, errb bytes.Buffer
		if code := run(append([]string{"orchestrator", "fire", "d"}, project...), nil, &out, &errb); code != 0 {
			t.Fatalf("fire: exit %d\n%s%s", code, out.String(), errb.String())
		}
		outs = append(outs, out.String())
	}
	if strings.Contains(outs[0], "duplicate") {
		t.Errorf("first fire says duplicate:\n%s", outs[0])
	}
	if !strings.Contains(outs[1], "\nduplicate: an event with the same key (dedupe_key) was accepted first; this is its handle\n") {
		t.Errorf("second fire does not say duplicate:\n%s", outs[1])
	}
}

// TestOrchestratorJSONKeepsHTMLCharacters: `--json` is the tools' JSON
// (docs/orchestrator.md), which writes `<`, `>` and `&` as they are; so
// does the text output's result line.
func TestOrchestratorJSONKeepsHTMLCharacters(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"harn.toml": "[[triggers]]\nid = \"echo\"\nkind = \"manual\"\nhandler = \"echo\"\n",
		"lib.harn":  "fn echo(e) { return e }\n",
	})
	serveOnce(t, filepath.Join(dir, "harn.toml"), filepath.Join(dir, "state"))
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
	dir := writeFiles(t, map[string]string{
		"harn.toml": "[[triggers]]\nid = \"slow\"\nkind = \"manual\"\nhandler = \"slow\"\n",
		"lib.harn":  "fn slow(e) {\n  eprintln(\"handler started\")\n  sleep(20s)\n  return \"done\"\n}\n",
	})
	serveOnce(t, filepath.Join(dir, "harn.toml"), filepath.Join(dir, "state"))
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
	dir := writeFiles(t, map[string]string{
		"harn.toml": "[[triggers]]\nid = \"m\"\nkind = \"manual\"\nhandler = \"types\"\n",
		"lib.harn":  "fn types(e) { return to_string(e.v) + \":\" + type_of(e.v) + \" \" + to_string(e.f) + \":\" + type_of(e.f) }\n",
	})
	state := filepath.Join(dir, "state")
	serveOnce(t, filepath.Join(dir, "harn.toml"), state)
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

// TestOrchestratorCommandsNeedAnEventLog: no harn orchestrator command
// creates an event log. A state directory without the log the
// environment selects is refused, exit 1, naming the directory and what
// was looked for, with a hint when the log is nearby (a subdirectory, or
// the file backend's log); nothing is written there.
func TestOrchestratorCommandsNeedAnEventLog(t *testing.T) {
	t.Setenv("HARN_EVENT_LOG_URL", "")
	t.Setenv("HARN_EVENT_LOG_BACKEND", "")
	t.Setenv("HARN_EVENT_LOG_SQLITE_PATH", "")
	t.Setenv("HARN_EVENT_LOG_DIR", "")
	dir := t.TempDir()
	harnDir := filepath.Join(dir, ".harn")
	serveOnce(t, fixtureManifest, filepath.Join(harnDir, "orchestrator"))
	fileState := filepath.Join(dir, "file-state")
	t.Setenv("HARN_EVENT_LOG_BACKEND", "file")
	serveOnce(t, fixtureManifest, fileState)
	t.Setenv("HARN_EVENT_LOG_BACKEND", "")
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	missing := filepath.Join(dir, "missing")
	cases := []struct {
		state, backend, want string
	}{
		{harnDir, "", "error: no event log in state directory " + harnDir + ": looked for the SQLite log " + filepath.Join(harnDir, "events.sqlite") +
			", but its subdirectory " + filepath.Join(harnDir, "orchestrator") + " holds one: pass --state-dir " + filepath.Join(harnDir, "orchestrator") + "\n"},
		{fileState, "", "error: no event log in state directory " + fileState + ": looked for the SQLite log " + filepath.Join(fileState, "events.sqlite") +
			", but the directory holds a file-backend log in " + filepath.Join(fileState, "events") + ": set HARN_EVENT_LOG_BACKEND=file\n"},
		{filepath.Join(harnDir, "orchestrator"), "file", "error: no event log in state directory " + filepath.Join(harnDir, "orchestrator") + ": looked for a file-backend log in " +
			filepath.Join(harnDir, "orchestrator", "events") + ", but the directory holds the SQLite log " + filepath.Join(harnDir, "orchestrator", "events.sqlite") + ": set HARN_EVENT_LOG_BACKEND=sqlite\n"},
		{empty, "", "error: no event log in state directory " + empty + ": looked for the SQLite log " + filepath.Join(empty, "events.sqlite") +
			" (start harn mcp serve with this state directory first, or pass the one it uses with --state-dir)\n"},
		{missing, "", "error: no state directory " + missing + " (start harn mcp serve with it first, or pass --state-dir)\n"},
		{harnDir, "memory", "error: HARN_EVENT_LOG_BACKEND=memory: a memory log lives inside the server's process, which harn orchestrator cannot reach"},
	}
	commands := [][]string{{"queue"}, {"dlq", "list"}, {"inspect", "--json"}, {"fire", "manual-ok"}, {"replay", "trigger_evt_x"}, {"dlq", "retry", "dlq_x"}}
	for _, c := range cases {
		t.Setenv("HARN_EVENT_LOG_BACKEND", c.backend)
		for _, cmd := range commands {
			var out, errb bytes.Buffer
			code := run(append(append([]string{"orchestrator"}, cmd...), "--config", fixtureManifest, "--state-dir", c.state), nil, &out, &errb)
			if code != 1 || !strings.HasPrefix(errb.String(), c.want) || out.Len() != 0 {
				t.Errorf("%v --state-dir %s (backend %q): exit %d\nstdout: %s\nstderr: %s\nwant exit 1 and %q", cmd, c.state, c.backend, code, out.String(), errb.String(), c.want)
			}
		}
	}
	for _, p := range []string{filepath.Join(harnDir, "events.sqlite"), filepath.Join(fileState, "events.sqlite"), filepath.Join(empty, "events.sqlite"), filepath.Join(harnDir, "orchestrator", "events"), missing} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}

// TestOrchestratorFireIsNotAnMCPCall: an event `harn orchestrator fire`
// dispatches carries a cli_ trace id and the x-harn-cli-client and
// x-harn-cli-trace-id headers (harn-cli/<version>), no x-harn-mcp-*
// header, and no action-graph record claims an MCP call made it
// (docs/orchestrator.md).
func TestOrchestratorFireIsNotAnMCPCall(t *testing.T) {
	state := t.TempDir()
	serveOnce(t, fixtureManifest, state)
	var out, errb bytes.Buffer
	if code := run([]string{"orchestrator", "fire", "manual-ok", "--config", fixtureManifest, "--state-dir", state}, nil, &out, &errb); code != 0 {
		t.Fatalf("fire: exit %d\n%s%s", code, out.String(), errb.String())
	}
	log, err := sqlite.Open(context.Background(), filepath.Join(state, "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	recs, err := log.Read(context.Background(), "triggers.events", 0, 0)
	if err != nil || len(recs) != 1 {
		t.Fatalf("recorded events: %v %v", recs, err)
	}
	var ev struct {
		Event struct {
			TraceID string            `json:"trace_id"`
			Headers map[string]string `json:"headers"`
		} `json:"event"`
	}
	if err := json.Unmarshal(recs[0].Payload, &ev); err != nil {
		t.Fatal(err)
	}
	trace, h := ev.Event.TraceID, ev.Event.Headers
	if !regexp.MustCompile(`^cli_[0-9a-f]{32}$`).MatchString(trace) || h["x-harn-cli-trace-id"] != trace || h["x-harn-cli-client"] != "harn-cli/"+version {
		t.Errorf("trace id %q, headers %v", trace, h)
	}
	for k := range h {
		if strings.HasPrefix(k, "x-harn-mcp-") {
			t.Errorf("header %s on a CLI fire", k)
		}
	}
	if graph, _ := log.Read(context.Background(), "observability.action_graph", 0, 0); len(graph) != 0 {
		t.Errorf("action graph records of a CLI fire: %v", graph)
	}
}

// TestOrchestratorFireHonoursLeaseTTL: `harn orchestrator fire` leases
// the delivery it runs for HARN_ORCHESTRATOR_LEASE_TTL, as a server
// does: killed mid-attempt, its delivery can be claimed by another node
// once that much time has passed (it was always 30 s).
func TestOrchestratorFireHonoursLeaseTTL(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"harn.toml": "[[triggers]]\nid = \"slow\"\nkind = \"manual\"\nhandler = \"slow\"\n",
		"lib.harn":  "fn slow(e) {\n  eprintln(\"handler started\")\n  sleep(60s)\n  return \"done\"\n}\n",
	})
	state := filepath.Join(dir, "state")
	serveOnce(t, filepath.Join(dir, "harn.toml"), state)
	cmd := exec.Command(os.Args[0], "orchestrator", "fire", "slow", "--config", filepath.Join(dir, "harn.toml"), "--state-dir", state)
	cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1", "HARN_ORCHESTRATOR_LEASE_TTL=1s")
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	started := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "handler started") {
				started <- true
				return
			}
		}
		started <- false
	}()
	select {
	case ok := <-started:
		if !ok {
			t.Fatal("fire ended before its handler started")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the handler did not start")
	}
	cmd.Process.Kill()
	cmd.Wait()
	killed := time.Now()
	log, err := sqlite.Open(context.Background(), filepath.Join(state, "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	for {
		leases, err := log.Inbox().Claim(context.Background(), "test-node", 1, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(leases) == 1 {
			break
		}
		if time.Since(killed) > 10*time.Second {
			t.Fatal("the killed CLI's delivery was still leased 10 s later; HARN_ORCHESTRATOR_LEASE_TTL=1s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestOrchestratorInspectJSONIsTheToolsObject: `harn orchestrator
// inspect --json` prints the object harn.orchestrator.inspect answers
// on the same state directory, connectors included (the CLI runs no
// connector itself: it reports the server's, from its snapshot). Only
// the snapshot differs: the server was running when it answered.
func TestOrchestratorInspectJSONIsTheToolsObject(t *testing.T) {
	state := t.TempDir()
	calls := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"harn.orchestrator.inspect","arguments":{}}}`,
	}, "\n") + "\n"
	var served, errb bytes.Buffer
	if code := run([]string{"mcp", "serve", "--config", fixtureManifest, "--state-dir", state}, strings.NewReader(calls), &served, &errb); code != 0 {
		t.Fatalf("mcp serve: exit %d\n%s", code, errb.String())
	}
	var tool map[string]any
	for _, line := range strings.Split(served.String(), "\n") {
		var msg struct {
			ID     any `json:"id"`
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.ID == 2.0 {
			tool = msg.Result.StructuredContent
		}
	}
	if tool == nil {
		t.Fatalf("no inspect answer:\n%s", served.String())
	}
	var out bytes.Buffer
	errb.Reset()
	if code := run([]string{"orchestrator", "inspect", "--json", "--config", fixtureManifest, "--state-dir", state}, nil, &out, &errb); code != 0 {
		t.Fatalf("inspect: exit %d\n%s", code, errb.String())
	}
	var cli map[string]any
	if err := json.Unmarshal(out.Bytes(), &cli); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out.String())
	}
	if len(cli) != len(tool) {
		t.Errorf("keys: CLI %d, tool %d", len(cli), len(tool))
	}
	for k, want := range tool {
		if k == "snapshot" {
			continue
		}
		got, _ := json.Marshal(cli[k])
		w, _ := json.Marshal(want)
		if string(got) != string(w) {
			t.Errorf("%s: CLI %s, tool %s", k, got, w)
		}
	}
	if c, _ := json.Marshal(cli["connectors"]); string(c) != `["cron"]` {
		t.Errorf("connectors %s", c)
	}
}

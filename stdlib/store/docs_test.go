package store_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harnlang/harn/interp"
)

// Separate runs (separate VMs, as separate processes would be) writing
// different keys into one agent-state session at once lose none of them:
// every change re-reads the document under a flock of its directory.
func TestConcurrentRunsKeepEveryAgentStateKey(t *testing.T) {
	root := t.TempDir()
	dir := t.TempDir()
	const runs, keys = 4, 10
	run := func(src string) (string, error) {
		var stderr bytes.Buffer
		res := interp.RunProgram(filepath.Join(dir, "job.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
		return string(res.Stdout), res.Err
	}
	prelude := fmt.Sprintf("import { agent_state_init, agent_state_write, agent_state_list } from \"std/agent_state\"\nlet st = agent_state_init(\"shared\", {root: %q})\n", filepath.Join(root, "sub"))
	var wg sync.WaitGroup
	for r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := prelude + fmt.Sprintf(`for i in range(%d) { agent_state_write(st, "r%d_" + to_string(i), i) }`, keys, r)
			if _, err := run(src); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	out, err := run(prelude + `println(len(agent_state_list(st)))`)
	if err != nil || out != fmt.Sprintf("%d\n", runs*keys) {
		t.Fatalf("keys saved: %q, %v", out, err)
	}
}

// Upstream's directory-first form keeps a session's state where a later
// run's agent_state_resume(root, session_id) finds it; a relative root
// is read against the working directory, and one climbing out with ".."
// is still taken as a (refused) session id.
func TestAgentStateRootFirstForm(t *testing.T) {
	root := filepath.Join(t.TempDir(), "state")
	run := func(src string) (string, error) {
		var stderr bytes.Buffer
		res := interp.RunProgram(filepath.Join(t.TempDir(), "job.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
		return strings.TrimSpace(string(res.Stdout)), res.Err
	}
	imp := "import { agent_state_init, agent_state_resume, agent_state_write, agent_state_read } from \"std/agent_state\"\n"
	if _, err := run(imp + fmt.Sprintf("agent_state_write(agent_state_init(%q, {session_id: \"s\"}), \"k\", \"v\")", root)); err != nil {
		t.Fatal(err)
	}
	out, err := run(imp + fmt.Sprintf("let h = agent_state_resume(%q, \"s\")\nprintln([agent_state_read(h, \"k\"), h.session_id, h.root == %q])", root, root))
	if err != nil || out != "[v, s, true]" {
		t.Fatalf("resumed: %q, %v", out, err)
	}
	if _, err := run(imp + `agent_state_init("../up")`); err == nil || !strings.Contains(err.Error(), "session id must be") {
		t.Fatalf("../up: %v", err)
	}
}

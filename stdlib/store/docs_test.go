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

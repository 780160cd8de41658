//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiteLeavesOutServerDependencies checks the point of the lite build:
// the packages only the commands and library areas it leaves out need are
// not linked into it, so `harn run` does not initialise them at start-up.
func TestLiteLeavesOutServerDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "harnlite", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	for _, p := range []string{
		"github.com/harnlang/harn/lsp",
		"github.com/harnlang/harn/orchestrator",
		"github.com/harnlang/harn/eventlog/sqlite",
		"github.com/harnlang/harn/eventlog/postgres",
		"github.com/harnlang/harn/mcp/auth",
		"github.com/harnlang/harn/tool",
		"github.com/harnlang/harn/stdlib/tools",
		"github.com/harnlang/harn/stdlib/net",
		"github.com/harnlang/harn/stdlib/formats",
		"github.com/santhosh-tekuri/jsonschema/v6",
		"github.com/klauspost/compress/zstd",
		"github.com/andybalholm/brotli",
		"go.yaml.in/yaml/v3",
		"net/http",
		"crypto/tls",
	} {
		if deps[p] {
			t.Errorf("the lite build links %s", p)
		}
	}
	if !deps["github.com/harnlang/harn/interp"] {
		t.Error("the lite build does not link the interpreter")
	}
}

// TestLiteExecsFull builds the lite harn next to a harn-full (this test
// binary, which behaves as the full harn under HARN_TEST_MAIN=1) and runs
// the commands it leaves out through it.
func TestLiteExecsFull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds harn")
	}
	dir := t.TempDir()
	lite := filepath.Join(dir, "harn")
	if out, err := exec.Command("go", "build", "-tags", "harnlite", "-o", lite, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	harn := func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(lite, args...)
		cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}

	_, stderr, code := harn("orchestrator", "--help")
	if code != 2 || !strings.Contains(stderr, "this command runs in harn-full") || !strings.Contains(stderr, filepath.Join(dir, "harn-full")) {
		t.Errorf("without harn-full: exit %d, stderr %q", code, stderr)
	}
	if stdout, _, code := harn("run", "-e", `println("lite")`); code != 0 || stdout != "lite\n" {
		t.Errorf("harn run in the lite build: exit %d, stdout %q", code, stdout)
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, "harn-full")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"orchestrator", "--help"}, {"help", "orchestrator"}, {"help", "mcp", "serve"}, {"lsp", "--help"}} {
		stdout, stderr, code := harn(args...)
		var want strings.Builder
		if run(args, nil, &want, &want) != 0 || code != 0 || stdout != want.String() {
			t.Errorf("harn %s: exit %d, stdout %q, stderr %q; want %q", strings.Join(args, " "), code, stdout, stderr, want.String())
		}
	}

	// Under HARN_CPUPROFILE the lite harn's profiling timer must not
	// follow it into harn-full: its SIGPROF killed harn-full at start-up
	// (most times, so the command runs a few times).
	t.Setenv("HARN_CPUPROFILE", filepath.Join(dir, "cpu.pprof"))
	for range 5 {
		if _, stderr, code := harn("orchestrator", "--help"); code != 0 {
			t.Fatalf("harn orchestrator --help under HARN_CPUPROFILE: exit %d, stderr %q", code, stderr)
		}
	}
}

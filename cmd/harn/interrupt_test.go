package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C stops a program that never reaches a loop's back edge — a tail
// call recursing for ever, mutual tail calls, a receive that blocks — with
// the interrupted status 124 (issue 17).
func TestInterruptStopsRunawayPrograms(t *testing.T) {
	programs := map[string]string{
		"tail_call":   "fn f(n) { return f(n + 1) }\neprintln(\"started\")\nf(0)\n",
		"mutual_tail": "fn a(n) { return b(n + 1) }\nfn b(n) { return a(n + 1) }\neprintln(\"started\")\na(0)\n",
		// a sleeping task keeps the receive from being a deadlock (which
		// harn run reports by itself)
		"receive": "let ch = channel()\nlet t = spawn { while true { sleep(1s) } }\neprintln(\"started\")\nlet v = receive(ch)\nprintln(v)\n",
	}
	for name, src := range programs {
		t.Run(name, func(t *testing.T) {
			code, _, rest := runUntilSignal(t, src, syscall.SIGINT, 50*time.Millisecond)
			if code != 124 {
				t.Fatalf("exit after Ctrl-C: status %d (want 124)", code)
			}
			// One line says why the run ended.
			if rest != "error: interrupted by Ctrl-C\n" {
				t.Errorf("stderr after Ctrl-C %q", rest)
			}
		})
	}
}

// Ctrl-C stops the commands that run a script's top level to load its
// registry (a top level that never ends) with one line and status 130,
// 128 + SIGINT as a shell reports it; SIGTERM with status 143.
func TestInterruptStopsToolCommands(t *testing.T) {
	src := "eprintln(\"started\")\nwhile true { }\n"
	commands := map[string][]string{
		"tool schema":      {"tool", "schema", "FILE"},
		"tool run":         {"tool", "run", "FILE", "x"},
		"tool completions": {"tool", "completions", "FILE", "--shell", "bash"},
		"tool sdk":         {"tool", "sdk", "FILE", "--lang", "go", "--out", "OUT"},
		"tool diff":        {"tool", "diff", "FILE", "FILE"},
		"serve mcp":        {"serve", "mcp", "FILE"},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			code, stdout, rest := commandUntilSignal(t, src, syscall.SIGINT, 50*time.Millisecond, args...)
			if code != 130 || rest != "error: interrupted by Ctrl-C\n" || stdout != "" {
				t.Errorf("after Ctrl-C: status %d, stderr %q, stdout %q (want 130 and one line)", code, rest, stdout)
			}
		})
	}
	// a handler of harn tool run that never returns
	spin := "import { tool_registry_from } from \"std/tools\"\n" +
		"fn spin(args) {\n  eprintln(\"started\")\n  while true { }\n}\n" +
		"fn main(harness: Harness) {\n  harness.tools.mcp_tools(tool_registry_from([{name: \"spin\", description: \"Spin.\", parameters: {}, handler: spin}]))\n}\n"
	if code, _, rest := commandUntilSignal(t, spin, syscall.SIGINT, 50*time.Millisecond, "tool", "run", "FILE", "spin"); code != 130 || rest != "error: interrupted by Ctrl-C\n" {
		t.Errorf("Ctrl-C in a handler: status %d, stderr %q (want 130 and one line)", code, rest)
	}
	code, _, rest := commandUntilSignal(t, src, syscall.SIGTERM, 0, "tool", "schema", "FILE")
	if code != 143 || rest != "error: terminated by SIGTERM\n" {
		t.Errorf("after SIGTERM: status %d, stderr %q (want 143 and one line)", code, rest)
	}
}

// SIGTERM (`timeout`, a supervisor, `kill`) stops a run as Ctrl-C does,
// keeping what it printed, and exits 143 with one line saying why.
func TestSIGTERMKeepsOutput(t *testing.T) {
	src := "println(\"printed first\")\neprintln(\"started\")\nsleep(60s)\n"
	code, stdout, rest := runUntilSignal(t, src, syscall.SIGTERM, 0)
	if code != 143 {
		t.Fatalf("exit after SIGTERM: status %d (want 143)", code)
	}
	if rest != "error: terminated by SIGTERM\n" {
		t.Errorf("stderr after SIGTERM %q", rest)
	}
	if stdout != "printed first\n" {
		t.Errorf("stdout after SIGTERM %q, want the line printed before it", stdout)
	}
}

// runUntilSignal runs src with harn run, waits for its first stderr line
// to be "started", lets it run for settle, sends sig and returns the exit
// status, stdout and the rest of stderr. The generous timeout only stops a
// broken build from hanging the suite; it is not a speed assertion.
func runUntilSignal(t *testing.T, src string, sig os.Signal, settle time.Duration) (code int, stdout, rest string) {
	t.Helper()
	return commandUntilSignal(t, src, sig, settle, "run", "FILE")
}

// commandUntilSignal is runUntilSignal for any harn command: args are its
// arguments, with "FILE" standing for the program's path.
func commandUntilSignal(t *testing.T, src string, sig os.Signal, settle time.Duration, args ...string) (code int, stdout, rest string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.harn")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args = slices.Clone(args)
	for i, a := range args {
		switch a {
		case "FILE":
			args[i] = path
		case "OUT":
			args[i] = t.TempDir()
		}
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
	var out strings.Builder
	cmd.Stdout = &out
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr := bufio.NewReader(errPipe)
	if line, _ := stderr.ReadString('\n'); strings.TrimSpace(line) != "started" {
		cmd.Process.Kill()
		t.Fatalf("first stderr line %q", line)
	}
	time.Sleep(settle) // let it get deep into its loop
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() {
		rest, _ = stderr.ReadString(0)
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), rest
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v did not stop the program", sig)
	}
	return
}

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteVersion(t *testing.T) {
	var b bytes.Buffer
	writeVersion(&b, versionInfo{Version: "1.2.3", Module: "github.com/harnlang/harn", ModuleVersion: "v1.2.3",
		Commit: "abc123", CommitTime: "2026-12-01T20:00:00Z", Modified: true, BuildDate: "2026-12-01T21:00:00Z", Go: "go1.26"})
	want := `harn 1.2.3
module:  github.com/harnlang/harn v1.2.3
commit:  abc123 (modified), committed 2026-12-01T20:00:00Z
built:   2026-12-01T21:00:00Z
go:      go1.26
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestVersionCommand reads the test binary's own build information.
func TestVersionCommand(t *testing.T) {
	out, _, code := runHarn("version")
	if code != 0 || !strings.HasPrefix(out, "harn "+version+"\n") || !strings.Contains(out, "module:  github.com/harnlang/harn") || !strings.Contains(out, "go:      go1.") {
		t.Fatalf("status %d:\n%s", code, out)
	}
}

func TestDocCommand(t *testing.T) {
	out, _, code := runHarn("doc", "len")
	if code != 0 || !strings.HasPrefix(out, "len(") || !strings.Contains(out, "area: ") {
		t.Fatalf("status %d:\n%s", code, out)
	}
	out, _, code = runHarn("doc", "std/calendar")
	if code != 0 || !strings.HasPrefix(out, "parts(ts, tz = \"UTC\") -> dict\n") || !strings.Contains(out, "area: std/calendar") || !strings.Contains(out, "\nstart_of_week(") {
		t.Fatalf("doc std/calendar: status %d:\n%s", code, out)
	}
	if _, stderr, code := runHarn("doc", "no_such_thing"); code != 1 || !strings.Contains(stderr, `no builtin named "no_such_thing"`) {
		t.Fatalf("status %d: %s", code, stderr)
	}
}

// TestVersionAndHelpUsage: harn version takes no arguments (a usage error,
// exit 2, as for every command), and every command the top-level help
// lists, version and help included, has a help of its own.
func TestVersionAndHelpUsage(t *testing.T) {
	for _, args := range [][]string{{"version", "--bogus"}, {"version", "extra"}} {
		if out, errOut, code := runHarn(args...); code != 2 || out != "" || !strings.Contains(errOut, "Usage: harn version") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(usage, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "harn" || f[1] == "—" || seen[f[1]] {
			continue
		}
		seen[f[1]] = true
		if out, errOut, code := runHarn("help", f[1]); code != 0 || !strings.Contains(out, "harn "+f[1]) {
			t.Errorf("harn help %s: exit %d\n%s%s", f[1], code, out, errOut)
		}
	}
	for _, want := range []string{"harn check [--strict-types] [PATH...]", "--disable ID", "--timeout DUR", "--name NAME", "harn help [COMMAND]"} {
		if !strings.Contains(usage, want) {
			t.Errorf("harn help lacks %q", want)
		}
	}
}

// TestDocAndHelpOptions: an option harn doc does not know is a usage
// error (exit 2), as for every command (docs/version.md), not a builtin
// name; `harn help --help` prints help's own usage.
func TestDocAndHelpOptions(t *testing.T) {
	for _, args := range [][]string{{"doc", "--bogus"}, {"doc", "-x"}, {"doc", "--json", "split"}} {
		if _, stderr, code := runHarn(args...); code != 2 || !strings.Contains(stderr, "error: unknown option "+args[1]+"\n") {
			t.Errorf("%v: status %d: %s", args, code, stderr)
		}
	}
	for _, args := range [][]string{{"help", "--help"}, {"help", "-h"}} {
		if out, stderr, code := runHarn(args...); code != 0 || !strings.HasPrefix(out, "Usage: harn help [COMMAND]") {
			t.Errorf("%v: status %d: %s%s", args, code, out, stderr)
		}
	}
}

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
	if code != 0 || !strings.HasPrefix(out, "parts(ts, tz = \"UTC\")\n") || !strings.Contains(out, "area: std/calendar") || !strings.Contains(out, "\nstart_of_week(") {
		t.Fatalf("doc std/calendar: status %d:\n%s", code, out)
	}
	if _, stderr, code := runHarn("doc", "no_such_thing"); code != 1 || !strings.Contains(stderr, `no builtin named "no_such_thing"`) {
		t.Fatalf("status %d: %s", code, stderr)
	}
}

package main

import (
	"os"
	"strings"
	"testing"
)

func TestColorUsage(t *testing.T) {
	c := colorUsage(usage)
	if !strings.Contains(c, "\x1b[1mUsage:\x1b[0m") || !strings.Contains(c, "  \x1b[36mharn run FILE [ARGS...]\x1b[0m  ") {
		t.Fatalf("usage not coloured:\n%q", c[:200])
	}
	// NO_COLOR wins even on a terminal; a pipe or buffer is never coloured
	t.Setenv("NO_COLOR", "1")
	if colorEnabled(os.Stdout) {
		t.Fatal("NO_COLOR ignored")
	}
	if out, _, _ := runHarn("--help"); strings.Contains(out, "\x1b[") {
		t.Fatal("colour written to a non-terminal")
	}
}

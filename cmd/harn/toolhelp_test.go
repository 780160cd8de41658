//go:build !harnlite

package main

import (
	"strings"
	"testing"
)

// TestToolHelpProseWraps: the prose of the `harn tool ...` help texts is
// wrapped at 80 columns, like the rest of harn's help (a usage line and
// the indented example lines may run longer).
func TestToolHelpProseWraps(t *testing.T) {
	texts := map[string]string{
		"tool": toolHelp, "tool schema": toolSchemaHelp, "tool run": toolRunHelp,
		"tool completions": toolCompletionsHelp, "tool diff": toolDiffHelp, "tool sdk": toolSDKHelp,
	}
	for name, text := range texts {
		for i, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "Usage:") || strings.HasPrefix(line, " ") {
				continue
			}
			if n := len([]rune(line)); n > 80 {
				t.Errorf("harn %s --help line %d has %d columns: %s", name, i+1, n, line)
			}
		}
	}
}

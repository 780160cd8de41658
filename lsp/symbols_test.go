package lsp

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestImportCompletionsListEveryStdModule: completing an import path offers
// every embedded std module (docs/spec/newer.md §2.16–§2.21 added several),
// filtered by the typed prefix.
func TestImportCompletionsListEveryStdModule(t *testing.T) {
	labels := func(prefix string) []string {
		var out []string
		for _, it := range (&Server{}).importCompletions(filepath.Join(t.TempDir(), "main.harn"), prefix) {
			out = append(out, it.Label)
		}
		return out
	}
	all := labels("std/")
	for _, want := range []string{"std/abort", "std/calendar", "std/cli", "std/coerce", "std/collections", "std/lifecycle", "std/math", "std/tools"} {
		if !slices.Contains(all, want) {
			t.Errorf("import completions for std/ lack %s: %v", want, all)
		}
	}
	if got, want := labels("std/c"), []string{"std/calendar", "std/cli", "std/coerce", "std/collections"}; !slices.Equal(got, want) {
		t.Errorf("import completions for std/c = %v, want %v", got, want)
	}
}

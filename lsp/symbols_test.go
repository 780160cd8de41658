package lsp

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/harnlang/harn/lang/syntax"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// TestImportCompletionsListEveryStdModule: completing an import path offers
// every embedded std module (docs/spec/newer.md §2.16–§2.21 added several),
// filtered by the typed prefix.
func TestImportCompletionsListEveryStdModule(t *testing.T) {
	labels := func(prefix string) []string {
		var out []string
		for _, it := range (&Server{}).importCompletions(filepath.Join(t.TempDir(), "main.harn"), prefix, protocol.Range{}) {
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

// TestSkillDeclarationIsADocumentSymbol: a `skill` declaration is listed
// among the file's symbols, its name position on the name (docs/skills.md).
func TestSkillDeclarationIsADocumentSymbol(t *testing.T) {
	src := "skill deploy {\n  description \"Ship it\"\n}\n"
	f, err := syntax.Parse("s.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	toks, err := syntax.Scan("s.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	syms := fileSymbols(f, toks)
	if len(syms) != 1 || syms[0].name != "deploy" || syms[0].detail != "skill" || syms[0].namePos != (syntax.Pos{Line: 1, Col: 7}) {
		t.Fatalf("symbols: %+v", syms)
	}
}

package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// manyModules writes n small modules under dir (in 37 directories), of
// which those in uses call lib.harn's shared_helper through an import;
// the others import lib.harn for another name.
func manyModules(t testing.TB, dir string, n int, uses map[int]bool) {
	t.Helper()
	lib := "pub fn shared_helper(x: int) -> int {\n  return x + 1\n}\n\npub fn other_helper(x: int) -> int {\n  return x * 2\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(lib), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%37))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		var src string
		if uses[i] {
			src = fmt.Sprintf("import { shared_helper } from \"../lib\"\n\nfn step_%d(k: int) -> int {\n  return shared_helper(k) + %d\n}\n\nprintln(step_%d(1))\n", i, i, i)
		} else {
			src = fmt.Sprintf("import { other_helper } from \"../lib\"\n\nfn step_%d(k: int) -> int {\n  let total = other_helper(k)\n  for x in [1, 2, 3] {\n    total += x * %d\n  }\n  return total\n}\n\nprintln(step_%d(1))\n", i, i, i)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("m%04d.harn", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReferencesBigWorkspace: references in a workspace of 3,700 modules
// find the uses in every one of them (not only in the first files of the
// walk), and only the files that contain the name are analysed
// (docs/lsp.md "find references").
func TestReferencesBigWorkspace(t *testing.T) {
	w := newWorkspace(t, map[string]string{})
	uses := map[int]bool{3: true, 1800: true, 3698: true}
	manyModules(t, w.dir, 3700, uses)
	uri := w.open("lib.harn")
	analysed := 0
	analysedForUses = func(string) { analysed++ }
	defer func() { analysedForUses = nil }()
	start := time.Now()
	locs, err := w.s.references(w.ctx, &protocol.ReferenceParams{TextDocumentPositionParams: w.at(uri, 0, 8),
		Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("references in 3,700 files: %v", time.Since(start))
	var refs []string
	for _, loc := range locs {
		refs = append(refs, strings.TrimPrefix(loc.URI, w.uri("")+"/")+":"+itoa(int(loc.Range.Start.Line)+1)+":"+itoa(int(loc.Range.Start.Character)+1))
	}
	slices.Sort(refs)
	want := []string{"lib.harn:1:8",
		"pkg03/m0003.harn:1:10", "pkg03/m0003.harn:4:10",
		"pkg35/m3698.harn:1:10", "pkg35/m3698.harn:4:10",
		"pkg24/m1800.harn:1:10", "pkg24/m1800.harn:4:10"}
	slices.Sort(want)
	if !slices.Equal(refs, want) {
		t.Errorf("references of shared_helper: %v, want %v", refs, want)
	}
	if analysed != 4 {
		t.Errorf("references analysed %d files, want the 4 that name shared_helper", analysed)
	}
	edit, err := w.s.rename(w.ctx, &protocol.RenameParams{TextDocumentPositionParams: w.at(uri, 0, 8), NewName: "bump"})
	if err != nil || edit == nil {
		t.Fatalf("rename: %v %v", edit, err)
	}
	if n := len(edit.Changes); n != 4 {
		t.Errorf("rename edits %d files, want 4", n)
	}
}

// TestHasWord: the text filter of references finds a name only where no
// identifier character touches it (letters of any script included).
func TestHasWord(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"let x = 1", "x", true},
		{"let xy = 1", "x", false},
		{"m.clampx(1)", "clampx", true},
		{"clampx_2(1)", "clampx", false},
		{"${Color.Red}", "Color", true},
		{"let éColor = 1\nColorá", "Color", false},
		{"let a = Color", "Color", true},
		{"Colors Color", "Color", true},
		{"", "x", false},
	} {
		if got := hasWord(c.text, c.name); got != c.want {
			t.Errorf("hasWord(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}

// TestWorkspaceSymbolsBigWorkspace: workspace/symbol searches every file of
// a workspace of 3,700 modules, not only the first thousand of the walk.
func TestWorkspaceSymbolsBigWorkspace(t *testing.T) {
	w := newWorkspace(t, map[string]string{})
	manyModules(t, w.dir, 3700, nil)
	syms, err := w.s.workspaceSymbols(w.ctx, &protocol.WorkspaceSymbolParams{Query: "STEP_3699"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, si := range syms {
		got = append(got, si.Name+"@"+strings.TrimPrefix(si.Location.URI, w.uri("")+"/"))
	}
	if want := []string{"step_3699@pkg36/m3699.harn"}; !slices.Equal(got, want) {
		t.Errorf("workspace symbols for STEP_3699: %v, want %v", got, want)
	}
}

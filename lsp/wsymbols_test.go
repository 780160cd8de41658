package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// docs/lsp.md (Symbols): workspace/symbol answers at most
// maxWorkspaceSymbols symbols, best matches first, over a real JSON-RPC
// session.
func TestWorkspaceSymbolsBounded(t *testing.T) {
	dir := t.TempDir()
	manyModules(t, dir, 700, nil)
	c := startServer(t, dir)
	all := c.request("workspace/symbol", map[string]any{"query": ""}).([]any)
	if len(all) != maxWorkspaceSymbols {
		t.Errorf("empty query: %d symbols, want %d", len(all), maxWorkspaceSymbols)
	}
	got := c.request("workspace/symbol", map[string]any{"query": "STEP_1"}).([]any)
	if len(got) == 0 || got[0].(map[string]any)["name"] != "step_1" {
		t.Fatalf("query STEP_1: %.300s", js(got))
	}
	// step_1, step_10…step_19, step_100…step_199: 111 names
	if len(got) != 111 {
		t.Errorf("query STEP_1: %d symbols, want 111", len(got))
	}
}

// TestWorkspaceSymbolsKeptPerVersion: a file's symbols are parsed once and
// kept until the file changes on disk, or until the open document's text
// does.
func TestWorkspaceSymbolsKeptPerVersion(t *testing.T) {
	w := newWorkspace(t, map[string]string{"a.harn": "fn alpha() {}\n", "b.harn": "fn beta() {}\n"})
	names := func() string {
		syms, err := w.s.workspaceSymbols(w.ctx, &protocol.WorkspaceSymbolParams{})
		if err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, si := range syms {
			ns = append(ns, si.Name)
		}
		return strings.Join(ns, " ")
	}
	if got := names(); got != "alpha beta" {
		t.Fatalf("symbols: %q", got)
	}
	a, b := w.s.symCache[filepath.Join(w.dir, "a.harn")], w.s.symCache[filepath.Join(w.dir, "b.harn")]
	names()
	if w.s.symCache[filepath.Join(w.dir, "a.harn")] != a || w.s.symCache[filepath.Join(w.dir, "b.harn")] != b {
		t.Error("unchanged files were parsed again")
	}
	later := time.Now().Add(2 * time.Second)
	w.write("b.harn", "fn beta() {}\nfn gamma() {}\n")
	os.Chtimes(filepath.Join(w.dir, "b.harn"), later, later)
	if got := names(); got != "alpha beta gamma" {
		t.Errorf("after changing b.harn on disk: %q", got)
	}
	uri := w.open("a.harn")
	w.change(uri, "fn alpha() {}\nfn delta() {}\n")
	if got := names(); got != "alpha delta beta gamma" {
		t.Errorf("after editing a.harn: %q", got)
	}
	os.Remove(filepath.Join(w.dir, "b.harn"))
	if got := names(); got != "alpha delta" || len(w.s.symCache) != 1 {
		t.Errorf("after deleting b.harn: %q (%d kept)", got, len(w.s.symCache))
	}
}

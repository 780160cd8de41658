package lsp

import (
	"slices"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

const mathxLib = `/// Clamps x.
pub fn clampx(x, lo, hi) {
  return min(max(x, lo), hi)
}

pub const LIMIT = 3
`

const nsMain = `import * as m from "./mathx"
let a = m.clampx(1, 2, 3)
let b = m.LIMIT
println([a, b, m.clampx(5, 0, 3)])
`

// TestNamespaceImportedNames: names used through a namespace import
// (`m.clampx`) have a hover and a definition, are references of their
// declaration, and rename renames them; `m.` completes the module's
// exports (docs/lsp.md).
func TestNamespaceImportedNames(t *testing.T) {
	w := newWorkspace(t, map[string]string{"mathx.harn": mathxLib, "main.harn": nsMain,
		"other.harn": "import { clampx } from \"./mathx\"\nprintln(clampx(5, 0, 3))\n"})
	uri := w.open("main.harn")
	if h := w.hover(uri, nsMain, "m.cla|mpx(1"); !strings.Contains(h, "fn clampx(x, lo, hi)") || !strings.Contains(h, "Clamps x.") {
		t.Errorf("hover of m.clampx: %q", h)
	}
	if h := w.hover(uri, nsMain, "m.LI|MIT"); !strings.Contains(h, "const LIMIT") {
		t.Errorf("hover of m.LIMIT: %q", h)
	}
	if d := w.definition(uri, nsMain, "m.cla|mpx(1"); d != "mathx.harn:2:8" {
		t.Errorf("definition of m.clampx: %q", d)
	}
	var refs []string
	l, c := cursor(t, nsMain, "m.cla|mpx(1")
	locs, err := w.s.references(w.ctx, &protocol.ReferenceParams{TextDocumentPositionParams: w.at(uri, l, c)})
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range locs {
		refs = append(refs, strings.TrimPrefix(loc.URI, w.uri("")+"/")+":"+itoa(int(loc.Range.Start.Line)+1)+":"+itoa(int(loc.Range.Start.Character)+1))
	}
	slices.Sort(refs)
	if want := []string{"main.harn:2:11", "main.harn:4:18", "other.harn:1:10", "other.harn:2:9"}; !slices.Equal(refs, want) {
		t.Errorf("references of clampx: %v, want %v", refs, want)
	}
	edit, err := w.s.rename(w.ctx, &protocol.RenameParams{TextDocumentPositionParams: w.at(uri, l, c), NewName: "clampy"})
	if err != nil || edit == nil {
		t.Fatalf("rename: %v %v", edit, err)
	}
	if got := applyEdits(nsMain, edit.Changes[uri]); got != strings.ReplaceAll(nsMain, "clampx", "clampy") {
		t.Errorf("rename leaves main.harn %q", got)
	}
	if got := applyEdits(mathxLib, edit.Changes[w.uri("mathx.harn")]); !strings.Contains(got, "pub fn clampy(") {
		t.Errorf("rename leaves mathx.harn %q", got)
	}
	if got := w.completeAfter("import * as m from \"./mathx\"\nlet a = m\n", "import * as m from \"./mathx\"\nlet a = m.|", "."); !contains(got, "clampx") || !contains(got, "LIMIT") || contains(got, "map") {
		t.Errorf("m. offers %.80v", got)
	}
}

const nsTyped = `import * as m from "./mathx"
/// G.
fn g(p: m.Point) -> int {
  let q = m.Point { x: 1 }
  return p.x + q.x + m.clampx(1, 2, 3)
}
println(g(m.Point { x: m.LIMIT }))
`

// TestNamespaceName: the name a namespace import binds has a hover (the
// import and the module's exports), its definition is the import's
// `as m` and, from there, the module's file; rename renames it in the
// import, in code and in types (`p: m.Point`), and nowhere else.
func TestNamespaceName(t *testing.T) {
	w := newWorkspace(t, map[string]string{"mathx.harn": mathxLib + "\n/// P.\npub struct Point {\n  x: int\n}\n", "main.harn": nsTyped})
	uri := w.open("main.harn")
	want := "import * as m from \"./mathx\"\n```\n\n*exports* `LIMIT`, `Point`, `clampx`"
	for _, needle := range []string{"import * as |m", "+ |m.clampx"} {
		if h := w.hover(uri, nsTyped, needle); !strings.Contains(h, want) {
			t.Errorf("hover of %s: %q", needle, h)
		}
	}
	if d := w.definition(uri, nsTyped, "+ |m.clampx"); d != "main.harn:1:13" {
		t.Errorf("definition of a use of m: %q", d)
	}
	if d := w.definition(uri, nsTyped, "import * as |m"); d != "mathx.harn:1:1" {
		t.Errorf("definition of the import's m: %q", d)
	}
	for _, needle := range []string{"import * as |m", "+ |m.clampx"} {
		l, c := cursor(t, nsTyped, needle)
		edit, err := w.s.rename(w.ctx, &protocol.RenameParams{TextDocumentPositionParams: w.at(uri, l, c), NewName: "mx"})
		if err != nil || edit == nil {
			t.Fatalf("rename at %s: %v %v", needle, edit, err)
		}
		if len(edit.Changes) != 1 {
			t.Errorf("rename at %s changes %d files", needle, len(edit.Changes))
		}
		if got, want := applyEdits(nsTyped, edit.Changes[uri]), strings.ReplaceAll(nsTyped, "m.", "mx."); got != strings.Replace(want, "as m ", "as mx ", 1) {
			t.Errorf("rename at %s leaves %q", needle, got)
		}
	}
}

// TestNamespaceSignatureHelp: a call through a namespace import
// (`m.clampx(`) has the signature help of the module's function, and
// one through a non-null assertion (`q!.sum(`) that of the impl method.
func TestNamespaceSignatureHelp(t *testing.T) {
	w := newWorkspace(t, map[string]string{"mathx.harn": mathxLib, "main.harn": nsMain, "opt.harn": optionalMain})
	for _, c := range []struct{ file, src, needle, label string }{
		{"main.harn", nsMain, "m.clampx(1, |2", "pub fn clampx(x, lo, hi)"},
		{"opt.harn", optionalMain, "q!.sum(|)", "fn sum(self) -> int"},
	} {
		uri := w.open(c.file)
		l, ch := cursor(t, c.src, c.needle)
		h, err := w.s.signatureHelp(w.ctx, &protocol.SignatureHelpParams{TextDocumentPositionParams: w.at(uri, l, ch)})
		if err != nil || h == nil || len(h.Signatures) == 0 {
			t.Errorf("%s: no signature help (%v)", c.needle, err)
			continue
		}
		if got := h.Signatures[0].Label; got != c.label {
			t.Errorf("%s: %q, want %q", c.needle, got, c.label)
		}
	}
}

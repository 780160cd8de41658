package lsp

import (
	"slices"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// complete asks for completion at the `|` of src (the document's text),
// as if typing trigger ("" for an explicit request), and returns the labels.
func (w *workspace) complete(src, trigger string) []string {
	w.t.Helper()
	return w.completeAfter("let xs = [1]\nlet total = 1\n", src, trigger)
}

// completeAfter is complete in a document whose previous version was
// prev.
func (w *workspace) completeAfter(prev, src, trigger string) []string {
	w.t.Helper()
	off := strings.IndexByte(src, '|')
	text := src[:off] + src[off+1:]
	uri := w.uri("main.harn")
	// a version that parses first, as when typing into a file
	w.s.didOpen(w.ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "harn", Version: 1,
		Text: prev}})
	w.change(uri, text)
	before := strings.Split(src[:off], "\n")
	p := &protocol.CompletionParams{TextDocumentPositionParams: w.at(uri, len(before)-1, len([]rune(before[len(before)-1])))}
	if trigger != "" {
		p.Context = &protocol.CompletionContext{TriggerKind: protocol.CompletionTriggerKindTriggerCharacter, TriggerCharacter: &trigger}
	}
	r, err := w.s.completion(w.ctx, p)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, it := range r.([]protocol.CompletionItem) {
		out = append(out, it.Label)
	}
	return out
}

// TestCompletionInStringsAndComments: nothing is offered inside comments
// and strings, nor on a `/` that divides; inside an import's path string
// only module paths are (docs/lsp.md, Completion).
func TestCompletionInStringsAndComments(t *testing.T) {
	w := newWorkspace(t, map[string]string{"lib.harn": typesLib})
	for _, c := range []struct{ src, trigger string }{
		{`println("|`, `"`},
		{`println("ab|`, ""},
		{"let xs = [1]\n//|", "/"},
		{"let xs = [1]\n// see http://|", "/"},
		{"let xs = [1]\n// xs.|", "."},
		{"let xs = [1]\n/* xs.| */", "."},
		{"let n = 10 /|", "/"},
		{`let s = "a.|"`, "."},
	} {
		if got := w.complete(c.src, c.trigger); len(got) > 0 {
			t.Errorf("%q offers %d items: %.80v", c.src, len(got), got)
		}
	}
	// in code and in interpolation holes, names are offered
	for _, src := range []string{"let total = 1\nprintln(tot|)", "let total = 1\nprintln(\"${tot|}\")"} {
		if got := w.complete(src, ""); !contains(got, "total") {
			t.Errorf("%q: %.80v", src, got)
		}
	}
	if got := w.complete("let xs = [1]\nxs.|", "."); !contains(got, "map") {
		t.Errorf("methods after xs.: %.80v", got)
	}
	// import paths: std modules and .harn files, nothing else
	for _, src := range []string{`import "|`, `import { add } from "|`, "import {\n  add,\n} from \"|", `pub import * as l from "|`} {
		got := w.complete(src, `"`)
		if !contains(got, "lib") || !contains(got, "std/math") || contains(got, "println") {
			t.Errorf("%q: %.80v", src, got)
		}
	}
	if got := w.complete(`import "std/|`, "/"); !contains(got, "std/math") || contains(got, "lib") {
		t.Errorf("import std/: %.80v", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// completeItems is complete returning the items.
func (w *workspace) completeItems(src, trigger string) []protocol.CompletionItem {
	w.t.Helper()
	off := strings.IndexByte(src, '|')
	text := src[:off] + src[off+1:]
	uri := w.uri("main.harn")
	w.s.didOpen(w.ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "harn", Version: 1, Text: text}})
	before := strings.Split(src[:off], "\n")
	p := &protocol.CompletionParams{TextDocumentPositionParams: w.at(uri, len(before)-1, len([]rune(before[len(before)-1])))}
	if trigger != "" {
		p.Context = &protocol.CompletionContext{TriggerKind: protocol.CompletionTriggerKindTriggerCharacter, TriggerCharacter: &trigger}
	}
	r, err := w.s.completion(w.ctx, p)
	if err != nil {
		w.t.Fatal(err)
	}
	return r.([]protocol.CompletionItem)
}

// TestImportPathCompletionReplacesThePath: an import path item replaces
// the whole path typed so far (from after the opening quote to the
// cursor) and filters on the whole path, so `"std/` + `std/math` does not
// become `"std/std/math` (docs/lsp.md, Completion).
func TestImportPathCompletionReplacesThePath(t *testing.T) {
	w := newWorkspace(t, map[string]string{"lib.harn": typesLib})
	for _, c := range []struct{ src, label, trigger string }{
		{`import { clamp } from "std/|`, "std/math", "/"},
		{`import { clamp } from "std/ma|"`, "std/math", ""},
		{"let é = 1\nimport { add } from \"./|", "./lib", "/"},
		{`import * as m from "|`, "std/math", `"`},
	} {
		off := strings.IndexByte(c.src, '|')
		lastLine := c.src[strings.LastIndexByte(c.src[:off], '\n')+1 : off]
		quote := strings.LastIndexByte(lastLine, '"')
		var found bool
		for _, it := range w.completeItems(c.src, c.trigger) {
			if it.Label != c.label {
				continue
			}
			found = true
			e, ok := it.TextEdit.(protocol.TextEdit)
			want := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(strings.Count(c.src[:off], "\n")), Character: protocol.UInteger(quote + 1)},
				End: protocol.Position{Line: protocol.UInteger(strings.Count(c.src[:off], "\n")), Character: protocol.UInteger(len(lastLine))}}
			if !ok || e.NewText != c.label || e.Range != want {
				t.Errorf("%q: %s edit = %+v, want %s over %+v", c.src, c.label, it.TextEdit, c.label, want)
			}
			if it.FilterText == nil || *it.FilterText != c.label {
				t.Errorf("%q: %s filterText = %v", c.src, c.label, it.FilterText)
			}
		}
		if !found {
			t.Errorf("%q: no %s", c.src, c.label)
		}
	}
}

// TestCompletionOffersTypeDeclarations: top-level enums, type aliases and
// interfaces are among the names completion offers, as structs are
// (docs/lsp.md, Completion).
func TestCompletionOffersTypeDeclarations(t *testing.T) {
	w := newWorkspace(t, nil)
	src := lines(
		"enum Shape {",
		"  Dot",
		"}",
		"type Alias = int",
		"interface IF {",
		"  fn area(self) -> int",
		"}",
		"struct Pt {",
		"  x: int",
		"}",
		"fn f(a: int) {",
		"  |",
		"}")
	got := map[string]protocol.CompletionItemKind{}
	for _, it := range w.completeItems(src, "") {
		got[it.Label] = *it.Kind
	}
	for name, kind := range map[string]protocol.CompletionItemKind{"Shape": protocol.CompletionItemKindEnum, "Alias": protocol.CompletionItemKindTypeParameter,
		"IF": protocol.CompletionItemKindInterface, "Pt": protocol.CompletionItemKindStruct, "f": protocol.CompletionItemKindFunction} {
		if k, ok := got[name]; !ok || k != kind {
			t.Errorf("completion offers %s as kind %v (present %v), want kind %v", name, k, ok, kind)
		}
	}
}

// TestMemberCompletionOfImportedTypes: after `.` an imported enum offers
// its variants and a parameter of an imported struct type its fields, as
// for the file's own declarations (docs/lsp.md, Completion).
func TestMemberCompletionOfImportedTypes(t *testing.T) {
	w := newWorkspace(t, map[string]string{"lib.harn": typesLib})
	for _, c := range []struct {
		src      string
		want     []string
		unwanted string
	}{
		{"import { Color } from \"./lib\"\nlet c = Color.|", []string{"Red", "Green"}, "map"},
		{"import { Point } from \"./lib\"\nfn g(q: Point) { return q.| }", []string{"x", "y"}, ""},
		// through a non-null assertion or an optional access (docs/spec/newer.md §1.4)
		{"import { Point } from \"./lib\"\nfn g(q: Point?) { return q!.| }", []string{"x", "y"}, ""},
		{"import { Point } from \"./lib\"\nfn g(q: Point?) { return q?.| }", []string{"x", "y"}, ""},
	} {
		// the version before the `.` parsed
		prev := strings.Replace(strings.Replace(c.src, ".|", "", 1), "|", "", 1)
		got := w.completeAfter(prev, c.src, ".")
		for _, want := range c.want {
			if !contains(got, want) {
				t.Errorf("%q lacks %s: %.80v", c.src, want, got)
			}
		}
		if c.unwanted != "" && contains(got, c.unwanted) {
			t.Errorf("%q offers %s: %.80v", c.src, c.unwanted, got)
		}
	}
}

// TestMemberCompletionOfStructVariables: after `.` a variable annotated
// with a struct type, or never reassigned and starting as a struct literal
// (the file's, imported or through a namespace import), offers the
// struct's fields and no builtin method (a struct has none); a reassigned
// one without annotation offers no field (docs/lsp.md, Completion).
func TestMemberCompletionOfStructVariables(t *testing.T) {
	w := newWorkspace(t, map[string]string{"lib.harn": typesLib})
	for _, c := range []struct {
		src  string
		want []string
	}{
		{"struct Pt { x: int, yy: int }\nlet p = Pt { x: 1, yy: 2 }\nlet z = p.|", []string{"x", "yy"}},
		{"struct Pt { x: int, yy: int }\nfn f() {\n  let p: Pt? = nil\n  return p?.|\n}", []string{"x", "yy"}},
		{"import { Point } from \"./lib\"\nlet p = Point { x: 1, y: 2 }\nprintln(p.|)", []string{"x", "y"}},
		{"import * as geo from \"./lib\"\nlet p = geo.Point { x: 1, y: 2 }\nprintln(p.|)", []string{"x", "y"}},
		{"struct Pt { x: int, yy: int }\nvar p = Pt { x: 1, yy: 2 }\np = {yy: 3}\nlet z = p.|", nil},
	} {
		prev := strings.Replace(strings.Replace(c.src, ".|", "", 1), "|", "", 1)
		got := w.completeAfter(prev, c.src, ".")
		for _, want := range c.want {
			if !contains(got, want) {
				t.Errorf("%q lacks %s: %.80v", c.src, want, got)
			}
		}
		if c.want == nil && contains(got, "yy") {
			t.Errorf("%q offers yy: %.80v", c.src, got)
		}
		// a struct has no builtin methods; the reassigned p may be a dict
		if builtins := contains(got, "map"); builtins != (c.want == nil) {
			t.Errorf("%q: builtin methods offered %v, want %v: %.80v", c.src, builtins, c.want == nil, got)
		}
	}
}

// TestMemberCompletionBeforeTheFileParsed: `Shape.` offers the variants of
// an enum of the text being typed even when no version of it parsed yet.
func TestMemberCompletionBeforeTheFileParsed(t *testing.T) {
	w := newWorkspace(t, nil)
	src := "enum Shape {\n  Circle(r: int),\n  // a comment\n  Dot\n}\nlet s = Shape.|"
	got := w.completeAfter(strings.Replace(src, "|", "", 1), src, ".")
	if !slices.Equal(got, []string{"Circle", "Dot"}) {
		t.Errorf("Shape. offers %.80v, want [Circle Dot]", got)
	}
}

// TestMemberCompletionOfDictKeys: after `opts.`, where opts is never
// reassigned and starts as a dict literal, its keys are offered, keywords
// included (docs/spec/newer.md §1.1), and string keys that spell a name.
func TestMemberCompletionOfDictKeys(t *testing.T) {
	w := newWorkspace(t, nil)
	prev := "let opts = {finally: 1, select: 2, \"id\": 3, \"a b\": 4, alpha: 5}\nprintln(opts)\n"
	got := w.completeAfter(prev, prev+"opts.|", ".")
	for _, want := range []string{"finally", "select", "id", "alpha", "keys"} {
		if !contains(got, want) {
			t.Errorf("opts. lacks %s: %.80v", want, got)
		}
	}
	if contains(got, "a b") {
		t.Errorf("opts. offers a key that is not a name")
	}
	reassigned := "let opts = {alpha: 1}\nopts = {beta: 2}\nprintln(opts)\n"
	if got := w.completeAfter(reassigned, reassigned+"opts.|", "."); contains(got, "alpha") {
		t.Errorf("a reassigned variable's first keys are offered: %.80v", got)
	}
}

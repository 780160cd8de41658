package lsp

import (
	"fmt"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

const typesLib = `pub struct Point {
  x: int
  y: int
}

pub enum Color {
  Red
  Green
}

/// Adds two numbers.
pub fn add(a, b) {
  return a + b
}

/// The answer.
pub const ANSWER = 42
`

// TestFixesKeepImportedTypes: imported structs and enums used as types,
// literals and variants are used imports, so neither a quick fix nor
// source.fixAll.harn removes them (docs/lint.md, unused-import).
func TestFixesKeepImportedTypes(t *testing.T) {
	w := newWorkspace(t, map[string]string{"lib.harn": typesLib,
		"main.harn": lines(`import { add, Point, Color, ANSWER } from "./lib"`, "var p = Point { x: 1, y: 2 }", "println(Color.Red, add(1, 2), p.x)")})
	uri := w.open("main.harn")
	for _, d := range w.diagnostics(uri) {
		if d.Code != nil && d.Code.Value == "unused-import" && !strings.Contains(d.Message, "ANSWER") {
			t.Errorf("diagnostic: %s", d.Message)
		}
	}
	var fixAll string
	for _, a := range w.codeActions(uri) {
		text := w.edited(a, uri)
		if *a.Kind == fixAllKind {
			fixAll = text
		}
		if strings.Contains(a.Title, "unused-import") && !strings.Contains(text, "import { add, Point, Color }") {
			t.Errorf("%s leaves:\n%s", a.Title, text)
		}
	}
	want := lines(`import { add, Point, Color } from "./lib"`, "let p = Point { x: 1, y: 2 }", "println(Color.Red, add(1, 2), p.x)")
	if fixAll != want {
		t.Errorf("fix all:\n%s--- want\n%s", fixAll, want)
	}
}

// TestNoFixesForAFileWithErrors: as harn lint --fix does, the server
// offers no fix for a file harn check rejects, so no fix can leave a file
// that fails to check.
func TestNoFixesForAFileWithErrors(t *testing.T) {
	w := newWorkspace(t, map[string]string{"main.harn": lines("var x = 1", `let n: int = "s"`, "println(x, n)")})
	uri := w.open("main.harn")
	if a := w.codeActions(uri); len(a) != 0 {
		t.Errorf("actions offered: %+v", a)
	}
}

// TestUnreachableCoversTheStatements: the unreachable-code diagnostic
// covers the statements that never run (docs/lint.md), not one character;
// a local fn after them, which the fix keeps, is left out.
func TestUnreachableCoversTheStatements(t *testing.T) {
	w := newWorkspace(t, map[string]string{"main.harn": lines("fn f() {", "  return 1", "  println(\"a\")", "  let _x = [", "    2,", "  ]", "  // note",
		"  fn g() {", "    return 2", "  }", "}", "println(f())", "throw \"stop\"", "println(1) // gone")})
	uri := w.open("main.harn")
	var got []string
	for _, d := range w.diagnostics(uri) {
		if d.Code != nil && d.Code.Value == "unreachable-code" {
			r := d.Range
			got = append(got, fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character))
		}
	}
	if want := "[2:2-5:3 13:0-13:10]"; fmt.Sprint(got) != want {
		t.Errorf("ranges %v, want %s", got, want)
	}
}

// TestOnTypeFormattingAfterALineBreak: after Enter the new line stays,
// indented to its depth; the rest of the document is not touched
// (docs/lsp.md, Formatting).
func TestOnTypeFormattingAfterALineBreak(t *testing.T) {
	w := newWorkspace(t, nil)
	for _, c := range []struct {
		src  string // | is the cursor, on the new line
		want string
	}{
		{"fn f(a) {\n  let x = 1\n  |\n}\n", "fn f(a) {\n  let x = 1\n  \n}\n"},
		{"fn f(a) {\n  let x = 1\n|\n}\n", "fn f(a) {\n  let x = 1\n  \n}\n"},
		{"fn f(a) {\n  let x = 1\n      |\n  return x\n}\n", "fn f(a) {\n  let x = 1\n  \n  return x\n}\n"},
		{"fn f(a) {\n  if a {\n|}\n}\n", "fn f(a) {\n  if a {\n  }\n}\n"},
		{"let x = 1\n|", "let x = 1\n"},
		{"let x = 1\n  |", "let x = 1\n"},
		{"let s = \"\"\"\n  a\n    |\n\"\"\"\n", "let s = \"\"\"\n  a\n    \n\"\"\"\n"},
		{"let xs = [\n1,\n|\n", "let xs = [\n1,\n  \n"},
	} {
		off := strings.IndexByte(c.src, '|')
		text := c.src[:off] + c.src[off+1:]
		uri := w.uri("main.harn")
		w.s.didOpen(w.ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "harn", Version: 1, Text: text}})
		line := strings.Count(c.src[:off], "\n")
		edits, err := w.s.onTypeFormatting(w.ctx, &protocol.DocumentOnTypeFormattingParams{
			TextDocumentPositionParams: w.at(uri, line, off-strings.LastIndexByte(c.src[:off], '\n')-1), Ch: "\n"})
		if err != nil {
			t.Fatal(err)
		}
		if got := applyEdits(text, edits); got != c.want {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
	}
}

// applyEdits applies non-overlapping edits to text.
func applyEdits(text string, edits []protocol.TextEdit) string {
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		lines := splitLines(text)
		from, to := offsetOf(lines, e.Range.Start), offsetOf(lines, e.Range.End)
		text = text[:from] + e.NewText + text[to:]
	}
	return text
}

package lsp

import (
	"fmt"
	"strings"
	"testing"
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
		text := edited(a, uri)
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

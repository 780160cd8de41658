package lsp

import (
	"fmt"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

const hoverMain = `import { add, Point, Color, ANSWER } from "./lib"

/// A pair of ints.
struct Pt {
  a: int
  b: int
}

impl Pt {
  /// Adds the fields.
  fn sum(self) -> int {
    return self.a + self.b
  }
}

enum Shape {
  Circle(r: int)
  Dot
}

let a: int = 1
const LIMIT: int = 10
let p = Point { x: 1, y: 2 }
let q = Pt { a: 1, b: 2 }
let xs = [1, 2, 3]

fn area(s: Shape, pt: Pt) -> int {
  return match s {
    Shape.Circle(r) -> { r }
    Shape.Dot -> { pt.a }
  }
}

fn paint(c: Color) -> string {
  return "${c}"
}

println("${a} ${LIMIT}", Color.Red, add(1, 2), p.x, q.sum(), area(Shape.Circle(2), q), ANSWER, xs.slice(0, 1), paint(Color.Green))
`

// cursor finds the text of needle without its `|` in src and returns
// the position of the `|`.
func cursor(t *testing.T, src, needle string) (int, int) {
	t.Helper()
	bar := strings.IndexByte(needle, '|')
	at := strings.Index(src, needle[:bar]+needle[bar+1:])
	if at < 0 {
		t.Fatalf("%q not in the source", needle)
	}
	before := strings.Split(src[:at+bar], "\n")
	return len(before) - 1, len([]rune(before[len(before)-1]))
}

func (w *workspace) hover(uri, src, needle string) string {
	w.t.Helper()
	l, c := cursor(w.t, src, needle)
	h, err := w.s.hover(w.ctx, &protocol.HoverParams{TextDocumentPositionParams: w.at(uri, l, c)})
	if err != nil || h == nil {
		return ""
	}
	return h.Contents.(protocol.MarkupContent).Value
}

func (w *workspace) definition(uri, src, needle string) string {
	w.t.Helper()
	l, c := cursor(w.t, src, needle)
	d, err := w.s.definition(w.ctx, &protocol.DefinitionParams{TextDocumentPositionParams: w.at(uri, l, c)})
	if err != nil || d == nil {
		return ""
	}
	loc := d.(protocol.Location)
	file := strings.TrimPrefix(loc.URI, w.uri("")+"/")
	return file + ":" + itoa(int(loc.Range.Start.Line)+1) + ":" + itoa(int(loc.Range.Start.Character)+1)
}

// TestHoverAndDefinitionOfTypes: types, variants, impl methods,
// annotated bindings, imported constants and names inside ${…} have a
// hover and a definition (docs/lsp.md, Hover, Go to definition).
func TestHoverAndDefinitionOfTypes(t *testing.T) {
	w := newWorkspace(t, map[string]string{"lib.harn": typesLib, "main.harn": hoverMain})
	uri := w.open("main.harn")
	src := hoverMain
	for _, c := range []struct {
		needle, hover, def string
	}{
		{"println(\"${|a}", "let a: int", "main.harn:21:5"},
		{"${LI|MIT}", "const LIMIT: int", "main.harn:22:7"},
		{"let |a: int", "let a: int", "main.harn:21:5"},
		{"return \"${|c}\"", "(parameter) c: Color", "main.harn:34:10"},
		{"let p = Po|int {", "struct Point {\n  x: int\n  y: int\n}", "lib.harn:1:12"},
		{"let q = P|t {", "A pair of ints.", "main.harn:4:8"},
		{"pt: P|t)", "struct Pt {", "main.harn:4:8"},
		{"c: Co|lor)", "enum Color {\n  Red\n  Green\n}", "lib.harn:6:10"},
		{", Col|or.Red", "*imported from* `./lib`", "lib.harn:6:10"},
		{"Color.R|ed", "Color.Red", "lib.harn:7:3"},
		{"enum Sh|ape {", "enum Shape {\n  Circle(r: int)\n  Dot\n}", "main.harn:16:6"},
		{"area(Shape.Cir|cle(2)", "Shape.Circle(r: int)", "main.harn:17:3"},
		{"    Shape.D|ot ->", "Shape.Dot", "main.harn:18:3"},
		{"q.su|m()", "Adds the fields.", "main.harn:11:6"},
		{"ANS|WER, xs", "The answer.", "lib.harn:17:11"},
		{"xs.sl|ice(0, 1)", "(list method) xs.slice(start?, end?)", ""},
		{"p.x|,", "(field) Point.x: int", "lib.harn:2:3"}, // a field's definition is its declaration
		{"import { a|dd,", "Adds two numbers.", "lib.harn:12:8"},
		{"Color, ANS|WER }", "The answer.", "lib.harn:17:11"},
		{"  Ci|rcle(r: int)", "Shape.Circle(r: int)", "main.harn:17:3"},
		{"  D|ot\n}", "*variant of* `enum Shape`", "main.harn:18:3"},
	} {
		h := w.hover(uri, src, c.needle)
		if !strings.Contains(h, c.hover) {
			t.Errorf("hover %q: %q, want %q", c.needle, h, c.hover)
		}
		if d := w.definition(uri, src, c.needle); d != c.def {
			t.Errorf("definition %q: %q, want %q", c.needle, d, c.def)
		}
	}
	if h := w.hover(uri, src, "q.su|m()"); strings.Contains(h, "list") || !strings.Contains(h, "fn sum(self) -> int") {
		t.Errorf("hover of an impl method: %q", h)
	}
	if h := w.hover(uri, src, "xs.sl|ice(0, 1)"); strings.Contains(h, "string method") {
		t.Errorf("hover of a list method: %q", h)
	}
}

// TestMethodSignatureHelp: signature help of a method call reads the
// receiver's type when the source says it.
func TestMethodSignatureHelp(t *testing.T) {
	w := newWorkspace(t, map[string]string{"lib.harn": typesLib, "main.harn": hoverMain})
	uri := w.open("main.harn")
	help := func(needle string) string {
		l, c := cursor(t, hoverMain, needle)
		h, err := w.s.signatureHelp(w.ctx, &protocol.SignatureHelpParams{TextDocumentPositionParams: w.at(uri, l, c)})
		if err != nil || h == nil {
			return ""
		}
		return h.Signatures[0].Label
	}
	if got := help("xs.slice(0, |1)"); got != w.s.docs[uri].cur.sess.Universe.Method("list", "slice").Sig {
		t.Errorf("xs.slice: %q", got)
	}
	if got := help("q.sum(|)"); got != "fn sum(self) -> int" {
		t.Errorf("q.sum: %q", got)
	}
}

const optionalMain = `struct Point {
  x: int
}

impl Point {
  fn sum(self) -> int {
    return self.x
  }
}

fn g(q: Point?, u: Point | nil) -> int {
  println(q?.sum(), q!.sum(), u!.x)
  return q!.x
}
println(g(nil, nil))
`

// TestHoverThroughOptionalAccess: a member of a value whose annotation is
// optional (`q: Point?`, `u: Point | nil`), reached with `?.` or through
// the non-null assertion `!` (docs/spec/newer.md §1.4), has the hover and
// definition of the struct's field or impl method.
func TestHoverThroughOptionalAccess(t *testing.T) {
	w := newWorkspace(t, map[string]string{"main.harn": optionalMain})
	uri := w.open("main.harn")
	for needle, want := range map[string]string{
		"q?.s|um()": "fn sum(self) -> int", "q!.s|um()": "fn sum(self) -> int",
		"q!.|x": "(field) Point.x: int", "u!.|x": "(field) Point.x: int",
	} {
		if h := w.hover(uri, optionalMain, needle); !strings.Contains(h, want) {
			t.Errorf("hover of %s: %q, want %q", needle, h, want)
		}
	}
	if d := w.definition(uri, optionalMain, "q!.s|um()"); d != "main.harn:6:6" {
		t.Errorf("definition of q!.sum: %q", d)
	}
}

const genericMain = `/// A sink.
interface Sink<in T> {
  fn put(self, x: T)
}

/// A box.
type Box<out T> = {get: fn() -> T}

/// Firsts.
fn first<T: Show>(xs: list<T>) -> T? {
  return xs[0]
}
println(first([1]))
`

// TestTypeParameters: a type parameter (with its variance, `in T`,
// `out T`) has a hover and a definition where it is introduced and where
// a type inside its declaration names it, and semantic tokens mark it a
// type parameter, `out` a keyword (docs/spec/newer.md §1.5).
func TestTypeParameters(t *testing.T) {
	w := newWorkspace(t, map[string]string{"main.harn": genericMain})
	uri := w.open("main.harn")
	for needle, want := range map[string]string{
		"Sink<in |T>": "(type parameter) in T", "x: |T)": "(type parameter) in T",
		"Box<out |T>": "(type parameter) out T", "fn() -> |T}": "(type parameter) out T",
		"first<|T": "(type parameter) T: Show", "list<|T>": "(type parameter) T: Show",
	} {
		if h := w.hover(uri, genericMain, needle); !strings.Contains(h, want) {
			t.Errorf("hover of %s: %q, want %q", needle, h, want)
		}
	}
	if h := w.hover(uri, genericMain, "x: |T)"); !strings.Contains(h, "of `Sink`") {
		t.Errorf("hover of T in Sink: %q", h)
	}
	for needle, want := range map[string]string{"x: |T)": "main.harn:2:19", "fn() -> |T}": "main.harn:7:14", "-> |T?": "main.harn:10:10"} {
		if d := w.definition(uri, genericMain, needle); d != want {
			t.Errorf("definition of %s: %q, want %q", needle, d, want)
		}
	}
	a := Analyze("/tmp/generic.harn", genericMain)
	ls := splitLines(genericMain)
	got := map[string]string{}
	for _, tok := range decodeTokens(a.semanticTokens()) {
		r := []rune(ls[tok.line])
		got[fmt.Sprintf("%d:%d:%s", tok.line+1, tok.char+1, string(r[tok.char:tok.char+tok.length]))] = tok.typ
	}
	for at, want := range map[string]string{
		"2:16:in": "keyword", "2:19:T": "typeParameter", "3:19:T": "typeParameter",
		"7:10:out": "keyword", "7:14:T": "typeParameter", "7:33:T": "typeParameter",
		"10:10:T": "typeParameter", "10:23:list": "type", "10:28:T": "typeParameter", "10:35:T": "typeParameter",
	} {
		if got[at] != want {
			t.Errorf("%s is %q, want %q", at, got[at], want)
		}
	}
}

// TestHoverOfInferredVariables: a variable without annotation that starts
// as a struct literal hovers with the struct's type, and one that starts
// as an `fn(…)` closure with the closure's signature (docs/lsp.md, Hover).
func TestHoverOfInferredVariables(t *testing.T) {
	src := "import * as geo from \"./lib\"\nstruct Pt { x: int, y: int }\nlet p = Pt { x: 1, y: 2 }\nlet g = geo.Point { x: 1, y: 2 }\nlet cl = fn(a: int) -> int { a * 2 }\nlet n = 3\nprintln(p.x + g.x + cl(n))\n"
	w := newWorkspace(t, map[string]string{"lib.harn": typesLib, "main.harn": src})
	uri := w.open("main.harn")
	for _, c := range []struct{ needle, want string }{
		{"let p| =", "let p: Pt"},
		{"println(p|.x", "let p: Pt"},
		{"let g| =", "let g: geo.Point"},
		{"let c|l =", "let cl = fn(a: int) -> int"},
		{"+ c|l(n)", "let cl = fn(a: int) -> int"},
		{"let n| =", "let n: int"},
	} {
		if got, want := w.hover(uri, src, c.needle), "```harn\n"+c.want+"\n```"; got != want {
			t.Errorf("hover %q: %q, want %q", c.needle, got, want)
		}
	}
}

package lsp

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

const geoLib = `/// A point.
pub struct Point {
  x: int
  y: int
}

pub enum Color {
  Red
  Green
}

pub interface Shape {
  fn area(self) -> int
}

pub type Pair = list<Point>

impl Point {
  fn area(self) -> int {
    return self.x * self.y
  }
}

pub fn origin() -> Point {
  return Point { x: 0, y: 0 }
}

pub fn total<T>(xs: list<T>) -> int where T: Shape {
  return len(xs)
}
`

// geoMain names geo's types everywhere a type can be named, and writes
// Point where it names something else: a field, a type parameter, a
// string, a comment, a longer name.
const geoMain = `import { Point, Color, Pair, origin, total } from "./geo"
import * as geo from "./geo"

// Point is also a field, a type parameter and a string below
struct Box {
  Point: int
  inner: Point
}

fn shift(p: Point, by: int) -> Point {
  return Point { x: p.x + by, y: p.y }
}

fn first<Point>(xs: list<Point>) -> Point {
  return xs[0]
}

fn paint(c: Color) -> string {
  return match c {
    Color.Red -> { "red" }
    Color.Green -> { "green" }
  }
}

let pts: list<Point> = [origin(), geo.Point { x: 1, y: 2 }]
let q: geo.Point = shift(pts[0], 1)
let pair: Pair = pts
let b = Box { Point: 1, inner: q }
let label = "Point ${Color.Red}"
let Point2 = 3
println([b.Point, label, paint(Color.Green), first(pair).x, q.y, total(pts), Point2, is_type(pts, Pair), geo.Color.Red])
`

// renamed applies a rename at needle in file and returns every file's
// text afterwards.
func (w *workspace) renamed(file, src, needle, to string) map[string]string {
	w.t.Helper()
	l, c := cursor(w.t, src, needle)
	edit, err := w.s.rename(w.ctx, &protocol.RenameParams{TextDocumentPositionParams: w.at(w.uri(file), l, c), NewName: to})
	if err != nil || edit == nil {
		w.t.Fatalf("rename at %q: %v %v", needle, edit, err)
	}
	out := map[string]string{}
	for name, text := range map[string]string{"geo.harn": geoLib, "main.harn": geoMain} {
		out[name] = applyEdits(text, edit.Changes[w.uri(name)])
	}
	return out
}

// TestRenameTypes: renaming a struct, an enum, an interface or a type
// alias edits its declaration and every place its name is written, in
// both files, from any of them, and nothing else (docs/lsp.md, Rename).
func TestRenameTypes(t *testing.T) {
	w := newWorkspace(t, map[string]string{"geo.harn": geoLib, "main.harn": geoMain})
	w.open("main.harn")
	w.open("geo.harn")
	point := func(text string) string {
		for _, r := range []struct{ from, to string }{
			{"pub struct Point", "pub struct Spot"}, {"list<Point>\n", "list<Spot>\n"}, {"impl Point", "impl Spot"},
			{"origin() -> Point", "origin() -> Spot"}, {"return Point {", "return Spot {"},
			{"import { Point,", "import { Spot,"}, {"inner: Point", "inner: Spot"},
			{"p: Point, by: int) -> Point", "p: Spot, by: int) -> Spot"},
			{"pts: list<Point>", "pts: list<Spot>"}, {"geo.Point", "geo.Spot"},
		} {
			text = strings.ReplaceAll(text, r.from, r.to)
		}
		return text
	}
	for _, at := range []struct{ file, src, needle string }{
		{"main.harn", geoMain, "inner: Po|int"},
		{"main.harn", geoMain, "return Po|int {"},
		{"main.harn", geoMain, "let q: geo.Po|int"},
		{"main.harn", geoMain, "import { Po|int,"},
		{"geo.harn", geoLib, "pub struct Po|int"},
		{"geo.harn", geoLib, "impl Po|int"},
	} {
		got := w.renamed(at.file, at.src, at.needle, "Spot")
		if want := point(geoMain); got["main.harn"] != want {
			t.Errorf("rename at %q leaves main.harn\n%s\nwant\n%s", at.needle, got["main.harn"], want)
		}
		if want := point(geoLib); got["geo.harn"] != want {
			t.Errorf("rename at %q leaves geo.harn\n%s\nwant\n%s", at.needle, got["geo.harn"], want)
		}
	}
	for _, c := range []struct {
		file, src, needle, to string
		geo, main             []string // replacements each file wants
	}{
		{"main.harn", geoMain, "    Col|or.Red ->", "Hue",
			[]string{"enum Color", "enum Hue"},
			[]string{"Color,", "Hue,", "c: Color", "c: Hue", "Color.Red ->", "Hue.Red ->", "Color.Green ->", "Hue.Green ->",
				"${Color.Red}", "${Hue.Red}", "paint(Color.Green)", "paint(Hue.Green)", "geo.Color.Red", "geo.Hue.Red"}},
		{"geo.harn", geoLib, "where T: Sha|pe", "Form",
			[]string{"interface Shape", "interface Form", "T: Shape", "T: Form"}, nil},
		{"main.harn", geoMain, "let pair: Pa|ir", "Duo",
			[]string{"type Pair", "type Duo"},
			[]string{"Pair, origin", "Duo, origin", "pair: Pair", "pair: Duo", "is_type(pts, Pair)", "is_type(pts, Duo)"}},
	} {
		got := w.renamed(c.file, c.src, c.needle, c.to)
		if want := strings.NewReplacer(c.geo...).Replace(geoLib); got["geo.harn"] != want {
			t.Errorf("rename at %q leaves geo.harn\n%s\nwant\n%s", c.needle, got["geo.harn"], want)
		}
		want := geoMain
		if c.main != nil {
			want = strings.NewReplacer(c.main...).Replace(geoMain)
		}
		if got["main.harn"] != want {
			t.Errorf("rename at %q leaves main.harn\n%s\nwant\n%s", c.needle, got["main.harn"], want)
		}
	}
}

// TestTypeReferencesAndHighlights: references, document highlights and
// definition cover the places a type's name is written, and a type
// parameter named like a type hides it (docs/lsp.md).
func TestTypeReferencesAndHighlights(t *testing.T) {
	w := newWorkspace(t, map[string]string{"geo.harn": geoLib, "main.harn": geoMain})
	uri := w.open("main.harn")
	l, c := cursor(t, geoMain, "c: Co|lor")
	locs, err := w.s.references(w.ctx, &protocol.ReferenceParams{TextDocumentPositionParams: w.at(uri, l, c),
		Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, loc := range locs {
		refs = append(refs, strings.TrimPrefix(loc.URI, w.uri("")+"/")+":"+itoa(int(loc.Range.Start.Line)+1)+":"+itoa(int(loc.Range.Start.Character)+1))
	}
	slices.Sort(refs)
	if want := []string{"geo.harn:7:10", "main.harn:18:13", "main.harn:1:17", "main.harn:20:5", "main.harn:21:5", "main.harn:29:22", "main.harn:31:110", "main.harn:31:32"}; !slices.Equal(refs, want) {
		t.Errorf("references of Color: %v, want %v", refs, want)
	}
	l, c = cursor(t, geoMain, "shift(p: Po|int")
	hs, err := w.s.documentHighlight(w.ctx, &protocol.DocumentHighlightParams{TextDocumentPositionParams: w.at(uri, l, c)})
	if err != nil {
		t.Fatal(err)
	}
	var marks []string
	for _, h := range hs {
		marks = append(marks, itoa(int(h.Range.Start.Line)+1)+":"+itoa(int(h.Range.Start.Character)+1)+"-"+itoa(int(h.Range.End.Character)+1))
	}
	slices.Sort(marks)
	if want := []string{"10:13-18", "10:32-37", "11:10-15", "1:10-15", "25:15-20", "25:39-44", "26:12-17", "7:10-15"}; !slices.Equal(marks, want) {
		t.Errorf("highlights of Point: %v, want %v", marks, want)
	}
	for _, c := range []struct{ needle, def string }{
		{"inner: Po|int", "geo.harn:2:12"},
		{"geo.Po|int {", "geo.harn:2:12"},
		{"${Col|or.Red}", "geo.harn:7:10"},
		{"list<Po|int>) -> Point", "main.harn:14:10"}, // the type parameter, not the struct
		{"let pair: Pa|ir", "geo.harn:16:10"},
	} {
		if d := w.definition(uri, geoMain, c.needle); d != c.def {
			t.Errorf("definition %q: %q, want %q", c.needle, d, c.def)
		}
	}
	if h := w.hover(uri, geoMain, "list<Po|int>) -> Point"); !strings.HasPrefix(h, "```harn\n(type parameter) Point\n```") {
		t.Errorf("hover of a type parameter named Point: %q", h)
	}
}

// shapesMain declares an enum and names it in every kind of type
// expression, and writes Shape where it is something else: a parameter
// and its use, a string, a doc comment, a longer name, a bare variant
// pattern (which the resolver qualifies with the enum's name).
const shapesMain = `/// Shapes; Shape2 and the string "Shape" are not Shape.
enum Shape {
  Circle(r: int)
  Dot
}

struct Shape2 {
  inner: Shape?
}

type Shapes = list<Shape>

enum Wrap {
  Of(s: Shape)
}

struct Holder {
  pick: fn(Shape) -> int
  all: {first: Shape, rest: list<Shape>}
}

fn area(s: Shape | nil) -> int {
  if s == nil {
    return 0
  }
  return match s {
    Circle(r) -> { r }
    Shape.Dot -> { 0 }
  }
}

fn named(Shape: string) -> string {
  return Shape.upper()
}

fn keep<T>(x: T) -> T {
  return x
}

let shapes: list<Shape> = [Shape.Circle(2), Shape.Dot]
let f = { s: Shape -> area(s) }
let h = Holder { pick: f, all: {first: Shape.Dot, rest: shapes} }
let k = keep<Shape>(Shape.Dot)
let caught = try {
  throw Shape.Dot
} catch (e: Shape) {
  e
}
println([area(Shape.Circle(2)), named("Shape"), Shape2 { inner: nil }, area(k), len(h.all.rest), caught, is_type(shapes, Shapes), Wrap.Of(Shape.Dot)])
`

// TestRenameLocalType: a type declared in the renamed file, renamed from
// its declaration or a use, with every type expression that can name it.
func TestRenameLocalType(t *testing.T) {
	w := newWorkspace(t, map[string]string{"main.harn": shapesMain})
	uri := w.open("main.harn")
	want := regexp.MustCompile(`\bShape\b`).ReplaceAllString(shapesMain, "Form")
	want = strings.NewReplacer(`/// Shapes; Shape2 and the string "Form" are not Form.`, `/// Shapes; Shape2 and the string "Shape" are not Shape.`,
		"fn named(Form: string)", "fn named(Shape: string)", "return Form.upper()", "return Shape.upper()",
		`named("Form")`, `named("Shape")`).Replace(want)
	for _, needle := range []string{"enum Sha|pe {", "catch (e: Sha|pe)", "keep<Sh|ape>", "rest: list<Sha|pe>"} {
		l, c := cursor(t, shapesMain, needle)
		edit, err := w.s.rename(w.ctx, &protocol.RenameParams{TextDocumentPositionParams: w.at(uri, l, c), NewName: "Form"})
		if err != nil || edit == nil {
			t.Fatalf("rename at %q: %v %v", needle, edit, err)
		}
		if got := applyEdits(shapesMain, edit.Changes[uri]); got != want {
			t.Errorf("rename at %q leaves\n%s\nwant\n%s", needle, got, want)
		}
	}
	// the parameter named Shape is a variable of its own
	l, c := cursor(t, shapesMain, "return Sha|pe.upper()")
	edit, err := w.s.rename(w.ctx, &protocol.RenameParams{TextDocumentPositionParams: w.at(uri, l, c), NewName: "label"})
	if err != nil || edit == nil {
		t.Fatalf("rename of the parameter: %v %v", edit, err)
	}
	if got, want := applyEdits(shapesMain, edit.Changes[uri]), strings.NewReplacer("fn named(Shape: string)", "fn named(label: string)", "return Shape.upper()", "return label.upper()").Replace(shapesMain); got != want {
		t.Errorf("rename of the parameter leaves\n%s", got)
	}
}

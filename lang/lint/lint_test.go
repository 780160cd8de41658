package lint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/lint"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// analyzer resolves source as the file path inside dir, loading imports
// the way harn check does.
func analyzer(path string) lint.Analyzer {
	return func(src []byte) (*syntax.File, *resolve.Info, error) {
		m, diags := interp.NewSession(interp.Options{}).Analyze(path, src)
		if m == nil {
			return nil, nil, diags
		}
		return m.Syntax, m.Info, nil
	}
}

// findings lints src and renders each finding of rule as "L:C msg".
func findings(t *testing.T, dir, src, rule string) []string {
	t.Helper()
	path := filepath.Join(dir, "main.harn")
	m, diags := interp.NewSession(interp.Options{}).Analyze(path, []byte(src))
	if m == nil {
		t.Fatalf("analyze: %v", diags)
	}
	var out []string
	// the checker's diagnostics too, as harn lint passes them
	for _, fd := range lint.File(m.Syntax, m.Info, lint.Options{Checked: diags}) {
		if fd.Rule.ID == rule {
			out = append(out, fmt.Sprintf("%d:%d %s", fd.Pos.Line, fd.Pos.Col, fd.Msg))
		}
	}
	return out
}

type ruleCase struct {
	rule  string
	fires string   // source with findings of the rule
	want  []string // "L:C message" of each finding
	fixed string   // the fires source after harn lint --fix ("" when the rule has no fix there)
	quiet string   // source where the rule must not fire
}

var ruleCases = []ruleCase{
	{rule: "unused-variable",
		fires: "fn f(xs) {\n  let a = g()\n  for x in xs {\n    println(1)\n  }\n  try {\n    h()\n  } catch (e) {\n    println(2)\n  }\n}\nfn g() { return 1 }\nfn h() { return 2 }\nf([1])\n",
		want:  []string{"2:7 `a` is assigned but never used", "3:7 loop variable `x` is never used", "8:12 caught error `e` is never used"},
		fixed: "fn f(xs) {\n  let _ = g()\n  for _ in xs {\n    println(1)\n  }\n  try {\n    h()\n  } catch {\n    println(2)\n  }\n}\n\nfn g() {\n  return 1\n}\n\nfn h() {\n  return 2\n}\n\nf([1])\n",
		quiet: "let _ignored = 1\npub let exported = 2\nlet used = 3\nprintln(used)\n" +
			"pipeline base() {\n  let shared = 1\n}\npipeline main() extends base {\n  println(shared)\n}\n"},
	{rule: "unused-variable", // reported, but no fix: the name is assigned later, the catch is typed
		fires: "let x = 1\nx = 2\ntry {\n  println(0)\n} catch (e: string) {\n  println(1)\n}\n",
		want:  []string{"1:5 `x` is assigned but never used", "5:10 caught error `e` is never used"},
		fixed: "let x = 1\nx = 2\ntry {\n  println(0)\n} catch (e: string) {\n  println(1)\n}\n",
		quiet: "let y = 1\nprintln(y)\n"},
	{rule: "unused-parameter",
		fires: "fn add(a, b) {\n  return a\n}\n\nlet f = { x, y -> y }\nprintln(add(1, 2), f(1, 2))\n",
		want:  []string{"1:11 parameter `b` is never used", "5:11 parameter `x` is never used"},
		// no fix: `println(f)` shows the parameter names (`<fn(x, y)>`)
		fixed: "fn add(a, b) {\n  return a\n}\n\nlet f = { x, y -> y }\nprintln(add(1, 2), f(1, 2))\n",
		quiet: "fn main(harness: Harness) {\n  println(1)\n}\nfn stub(a) {}\nfn g(_unused) { return 1 }\nprintln(g(1), stub(1))\n"},
	{rule: "unused-import",
		fires: "import { one, two } from \"lib\"\nimport { three } from \"lib\"\nprintln(one())\n",
		want:  []string{"1:15 `two` is imported from \"lib\" but never used", "2:10 `three` is imported from \"lib\" but never used"},
		fixed: "import { one } from \"lib\"\nprintln(one())\n",
		quiet: "import { one } from \"lib\"\nimport \"lib\"\npub import { two } from \"lib\"\nprintln(one())\n"},
	{rule: "unused-pattern-binding",
		fires: "let {a, b} = {a: 1, b: 2}\nlet [x, y] = [1, 2]\nprintln(a, x)\nmatch Ok(1) {\n  Result.Ok(v) -> { println(\"ok\") }\n  Result.Err(e) -> { println(e) }\n}\n",
		want:  []string{"1:9 `b` is bound by the pattern but never used", "2:9 `y` is bound by the pattern but never used", "5:13 `v` is bound by the match arm but never used"},
		fixed: "let {a, b: _} = {a: 1, b: 2}\nlet [x, _] = [1, 2]\nprintln(a, x)\nmatch Ok(1) {\n  Result.Ok(_) -> { println(\"ok\") }\n  Result.Err(e) -> { println(e) }\n}\n",
		quiet: "let {a, ...rest} = {a: 1, b: 2}\nprintln(a, rest)\n"},
	{rule: "unused-pattern-binding", // a rest: `..._` keeps the pattern's meaning
		fires: "let {a, ...others} = {a: 1, b: 2}\nlet [x, ...tail] = [1, 2, 3]\nprintln([a, x])\n",
		want:  []string{"1:9 `...others` collects the other keys but is never used", "2:9 `...tail` collects the other elements but is never used"},
		fixed: "let {a, ..._} = {a: 1, b: 2}\nlet [x, ..._] = [1, 2, 3]\nprintln([a, x])\n",
		quiet: "let {a, ..._} = {a: 1, b: 2}\nlet [x, ...tail] = [1, 2, 3]\nprintln([a, x, tail])\n"},
	{rule: "shadowing",
		fires: "fn f(n) {\n  let total = 0\n  for i in [1] {\n    let total = i\n    let n = 2\n    println(total, n)\n  }\n  return total\n}\nprintln(f(1))\n",
		want:  []string{"4:9 `total` shadows the variable declared at 2:7", "5:9 `n` shadows the parameter declared at 1:6"},
		quiet: "let x = 1\nfn f(x) {\n  let y = x\n  let y = y + 1\n  return y\n}\nprintln(f(x))\n"},
	{rule: "shadowing", // at the catch variable, not at `try`
		fires: "fn f(v) {\n  try { throw \"e\" } catch (v) { println(v) }\n}\nf(1)\n",
		want:  []string{"2:28 `v` shadows the parameter declared at 1:6"},
		quiet: "fn f(v) {\n  try { throw \"e\" } catch (w) { println(v, w) }\n}\nf(1)\n"},
	{rule: "unreachable-code",
		fires: "fn f() {\n  return 1\n  println(\"never\")\n  fn helper() { return 2 }\n}\nprintln(f())\n",
		want:  []string{"3:3 unreachable code: the statement before always leaves the block"},
		fixed: "fn f() {\n  return 1\n  fn helper() {\n    return 2\n  }\n}\n\nprintln(f())\n",
		quiet: "fn f(x) {\n  if x {\n    return 1\n  }\n  return 2\n}\nprintln(f(true))\n"},
	{rule: "pointless-comparison",
		fires: "let a = 1\nlet b = 2\nif a == a {\n  println(1)\n}\nif (a > b) == true {\n  println(2)\n}\nif (a < b) != true {\n  println(3)\n}\nlet flag = true\nif flag == false {\n  println(4)\n}\n",
		want: []string{"3:4 comparing a value with itself is always true", "6:5 comparison with `true`: for a bool `b` this is `b`",
			"9:5 comparison with `true`: for a bool `b` this is `!b`", "13:4 comparison with `false`: for a bool `b` this is `!b`"},
		fixed: "let a = 1\nlet b = 2\nif a == a {\n  println(1)\n}\nif a > b {\n  println(2)\n}\nif !(a < b) {\n  println(3)\n}\nlet flag = true\nif flag == false {\n  println(4)\n}\n",
		quiet: "let a = 1\nprintln(a == 2, f() == f())\nfn f() { return 1 }\n" +
			// floats may be NaN, durations never compare equal
			// (docs/spec/language.md §1.6), unknown types claim nothing
			"let z = 0.0 / 0.0\nlet d = 5s\nprintln(z != z, 5s == 5s, d == d, 1.5 == 1.5)\nfn g(p) { return p == p }\nprintln(g(1))\n"},
	{rule: "prefer-let",
		fires: "var count = 0\ncount += 1\nprintln(count)\n",
		want:  []string{"1:1 use `let` instead of `var`"},
		fixed: "let count = 0\ncount += 1\nprintln(count)\n",
		quiet: "let count = 0\nconst k = 1\nprintln(count, k)\n"},
	{rule: "prefer-pick",
		// a blank line between entries does not stop it (docs/spec/newer.md §2.2)
		fires: "let user = {name: \"a\", email: \"b\"}\nprintln({name: user.name, email: user.email})\nprintln({\n  name: user.name,\n\n  email: user.email,\n})\n",
		want: []string{"2:9 record literal copies 2 fields from `user` one by one (replace it with `pick(user, [\"name\", \"email\"])`)",
			"3:9 record literal copies 2 fields from `user` one by one (replace it with `pick(user, [\"name\", \"email\"])`)"},
		quiet: "let user = {name: \"a\", email: \"b\"}\nlet other = {name: \"c\"}\nprintln({name: user.name})\nprintln({name: user.name, email: other.email})\nprintln({who: user.name, email: user.email})\n" +
			"println({name: user.name, /* keep */ email: user.email})\nprintln({\n  name: user.name, // keep\n  email: user.email,\n})\n"},
	{rule: "unnecessary-conversion",
		fires: "println(to_string(\"hi\"), to_int(3), to_float(1.5))\n",
		want: []string{"1:9 `to_string` of a literal that already has that type returns it unchanged",
			"1:26 `to_int` of a literal that already has that type returns it unchanged",
			"1:37 `to_float` of a literal that already has that type returns it unchanged"},
		fixed: "println(\"hi\", 3, 1.5)\n",
		quiet: "fn to_int(x) { return x }\nprintln(to_string(1), to_int(3), to_float(\"2\"))\n"},
	{rule: "task-assigns-captured",
		fires: "let n = 0\nlet h = spawn { n = n + 1 }\nawait(h)\nfn f(d) {\n  parallel 2 { i -> d.x = i }\n  return d\n}\nprintln(n, f({x: 0}))\n",
		want: []string{"2:17 `spawn` body reassigns `n`, declared outside it: the change is shared with the enclosing code and the other tasks",
			"5:21 `parallel` body reassigns `d`, declared outside it: the change is shared with the enclosing code and the other tasks"},
		quiet: "let h = spawn {\n  let k = 0\n  k = k + 1\n  let bump = { -> k = k + 1 }\n  bump()\n  k\n}\nlet total = 0\ntotal = total + await(h)\nprintln(total)\n"},
	{rule: "task-assigns-captured", // in a mutex block the tasks take turns (docs/spec/newer.md §1.7)
		fires: "let n = 0\nparallel 2 { i ->\n  mutex {\n    n += i\n  }\n  n = 0\n}\nprintln(n)\n",
		want:  []string{"6:3 `parallel` body reassigns `n`, declared outside it: the change is shared with the enclosing code and the other tasks"},
		quiet: "let n = 0\nparallel 2 { i ->\n  mutex(\"n\") {\n    n += i\n  }\n}\nlet h = spawn {\n  let v = mutex {\n    n = n + 1\n    n\n  }\n  v\n}\nprintln([await(h), n])\n"},
	{rule: "missing-doc",
		fires: "pub fn area(w, h) {\n  return w * h\n}\n",
		want:  []string{"1:8 public function `area` has no doc comment"},
		quiet: "/// The area of a rectangle.\npub fn area(w, h) {\n  return w * h\n}\nfn private_helper() { return 1 }\nprintln(private_helper())\n" +
			// a doc comment between the attributes and the declaration counts
			"@deprecated(\"y\")\n/// Doc after the attribute.\npub fn b_fn(a) { return a }\n"},
	{rule: "naming",
		fires: "fn doThing(someArg) {\n  return someArg\n}\nstruct point_2d {\n  x: int\n}\nenum Color {\n  dark_red\n}\nprintln(doThing(1))\n",
		want: []string{"1:4 function `doThing` should be snake_case (`do_thing`)", "1:12 parameter `someArg` should be snake_case (`some_arg`)",
			"4:1 struct `point_2d` should be PascalCase (`Point2d`)", "8:3 variant `dark_red` should be PascalCase (`DarkRed`)"},
		quiet: "const MAX_SIZE = 3\nconst min_size = 1\nfn do_thing(some_arg) {\n  return some_arg + MAX_SIZE + min_size\n}\nstruct Point2D {\n  x: int\n}\nprintln(do_thing(1))\n"},
	{rule: "unnecessary-non-null",
		fires: "fn f(x: int) -> int {\n  return x!\n}\nprintln(f(1))\n",
		want:  []string{"2:11 unnecessary non-null assertion: a value of type `int` is never nil"},
		quiet: "fn f(x: int?) -> int {\n  return x!\n}\nprintln(f(1))\n"},
	{rule: "catch-handles-nothing", // docs/spec/language.md §8.3
		fires: "struct Oops {\n  why: string\n}\nenum E {\n  A\n}\ntype Alias = E\ntry {\n  f()\n} catch (e: string) {\n  println(e)\n}\n" +
			"try {\n  f()\n} catch (e: Oops) {\n  println(e)\n}\ntry {\n  f()\n} catch (err: Alias) {\n  println(err)\n}\nfn f() { throw \"x\" }\n",
		want: []string{"10:13 `catch (e: string)` handles no failure: a typed catch takes only the variants of the enum it names, and `string` is a built-in type",
			"15:13 `catch (e: Oops)` handles no failure: a typed catch takes only the variants of the enum it names, and `Oops` is a struct",
			"20:15 `catch (err: Alias)` handles no failure: a typed catch takes only the variants of the enum it names, and `Alias` is a type alias"},
		quiet: "enum E {\n  A\n}\ntry {\n  f()\n} catch (e: E) {\n  println(e)\n}\ntry {\n  f()\n} catch (e: Result) {\n  println(e)\n}\n" +
			"try {\n  f()\n} catch (e: int | string) {\n  println(e)\n}\ntry {\n  f()\n} catch (e: list<int>) {\n  println(e)\n}\ntry {\n  f()\n} catch (e) {\n  println(e)\n}\nfn f() { throw \"x\" }\n"},
}

func TestRules(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range ruleCases {
		t.Run(c.rule, func(t *testing.T) {
			covered[c.rule] = true
			if lint.Lookup(c.rule) == nil {
				t.Fatalf("no rule %s", c.rule)
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("pub fn one() { return 1 }\npub fn two() { return 2 }\npub fn three() { return 3 }\n"), 0o644)
			got := findings(t, dir, c.fires, c.rule)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("fires:\n got %q\nwant %q", got, c.want)
			}
			if got := findings(t, dir, c.quiet, c.rule); len(got) > 0 {
				t.Errorf("fires on the quiet case: %q", got)
			}
			if c.fixed == "" {
				return
			}
			path := filepath.Join(dir, "main.harn")
			out, n, err := lint.Fix(path, []byte(c.fires), analyzer(path), lint.Options{Disable: others(c.rule)})
			if err != nil {
				t.Fatalf("fix: %v", err)
			}
			if string(out) != c.fixed || (n == 0) != (c.fixed == c.fires) {
				t.Errorf("fixed (%d fixes):\n%s--- want\n%s", n, out, c.fixed)
			}
			// The fixed program still runs.
			os.WriteFile(path, out, 0o644)
			if r := interp.RunProgram(path, nil, interp.Options{Stdout: &strings.Builder{}, Stderr: &strings.Builder{}}); r.Err != nil {
				t.Errorf("fixed program fails: %v", r.Err)
			}
		})
	}
	for _, r := range lint.Rules {
		if !covered[r.ID] {
			t.Errorf("rule %s has no test", r.ID)
		}
		if r.Summary == "" || r.Explain == "" {
			t.Errorf("rule %s lacks a summary or explanation", r.ID)
		}
	}
}

// others lists every rule id but one, so a fix test sees only its rule.
func others(id string) []string {
	var out []string
	for _, r := range lint.Rules {
		if r.ID != id {
			out = append(out, r.ID)
		}
	}
	return out
}

// TestDocsListEveryRule keeps docs/lint.md in step with the rule table.
func TestDocsListEveryRule(t *testing.T) {
	doc, err := os.ReadFile("../../docs/lint.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range lint.Rules {
		if !strings.Contains(string(doc), "### `"+r.ID+"`") || !strings.Contains(string(doc), r.Explain) {
			t.Errorf("docs/lint.md does not describe %s as --explain does", r.ID)
		}
	}
}

// TestFixKeepsPatternSpelling: resolution qualifies bare variant patterns
// (`Circle(r)` → `Sh.Circle(r)`, `Ok(v)` → `Result.Ok(v)`) and shortens
// `ns.Shape` to `Shape`; a fix elsewhere in the file must not print those
// forms.
func TestFixKeepsPatternSpelling(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "shapes.harn"), []byte("pub enum Shape {\n  Square(side: int)\n}\n"), 0o644)
	body := "import * as ns from \"shapes\"\n\nenum Sh {\n  Circle(r: int)\n  Dot\n}\n\n" +
		"fn area(s: Sh) -> int {\n  return match s {\n    Circle(r) -> { r * r }\n    Dot -> { 0 }\n  }\n}\n\n" +
		"fn g(x) {\n  return match x {\n    Ok(v) -> { v }\n    Err(e) -> { e }\n  }\n}\n\n" +
		"fn h(s) {\n  return match s {\n    ns.Shape.Square(n) -> { n }\n  }\n}\n\n"
	path := filepath.Join(dir, "main.harn")
	out, n, err := lint.Fix(path, []byte(body+"var y = 1\nprintln(area(Sh.Dot) + g(Ok(y)) + h(ns.Shape.Square(2)))\n"), analyzer(path), lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := body + "let y = 1\nprintln(area(Sh.Dot) + g(Ok(y)) + h(ns.Shape.Square(2)))\n"; n != 1 || string(out) != want {
		t.Errorf("fixed (%d fixes):\n%s--- want\n%s", n, out, want)
	}
}

// TestUnusedImportSeesTypes: an imported struct, enum or interface is used
// when the file names it as a type, builds a literal of it, reads a
// variant or matches on one, even though none of these reads a run-time
// value.
func TestUnusedImportSeesTypes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "types.harn"), []byte("pub struct Point {\n  x: int\n  y: int\n}\n"+
		"pub struct Box {\n  w: int\n}\npub struct Pair {\n  a: int\n}\npub struct Spare {\n  z: int\n}\n"+
		"pub enum Color {\n  Red\n  Green\n}\npub enum Shape {\n  Circle(r: int)\n  Dot\n}\n"+
		"pub interface Sized {\n  fn size(self) -> int\n}\npub type Pt = {x: int}\npub fn add(a, b) {\n  return a + b\n}\n"), 0o644)
	src := "import { add, Point, Box, Pair, Spare, Color, Shape, Sized, Pt } from \"./types\"\n" +
		"let p = Point { x: 1, y: 2 }\n" +
		"fn width(b: Box) -> int {\n  return b.w\n}\n" +
		"fn first(xs: list<Pair>) -> int {\n  return len(xs)\n}\n" +
		"fn measure<T>(x: T) -> int where T: Sized {\n  return 1\n}\n" +
		"fn area(s) {\n  return match s {\n    Shape.Circle(r) -> { r }\n    Shape.Dot -> { 0 }\n  }\n}\n" +
		"println(Color.Red, add(1, 2), p.x, width, first, measure, area, schema_of(Pt))\n"
	got := findings(t, dir, src, "unused-import")
	if want := "1:33 `Spare` is imported from \"./types\" but never used"; strings.Join(got, "\n") != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestUnusedImportSeesPipeStrings: a function used only through a pipe
// whose target is a string naming it (docs/spec/language.md §2.8) is used.
func TestUnusedImportSeesPipeStrings(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.harn"), []byte("pub fn shout(s) {\n  return s + \"!\"\n}\npub fn whisper(s) {\n  return s\n}\n"), 0o644)
	src := "import { shout, whisper } from \"./m\"\nprintln(\"hi\" |> \"shout\")\n"
	got := findings(t, dir, src, "unused-import")
	if want := "1:17 `whisper` is imported from \"./m\" but never used"; strings.Join(got, "\n") != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// fixDescs lints src and renders each finding of rule as "L:C fix", the
// fix's description ("" when the finding has none).
func fixDescs(t *testing.T, dir, src, rule string) []string {
	t.Helper()
	m, diags := interp.NewSession(interp.Options{}).Analyze(filepath.Join(dir, "main.harn"), []byte(src))
	if m == nil {
		t.Fatalf("analyze: %v", diags)
	}
	var out []string
	for _, fd := range lint.File(m.Syntax, m.Info, lint.Options{}) {
		if fd.Rule.ID == rule {
			out = append(out, fmt.Sprintf("%d:%d %s", fd.Pos.Line, fd.Pos.Col, fd.Fix))
		}
	}
	return out
}

// TestUnusedImportKeepsTheLoad: loading a module runs its top-level
// initialisers, so the last unused name of an import is removed (with the
// import) only for a std module or when an earlier import loads the same
// path; otherwise it is reported without a fix.
func TestUnusedImportKeepsTheLoad(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "eff.harn"), []byte("fn boot() {\n  println(\"eff loaded\")\n  return 1\n}\nlet _booted = boot()\n"+
		"pub fn one() { return 1 }\npub fn two() { return 2 }\n"), 0o644)
	for _, c := range []struct{ src, want string }{
		{"import { one } from \"./eff\"\nprintln(0)\n", "1:10 "},
		{"import { one, two } from \"./eff\"\nprintln(0)\n", "1:10 \n1:15 "},
		{"import { one } from \"./eff\"\nimport { two } from \"./eff\"\nprintln(one())\n", "2:10 remove it from the import"},
		{"import { two } from \"./eff\"\nimport { one } from \"./eff\"\nprintln(one())\n", "1:10 "},
		{"import { one } from \"./eff\"\nimport { clamp } from \"std/math\"\nprintln(one())\n", "2:10 remove it from the import"},
		{"import { one, two } from \"./eff\"\nprintln(one())\n", "1:15 remove it from the import"},
	} {
		if got := strings.Join(fixDescs(t, dir, c.src, "unused-import"), "\n"); got != c.want {
			t.Errorf("%s: got %q\nwant %q", c.src, got, c.want)
		}
	}
	path := filepath.Join(dir, "main.harn")
	src := "import { one } from \"./eff\"\nprintln(0)\n"
	if out, n, err := lint.Fix(path, []byte(src), analyzer(path), lint.Options{}); err != nil || n != 0 || string(out) != src {
		t.Errorf("Fix = %q, %d, %v; want the file unchanged", out, n, err)
	}
}

// TestLookupByCode: the checker's code for a lint warning names its rule
// (harn lint --explain HARN-LNT-063).
func TestLookupByCode(t *testing.T) {
	if r := lint.Lookup("HARN-LNT-063"); r != lint.UnnecessaryNonNull {
		t.Errorf("Lookup(HARN-LNT-063) = %v", r)
	}
}

// TestFixRefusesABrokenResult: every version a fix produces goes through
// the analyzer, so a caller that refuses files harn check rejects (harn
// lint --fix, the language server) never gets a fixed file it would
// refuse, from Fix or from FixOne.
func TestFixRefusesABrokenResult(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.harn")
	src := []byte("var a = 1\nvar b = 2\nvar c = 3\nvar d = 4\nvar e = 5\nprintln(a, b, c, d, e)\n")
	real := analyzer(path)
	onlyOriginal := func(s []byte) (*syntax.File, *resolve.Info, error) {
		if string(s) != string(src) {
			return nil, nil, fmt.Errorf("refused")
		}
		return real(s)
	}
	if _, _, err := lint.Fix(path, src, onlyOriginal, lint.Options{}); err == nil || err.Error() != "refused" {
		t.Errorf("Fix: err = %v", err)
	}
	if _, err := lint.FixOne(path, src, onlyOriginal, lint.Options{}, "prefer-let", syntax.Pos{Line: 1, Col: 1}); err == nil || err.Error() != "refused" {
		t.Errorf("FixOne: err = %v", err)
	}
}

// In pipeline mode a top-level return is ignored (docs/spec/language.md
// §5.3): nothing after it is unreachable, so --fix must not delete the
// pipeline, while code after a return inside a function still is.
func TestUnreachableIgnoresPipelineTopLevel(t *testing.T) {
	dir := t.TempDir()
	src := "return 0\npipeline default() {\n  println(\"entry ran\")\n}\n"
	if got := findings(t, dir, src, "unreachable-code"); len(got) > 0 {
		t.Errorf("pipeline top level: %q", got)
	}
	inner := "fn f() {\n  return 1\n  println(\"never\")\n}\nreturn 0\npipeline default() {\n  println(f())\n}\n"
	if got := findings(t, dir, inner, "unreachable-code"); strings.Join(got, "\n") != "3:3 unreachable code: the statement before always leaves the block" {
		t.Errorf("inside a function in a pipeline file: %q", got)
	}
}

// TestNamingSuggestsWords: the snake_case a naming finding suggests
// keeps acronyms and all-capital names as words.
func TestNamingSuggestsWords(t *testing.T) {
	src := "let LIMIT = 3\nlet parseHTTPResponse = 1\nlet userID2x = 2\nlet MaxRetries = 4\nprintln(LIMIT, parseHTTPResponse, userID2x, MaxRetries)\n"
	got := findings(t, t.TempDir(), src, "naming")
	want := []string{"1:5 variable `LIMIT` should be snake_case (`limit`)",
		"2:5 variable `parseHTTPResponse` should be snake_case (`parse_http_response`)",
		"3:5 variable `userID2x` should be snake_case (`user_id2x`)",
		"4:5 variable `MaxRetries` should be snake_case (`max_retries`)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestUnusedNamespaceImport: `import * as ns` is unused when ns is named
// neither as a value nor in a type; the fix deletes the import when the
// module is still loaded without it (TestUnusedImportKeepsTheLoad).
func TestUnusedNamespaceImport(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.harn"), []byte("/// P.\npub struct Point {\n  x: int\n}\n\n/// F.\npub fn f() {\n  return 1\n}\n"), 0o644)
	for _, c := range []struct{ src, want string }{
		{"import * as m from \"./m\"\nprintln(0)\n", "1:13 "},
		{"import * as m from \"./m\"\nimport * as n from \"./m\"\nprintln(m.f())\n", "2:13 delete the import"},
		{"import * as mt from \"std/math\"\nprintln(0)\n", "1:13 delete the import"},
		// used: in a call, a type, a struct literal; or named with _
		{"import * as m from \"./m\"\nprintln(m.f())\n", ""},
		{"import * as m from \"./m\"\nfn g(p: m.Point) -> int {\n  return p.x\n}\nprintln(g)\n", ""},
		{"import * as m from \"./m\"\nprintln(m.Point { x: 1 })\n", ""},
		{"import * as _m from \"./m\"\nprintln(0)\n", ""},
	} {
		if got := strings.Join(fixDescs(t, dir, c.src, "unused-import"), "\n"); got != c.want {
			t.Errorf("%s: got %q\nwant %q", c.src, got, c.want)
		}
	}
	path := filepath.Join(dir, "main.harn")
	src := "import * as m from \"./m\"\nimport * as mt from \"std/math\"\nprintln(m.f())\n"
	if out, n, err := lint.Fix(path, []byte(src), analyzer(path), lint.Options{}); err != nil || n != 1 || string(out) != "import * as m from \"./m\"\nprintln(m.f())\n" {
		t.Errorf("Fix = %q, %d, %v", out, n, err)
	}
}

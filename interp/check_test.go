package interp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/diag"
)

// writeProject generates a multi-file project of about lines lines: an
// entry file importing modules modules and calling into every one. The
// modules hold typed structs and functions with loops, closures, dicts and
// try; the entry file also has enums, impl blocks and matches (which
// modules cannot use, docs/spec/language.md §11.2).
func writeProject(t testing.TB, dir string, lines, modules int) string {
	per := lines / (modules + 1)
	var main strings.Builder
	main.WriteString("// generated check benchmark entry\n")
	for m := range modules {
		fmt.Fprintf(&main, "import { Point%[1]d_0, total_%[1]d_0 } from \"lib/mod%[1]d\"\n", m)
		path := filepath.Join(dir, "lib", fmt.Sprintf("mod%d.harn", m))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(moduleSource(m, per)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main.WriteString(entrySource(modules, per-modules))
	for m := range modules {
		fmt.Fprintf(&main, "println(total_%[1]d_0([1, 2, 3]))\n", m)
	}
	path := filepath.Join(dir, "main.harn")
	if err := os.WriteFile(path, []byte(main.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// moduleSource generates about n lines of well-typed module code.
func moduleSource(m, n int) string {
	var b strings.Builder
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, `/// Point%[1]d_%[2]d is a sample struct.
pub struct Point%[1]d_%[2]d {
  x: int
  y: int
  label?: string
}

pub type Status%[1]d_%[2]d = "ok" | "fail"

pub fn shifted_%[1]d_%[2]d(p: Point%[1]d_%[2]d, dx: int = 1) -> Point%[1]d_%[2]d {
  return Point%[1]d_%[2]d { x: p.x + dx, y: p.y }
}

fn status_%[1]d_%[2]d(n: int) -> Status%[1]d_%[2]d {
  return n > 0 ? "ok" : "fail"
}

pub fn total_%[1]d_%[2]d(items: list<int>, opts = {verbose: false, limit: 10}) -> int {
  let total = 0
  let seen = {}
  for item in items {
    if item %% 2 == 0 && item < opts.limit {
      total += item * 2
    } else if item > 100 {
      continue
    } else {
      total = total - 1
    }
    seen[to_string(item)] = true
  }
  let doubled = items.map({ x -> x * 2 }).filter({ x -> x > 3 })
  let report = {count: len(items), total: total, doubled: doubled, seen: seen}
  println("processed ${len(items)} items, total=${total}, status=${status_%[1]d_%[2]d(total)}")
  let r = try { report.total / 1 } catch (e) { 0 }
  println(r)
  return total + shifted_%[1]d_%[2]d(Point%[1]d_%[2]d { x: 1, y: 2 }).x
}

`, m, i)
	}
	return b.String()
}

// entrySource generates about n lines of well-typed entry-file code.
func entrySource(m, n int) string {
	var b strings.Builder
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, `struct Point%[1]d_%[2]d {
  x: int
  y: int
}

enum Shape%[1]d_%[2]d {
  Circle(radius: float)
  Rect(w: int, h: int)
  Dot
}

impl Point%[1]d_%[2]d {
  fn shifted(self, dx: int) -> Point%[1]d_%[2]d {
    return Point%[1]d_%[2]d { x: self.x + dx, y: self.y }
  }
}

fn area_%[1]d_%[2]d(s: Shape%[1]d_%[2]d, scale: int = 1) -> float {
  return match s {
    Shape%[1]d_%[2]d.Circle(r) -> { 3.0 * r * r * scale }
    Shape%[1]d_%[2]d.Rect(w, h) -> { w * h * scale }
    Shape%[1]d_%[2]d.Dot -> { 0.0 }
  }
}

fn parse_%[1]d_%[2]d(s: string) -> Result<int, string> {
  let n = to_int(s)
  if n == nil {
    return Err("bad: ${s}")
  }
  return Ok(n)
}

let p%[1]d_%[2]d = Point%[1]d_%[2]d { x: 1, y: 2 }
let r%[1]d_%[2]d = match parse_%[1]d_%[2]d("4") {
  Result.Ok(v) -> { v + p%[1]d_%[2]d.x }
  Result.Err(e) -> { len(e) }
}
println(area_%[1]d_%[2]d(Shape%[1]d_%[2]d.Rect(2, 3)) + r%[1]d_%[2]d + p%[1]d_%[2]d.shifted(3).x)

`, m, i)
	}
	return b.String()
}

func TestCheckProject(t *testing.T) {
	path := writeProject(t, t.TempDir(), 600, 3)
	s := NewSession(Options{})
	diags, err := s.CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		t.Errorf("unexpected diagnostic: %s", diag.Render(d, s.Sources[d.File]))
	}
}

// BenchmarkCheckProject measures `harn check` on a generated 5,000-line
// project of ten files: module loading, parsing, resolution, type
// checking and compilation, nothing run. The target is under 100 ms.
// cpu-ms/op is the process CPU time per check (GC included), which stays
// meaningful when the machine is busy and ns/op counts waiting.
func BenchmarkCheckProject(b *testing.B) {
	path := writeProject(b, b.TempDir(), 5000, 9)
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	defer func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}()
	for range b.N {
		s := NewSession(Options{})
		diags, err := s.CheckFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(diags) > 0 {
			b.Fatalf("unexpected diagnostic: %s", diags[0])
		}
	}
}

// TestCheckImportedTypes: the pub types of an imported module reach the
// importing file's checker.
func TestCheckImportedTypes(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	lib := "pub struct User {\n  name: string\n}\npub type Level = \"low\" | \"high\"\n"
	main := "import { User, Level } from \"lib/types\"\n" +
		"fn greet(u: User, lvl: Level) -> string {\n  return \"hi ${u.name} ${lvl}\"\n}\n" +
		"let u = User { name: 5 }\nprintln(greet(u, \"mid\"))\n"
	os.WriteFile(filepath.Join(dir, "lib", "types.harn"), []byte(lib), 0o644)
	path := filepath.Join(dir, "main.harn")
	os.WriteFile(path, []byte(main), 0o644)
	diags, err := NewSession(Options{}).CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.Msg)
	}
	want := []string{
		"field `name` in struct `User`: expected string, found int",
		"argument 2 `lvl`: expected Level, found \"mid\"",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Diagnostics never quote lines of an imported file that is not Harn
// source: `import "../secret/.env"` reports positions only (issue 17
// item 8).
func TestDiagnosticsDoNotQuoteNonHarnFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "secret"), 0o755)
	os.MkdirAll(filepath.Join(dir, "proj"), 0o755)
	os.WriteFile(filepath.Join(dir, "secret", ".env"), []byte("API_KEY=sk-live-abc\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "secret", "bad.env"), []byte("TOKEN=sk-live-def\nfn (\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "secret", "word.env"), []byte("API_KEY=supersecret\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "secret", "word2.env"), []byte("API_KEY=super secret\n"), 0o600)
	for _, imp := range []string{"../secret/.env", "../secret/bad.env", "../secret/word.env", "../secret/word2.env"} {
		path := filepath.Join(dir, "proj", "main.harn")
		os.WriteFile(path, []byte("import \""+imp+"\"\nprintln(1)\n"), 0o644)
		s := NewSession(Options{})
		diags, err := s.CheckFile(path)
		var text strings.Builder
		for _, d := range diags {
			text.WriteString(s.RenderDiagnostic(d))
		}
		if err != nil {
			text.WriteString(s.RenderError(err))
		}
		if text.Len() == 0 {
			t.Fatalf("%s: no diagnostic", imp)
		}
		// nor its tokens or names (docs/limits.md): a warning about an
		// undefined variable or a parse error's "got id(...)" would
		for _, leak := range []string{"sk-live", "live", "supersecret", "secret)", "API_KEY", "TOKEN"} {
			if strings.Contains(text.String(), leak) {
				t.Errorf("%s: diagnostics quote the file (%q):\n%s", imp, leak, text.String())
			}
		}
	}
}

package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// benchSource generates about n lines of typed Harn code.
func benchSource(n int) string {
	var b strings.Builder
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, `struct Point%[1]d {
  x: int
  y: int
  label?: string
}
enum Shape%[1]d {
  Circle(radius: float)
  Rect(w: int, h: int)
  Dot
}
fn area%[1]d(s: Shape%[1]d, scale: int = 1) -> float {
  return match s {
    Shape%[1]d.Circle(r) -> { 3.0 * r * r * scale }
    Shape%[1]d.Rect(w, h) -> { w * h * scale }
    Shape%[1]d.Dot -> { 0.0 }
  }
}
fn process%[1]d(items: list<int>, opts = {limit: 10}) -> int {
  let total = 0
  for item in items {
    if item %% 2 == 0 && item < opts.limit {
      total += item * 2
    } else {
      total = total - 1
    }
  }
  let p = Point%[1]d { x: total, y: len(items) }
  let doubled = items.map({ x -> x * 2 })
  println("total=${total} ${p.x + p.y} ${doubled}")
  return total
}
println(area%[1]d(Shape%[1]d.Rect(2, 3)) + process%[1]d([1, 2, 3]))
`, i)
	}
	return b.String()
}

// BenchmarkCheck measures the checker alone on 5,000 parsed and resolved
// lines (BenchmarkCheckProject in interp measures the whole of harn check).
func BenchmarkCheck(b *testing.B) {
	src := benchSource(5000)
	f, err := syntax.Parse("bench.harn", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	info := resolve.File(f, resolve.Options{Universe: testUniverse})
	if d := File(f, info, Options{}); len(d) > 0 {
		b.Fatalf("unexpected diagnostics: %v", d)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		File(f, info, Options{})
	}
}

// BenchmarkCheckDictLiteral checks one dict literal of 2,000 keys (a
// table or config written out in a program): its shape grows key by key.
func BenchmarkCheckDictLiteral(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("let table = {")
	for i := range 2000 {
		fmt.Fprintf(&sb, "k%d: %d, ", i, i)
	}
	sb.WriteString("}\nprintln(table)\n")
	f, err := syntax.Parse("table.harn", []byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	info := resolve.File(f, resolve.Options{Universe: testUniverse})
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		File(f, info, Options{})
	}
}

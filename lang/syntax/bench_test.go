package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// benchSource generates a realistic program of about n lines: functions,
// structs, enums, loops, dicts, closures, matches and interpolated strings.
func benchSource(n int) []byte {
	var b strings.Builder
	b.WriteString("import { clamp } from \"lib/mathx\"\n\n")
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, `/// Point%[1]d is a sample struct.
struct Point%[1]d {
  x: int
  y: int
  label?: string
}

enum Shape%[1]d { Circle(radius), Rect(w, h), Dot }

impl Point%[1]d {
  fn shifted(self, dx) {
    return Point%[1]d { x: self.x + dx, y: self.y }
  }
}

/// area%[1]d computes an area.
fn area%[1]d(s, scale: int = 1) -> int {
  return match s {
    Shape%[1]d.Circle(r) -> { 3 * r * r * scale }
    Shape%[1]d.Rect(w, h) -> { w * h * scale }
    _ -> { 0 }
  }
}

fn process%[1]d(items: list<int>, opts = {verbose: false, limit: 10}) {
  let total = 0
  let seen = {}
  for (i, item) in items.enumerate() {
    if item %% 2 == 0 && i < opts.limit {
      total += item * 2
    } else if item > 100 {
      continue
    } else {
      total = total - 1
    }
    seen[to_string(item)] = true
  }
  let doubled = items.map({ x -> x * 2 }).filter({ x -> x > 3 })
  let report = {count: len(items), total: total, doubled: doubled, name: "batch-%[1]d"}
  println("processed ${len(items)} items, total=${total}, first=${items[0] ?? "none"}")
  while total > 1000 {
    total = total / 2
  }
  let msg = try { risky(total) } catch (e) { "failed: ${e}" }
  return report
}

`, i)
	}
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	src := benchSource(5000)
	if _, err := Parse("bench.harn", src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Parse("bench.harn", src); err != nil {
			b.Fatal(err)
		}
	}
}

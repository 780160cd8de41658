package lsp

import (
	"fmt"
	"strings"
	"testing"
)

// bigFile is a 5,000-line script of ordinary functions.
func bigFile() string {
	var b strings.Builder
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < 5000; i++ {
		fmt.Fprintf(&b, "/// Step %d.\nfn step_%d(xs: list<int>, k: int) -> int {\n  let total = 0\n  for x in xs {\n    if x > k {\n      total += x * %d\n    } else {\n      total -= 1\n    }\n  }\n  return total\n}\n\n", i, i, i)
	}
	b.WriteString("println(step_0([1, 2, 3], 1))\n")
	return b.String()
}

// BenchmarkDiagnostics5000 is the work behind one change of a 5,000-line
// document: analysis (parse, resolve, check, compile), lint, diagnostics.
func BenchmarkDiagnostics5000(b *testing.B) {
	src := bigFile()
	for b.Loop() {
		a := Analyze("/tmp/big.harn", src)
		if a.file == nil {
			b.Fatal("does not parse")
		}
		a.diagnostics("/tmp/big.harn")
	}
}

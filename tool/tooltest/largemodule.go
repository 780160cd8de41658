package tooltest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Large-module dimensions: the speed target of the exports surface is
// `harn tool schema --surface exports` on a module with LargeFunctions
// public functions over LargeStructs struct types.
const (
	LargeFunctions = 1000
	LargeStructs   = 200
)

// WriteLargeModule writes the benchmark module to dir/large.harn and
// returns its path. Each struct has scalar, list, optional and
// literal-union fields and refers to another struct; each function
// takes a struct, a shape and a defaulted parameter, returns a struct
// and throws another, has a doc comment with a @param tag, so the
// catalog has LargeStructs components and every function reaches some.
// A main that must never run closes the file.
func WriteLargeModule(dir string) (string, error) {
	var sb strings.Builder
	sb.WriteString("/** Generated library: 1,000 functions over 200 structs. */\n\n")
	for i := 0; i < LargeStructs; i++ {
		fmt.Fprintf(&sb, "struct S%d { id: int, name: string, tags: list<string>, score: float?, mode: \"a\" | \"b\", parent?: S%d }\n", i, i/2)
	}
	sb.WriteString("\n")
	for i := 0; i < LargeFunctions; i++ {
		fmt.Fprintf(&sb, "/**\n * Function %d.\n * @param s the input record\n */\n", i)
		fmt.Fprintf(&sb, "pub fn f%d(a: int, s: S%d, opts: {limit?: int, order: \"asc\" | \"desc\"}, label: string = \"x\") -> S%d throws S%d {\n  return s\n}\n",
			i, i%LargeStructs, i%LargeStructs, (i*7)%LargeStructs)
	}
	sb.WriteString("\nfn main(harness: Harness) { throw \"main never runs\" }\n")
	path := filepath.Join(dir, "large.harn")
	return path, os.WriteFile(path, []byte(sb.String()), 0o644)
}

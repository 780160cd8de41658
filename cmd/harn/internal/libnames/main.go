// Command libnames prints what the standard library linked into it
// defines, one entry a line: "builtin NAME", "method RECV NAME" and
// "global NAME". TestLiteFullOnlyNames (cmd/harn) runs it built with and
// without -tags harnlite to learn what the lite harn's library lacks.
package main

import (
	"fmt"

	"github.com/harnlang/harn/stdlib"
)

func main() {
	for _, b := range stdlib.Builtins() {
		fmt.Println("builtin", b.Name())
	}
	for _, m := range stdlib.Methods() {
		fmt.Println("method", m.Recv, m.Name)
	}
	for _, g := range stdlib.NewUniverse(stdlib.Config{Argv: []string{}}).GlobalNames() {
		fmt.Println("global", g)
	}
}

package main

import (
	"fmt"
	"io"

	"github.com/harnlang/harn/conformance"
)

// cmdTest is `harn test conformance [DIR] [--filter PAT]`.
func cmdTest(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "conformance" {
		fmt.Fprint(stderr, "error: usage: harn test conformance [DIR] [--filter PAT]\n")
		return 2
	}
	dir, filter := "conformance", ""
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case a == "--filter":
			if i+1 >= len(rest) {
				fmt.Fprint(stderr, "error: --filter needs a pattern\n")
				return 2
			}
			filter = rest[i+1]
			i++
		case len(a) > 9 && a[:9] == "--filter=":
			filter = a[9:]
		default:
			dir = a
		}
	}
	_, failed, err := conformance.RunDir(dir, filter, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	if failed > 0 {
		return 1
	}
	return 0
}

//go:build !harnlite

package main

import (
	"fmt"
	"io"

	"github.com/harnlang/harn/builtindoc"
)

const docHelp = `Usage: harn doc NAME

Print the reference entry of a builtin function or method, or of a std/*
module function: its signature, one-line description, area and example
with what it prints. NAME is a function name such as split (which also
finds methods and std/* functions of that name), TYPE.METHOD such as
string.split, std/MODULE.NAME such as std/math.clamp, a module such as
std/calendar (every function of it), or a type or namespace such as
string or stream (every method or member of it, when no builtin has that
name). docs/builtins.md lists every entry;
the REPL's :help NAME prints the same text.
`

// cmdDoc is `harn doc NAME`.
func cmdDoc(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprint(stdout, docHelp)
			return 0
		}
		if len(a) > 1 && a[0] == '-' { // no builtin name starts with '-'
			fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(a, "--help"), docHelp)
			return 2
		}
	}
	if len(args) != 1 {
		fmt.Fprint(stderr, "error: harn doc needs one NAME\n\n"+docHelp)
		return 2
	}
	es := builtindoc.Lookup(args[0])
	if len(es) == 0 {
		fmt.Fprintf(stderr, "error: %s\n", builtindoc.NotFound(args[0]))
		return 1
	}
	for i, e := range es {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		io.WriteString(stdout, e.Text())
	}
	return 0
}

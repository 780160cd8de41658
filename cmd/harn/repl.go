//go:build !harnlite

package main

import (
	"fmt"
	"io"

	"github.com/harnlang/harn/repl"
)

// cmdRepl is `harn repl`: an interactive session on the process's
// terminal (or, when standard input is not one, a plain line reader).
func cmdRepl(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprint(stdout, commandHelp["repl"])
			return 0
		}
		fmt.Fprintf(stderr, "error: harn repl takes no arguments\n\n%s", commandHelp["repl"])
		return 2
	}
	return repl.Run(repl.Config{
		HistoryPath: repl.HistoryPath(),
		Banner:      fmt.Sprintf("harn %s — :help for help, :quit or Ctrl-D to leave", version),
	})
}

//go:build !harnlite

package main

import (
	"fmt"
	"io"

	"github.com/harnlang/harn/lsp"
)

const lspHelp = `Usage: harn lsp

Run the Harn language server on standard input and output (the Language
Server Protocol, as editors start it): diagnostics from the parser, the
checker and harn lint; completion, hover, go to definition, references,
symbols, signature help, rename, formatting, lint quick fixes and
source.fixAll.harn, semantic tokens and folding ranges. docs/lsp.md shows how
to set up VS Code, Neovim and Helix.
`

func init() {
	commandHelp["lsp"] = lspHelp
}

// cmdLsp is `harn lsp`.
func cmdLsp(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		switch a {
		case "-h", "--help":
			fmt.Fprint(stdout, lspHelp)
			return 0
		case "--stdio":
			// what VS Code's client passes; stdio is the only transport
		default:
			msg := "unexpected argument " + a
			if len(a) > 1 && a[0] == '-' {
				msg = unknownOption(a, "--stdio", "--help")
			}
			fmt.Fprintf(stderr, "error: %s\n\n%s", msg, lspHelp)
			return 2
		}
	}
	surviveBrokenPipes()
	if err := lsp.New(version).RunStdio(); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

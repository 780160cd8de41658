package main

import (
	"fmt"
	"io"
)

// mcpServe stands in for `harn mcp serve` until the orchestrator lands;
// the orchestrator's own file replaces this one.
func mcpServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "harn mcp serve: not available in this build")
	return 1
}

//go:build !harnlite

package main

import (
	"fmt"
	"io"
)

// `harn mcp`: the orchestrator's MCP server (`serve`) and the client side
// of HTTP endpoint discovery (`discover`).

const mcpHelp = `Usage: harn mcp serve [OPTIONS]        serve the orchestrator control plane over MCP
       harn mcp discover URL [--json]   show an HTTP MCP server's discovery documents

Run 'harn help mcp serve' or 'harn help mcp discover' for details.
`

func init() {
	commandHelp["mcp"] = mcpHelp
}

func cmdMcp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, mcpHelp)
		return 2
	}
	switch args[0] {
	case "serve":
		return mcpServe(args[1:], stdin, stdout, stderr)
	case "discover":
		return mcpDiscover(args[1:], stdout, stderr)
	case "--help", "-h", "help":
		fmt.Fprint(stdout, mcpHelp)
		return 0
	}
	fmt.Fprintf(stderr, "error: %s\n\n%s", unknownCommand("mcp subcommand", args[0], []string{"serve", "discover"}), mcpHelp)
	return 2
}

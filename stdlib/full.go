//go:build !harnlite

package stdlib

import (
	"github.com/harnlang/harn/stdlib/tools"
	"github.com/harnlang/harn/vm"

	// The areas whose dependencies (net/http and TLS, YAML, TOML, XML,
	// JSON Schema, the tool registry, WebSocket) would cost every start of the lite
	// harn more than its whole run path; it leaves them out and runs a
	// program that names one of their builtins in harn-full
	// (docs/architecture.md, "Start-up").
	_ "github.com/harnlang/harn/stdlib/agents"
	_ "github.com/harnlang/harn/stdlib/artifacts"
	_ "github.com/harnlang/harn/stdlib/checkpoints"
	_ "github.com/harnlang/harn/stdlib/connectors"
	_ "github.com/harnlang/harn/stdlib/evals"
	_ "github.com/harnlang/harn/stdlib/flow"
	_ "github.com/harnlang/harn/stdlib/formats"
	_ "github.com/harnlang/harn/stdlib/hitl"
	_ "github.com/harnlang/harn/stdlib/host"
	_ "github.com/harnlang/harn/stdlib/httpserver"
	_ "github.com/harnlang/harn/stdlib/llm"
	_ "github.com/harnlang/harn/stdlib/mcpclient"
	_ "github.com/harnlang/harn/stdlib/net"
	_ "github.com/harnlang/harn/stdlib/pg"
	_ "github.com/harnlang/harn/stdlib/policy"
	_ "github.com/harnlang/harn/stdlib/project"
	_ "github.com/harnlang/harn/stdlib/schema"
	_ "github.com/harnlang/harn/stdlib/secrets"
	_ "github.com/harnlang/harn/stdlib/skills"
	_ "github.com/harnlang/harn/stdlib/store"
	_ "github.com/harnlang/harn/stdlib/streams"
	_ "github.com/harnlang/harn/stdlib/templates"
	_ "github.com/harnlang/harn/stdlib/transcripts"
	_ "github.com/harnlang/harn/stdlib/triggers"
	_ "github.com/harnlang/harn/stdlib/trust"
	_ "github.com/harnlang/harn/stdlib/workflow"
)

// MCPHandler is the served MCP request a handler runs for (stdlib/tools).
type MCPHandler = tools.MCPHandler

// SetMCPHandler makes h the active MCP request of v's handlers (stdlib/tools).
func SetMCPHandler(v *vm.VM, h MCPHandler) (restore func()) { return tools.SetMCPHandler(v, h) }

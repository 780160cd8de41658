package mcp

import (
	"errors"
	"fmt"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/vm"
)

// handler is the stdlib.MCPHandler of one handler call: the in-handler
// builtins (progress, logging, resource updates, client input) reach
// the served request's protocol.Call through it. In the 2026-07-28
// profile input works by multi-round-trip results (docs/spec/mcp-projection.md
// §8); in the released profile, a client that advertised the
// capability gets a real server-to-client request, waited for with the
// VM released (docs/mcp.md).
type handler struct{ x *protocol.Call }

// errAbandon unwinds a handler without being catchable by its script;
// the protocol layer then answers input_required or fails the task.
var errAbandon = &vm.Error{Kind: vm.KindCancelled, Msg: "MCP handler abandoned for client input"}

// ReportProgress implements stdlib.MCPHandler (docs/spec/mcp-projection.md §13).
func (h handler) ReportProgress(progress float64, total *float64, message *string, token any) bool {
	return h.x.Progress(progress, total, message, token)
}

// Log implements stdlib.MCPHandler.
func (h handler) Log(level, logger string, data any) bool { return h.x.Log(level, logger, data) }

// ResourceUpdated implements stdlib.MCPHandler.
func (h handler) ResourceUpdated(uri string) bool { return h.x.ResourceUpdated(uri) }

// Input implements stdlib.MCPHandler.
func (h handler) Input(th *vm.Thread, builtin, method string, params *jsonv.Object) (any, error) {
	ans, err := h.x.Input(method, params, func(wake <-chan struct{}) (bool, error) { return th.Wait(wake, -1) })
	var ce *protocol.ClientError
	switch {
	case err == nil:
		return ans, nil
	case errors.Is(err, protocol.ErrInputUnsupported):
		return nil, &vm.Error{Kind: vm.KindRuntime, Msg: fmt.Sprintf("%s: the MCP client did not advertise support for %s", builtin, method)}
	case errors.Is(err, protocol.ErrInputRequired):
		return nil, errAbandon
	case errors.Is(err, protocol.ErrConnectionClosed):
		return nil, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": the MCP connection is closed"}
	case errors.Is(err, protocol.ErrNoAnswer):
		return nil, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": the MCP connection closed before the client answered " + method}
	case errors.As(err, &ce):
		return nil, &vm.Error{Kind: vm.KindRuntime, Msg: fmt.Sprintf("%s: the client answered %s with an error: %s", builtin, method, ce.Message)}
	}
	return nil, err
}

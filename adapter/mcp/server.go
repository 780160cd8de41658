package mcp

import (
	"context"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// Version20260728 is the per-request-metadata protocol version.
const Version20260728 = protocol.Version20260728

// Options configures a Server.
type Options struct {
	// Watch advertises listChanged and enables Reload (docs/spec/mcp-projection.md §11).
	Watch bool
	// Card is the Server Card (--card), a JSON value, or nil.
	Card any
	// PageSize is the list page size; 0 reads HARN_MCP_LIST_PAGE_SIZE
	// (default 100).
	PageSize int
	// Stderr receives the server's diagnostics (default os.Stderr).
	Stderr io.Writer
}

// Server serves one surface (replaced atomically by Swap) to any number
// of connections, through the protocol layer (package mcp/protocol).
type Server struct {
	opts    Options
	surface atomic.Pointer[Surface]
	proto   *protocol.Server
	// callMu serializes handler calls across connections: a surface's
	// handlers share one VM and one active-request slot.
	callMu sync.Mutex
}

// NewServer returns a server for sf.
func NewServer(sf *Surface, opts Options) *Server {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	s := &Server{opts: opts}
	s.surface.Store(sf)
	s.proto = protocol.NewServer(provider{s}, protocol.Options{PageSize: opts.PageSize})
	return s
}

// Surface returns the surface now served.
func (s *Server) Surface() *Surface { return s.surface.Load() }

// Swap replaces the served surface between two handler calls of every
// connection, closes the old runtime and sends the list-changed
// notifications to the connections ready for them.
func (s *Server) Swap(sf *Surface) {
	var old *Surface
	s.proto.Quiesce(func() { old = s.surface.Swap(sf) })
	if old != nil && old.Runtime != nil && old != sf {
		old.Runtime.Close()
	}
	s.proto.NotifyListChanged("tools", "resources", "prompts")
}

// Serve speaks newline-delimited JSON-RPC on r and w until r ends, then
// finishes the calls in progress (however long they take; Drain bounds
// them).
func (s *Server) Serve(r io.Reader, w io.Writer) error { return s.proto.Serve(r, w) }

// Drain stops the server taking calls and waits, until ctx ends, for the
// calls in progress to be answered; the calls still running then are
// interrupted and answered with a JSON-RPC error saying the server is
// shutting down (protocol.Server.Drain).
func (s *Server) Drain(ctx context.Context) error { return s.proto.Drain(ctx) }

// exclusive runs f on the surface's VM, one handler at a time. The start
// hook f passes to the runtime makes the handler's thread interruptible:
// by its request's cancellation, and by Drain cutting the call short. A
// call Drain cut short while it waited for the VM does not run (false).
func (s *Server) exclusive(x *protocol.Call, f func(start func(*vm.Thread))) bool {
	s.callMu.Lock()
	defer s.callMu.Unlock()
	stopped := s.proto.Stopped()
	if stopped.Err() != nil {
		return false
	}
	var release func() bool
	f(func(th *vm.Thread) {
		x.OnCancel(th.Cancel)
		release = context.AfterFunc(stopped, th.Cancel)
	})
	if release != nil {
		release()
	}
	return true
}

// shuttingDown is the outcome of a call exclusive did not run: Drain
// has answered an inline call already, and a task records it as its
// result.
func shuttingDown() *protocol.Error {
	return protocol.Errorf(protocol.CodeInternalError, protocol.ErrShuttingDown.Error())
}

// provider projects the served surface for the protocol layer.
type provider struct{ s *Server }

func profile(r *protocol.Request) tool.MCPProfile {
	if r.Modern() {
		return tool.MCP20260728
	}
	return tool.MCPReleased
}

// ServerInfo implements protocol.Provider.
func (p provider) ServerInfo() *jsonv.Object {
	sf := p.s.Surface()
	info := jsonv.NewObject(3)
	info.Set("name", sf.Name)
	info.Set("version", sf.Version)
	if p.s.opts.Card != nil {
		info.Set("card", p.s.opts.Card)
	}
	return info
}

// Instructions implements protocol.Provider.
func (p provider) Instructions() string { return p.s.Surface().Instructions }

// Capabilities implements protocol.Provider: the capabilities object of
// docs/spec/mcp-projection.md §3.3, plus the logging capability and resource
// subscriptions (docs/mcp.md).
func (p provider) Capabilities() *jsonv.Object {
	s, sf := p.s, p.s.Surface()
	caps := jsonv.NewObject(6)
	feature := func(extra ...string) *jsonv.Object {
		o := jsonv.NewObject(2)
		for _, k := range extra {
			o.Set(k, true)
		}
		if s.opts.Watch {
			o.Set("listChanged", true)
		}
		return o
	}
	if len(sf.Catalog.Tools(tool.AudienceMCP)) > 0 || s.opts.Watch {
		caps.Set("tools", feature())
	}
	if sf.Kind == "exports" {
		// The exports surface advertises tools, resources, prompts and
		// completions when it has project context, and the tasks
		// extension only when some export is a @job
		// (docs/spec/mcp-projection.md §3.3).
		if len(sf.Resources) > 0 {
			caps.Set("resources", feature("subscribe"))
			caps.Set("prompts", feature())
			caps.Set("completions", jsonv.NewObject(0))
		}
		caps.Set("logging", jsonv.NewObject(0))
		for _, pt := range sf.Catalog.Tools(tool.AudienceMCP) {
			if pt.Entry().Execution != nil {
				ext := jsonv.NewObject(1)
				ext.Set(protocol.TasksExtension, jsonv.NewObject(0))
				caps.Set("extensions", ext)
				break
			}
		}
		return caps
	}
	if len(sf.Resources) > 0 || len(sf.Templates) > 0 || s.opts.Card != nil || s.opts.Watch {
		caps.Set("resources", feature("subscribe"))
	}
	if len(sf.Prompts) > 0 || s.opts.Watch {
		caps.Set("prompts", feature())
	}
	caps.Set("completions", jsonv.NewObject(0))
	caps.Set("logging", jsonv.NewObject(0))
	ext := jsonv.NewObject(2)
	ext.Set(protocol.TasksExtension, jsonv.NewObject(0))
	for _, r := range sf.Resources {
		if len(r.URI) > 5 && r.URI[:5] == "ui://" && r.MimeType == "text/html;profile=mcp-app" {
			ui := jsonv.NewObject(1)
			ui.Set("mimeTypes", []any{"text/html;profile=mcp-app"})
			ext.Set("io.modelcontextprotocol/ui", ui)
			break
		}
	}
	caps.Set("extensions", ext)
	return caps
}

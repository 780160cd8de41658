package mcp

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/mcp/promptfile"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/exports"
	"github.com/harnlang/harn/tool/load"
	"github.com/harnlang/harn/vm"
)

// Surface is what a server serves: a prepared catalog, the runtime that
// invokes its entries, and the resources, templates, prompts and server
// identity published with it. A surface is immutable; --watch replaces
// the whole value.
type Surface struct {
	// Kind names the surface ("script", "exports").
	Kind    string
	Catalog *tool.Prepared
	Runtime Runtime

	Resources []*tool.Resource
	Templates []*tool.ResourceTemplate
	Prompts   []*tool.Prompt
	// FilePrompts are the .harn.prompt files of the exports surface's
	// project context (project.go), served after Prompts.
	FilePrompts []*promptfile.Prompt

	// Name, Version and Instructions are the server identity
	// (docs/spec/mcp-projection.md §1).
	Name, Version, Instructions string

	releasedOnce sync.Once
	releasedDocs []*jsonv.Object
}

// Runtime runs a surface's Harn code. Both methods are called from the
// server's executor goroutine, one call at a time; h is the served
// request the in-handler builtins talk to.
type Runtime interface {
	// Invoke validates args, calls the tool's handler and classifies the
	// outcome (tool.PreparedTool.Invoke). start is called with the
	// thread before the handler runs, so the server can cancel it.
	Invoke(h stdlib.MCPHandler, t *tool.PreparedTool, args any, start func(*vm.Thread)) *tool.Outcome
	// Call calls a resource-template or prompt handler.
	Call(h stdlib.MCPHandler, fn vm.Value, args []vm.Value, start func(*vm.Thread)) (vm.Value, error)
	// Close releases the runtime (an old VM after a reload).
	Close()
}

// Program is a loaded program whose VM runs a surface's handlers: a
// *load.Script or an *exports.Library.
type Program interface {
	VM() *vm.VM
	Thread() *vm.Thread
}

// VMRuntime runs handlers on new threads of a loaded program's VM.
//
// The VM detects deadlocks (tool/load). The server calls handlers one at
// a time, so while a call runs no other call can end its waits: a wait
// that only the VM's own threads could end, and none will, is a
// deadlock, and the call fails with the deadlock error. Between calls
// the thread of the last call stands for the calls still to come (as the
// last entry does in the REPL): tasks an earlier call left waiting for a
// later one are not reported while the server is idle, and the running
// call's own wait fails first (vm.VM.SetForeground).
type VMRuntime struct {
	Program Program
	// last is the thread of the last call (the stand-in), forgotten when
	// the next call takes the VM lock; calls are serialized by the server.
	last *vm.Thread
}

// Invoke implements Runtime.
func (r *VMRuntime) Invoke(h stdlib.MCPHandler, t *tool.PreparedTool, args any, start func(*vm.Thread)) *tool.Outcome {
	var out *tool.Outcome
	r.call(h, start, func(th *vm.Thread) { out = t.Invoke(th, args) })
	return out
}

// Call implements Runtime.
func (r *VMRuntime) Call(h stdlib.MCPHandler, fn vm.Value, args []vm.Value, start func(*vm.Thread)) (v vm.Value, err error) {
	r.call(h, start, func(th *vm.Thread) { v, err = th.CallPlain(fn, args) })
	return v, err
}

// call runs f on a new thread holding the VM lock, which it takes before
// the previous call's thread stops standing for the server, so the
// deadlock detector never sees the VM idle in between.
func (r *VMRuntime) call(h stdlib.MCPHandler, start func(*vm.Thread), f func(th *vm.Thread)) {
	th := r.Program.Thread()
	if start != nil {
		start(th)
	}
	machine := th.VM()
	defer stdlib.SetMCPHandler(machine, h)()
	th.Lock()
	defer th.Unlock()
	if r.last != nil {
		machine.Forget(r.last)
	}
	r.last = th
	machine.SetForeground(th)
	defer machine.SetForeground(nil)
	f(th)
}

// Close implements Runtime: the VM is left to the garbage collector
// once nothing references it; interrupting it stops stray tasks, and
// closing it what the script started (MCP server processes).
func (r *VMRuntime) Close() {
	r.Program.VM().Interrupt()
	r.Program.VM().Close()
}

// LoadScript builds the script surface of path: the script runs once
// (its output goes to stderr), its published registry is prepared, and
// the MCP projection is checked. harnVersion is the fallback server
// version. Failures are *load.Error values.
func LoadScript(path string, stderr io.Writer, harnVersion string) (*Surface, error) {
	s, err := load.Load(path, load.Options{Stderr: stderr, Stdin: strings.NewReader("")})
	if err != nil {
		return nil, err
	}
	pub := s.Publication
	sf, err := prepare(exports.SurfaceScript, s, s.Registry)
	if err != nil {
		return nil, err
	}
	sf.Resources, sf.Templates, sf.Prompts = pub.Resources, pub.Templates, pub.Prompts
	sf.Name, sf.Version, sf.Instructions = identity(sf.Catalog.Info(), pub.Server, path, harnVersion)
	return sf, nil
}

// LoadExports builds the exports surface of path (docs/spec/registry.md §8.4): the
// module's public functions, called in a VM that ran only the module's
// initialisation, and the project context discovered next to it
// (project.go). The server identity is the file stem, the Harn version
// and the module doc comment. Failures are *load.Error values.
func LoadExports(path string, stderr io.Writer, harnVersion string) (*Surface, error) {
	lib, err := exports.Load(path, exports.Options{Stderr: stderr, Stdin: strings.NewReader("")})
	if err != nil {
		return nil, err
	}
	sf, err := prepare(exports.SurfaceExports, lib, lib.Registry)
	if err != nil {
		return nil, err
	}
	if sf.Resources, sf.FilePrompts, err = projectContext(path, stderr); err != nil {
		sf.Runtime.Close()
		return nil, &load.Error{Msg: "project context: " + err.Error(), Status: 1}
	}
	sf.Name, sf.Version, sf.Instructions = identity(sf.Catalog.Info(), nil, path, harnVersion)
	return sf, nil
}

// prepare prepares a loaded program's registry into a surface of kind
// that runs its handlers on the program's VM.
func prepare(kind string, prog Program, reg *tool.Registry) (*Surface, error) {
	prep, err := tool.Prepare(reg)
	if err == nil {
		err = prep.RequireHandlers(tool.AudienceMCP)
	}
	if err != nil {
		prog.VM().Interrupt()
		// located at the script's call that registered the offending
		// tool, as harn tool run reports it (load.Located)
		var sess *interp.Session
		if s, ok := prog.(*load.Script); ok {
			sess = s.Session
		}
		return nil, load.Located(sess, err, "invalid tool registry: "+tool.Message(err, ""))
	}
	return &Surface{Kind: kind, Catalog: prep, Runtime: &VMRuntime{Program: prog}}, nil
}

// identity is the server identity of docs/spec/mcp-projection.md §1: metadata
// first, then registry info, then the file stem and the Harn version.
func identity(info *tool.Info, meta *tool.ServerMetadata, path, harnVersion string) (name, version, instructions string) {
	if info != nil {
		name, version, instructions = info.Name, info.Version, info.Description
	}
	if meta != nil {
		if meta.Name != "" {
			name = meta.Name
		}
		if meta.Version != "" {
			version = meta.Version
		}
		if meta.Instructions != "" {
			instructions = meta.Instructions
		}
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if version == "" {
		version = harnVersion
	}
	return
}

// StartupLine is the line `harn serve mcp` writes on stderr when it
// starts serving.
func (s *Surface) StartupLine(watch bool) string {
	n := len(s.Catalog.Tools(tool.AudienceMCP))
	noun := "tools"
	if n == 1 {
		noun = "tool"
	}
	line := fmt.Sprintf("[harn] serve mcp: serving %d %s as '%s'", n, noun, s.Name)
	if watch {
		line += " with source reload"
	}
	return line
}

package main

import (
	"io"
	"strings"

	"github.com/harnlang/harn/adapter/mcp"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/exports"
	"github.com/harnlang/harn/tool/load"
	"github.com/harnlang/harn/vm"
)

// The exports surface (tool/exports) on `harn tool schema --surface
// exports|auto` and `harn serve mcp --surface exports|auto`: a module's
// public functions, read statically and called in a VM that ran only the
// module's initialisation.

func init() {
	catalogSurfaces[exports.SurfaceExports] = exportsCatalog
	catalogSurfaces[exports.SurfaceAuto] = func(path string, stdin io.Reader, stderr io.Writer) (*tool.Catalog, error) {
		return catalogSurfaces[exports.Resolve(exports.SurfaceAuto, path)](path, stdin, stderr)
	}
	serveSurfaces[exports.SurfaceExports] = loadExportsSurface
	autoSurface = func(path string) string { return exports.Resolve(exports.SurfaceAuto, path) }
}

// exportsCatalog is the static catalog of the module's public functions.
func exportsCatalog(path string, stdin io.Reader, stderr io.Writer) (*tool.Catalog, error) {
	return exports.Catalog(path, exports.Options{Stderr: stderr, Stdin: stdin})
}

// loadExportsSurface loads the module for dispatch and prepares its
// catalog for MCP. The server identity is the file stem, the Harn
// version and the module doc comment (mcp-projection.md §1).
func loadExportsSurface(path string, stderr io.Writer) (*mcp.Surface, error) {
	lib, err := exports.Load(path, exports.Options{Stderr: stderr, Stdin: strings.NewReader("")})
	if err != nil {
		if le, ok := err.(*load.Error); ok {
			return nil, &mcp.LoadError{Msg: le.Msg, Status: le.Status, Rendered: le.Render()}
		}
		return nil, &mcp.LoadError{Msg: err.Error(), Status: 1}
	}
	prep, err := tool.Prepare(lib.Registry)
	if err != nil {
		lib.VM().Interrupt()
		return nil, &mcp.LoadError{Msg: "invalid tool registry: " + tool.Message(err, ""), Status: 1}
	}
	sf := &mcp.Surface{Kind: exports.SurfaceExports, Catalog: prep, Runtime: &exportsRuntime{lib: lib}, Version: version}
	if info := prep.Info(); info != nil {
		sf.Name, sf.Instructions = info.Name, info.Description
	}
	return sf, nil
}

// exportsRuntime calls exported functions on the library's VM.
type exportsRuntime struct{ lib *exports.Library }

func (r *exportsRuntime) Invoke(h stdlib.MCPHandler, t *tool.PreparedTool, args any, start func(*vm.Thread)) *tool.Outcome {
	th := r.lib.Thread()
	if start != nil {
		start(th)
	}
	defer stdlib.SetMCPHandler(th.VM(), h)()
	return t.Invoke(th, args)
}

func (r *exportsRuntime) Call(h stdlib.MCPHandler, fn vm.Value, args []vm.Value, start func(*vm.Thread)) (vm.Value, error) {
	th := r.lib.Thread()
	if start != nil {
		start(th)
	}
	defer stdlib.SetMCPHandler(th.VM(), h)()
	return th.CallPlain(fn, args)
}

func (r *exportsRuntime) Close() { r.lib.VM().Interrupt() }

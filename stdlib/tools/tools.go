package tools

import (
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// The tool registry builtins (docs/spec/registry.md §1-§5) and the publishing
// surface of harness.tools (docs/spec/registry.md §7, docs/spec/mcp-projection.md §15). The
// contract itself — normalization, validation, the catalog — is package
// tool; these are thin bindings. std/tools (std/tools.harn) re-exports
// tool_registry_from and tool_project, which are registered here under
// internal names so the module's wrappers do not shadow them.

func toolErr(err error) error {
	return &vm.Error{Kind: vm.KindRuntime, Msg: err.Error()}
}

func toolCache(th *vm.Thread) *tool.Cache { return tool.CacheFor(th.VM()) }

// callSite is the script's call running now as a tool.Site.
func callSite(th *vm.Thread) (tool.Site, bool) {
	f, ok := th.CallSite()
	return tool.Site{File: f.File, Line: f.Line, Col: f.Col}, ok
}

// noteDefSite records the script's call running now as where the tool
// value def was made (tool_bind, tool_synthesize), unless a site is
// already known for it.
func noteDefSite(th *vm.Thread, def *vm.Dict) {
	if site, ok := callSite(th); ok {
		toolCache(th).NoteSite(def, site)
	}
}

// noteSites records the script's call running now as where the tools of
// reg (and its registry-level CLI metadata) were registered, for those
// first seen here, so that an adapter preparing the registry later
// locates a failure at it (docs/tool-run.md).
func noteSites(th *vm.Thread, reg *vm.Dict) {
	site, ok := callSite(th)
	if !ok {
		return
	}
	c := toolCache(th)
	c.NoteSites(reg, site)
	if cv, ok := reg.Get("cli"); ok {
		if d, ok := cv.AsDict(); ok {
			c.NoteSite(d, site)
		}
	}
}

func publication(th *vm.Thread) *tool.Publication { return tool.PublicationFor(th.VM()) }

// publishers are the publishing functions, shared by the free builtins
// and the harness.tools methods.
var publishers = []struct {
	name, sig, doc string
	fn             func(th *vm.Thread, v vm.Value) error
}{
	{"mcp_tools", "mcp_tools(registry)", "publish a ToolRegistry for script-backed adapters", func(th *vm.Thread, v vm.Value) error {
		return publication(th).PublishRegistry(v, toolCache(th))
	}},
	{"mcp_serve", "mcp_serve(registry)", "legacy alias of mcp_tools", func(th *vm.Thread, v vm.Value) error {
		return publication(th).PublishRegistry(v, toolCache(th))
	}},
	{"mcp_resource", "mcp_resource({uri, name, text, title?, description?, mime_type?})", "publish a static MCP resource", func(th *vm.Thread, v vm.Value) error {
		return publication(th).PublishResource(v)
	}},
	{"mcp_resource_template", "mcp_resource_template({uri_template, name, handler, ...})", "publish an MCP resource template", func(th *vm.Thread, v vm.Value) error {
		return publication(th).PublishTemplate(v)
	}},
	{"mcp_prompt", "mcp_prompt({name, handler, title?, description?, arguments?})", "publish an MCP prompt", func(th *vm.Thread, v vm.Value) error {
		return publication(th).PublishPrompt(v)
	}},
	{"mcp_server_metadata", "mcp_server_metadata({name?, version?, instructions?})", "override the published MCP server identity", func(th *vm.Thread, v vm.Value) error {
		return publication(th).PublishServerMetadata(v)
	}},
}

// ToolsCapabilityMethods are harness.tools's methods. The MCP adapter
// adds the in-handler methods (mcp_elicit, mcp_report_progress, …) to
// this list.
func toolsCapabilityMethods() []harness.CapabilityMethod {
	var out []harness.CapabilityMethod
	for _, p := range publishers {
		p := p
		out = append(out, harness.CapabilityMethod{Name: p.name, Sig: "harness.tools." + p.sig + " -> nil", Doc: p.doc,
			Fn: func(th *vm.Thread, _ vm.Value, args vm.Args) (vm.Value, error) {
				if err := p.fn(th, args.At(0)); err != nil {
					return vm.Value{}, toolErr(err)
				}
				return vm.Nil, nil
			}})
	}
	return append(out, mcpCapabilityMethods()...)
}

func init() {
	lib.Def("tool_registry", "tool_registry(info?, components?, cli?)", "an empty tool registry", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r, err := tool.NewRegistryValue(a.At(0), a.At(1), a.At(2))
		if err != nil {
			return vm.Value{}, toolErr(err)
		}
		noteSites(th, r)
		return vm.Of(r), nil
	})
	lib.Def("tool_define", "tool_define(registry, name, description, config) / tool_define(registry, definition)", "the registry with one tool added or replaced", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r, err := tool.Define(defineArgs(a), toolCache(th))
		if err != nil {
			return vm.Value{}, toolErr(err)
		}
		noteSites(th, r)
		return vm.Of(r), nil
	})
	lib.Def("__tool_registry_from", "__tool_registry_from(definitions, options?)", "std/tools tool_registry_from", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if _, err := lib.Options("tool_registry_from", a.At(1)); err != nil {
			return vm.Value{}, err
		}
		r, err := tool.RegistryFrom(a.At(0), a.At(1), toolCache(th))
		if err != nil {
			return vm.Value{}, toolErr(err)
		}
		noteSites(th, r)
		return vm.Of(r), nil
	})
	lib.Def("__tool_project", "__tool_project(registry, audience)", "std/tools tool_project", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r, err := tool.ProjectValue(a.At(0), a.At(1), toolCache(th))
		if err != nil {
			return vm.Value{}, toolErr(err)
		}
		return r, nil
	})
	for _, p := range publishers {
		p := p
		lib.Def(p.name, p.sig, p.doc, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if err := p.fn(th, a.At(0)); err != nil {
				return vm.Value{}, toolErr(err)
			}
			return vm.Nil, nil
		})
	}
	// harness.go declares every capability name at init; this file sorts
	// after it, so this registration supplies the tools methods.
	harness.RegisterCapability("tools", "tools", toolsCapabilityMethods())
}

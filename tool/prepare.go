package tool

import (
	"fmt"
	"slices"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool/internal/schema"
)

// Prepared is a registry validated once for adapters (the prepared
// catalog of the architecture seed): input, output and application-error
// validators compiled, names indexed, the CLI tree and the MCP discovery
// documents built. It is immutable; every adapter (harn tool run,
// completions, harn serve mcp, export-backed dispatch) reads it and none
// rebuilds any part of it per request.
type Prepared struct {
	registry *Registry
	catalog  *Catalog
	tools    []*PreparedTool
	byName   map[string]*PreparedTool
	cli      *CLITree
	cliErr   error
	mcp      [2][]*jsonv.Object
}

// PreparedTool is one tool of a prepared catalog.
type PreparedTool struct {
	Tool *Tool
	// Args is the tool's CLI argument model (prepared for every tool).
	Args []*CLIArg
	// MCPInput, MCPOutput and MCPError are the standalone (bundled)
	// schemas; MCPOutput/MCPError are nil when undeclared.
	MCPInput, MCPOutput, MCPError any
	// OutputIsObject reports whether the bundled output schema guarantees
	// an object (decides the released-profile wrapper).
	OutputIsObject bool

	input, output, appErr *schema.Schema
	jsonFlag              bool
	mcpDocs               [2]*jsonv.Object
}

// Name is the tool name.
func (t *PreparedTool) Name() string { return t.Tool.Entry.Name }

// Entry is the tool's catalog entry.
func (t *PreparedTool) Entry() *Entry { return t.Tool.Entry }

// Allows reports whether the tool is exposed to an audience.
func (t *PreparedTool) Allows(a Audience) bool { return t.Tool.Entry.Governance.Allows(a) }

// MCPDocument is the tool's tools/list entry for a profile.
func (t *PreparedTool) MCPDocument(p MCPProfile) *jsonv.Object { return t.mcpDocs[p] }

// WrapsOutput reports whether, under profile p, structuredContent is the
// handler value wrapped as {"result": value} (docs/spec/mcp-projection.md §5).
func (t *PreparedTool) WrapsOutput(p MCPProfile) bool {
	return p == MCPReleased && t.MCPOutput != nil && !t.OutputIsObject
}

// Prepare validates and prepares a normalized registry: the argument
// rules P1-P20 over every tool, validator compilation (P27), the CLI
// tree rules P21-P25 and the MCP bundling rules. Any failure stops every
// adapter alike (docs/spec/registry.md §3); the error is the first of
// PrepareAll's. Problems only the command-line parser cares about (P26)
// are kept for CLITree.
func Prepare(reg *Registry) (*Prepared, error) {
	p, errs := prepare(reg)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return p, nil
}

// PrepareAll is Prepare reporting every failure it finds in one pass
// instead of the first, in a stable order: each tool's first failure in
// registry order (a tool's later checks build on its earlier ones, so
// they would only repeat it; a failure several tools share, such as an
// unsafe component they reference, is reported once), then the first
// failure of the CLI tree over the tools that prepared. The first error
// is Prepare's. It is what tool_surface_validate reports (docs/tools.md).
func PrepareAll(reg *Registry) (*Prepared, []error) { return prepare(reg) }

func prepare(reg *Registry) (*Prepared, []error) {
	p := &Prepared{
		registry: reg,
		catalog:  reg.Catalog,
		tools:    make([]*PreparedTool, 0, len(reg.Tools)),
		byName:   make(map[string]*PreparedTool, len(reg.Tools)),
	}
	var comps *SchemaMap
	if reg.Catalog.Components != nil {
		comps = reg.Catalog.Components.Schemas
	}
	c := schema.NewCompiler(comps.Object())
	b := newBundler(comps)
	var errs []error
	for _, t := range reg.Tools {
		pt, err := prepareTool(t, comps, c, b)
		if err != nil {
			err = reg.located(t, err)
			if !slices.ContainsFunc(errs, func(e error) bool { return e.Error() == err.Error() }) {
				errs = append(errs, err)
			}
			continue
		}
		if pt.Allows(AudienceMCP) {
			p.mcp[MCPReleased] = append(p.mcp[MCPReleased], pt.mcpDocs[MCPReleased])
			p.mcp[MCP20260728] = append(p.mcp[MCP20260728], pt.mcpDocs[MCP20260728])
		}
		p.tools = append(p.tools, pt)
		p.byName[pt.Name()] = pt
	}
	tree, err := buildCLITree(p)
	if err != nil {
		return nil, append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	p.cli = tree
	p.cliErr = parserError(p, tree.Root)
	return p, nil
}

// prepareTool builds one tool's argument model, validators and MCP
// documents; the error is its first failure.
func prepareTool(t *Tool, comps *SchemaMap, c *schema.Compiler, b *bundler) (*PreparedTool, error) {
	e := t.Entry
	pt := &PreparedTool{Tool: t}
	args, jsonFlag, err := prepareArgs(e, comps)
	if err != nil {
		return nil, err
	}
	pt.Args, pt.jsonFlag = args, jsonFlag
	q := fmt.Sprintf("tool %q", e.Name)
	if pt.input, err = c.Compile(e.InputSchema.Doc()); err != nil {
		return nil, fmt.Errorf("%s input schema could not be compiled: %v", q, err)
	}
	if !e.OutputSchema.IsZero() {
		if pt.output, err = c.Compile(e.OutputSchema.Doc()); err != nil {
			return nil, fmt.Errorf("%s output schema could not be compiled: %v", q, err)
		}
	}
	if !e.ErrorSchema.IsZero() {
		if pt.appErr, err = c.Compile(e.ErrorSchema.Doc()); err != nil {
			return nil, fmt.Errorf("%s application error schema could not be compiled: %v", q, err)
		}
	}
	if e.Governance.Allows(AudienceMCP) {
		if err := pt.bundle(b); err != nil {
			return nil, err
		}
		pt.mcpDocs = buildMCPDocs(pt)
	}
	return pt, nil
}

func (t *PreparedTool) bundle(b *bundler) error {
	e := t.Tool.Entry
	label := func(f string) string { return fmt.Sprintf("tool %q %s", e.Name, f) }
	var err error
	if t.MCPInput, err = b.bundle(e.InputSchema.Doc(), label("inputSchema")); err != nil {
		return err
	}
	if !e.OutputSchema.IsZero() {
		if t.MCPOutput, err = b.bundle(e.OutputSchema.Doc(), label("outputSchema")); err != nil {
			return err
		}
		t.OutputIsObject = guaranteesObject(t.MCPOutput, t.MCPOutput, map[*jsonv.Object]bool{})
	}
	if !e.ErrorSchema.IsZero() {
		if t.MCPError, err = b.bundle(e.ErrorSchema.Doc(), label("errorSchema")); err != nil {
			return err
		}
	}
	return nil
}

// RequireHandlers is the check of an adapter that runs tools in this VM
// (harn tool run and completions for AudienceCLI, harn serve mcp for
// AudienceMCP): every tool exposed to its audience must have a local
// handler, so that the adapter refuses to load rather than failing each
// call. A tool outside the audience never blocks it: an agent-only
// provider_native tool does not stop the CLI (docs/spec/registry.md §5). The
// catalog and the agent loop do not call it: a catalog runs nothing, and
// the agent loop hands handler-less calls to the model's caller.
func (p *Prepared) RequireHandlers(a Audience) error {
	if errs := p.HandlerErrors(a); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// HandlerErrors is every failure of RequireHandlers(a), one per tool, in
// registry order: what tool_surface_validate reports.
func (p *Prepared) HandlerErrors(a Audience) []error {
	var errs []error
	for _, t := range p.tools {
		if t.Allows(a) && !t.Tool.Handler.IsValid() {
			errs = append(errs, p.registry.located(t.Tool, fmt.Errorf("tool %q has no local handler (executor %q) but is exposed to the %s audience; leave %q out of its governance.audiences", t.Name(), t.Tool.Executor, a, a)))
		}
	}
	return errs
}

// Registry is the normalized registry the catalog was prepared from.
func (p *Prepared) Registry() *Registry { return p.registry }

// Catalog is the full catalog (every audience).
func (p *Prepared) Catalog() *Catalog { return p.catalog }

// Info is the registry info, or nil.
func (p *Prepared) Info() *Info { return p.catalog.Info }

// Tool looks a tool up by name, whatever its audiences.
func (p *Prepared) Tool(name string) (*PreparedTool, bool) {
	t, ok := p.byName[name]
	return t, ok
}

// ToolFor looks a tool up for an adapter: a tool outside the audience is
// reported as absent, so it can be neither listed nor invoked.
func (p *Prepared) ToolFor(a Audience, name string) (*PreparedTool, bool) {
	t, ok := p.byName[name]
	if !ok || !t.Allows(a) {
		return nil, false
	}
	return t, true
}

// Tools lists the tools of an audience in registry order.
func (p *Prepared) Tools(a Audience) []*PreparedTool {
	var out []*PreparedTool
	for _, t := range p.tools {
		if t.Allows(a) {
			out = append(out, t)
		}
	}
	return out
}

// CLITree returns the command tree of the CLI-audience tools. The error
// is the first problem that prevents building a command-line parser
// (P26: an unresolvable $ref or unknown type in a CLI leaf's property);
// the tree is returned either way.
func (p *Prepared) CLITree() (*CLITree, error) { return p.cli, p.cliErr }

// MCPTools lists the tools/list documents of the MCP-audience tools in
// registry order. The documents are shared: callers must not modify them.
func (p *Prepared) MCPTools(profile MCPProfile) []*jsonv.Object { return p.mcp[profile] }

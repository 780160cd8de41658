package tool

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/vm"
)

// RegistryType is the `_type` discriminator of a registry value.
const RegistryType = "tool_registry"

// The `_type` of the tool values std/tools makes from one definition
// (tool_ref, tool_bind, tool_synthesize); a plain definition has none.
const (
	RefType   = "tool_ref"
	BoundType = "tool_bound"
	SynthType = "tool_synth"
)

// Registry is a validated, normalized ToolRegistry (docs/spec/registry.md §1-§4):
// the catalog form of every tool plus the runtime parts the catalog
// omits. It is immutable once built.
type Registry struct {
	// Value is the registry value the script built.
	Value *vm.Dict
	// Catalog holds every tool, whatever its audiences.
	Catalog *Catalog
	// Tools parallels Catalog.Tools.
	Tools []*Tool

	// cache holds where the script registered each tool (Site).
	cache *Cache
}

// Site is where a script registered a tool: the call of tool_define,
// tool_registry_from, tool_def or the `tool` declaration that first
// validated its definition (docs/tool-run.md, "Registries that cannot
// become a program").
type Site struct {
	File      string
	Line, Col int
}

// SiteOf is where the script registered t (a tool of r), or the zero
// Site when that is not known (a registry built by Go code, or the
// exports surface).
func (r *Registry) SiteOf(t *Tool) Site {
	if r == nil || t == nil {
		return Site{}
	}
	return r.cache.SiteFor(t.Definition)
}

// SiteError is a failure that belongs to one tool of a registry, with
// where the script registered it; its text is the failure's own.
type SiteError struct {
	Err  error
	Site Site
}

func (e *SiteError) Error() string { return e.Err.Error() }
func (e *SiteError) Unwrap() error { return e.Err }

// located attributes err to t: a *SiteError when r knows where t was
// registered, else err itself.
func (r *Registry) located(t *Tool, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*SiteError); ok {
		return err
	}
	if s := r.SiteOf(t); s.Line > 0 {
		return &SiteError{Err: err, Site: s}
	}
	return err
}

// Tool is one normalized registry entry.
type Tool struct {
	Entry *Entry
	// Definition is the entry as stored in the registry value.
	Definition *vm.Dict
	// Handler is the closure of an in-VM ("harn") tool; nil otherwise.
	Handler vm.Value
	// Executor is "harn", "host_bridge", "mcp_server" or "provider_native".
	Executor       string
	HostCapability string
	MCPServer      string
	// Warnings are definition keys that look like misspelt known keys
	// (the definition is still accepted: other keys are kept verbatim).
	Warnings []string
}

// Name is the tool name.
func (t *Tool) Name() string { return t.Entry.Name }

// Stage tells which family of rules an error comes from, so callers can
// prefix it the way docs/spec/registry.md §3 describes.
type Stage int

const (
	// StageEntry errors come from one definition (the R rules).
	StageEntry Stage = iota
	// StageCatalog errors come from the whole registry (the C rules).
	StageCatalog
)

// Error is a registry validation failure.
type Error struct {
	Stage Stage
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

func entryErr(format string, args ...any) *Error {
	return &Error{Stage: StageEntry, Msg: fmt.Sprintf(format, args...)}
}

func catalogErr(format string, args ...any) *Error {
	return &Error{Stage: StageCatalog, Msg: fmt.Sprintf(format, args...)}
}

// Message renders err with the prefixes a builtin uses: entry errors
// read "tool_define: …", catalog errors "<catalogPrefix>invalid tool
// catalog: …".
func Message(err error, catalogPrefix string) string {
	var e *Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	if e.Stage == StageEntry {
		if strings.HasPrefix(e.Msg, "tool_define: ") {
			return e.Msg
		}
		return "tool_define: " + e.Msg
	}
	return catalogPrefix + "invalid tool catalog: " + e.Msg
}

// Cache remembers normalized entries and registries by value identity
// (Harn values are immutable), so a registry validated when it is built
// is not re-validated when it is published, projected and loaded.
type Cache struct {
	mu         sync.Mutex
	entries    map[*vm.Dict]*Tool
	registries map[*vm.Dict]*Registry
	sites      map[*vm.Dict]Site
}

type cacheKey struct{}

// CacheFor returns the cache kept for a VM.
func CacheFor(v *vm.VM) *Cache {
	if v == nil {
		return nil
	}
	return v.Local(cacheKey{}, func() any {
		return &Cache{entries: map[*vm.Dict]*Tool{}, registries: map[*vm.Dict]*Registry{}}
	}).(*Cache)
}

// NoteSites records s as where the script registered each tool of the
// registry value reg that has no site yet: the first registration of a
// definition is where its author wrote it (a `tool` declaration, a
// tool_def call), and a registry it joins later keeps pointing there.
func (c *Cache) NoteSites(reg *vm.Dict, s Site) {
	if reg == nil {
		return
	}
	tv, ok := field(reg, "tools")
	if !ok {
		return
	}
	l, ok := tv.AsList()
	if !ok {
		return
	}
	var defs []*vm.Dict
	for _, it := range l.Items() {
		if d, ok := it.AsDict(); ok {
			defs = append(defs, d)
		}
	}
	c.note(s, defs...)
}

// NoteSite is NoteSites for one definition.
func (c *Cache) NoteSite(def *vm.Dict, s Site) {
	if def != nil {
		c.note(s, def)
	}
}

// note records s for each of defs that has no site yet. Like entries,
// the map starts over once it holds 100,000 definitions.
func (c *Cache) note(s Site, defs ...*vm.Dict) {
	if c == nil || s.Line <= 0 || len(defs) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sites == nil || len(c.sites) > 100000 {
		c.sites = map[*vm.Dict]Site{}
	}
	for _, d := range defs {
		if _, seen := c.sites[d]; !seen {
			c.sites[d] = s
		}
	}
}

// SiteFor is where the script registered the definition d (the zero
// Site when unknown).
func (c *Cache) SiteFor(d *vm.Dict) Site {
	if c == nil || d == nil {
		return Site{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sites[d]
}

func (c *Cache) entry(d *vm.Dict) *Tool {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[d]
}

func (c *Cache) putEntry(d *vm.Dict, t *Tool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) > 100000 {
		c.entries = map[*vm.Dict]*Tool{}
	}
	c.entries[d] = t
}

// ---- value helpers ----

// field returns a dict member, treating nil as absent.
func field(d *vm.Dict, k string) (vm.Value, bool) {
	v, ok := d.Get(k)
	if !ok || v.IsNil() {
		return vm.Value{}, false
	}
	return v, true
}

func str(v vm.Value) (string, bool) {
	s, ok := v.AsString()
	return s.Go(), ok
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

var componentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*$`) })

// ValidCommandComponent reports whether s is a portable command name.
func ValidCommandComponent(s string) bool { return componentRE().MatchString(s) }

func stringList(v vm.Value) ([]string, bool) {
	l, ok := v.AsList()
	if !ok {
		return nil, false
	}
	out := make([]string, l.Len())
	for i, it := range l.Items() {
		s, ok := str(it)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// ---- registry value ----

// IsRegistry reports whether v is a registry value (a dict whose _type
// is RegistryType).
func IsRegistry(v vm.Value) bool {
	d, ok := v.AsDict()
	if !ok {
		return false
	}
	t, _ := d.Get("_type")
	s, _ := str(t)
	return s == RegistryType
}

// SingleDefinition reports whether v is one tool definition written
// where a registry (or a list of tools) is expected: a dict without
// `_type`, or a tool value (`tool_ref`, `tool_bind`, `tool_synthesize`),
// that names a tool and carries a handler, an executor or an input
// schema. It returns the tool's name.
func SingleDefinition(v vm.Value) (string, bool) {
	d, ok := v.AsDict()
	if !ok {
		return "", false
	}
	if t, typed := d.Get("_type"); typed {
		switch vm.ToDisplay(t) {
		case RefType, BoundType, SynthType:
		default:
			return "", false
		}
	}
	nv, _ := d.Get("name")
	name, ok := str(nv)
	if !ok || name == "" {
		return "", false
	}
	if d.Has("handler") || d.Has("executor") || slices.ContainsFunc(inputSpellings, d.Has) {
		return name, true
	}
	return "", false
}

// SingleDefinitionHint explains a lone tool definition given as a
// `tools` option (`agent_loop({tools: def})`): `got the single tool
// definition "NAME"; wrap it in a list: tools: [def]`, else "".
func SingleDefinitionHint(v vm.Value) string {
	if name, ok := SingleDefinition(v); ok {
		return fmt.Sprintf("got the single tool definition %q; wrap it in a list: tools: [def]", name)
	}
	return ""
}

// Normalize validates a registry value with every R and C rule of
// docs/spec/registry.md §3 and returns its normalized form. cache may be nil.
func Normalize(v vm.Value, cache *Cache) (*Registry, error) {
	d, ok := v.AsDict()
	if !ok || !IsRegistry(v) {
		return nil, catalogErr("expected a tool registry created with tool_registry()")
	}
	if cache != nil {
		cache.mu.Lock()
		r := cache.registries[d]
		cache.mu.Unlock()
		if r != nil {
			return r, nil
		}
	}
	cat := &Catalog{SchemaVersion: CatalogVersion}
	if err := normalizeOptions(d, cat); err != nil {
		return nil, err
	}
	tv, _ := field(d, "tools")
	var defs []vm.Value
	if tv.IsValid() {
		l, ok := tv.AsList()
		if !ok {
			return nil, catalogErr("tool registry field \"tools\" must be a list of tool definitions")
		}
		defs = l.Items()
	}
	reg := &Registry{Value: d, Catalog: cat, Tools: make([]*Tool, 0, len(defs)), cache: cache}
	for i, dv := range defs {
		def, ok := dv.AsDict()
		if !ok {
			return nil, catalogErr("tools[%d] must be a tool definition dict, got %s", i, dv.Type())
		}
		t, err := NormalizeEntry(def, i, cache)
		if err != nil {
			return nil, err
		}
		reg.Tools = append(reg.Tools, t)
		cat.Tools = append(cat.Tools, t.Entry)
	}
	if err := checkCatalog(cat, labelTool); err != nil {
		return nil, err
	}
	if cache != nil {
		cache.mu.Lock()
		if len(cache.registries) > 1000 {
			cache.registries = map[*vm.Dict]*Registry{}
		}
		cache.registries[d] = reg
		cache.mu.Unlock()
	}
	return reg, nil
}

func normalizeOptions(d *vm.Dict, cat *Catalog) error {
	if v, ok := field(d, "info"); ok {
		info, err := normalizeInfo(v)
		if err != nil {
			return err
		}
		cat.Info = info
	}
	if v, ok := field(d, "components"); ok {
		comps, err := normalizeComponents(v)
		if err != nil {
			return err
		}
		cat.Components = comps
	}
	if v, ok := field(d, "cli"); ok {
		tree, err := normalizeCLITree(v)
		if err != nil {
			return catalogErr("tool registry CLI metadata is invalid: %s", err.Error())
		}
		cat.CLI = tree
	}
	return nil
}

func normalizeInfo(v vm.Value) (*Info, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, catalogErr("tool registry info must be an object")
	}
	info := &Info{}
	for _, k := range d.Keys() {
		val, _ := d.Get(k)
		if val.IsNil() && k != "name" {
			continue
		}
		s, isStr := str(val)
		switch k {
		case "name", "version", "description":
			if !isStr || blank(s) {
				return nil, catalogErr("tool registry info field %q must be a non-empty string", k)
			}
		default:
			return nil, catalogErr("tool registry info contains unknown key %q", k)
		}
		switch k {
		case "name":
			info.Name = s
		case "version":
			info.Version = s
		case "description":
			info.Description = s
		}
	}
	if info.Name == "" {
		return nil, catalogErr("tool registry info field \"name\" must be a non-empty string")
	}
	return info, nil
}

func normalizeComponents(v vm.Value) (*Components, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, catalogErr("tool registry components must be an object with a schemas field")
	}
	for _, k := range d.Keys() {
		if k != "schemas" {
			if d.Has("schemas") {
				return nil, catalogErr("tool registry components contains unknown key %q", k)
			}
			// {Widget: {...}}: schemas named without the schemas field
			return nil, catalogErr("tool registry components must be an object with a schemas field")
		}
	}
	sv, ok := field(d, "schemas")
	if !ok {
		return nil, catalogErr("tool registry components must be an object with a schemas field")
	}
	sd, ok := sv.AsDict()
	if !ok {
		return nil, catalogErr("tool registry components.schemas must be an object of named JSON Schemas")
	}
	o := jsonv.NewObject(sd.Len())
	for _, name := range sd.Keys() {
		if blank(name) {
			return nil, catalogErr("components.schemas key must not be empty")
		}
		val, _ := sd.Get(name)
		label := "components.schemas." + name
		doc, err := schemaValue(val, label)
		if err != nil {
			return nil, err
		}
		if err := schemaDocCheck(label, doc, func(r string) string {
			return label + " is not a valid Draft 2020-12 JSON Schema: " + r
		}); err != nil {
			return nil, catalogErr("%s", err.Error())
		}
		o.Set(name, doc)
	}
	return &Components{Schemas: NewSchemaMap(o)}, nil
}

// schemaValue converts a schema-position value: a bool or a dict of
// portable JSON.
func schemaValue(v vm.Value, label string) (any, error) {
	switch v.Object().(type) {
	case vm.Bool, *vm.Dict:
	default:
		return nil, catalogErr("%s must be a boolean or object JSON Schema", label)
	}
	j, err := ToJSON(v)
	if err != nil {
		if np, ok := err.(*NonPortableError); ok && np.Kind == "closure" || ok && np.Kind == "builtin" {
			return nil, catalogErr("%s contains runtime-only Harn type %q, which has no portable JSON value", label, np.Kind)
		}
		return nil, catalogErr("%s is not portable JSON: %v", label, err)
	}
	return j, nil
}

func normalizeCLITree(v vm.Value) (*CLITreeSpec, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, fmt.Errorf("cli must be an object")
	}
	tree := &CLITreeSpec{Commands: []*CLICommandSpec{}}
	for _, k := range d.Keys() {
		if k != "commands" {
			return nil, fmt.Errorf("cli contains unknown key %q", k)
		}
	}
	cv, ok := field(d, "commands")
	if !ok {
		return tree, nil
	}
	l, ok := cv.AsList()
	if !ok {
		return nil, fmt.Errorf("cli.commands must be a list")
	}
	for i, it := range l.Items() {
		cd, ok := it.AsDict()
		if !ok {
			return nil, fmt.Errorf("cli.commands[%d] must be an object", i)
		}
		cmd := &CLICommandSpec{Aliases: []string{}}
		for _, k := range cd.Keys() {
			val, _ := cd.Get(k)
			if val.IsNil() {
				continue
			}
			switch k {
			case "command":
				parts, ok := stringList(val)
				if !ok || len(parts) == 0 {
					return nil, fmt.Errorf("cli.commands[%d].command must be a non-empty list of command names", i)
				}
				cmd.Command = parts
			case "title", "description":
				s, ok := str(val)
				if !ok {
					return nil, fmt.Errorf("cli.commands[%d].%s must be a string", i, k)
				}
				if k == "title" {
					cmd.Title = strPtr(s)
				} else {
					cmd.Description = strPtr(s)
				}
			case "aliases":
				al, ok := stringList(val)
				if !ok {
					return nil, fmt.Errorf("cli.commands[%d].aliases must be a list of command names", i)
				}
				cmd.Aliases = al
			case "hidden":
				b, ok := val.AsBool()
				if !ok {
					return nil, fmt.Errorf("cli.commands[%d].hidden must be a bool", i)
				}
				cmd.Hidden = bool(b)
			case "display_order":
				n, ok := val.AsInt()
				if !ok || n < 0 {
					return nil, fmt.Errorf("cli.commands[%d].display_order must be a non-negative integer", i)
				}
				x := int64(n)
				cmd.DisplayOrder = &x
			default:
				return nil, fmt.Errorf("cli.commands[%d] contains unknown key %q", i, k)
			}
		}
		// Blank titles and bad or repeated aliases are tree-preparation
		// refusals (P23, P24: docs/spec/cli-projection.md §9); the
		// catalog reader and `harn tool schema` apply them too (check).
		if len(cmd.Command) == 0 {
			return nil, fmt.Errorf("cli.commands[%d].command must be a non-empty list of command names", i)
		}
		for _, p := range cmd.Command {
			if !ValidCommandComponent(p) {
				return nil, fmt.Errorf("CLI command spelling %q is not a portable command component", p)
			}
		}
		tree.Commands = append(tree.Commands, cmd)
	}
	return tree, nil
}

// ---- one entry ----

var shorthand = map[string]string{
	"int": "integer", "integer": "integer",
	"float": "number", "number": "number",
	"bool": "boolean", "boolean": "boolean",
	"list": "array", "array": "array",
	"dict": "object", "object": "object",
	"string": "string", "null": "null",
	"any": "", "unknown": "",
}

var inputSpellings = []string{"parameters", "input_schema", "inputSchema"}

// definitionKeys are the keys a tool definition may carry (docs/spec/registry.md §2).
var definitionKeys = []string{
	"name", "description", "title", "parameters", "input_schema", "inputSchema",
	"returns", "output_schema", "error_schema", "annotations", "execution_policy",
	"policy", "governance", "cli", "source", "namespace", "defer_loading", "icons",
	"execution", "meta", "_meta", "handler", "executor", "host_capability", "mcp_server",
}

// misspeltKeys warns about keys that are not definition keys but are
// close to one. Other unknown keys are kept for other subsystems
// (docs/spec/registry.md §2), so only a likely typo is worth a warning. A key is
// also compared with the stem of the *_schema keys, so `errors` suggests
// `error_schema`.
func misspeltKeys(q string, def *vm.Dict) []string {
	known := map[string]bool{}
	stems := map[string]string{}
	for _, k := range definitionKeys {
		known[k] = true
		if stem, ok := strings.CutSuffix(k, "_schema"); ok {
			stems[stem] = k
		}
	}
	stemNames := make([]string, 0, len(stems))
	for stem := range stems {
		stemNames = append(stemNames, stem)
	}
	var warnings []string
	for _, k := range def.Keys() {
		if known[k] {
			continue
		}
		hint := diag.Suggest(k, definitionKeys)
		if full, ok := stems[k]; ok && hint == "" {
			hint = full
		} else if hint == "" {
			hint = stems[diag.Suggest(k, stemNames)]
		}
		if hint != "" {
			warnings = append(warnings, fmt.Sprintf("%s has unknown key `%s` — did you mean `%s`?", q, k, hint))
		}
	}
	return warnings
}

// Warnings lists every tool's definition warnings, in catalog order.
func (r *Registry) Warnings() []string {
	var ws []string
	for _, t := range r.Tools {
		ws = append(ws, t.Warnings...)
	}
	return ws
}

// NormalizeEntry validates one definition with the per-entry rules of
// docs/spec/registry.md §3 (index is its position in the registry, used only in
// messages). cache may be nil.
func NormalizeEntry(def *vm.Dict, index int, cache *Cache) (*Tool, error) {
	if t := cache.entry(def); t != nil {
		return t, nil
	}
	t, err := normalizeEntry(def, index)
	if err != nil {
		return nil, err
	}
	cache.putEntry(def, t)
	return t, nil
}

func normalizeEntry(def *vm.Dict, index int) (*Tool, error) {
	nv, _ := field(def, "name")
	name, ok := str(nv)
	if !ok || blank(name) {
		return nil, entryErr("tool registry entry field \"name\" must be a non-empty string")
	}
	if _, ok := def.Get("params"); ok {
		return nil, entryErr("tool_define: use 'parameters', not 'params'")
	}
	e := &Entry{Name: name}
	t := &Tool{Entry: e, Definition: def}
	q := fmt.Sprintf("tool %q", name)
	t.Warnings = misspeltKeys(q, def)

	if v, ok := field(def, "description"); ok {
		s, isStr := str(v)
		if !isStr {
			return nil, entryErr("%s field \"description\" must be a string", q)
		}
		e.Description = s
	}
	if v, ok := field(def, "title"); ok {
		s, isStr := str(v)
		if !isStr || blank(s) {
			return nil, entryErr("%s field \"title\" must be a non-empty string", q)
		}
		e.Title = s
	}
	if v, ok := field(def, "namespace"); ok {
		s, isStr := str(v)
		if !isStr || blank(s) {
			return nil, entryErr("tool_define: `namespace` must be a non-empty string")
		}
		e.Namespace = s
	}
	if v, ok := field(def, "defer_loading"); ok {
		b, isBool := v.AsBool()
		if !isBool {
			return nil, entryErr("tool_define: `defer_loading` must be a bool")
		}
		e.DeferLoading = bool(b)
	}

	// input schema: exactly one spelling
	var given []string
	for _, k := range inputSpellings {
		if _, ok := field(def, k); ok {
			given = append(given, k)
		}
	}
	if len(given) > 1 {
		return nil, entryErr("tool_define: %s declares its input schema twice (%q and %q); use `inputSchema` for a complete JSON Schema or legacy `parameters` for a per-parameter map, not both", q, given[0], given[1])
	}
	switch {
	case len(given) == 0:
		e.InputSchema = NewSchema(emptyObjectSchema())
	case given[0] == "parameters":
		pv, _ := field(def, "parameters")
		doc, err := deriveParameters(name, pv)
		if err != nil {
			return nil, err
		}
		e.InputSchema = NewSchema(doc)
	default:
		iv, _ := field(def, given[0])
		d, isDict := iv.AsDict()
		var tv vm.Value
		if isDict {
			tv, _ = d.Get("type")
		}
		if ts, _ := str(tv); !isDict || ts != "object" {
			return nil, entryErr("%s field %q must be an object-root JSON Schema", q, given[0])
		}
		doc, err := schemaValue(vm.Of(d), q+" input schema")
		if err != nil {
			return nil, entryErr("%s", err.Error())
		}
		e.InputSchema = NewSchema(doc)
	}
	if err := defSchemaCheck(q, "input", e.InputSchema.Doc()); err != nil {
		return nil, err
	}

	outKey := ""
	if _, ok := field(def, "returns"); ok {
		outKey = "returns"
	} else if _, ok := field(def, "output_schema"); ok {
		outKey = "output_schema"
	}
	if outKey != "" {
		doc, err := defSchema(def, outKey, q, "outputSchema", "output")
		if err != nil {
			return nil, err
		}
		e.OutputSchema = NewSchema(doc)
	}
	if _, ok := field(def, "error_schema"); ok {
		doc, err := defSchema(def, "error_schema", q, "errorSchema", "error")
		if err != nil {
			return nil, err
		}
		e.ErrorSchema = NewSchema(doc)
	}

	var annDict *vm.Dict
	if v, ok := field(def, "annotations"); ok {
		d, isDict := v.AsDict()
		if !isDict {
			return nil, entryErr("%s field 'annotations' must be an object", q)
		}
		annDict = d
		ann, err := normalizeAnnotations(q, d)
		if err != nil {
			return nil, err
		}
		if !ann.Empty() {
			e.Annotations = ann
		}
	}
	if v, ok := field(def, "execution_policy"); ok {
		p, err := normalizePolicy(q, v)
		if err != nil {
			return nil, err
		}
		e.Policy = p
	} else if annDict != nil {
		e.Policy = legacyPolicy(annDict)
	}

	e.Governance = Governance{Audiences: append([]Audience(nil), Audiences...)}
	if v, ok := field(def, "governance"); ok {
		g, err := normalizeGovernance(q, v)
		if err != nil {
			return nil, err
		}
		e.Governance = g
	}

	cli, err := normalizeCLISpec(name, e.Namespace, def)
	if err != nil {
		return nil, err
	}
	e.CLI = cli

	if v, ok := field(def, "source"); ok {
		s, err := normalizeSource(q, v)
		if err != nil {
			return nil, err
		}
		e.Source = s
	}
	if v, ok := field(def, "icons"); ok {
		icons, err := normalizeIcons(q, v, index)
		if err != nil {
			return nil, err
		}
		e.Icons = icons
	}
	if v, ok := field(def, "execution"); ok {
		d, isDict := v.AsDict()
		if !isDict {
			return nil, entryErr("%s field 'execution' must be an object", q)
		}
		ex := &Execution{}
		for _, k := range d.Keys() {
			if k != "taskSupport" {
				return nil, entryErr("%s field 'execution' contains unknown key %q", q, k)
			}
		}
		tv, _ := d.Get("taskSupport")
		ts, _ := str(tv)
		if !oneOf(ts, TaskSupport("").Values()) {
			return nil, entryErr("%s field 'execution.taskSupport' has unknown value %q", q, display(tv))
		}
		ex.TaskSupport = TaskSupport(ts)
		e.Execution = ex
	}
	_, hasMeta := field(def, "meta")
	_, hasUMeta := field(def, "_meta")
	if hasMeta && hasUMeta {
		return nil, entryErr("%s declares metadata twice (\"meta\" and \"_meta\")", q)
	}
	if hasMeta || hasUMeta {
		key := "meta"
		if hasUMeta {
			key = "_meta"
		}
		mv, _ := field(def, key)
		if _, isDict := mv.AsDict(); !isDict {
			return nil, entryErr("%s field 'meta' must be an object", q)
		}
		j, err := ToJSON(mv)
		if err != nil {
			return nil, entryErr("%s field 'meta' is not portable JSON: %v", q, err)
		}
		e.Meta = j.(*jsonv.Object)
	}

	if err := normalizeExecutor(t, q, def); err != nil {
		return nil, err
	}
	return t, nil
}

func display(v vm.Value) string {
	if !v.IsValid() {
		return "nil"
	}
	return vm.ToDisplay(v)
}

func defSchema(def *vm.Dict, key, q, catalogField, kind string) (any, error) {
	v, _ := field(def, key)
	switch v.Object().(type) {
	case vm.Bool, *vm.Dict:
	default:
		return nil, entryErr("%s field %q must be a JSON Schema boolean or object", q, catalogField)
	}
	doc, err := schemaValue(v, q+" "+kind+" schema")
	if err != nil {
		return nil, entryErr("%s", err.Error())
	}
	if err := defSchemaCheck(q, kind, doc); err != nil {
		return nil, err
	}
	return doc, nil
}

func defSchemaCheck(q, kind string, doc any) error {
	label := q + " " + kind + " schema"
	if err := schemaDocCheck(label, doc, func(r string) string { return label + " is invalid: " + r }); err != nil {
		return entryErr("%s", err.Error())
	}
	return nil
}

// deriveParameters builds the input schema of a legacy parameters map.
func deriveParameters(name string, v vm.Value) (any, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, entryErr("tool parameters must be a per-parameter definition object; use input_schema for a complete JSON Schema")
	}
	if tv, ok := d.Get("type"); ok {
		if s, _ := str(tv); s == "object" && d.Has("properties") {
			return nil, entryErr("tool %q field \"parameters\" holds an object-root JSON Schema, but \"parameters\" is the legacy per-parameter map; declare a complete schema under \"inputSchema\" instead", name)
		}
	}
	props := jsonv.NewObject(d.Len())
	var required []string
	for _, p := range d.Keys() {
		pv, _ := d.Get(p)
		switch x := pv.Object().(type) {
		case vm.String:
			t, known := shorthand[x.Go()]
			if !known {
				return nil, entryErr("tool parameter %q has unknown shorthand type %q", p, x.Go())
			}
			o := jsonv.NewObject(1)
			if t != "" {
				o.Set("type", t)
			}
			props.Set(p, o)
		case *vm.Dict:
			if rv, ok := field(x, "required"); ok {
				b, isBool := rv.AsBool()
				if !isBool {
					return nil, entryErr("tool parameter %q field \"required\" must be a bool", p)
				}
				if b {
					required = append(required, p)
				}
			}
			if sv, ok := x.Get("schema"); ok {
				switch sv.Object().(type) {
				case vm.Bool, *vm.Dict:
				default:
					return nil, entryErr("tool parameter %q field \"schema\" must be a JSON Schema boolean or object", p)
				}
				doc, err := schemaValue(sv, fmt.Sprintf("tool %q input schema", name))
				if err != nil {
					return nil, entryErr("%s", err.Error())
				}
				if dv, ok := field(x, "description"); ok {
					desc, isStr := str(dv)
					if !isStr {
						return nil, entryErr("tool parameter %q field \"description\" must be a string", p)
					}
					switch s := doc.(type) {
					case bool:
						o := jsonv.NewObject(2)
						o.Set("allOf", []any{s})
						o.Set("description", desc)
						doc = o
					case *jsonv.Object:
						if !s.Has("description") {
							doc = insertSorted(s, "description", desc)
						}
					}
				}
				props.Set(p, doc)
				continue
			}
			o := jsonv.NewObject(x.Len())
			for _, k := range x.Keys() {
				if k == "required" {
					continue
				}
				fv, _ := x.Get(k)
				if k == "type" {
					ts, isStr := str(fv)
					if !isStr {
						return nil, entryErr("tool parameter %q field \"type\" must be a string", p)
					}
					t, known := shorthand[ts]
					if !known {
						return nil, entryErr("tool parameter %q has unknown type %q", p, ts)
					}
					if t != "" {
						o.Set("type", t)
					}
					continue
				}
				j, err := ToJSON(fv)
				if err != nil {
					if np, ok := err.(*NonPortableError); ok && (np.Kind == "closure" || np.Kind == "builtin") {
						return nil, entryErr("tool %q input schema contains runtime-only Harn type %q, which has no portable JSON value", name, np.Kind)
					}
					return nil, entryErr("tool %q input schema is not portable JSON: %v", name, err)
				}
				o.Set(k, j)
			}
			props.Set(p, o)
		default:
			return nil, entryErr("tool parameter %q must be a type string or definition object", p)
		}
	}
	root := jsonv.NewObject(3)
	root.Set("properties", props)
	if len(required) > 0 {
		sort.Strings(required)
		req := make([]any, len(required))
		for i, r := range required {
			req[i] = r
		}
		root.Set("required", req)
	}
	root.Set("type", "object")
	return root, nil
}

// insertSorted returns a copy of o with k added, keeping sorted keys
// sorted (Harn literals produce sorted keys).
func insertSorted(o *jsonv.Object, k string, v any) *jsonv.Object {
	out := jsonv.NewObject(o.Len() + 1)
	placed := !o.SortedKeys()
	for i := 0; i < o.Len(); i++ {
		key, val := o.At(i)
		if !placed && key > k {
			out.Set(k, v)
			placed = true
		}
		out.Set(key, val)
	}
	if !out.Has(k) {
		out.Set(k, v)
	}
	return out
}

func normalizeAnnotations(q string, d *vm.Dict) (*Annotations, error) {
	a := &Annotations{}
	if v, ok := field(d, "title"); ok {
		s, isStr := str(v)
		if !isStr || blank(s) {
			return nil, entryErr("%s annotations field \"title\" must be a non-empty string", q)
		}
		a.Title = s
	}
	hints := []struct {
		key string
		dst **bool
	}{
		{"readOnlyHint", &a.ReadOnlyHint},
		{"destructiveHint", &a.DestructiveHint},
		{"idempotentHint", &a.IdempotentHint},
		{"openWorldHint", &a.OpenWorldHint},
	}
	for _, h := range hints {
		v, ok := field(d, h.key)
		if !ok {
			continue
		}
		b, isBool := v.AsBool()
		if !isBool {
			return nil, entryErr("%s annotations field %q must be a bool", q, h.key)
		}
		x := bool(b)
		*h.dst = &x
	}
	return a, nil
}

func normalizePolicy(q string, v vm.Value) (*Policy, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, entryErr("%s field 'execution_policy' must be an object", q)
	}
	for _, k := range d.Keys() {
		if k != "kind" && k != "side_effect_level" {
			return nil, entryErr("%s field 'execution_policy' contains unknown key %q", q, k)
		}
	}
	kv, _ := field(d, "kind")
	kind, ok := str(kv)
	if !ok || kind == "" {
		return nil, entryErr("%s field 'execution_policy' field \"kind\" must be a non-empty string", q)
	}
	if !oneOf(kind, PolicyKind("").Values()) {
		return nil, entryErr("%s field 'execution_policy.kind' has unknown value %q", q, kind)
	}
	sv, _ := field(d, "side_effect_level")
	level, ok := str(sv)
	if !ok || level == "" {
		return nil, entryErr("%s field 'execution_policy' field \"side_effect_level\" must be a non-empty string", q)
	}
	if !oneOf(level, SideEffectLevel("").Values()) {
		return nil, entryErr("%s field 'execution_policy.side_effect_level' has unknown value %q", q, level)
	}
	return &Policy{Kind: PolicyKind(kind), SideEffectLevel: SideEffectLevel(level)}, nil
}

// legacyPolicy reads the legacy annotation literals (docs/spec/registry.md §2.4);
// anything missing or unrecognized yields no policy.
func legacyPolicy(ann *vm.Dict) *Policy {
	kv, _ := ann.Get("kind")
	sv, _ := ann.Get("side_effect_level")
	kind, ok1 := str(kv)
	level, ok2 := str(sv)
	if !ok1 || !ok2 || !oneOf(kind, PolicyKind("").Values()) || !oneOf(level, SideEffectLevel("").Values()) {
		return nil
	}
	return &Policy{Kind: PolicyKind(kind), SideEffectLevel: SideEffectLevel(level)}
}

func normalizeGovernance(q string, v vm.Value) (Governance, error) {
	d, ok := v.AsDict()
	if !ok {
		return Governance{}, entryErr("%s field 'governance' must be an object", q)
	}
	for _, k := range d.Keys() {
		if k != "audiences" {
			return Governance{}, entryErr("%s field 'governance' contains unknown key %q", q, k)
		}
	}
	av, _ := field(d, "audiences")
	l, ok := av.AsList()
	if !ok || l.Len() == 0 {
		return Governance{}, entryErr("%s field 'governance.audiences' must be a non-empty list", q)
	}
	seen := map[Audience]bool{}
	out := make([]Audience, 0, l.Len())
	for _, it := range l.Items() {
		s, isStr := str(it)
		if !isStr {
			return Governance{}, entryErr("%s field 'governance.audiences' must contain only audience names", q)
		}
		a := Audience(s)
		if audienceRank(a) < 0 {
			return Governance{}, entryErr("%s field 'governance.audiences' has unknown audience %q", q, s)
		}
		if seen[a] {
			return Governance{}, entryErr("%s field 'governance.audiences' contains duplicate audience %q", q, s)
		}
		seen[a] = true
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return audienceRank(out[i]) < audienceRank(out[j]) })
	return Governance{Audiences: out}, nil
}

// implicitCommand is the CLI path of a tool without cli.command:
// namespace parts then name parts, split on ".".
func implicitCommand(name, namespace string) []string {
	var parts []string
	if namespace != "" {
		parts = append(parts, strings.Split(namespace, ".")...)
	}
	return append(parts, strings.Split(name, ".")...)
}

var cliArgKeys = map[string]bool{
	"long": true, "short": true, "aliases": true, "position": true, "value_name": true,
	"help": true, "value_hint": true, "boolean_style": true, "repeatable": true,
	"hidden": true, "completions": true, "display_order": true, "help_group": true,
}

func normalizeCLISpec(name, namespace string, def *vm.Dict) (CLISpec, error) {
	q := fmt.Sprintf("tool %q", name)
	spec := CLISpec{Aliases: []string{}, Arguments: map[string]*CLIArgument{}}
	v, ok := field(def, "cli")
	var d *vm.Dict
	if ok {
		d, ok = v.AsDict()
		if !ok {
			return spec, entryErr("%s field 'cli' must be an object", q)
		}
		for _, k := range d.Keys() {
			switch k {
			case "command", "aliases", "hidden", "arguments":
			default:
				return spec, entryErr("%s field 'cli' contains unknown key %q", q, k)
			}
		}
	}
	if d != nil {
		if cv, ok := field(d, "command"); ok {
			parts, isList := stringList(cv)
			if l, _ := cv.AsList(); l != nil && !isList {
				return spec, entryErr("%s field 'cli.command' must contain only non-empty command names", q)
			}
			if !isList || len(parts) == 0 {
				return spec, entryErr("%s field 'cli.command' must be a non-empty list of command names", q)
			}
			for _, p := range parts {
				if !ValidCommandComponent(p) {
					return spec, entryErr("%s field 'cli.command' must contain only non-empty command names", q)
				}
			}
			spec.Command = parts
		}
		if av, ok := field(d, "aliases"); ok {
			l, isList := av.AsList()
			if !isList {
				return spec, entryErr("%s field 'cli.aliases' must be a list of portable command names", q)
			}
			for _, it := range l.Items() {
				s, isStr := str(it)
				if !isStr || !ValidCommandComponent(s) {
					return spec, entryErr("%s field 'cli.aliases' must contain only portable command names", q)
				}
				spec.Aliases = append(spec.Aliases, s)
			}
		}
		if hv, ok := field(d, "hidden"); ok {
			b, isBool := hv.AsBool()
			if !isBool {
				return spec, entryErr("%s field 'cli' field \"hidden\" must be a bool", q)
			}
			spec.Hidden = bool(b)
		}
		if argv, ok := field(d, "arguments"); ok {
			ad, isDict := argv.AsDict()
			if !isDict {
				return spec, entryErr("%s field 'cli.arguments' must be an object keyed by input property", q)
			}
			for _, prop := range ad.Keys() {
				pv, _ := ad.Get(prop)
				arg, reason := normalizeCLIArgument(prop, pv)
				if reason != "" {
					return spec, entryErr("%s field 'cli.arguments' is invalid: %s", q, reason)
				}
				spec.Arguments[prop] = arg
			}
		}
	}
	if spec.Command == nil {
		spec.Command = implicitCommand(name, namespace)
		for _, p := range spec.Command {
			if !ValidCommandComponent(p) {
				return spec, entryErr("%s CLI command must contain only non-empty portable command names", q)
			}
		}
	}
	return spec, nil
}

func normalizeCLIArgument(prop string, v vm.Value) (*CLIArgument, string) {
	p := fmt.Sprintf("property %q", prop)
	arg := &CLIArgument{Aliases: []string{}, Completions: []string{}, BooleanStyle: BooleanValue}
	if v.IsNil() {
		return arg, ""
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, p + " must be an object"
	}
	for _, k := range d.Keys() {
		if !cliArgKeys[k] {
			return nil, fmt.Sprintf("%s contains unknown field %q", p, k)
		}
		val, _ := d.Get(k)
		if val.IsNil() {
			continue
		}
		switch k {
		case "long", "short", "value_name", "help", "help_group":
			s, ok := str(val)
			if !ok {
				return nil, fmt.Sprintf("%s field %q must be a string", p, k)
			}
			switch k {
			case "long":
				arg.Long = strPtr(s)
			case "short":
				arg.Short = strPtr(s)
			case "value_name":
				arg.ValueName = strPtr(s)
			case "help":
				arg.Help = strPtr(s)
			case "help_group":
				arg.HelpGroup = strPtr(s)
			}
			if k == "short" && len([]rune(s)) != 1 {
				return nil, fmt.Sprintf("%s field \"short\" must be one character", p)
			}
		case "aliases", "completions":
			l, ok := stringList(val)
			if !ok {
				return nil, fmt.Sprintf("%s field %q must be a list of strings", p, k)
			}
			if k == "aliases" {
				arg.Aliases = l
			} else {
				arg.Completions = l
			}
		case "position", "display_order":
			n, ok := val.AsInt()
			if !ok || n < 0 {
				return nil, fmt.Sprintf("%s field %q must be a non-negative integer", p, k)
			}
			x := int64(n)
			if k == "position" {
				arg.Position = &x
			} else {
				arg.DisplayOrder = &x
			}
		case "value_hint":
			s, _ := str(val)
			if !oneOf(s, ValueHint("").Values()) {
				return nil, fmt.Sprintf("%s field \"value_hint\" has unknown value %q", p, display(val))
			}
			arg.ValueHint = ValueHint(s)
		case "boolean_style":
			s, _ := str(val)
			if !oneOf(s, BooleanStyle("").Values()) {
				return nil, fmt.Sprintf("%s field \"boolean_style\" has unknown value %q", p, display(val))
			}
			arg.BooleanStyle = BooleanStyle(s)
		case "repeatable", "hidden":
			b, ok := val.AsBool()
			if !ok {
				return nil, fmt.Sprintf("%s field %q must be a bool", p, k)
			}
			if k == "repeatable" {
				arg.Repeatable = bool(b)
			} else {
				arg.Hidden = bool(b)
			}
		}
	}
	return arg, ""
}

func normalizeSource(q string, v vm.Value) (*Source, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, entryErr("%s field 'source' must be an object", q)
	}
	s := &Source{}
	for _, k := range d.Keys() {
		if k != "kind" && k != "id" && k != "binding" {
			return nil, entryErr("%s field 'source' contains unknown key %q", q, k)
		}
	}
	kv, _ := field(d, "kind")
	kind, ok := str(kv)
	if !ok || blank(kind) {
		return nil, entryErr("%s field 'source' field \"kind\" must be a non-empty string", q)
	}
	s.Kind = kind
	if iv, ok := field(d, "id"); ok {
		id, isStr := str(iv)
		if !isStr || blank(id) {
			return nil, entryErr("%s field 'source' field \"id\" must be a non-empty string", q)
		}
		s.ID = id
	}
	if bv, ok := field(d, "binding"); ok {
		if _, isDict := bv.AsDict(); !isDict {
			return nil, entryErr("%s field 'source.binding' must be an object", q)
		}
		j, err := ToJSON(bv)
		if err != nil {
			return nil, entryErr("%s field 'source.binding' is not portable JSON: %v", q, err)
		}
		s.Binding = j.(*jsonv.Object)
	}
	return s, nil
}

func normalizeIcons(q string, v vm.Value, index int) ([]*Icon, error) {
	l, ok := v.AsList()
	if !ok || l.Len() == 0 {
		return nil, entryErr("%s field 'icons' must be a non-empty list", q)
	}
	var out []*Icon
	for _, it := range l.Items() {
		d, ok := it.AsDict()
		if !ok {
			return nil, entryErr("%s icon must be an object", q)
		}
		icon := &Icon{}
		for _, k := range d.Keys() {
			val, _ := d.Get(k)
			switch k {
			case "src", "mimeType":
				s, isStr := str(val)
				if !isStr || blank(s) {
					return nil, entryErr("%s icon field '%s' must be a non-empty string", q, k)
				}
				if k == "src" {
					icon.Src = s
				} else {
					icon.MimeType = s
				}
			case "sizes":
				sl, isList := val.AsList()
				if !isList || sl.Len() == 0 {
					return nil, entryErr("%s icon field 'sizes' must be a non-empty list", q)
				}
				seen := map[string]bool{}
				for _, sv := range sl.Items() {
					s, isStr := str(sv)
					if !isStr || blank(s) {
						return nil, entryErr("%s icon field 'sizes' must contain non-empty strings", q)
					}
					if seen[s] {
						return nil, entryErr("%s icon field 'sizes' contains duplicate size %q", q, s)
					}
					seen[s] = true
					icon.Sizes = append(icon.Sizes, s)
				}
			case "theme":
				s, _ := str(val)
				if !oneOf(s, IconTheme("").Values()) {
					return nil, entryErr("%s icon field 'theme' has unknown value %q", q, display(val))
				}
				icon.Theme = IconTheme(s)
			default:
				return nil, entryErr("%s icon contains unknown key %q", q, k)
			}
		}
		if icon.Src == "" {
			return nil, entryErr("%s icon field 'src' must be a non-empty string", q)
		}
		for _, prev := range out {
			if iconEqual(prev, icon) {
				return nil, entryErr("tools[%d].icons contains a duplicate icon", index)
			}
		}
		out = append(out, icon)
	}
	return out, nil
}

func iconEqual(a, b *Icon) bool {
	return a.Src == b.Src && a.MimeType == b.MimeType && a.Theme == b.Theme && strings.Join(a.Sizes, "\x00") == strings.Join(b.Sizes, "\x00")
}

func normalizeExecutor(t *Tool, q string, def *vm.Dict) error {
	hv, hasHandler := field(def, "handler")
	ev, hasExec := field(def, "executor")
	if !hasExec {
		if !hasHandler {
			return entryErr("tool_define: %s has no `handler` and no `executor`", q)
		}
		t.Executor = "harn"
	} else {
		s, _ := str(ev)
		switch s {
		case "harn", "harn_builtin":
			t.Executor = "harn"
		case "host_bridge", "mcp_server", "provider_native":
			t.Executor = s
		default:
			return entryErr("tool_define: unknown executor %q for %s", display(ev), q)
		}
	}
	switch t.Executor {
	case "harn":
		if !hasHandler {
			return entryErr("tool_define: %s declares executor: \"harn\" but has no `handler`", q)
		}
		if !vm.IsCallable(hv) {
			return entryErr("tool_define: %s field \"handler\" must be a function", q)
		}
		t.Handler = hv
	default:
		if hasHandler {
			return entryErr("tool_define: %s declares executor: %q but also has a `handler`", q, t.Executor)
		}
	}
	switch t.Executor {
	case "host_bridge":
		hc, ok := field(def, "host_capability")
		s, isStr := str(hc)
		if !ok || !isStr || s == "" {
			return entryErr("tool_define: %s declares executor: \"host_bridge\" but is missing `host_capability`", q)
		}
		t.HostCapability = s
	case "mcp_server":
		ms, ok := field(def, "mcp_server")
		s, isStr := str(ms)
		if !ok || !isStr || s == "" {
			return entryErr("tool_define: %s declares executor: \"mcp_server\" but is missing `mcp_server`", q)
		}
		t.MCPServer = s
	}
	return nil
}

// Project returns the registry restricted to one audience (entries keep
// their order; options are shared).
func (r *Registry) Project(a Audience) *Registry {
	out := &Registry{Value: r.Value, cache: r.cache, Catalog: &Catalog{
		SchemaVersion: r.Catalog.SchemaVersion,
		Info:          r.Catalog.Info,
		CLI:           r.Catalog.CLI,
		Components:    r.Catalog.Components,
		Tools:         []*Entry{},
	}}
	for _, t := range r.Tools {
		if t.Entry.Governance.Allows(a) {
			out.Tools = append(out.Tools, t)
			out.Catalog.Tools = append(out.Catalog.Tools, t.Entry)
		}
	}
	return out
}

// CatalogFor returns the catalog of one audience; harn tool schema emits
// CatalogFor(AudienceCatalog).
func (r *Registry) CatalogFor(a Audience) *Catalog { return r.Project(a).Catalog }

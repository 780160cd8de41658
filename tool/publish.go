package tool

import (
	"fmt"
	"sync"

	"github.com/harnlang/harn/vm"
)

// Publication is what one script run published for script-backed
// adapters (docs/spec/registry.md §7, docs/spec/mcp-projection.md §15): the registry plus
// the MCP resources, resource templates, prompts and server metadata.
// It lives per VM; the script loader clears it before each run.
type Publication struct {
	mu   sync.Mutex
	data Published
}

// Published is the content of a publication.
type Published struct {
	// Registry is the last published registry value (nil when none), and
	// Normalized its validated form.
	Registry   vm.Value
	Normalized *Registry
	Resources  []*Resource
	Templates  []*ResourceTemplate
	Prompts    []*Prompt
	// Server overrides the info-derived MCP server identity.
	Server *ServerMetadata
}

// Resource is a static MCP resource. Text holds its content, or, for a
// binary resource published with `blob` instead of `text`, Blob holds
// the base64 of its bytes.
type Resource struct {
	URI, Name, Text              string
	Title, Description, MimeType string
	Blob                         string
}

// ResourceTemplate is an RFC 6570 level-1 resource template whose
// handler receives the variables dict and returns the text.
type ResourceTemplate struct {
	URITemplate, Name            string
	Handler                      vm.Value
	Title, Description, MimeType string
}

// Prompt is an MCP prompt whose handler receives the arguments dict.
type Prompt struct {
	Name               string
	Handler            vm.Value
	Title, Description string
	Arguments          []PromptArgument
}

// PromptArgument is one declared prompt argument. Completions are the
// candidates completion/complete offers for it.
type PromptArgument struct {
	Name, Description string
	Required          bool
	Completions       []string
}

// ServerMetadata is mcp_server_metadata({name?, version?, instructions?}).
type ServerMetadata struct {
	Name, Version, Instructions string
}

type publicationKey struct{}

// PublicationFor returns the publication of a VM (created empty).
func PublicationFor(v *vm.VM) *Publication {
	return v.Local(publicationKey{}, func() any { return &Publication{} }).(*Publication)
}

// Reset forgets everything published so far.
func (p *Publication) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.data = Published{}
}

// Snapshot returns a copy of the current publication.
func (p *Publication) Snapshot() Published {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.data
	d.Resources = append([]*Resource(nil), d.Resources...)
	d.Templates = append([]*ResourceTemplate(nil), d.Templates...)
	d.Prompts = append([]*Prompt(nil), d.Prompts...)
	return d
}

// PublishRegistry validates and records a registry (mcp_tools); a later
// call replaces an earlier one.
func (p *Publication) PublishRegistry(v vm.Value, cache *Cache) error {
	if !IsRegistry(v) {
		const msg = "mcp_tools: argument must be a tool registry (created with tool_registry())"
		if name, ok := SingleDefinition(v); ok {
			return fmt.Errorf("%s, got the single tool definition %q; build one with tool_registry_from([def]) from \"std/tools\"", msg, name)
		}
		if _, ok := v.AsList(); ok {
			return fmt.Errorf("%s, got a list; build one with tool_registry_from(list) from \"std/tools\"", msg)
		}
		return fmt.Errorf("%s", msg)
	}
	reg, err := Normalize(v, cache)
	if err != nil {
		return fmt.Errorf("invalid MCP publication: %s", Message(err, ""))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.data.Registry, p.data.Normalized = v, reg
	return nil
}

func publishField(d *vm.Dict, builtin, key string, required bool) (string, error) {
	v, ok := field(d, key)
	if !ok {
		if required {
			return "", fmt.Errorf("%s: '%s' is required", builtin, key)
		}
		return "", nil
	}
	return display(v), nil
}

// publishArg is the dict argument of a publish builtin.
func publishArg(v vm.Value, builtin string) (*vm.Dict, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, fmt.Errorf("%s: argument must be a dict", builtin)
	}
	return d, nil
}

// publishedField is a string field of a publish builtin's dict: its key,
// where it goes and whether the dict must give it.
type publishedField struct {
	key      string
	dst      *string
	required bool
}

// publishFields reads fields from d in order with publishField, stopping
// at the first required one missing (an optional one never fails).
func publishFields(d *vm.Dict, builtin string, fields []publishedField) error {
	for _, f := range fields {
		var err error
		if *f.dst, err = publishField(d, builtin, f.key, f.required); err != nil {
			return err
		}
	}
	return nil
}

// publishHandler is the callable handler of d, required.
func publishHandler(d *vm.Dict, builtin string) (vm.Value, error) {
	h, ok := field(d, "handler")
	if !ok || !vm.IsCallable(h) {
		return vm.Value{}, fmt.Errorf("%s: 'handler' is required", builtin)
	}
	return h, nil
}

// PublishResource records mcp_resource({uri, name, text, title?,
// description?, mime_type?}); values are display-coerced. A binary
// resource gives `blob` (bytes, or a base64 string) instead of `text`.
func (p *Publication) PublishResource(v vm.Value) error {
	d, err := publishArg(v, "mcp_resource")
	if err != nil {
		return err
	}
	r := &Resource{}
	_, hasBlob := field(d, "blob")
	if hasBlob {
		b, _ := field(d, "blob")
		if r.Blob, err = blobField(b); err != nil {
			return err
		}
	}
	if err := publishFields(d, "mcp_resource", []publishedField{{"uri", &r.URI, true}, {"name", &r.Name, true}, {"text", &r.Text, !hasBlob}, {"title", &r.Title, false}, {"description", &r.Description, false}, {"mime_type", &r.MimeType, false}}); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.data.Resources = append(p.data.Resources, r)
	return nil
}

// PublishTemplate records mcp_resource_template({uri_template, name,
// handler, title?, description?, mime_type?}).
func (p *Publication) PublishTemplate(v vm.Value) error {
	d, err := publishArg(v, "mcp_resource_template")
	if err != nil {
		return err
	}
	t := &ResourceTemplate{}
	const builtin = "mcp_resource_template"
	if err := publishFields(d, builtin, []publishedField{{"uri_template", &t.URITemplate, true}, {"name", &t.Name, true}}); err != nil {
		return err
	}
	if t.Handler, err = publishHandler(d, builtin); err != nil {
		return err
	}
	_ = publishFields(d, builtin, []publishedField{{"title", &t.Title, false}, {"description", &t.Description, false}, {"mime_type", &t.MimeType, false}})
	p.mu.Lock()
	defer p.mu.Unlock()
	p.data.Templates = append(p.data.Templates, t)
	return nil
}

// PublishPrompt records mcp_prompt({name, handler, title?, description?,
// arguments?: [{name, description?, required?}]}).
func (p *Publication) PublishPrompt(v vm.Value) error {
	d, err := publishArg(v, "mcp_prompt")
	if err != nil {
		return err
	}
	pr := &Prompt{}
	if pr.Name, err = publishField(d, "mcp_prompt", "name", true); err != nil {
		return err
	}
	if pr.Handler, err = publishHandler(d, "mcp_prompt"); err != nil {
		return err
	}
	pr.Title, _ = publishField(d, "mcp_prompt", "title", false)
	pr.Description, _ = publishField(d, "mcp_prompt", "description", false)
	if av, ok := field(d, "arguments"); ok {
		l, isList := av.AsList()
		if !isList {
			return fmt.Errorf("mcp_prompt: 'arguments' must be a list")
		}
		for _, it := range l.Items() {
			ad, isDict := it.AsDict()
			if !isDict {
				return fmt.Errorf("mcp_prompt: each argument must be a dict")
			}
			a := PromptArgument{}
			if a.Name, err = publishField(ad, "mcp_prompt", "name", true); err != nil {
				return fmt.Errorf("mcp_prompt: argument 'name' is required")
			}
			a.Description, _ = publishField(ad, "mcp_prompt", "description", false)
			if rv, ok := field(ad, "required"); ok {
				a.Required = rv.Truth()
			}
			if cv, ok := field(ad, "completions"); ok {
				cl, isList := cv.AsList()
				if !isList {
					return fmt.Errorf("mcp_prompt: argument 'completions' must be a list")
				}
				for _, c := range cl.Items() {
					a.Completions = append(a.Completions, display(c))
				}
			}
			pr.Arguments = append(pr.Arguments, a)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.data.Prompts = append(p.data.Prompts, pr)
	return nil
}

// PublishServerMetadata records mcp_server_metadata({name?, version?,
// instructions?}).
func (p *Publication) PublishServerMetadata(v vm.Value) error {
	d, err := publishArg(v, "mcp_server_metadata")
	if err != nil {
		return err
	}
	m := &ServerMetadata{}
	for _, k := range d.Keys() {
		switch k {
		case "name", "version", "instructions":
		default:
			return fmt.Errorf("mcp_server_metadata: unknown key %q", k)
		}
	}
	m.Name, _ = publishField(d, "mcp_server_metadata", "name", false)
	m.Version, _ = publishField(d, "mcp_server_metadata", "version", false)
	m.Instructions, _ = publishField(d, "mcp_server_metadata", "instructions", false)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.data.Server = m
	return nil
}

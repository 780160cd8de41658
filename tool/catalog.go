package tool

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/harnlang/harn/internal/jsonv"
)

// CatalogVersion is the schema_version of the only catalog format this
// package writes and reads.
const CatalogVersion = "harn-tools/2.0"

// The catalog types below are the single owner of the harn-tools/2.0
// contract: the JSON they marshal to is the catalog (field order, names
// and omission rules of docs/spec/registry.md §8), and the generator under
// internal/gen derives the published JSON Schema and TypeScript files
// from them. Optional members use pointers or the `omitzero`/`omitempty`
// options; members that are always present use value types. Records are
// closed (Unmarshal rejects unknown fields); JSON Schema documents and the
// open records `source.binding` and `_meta` keep their own key order.

// Catalog is a harn-tools/2.0 document.
type Catalog struct {
	SchemaVersion string       `json:"schema_version" harn:"version"`
	Info          *Info        `json:"info,omitempty"`
	CLI           *CLITreeSpec `json:"cli,omitempty"`
	Tools         []*Entry     `json:"tools"`
	Components    *Components  `json:"components,omitempty"`
}

// Info is registry-level identity: defaults for the MCP server identity
// and the generated CLI's name, version and about text.
type Info struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
}

// CLITreeSpec carries metadata for parent commands of the generated CLI.
type CLITreeSpec struct {
	Commands []*CLICommandSpec `json:"commands"`
}

// CLICommandSpec describes one parent command (never a leaf).
type CLICommandSpec struct {
	Command      []string `json:"command"`
	Title        *string  `json:"title,omitempty"`
	Description  *string  `json:"description,omitempty"`
	Aliases      []string `json:"aliases"`
	Hidden       bool     `json:"hidden"`
	DisplayOrder *int64   `json:"display_order,omitempty" harn:"min0"`
}

// Components holds the catalog's named reusable schemas.
type Components struct {
	Schemas *SchemaMap `json:"schemas"`
}

// Entry is one tool of the catalog.
type Entry struct {
	Name         string        `json:"name"`
	Title        string        `json:"title,omitempty"`
	Description  string        `json:"description,omitempty"`
	InputSchema  Schema        `json:"inputSchema"`
	OutputSchema Schema        `json:"outputSchema,omitzero"`
	ErrorSchema  Schema        `json:"errorSchema,omitzero"`
	Annotations  *Annotations  `json:"annotations,omitempty"`
	Icons        []*Icon       `json:"icons,omitempty"`
	Execution    *Execution    `json:"execution,omitempty"`
	Governance   Governance    `json:"governance"`
	CLI          CLISpec       `json:"cli"`
	Namespace    string        `json:"namespace,omitempty"`
	DeferLoading bool          `json:"deferLoading"`
	Source       *Source       `json:"source,omitempty"`
	Policy       *Policy       `json:"policy,omitempty"`
	Meta         *jsonv.Object `json:"_meta,omitempty"`
}

// Annotations are the MCP presentation hints the catalog keeps.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Empty reports whether no presentation key is set.
func (a *Annotations) Empty() bool {
	return a == nil || (a.Title == "" && a.ReadOnlyHint == nil && a.DestructiveHint == nil && a.IdempotentHint == nil && a.OpenWorldHint == nil)
}

// Icon is one MCP icon.
type Icon struct {
	Src      string    `json:"src"`
	MimeType string    `json:"mimeType,omitempty"`
	Sizes    []string  `json:"sizes,omitempty"`
	Theme    IconTheme `json:"theme,omitempty"`
}

// Execution is MCP task support.
type Execution struct {
	TaskSupport TaskSupport `json:"taskSupport"`
}

// Governance is the closed adapter exposure contract of a tool.
type Governance struct {
	Audiences []Audience `json:"audiences"`
}

// Allows reports whether the tool is exposed to audience a.
func (g Governance) Allows(a Audience) bool {
	for _, x := range g.Audiences {
		if x == a {
			return true
		}
	}
	return false
}

// CLISpec is a leaf tool's command-line presentation.
type CLISpec struct {
	Command   []string                `json:"command"`
	Aliases   []string                `json:"aliases"`
	Hidden    bool                    `json:"hidden"`
	Arguments map[string]*CLIArgument `json:"arguments"`
}

// CLIArgument is the presentation of one input property on the CLI.
type CLIArgument struct {
	Long         *string      `json:"long,omitempty"`
	Short        *string      `json:"short,omitempty"`
	Aliases      []string     `json:"aliases"`
	Position     *int64       `json:"position,omitempty" harn:"min0"`
	ValueName    *string      `json:"value_name,omitempty"`
	Help         *string      `json:"help,omitempty"`
	ValueHint    ValueHint    `json:"value_hint,omitempty"`
	BooleanStyle BooleanStyle `json:"boolean_style"`
	Repeatable   bool         `json:"repeatable"`
	Hidden       bool         `json:"hidden"`
	Completions  []string     `json:"completions"`
	DisplayOrder *int64       `json:"display_order,omitempty" harn:"min0"`
	HelpGroup    *string      `json:"help_group,omitempty"`
}

// Source is a tool's typed origin coordinates.
type Source struct {
	Kind    string        `json:"kind"`
	ID      string        `json:"id,omitempty"`
	Binding *jsonv.Object `json:"binding,omitempty"`
}

// Policy is Harn's typed execution classification.
type Policy struct {
	Kind            PolicyKind      `json:"kind"`
	SideEffectLevel SideEffectLevel `json:"side_effect_level"`
}

// ---- closed string enums ----

// Audience names an adapter a tool may be exposed to.
type Audience string

// The five audiences, in canonical order.
const (
	AudienceCLI       Audience = "cli"
	AudienceMCP       Audience = "mcp"
	AudienceCatalog   Audience = "catalog"
	AudienceDashboard Audience = "dashboard"
	AudienceAgent     Audience = "agent"
)

// Audiences lists every audience in canonical order.
var Audiences = []Audience{AudienceCLI, AudienceMCP, AudienceCatalog, AudienceDashboard, AudienceAgent}

// Values lists the allowed literals (read by the artifact generator).
func (Audience) Values() []string { return []string{"cli", "mcp", "catalog", "dashboard", "agent"} }

func audienceRank(a Audience) int {
	for i, x := range Audiences {
		if x == a {
			return i
		}
	}
	return -1
}

// TaskSupport is MCP task support.
type TaskSupport string

// Values lists the allowed literals.
func (TaskSupport) Values() []string { return []string{"forbidden", "optional", "required"} }

// IconTheme is an icon's intended background.
type IconTheme string

// Values lists the allowed literals.
func (IconTheme) Values() []string { return []string{"light", "dark"} }

// BooleanStyle is how a boolean property is spelled on the CLI.
type BooleanStyle string

// Boolean styles.
const (
	BooleanValue    BooleanStyle = "value"
	BooleanSetTrue  BooleanStyle = "set_true"
	BooleanSetFalse BooleanStyle = "set_false"
)

// Values lists the allowed literals.
func (BooleanStyle) Values() []string { return []string{"value", "set_true", "set_false"} }

// ValueHint is a shell completion hint.
type ValueHint string

// Values lists the allowed literals.
func (ValueHint) Values() []string {
	return []string{"file", "directory", "path", "url", "email", "username", "hostname", "command", "other"}
}

// PolicyKind classifies what a tool does.
type PolicyKind string

// Values lists the allowed literals.
func (PolicyKind) Values() []string {
	return []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"}
}

// SideEffectLevel classifies a tool's reach.
type SideEffectLevel string

// Values lists the allowed literals.
func (SideEffectLevel) Values() []string {
	return []string{"none", "read_only", "workspace_write", "process_exec", "network", "desktop_control"}
}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if a == v {
			return true
		}
	}
	return false
}

// ---- embedded JSON Schema documents ----

// Schema is an embedded Draft 2020-12 document: a bool or an ordered
// object. The zero value means "absent".
type Schema struct {
	doc any // bool or *jsonv.Object
}

// NewSchema wraps a document (a bool or *jsonv.Object).
func NewSchema(doc any) Schema { return Schema{doc: doc} }

// IsZero reports an absent schema.
func (s Schema) IsZero() bool { return s.doc == nil }

// Doc returns the document: a bool, a *jsonv.Object, or nil when absent.
func (s Schema) Doc() any { return s.doc }

// Object returns the document when it is an object.
func (s Schema) Object() (*jsonv.Object, bool) {
	o, ok := s.doc.(*jsonv.Object)
	return o, ok
}

// MarshalJSON writes the document with its own key order.
func (s Schema) MarshalJSON() ([]byte, error) {
	if s.doc == nil {
		return []byte("null"), nil
	}
	return jsonv.Marshal(s.doc), nil
}

// UnmarshalJSON reads a bool or object document.
func (s *Schema) UnmarshalJSON(b []byte) error {
	v, err := jsonv.Parse(b)
	if err != nil {
		return err
	}
	switch v.(type) {
	case bool, *jsonv.Object:
		s.doc = v
		return nil
	}
	return fmt.Errorf("must be a boolean or object JSON Schema")
}

// SchemaMap is an ordered map of named schemas (components.schemas).
type SchemaMap struct {
	obj *jsonv.Object
}

// NewSchemaMap wraps an ordered object whose values are bool or object
// schemas.
func NewSchemaMap(o *jsonv.Object) *SchemaMap {
	if o == nil {
		o = jsonv.NewObject(0)
	}
	return &SchemaMap{obj: o}
}

// Object returns the map as an ordered object.
func (m *SchemaMap) Object() *jsonv.Object {
	if m == nil {
		return nil
	}
	return m.obj
}

// Len is the number of components.
func (m *SchemaMap) Len() int { return m.Object().Len() }

// Get returns the named component.
func (m *SchemaMap) Get(name string) (Schema, bool) {
	v, ok := m.Object().Get(name)
	if !ok {
		return Schema{}, false
	}
	return Schema{doc: v}, true
}

// Names lists the component names in order.
func (m *SchemaMap) Names() []string { return m.Object().Keys() }

// MarshalJSON writes the components in order.
func (m *SchemaMap) MarshalJSON() ([]byte, error) { return jsonv.Marshal(m.Object()), nil }

// UnmarshalJSON reads an object of named schemas.
func (m *SchemaMap) UnmarshalJSON(b []byte) error {
	v, err := jsonv.Parse(b)
	if err != nil {
		return err
	}
	o, ok := v.(*jsonv.Object)
	if !ok {
		return fmt.Errorf("components.schemas must be an object of named JSON Schemas")
	}
	for _, k := range o.Keys() {
		x, _ := o.Get(k)
		switch x.(type) {
		case bool, *jsonv.Object:
		default:
			return fmt.Errorf("components.schemas.%s must be a boolean or object JSON Schema", k)
		}
	}
	m.obj = o
	return nil
}

// ---- encoding ----

// Marshal encodes the catalog compactly (one line, no trailing newline).
func (c *Catalog) Marshal() []byte {
	c.fillDefaults()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		panic(err) // the catalog types always marshal
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// fillDefaults makes every always-present list and map non-nil, so that
// a hand-built catalog marshals `[]`/`{}` rather than null.
func (c *Catalog) fillDefaults() {
	if c.SchemaVersion == "" {
		c.SchemaVersion = CatalogVersion
	}
	if c.Tools == nil {
		c.Tools = []*Entry{}
	}
	if c.CLI != nil {
		if c.CLI.Commands == nil {
			c.CLI.Commands = []*CLICommandSpec{}
		}
		for _, cmd := range c.CLI.Commands {
			cmd.Command = nonNil(cmd.Command)
			cmd.Aliases = nonNil(cmd.Aliases)
		}
	}
	if c.Components != nil && c.Components.Schemas == nil {
		c.Components.Schemas = NewSchemaMap(nil)
	}
	for _, e := range c.Tools {
		if e.InputSchema.IsZero() {
			e.InputSchema = NewSchema(emptyObjectSchema())
		}
		if e.Governance.Audiences == nil {
			e.Governance.Audiences = []Audience{}
		}
		e.CLI.Command = nonNil(e.CLI.Command)
		e.CLI.Aliases = nonNil(e.CLI.Aliases)
		if e.CLI.Arguments == nil {
			e.CLI.Arguments = map[string]*CLIArgument{}
		}
		for _, a := range e.CLI.Arguments {
			a.Aliases = nonNil(a.Aliases)
			a.Completions = nonNil(a.Completions)
			if a.BooleanStyle == "" {
				a.BooleanStyle = BooleanValue
			}
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func emptyObjectSchema() *jsonv.Object {
	o := jsonv.NewObject(2)
	o.Set("type", "object")
	o.Set("properties", jsonv.NewObject(0))
	return o
}

// MarshalIndent encodes the catalog with 2-space indentation.
func (c *Catalog) MarshalIndent() []byte {
	v, err := jsonv.Parse(c.Marshal())
	if err != nil {
		panic(err)
	}
	return jsonv.MarshalIndent(v)
}

// deref reads an optional string ("" when absent).
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func strPtr(s string) *string { return &s }

package sdkgen

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/internal/schema"
)

// Kind is the kind of a type expression.
type Kind int

// The type kinds every emitter renders.
const (
	Any     Kind = iota // any JSON value
	Never               // the false schema: no value
	String              //
	Integer             //
	Number              //
	Boolean             //
	Null                //
	Array               // Elem
	Tuple               // Items, positional
	Map                 // an object keyed by string, values Elem
	Ref                 // a named Decl
	Literal             // one of Values (const / enum that is not hoisted)
	Union               // one of Options
)

// Type is a type expression. Nullable adds null to the values (an
// anyOf with a null branch, a "type" list with "null").
type Type struct {
	Kind     Kind
	Elem     *Type
	Items    []*Type
	Decl     *Decl
	Values   []any // strings, json.Number, bools
	Options  []*Type
	Nullable bool
}

func (t *Type) nullable() *Type {
	c := *t
	c.Nullable = true
	return &c
}

// DeclKind is the kind of a named type.
type DeclKind int

// The named type kinds.
const (
	ObjectDecl   DeclKind = iota // Fields (+ Extra for an additionalProperties schema)
	EnumDecl                     // Values of one JSON type (EnumBase)
	VariantsDecl                 // a Harn enum: Cases
	AliasDecl                    // Alias
)

// Decl is a named type. Names are PascalCase and unique across the
// model (and against the runtime's own names), so each language uses
// them unchanged.
type Decl struct {
	Name     string
	Kind     DeclKind
	Doc      string
	Fields   []*Field
	Extra    *Type // additionalProperties schema of an object with properties
	Closed   bool  // additionalProperties: false
	Values   []any
	EnumBase Kind   // String, Integer or Number
	HarnEnum string // VariantsDecl: the Harn enum's name
	Cases    []*Case
	Alias    *Type
}

// Field is one property of an object type.
type Field struct {
	JSON       string
	Type       *Type
	Required   bool
	Doc        string
	Default    any
	HasDefault bool
}

// Case is one variant of a Harn enum; Name is its own type's name.
type Case struct {
	Variant string
	Name    string
	Fields  []*CaseField
}

// CaseField is one positional payload field of a variant.
type CaseField struct {
	Label string
	Type  *Type
}

// Tool is one callable tool.
type Tool struct {
	Name        string // the MCP tool name
	Ident       string // PascalCase identifier, unique among the tools
	Title       string
	Description string
	CLI         []string
	CLIAliases  []string
	Annotations *tool.Annotations
	Policy      *tool.Policy
	TaskSupport string
	Input       *Decl
	Output      *Type // nil: no output schema (the call returns text)
	Wrapped     bool  // the released MCP profile wraps the output as {"result": …}
	Error       *Type // nil: no declared application error
	ErrorClass  string
	// InputSchema is the standalone input schema (components bundled
	// into $defs) the client validates arguments against, as compact
	// JSON.
	InputSchema string
}

// Model is a catalog read for generation.
type Model struct {
	Name        string // info.name, else "tools"
	Version     string
	Description string
	Decls       []*Decl
	Tools       []*Tool
}

// runtimeNames are the names the runtimes of every language define or
// import next to the generated types; a schema name that meets one is
// renamed with a "Type" suffix.
var runtimeNames = map[string]bool{
	"Client": true, "ToolError": true, "ApplicationError": true, "ValidationError": true,
	"Options": true, "ConnectOptions": true, "StdioOptions": true, "HTTPOptions": true,
	"Any": true, "Literal": true, "TypedDict": true, "NotRequired": true, "TypeAlias": true,
	"Error": true, "Object": true, "String": true, "Number": true, "Boolean": true,
	"Array": true, "Promise": true, "Record": true, "Map": true, "Set": true, "Date": true,
	"JSON": true, "Symbol": true, "Function": true, "Runtime": true, "ToolSpec": true,
	"Context": true, "ClientSession": true, "Exception": true, "Cast": true,
	"Never": true, "Sequence": true, "AsyncIterator": true, "Mapping": true,
}

// Build reads the MCP-audience tools of a prepared catalog into a
// Model: only those tools can be called through `harn serve mcp`.
func Build(p *tool.Prepared) (*Model, error) {
	cat := p.Catalog()
	m := &Model{Name: "tools"}
	if cat.Info != nil {
		m.Name, m.Version, m.Description = cat.Info.Name, cat.Info.Version, cat.Info.Description
	}
	b := &builder{names: map[string]bool{}, comps: map[string]*Decl{}}
	for n := range runtimeNames {
		b.names[n] = true
	}
	var comps *tool.SchemaMap
	if cat.Components != nil {
		comps = cat.Components.Schemas
	}
	// Components keep their names: reserve them all before any body is
	// read, so a hoisted inline type never takes one.
	for _, name := range comps.Names() {
		d := b.newDecl(pascal(name))
		b.comps[name] = d
	}
	for _, name := range comps.Names() {
		s, _ := comps.Get(name)
		b.fill(b.comps[name], s.Doc())
	}
	idents := map[string]bool{}
	for _, pt := range p.Tools(tool.AudienceMCP) {
		e := pt.Entry()
		t := &Tool{
			Name: e.Name, Title: e.Title, Description: e.Description,
			CLI: e.CLI.Command, CLIAliases: e.CLI.Aliases,
			Annotations: e.Annotations, Policy: e.Policy,
			InputSchema: string(jsonv.Marshal(pt.MCPInput)),
		}
		if e.Execution != nil {
			t.TaskSupport = string(e.Execution.TaskSupport)
		}
		t.Ident = uniqueIdent(pascal(e.Name), e.CLI.Command, idents)
		t.Input = b.newDecl(t.Ident + "Input")
		in, _ := e.InputSchema.Object()
		b.fillObject(t.Input, in)
		if !e.OutputSchema.IsZero() {
			t.Output = b.conv(e.OutputSchema.Doc(), t.Ident+"Output")
			t.Wrapped = !pt.OutputIsObject
		}
		if !e.ErrorSchema.IsZero() {
			t.ErrorClass = b.unique(t.Ident + "ApplicationError")
			t.Error = b.conv(e.ErrorSchema.Doc(), t.Ident+"Error")
		}
		m.Tools = append(m.Tools, t)
	}
	m.Decls = b.decls
	return m, nil
}

// uniqueIdent is a tool's identifier: its name in PascalCase, else
// (when two names spell the same) prefixed by its CLI path, else
// numbered.
func uniqueIdent(base string, cli []string, taken map[string]bool) string {
	cands := []string{base}
	if len(cli) > 0 {
		cands = append(cands, pascal(strings.Join(cli, "_")))
	}
	for _, c := range cands {
		if !taken[c] {
			taken[c] = true
			return c
		}
	}
	for i := 2; ; i++ {
		c := base + strconv.Itoa(i)
		if !taken[c] {
			taken[c] = true
			return c
		}
	}
}

type builder struct {
	names map[string]bool
	comps map[string]*Decl
	decls []*Decl
}

func (b *builder) unique(name string) string {
	if runtimeNames[name] {
		name += "Type"
	}
	if !b.names[name] {
		b.names[name] = true
		return name
	}
	for i := 2; ; i++ {
		c := name + strconv.Itoa(i)
		if !b.names[c] {
			b.names[c] = true
			return c
		}
	}
}

func (b *builder) newDecl(hint string) *Decl {
	d := &Decl{Name: b.unique(hint)}
	b.decls = append(b.decls, d)
	return d
}

// fill reads a schema into a named type.
func (b *builder) fill(d *Decl, s any) {
	o, _ := s.(*jsonv.Object)
	switch {
	case harnEnum(o) != "":
		b.fillVariants(d, o)
	case hasProperties(o):
		b.fillObject(d, o)
	case literalEnum(o) != Any:
		d.Kind, d.Doc, d.EnumBase = EnumDecl, docOf(o), literalEnum(o)
		d.Values = enumValues(o)
	default:
		d.Kind, d.Doc = AliasDecl, docOf(o)
		d.Alias = b.conv(s, d.Name+"Value")
	}
}

func (b *builder) fillObject(d *Decl, o *jsonv.Object) {
	d.Kind, d.Doc = ObjectDecl, docOf(o)
	required := map[string]bool{}
	if r, ok := o.Get("required"); ok {
		if arr, ok := r.([]any); ok {
			for _, x := range arr {
				if s, ok := x.(string); ok {
					required[s] = true
				}
			}
		}
	}
	props, _ := jsonv.Member[*jsonv.Object](o, "properties")
	props.Range(func(k string, v any) bool {
		f := &Field{JSON: k, Required: required[k], Type: b.conv(v, d.Name+pascal(k))}
		if po, ok := v.(*jsonv.Object); ok {
			f.Doc = docOf(po)
			f.Default, f.HasDefault = po.Get("default")
		}
		d.Fields = append(d.Fields, f)
		return true
	})
	switch ap, _ := o.Get("additionalProperties"); x := ap.(type) {
	case bool:
		d.Closed = !x
	case *jsonv.Object:
		d.Extra = b.conv(x, d.Name+"Value")
	}
}

func (b *builder) fillVariants(d *Decl, o *jsonv.Object) {
	d.Kind, d.Doc, d.HarnEnum = VariantsDecl, docOf(o), harnEnum(o)
	branches, _ := jsonv.Member[[]any](o, "oneOf")
	for _, br := range branches {
		props, _ := jsonv.Member[*jsonv.Object](br.(*jsonv.Object), "properties")
		v, _ := jsonv.Member[*jsonv.Object](props, "variant")
		name, _ := jsonv.Member[string](v, "const")
		c := &Case{Variant: name, Name: b.unique(d.Name + pascal(name))}
		fields, _ := jsonv.Member[*jsonv.Object](props, "fields")
		items, _ := jsonv.Member[[]any](fields, "prefixItems")
		for i, it := range items {
			label := fmt.Sprintf("field%d", i)
			if io, ok := it.(*jsonv.Object); ok {
				if t, ok := jsonv.Member[string](io, "title"); ok && t != "" {
					label = t
				}
			}
			c.Fields = append(c.Fields, &CaseField{Label: label, Type: b.conv(it, c.Name+pascal(label))})
		}
		d.Cases = append(d.Cases, c)
	}
}

func (b *builder) hoist(hint string, o *jsonv.Object) *Type {
	d := b.newDecl(hint)
	b.fill(d, o)
	return &Type{Kind: Ref, Decl: d}
}

// conv reads a schema into a type expression; hint names the objects
// and enums it hoists.
func (b *builder) conv(s any, hint string) *Type {
	o, ok := s.(*jsonv.Object)
	if !ok {
		if s == false {
			return &Type{Kind: Never}
		}
		return &Type{Kind: Any}
	}
	if r, ok := jsonv.Member[string](o, "$ref"); ok {
		if name, rest, ok := schema.ComponentRef(r); ok && rest == "" {
			if d := b.comps[name]; d != nil {
				return &Type{Kind: Ref, Decl: d}
			}
		}
		return &Type{Kind: Any}
	}
	if c, ok := o.Get("const"); ok {
		if c == nil {
			return &Type{Kind: Null}
		}
		return &Type{Kind: Literal, Values: []any{c}}
	}
	if harnEnum(o) != "" || hasProperties(o) || literalEnum(o) != Any {
		t := b.hoist(hint, o)
		if e, ok := jsonv.Member[[]any](o, "enum"); ok && hasNull(e) {
			t = t.nullable()
		}
		return t
	}
	if e, ok := jsonv.Member[[]any](o, "enum"); ok {
		var vals []any
		for _, v := range e {
			if v != nil {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			return &Type{Kind: Null}
		}
		if !scalars(vals) {
			return &Type{Kind: Any, Nullable: hasNull(e)}
		}
		return &Type{Kind: Literal, Values: vals, Nullable: hasNull(e)}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if branches, ok := jsonv.Member[[]any](o, kw); ok && len(branches) > 0 {
			return b.union(branches, hint)
		}
	}
	if all, ok := jsonv.Member[[]any](o, "allOf"); ok && len(all) == 1 {
		return b.conv(all[0], hint)
	}
	switch t, _ := o.Get("type"); x := t.(type) {
	case string:
		return b.typed(x, o, hint)
	case []any:
		var branches []*Type
		nullable := false
		for _, n := range x {
			name, _ := n.(string)
			if name == "null" {
				nullable = true
				continue
			}
			branches = append(branches, b.typed(name, o, hint))
		}
		return joinOptions(branches, nullable)
	}
	if o.Has("items") || o.Has("prefixItems") {
		return b.typed("array", o, hint)
	}
	return &Type{Kind: Any}
}

func (b *builder) typed(name string, o *jsonv.Object, hint string) *Type {
	switch name {
	case "string":
		return &Type{Kind: String}
	case "integer":
		return &Type{Kind: Integer}
	case "number":
		return &Type{Kind: Number}
	case "boolean":
		return &Type{Kind: Boolean}
	case "null":
		return &Type{Kind: Null}
	case "array":
		if items, ok := jsonv.Member[[]any](o, "prefixItems"); ok && o.Has("items") {
			if more, _ := o.Get("items"); more == false {
				t := &Type{Kind: Tuple}
				for i, it := range items {
					t.Items = append(t.Items, b.conv(it, hint+"Item"+strconv.Itoa(i+1)))
				}
				return t
			}
		}
		if items, ok := o.Get("items"); ok {
			return &Type{Kind: Array, Elem: b.conv(items, hint+"Item")}
		}
		return &Type{Kind: Array, Elem: &Type{Kind: Any}}
	case "object":
		elem := &Type{Kind: Any}
		if ap, ok := o.Get("additionalProperties"); ok {
			elem = b.conv(ap, hint+"Value")
		}
		return &Type{Kind: Map, Elem: elem}
	}
	return &Type{Kind: Any}
}

func (b *builder) union(branches []any, hint string) *Type {
	nonNull := 0
	for _, br := range branches {
		if !isNullSchema(br) {
			nonNull++
		}
	}
	var opts []*Type
	nullable := false
	i := 0
	for _, br := range branches {
		if isNullSchema(br) {
			nullable = true
			continue
		}
		i++
		h := hint
		if nonNull > 1 {
			h = hint + strconv.Itoa(i)
		}
		t := b.conv(br, h)
		if t.Nullable {
			nullable = true
			t = &Type{Kind: t.Kind, Elem: t.Elem, Items: t.Items, Decl: t.Decl, Values: t.Values, Options: t.Options}
		}
		opts = append(opts, t)
	}
	return joinOptions(opts, nullable)
}

func joinOptions(opts []*Type, nullable bool) *Type {
	switch len(opts) {
	case 0:
		return &Type{Kind: Null}
	case 1:
		if nullable {
			return opts[0].nullable()
		}
		return opts[0]
	}
	for _, o := range opts {
		if o.Kind == Any {
			return &Type{Kind: Any}
		}
	}
	return &Type{Kind: Union, Options: opts, Nullable: nullable}
}

// ---- schema predicates ----

func hasProperties(o *jsonv.Object) bool {
	p, ok := jsonv.Member[*jsonv.Object](o, "properties")
	if !ok || p.Len() == 0 {
		return false
	}
	t, has := o.Get("type")
	return !has || t == "object"
}

func isNullSchema(s any) bool {
	o, ok := s.(*jsonv.Object)
	if !ok {
		return false
	}
	if t, ok := o.Get("type"); ok && t == "null" {
		return true
	}
	c, ok := o.Get("const")
	return ok && c == nil
}

// literalEnum is the JSON type (String or Integer) of an enum that
// becomes a named type: every value of that one type, null aside.
func literalEnum(o *jsonv.Object) Kind {
	e, ok := jsonv.Member[[]any](o, "enum")
	if !ok {
		return Any
	}
	kind, n := Any, 0
	for _, v := range e {
		var k Kind
		switch x := v.(type) {
		case nil:
			continue
		case string:
			k = String
		case json.Number:
			if _, err := strconv.ParseInt(string(x), 10, 64); err != nil {
				return Any
			}
			k = Integer
		default:
			return Any
		}
		if n > 0 && k != kind {
			return Any
		}
		kind, n = k, n+1
	}
	if n == 0 {
		return Any
	}
	return kind
}

func enumValues(o *jsonv.Object) []any {
	e, _ := jsonv.Member[[]any](o, "enum")
	var out []any
	for _, v := range e {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

func hasNull(vals []any) bool {
	for _, v := range vals {
		if v == nil {
			return true
		}
	}
	return false
}

func scalars(vals []any) bool {
	for _, v := range vals {
		switch v.(type) {
		case string, json.Number, bool:
		default:
			return false
		}
	}
	return true
}

// harnEnum returns the enum name when o is the schema of a Harn enum
// (docs/spec/registry.md §8.4): a oneOf whose every branch is an object with
// constant "enum" (the same name), constant "variant" and a "fields"
// array.
func harnEnum(o *jsonv.Object) string {
	branches, ok := jsonv.Member[[]any](o, "oneOf")
	if !ok || len(branches) == 0 {
		return ""
	}
	name := ""
	for _, br := range branches {
		bo, ok := br.(*jsonv.Object)
		if !ok {
			return ""
		}
		props, ok := jsonv.Member[*jsonv.Object](bo, "properties")
		if !ok {
			return ""
		}
		e, _ := jsonv.Member[*jsonv.Object](props, "enum")
		v, _ := jsonv.Member[*jsonv.Object](props, "variant")
		f, _ := jsonv.Member[*jsonv.Object](props, "fields")
		en, ok1 := jsonv.Member[string](e, "const")
		_, ok2 := jsonv.Member[string](v, "const")
		if !ok1 || !ok2 || f == nil || (name != "" && en != name) {
			return ""
		}
		name = en
	}
	return name
}

func docOf(o *jsonv.Object) string {
	title, _ := jsonv.Member[string](o, "title")
	desc, _ := jsonv.Member[string](o, "description")
	switch {
	case title != "" && desc != "" && !strings.HasPrefix(desc, title):
		return title + "\n\n" + desc
	case desc != "":
		return desc
	}
	return title
}

// ---- names ----

// words splits a name into its alphanumeric words.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// pascal spells a name as an exported identifier: words joined, each
// starting with a capital; a leading digit gets a "T" before it.
func pascal(s string) string {
	var sb strings.Builder
	for _, w := range words(s) {
		sb.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	out := sb.String()
	if out == "" {
		return "T"
	}
	if out[0] >= '0' && out[0] <= '9' {
		out = "T" + out
	}
	return out
}

// camel is pascal with a lower-case first letter (the whole leading
// run of capitals, for names such as "URL").
func camel(s string) string {
	p := pascal(s)
	i := 0
	for i < len(p) && p[i] >= 'A' && p[i] <= 'Z' {
		i++
	}
	switch {
	case i == 0:
		return p
	case i == 1 || i == len(p):
		return strings.ToLower(p[:i]) + p[i:]
	}
	return strings.ToLower(p[:i-1]) + p[i-1:]
}

// snake spells a name in lower_snake_case, splitting camelCase words.
func snake(s string) string {
	var parts []string
	for _, w := range words(s) {
		start := 0
		for i := 1; i < len(w); i++ {
			lowerBefore := w[i-1] >= 'a' && w[i-1] <= 'z' || w[i-1] >= '0' && w[i-1] <= '9'
			if w[i] >= 'A' && w[i] <= 'Z' && lowerBefore {
				parts = append(parts, w[start:i])
				start = i
			}
		}
		parts = append(parts, w[start:])
	}
	out := strings.ToLower(strings.Join(parts, "_"))
	if out == "" {
		return "t"
	}
	if out[0] >= '0' && out[0] <= '9' {
		out = "t_" + out
	}
	return out
}

// argsOptional reports whether a call may omit the argument object: the
// input has no required property.
func (t *Tool) argsOptional() bool {
	for _, f := range t.Input.Fields {
		if f.Required {
			return false
		}
	}
	return true
}

// docLines is a tool's documentation, the same in every language:
// title, description, then one line each for its MCP name, annotations,
// policy and CLI path.
func (t *Tool) docLines() []string {
	var out []string
	para := func(s string) {
		if s == "" {
			return
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, strings.Split(strings.TrimRight(s, "\n"), "\n")...)
	}
	if t.Title != "" && !strings.HasPrefix(t.Description, t.Title) {
		para(t.Title)
	}
	para(t.Description)
	facts := []string{"MCP tool: " + t.Name + "."}
	if a := t.Annotations; !a.Empty() {
		var hints []string
		if a.Title != "" {
			hints = append(hints, "title="+strconv.Quote(a.Title))
		}
		for _, h := range []struct {
			name string
			v    *bool
		}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}} {
			if h.v != nil {
				hints = append(hints, fmt.Sprintf("%s=%t", h.name, *h.v))
			}
		}
		facts = append(facts, "Annotations: "+strings.Join(hints, ", ")+".")
	}
	if t.Policy != nil {
		facts = append(facts, fmt.Sprintf("Policy: kind=%s, side_effect_level=%s.", t.Policy.Kind, t.Policy.SideEffectLevel))
	}
	if t.TaskSupport != "" {
		facts = append(facts, "Task support: "+t.TaskSupport+".")
	}
	if len(t.CLI) > 0 {
		cli := "CLI: " + strings.Join(t.CLI, " ")
		if len(t.CLIAliases) > 0 {
			cli += " (aliases: " + strings.Join(t.CLIAliases, ", ") + ")"
		}
		facts = append(facts, cli+".")
	}
	para(strings.Join(facts, "\n"))
	return out
}

// fieldDoc is a field's documentation: its schema's text, then its
// default.
func fieldDoc(f *Field) []string {
	var out []string
	if f.Doc != "" {
		out = strings.Split(f.Doc, "\n")
	}
	if f.HasDefault {
		out = append(out, "Default: "+string(jsonv.Marshal(f.Default))+".")
	}
	return out
}

// toolDecls names the declarations the tools' inputs, outputs and errors
// use, each once, in the order they are first used: what a client
// imports from its types.
func toolDecls(m *Model) []string {
	var used []string
	seen := map[string]bool{}
	note := func(d *Decl) {
		if !seen[d.Name] {
			seen[d.Name] = true
			used = append(used, d.Name)
		}
	}
	for _, t := range m.Tools {
		note(t.Input)
		t.Output.refs(note)
		t.Error.refs(note)
	}
	return used
}

// refs calls fn for every declaration a type mentions directly.
func (t *Type) refs(fn func(*Decl)) {
	if t == nil {
		return
	}
	if t.Kind == Ref {
		fn(t.Decl)
	}
	t.Elem.refs(fn)
	for _, x := range t.Items {
		x.refs(fn)
	}
	for _, x := range t.Options {
		x.refs(fn)
	}
}

// methodNames names each tool's client method: its identifier in the
// language's case, with suffix appended while the name is reserved or
// already taken by an earlier tool.
func methodNames(m *Model, inCase func(string) string, reserved func(string) bool, suffix string) []string {
	out := make([]string, len(m.Tools))
	taken := map[string]bool{}
	for i, t := range m.Tools {
		n := inCase(t.Ident)
		for reserved(n) || taken[n] {
			n += suffix
		}
		taken[n] = true
		out[i] = n
	}
	return out
}

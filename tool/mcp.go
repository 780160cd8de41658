package tool

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool/internal/schema"
	"github.com/harnlang/harn/vm"
)

// MCPProfile selects the structured-output rule of docs/spec/mcp-projection.md §5.
type MCPProfile int

const (
	// MCPReleased is every initialize-negotiated protocol version
	// (2025-06-18, 2025-11-25, …): non-object outputs are wrapped.
	MCPReleased MCPProfile = iota
	// MCP20260728 is the per-request-metadata protocol: outputs are never
	// wrapped.
	MCP20260728
)

// bundler caches what does not depend on the bundled schema: each
// component's safety verdict, its reference closure and its rewritten
// copy (shared, immutable, by every tool document).
type bundler struct {
	comps     *SchemaMap
	rewritten map[string]any
	safe      map[string]error
	refs      map[string][]string
	// defs caches the $defs object built for one closure (keyed by the
	// direct references that produced it); documents without their own
	// $defs share it.
	defs     map[string]*jsonv.Object
	closures map[string][]string
}

func newBundler(comps *SchemaMap) *bundler {
	return &bundler{comps: comps, rewritten: map[string]any{}, safe: map[string]error{}, refs: map[string][]string{},
		defs: map[string]*jsonv.Object{}, closures: map[string][]string{}}
}

// componentRefs lists the component names referenced directly by doc.
func (b *bundler) componentRefs(doc any) []string {
	var out []string
	walkSchema(doc, func(o *jsonv.Object) bool {
		for _, kw := range []string{"$ref", "$dynamicRef"} {
			if r, ok := o.Get(kw); ok {
				if s, ok := r.(string); ok {
					if name, _, isComp := schema.ComponentRef(s); isComp && b.comps.Object().Has(name) {
						out = append(out, name)
					}
				}
			}
		}
		return true
	})
	return out
}

// bundle makes a catalog schema standalone for MCP (docs/spec/mcp-projection.md
// §4.1): reachable components move under $defs and references are
// rebased. label names the schema in errors.
func (b *bundler) bundle(doc any, label string) (any, error) {
	comps := b.comps
	if comps.Len() == 0 {
		return doc, nil
	}
	if err := bundleSafety(doc, label); err != nil {
		return nil, err
	}
	direct := b.componentRefs(doc)
	key := strings.Join(direct, "\x00")
	closure, cached := b.closures[key]
	if !cached {
		inClosure := map[string]bool{}
		add := func(names []string) {
			for _, name := range names {
				if !inClosure[name] {
					inClosure[name] = true
					closure = append(closure, name)
				}
			}
		}
		add(direct)
		for i := 0; i < len(closure); i++ {
			name := closure[i]
			refs, ok := b.refs[name]
			if !ok {
				c, _ := comps.Get(name)
				refs = b.componentRefs(c.Doc())
				b.refs[name] = refs
			}
			add(refs)
		}
		b.closures[key] = closure
	}
	if len(closure) == 0 {
		return doc, nil
	}
	for _, name := range closure {
		err, ok := b.safe[name]
		if !ok {
			c, _ := comps.Get(name)
			err = bundleSafety(c.Doc(), "components.schemas."+name)
			b.safe[name] = err
		}
		if err != nil {
			return nil, err
		}
	}
	out := rewriteRefs(doc, func(ref string) string { return componentToDefs(ref) })
	o, ok := out.(*jsonv.Object)
	if !ok {
		return doc, nil // a boolean schema is returned unchanged
	}
	var defs *jsonv.Object
	merge := false
	if d, ok := o.Get("$defs"); ok {
		if dd, ok := d.(*jsonv.Object); ok {
			defs, merge = dd.Copy(), true
		}
	}
	if !merge {
		if shared, ok := b.defs[key]; ok {
			o.Set("$defs", shared)
			return o, nil
		}
		defs = jsonv.NewObject(len(closure))
	}
	for _, name := range closure {
		rw, ok := b.rewritten[name]
		if !ok {
			c, _ := comps.Get(name)
			prefix := "#/$defs/" + jsonv.EscapePointer(name)
			rw = rewriteRefs(c.Doc(), func(ref string) string {
				if r := componentToDefs(ref); r != ref {
					return r
				}
				return rebase(ref, prefix)
			})
			b.rewritten[name] = rw
		}
		if merge {
			defs.Set(name, rw)
		} else {
			defs.Append(name, rw)
		}
	}
	if !merge {
		b.defs[key] = defs
	}
	o.Set("$defs", defs)
	return o, nil
}

func componentToDefs(ref string) string {
	name, rest, ok := schema.ComponentRef(ref)
	if !ok {
		return ref
	}
	return "#/$defs/" + jsonv.EscapePointer(name) + rest
}

// rebase moves a local reference under prefix ("#" → prefix,
// "#/x" → prefix + "/x").
func rebase(ref, prefix string) string {
	switch {
	case ref == "#":
		return prefix
	case strings.HasPrefix(ref, "#/"):
		return prefix + ref[1:]
	}
	return ref
}

func bundleSafety(doc any, label string) error {
	var err error
	walkSchema(doc, func(o *jsonv.Object) bool {
		for _, kw := range []string{"$id", "$anchor", "$dynamicAnchor", "$dynamicRef"} {
			if o.Has(kw) {
				err = fmt.Errorf("cannot project tool schema through MCP components: %s changes JSON Schema resource scope (%s)", kw, label)
				return false
			}
		}
		if r, ok := o.Get("$ref"); ok {
			if s, _ := r.(string); !strings.HasPrefix(s, "#") {
				err = fmt.Errorf("cannot project tool schema through MCP components: external $ref is not self-contained (%s)", label)
				return false
			}
		}
		return true
	})
	return err
}

// rewriteRefs copies a schema, mapping every $ref/$dynamicRef at a
// schema-bearing position through fn. Instance data (const, enum,
// default, examples) is shared, never rewritten.
func rewriteRefs(doc any, fn func(string) string) any {
	o, ok := doc.(*jsonv.Object)
	if !ok {
		return doc
	}
	out := jsonv.NewObject(o.Len())
	for i := 0; i < o.Len(); i++ {
		k, v := o.At(i)
		switch k {
		case "$ref", "$dynamicRef":
			if s, ok := v.(string); ok {
				v = fn(s)
			}
		case "additionalProperties", "contains", "contentSchema", "else", "if", "items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties":
			v = rewriteRefs(v, fn)
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if arr, ok := v.([]any); ok {
				n := make([]any, len(arr))
				for j, e := range arr {
					n[j] = rewriteRefs(e, fn)
				}
				v = n
			}
		case "$defs", "definitions", "dependentSchemas", "patternProperties", "properties":
			if m, ok := v.(*jsonv.Object); ok {
				n := jsonv.NewObject(m.Len())
				for j := 0; j < m.Len(); j++ {
					name, e := m.At(j)
					n.Append(name, rewriteRefs(e, fn))
				}
				v = n
			}
		}
		out.Append(k, v)
	}
	return out
}

// guaranteesObject reports whether every instance valid against s, a
// subschema of the standalone schema root, is an object
// (docs/spec/mcp-projection.md §5).
func guaranteesObject(s, root any, seen map[*jsonv.Object]bool) bool {
	o, ok := s.(*jsonv.Object)
	if !ok || seen[o] {
		return false
	}
	seen[o] = true
	defer delete(seen, o)
	if t, ok := o.Get("type"); ok {
		switch x := t.(type) {
		case string:
			if x == "object" {
				return true
			}
		case []any:
			all := len(x) > 0
			for _, e := range x {
				if e != any("object") {
					all = false
				}
			}
			if all {
				return true
			}
		}
	}
	if r, ok := o.Get("$ref"); ok {
		if ref, ok := r.(string); ok && strings.HasPrefix(ref, "#") {
			if t, ok := schema.Pointer(root, decodePercent(ref[1:])); ok && guaranteesObject(t, root, seen) {
				return true
			}
		}
	}
	if v, ok := o.Get("allOf"); ok {
		if arr, ok := v.([]any); ok {
			for _, b := range arr {
				if guaranteesObject(b, root, seen) {
					return true
				}
			}
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if v, ok := o.Get(kw); ok {
			if arr, ok := v.([]any); ok && len(arr) > 0 {
				all := true
				for _, b := range arr {
					if !guaranteesObject(b, root, seen) {
						all = false
						break
					}
				}
				if all {
					return true
				}
			}
		}
	}
	return false
}

// wrapResult is the released-profile output schema of a non-object
// output: {"type":"object","properties":{"result":S},"required":
// ["result"],"additionalProperties":false} with S's local references
// rebased under /properties/result.
func wrapResult(doc any) *jsonv.Object {
	inner := rewriteRefs(doc, func(ref string) string { return rebase(ref, "#/properties/result") })
	props := jsonv.NewObject(1)
	props.Set("result", inner)
	o := jsonv.NewObject(4)
	o.Set("type", "object")
	o.Set("properties", props)
	o.Set("required", []any{"result"})
	o.Set("additionalProperties", false)
	return o
}

// objectSchemas is a bundled schema as tools/list carries it: a boolean
// schema at the root or as a member of a `properties` map, at any depth,
// is spelled as the equivalent object (true as {}, false as
// {"not": {}}). The MCP schema types and the official SDK clients
// require objects there and reject the whole tools/list otherwise
// (docs/mcp.md); every other boolean (additionalProperties: false,
// items: true, ...) is valid everywhere and kept. Validation never reads
// this copy: it uses the validators compiled from the entry's schemas.
func objectSchemas(doc any) any {
	out, _ := objectSchema(doc)
	return out
}

func objectSchema(doc any) (any, bool) {
	switch s := doc.(type) {
	case bool:
		if s {
			return jsonv.NewObject(0), true
		}
		not := jsonv.NewObject(1)
		not.Set("not", jsonv.NewObject(0))
		return not, true
	case *jsonv.Object:
		return objectProperties(s)
	}
	return doc, false
}

// objectProperties applies objectSchema to the members of every
// `properties` map under an object schema, and closedTuple to every
// subschema, sharing what it leaves alone.
func objectProperties(doc any) (any, bool) {
	o, ok := doc.(*jsonv.Object)
	if !ok {
		return doc, false
	}
	out := schema.MapSubschemas(o, func(keyword string, sub any) (any, bool) {
		if keyword == "properties" {
			return objectSchema(sub)
		}
		return objectProperties(sub)
	})
	out = closedTuple(out)
	return out, out != o
}

// closedTuples applies closedTuple to every subschema of doc (the error
// schema under _meta, which keeps its boolean schemas).
func closedTuples(doc any) any {
	out, _ := closedTuplesIn(doc)
	return out
}

func closedTuplesIn(doc any) (any, bool) {
	o, ok := doc.(*jsonv.Object)
	if !ok {
		return doc, false
	}
	out := closedTuple(schema.MapSubschemas(o, func(_ string, sub any) (any, bool) {
		return closedTuplesIn(sub)
	}))
	return out, out != o
}

// closedTuple spells a closed tuple, `prefixItems` of n schemas with
// `items: false`, as `prefixItems` with `maxItems` at most n and no
// `items` (enum variant fields are such tuples). A Draft 2020-12
// validator accepts exactly the same instances; a Draft-07 validator,
// which the official TypeScript SDK v1 client uses for structuredContent,
// ignores prefixItems but would read `items: false` as "no items at all"
// and reject every non-empty tuple (docs/mcp.md).
func closedTuple(o *jsonv.Object) *jsonv.Object {
	if items, ok := o.Get("items"); !ok || items != any(false) {
		return o
	}
	prefix, ok := o.Get("prefixItems")
	arr, isList := prefix.([]any)
	if !ok || !isList {
		return o
	}
	limit := jsonv.Int(int64(len(arr)))
	if m, ok := o.Get("maxItems"); ok {
		n, isNum := m.(json.Number)
		if !isNum {
			return o
		}
		if jsonv.CompareNumbers(n, limit) < 0 {
			limit = n
		}
	}
	out := o.Without("items")
	out.Set("maxItems", limit)
	return out
}

// mcpTitle is the MCP title of an entry: title, else annotations.title,
// else the name.
func mcpTitle(e *Entry) string {
	if e.Title != "" {
		return e.Title
	}
	if e.Annotations != nil && e.Annotations.Title != "" {
		return e.Annotations.Title
	}
	return e.Name
}

// buildMCPDocs builds a tool's tools/list documents for both profiles.
func buildMCPDocs(t *PreparedTool) [2]*jsonv.Object {
	e := t.Tool.Entry
	var docs [2]*jsonv.Object
	for profile := range docs {
		o := jsonv.NewObject(9)
		o.Set("name", e.Name)
		title := mcpTitle(e)
		o.Set("title", title)
		desc := e.Description
		if desc == "" {
			desc = fmt.Sprintf("Exported Harn function '%s'.", e.Name)
		}
		o.Set("description", desc)
		o.Set("inputSchema", objectSchemas(t.MCPInput))
		if t.MCPOutput != nil {
			out := t.MCPOutput
			if MCPProfile(profile) == MCPReleased && !t.OutputIsObject {
				out = wrapResult(out)
			}
			o.Set("outputSchema", objectSchemas(out))
		}
		// The entry's own annotations.title wins; the projected title
		// only fills it in (docs/spec/mcp-projection.md §4).
		ann := jsonv.NewObject(5)
		if a := e.Annotations; a != nil && a.Title != "" {
			ann.Set("title", a.Title)
		} else {
			ann.Set("title", title)
		}
		if a := e.Annotations; a != nil {
			for _, h := range []struct {
				k string
				v *bool
			}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}} {
				if h.v != nil {
					ann.Set(h.k, *h.v)
				}
			}
		}
		o.Set("annotations", ann)
		if len(e.Icons) > 0 {
			icons := make([]any, len(e.Icons))
			for i, ic := range e.Icons {
				io := jsonv.NewObject(4)
				io.Set("src", ic.Src)
				if ic.MimeType != "" {
					io.Set("mimeType", ic.MimeType)
				}
				if len(ic.Sizes) > 0 {
					sizes := make([]any, len(ic.Sizes))
					for j, s := range ic.Sizes {
						sizes[j] = s
					}
					io.Set("sizes", sizes)
				}
				if ic.Theme != "" {
					io.Set("theme", string(ic.Theme))
				}
				icons[i] = io
			}
			o.Set("icons", icons)
		}
		if e.Execution != nil {
			ex := jsonv.NewObject(1)
			ex.Set("taskSupport", string(e.Execution.TaskSupport))
			o.Set("execution", ex)
		}
		if t.MCPError != nil || e.Meta.Len() > 0 {
			meta := jsonv.NewObject(e.Meta.Len() + 1)
			if t.MCPError != nil {
				contract := jsonv.NewObject(1)
				contract.Set("errorSchema", closedTuples(t.MCPError))
				meta.Set(MetaContractKey, contract)
			}
			e.Meta.Range(func(k string, v any) bool {
				if k != MetaContractKey {
					meta.Set(k, v)
				}
				return true
			})
			o.Set("_meta", meta)
		}
		docs[profile] = o
	}
	return docs
}

// ProviderInputSchema is e's input schema as a model provider receives
// it (llm_call's and agent_loop's tools): standalone, the components it
// references moved under $defs as the MCP projection moves them
// (docs/spec/mcp-projection.md §4.1), since a provider resolves no
// "#/components/schemas/…" reference. comps are the components of the
// registry the tool came from, or those a tool value carries (nil: none).
func ProviderInputSchema(e *Entry, comps *SchemaMap) (any, error) {
	doc := e.InputSchema.Doc()
	if comps == nil || comps.Len() == 0 {
		return doc, nil
	}
	return newBundler(comps).bundle(doc, fmt.Sprintf("tool %q inputSchema", e.Name))
}

// CarriedComponents reads the components a tool value carries under its
// definition key `components` ({schemas: {...}}, docs/tools.md "Tool
// values"); nil when it carries none or they are not of that shape.
func CarriedComponents(def *vm.Dict) *SchemaMap {
	v, ok := field(def, "components")
	if !ok {
		return nil
	}
	c, err := normalizeComponents(v)
	if err != nil || c == nil {
		return nil
	}
	return c.Schemas
}

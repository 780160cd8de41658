package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
)

// The catalog types are described once, by reflection, as a small shape
// model. Three consumers read it: the JSON Schema artifact, the
// TypeScript artifact, and the structural first stage of ParseCatalog.
// Adding a field to a catalog type therefore updates all three.

type shapeKind int

const (
	shapeRecord shapeKind = iota // closed object (a Go struct)
	shapeArray
	shapeMap // object with arbitrary keys and one value shape
	shapeString
	shapeEnum
	shapeBool
	shapeInt
	shapeSchema     // an embedded JSON Schema (bool or open object)
	shapeOpenObject // an open record of portable JSON
	shapeConst
)

type shapeField struct {
	json     string
	required bool
	shape    *shape
}

type shape struct {
	kind   shapeKind
	name   string // records and enums: the published type name
	fields []shapeField
	elem   *shape
	enum   []string
	min0   bool
	konst  string
}

// publishedNames maps Go type names to the names the artifacts use (the
// std/tools record names of the seed, where one exists).
var publishedNames = map[string]string{
	"Catalog":         "ToolCatalog",
	"Info":            "ToolRegistryInfo",
	"CLITreeSpec":     "ToolCliTreeSpec",
	"CLICommandSpec":  "ToolCliCommandSpec",
	"Components":      "ToolCatalogComponents",
	"Entry":           "ToolCatalogEntry",
	"Annotations":     "ToolAnnotations",
	"Icon":            "ToolIcon",
	"Execution":       "ToolExecution",
	"Governance":      "ToolGovernance",
	"CLISpec":         "ToolCliSpec",
	"CLIArgument":     "ToolCliArgumentSpec",
	"Source":          "ToolSource",
	"Policy":          "ToolPolicy",
	"Audience":        "ToolAudience",
	"TaskSupport":     "ToolTaskSupport",
	"IconTheme":       "ToolIconTheme",
	"BooleanStyle":    "ToolCliBooleanStyle",
	"ValueHint":       "ToolCliValueHint",
	"PolicyKind":      "ToolPolicyKind",
	"SideEffectLevel": "ToolSideEffectLevel",
}

var (
	schemaType    = reflect.TypeOf(Schema{})
	schemaMapType = reflect.TypeOf(&SchemaMap{})
	objectType    = reflect.TypeOf(&jsonv.Object{})
	valuesType    = reflect.TypeOf((*interface{ Values() []string })(nil)).Elem()
)

// catalogShape is built on first use: every harn start links this package,
// few parse or publish a catalog.
var catalogShape = sync.OnceValue(func() *shape {
	return buildShape(reflect.TypeOf(Catalog{}), map[reflect.Type]*shape{})
})

func buildShape(t reflect.Type, seen map[reflect.Type]*shape) *shape {
	switch t {
	case schemaType:
		return &shape{kind: shapeSchema}
	case schemaMapType:
		return &shape{kind: shapeMap, elem: &shape{kind: shapeSchema}}
	case objectType:
		return &shape{kind: shapeOpenObject}
	}
	if s, ok := seen[t]; ok {
		return s
	}
	switch t.Kind() {
	case reflect.Pointer:
		return buildShape(t.Elem(), seen)
	case reflect.Slice:
		return &shape{kind: shapeArray, elem: buildShape(t.Elem(), seen)}
	case reflect.Map:
		return &shape{kind: shapeMap, elem: buildShape(t.Elem(), seen)}
	case reflect.String:
		if t.Implements(valuesType) {
			v := reflect.Zero(t).Interface().(interface{ Values() []string })
			return &shape{kind: shapeEnum, name: publishedName(t), enum: v.Values()}
		}
		return &shape{kind: shapeString}
	case reflect.Bool:
		return &shape{kind: shapeBool}
	case reflect.Int64, reflect.Int:
		return &shape{kind: shapeInt}
	case reflect.Struct:
		s := &shape{kind: shapeRecord, name: publishedName(t)}
		seen[t] = s
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "" || tag == "-" || !f.IsExported() {
				continue
			}
			parts := strings.Split(tag, ",")
			required := true
			for _, opt := range parts[1:] {
				if opt == "omitempty" || opt == "omitzero" {
					required = false
				}
			}
			fs := buildShape(f.Type, seen)
			switch f.Tag.Get("harn") {
			case "min0":
				c := *fs
				c.min0 = true
				fs = &c
			case "version":
				fs = &shape{kind: shapeConst, konst: CatalogVersion}
			}
			s.fields = append(s.fields, shapeField{json: parts[0], required: required, shape: fs})
		}
		return s
	}
	panic("tool: catalog type has no JSON shape: " + t.String())
}

func publishedName(t reflect.Type) string {
	if n, ok := publishedNames[t.Name()]; ok {
		return n
	}
	return t.Name()
}

// ---- structural check (first stage of ParseCatalog) ----

func checkShape(s *shape, v any, at string) error {
	where := func() string {
		if at == "" {
			return "tool catalog"
		}
		return at
	}
	switch s.kind {
	case shapeRecord:
		o, ok := v.(*jsonv.Object)
		if !ok {
			return fmt.Errorf("%s must be an object", where())
		}
		known := map[string]*shapeField{}
		for i := range s.fields {
			known[s.fields[i].json] = &s.fields[i]
		}
		for _, k := range o.Keys() {
			if known[k] == nil {
				return fmt.Errorf("%s contains unknown key %q", where(), k)
			}
		}
		for _, f := range s.fields {
			fv, ok := o.Get(f.json)
			if !ok {
				if f.required {
					return fmt.Errorf("%s is missing required field %q", where(), f.json)
				}
				continue
			}
			if err := checkShape(f.shape, fv, join(at, f.json)); err != nil {
				return err
			}
		}
	case shapeArray:
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s must be an array", where())
		}
		for i, e := range arr {
			if err := checkShape(s.elem, e, fmt.Sprintf("%s[%d]", where(), i)); err != nil {
				return err
			}
		}
	case shapeMap:
		o, ok := v.(*jsonv.Object)
		if !ok {
			return fmt.Errorf("%s must be an object", where())
		}
		for i := 0; i < o.Len(); i++ {
			k, e := o.At(i)
			if err := checkShape(s.elem, e, join(at, k)); err != nil {
				return err
			}
		}
	case shapeString:
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s must be a string", where())
		}
	case shapeConst:
		if v != any(s.konst) {
			return fmt.Errorf("%s must be %q", where(), s.konst)
		}
	case shapeEnum:
		str, ok := v.(string)
		if !ok || !oneOf(str, s.enum) {
			return fmt.Errorf("%s has unknown value %s; expected one of %s", where(), jsonv.Marshal(v), strings.Join(s.enum, ", "))
		}
	case shapeBool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s must be a boolean", where())
		}
	case shapeInt:
		n, ok := v.(json.Number)
		if !ok || !jsonv.IsInteger(n) || (s.min0 && strings.HasPrefix(string(n), "-")) {
			if s.min0 {
				return fmt.Errorf("%s must be a non-negative integer", where())
			}
			return fmt.Errorf("%s must be an integer", where())
		}
	case shapeSchema:
		switch v.(type) {
		case bool, *jsonv.Object:
		default:
			return fmt.Errorf("%s must be a boolean or object JSON Schema", where())
		}
	case shapeOpenObject:
		if _, ok := v.(*jsonv.Object); !ok {
			return fmt.Errorf("%s must be an object", where())
		}
	}
	return nil
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

// ---- artifacts ----

// SchemaID is the published $id of the catalog's JSON Schema.
const SchemaID = "https://harnlang.com/schemas/harn-tools-v2.schema.json"

// ArtifactPaths are the repository paths of the generated contract files.
var ArtifactPaths = struct{ Schema, TypeScript, Manifest string }{
	Schema:     "spec/protocol-artifacts/schemas/harn-tools-v2.schema.json",
	TypeScript: "spec/protocol-artifacts/harn-tools.ts",
	Manifest:   "spec/protocol-artifacts/manifest.json",
}

// JSONSchemaArtifact returns the Draft 2020-12 structural schema of the
// catalog, generated from the catalog types.
func JSONSchemaArtifact() []byte {
	defs := jsonv.NewObject(16)
	root := recordSchema(catalogShape(), defs)
	doc := jsonv.NewObject(8)
	doc.Set("$schema", Draft202012)
	doc.Set("$id", SchemaID)
	doc.Set("title", "Harn Tool Catalog")
	doc.Set("description", "Structural envelope of a "+CatalogVersion+" tool catalog. Embedded JSON Schema documents, source bindings and _meta records are open; execution consumers must also run Harn's ToolCatalog reader for semantic checks.")
	root.Range(func(k string, v any) bool { doc.Set(k, v); return true })
	jsonSchemaDef := jsonv.NewObject(2)
	jsonSchemaDef.Set("description", "An embedded Draft 2020-12 JSON Schema document (open vocabulary).")
	jsonSchemaDef.Set("type", []any{"boolean", "object"})
	defs.Set("JsonSchema", jsonSchemaDef)
	sorted := jsonv.NewObject(defs.Len())
	keys := append([]string(nil), defs.Keys()...)
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := defs.Get(k)
		sorted.Set(k, v)
	}
	doc.Set("$defs", sorted)
	return append(jsonv.MarshalIndent(doc), '\n')
}

func refTo(name string) *jsonv.Object {
	o := jsonv.NewObject(1)
	o.Set("$ref", "#/$defs/"+name)
	return o
}

func recordSchema(s *shape, defs *jsonv.Object) *jsonv.Object {
	o := jsonv.NewObject(4)
	o.Set("type", "object")
	props := jsonv.NewObject(len(s.fields))
	var req []any
	for _, f := range s.fields {
		props.Set(f.json, shapeToSchema(f.shape, defs))
		if f.required {
			req = append(req, f.json)
		}
	}
	o.Set("properties", props)
	if len(req) > 0 {
		o.Set("required", req)
	}
	o.Set("additionalProperties", false)
	return o
}

func shapeToSchema(s *shape, defs *jsonv.Object) any {
	o := jsonv.NewObject(3)
	switch s.kind {
	case shapeRecord:
		if !defs.Has(s.name) {
			defs.Set(s.name, true) // placeholder against recursion
			defs.Set(s.name, recordSchema(s, defs))
		}
		return refTo(s.name)
	case shapeEnum:
		if !defs.Has(s.name) {
			e := jsonv.NewObject(2)
			e.Set("type", "string")
			vals := make([]any, len(s.enum))
			for i, x := range s.enum {
				vals[i] = x
			}
			e.Set("enum", vals)
			defs.Set(s.name, e)
		}
		return refTo(s.name)
	case shapeArray:
		o.Set("type", "array")
		o.Set("items", shapeToSchema(s.elem, defs))
	case shapeMap:
		o.Set("type", "object")
		o.Set("additionalProperties", shapeToSchema(s.elem, defs))
	case shapeString:
		o.Set("type", "string")
	case shapeConst:
		o.Set("const", s.konst)
	case shapeBool:
		o.Set("type", "boolean")
	case shapeInt:
		o.Set("type", "integer")
		if s.min0 {
			o.Set("minimum", jsonv.Int(0))
		}
	case shapeSchema:
		return refTo("JsonSchema")
	case shapeOpenObject:
		o.Set("type", "object")
	}
	return o
}

// TypeScriptArtifact returns strict TypeScript declarations of the
// catalog, generated from the catalog types.
func TypeScriptArtifact() []byte {
	var b strings.Builder
	b.WriteString("// Code generated by `go generate ./tool`; DO NOT EDIT.\n")
	b.WriteString("// Source of truth: the catalog types of package github.com/harnlang/harn/tool.\n\n")
	fmt.Fprintf(&b, "export const HARN_TOOLS_SCHEMA_VERSION = %q;\n\n", CatalogVersion)
	b.WriteString("/** An embedded Draft 2020-12 JSON Schema document (open vocabulary). */\n")
	b.WriteString("export type JsonSchema = boolean | { [keyword: string]: unknown };\n\n")
	b.WriteString("/** Portable JSON. */\n")
	b.WriteString("export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };\n\n")
	done := map[string]bool{}
	var order []*shape
	var collect func(s *shape)
	collect = func(s *shape) {
		switch s.kind {
		case shapeRecord:
			if done[s.name] {
				return
			}
			done[s.name] = true
			order = append(order, s)
			for _, f := range s.fields {
				collect(f.shape)
			}
		case shapeEnum:
			if !done[s.name] {
				done[s.name] = true
				order = append(order, s)
			}
		case shapeArray, shapeMap:
			collect(s.elem)
		}
	}
	collect(catalogShape())
	for _, s := range order {
		if s.kind == shapeEnum {
			quoted := make([]string, len(s.enum))
			for i, e := range s.enum {
				quoted[i] = fmt.Sprintf("%q", e)
			}
			fmt.Fprintf(&b, "export type %s = %s;\n\n", s.name, strings.Join(quoted, " | "))
			continue
		}
		fmt.Fprintf(&b, "export interface %s {\n", s.name)
		for _, f := range s.fields {
			opt := ""
			if !f.required {
				opt = "?"
			}
			fmt.Fprintf(&b, "  %s%s: %s;\n", TSPropertyName(f.json), opt, tsType(f.shape))
		}
		b.WriteString("}\n\n")
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

// TSPropertyName is k as a TypeScript property name: bare when it is an
// identifier (a letter, `_` or `$`, then those or digits), quoted
// otherwise, so `1a` and the empty name stay valid TypeScript.
func TSPropertyName(k string) string {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(isAlnum(c) || c == '_' || c == '$') || (i == 0 && c >= '0' && c <= '9') {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

func tsType(s *shape) string {
	switch s.kind {
	case shapeRecord, shapeEnum:
		return s.name
	case shapeArray:
		inner := tsType(s.elem)
		if strings.Contains(inner, " ") {
			inner = "(" + inner + ")"
		}
		return inner + "[]"
	case shapeMap:
		return "{ [key: string]: " + tsType(s.elem) + " }"
	case shapeString:
		return "string"
	case shapeConst:
		return fmt.Sprintf("%q", s.konst)
	case shapeBool:
		return "boolean"
	case shapeInt:
		return "number"
	case shapeSchema:
		return "JsonSchema"
	case shapeOpenObject:
		return "{ [key: string]: JsonValue }"
	}
	return "unknown"
}

// ManifestArtifact records the generated files and the catalog version.
func ManifestArtifact() []byte {
	o := jsonv.NewObject(4)
	o.Set("catalogVersion", CatalogVersion)
	o.Set("generator", "go generate ./tool (github.com/harnlang/harn/tool/internal/gen)")
	files := jsonv.NewObject(2)
	files.Set("jsonSchema", ArtifactPaths.Schema)
	files.Set("typescript", ArtifactPaths.TypeScript)
	o.Set("artifacts", files)
	o.Set("schemaId", SchemaID)
	return append(jsonv.MarshalIndent(o), '\n')
}

package typeschema

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

const decls = `
struct Node { value: int, next: Node? }
struct Pair<T> { left: T, right: T }
enum Color { Red, Green }
interface Named { fn name(self) -> string }
type Box<T> = {value: T}
type Tree = {value: int, children: [Tree]}
type A = B
type B = A
`

// typeOf converts the annotation src in an environment holding decls.
func typeOf(t *testing.T, src string) types.Type {
	t.Helper()
	f, err := syntax.Parse("t.harn", []byte(decls+"let x: "+src+" = nil"))
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	env := types.NewEnv()
	env.AddFile(f)
	return env.FromSyntax(f.Items[len(f.Items)-1].(*syntax.LetStmt).Type, nil)
}

// render prints a document compactly, keys in insertion order.
func render(v any) string {
	switch v := v.(type) {
	case *jsonv.Object:
		var parts []string
		for i := range v.Len() {
			k, x := v.At(i)
			parts = append(parts, k+": "+render(x))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		var parts []string
		for _, x := range v {
			parts = append(parts, render(x))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

func TestDialects(t *testing.T) {
	tests := []struct{ typ, harn, json string }{
		{"int", `{type: "integer"}`, `{type: "integer"}`},
		{"never", `{}`, `false`},
		{`"a"`, `{const: "a"}`, `{type: "string", enum: ["a"]}`},
		{`"a" | "b" | 1`, `{enum: ["a", "b", 1]}`, `{anyOf: [{type: "string", enum: ["a", "b"]}, {type: "integer", enum: [1]}]}`},
		{`"a" | int`, `{anyOf: [{const: "a"}, {type: "integer"}]}`, `{anyOf: [{type: "string", enum: ["a"]}, {type: "integer"}]}`},
		{"tuple<int, string>", `{type: "array", prefixItems: [{type: "integer"}, {type: "string"}], items: false, minItems: 2, maxItems: 2}`, `{type: "array", prefixItems: [{type: "integer"}, {type: "string"}], items: false, minItems: 2, maxItems: 2}`},
		{"set<int>", `{type: "set"}`, `{type: "array", items: {type: "integer"}, uniqueItems: true}`},
		{"bytes", `{type: "bytes"}`, `{type: "object", properties: {$bytes_b64: {type: "string", contentEncoding: "base64"}}, required: ["$bytes_b64"], additionalProperties: false}`},
		{"{a: int, b?: string}", `{type: "object", properties: {a: {type: "integer"}, b: {type: "string"}}, required: ["a"]}`,
			`{type: "object", properties: {a: {type: "integer"}, b: {anyOf: [{type: "string"}, {type: "null"}]}}, required: ["a"], additionalProperties: false}`},
		{"dict<int, string>", `{type: "object", additionalProperties: {type: "string"}}`, `error: dict key type int has no JSON Schema form (JSON object keys are strings)`},
		{"{a: int} & {b: int}", `{allOf: [{type: "object", properties: {a: {type: "integer"}}, required: ["a"]}, {type: "object", properties: {b: {type: "integer"}}, required: ["b"]}]}`,
			`{type: "object", properties: {a: {type: "integer"}, b: {type: "integer"}}, required: ["a", "b"], additionalProperties: false}`},
		{"fn(int) -> int", `{type: "closure"}`, `error: runtime-only Harn type "closure"`},
		{"number", `{anyOf: [{type: "integer"}, {type: "number"}]}`, `{anyOf: [{type: "integer"}, {type: "number"}]}`},
		{"Color", `{}`, `{$ref: "#/components/schemas/Color"}`},
		{"Named", `{}`, `error: interface type "Named" has no JSON Schema form (its values are struct instances of any type)`},
		{"Box<int>", `{type: "object", properties: {value: {type: "integer"}}, required: ["value"]}`,
			`{type: "object", properties: {value: {type: "integer"}}, required: ["value"], additionalProperties: false}`},
		{"Pair<string>", `{type: "object", properties: {left: {type: "string"}, right: {type: "string"}}, required: ["left", "right"]}`,
			`{type: "object", properties: {left: {type: "string"}, right: {type: "string"}}, required: ["left", "right"], additionalProperties: false}`},
		{"Tree", `{$ref: "#/$defs/Tree"}`, `{$ref: "#/components/schemas/Tree"}`},
		{"Node", `{$ref: "#/$defs/Node"}`, `{$ref: "#/components/schemas/Node"}`},
		{"A", `error: type alias "A" is cyclic`, `error: type alias "A" is cyclic`},
	}
	for _, tt := range tests {
		for _, d := range []struct {
			dialect Dialect
			want    string
		}{{Harn, tt.harn}, {JSON, tt.json}} {
			s, err := New(d.dialect).Schema(typeOf(t, tt.typ))
			got := render(s)
			if err != nil {
				got = "error: " + err.Error()
			}
			if got != d.want {
				t.Errorf("%s in dialect %d:\n got %s\nwant %s", tt.typ, d.dialect, got, d.want)
			}
		}
	}
}

func TestHarnSchemaCarriesDefs(t *testing.T) {
	s, err := HarnSchema(typeOf(t, "Tree"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{$ref: "#/$defs/Tree", $defs: {Tree: {type: "object", properties: {value: {type: "integer"}, children: {type: "array", items: {$ref: "#/$defs/Tree"}}}, required: ["value", "children"]}}}`
	if got := render(s); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestStandalone pins the standalone JSON form of `tool` declarations:
// no definitions, structs and enums in place, recursion and types with
// no JSON form unconstrained, open shapes, compact nullable types.
func TestStandalone(t *testing.T) {
	tests := []struct{ typ, want string }{
		{"string?", `{type: ["string", "null"]}`},
		{`"a" | "b" | nil`, `{type: ["string", "null"], enum: ["a", "b", <nil>]}`},
		{"Color?", `{anyOf: [{oneOf: [{type: "object", properties: {enum: {const: "Color"}, variant: {const: "Red"}, fields: {type: "array", items: false, minItems: 0, maxItems: 0}}, required: ["enum", "variant", "fields"], additionalProperties: false}, {type: "object", properties: {enum: {const: "Color"}, variant: {const: "Green"}, fields: {type: "array", items: false, minItems: 0, maxItems: 0}}, required: ["enum", "variant", "fields"], additionalProperties: false}]}, {type: "null"}]}`},
		{"{a: int, b?: string}", `{type: "object", properties: {a: {type: "integer"}, b: {type: ["string", "null"]}}, required: ["a"]}`},
		{"Node", `{type: "object", properties: {value: {type: "integer"}, next: {}}, required: ["value", "next"], additionalProperties: false}`},
		{"Tree", `{type: "object", properties: {value: {type: "integer"}, children: {type: "array", items: {}}}, required: ["value", "children"]}`},
		{"Named", `{}`},
		{"list<fn(int) -> int>", `{type: "array", items: {}}`},
		{"A", `{}`},
	}
	for _, tt := range tests {
		b := NewStandalone()
		s, err := b.Schema(typeOf(t, tt.typ))
		got := render(s)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.typ, got, tt.want)
		}
		if b.Defs().Len() != 0 {
			t.Errorf("%s: standalone builder collected definitions %s", tt.typ, render(b.Defs()))
		}
	}
}

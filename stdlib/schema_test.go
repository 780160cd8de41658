package stdlib_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/vm"
)

func TestSchemaValidation(t *testing.T) {
	user := mustParse(t, `{"type":"dict","required":["name","age"],"properties":{"name":{"type":"string","min_length":2,"pattern":"^[A-Z]"},"age":{"type":"int","min":0,"max":150},"tags":{"type":"list","items":{"type":"string"},"max_items":2},"role":{"type":"string","enum":["admin","user"]}},"additional_properties":false}`)
	okUser := mustParse(t, `{"name":"Ada","age":36,"tags":["x"]}`)
	badUser := mustParse(t, `{"name":"a","age":200,"tags":["x",1,"z"],"role":"root","extra":true}`)
	runT2(t, []t2case{
		{"json_validate", []vm.Value{okUser, user}, "true"},
		{"json_validate", []vm.Value{badUser, user}, "ERR: at age: expected value <= 150, got 200; at name: expected length >= 2, got 1; at name: value does not match pattern '^[A-Z]'; at role: value must be one of [admin, user]; at tags: expected at most 2 items, got 3; at tags[1]: expected type 'string', got 'int'; at root: unexpected key 'extra'"},
		{"json_validate", []vm.Value{dv("age", iv(1)), user}, "ERR: at root: missing required key 'name'"},
		{"json_validate", []vm.Value{sv("x"), user}, "ERR: at root: expected type 'dict', got 'string'"},
		{"json_validate", []vm.Value{iv(1), dv("type", sv("number"))}, "ERR: at root: expected type 'float', got 'int'"},
		{"json_validate", []vm.Value{fv(1.5), dv("type", sv("number"), "min", fv(2.0))}, "ERR: at root: expected value >= 2, got 1.5"},
		{"json_validate", []vm.Value{vm.Nil, dv("type", sv("string"), "nullable", vm.True)}, "true"},
		{"json_validate", []vm.Value{iv(2), dv("const", iv(3))}, "ERR: at root: expected constant 3, got 2"},
		{"json_validate", []vm.Value{vm.True, dv("union", lv(dv("type", sv("int")), dv("type", sv("string"))))}, "ERR: at root: value did not match any union branch"},
		{"json_validate", []vm.Value{iv(3), dv("anyOf", lv(dv("type", sv("integer")), dv("type", sv("string"))))}, "true"},
		{"json_validate", []vm.Value{lv(iv(1)), dv("min_items", iv(2))}, "ERR: at root: expected at least 2 items, got 1"},
		{"json_validate", []vm.Value{sv("abcd"), dv("maxLength", iv(3))}, "ERR: at root: expected length <= 3, got 4"},
		{"json_validate", []vm.Value{lv(dv("a", sv("x"))), dv("items", dv("properties", dv("a", dv("type", sv("int")))))}, "ERR: at [0].a: expected type 'int', got 'string'"},
		{"json_validate", []vm.Value{dv("n", iv(1)), mustParse(t, `{"$defs":{"N":{"type":"string"}},"properties":{"n":{"$ref":"#/$defs/N"}}}`)}, "ERR: at n: expected type 'string', got 'int'"},
		{"json_validate", []vm.Value{iv(1), dv("all_of", lv(dv("type", sv("int")), dv("min", iv(5))))}, "ERR: at root: expected value >= 5, got 1"},
		{"json_validate", []vm.Value{vm.Of(vm.NewStruct("P", []vm.Field{{Name: "x", Value: iv(1)}})), dv("type", sv("dict"), "required", lv(sv("y")))}, "ERR: at root: missing required key 'y'"},
		{"json_validate", []vm.Value{iv(1)}, "ERR: json_validate requires 2 arguments"},
		{"schema_check", []vm.Value{okUser, user}, "Result.Ok({age: 36, name: Ada, tags: [x]})"},
		{"schema_check", []vm.Value{dv("age", iv(1)), user}, "Result.Err({errors: [at root: missing required key 'name'], message: at root: missing required key 'name', value: {age: 1}})"},
		{"schema_parse", []vm.Value{dv("a", dv()), mustParse(t, `{"properties":{"a":{"properties":{"b":{"default":5}}},"c":{"default":"x"}}}`)}, "Result.Ok({a: {b: 5}, c: x})"},
		{"schema_is", []vm.Value{iv(1), dv("type", sv("int"))}, "true"},
		{"is_type", []vm.Value{iv(1), dv("type", sv("string"))}, "false"},
		{"schema_expect", []vm.Value{dv(), dv("properties", dv("c", dv("default", iv(1)))), vm.True}, "{c: 1}"},
		{"schema_expect", []vm.Value{iv(1), dv("type", sv("string"))}, "ERR: at root: expected type 'string', got 'int'"},
		{"schema_of", []vm.Value{dv("type", sv("int"))}, "{type: int}"},
		{"schema_of", []vm.Value{iv(1)}, "ERR: schema_of: expected a type alias or schema dict, got int"},
	})
}

func TestSchemaHelpers(t *testing.T) {
	s := mustParse(t, `{"type":"dict","required":["a","b"],"properties":{"a":{"type":"int"},"b":{"type":"list","items":{"type":"dict","required":["x"]}}}}`)
	runT2(t, []t2case{
		{"schema_extend", []vm.Value{dv("type", sv("dict"), "a", iv(1)), dv("a", iv(2))}, "{a: 2, type: dict}"},
		{"schema_partial", []vm.Value{s}, "{properties: {a: {type: int}, b: {items: {type: dict}, type: list}}, type: dict}"},
		{"schema_pick", []vm.Value{s, lv(sv("a"))}, "{properties: {a: {type: int}}, required: [a], type: dict}"},
		{"schema_omit", []vm.Value{s, lv(sv("a"))}, "{properties: {b: {items: {required: [x], type: dict}, type: list}}, required: [b], type: dict}"},
		{"schema_omit", []vm.Value{s, sv("a")}, "ERR: schema_omit: keys must be a list"},
		{"schema_to_json_schema", []vm.Value{mustParse(t, `{"type":"dict","properties":{"n":{"type":"int","nullable":true,"min":1},"f":{"type":"float"}},"additional_properties":false}`)}, "{additionalProperties: false, properties: {f: {type: number}, n: {minimum: 1, type: [integer, null]}}, type: object}"},
		{"schema_to_openapi_schema", []vm.Value{mustParse(t, `{"type":"list","items":{"type":"bool","nullable":true},"max_items":3}`)}, "{items: {nullable: true, type: boolean}, maxItems: 3, type: array}"},
		{"schema_from_json_schema", []vm.Value{mustParse(t, `{"type":"object","properties":{"n":{"type":["integer","null"]},"s":{"anyOf":[{"type":"string"},{"type":"number"}]}},"additionalProperties":{"type":"boolean"}}`)}, "{additional_properties: {type: bool}, properties: {n: {nullable: true, type: int}, s: {union: [{type: string}, {type: float}]}}, type: dict}"},
		{"schema_from_openapi_schema", []vm.Value{mustParse(t, `{"type":"string","nullable":true,"minLength":1}`)}, "{min_length: 1, nullable: true, type: string}"},
		{"schema_partial", nil, "ERR: schema_partial requires 1 argument"},
		{"schema_to_json_schema", nil, "ERR: schema_to_json_schema requires 1 argument"},
		{"schema_to_openapi_schema", nil, "ERR: schema_to_openapi_schema requires 1 argument"},
		{"schema_from_json_schema", nil, "ERR: schema_from_json_schema requires 1 argument"},
		{"schema_from_openapi_schema", nil, "ERR: schema_from_openapi_schema requires 1 argument"},
	})
}

// A `$schema` document is converted and compiled once per schema builtin
// call, by the check that refuses a broken schema; validating reuses that
// validator. Even a cache hit converts and serialises the document, so the
// call allocates less than two compilations only when it compiles once.
func TestSchemaDocumentCompiledOncePerCall(t *testing.T) {
	e := newT2(t)
	props := make([]string, 40)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"type":"integer","minimum":0}`, i)
	}
	doc := mustParse(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{`+strings.Join(props, ",")+`}}`)
	value := mustParse(t, `{"p0":1}`)
	compile := testing.AllocsPerRun(20, func() {
		if _, err := jsonschema.CompileValue(doc); err != nil {
			t.Fatal(err)
		}
	})
	for _, name := range []string{"json_validate", "schema_check", "schema_parse", "schema_report", "schema_is", "is_type", "schema_expect"} {
		call := testing.AllocsPerRun(20, func() {
			if _, err := e.call(t, name, value, doc); err != nil {
				t.Fatal(err)
			}
		})
		if call >= 2*compile {
			t.Errorf("%s allocates %.0f, a compilation %.0f: the document is compiled more than once", name, call, compile)
		}
	}
}

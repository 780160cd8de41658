package jsonschema_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/vm"
)

func dict(kv ...any) *vm.Dict {
	b := vm.NewDictBuilder(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		v, ok := kv[i+1].(vm.Value)
		if !ok {
			v = vm.Of(kv[i+1].(vm.Object))
		}
		b.Set(kv[i].(string), v)
	}
	return b.Build()
}

func TestCompileAndValidate(t *testing.T) {
	schema := map[string]any{
		"type":       "object",
		"required":   []any{"name"},
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "age": map[string]any{"type": "integer", "minimum": 0}},
	}
	v, err := jsonschema.Compile(schema)
	if err != nil {
		t.Fatal(err)
	}
	if v.Source != `{"properties":{"age":{"minimum":0,"type":"integer"},"name":{"type":"string"}},"required":["name"],"type":"object"}` {
		t.Errorf("canonical source: %s", v.Source)
	}
	again, _ := jsonschema.Compile(schema)
	if again != v {
		t.Error("equal documents must share one validator")
	}
	tests := []struct {
		inst vm.Value
		ok   bool
	}{
		{vm.Of(dict("name", vm.Str("Ada"), "age", vm.IntOf(3))), true},
		{vm.Of(dict("age", vm.IntOf(3))), false},
		{vm.Of(dict("name", vm.Str("Ada"), "age", vm.Float(1.5))), false},
		{vm.Of(dict("name", vm.Str("Ada"), "age", vm.IntOf(-1))), false},
		{vm.Of(vm.NewStruct("P", []vm.Field{{Name: "name", Value: vm.Str("x")}})), true},
	}
	for _, c := range tests {
		err := v.ValidateValue(c.inst)
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok=%v", vm.ToDisplay(c.inst), err, c.ok)
		}
	}
	if _, err := jsonschema.CompileValue(vm.Of(dict("type", vm.IntOf(5)))); err == nil || !strings.Contains(err.Error(), "type") {
		t.Errorf("meta-schema violation not reported: %v", err)
	}
	if err := v.ValidateValue(vm.Of(dict("name", vm.Str("x"), "age", vm.Float(math.NaN())))); err == nil {
		t.Error("NaN must not validate")
	}
}

func TestValueMapping(t *testing.T) {
	in := vm.NewList([]vm.Value{
		vm.IntOf(1), vm.FloatOf(float64(2.5)), vm.Str("s"), vm.Nil, vm.True,
		vm.Of(vm.NewSet([]vm.Value{vm.IntOf(1)})),
		vm.Of(&vm.Range{Start: 1, End: 3, Inclusive: true}),
		vm.Of(vm.Ok(vm.IntOf(1))),
		vm.DurationOf(int64(5)),
	})
	g, err := jsonschema.ToAny(vm.Of(in))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(g)
	if string(b) != `[1,2.5,"s",null,true,[1],"1 to 3",null,null]` {
		t.Errorf("ToAny: %s", b)
	}
	back := jsonschema.FromAny(map[string]any{"a": json.Number("7"), "b": json.Number("7.0"), "c": []any{uint64(math.MaxUint64)}, "d": float64(2)})
	if got := vm.ToDisplay(back); got != "{a: 7, b: 7.0, c: [18446744073709552000], d: 2.0}" {
		t.Errorf("FromAny: %s", got)
	}
}

// Errors never show the internal cache id a schema is compiled under
// (issue 17 item 11): they reach MCP clients through tool failures.
func TestErrorsHideTheSchemaID(t *testing.T) {
	for _, doc := range []any{map[string]any{"type": 5}, map[string]any{"$ref": "#/nope"}} {
		_, err := jsonschema.Compile(doc)
		if err == nil || strings.Contains(err.Error(), "urn:harn:schema") {
			t.Errorf("compile %v: %v", doc, err)
		}
	}
	v, err := jsonschema.Compile(map[string]any{"type": "integer"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(jsonschema.Violations(v.Validate("x")), "; ")
	if got != "at root: got string, want integer" {
		t.Errorf("violations %q", got)
	}
}

// A failing $ref is reported by the keyword behind it, not as "validation
// failed"; a property name holding "/" is escaped in the location.
func TestViolationsBehindRef(t *testing.T) {
	v, err := jsonschema.Compile(map[string]any{
		"$defs":      map[string]any{"pos": map[string]any{"minimum": 2}},
		"properties": map[string]any{"a/b": map[string]any{"$ref": "#/$defs/pos"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(jsonschema.Violations(v.Validate(map[string]any{"a/b": 1})), "; ")
	if got != "at /a~1b: minimum: got 1, want 2" {
		t.Errorf("violations %q", got)
	}
}

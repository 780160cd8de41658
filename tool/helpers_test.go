package tool

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/vm"
)

// jv parses JSON text into a Harn value (objects become dicts).
func jv(t testing.TB, s string) vm.Value {
	t.Helper()
	x, err := jsonv.Parse([]byte(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return FromJSON(x)
}

var echoHandler = vm.NewBuiltin("echo", "echo(args)", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
	return a.At(0), nil
})

// withHandler adds a handler to a definition dict unless it declares an
// executor.
func withHandler(v vm.Value) vm.Value {
	d := v.Object().(*vm.Dict)
	if d.Has("executor") || d.Has("handler") {
		return vm.Of(d)
	}
	return vm.Of(d.Set("handler", vm.Of(echoHandler)))
}

// registry builds a registry value from definition JSON and options JSON.
func registry(t testing.TB, defs string, options string) vm.Value {
	t.Helper()
	l := jv(t, defs).Object().(*vm.List)
	items := make([]vm.Value, l.Len())
	for i, d := range l.Items() {
		items[i] = withHandler(d)
	}
	b := vm.NewDictBuilder(5)
	b.Set("_type", vm.Str(RegistryType))
	b.Set("tools", vm.Of(vm.NewList(items)))
	if options != "" {
		jv(t, options).Object().(*vm.Dict).Range(func(k string, v vm.Value) bool {
			b.Set(k, v)
			return true
		})
	}
	return vm.Of(b.Build())
}

func mustNormalize(t testing.TB, defs, options string) *Registry {
	t.Helper()
	r, err := Normalize(registry(t, defs, options), nil)
	if err != nil {
		t.Fatalf("normalize: %v", err)
	}
	return r
}

func wantError(t *testing.T, err error, fragment string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error containing %q, got none", fragment)
	}
	if !strings.Contains(err.Error(), fragment) {
		t.Fatalf("error %q does not contain %q", err.Error(), fragment)
	}
}

const widgetDefs = `[{
  "name": "lookup_widget",
  "description": "Fetch one widget by numeric id.",
  "parameters": {
    "widget_id": {"schema": {"type": "integer"}, "required": true},
    "verbose": {"schema": {"type": "boolean"}, "required": false}
  },
  "returns": {"$ref": "#/components/schemas/Widget"},
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
  "execution_policy": {"kind": "fetch", "side_effect_level": "network"},
  "governance": {"audiences": ["cli", "mcp", "catalog", "dashboard", "agent"]},
  "cli": {
    "command": ["widgets", "get"],
    "aliases": ["show"],
    "arguments": {
      "widget_id": {"position": 0, "value_name": "WIDGET_ID", "help": "Numeric widget id"},
      "verbose": {"short": "v", "help_group": "Display"}
    }
  },
  "source": {"kind": "openapi", "id": "getWidget", "binding": {"method": "GET", "path": "/widgets/{widget_id}"}}
}]`

const widgetOptions = `{
  "info": {"name": "widgets", "version": "1.0.0", "description": "Widget integration"},
  "components": {"schemas": {"Widget": {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "label": {"type": "string"}},
    "required": ["id", "label"],
    "additionalProperties": false
  }}},
  "cli": {"commands": [{"command": ["widgets"], "title": "Manage widgets", "aliases": ["w"]}]}
}`

// prepared is the prepared catalog of a registry holding defs.
func prepared(t *testing.T, defs ...vm.Value) *Prepared {
	t.Helper()
	b := vm.NewDictBuilder(2)
	b.Set("_type", vm.Str(RegistryType))
	b.Set("tools", vm.Of(vm.NewList(defs)))
	reg, err := Normalize(vm.Of(b.Build()), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(reg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

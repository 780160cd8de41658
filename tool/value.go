package tool

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/vm"
)

// NonPortableError reports a Harn value with no portable JSON form. Path
// is structural (members "*", elements "[]") and Kind the value's type
// name, so the message never contains the value itself.
type NonPortableError struct {
	Path string
	Kind string
}

func (e *NonPortableError) Error() string {
	return fmt.Sprintf("%s value at %s has no portable JSON form", e.Kind, e.Path)
}

// ToJSON converts a Harn value to portable JSON (docs/spec/registry.md §6), the
// strict counterpart of the standard library's lenient mapping
// (stdlib/jsonschema), which turns non-data values into null: nil,
// bools, numbers, strings, lists, sets, dicts (keys sorted), struct
// instances (their set fields), enum variants as {"enum","variant",
// "fields"}, ranges as their display string and bytes as
// {"$bytes_b64": …}. Closures, builtins, handles, non-finite floats and
// every other kind are a *NonPortableError.
func ToJSON(v vm.Value) (any, error) { return toJSON(v, nil, false) }

// ToJSONArgs is ToJSON for the arguments of a tool called from Harn code
// (a tool value's handler, tool_synth_invoke, agent loops): an integral
// float keeps a fraction (`7.0`), as it would arriving as JSON text, so
// the handler gets the float back (FromJSON) unless the schema asks for
// an integer there.
func ToJSONArgs(v vm.Value) (any, error) { return toJSON(v, nil, true) }

func toJSON(v vm.Value, path []string, args bool) (any, error) {
	// Scalars are read by kind: Value.Object would box them.
	switch v.Kind() {
	case vm.KString:
		x, _ := v.AsString()
		return x.Go(), nil
	case vm.KBool:
		return v.Truth(), nil
	case vm.KInt:
		n, _ := v.AsInt()
		return jsonv.Int(int64(n)), nil
	case vm.KFloat:
		x, _ := v.AsFloat()
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nonPortable(path, "float")
		}
		if args && f == math.Trunc(f) && math.Abs(f) < 1e21 {
			return json.Number(strconv.FormatFloat(f, 'f', 1, 64)), nil
		}
		return jsonv.Float(f), nil
	}
	switch x := v.Object().(type) {
	case nil:
		return nil, nil
	case *vm.List:
		return listJSON(x.Items(), path, args)
	case *vm.Set:
		return listJSON(x.Items(), path, args)
	case *vm.Dict:
		o := jsonv.NewObject(x.Len())
		var err error
		sub := append(path, "*")
		x.Range(func(k string, val vm.Value) bool {
			var j any
			j, err = toJSON(val, sub, args)
			o.Set(k, j)
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		return o, nil
	case *vm.StructValue:
		o := jsonv.NewObject(len(x.Fields))
		sub := append(path, "*")
		for _, f := range x.Fields {
			j, err := toJSON(f.Value, sub, args)
			if err != nil {
				return nil, err
			}
			o.Set(f.Name, j)
		}
		return o, nil
	case *vm.EnumValue:
		fields, err := listJSON(x.Fields, append(path, "*"), args)
		if err != nil {
			return nil, err
		}
		o := jsonv.NewObject(3)
		o.Set("enum", x.Enum)
		o.Set("variant", x.Variant)
		o.Set("fields", fields)
		return o, nil
	case *vm.Range:
		return vm.ToDisplay(v), nil
	}
	if v.IsNil() {
		return nil, nil
	}
	if b, ok := v.Object().(interface{ Data() []byte }); ok && v.Type() == "bytes" {
		o := jsonv.NewObject(1)
		o.Set("$bytes_b64", base64.StdEncoding.EncodeToString(b.Data()))
		return o, nil
	}
	return nil, nonPortable(path, v.Type())
}

func listJSON(items []vm.Value, path []string, args bool) (any, error) {
	out := make([]any, len(items))
	sub := append(path, "[]")
	for i, it := range items {
		j, err := toJSON(it, sub, args)
		if err != nil {
			return nil, err
		}
		out[i] = j
	}
	return out, nil
}

func nonPortable(path []string, kind string) error {
	p := "/"
	if len(path) > 0 {
		p = "/" + strings.Join(path, "/")
	}
	return &NonPortableError{Path: p, Kind: kind}
}

// FromJSON converts a JSON value (jsonv form, or generic Go values from
// encoding/json) to a Harn value: a number's text is read as json_parse
// reads it (docs/spec/builtins.md §3.12): without fraction or
// exponent and within 64 bits an int, -0 and every other number a
// float; objects become dicts.
func FromJSON(x any) vm.Value {
	switch v := x.(type) {
	case nil:
		return vm.Nil
	case bool:
		return vm.BoolOf(v)
	case string:
		return vm.Str(v)
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			if n == 0 && strings.HasPrefix(string(v), "-") {
				return vm.FloatOf(math.Copysign(0, -1))
			}
			return vm.IntOf(n)
		}
		f, _ := strconv.ParseFloat(string(v), 64)
		return vm.FloatOf(f)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 && !strings.ContainsAny(strconv.FormatFloat(v, 'g', -1, 64), ".e") {
			return vm.IntOf(int64(v))
		}
		return vm.FloatOf(v)
	case int:
		return vm.IntOf(int64(v))
	case int64:
		return vm.IntOf(v)
	case []any:
		items := make([]vm.Value, len(v))
		for i, e := range v {
			items[i] = FromJSON(e)
		}
		return vm.Of(vm.NewList(items))
	case *jsonv.Object:
		b := vm.NewDictBuilder(v.Len())
		v.Range(func(k string, e any) bool {
			b.Set(k, FromJSON(e))
			return true
		})
		return vm.Of(b.Build())
	case map[string]any:
		b := vm.NewDictBuilder(len(v))
		for k, e := range v {
			b.Set(k, FromJSON(e))
		}
		return vm.Of(b.Build())
	}
	return vm.Nil
}

package jsonschema

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/vm"
)

// bytesValue is the shape of the library's bytes value (package stdlib).
type bytesValue interface {
	vm.Object
	Data() []byte
}

// Normalize reduces v to the JSON data model as a Harn value: sets become
// lists, structs dicts of their fields, ranges their display string,
// bytes {"$bytes_b64": …}, every non-data kind nil.
//
// A value nested past vm.MaxValueDepth panics with vm.TooDeep, which a
// builtin's caller turns into a catchable error.
func Normalize(v vm.Value) vm.Value { return normalize(v, 0) }

func normalize(v vm.Value, depth int) vm.Value {
	if depth > vm.MaxValueDepth {
		panic(vm.TooDeep("encode"))
	}
	depth++
	switch v.Kind() {
	case vm.KBool, vm.KInt, vm.KFloat, vm.KString:
		return v // read by kind: Object would box them
	}
	switch x := v.Object().(type) {
	case *vm.List:
		return normalizeList(x.Items(), depth)
	case *vm.Set:
		return normalizeList(x.Items(), depth)
	case *vm.Dict:
		b := vm.NewDictBuilder(x.Len())
		x.Range(func(k string, val vm.Value) bool {
			b.Set(k, normalize(val, depth))
			return true
		})
		return vm.Of(b.Build())
	case *vm.StructValue:
		b := vm.NewDictBuilder(len(x.Fields))
		for _, f := range x.Fields {
			b.Set(f.Name, normalize(f.Value, depth))
		}
		return vm.Of(b.Build())
	case *vm.Range:
		return vm.Str(vm.ToDisplay(v))
	case *decimal.Decimal:
		return v // a number, which serializers write exactly
	case bytesValue:
		if x.Type() == "bytes" {
			b := vm.NewDictBuilder(1)
			b.Set("$bytes_b64", vm.Str(base64.StdEncoding.EncodeToString(x.Data())))
			return vm.Of(b.Build())
		}
	}
	return vm.Nil
}

func normalizeList(items []vm.Value, depth int) vm.Value {
	out := make([]vm.Value, len(items))
	for i, it := range items {
		out[i] = normalize(it, depth)
	}
	return vm.Of(vm.NewList(out))
}

// NonFiniteError reports a NaN or infinite float, which JSON cannot hold.
type NonFiniteError struct{ Value float64 }

func (e *NonFiniteError) Error() string {
	return "cannot represent " + vm.FormatFloat(e.Value) + " in JSON"
}

// ToAny converts a Harn value into the generic Go form of JSON
// (map[string]any, []any, string, bool, nil, int64, float64) with the
// kind mapping of Normalize. Non-finite floats and values nested past
// vm.MaxValueDepth are an error.
func ToAny(v vm.Value) (a any, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*vm.Error)
			if !ok {
				panic(r)
			}
			a, err = nil, e
		}
	}()
	return toAny(Normalize(v))
}

func toAny(v vm.Value) (any, error) {
	switch v.Kind() {
	case vm.KString:
		x, _ := v.AsString()
		return x.Go(), nil
	case vm.KBool:
		return v.Truth(), nil
	case vm.KInt:
		n, _ := v.AsInt()
		return int64(n), nil
	case vm.KFloat:
		x, _ := v.AsFloat()
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, &NonFiniteError{f}
		}
		return f, nil
	}
	switch x := v.Object().(type) {
	case *vm.List:
		out := make([]any, x.Len())
		for i, it := range x.Items() {
			g, err := toAny(it)
			if err != nil {
				return nil, err
			}
			out[i] = g
		}
		return out, nil
	case *decimal.Decimal:
		return json.Number(x.Text()), nil
	case *vm.Dict:
		out := make(map[string]any, x.Len())
		var err error
		x.Range(func(k string, val vm.Value) bool {
			out[k], err = toAny(val)
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return nil, nil
}

// FromAny converts the generic Go form produced by JSON, YAML and TOML
// decoders into a Harn value. Integral numbers that fit in 64 bits become
// ints (json.Number and every Go integer type); float64 stays a float.
func FromAny(g any) vm.Value {
	switch x := g.(type) {
	case nil:
		return vm.Nil
	case bool:
		return vm.BoolOf(x)
	case string:
		return vm.Str(x)
	case int:
		return vm.IntOf(int64(x))
	case int8:
		return vm.IntOf(int64(x))
	case int16:
		return vm.IntOf(int64(x))
	case int32:
		return vm.IntOf(int64(x))
	case int64:
		return vm.IntOf(x)
	case uint:
		return uintValue(uint64(x))
	case uint8:
		return vm.IntOf(int64(x))
	case uint16:
		return vm.IntOf(int64(x))
	case uint32:
		return vm.IntOf(int64(x))
	case uint64:
		return uintValue(x)
	case float32:
		return vm.FloatOf(float64(x))
	case float64:
		return vm.FloatOf(x)
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			if n, err := x.Int64(); err == nil {
				return vm.IntOf(n)
			}
		}
		f, _ := x.Float64()
		return vm.FloatOf(f)
	case *big.Int:
		if x.IsInt64() {
			return vm.IntOf(x.Int64())
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		return vm.FloatOf(f)
	case time.Time:
		return vm.Str(x.Format(time.RFC3339Nano))
	case []any:
		out := make([]vm.Value, len(x))
		for i, it := range x {
			out[i] = FromAny(it)
		}
		return vm.Of(vm.NewList(out))
	case map[string]any:
		b := vm.NewDictBuilder(len(x))
		for k, it := range x {
			b.Set(k, FromAny(it))
		}
		return vm.Of(b.Build())
	case map[any]any:
		b := vm.NewDictBuilder(len(x))
		for k, it := range x {
			b.Set(vm.ToDisplay(FromAny(k)), FromAny(it))
		}
		return vm.Of(b.Build())
	case []map[string]any:
		out := make([]vm.Value, len(x))
		for i, it := range x {
			out[i] = FromAny(it)
		}
		return vm.Of(vm.NewList(out))
	case vm.Value:
		return x
	}
	if s, ok := g.(interface{ String() string }); ok {
		return vm.Str(s.String())
	}
	return vm.Nil
}

func uintValue(u uint64) vm.Value {
	if u <= math.MaxInt64 {
		return vm.IntOf(int64(u))
	}
	return vm.FloatOf(float64(u))
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

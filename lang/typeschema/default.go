package typeschema

import (
	"math"
	"sort"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/lang/syntax"
)

// Default is the JSON value of a parameter default that is a literal
// (numbers, strings, booleans, nil, and lists and dicts of them), which
// both an export and a `tool` declaration publish as the property's
// `default` (docs/exports.md, docs/tools.md); ok is false for anything
// computed at call time.
func Default(e syntax.Expr) (v any, ok bool) {
	switch x := e.(type) {
	case *syntax.IntLit:
		return jsonv.Int(x.Value), true
	case *syntax.FloatLit:
		if math.IsInf(x.Value, 0) || math.IsNaN(x.Value) {
			return nil, false
		}
		return jsonv.Float(x.Value), true
	case *syntax.StringLit:
		return x.Value, true
	case *syntax.BoolLit:
		return x.Value, true
	case *syntax.NilLit:
		return nil, true
	case *syntax.UnaryExpr:
		if x.Op != "-" {
			return nil, false
		}
		switch n := x.X.(type) {
		case *syntax.IntLit:
			return jsonv.Int(-n.Value), true
		case *syntax.FloatLit:
			return jsonv.Float(-n.Value), true
		}
	case *syntax.ListLit:
		out := make([]any, len(x.Elems))
		for i, el := range x.Elems {
			if out[i], ok = Default(el); !ok {
				return nil, false
			}
		}
		return out, true
	case *syntax.DictLit:
		// A Harn dict iterates its keys in sorted order.
		keys := make([]string, 0, len(x.Entries))
		vals := map[string]any{}
		for _, en := range x.Entries {
			if en.KeyExpr != nil || en.Spread != nil {
				return nil, false
			}
			ev, ok := Default(en.Value)
			if !ok {
				return nil, false
			}
			if _, dup := vals[en.KeyName]; !dup {
				keys = append(keys, en.KeyName)
			}
			vals[en.KeyName] = ev
		}
		sort.Strings(keys)
		o := jsonv.NewObject(len(keys))
		for _, k := range keys {
			o.Set(k, vals[k])
		}
		return o, true
	}
	return nil, false
}

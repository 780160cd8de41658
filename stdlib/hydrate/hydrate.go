// Package hydrate turns validated JSON arguments into the Harn values
// their declared types describe, for every adapter that calls a Harn
// callable with catalog arguments: export-backed dispatch (tool/exports)
// and `tool` declarations (stdlib/tools).
package hydrate

import (
	"encoding/base64"

	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/lang/typeschema"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Argument hydration (docs/spec/registry.md §8.4): a validated JSON argument, read
// into Harn values by tool.FromJSON (objects are dicts), becomes the
// value its declared type describes — an object for a struct type a
// struct instance of that struct (absent or null optional fields stay
// unset), a {"enum","variant","fields"} object for an enum type that
// variant, an array for a set type a set, {"$bytes_b64"} bytes, an
// integral number for a float parameter a float — recursively, so the
// function's run-time parameter checks (docs/spec/language.md §10.6) pass. The
// way back is tool.ToJSON, which the prepared catalog applies to results
// and thrown values.
//
// Input validation has already happened, so hydration never fails: a
// value that does not fit is passed on unchanged. In a union the first
// member the value fits decides.

// Value is v hydrated along t.
func Value(t types.Type, v vm.Value) vm.Value { return hydrate(t, v) }

func hydrate(t types.Type, v vm.Value) vm.Value {
	if !v.IsValid() || v.IsNil() {
		return vm.Nil
	}
	switch t := types.Underlying(t).(type) {
	case *types.Basic:
		switch t.Kind {
		case types.KFloat:
			if i, ok := v.AsInt(); ok {
				return vm.FloatOf(float64(i))
			}
		case types.KBytes:
			if d, ok := v.AsDict(); ok {
				if s, ok := d.Get("$bytes_b64"); ok {
					if str, ok := s.AsString(); ok {
						if b, err := base64.StdEncoding.DecodeString(str.Go()); err == nil {
							return vm.Of(lib.NewBytes(b))
						}
					}
				}
			}
		}
	case *types.List:
		if l, ok := v.AsList(); ok {
			return vm.Of(vm.NewList(hydrateAll(t.Elem, l.Items())))
		}
	case *types.Set:
		if l, ok := v.AsList(); ok {
			return vm.Of(vm.NewSet(hydrateAll(t.Elem, l.Items())))
		}
	case *types.Tuple:
		if l, ok := v.AsList(); ok && l.Len() == len(t.Elems) {
			items := make([]vm.Value, l.Len())
			for i, it := range l.Items() {
				items[i] = hydrate(t.Elems[i], it)
			}
			return vm.Of(vm.NewList(items))
		}
	case *types.Dict:
		if d, ok := v.AsDict(); ok {
			b := vm.NewDictBuilder(d.Len())
			d.Range(func(k string, e vm.Value) bool {
				b.Set(k, hydrate(t.Value, e))
				return true
			})
			return vm.Of(b.Build())
		}
	case *types.Shape:
		return hydrateShape(t.Fields, v)
	case *types.Intersection:
		if fs, ok := typeschema.MergedFields(t); ok {
			return hydrateShape(fs, v)
		}
	case *types.Result:
		return hydrateVariant("Result", []types.Variant{
			{Name: "Ok", Fields: []types.Field{{Type: t.Ok}}},
			{Name: "Err", Fields: []types.Field{{Type: t.Err}}},
		}, v)
	case *types.Union:
		for _, m := range t.Types {
			if fits(m, v) {
				return hydrate(m, v)
			}
		}
	case *types.Named:
		switch t.Decl.Kind {
		case types.StructDecl:
			d, ok := v.AsDict()
			if !ok {
				return v
			}
			fs := types.StructFields(t)
			fields := make([]vm.Field, 0, len(fs))
			for _, f := range fs {
				if fv, ok := d.Get(f.Name); ok && !fv.IsNil() {
					fields = append(fields, vm.Field{Name: f.Name, Value: hydrate(f.Type, fv)})
				}
			}
			return vm.Of(vm.NewStruct(t.Decl.Name, fields))
		case types.EnumDecl:
			return hydrateVariant(t.Decl.Name, variants(t), v)
		}
	}
	return v
}

func hydrateAll(t types.Type, items []vm.Value) []vm.Value {
	out := make([]vm.Value, len(items))
	for i, it := range items {
		out[i] = hydrate(t, it)
	}
	return out
}

// hydrateShape keeps a shape value a dict (shapes are dicts at run
// time) with its fields hydrated.
func hydrateShape(fs []types.Field, v vm.Value) vm.Value {
	d, ok := v.AsDict()
	if !ok {
		return v
	}
	for _, f := range fs {
		if fv, ok := d.Get(f.Name); ok {
			d = d.Set(f.Name, hydrate(f.Type, fv))
		}
	}
	return vm.Of(d)
}

func hydrateVariant(enum string, vs []types.Variant, v vm.Value) vm.Value {
	d, ok := v.AsDict()
	if !ok {
		return v
	}
	name, _ := d.Get("variant")
	vname, _ := name.AsString()
	for _, vr := range vs {
		if vr.Name != vname.Go() {
			continue
		}
		fv, _ := d.Get("fields")
		items := []vm.Value{}
		if l, ok := fv.AsList(); ok {
			items = l.Items()
		}
		fields := make([]vm.Value, len(items))
		for i, it := range items {
			var ft types.Type = types.Any
			if i < len(vr.Fields) {
				ft = vr.Fields[i].Type
			}
			fields[i] = hydrate(ft, it)
		}
		if enum == "Result" {
			if vr.Name == "Ok" {
				return vm.Of(vm.Ok(fields[0]))
			}
			return vm.Of(vm.Err(fields[0]))
		}
		return vm.Of(&vm.EnumValue{Enum: enum, Variant: vr.Name, Fields: fields})
	}
	return v
}

// variants are an enum type's variants with its type arguments
// substituted.
func variants(t *types.Named) []types.Variant {
	m := t.Decl.Instance(t.Args)
	if m == nil {
		return t.Decl.Variants
	}
	out := make([]types.Variant, len(t.Decl.Variants))
	for i, v := range t.Decl.Variants {
		fs := make([]types.Field, len(v.Fields))
		for j, f := range v.Fields {
			f.Type = types.Subst(f.Type, m)
			fs[j] = f
		}
		out[i] = types.Variant{Name: v.Name, Fields: fs}
	}
	return out
}

// fits reports whether a JSON-derived value is an instance of t's JSON
// Schema (the mapping of schema.go, checked structurally); it picks the
// union member a value hydrates as.
func fits(t types.Type, v vm.Value) bool {
	switch t := types.Underlying(t).(type) {
	case *types.Basic:
		switch t.Kind {
		case types.KAny, types.KUnknown:
			return true
		case types.KNil:
			return v.IsNil()
		case types.KInt:
			if f, ok := v.AsFloat(); ok {
				return float64(f) == float64(int64(f))
			}
			return v.Kind() == vm.KInt
		case types.KFloat:
			k := v.Kind()
			return k == vm.KInt || k == vm.KFloat
		case types.KString:
			_, ok := v.AsString()
			return ok
		case types.KBool:
			_, ok := v.AsBool()
			return ok
		case types.KBytes:
			d, ok := v.AsDict()
			return ok && d.Len() == 1 && d.Has("$bytes_b64")
		}
		return false
	case *types.Literal:
		switch lv := t.Value.(type) {
		case string:
			s, ok := v.AsString()
			return ok && s.Go() == lv
		case int64:
			if n, ok := v.AsInt(); ok {
				return int64(n) == lv
			}
			if f, ok := v.AsFloat(); ok {
				return float64(f) == float64(lv)
			}
		}
		return false
	case *types.List:
		return allFit(t.Elem, v)
	case *types.Set:
		return allFit(t.Elem, v)
	case *types.Tuple:
		l, ok := v.AsList()
		if !ok || l.Len() != len(t.Elems) {
			return false
		}
		for i, it := range l.Items() {
			if !fits(t.Elems[i], it) {
				return false
			}
		}
		return true
	case *types.Dict:
		d, ok := v.AsDict()
		if !ok {
			return false
		}
		good := true
		d.Range(func(_ string, e vm.Value) bool {
			good = fits(t.Value, e)
			return good
		})
		return good
	case *types.Shape:
		return fitsFields(t.Fields, v)
	case *types.Intersection:
		if fs, ok := typeschema.MergedFields(t); ok {
			return fitsFields(fs, v)
		}
		for _, m := range t.Types {
			if !fits(m, v) {
				return false
			}
		}
		return true
	case *types.Union:
		for _, m := range t.Types {
			if fits(m, v) {
				return true
			}
		}
		return false
	case *types.Result:
		return fitsVariant("Result", []types.Variant{
			{Name: "Ok", Fields: []types.Field{{Type: t.Ok}}},
			{Name: "Err", Fields: []types.Field{{Type: t.Err}}},
		}, v)
	case *types.Named:
		switch t.Decl.Kind {
		case types.StructDecl:
			return fitsFields(types.StructFields(t), v)
		case types.EnumDecl:
			return fitsVariant(t.Decl.Name, variants(t), v)
		}
		return false
	case *types.TypeParam:
		return true
	}
	return false
}

func allFit(t types.Type, v vm.Value) bool {
	l, ok := v.AsList()
	if !ok {
		return false
	}
	for _, it := range l.Items() {
		if !fits(t, it) {
			return false
		}
	}
	return true
}

// fitsFields is the closed-object check of a shape or struct.
func fitsFields(fs []types.Field, v vm.Value) bool {
	d, ok := v.AsDict()
	if !ok {
		return false
	}
	known := 0
	for _, f := range fs {
		fv, ok := d.Get(f.Name)
		if !ok {
			if !f.Optional {
				return false
			}
			continue
		}
		known++
		if fv.IsNil() && f.Optional {
			continue
		}
		if !fits(f.Type, fv) {
			return false
		}
	}
	return known == d.Len()
}

func fitsVariant(enum string, vs []types.Variant, v vm.Value) bool {
	d, ok := v.AsDict()
	if !ok || d.Len() != 3 {
		return false
	}
	e, _ := d.Get("enum")
	if es, ok := e.AsString(); !ok || es.Go() != enum {
		return false
	}
	name, _ := d.Get("variant")
	vname, ok := name.AsString()
	if !ok {
		return false
	}
	fv, _ := d.Get("fields")
	l, ok := fv.AsList()
	if !ok {
		return false
	}
	for _, vr := range vs {
		if vr.Name != vname.Go() {
			continue
		}
		if l.Len() != len(vr.Fields) {
			return false
		}
		for i, f := range vr.Fields {
			if !fits(f.Type, l.At(i)) {
				return false
			}
		}
		return true
	}
	return false
}

package json

// jq's common builtin functions beyond the subset docs/spec/builtins.md
// §3.12 lists (docs/builtins-areas.md, "jq beyond the listed subset"):
// sorting and grouping, entries, strings, numbers, generators. Each
// behaves as jq 1.7 does on the same JSON; a function's value arguments
// (join's separator, limit's count, …) are filters run on the input, one
// result per output of theirs.

import (
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/crmath"
	"github.com/harnlang/harn/vm"
)

// jqFunction is the filter of the jq function name/len(args), or false
// when there is none.
func jqFunction(name string, args []jqFilter) (jqFilter, bool) {
	one := jqOne
	withArg := func(fn func(in, arg vm.Value) (vm.Value, error)) jqFilter { return jqWithArg(args[0], fn) }
	// byKey sorts or groups by the outputs of args[0] on each item.
	byKey := func(fn func(items []vm.Value, keys []vm.Value) (vm.Value, error)) jqFilter {
		return one(func(in vm.Value) (vm.Value, error) {
			items, ok := jqListItems(in)
			if !ok {
				return vm.Value{}, jqErrf("Cannot index %s with number", jqTypeName(in))
			}
			keys := make([]vm.Value, len(items))
			for i, it := range items {
				k, err := args[0](it)
				if err != nil {
					return vm.Value{}, err
				}
				keys[i] = vm.Of(vm.NewList(k))
			}
			return fn(items, keys)
		})
	}
	if len(args) == 0 && jqKindSelector(name) {
		// the inputs of one kind, as select(type == "…") keeps them
		return func(in vm.Value) ([]vm.Value, error) {
			if jqOfKind(name, in) {
				return []vm.Value{in}, nil
			}
			return nil, nil
		}, true
	}
	switch len(args) {
	case 0:
		switch name {
		case "sort":
			return one(func(in vm.Value) (vm.Value, error) { return jqSortBy(in, nil) }), true
		case "unique":
			return one(func(in vm.Value) (vm.Value, error) { return jqGroup(in, nil, true) }), true
		case "min", "max":
			return one(func(in vm.Value) (vm.Value, error) { return jqExtreme(in, nil, name == "max") }), true
		case "reverse":
			return one(jqReverse), true
		case "first", "last":
			return one(func(in vm.Value) (vm.Value, error) {
				items, ok := jqListItems(in)
				if !ok {
					return vm.Value{}, jqErrf("Cannot index %s with number", jqTypeName(in))
				}
				if len(items) == 0 {
					return vm.Nil, nil
				}
				if name == "first" {
					return items[0], nil
				}
				return items[len(items)-1], nil
			}), true
		case "to_entries":
			return one(jqToEntries), true
		case "from_entries":
			return one(jqFromEntries), true
		case "flatten":
			return one(func(in vm.Value) (vm.Value, error) { return jqFlatten(in, 1<<30) }), true
		case "ascii_downcase", "ascii_upcase":
			return one(func(in vm.Value) (vm.Value, error) {
				s, ok := in.AsString()
				if !ok {
					return vm.Value{}, jqErrf("%s cannot be %s", jqDescribe(in), map[bool]string{true: "lowercased", false: "uppercased"}[name == "ascii_downcase"])
				}
				return vm.Str(jqASCIICase(s.Go(), name == "ascii_upcase")), nil
			}), true
		case "tojson":
			return one(func(in vm.Value) (vm.Value, error) { return vm.Str(Stringify(in)), nil }), true
		case "fromjson":
			return one(func(in vm.Value) (vm.Value, error) {
				s, ok := in.AsString()
				if !ok {
					return vm.Value{}, jqErrf("%s cannot be parsed as JSON", jqDescribe(in))
				}
				v, err := Parse(s.Go())
				if err != nil {
					return vm.Value{}, jqErrf("%s (while parsing '%s')", err.Error(), s.Go())
				}
				return v, nil
			}), true
		case "any", "all":
			return one(func(in vm.Value) (vm.Value, error) {
				items, ok := jqItems(in)
				if !ok {
					return vm.Value{}, jqErrf("Cannot iterate over %s", jqDescribe(in))
				}
				for _, it := range items {
					if jqTruthy(it) == (name == "any") {
						return vm.BoolOf(name == "any"), nil
					}
				}
				return vm.BoolOf(name == "all"), nil
			}), true
		case "floor", "ceil", "sqrt", "round", "fabs":
			return one(func(in vm.Value) (vm.Value, error) {
				f, ok := jqFloat(in)
				if !ok {
					return vm.Value{}, jqErrf("%s number required", jqDescribe(in))
				}
				switch name {
				case "floor":
					f = math.Floor(f)
				case "ceil":
					f = math.Ceil(f)
				case "round":
					f = math.Round(f)
				case "fabs":
					f = math.Abs(f)
				default:
					f = math.Sqrt(f)
				}
				return jqNumber(f), nil
			}), true
		case "trunc", "log", "log2", "log10", "exp", "exp2", "exp10", "sin", "cos", "tan", "asin", "acos", "atan",
			"isnan", "isinfinite", "isnormal":
			return one(func(in vm.Value) (vm.Value, error) {
				f, ok := jqFloat(in)
				if !ok {
					return vm.Value{}, jqErrf("%s number required", jqDescribe(in))
				}
				switch name {
				case "isnan":
					return vm.BoolOf(math.IsNaN(f)), nil
				case "isinfinite":
					return vm.BoolOf(math.IsInf(f, 0)), nil
				case "isnormal":
					return vm.BoolOf(f != 0 && !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) >= 0x1p-1022), nil
				}
				return jqNumber(jqMath[name](f)), nil
			}), true
		case "nan":
			return one(func(vm.Value) (vm.Value, error) { return vm.FloatOf(math.NaN()), nil }), true
		case "infinite":
			return one(func(vm.Value) (vm.Value, error) { return vm.FloatOf(math.Inf(1)), nil }), true
		case "error":
			return func(in vm.Value) ([]vm.Value, error) { return nil, jqRaise(in) }, true
		case "keys_unsorted":
			return one(func(in vm.Value) (vm.Value, error) { return jqKeys(in) }), true
		case "recurse":
			return func(in vm.Value) ([]vm.Value, error) {
				var out []vm.Value
				jqRecurse(in, &out)
				return out, nil
			}, true
		}
	case 1:
		switch name {
		case "error":
			return func(in vm.Value) ([]vm.Value, error) {
				msgs, err := args[0](in)
				if err != nil {
					return nil, err
				}
				if len(msgs) == 0 {
					return nil, nil
				}
				return nil, jqRaise(msgs[0])
			}, true
		case "delpaths":
			return withArg(func(in, paths vm.Value) (vm.Value, error) {
				items, ok := jqListItems(paths)
				if !ok {
					return vm.Value{}, jqErrf("Paths must be specified as an array")
				}
				var ps [][]vm.Value
				for _, it := range items {
					path, ok := jqListItems(it)
					if !ok {
						return vm.Value{}, jqErrf("Path must be specified as an array")
					}
					ps = append(ps, path)
				}
				return jqDelPaths(in, ps)
			}), true
		case "sort_by":
			return byKey(func(items, keys []vm.Value) (vm.Value, error) { return jqSortBy(vm.Of(vm.NewList(items)), keys) }), true
		case "group_by", "unique_by":
			return byKey(func(items, keys []vm.Value) (vm.Value, error) {
				return jqGroup(vm.Of(vm.NewList(items)), keys, name == "unique_by")
			}), true
		case "min_by", "max_by":
			return byKey(func(items, keys []vm.Value) (vm.Value, error) {
				return jqExtreme(vm.Of(vm.NewList(items)), keys, name == "max_by")
			}), true
		case "join":
			return withArg(jqJoin), true
		case "split":
			return withArg(func(in, sep vm.Value) (vm.Value, error) {
				s, ok1 := in.AsString()
				d, ok2 := sep.AsString()
				if !ok1 || !ok2 {
					return vm.Value{}, jqErrf("split input and separator must be strings")
				}
				parts := strings.Split(s.Go(), d.Go())
				if s.Go() == "" {
					parts = nil
				}
				out := make([]vm.Value, len(parts))
				for i, p := range parts {
					out[i] = vm.Str(p)
				}
				return vm.Of(vm.NewList(out)), nil
			}), true
		case "startswith", "endswith":
			return withArg(func(in, x vm.Value) (vm.Value, error) {
				s, ok1 := in.AsString()
				p, ok2 := x.AsString()
				if !ok1 || !ok2 {
					return vm.Value{}, jqErrf("%s() requires string inputs", name)
				}
				if name == "startswith" {
					return vm.BoolOf(strings.HasPrefix(s.Go(), p.Go())), nil
				}
				return vm.BoolOf(strings.HasSuffix(s.Go(), p.Go())), nil
			}), true
		case "ltrimstr", "rtrimstr":
			return withArg(func(in, x vm.Value) (vm.Value, error) {
				s, ok1 := in.AsString()
				p, ok2 := x.AsString()
				if !ok1 || !ok2 {
					return in, nil // jq leaves other inputs as they are
				}
				if name == "ltrimstr" {
					return vm.Str(strings.TrimPrefix(s.Go(), p.Go())), nil
				}
				return vm.Str(strings.TrimSuffix(s.Go(), p.Go())), nil
			}), true
		case "contains":
			return withArg(func(in, x vm.Value) (vm.Value, error) {
				ok, err := jqContains(in, x, 0)
				return vm.BoolOf(ok), err
			}), true
		case "test":
			return withArg(func(in, re vm.Value) (vm.Value, error) {
				s, ok1 := in.AsString()
				r, ok2 := re.AsString()
				if !ok1 || !ok2 {
					return vm.Value{}, jqErrf("%s cannot be matched, as it is not a string", jqDescribe(in))
				}
				rx, err := regexp.Compile(r.Go())
				if err != nil {
					return vm.Value{}, jqErrf("%s (at offset 0) is not a valid regex: %s", r.Go(), err.Error())
				}
				return vm.BoolOf(rx.MatchString(s.Go())), nil
			}), true
		case "with_entries":
			f := args[0]
			return func(in vm.Value) ([]vm.Value, error) {
				entries, err := jqToEntries(in)
				if err != nil {
					return nil, err
				}
				items, _ := jqListItems(entries)
				var mapped []vm.Value
				for _, e := range items {
					r, err := f(e)
					if err != nil {
						return nil, err
					}
					mapped = append(mapped, r...)
				}
				v, err := jqFromEntries(vm.Of(vm.NewList(mapped)))
				if err != nil {
					return nil, err
				}
				return []vm.Value{v}, nil
			}, true
		case "map_values":
			f := args[0]
			return func(in vm.Value) ([]vm.Value, error) {
				if d, ok := in.Object().(*vm.Dict); ok {
					out := vm.NewDict()
					var ferr error
					d.Range(func(k string, v vm.Value) bool {
						r, err := f(v)
						if err != nil {
							ferr = err
							return false
						}
						if len(r) > 0 {
							out = out.Set(k, r[0])
						}
						return true
					})
					return []vm.Value{vm.Of(out)}, ferr
				}
				items, ok := jqListItems(in)
				if !ok {
					return nil, jqErrf("Cannot iterate over %s", jqDescribe(in))
				}
				var out []vm.Value
				for _, it := range items {
					r, err := f(it)
					if err != nil {
						return nil, err
					}
					if len(r) > 0 {
						out = append(out, r[0])
					}
				}
				return []vm.Value{vm.Of(vm.NewList(out))}, nil
			}, true
		case "first", "last":
			f := args[0]
			return func(in vm.Value) ([]vm.Value, error) {
				r, err := f(in)
				if err != nil || len(r) == 0 {
					return nil, err
				}
				if name == "first" {
					return r[:1], nil
				}
				return r[len(r)-1:], nil
			}, true
		case "any", "all":
			f := args[0]
			return func(in vm.Value) ([]vm.Value, error) {
				items, ok := jqItems(in)
				if !ok {
					return nil, jqErrf("Cannot iterate over %s", jqDescribe(in))
				}
				for _, it := range items {
					r, err := f(it)
					if err != nil {
						return nil, err
					}
					for _, c := range r {
						if jqTruthy(c) == (name == "any") {
							return []vm.Value{vm.BoolOf(name == "any")}, nil
						}
					}
				}
				return []vm.Value{vm.BoolOf(name == "all")}, nil
			}, true
		case "flatten":
			return withArg(func(in, d vm.Value) (vm.Value, error) {
				depth, ok := jqFloat(d)
				if !ok || depth < 0 {
					return vm.Value{}, jqErrf("flatten depth must not be negative")
				}
				return jqFlatten(in, int(depth))
			}), true
		case "range":
			return jqRangeOf(jqConst(vm.IntOf(0)), args[0]), true
		case "getpath":
			return withArg(func(in, path vm.Value) (vm.Value, error) {
				keys, ok := jqListItems(path)
				if !ok {
					return vm.Value{}, jqErrf("Path must be specified as an array")
				}
				return jqGetPath(in, keys)
			}), true
		}
	case 2:
		switch name {
		case "limit":
			return func(in vm.Value) ([]vm.Value, error) {
				ns, err := args[0](in)
				if err != nil {
					return nil, err
				}
				var out []vm.Value
				for _, n := range ns {
					f, ok := jqFloat(n)
					if !ok {
						return nil, jqErrf("Invalid limit: %s", jqDescribe(n))
					}
					if f <= 0 {
						continue
					}
					r, err := args[1](in)
					if err != nil {
						return nil, err
					}
					out = append(out, r[:min(len(r), int(f))]...)
				}
				return out, nil
			}, true
		case "range":
			return jqRangeOf(args[0], args[1]), true
		case "pow", "atan2":
			return jqBinary(args[0], args[1], func(a, b vm.Value) (vm.Value, error) {
				x, ok1 := jqFloat(a)
				y, ok2 := jqFloat(b)
				if !ok1 || !ok2 {
					return vm.Value{}, jqErrf("%s number required", jqDescribe(map[bool]vm.Value{true: b, false: a}[ok1]))
				}
				if name == "atan2" {
					return jqNumber(crmath.Atan2(x, y)), nil
				}
				return jqNumber(vm.Pow(x, y)), nil
			}), true
		case "setpath":
			return func(in vm.Value) ([]vm.Value, error) {
				return jqBinary(args[0], args[1], func(p, v vm.Value) (vm.Value, error) {
					path, ok := jqListItems(p)
					if !ok {
						return vm.Value{}, jqErrf("Path must be specified as an array")
					}
					return jqSetPath(in, path, v)
				})(in)
			}, true
		}
	}
	return nil, false
}

// jqOne is the filter with fn's one output.
func jqOne(fn func(vm.Value) (vm.Value, error)) jqFilter {
	return func(in vm.Value) ([]vm.Value, error) {
		v, err := fn(in)
		if err != nil {
			return nil, err
		}
		return []vm.Value{v}, nil
	}
}

// jqWithArg runs fn on the input and each output of arg.
func jqWithArg(arg jqFilter, fn func(in, arg vm.Value) (vm.Value, error)) jqFilter {
	return func(in vm.Value) ([]vm.Value, error) {
		argv, err := arg(in)
		if err != nil {
			return nil, err
		}
		out := make([]vm.Value, 0, len(argv))
		for _, a := range argv {
			v, err := fn(in, a)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
}

// jqKindSelector reports whether name is a kind selector (`numbers`, …),
// which is also a path expression.
func jqKindSelector(name string) bool {
	switch name {
	case "booleans", "numbers", "strings", "nulls", "arrays", "objects", "iterables", "scalars":
		return true
	}
	return false
}

// jqOfKind reports whether v is of the kind the selector name keeps.
func jqOfKind(name string, v vm.Value) bool {
	t := jqTypeName(v)
	switch name {
	case "iterables":
		return t == "array" || t == "object"
	case "scalars":
		return t != "array" && t != "object"
	}
	return t+"s" == name
}

func jqFloat(v vm.Value) (float64, bool) {
	if n, ok := v.AsInt(); ok {
		return float64(n), true
	}
	if f, ok := v.AsFloat(); ok {
		return float64(f), true
	}
	return 0, false
}

// jqRangeOf is range(from; upto) for every pair of their outputs.
func jqRangeOf(from, upto jqFilter) jqFilter {
	return func(in vm.Value) ([]vm.Value, error) {
		as, err := from(in)
		if err != nil {
			return nil, err
		}
		bs, err := upto(in)
		if err != nil {
			return nil, err
		}
		return jqFlatMap(as, func(a vm.Value) ([]vm.Value, error) {
			return jqFlatMap(bs, func(b vm.Value) ([]vm.Value, error) { return jqRange(a, b) })
		})
	}
}

// jqRange is range(from; upto): from, from+1, … below upto.
func jqRange(from, upto vm.Value) ([]vm.Value, error) {
	a, ok1 := jqFloat(from)
	b, ok2 := jqFloat(upto)
	if !ok1 || !ok2 {
		return nil, jqErrf("Range bounds must be numeric")
	}
	if b-a > 1e7 {
		return nil, jqErrf("range(%v; %v) is too long (over 10000000 values)", a, b)
	}
	var out []vm.Value
	for x := a; x < b; x++ {
		out = append(out, jqNumber(x))
	}
	return out, nil
}

// sortedIndex orders the indexes of items by keys (the items themselves
// when keys is nil), stably, by jq's order.
func sortedIndex(items, keys []vm.Value) ([]int, error) {
	if keys == nil {
		keys = items
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	var cerr error
	slices.SortStableFunc(idx, func(i, j int) int {
		c, err := jqCompare(keys[i], keys[j])
		if err != nil && cerr == nil {
			cerr = err
		}
		return c
	})
	return idx, cerr
}

func jqSortBy(in vm.Value, keys []vm.Value) (vm.Value, error) {
	items, ok := jqListItems(in)
	if !ok {
		return vm.Value{}, jqErrf("%s cannot be sorted, as it is not an array", jqDescribe(in))
	}
	idx, err := sortedIndex(items, keys)
	if err != nil {
		return vm.Value{}, err
	}
	out := make([]vm.Value, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return vm.Of(vm.NewList(out)), nil
}

// jqGroup is group_by (groups of equal keys, in key order) or, with
// firstOnly, unique/unique_by (the first item of each group).
func jqGroup(in vm.Value, keys []vm.Value, firstOnly bool) (vm.Value, error) {
	items, ok := jqListItems(in)
	if !ok {
		return vm.Value{}, jqErrf("Cannot index %s with number", jqTypeName(in))
	}
	if keys == nil {
		keys = items
	}
	idx, err := sortedIndex(items, keys)
	if err != nil {
		return vm.Value{}, err
	}
	var out, group []vm.Value
	for n, j := range idx {
		if n > 0 {
			if c, _ := jqCompare(keys[idx[n-1]], keys[j]); c != 0 {
				out = append(out, vm.Of(vm.NewList(group)))
				group = nil
			}
		}
		group = append(group, items[j])
	}
	if len(group) > 0 {
		out = append(out, vm.Of(vm.NewList(group)))
	}
	if firstOnly {
		for i, g := range out {
			out[i] = g.Object().(*vm.List).Items()[0]
		}
	}
	return vm.Of(vm.NewList(out)), nil
}

// jqExtreme is min/max (min_by/max_by with keys): nil for no items; the
// last of equal maxima and the first of equal minima, as jq answers.
func jqExtreme(in vm.Value, keys []vm.Value, max bool) (vm.Value, error) {
	items, ok := jqListItems(in)
	if !ok {
		return vm.Value{}, jqErrf("Cannot index %s with number", jqTypeName(in))
	}
	if len(items) == 0 {
		return vm.Nil, nil
	}
	if keys == nil {
		keys = items
	}
	best := 0
	for i := 1; i < len(items); i++ {
		c, err := jqCompare(keys[i], keys[best])
		if err != nil {
			return vm.Value{}, err
		}
		if (max && c >= 0) || (!max && c < 0) {
			best = i
		}
	}
	return items[best], nil
}

func jqReverse(in vm.Value) (vm.Value, error) {
	if s, ok := in.AsString(); ok {
		r := []rune(s.Go())
		slices.Reverse(r)
		return vm.Str(string(r)), nil
	}
	if in.IsNil() {
		return vm.Of(vm.NewList(nil)), nil
	}
	items, ok := jqListItems(in)
	if !ok {
		return vm.Value{}, jqErrf("Cannot reverse %s", jqDescribe(in))
	}
	out := slices.Clone(items)
	slices.Reverse(out)
	return vm.Of(vm.NewList(out)), nil
}

func jqToEntries(in vm.Value) (vm.Value, error) {
	keys, err := jqKeys(in)
	if err != nil {
		return vm.Value{}, err
	}
	ks, _ := jqListItems(keys)
	out := make([]vm.Value, len(ks))
	for i, k := range ks {
		v, err := jqIndex(in, k)
		if err != nil {
			return vm.Value{}, err
		}
		out[i] = vm.Of(vm.NewDict().Set("key", k).Set("value", v))
	}
	return vm.Of(vm.NewList(out)), nil
}

// jqFromEntries reads {key|k|name|Name|K|Key, value|v|Value|V} entries.
func jqFromEntries(in vm.Value) (vm.Value, error) {
	items, ok := jqListItems(in)
	if !ok {
		return vm.Value{}, jqErrf("Cannot iterate over %s", jqDescribe(in))
	}
	out := vm.NewDict()
	for _, e := range items {
		d, ok := e.Object().(*vm.Dict)
		if !ok {
			return vm.Value{}, jqErrf("Cannot index %s with \"key\"", jqTypeName(e))
		}
		pick := func(names ...string) vm.Value {
			for _, n := range names {
				if v, ok := d.Get(n); ok && !(v.IsNil() || (v.Kind() == vm.KBool && !v.Truth())) {
					return v
				}
			}
			return vm.Nil
		}
		k := pick("key", "k", "name", "Name", "K", "Key")
		key := ""
		switch {
		case k.Kind() == vm.KString:
			s, _ := k.AsString()
			key = s.Go()
		case k.Kind() == vm.KInt || k.Kind() == vm.KFloat || k.Kind() == vm.KBool:
			key = vm.ToDisplay(k)
		default:
			return vm.Value{}, jqErrf("Cannot use %s as object key", jqDescribe(k))
		}
		v := vm.Nil
		for _, n := range []string{"value", "v", "Value", "V"} {
			if x, ok := d.Get(n); ok {
				v = x
				break
			}
		}
		out = out.Set(key, v)
	}
	return vm.Of(out), nil
}

func jqFlatten(in vm.Value, depth int) (vm.Value, error) {
	items, ok := jqListItems(in)
	if !ok {
		return vm.Value{}, jqErrf("Cannot iterate over %s", jqDescribe(in))
	}
	var out []vm.Value
	var walk func(items []vm.Value, d int)
	walk = func(items []vm.Value, d int) {
		for _, it := range items {
			if inner, ok := jqListItems(it); ok && d > 0 {
				walk(inner, d-1)
			} else {
				out = append(out, it)
			}
		}
	}
	walk(items, depth)
	return vm.Of(vm.NewList(out)), nil
}

func jqJoin(in, sep vm.Value) (vm.Value, error) {
	items, ok := jqItems(in)
	if !ok {
		return vm.Value{}, jqErrf("Cannot iterate over %s", jqDescribe(in))
	}
	d, ok := sep.AsString()
	if !ok {
		return vm.Value{}, jqErrf("join separator must be a string, got %s", jqDescribe(sep))
	}
	parts := make([]string, len(items))
	for i, it := range items {
		switch {
		case it.IsNil():
		case it.Kind() == vm.KString:
			s, _ := it.AsString()
			parts[i] = s.Go()
		case it.Kind() == vm.KInt || it.Kind() == vm.KFloat || it.Kind() == vm.KBool:
			parts[i] = Stringify(it)
		default:
			return vm.Value{}, jqErrf("Cannot join with %s", jqDescribe(it))
		}
	}
	return vm.Str(strings.Join(parts, d.Go())), nil
}

func jqASCIICase(s string, upper bool) string {
	b := []byte(s)
	for i, c := range b {
		if upper && 'a' <= c && c <= 'z' {
			b[i] = c - 32
		} else if !upper && 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// jqContains is jq's contains: substrings for strings, every element of
// b contained in some element of a for arrays, key-wise for objects,
// equality otherwise.
func jqContains(a, b vm.Value, depth int) (bool, error) {
	if depth > vm.MaxValueDepth {
		return false, vm.TooDeep("compare")
	}
	if jqTypeName(a) != jqTypeName(b) {
		return false, jqErrf("%s and %s cannot have their containment checked", jqDescribe(a), jqDescribe(b))
	}
	switch jqTypeName(a) {
	case "string":
		x, _ := a.AsString()
		y, _ := b.AsString()
		return strings.Contains(x.Go(), y.Go()), nil
	case "array":
		xs, _ := jqListItems(a)
		ys, _ := jqListItems(b)
		for _, y := range ys {
			found := false
			for _, x := range xs {
				if jqTypeName(x) != jqTypeName(y) {
					continue
				}
				ok, err := jqContains(x, y, depth+1)
				if err != nil {
					return false, err
				}
				if ok {
					found = true
					break
				}
			}
			if !found {
				return false, nil
			}
		}
		return true, nil
	case "object":
		ky, _ := jqKeys(b)
		keys, _ := jqListItems(ky)
		for _, k := range keys {
			yv, _ := jqIndex(b, k)
			ak, _ := jqKeys(a)
			has := false
			if ks, ok := jqListItems(ak); ok {
				for _, x := range ks {
					if vm.Equal(x, k) {
						has = true
					}
				}
			}
			if !has {
				return false, nil
			}
			xv, _ := jqIndex(a, k)
			if jqTypeName(xv) != jqTypeName(yv) {
				return false, jqErrf("%s and %s cannot have their containment checked", jqDescribe(xv), jqDescribe(yv))
			}
			ok, err := jqContains(xv, yv, depth+1)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	}
	c, err := jqCompare(a, b)
	return c == 0, err
}

// jqMath is jq's one-argument math, computed as the math builtins
// compute it (stdlib/math): correctly rounded (stdlib/internal/crmath),
// and exp2 and exp10 as pow(2, x) and pow(10, x), so `jq(x, "log")` is
// `ln(x)` to the last bit.
var jqMath = map[string]func(float64) float64{
	"trunc": math.Trunc,
	"log":   crmath.Log,
	"log2":  crmath.Log2,
	"log10": crmath.Log10,
	"exp":   crmath.Exp,
	"exp2":  func(x float64) float64 { return vm.Pow(2, x) },
	"exp10": func(x float64) float64 { return vm.Pow(10, x) },
	"sin":   crmath.Sin,
	"cos":   crmath.Cos,
	"tan":   crmath.Tan,
	"asin":  crmath.Asin,
	"acos":  crmath.Acos,
	"atan":  crmath.Atan,
}

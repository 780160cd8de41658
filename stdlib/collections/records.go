package collections

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Record and collection builtins of the newer upstream (docs/spec/newer.md §2.2,
// §2.3, §2.5, §2.6, §2.9, §2.10, §2.21): pick, tuple, clone, deep_merge,
// the free unique/take_while/drop_while/count_by, the internal __dict_*
// helpers behind std/collections, and the renamed value methods.

func init() {
	lib.Def("pick", "pick(value, keys)", "a record of the fields named in keys (dict, struct or capability handle); absent keys are omitted", builtinPick)
	lib.Def("tuple", "tuple(...items)", "a list of the arguments (statically a tuple<A, B, ...>)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Of(lib.List(lib.CopyItems(args))), nil
	})
	lib.Def("clone", "clone(v) -> any", "a shallow copy of v", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return args.At(0), nil // values are immutable: the value is its own copy
	})
	lib.Def("deep_clone", "deep_clone(v) -> any", "a recursive copy of v", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return args.At(0), nil
	})
	lib.Def("deep_merge", "deep_merge(a, b)", "merge dicts, recursing where both sides hold dicts; b wins otherwise; nil counts as {}", builtinDeepMerge("deep_merge"))
	lib.Def("__deep_merge", "__deep_merge(a, b)", "deep_merge", builtinDeepMerge("deep_merge"))
	lib.Def("dict_from_pairs", "dict_from_pairs(pairs) -> dict", "a dict from [key, value] lists or pairs (keys by display form)", builtinDictFromPairs)
	lib.Def("unique", "unique(items) -> list", "first occurrence of each structural key; nil gives []", builtinUnique("unique"))
	lib.Def("__list_unique", "__list_unique(items)", "unique", builtinUnique("unique"))
	lib.Def("take_while", "take_while(list, f) -> list", "the leading items for which f(item) is truthy", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, f, err := listAndCallback("take_while", args)
		if err != nil {
			return vm.Value{}, err
		}
		return takeWhile(th, l.Items(), f, true)
	})
	lib.Def("drop_while", "drop_while(list, f) -> list", "the items after the leading ones for which f(item) is truthy", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, f, err := listAndCallback("drop_while", args)
		if err != nil {
			return vm.Value{}, err
		}
		return takeWhile(th, l.Items(), f, false)
	})
	lib.Def("count_by", "count_by(list, f) -> dict", "dict of counts per string discriminator f(item)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, f, err := listAndCallback("count_by", args)
		if err != nil {
			return vm.Value{}, err
		}
		return countBy(th, "count_by", l.Items(), f)
	})
	lib.Def("__check_options", "__check_options(where: string, options, known) -> nil", "the std/* modules' option check: options that are not a dict, or a key not in known, fail as a builtin's do (lib.Options, lib.CheckOptions)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		where := vm.ToDisplay(args.At(0))
		known, err := keyList("__check_options", args.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		d, err := lib.Options(where, args.At(1))
		if err != nil || d == nil {
			return vm.Nil, err
		}
		return vm.Nil, lib.CheckOptions(where, d, known)
	})
	lib.Def("__dict_pick", "__dict_pick(d, keys)", "the entries of d named in keys, without nil values", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		keys, err := keyList("__dict_pick", args.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(pickKeys(args.At(0), keys, true)), nil
	})
	lib.Def("__dict_pick_keys", "__dict_pick_keys(d, keys, drop_nil?)", "the entries of d named in keys; with drop_nil also without nil values", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		keys, err := keyList("__dict_pick_keys", args.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(pickKeys(args.At(0), keys, args.At(2).Truth())), nil
	})
	lib.Def("__dict_omit", "__dict_omit(d, keys)", "d without the keys in keys", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		keys, err := keyList("__dict_omit", args.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		d, ok := args.Dict(0)
		if !ok {
			return vm.Of(vm.NewDict()), nil
		}
		for _, k := range keys {
			d = d.Delete(k)
		}
		return vm.Of(d), nil
	})
	lib.Def("__dict_filter_nil", "__dict_filter_nil(d)", "d without its nil-valued entries", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		d, ok := args.Dict(0)
		if !ok {
			return vm.Of(vm.NewDict()), nil
		}
		b := vm.NewDictBuilder(d.Len())
		d.Range(func(k string, v vm.Value) bool {
			if !v.IsNil() {
				b.Set(k, v)
			}
			return true
		})
		return vm.Of(b.Build()), nil
	})

	// The newer method names (docs/spec/newer.md §2.10) beside the April ones.
	lib.Alias("list", "sorted", "sort", "xs.sorted()")
	lib.Alias("list", "sorted_by", "sort_by", "xs.sorted_by(f)")
	lib.Alias("list", "reversed", "reverse", "xs.reversed()")
	lib.Alias("list", "appending", "push", "xs.appending(x)")
	lib.Alias("list", "dropping_last", "pop", "xs.dropping_last()")
	lib.Alias("list", "includes", "contains", "xs.includes(x)")
	lib.Alias("set", "adding", "add", "s.adding(v)")
	lib.Alias("set", "removing", "remove", "s.removing(v)")
	lib.Alias("dict", "merging", "merge", "d.merging(other)")
	lib.Alias("dict", "rekeyed", "rekey", "d.rekeyed(f)")
	lib.Alias("dict", "removing", "remove", "d.removing(key)")
	lib.Method("list", "to_set", "xs.to_set()", "a set of the items (first of each structural key)", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		return vm.Of(vm.NewSet(recv.List().Items())), nil
	})
	lib.Method("list", "take_while", "xs.take_while(f)", "the leading items for which f(item) is truthy", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		f, err := callbackAt("take_while", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return takeWhile(th, recv.List().Items(), f, true)
	})
	lib.Method("list", "drop_while", "xs.drop_while(f)", "the items after the leading ones for which f(item) is truthy", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		f, err := callbackAt("drop_while", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return takeWhile(th, recv.List().Items(), f, false)
	})
	lib.Method("list", "count_by", "xs.count_by(f)", "dict of counts per string discriminator f(item)", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		f, err := callbackAt("count_by", args, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return countBy(th, "count_by", recv.List().Items(), f)
	})
	lib.Method("dict", "to_dict", "d.to_dict()", "the dict itself", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		return recv, nil
	})
	lib.Method("dict", "to_list", "d.to_list()", "the entries as {key, value} dicts, sorted by key", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		d := recv.Dict()
		out := make([]vm.Value, 0, d.Len())
		d.Range(func(k string, v vm.Value) bool {
			out = append(out, vm.Of(lib.DictOf("key", vm.Str(k), "value", v)))
			return true
		})
		return vm.Of(lib.List(out)), nil
	})
}

// builtinPick projects fields; absent keys are omitted, nil values kept.
func builtinPick(th *vm.Thread, args vm.Args) (vm.Value, error) {
	keys, ok := args.List(1)
	if !ok {
		return vm.Value{}, vm.Typef("pick: keys must be a list of strings, got %s", args.At(1).Type())
	}
	get, err := fieldReader(th, args.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	b := vm.NewDictBuilder(keys.Len())
	for _, k := range keys.Items() {
		name, ok := k.AsString()
		if !ok {
			return vm.Value{}, vm.Typef("pick: keys must be strings, got %s", k.Type())
		}
		if v, ok := get(name.Go()); ok {
			b.Set(name.Go(), v)
		}
	}
	return vm.Of(b.Build()), nil
}

// fieldReader reads named fields of a dict, struct instance or any value
// with attributes (harness handles).
func fieldReader(th *vm.Thread, v vm.Value) (func(string) (vm.Value, bool), error) {
	switch x := v.Object().(type) {
	case *vm.Dict:
		return x.Get, nil
	case *vm.StructValue:
		return func(name string) (vm.Value, bool) {
			for _, f := range x.Fields {
				if f.Name == name {
					return f.Value, true
				}
			}
			return vm.Value{}, false
		}, nil
	case interface {
		Attr(string) (vm.Value, error)
	}:
		return func(name string) (vm.Value, bool) {
			a, err := x.Attr(name)
			return a, err == nil
		}, nil
	}
	return nil, vm.Typef("pick: expected a dict, struct or record, got %s", v.Type())
}

func builtinDeepMerge(name string) vm.BuiltinFunc {
	return func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, err := dictOrEmpty(name, args.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		b, err := dictOrEmpty(name, args.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(deepMerge(a, b)), nil
	}
}

func dictOrEmpty(name string, v vm.Value) (*vm.Dict, error) {
	switch x := v.Object().(type) {
	case *vm.Dict:
		return x, nil
	}
	if v.IsNil() {
		return vm.NewDict(), nil
	}
	return nil, vm.Typef("%s: expected dict, got %s", name, v.Type())
}

func deepMerge(a, b *vm.Dict) *vm.Dict {
	out := a
	b.Range(func(k string, bv vm.Value) bool {
		if av, ok := a.Get(k); ok {
			ad, aok := av.AsDict()
			bd, bok := bv.AsDict()
			if aok && bok {
				out = out.Set(k, vm.Of(deepMerge(ad, bd)))
				return true
			}
		}
		out = out.Set(k, bv)
		return true
	})
	return out
}

func builtinDictFromPairs(th *vm.Thread, args vm.Args) (vm.Value, error) {
	l, ok := args.List(0)
	if !ok {
		return vm.Value{}, vm.Typef("dict_from_pairs: expected a list of pairs, got %s", args.At(0).Type())
	}
	out := vm.NewDict()
	for _, it := range l.Items() {
		switch p := it.Object().(type) {
		case *vm.Pair:
			out = out.Set(vm.ToDisplay(p.First), p.Second)
		case *vm.List:
			if p.Len() != 2 {
				return vm.Value{}, vm.Typef("dict_from_pairs: each entry must have two items, got %d", p.Len())
			}
			items := p.Items()
			out = out.Set(vm.ToDisplay(items[0]), items[1])
		default:
			return vm.Value{}, vm.Typef("dict_from_pairs: each entry must be a [key, value] list or a pair, got %s", it.Type())
		}
	}
	return vm.Of(out), nil
}

func builtinUnique(name string) vm.BuiltinFunc {
	return func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if args.At(0).IsNil() {
			return vm.Of(vm.NewList(nil)), nil
		}
		l, ok := args.List(0)
		if !ok {
			return vm.Value{}, vm.Typef("%s: expected a list, got %s", name, args.At(0).Type())
		}
		return vm.Of(lib.List(uniqueBy(l.Items(), l.Items()))), nil
	}
}

// takeWhile returns the leading run for which f holds (take) or the rest
// after it (!take).
func takeWhile(th *vm.Thread, items []vm.Value, f vm.Value, take bool) (vm.Value, error) {
	n := 0
	call := th.Prepare1(f)
	for n < len(items) {
		r, err := call.Call(items[n])
		if err != nil {
			return vm.Value{}, err
		}
		if !r.Truth() {
			break
		}
		n++
	}
	if take {
		return vm.Of(lib.List(lib.CopyItems(items[:n]))), nil
	}
	return vm.Of(lib.List(lib.CopyItems(items[n:]))), nil
}

// discriminator calls f(v) and insists on a string result (docs/spec/newer.md §2.9).
func discriminator(th *vm.Thread, name string, f, v vm.Value) (string, error) {
	k, err := th.Call1(f, v)
	if err != nil {
		return "", err
	}
	if s, ok := k.AsString(); ok {
		return s.Go(), nil
	}
	if k.IsNil() {
		return "", vm.Typef("%s: callback returned nil; expected a string discriminator (wrap with to_string(...) if you intended a scalar)", name)
	}
	return "", vm.Typef("%s: callback must return a string discriminator, got %s; wrap with to_string(...) so the bucket key is unambiguous", name, k.Type())
}

func countBy(th *vm.Thread, name string, items []vm.Value, f vm.Value) (vm.Value, error) {
	counts := map[string]int{}
	var order []string
	for _, v := range items {
		k, err := discriminator(th, name, f, v)
		if err != nil {
			return vm.Value{}, err
		}
		if _, seen := counts[k]; !seen {
			order = append(order, k)
		}
		counts[k]++
	}
	b := vm.NewDictBuilder(len(order))
	for _, k := range order {
		b.Set(k, lib.IntOf(counts[k]))
	}
	return vm.Of(b.Build()), nil
}

// keyList reads a list-or-set argument of key names.
func keyList(name string, v vm.Value) ([]string, error) {
	var items []vm.Value
	switch x := v.Object().(type) {
	case *vm.List:
		items = x.Items()
	case *vm.Set:
		items = x.Items()
	default:
		return nil, vm.Typef("%s: keys argument must be a list or set, got %s", name, v.Type())
	}
	out := make([]string, len(items))
	for i, k := range items {
		out[i] = vm.ToDisplay(k)
	}
	return out, nil
}

// pickKeys keeps the keys of d (a non-dict gives {}) that are present.
func pickKeys(v vm.Value, keys []string, dropNil bool) *vm.Dict {
	d, ok := v.AsDict()
	if !ok {
		return vm.NewDict()
	}
	b := vm.NewDictBuilder(len(keys))
	for _, k := range keys {
		if x, ok := d.Get(k); ok && !(dropNil && x.IsNil()) {
			b.Set(k, x)
		}
	}
	return b.Build()
}

// groupByString is group_by with string discriminators, groups in first
// appearance order.
func groupByString(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
	return groupWith(items, func(v vm.Value) (string, error) {
		return discriminator(th, "group_by", f, v)
	})
}

package collections

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Collection free functions (docs/spec/builtins.md §3.7) and dicts (§3.8).

func init() {
	lib.Def("chunk", "chunk(list, size?) -> list", "consecutive slices of size items", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, err := firstList("chunk", args)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(chunkList(l.Items(), args.At(1))), nil
	})
	lib.Def("window", "window(list, size?, step?) -> list", "full windows of size items, advancing by step", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, err := firstList("window", args)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(windowList(l.Items(), args.At(1), args.At(2))), nil
	})
	lib.Def("group_by", "group_by(list, f) -> dict", "dict of lists keyed by the string discriminator f(item)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, f, err := listAndCallback("group_by", args)
		if err != nil {
			return vm.Value{}, err
		}
		// The free function insists on a string discriminator (docs/spec/newer.md
		// §2.9); the .group_by method keeps April's display keys
		// (docs/builtins-areas.md, "Method and free forms of one operation").
		return groupByString(th, l.Items(), f)
	})
	lib.Def("partition", "partition(list, f) -> dict", "{match: [...], no_match: [...]}", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, f, err := listAndCallback("partition", args)
		if err != nil {
			return vm.Value{}, err
		}
		yes, no, err := partition(th, l.Items(), f)
		if err != nil {
			return vm.Value{}, err
		}
		b := vm.NewDictBuilder(2)
		b.Set("match", vm.Of(lib.List(yes)))
		b.Set("no_match", vm.Of(lib.List(no)))
		return vm.Of(b.Build()), nil
	})
	lib.Def("dedup_by", "dedup_by(list, f) -> list", "first item for each structural key of f(item)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, f, err := listAndCallback("dedup_by", args)
		if err != nil {
			return vm.Value{}, err
		}
		keys, err := mapItems(th, l.Items(), f)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.List(uniqueBy(l.Items(), keys))), nil
	})
	lib.Def("flat_map", "flat_map(list, f) -> list", "f(item), splicing list results in", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		l, f, err := listAndCallback("flat_map", args)
		if err != nil {
			return vm.Value{}, err
		}
		return flatMap(th, l.Items(), f)
	})
	lib.Def("keys", "keys(d) -> list<string>", "sorted keys of a dict", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		d, _ := args.Dict(0)
		return vm.Of(dictKeys(d)), nil
	})
	lib.Def("values", "values(d) -> list", "values of a dict in key order", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		d, _ := args.Dict(0)
		return vm.Of(dictValues(d)), nil
	})
	lib.Def("entries", "entries(d) -> list", "[{key, value}, …] in key order", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		d, _ := args.Dict(0)
		return vm.Of(dictEntries(d)), nil
	})

	dm := func(name, sig, doc string, fn func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error)) {
		lib.Method("dict", name, sig, doc, func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
			return fn(th, recv.Dict(), args)
		})
	}
	dm("keys", "d.keys()", "sorted keys", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		return vm.Of(dictKeys(d)), nil
	})
	dm("values", "d.values()", "values in key order", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		return vm.Of(dictValues(d)), nil
	})
	dm("entries", "d.entries()", "[{key, value}, …] in key order", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		return vm.Of(dictEntries(d)), nil
	})
	dm("count", "d.count()", "number of entries", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		return lib.IntOf(d.Len()), nil
	})
	dm("has", "d.has(key)", "whether key is present", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(d.Has(vm.KeyString(args.At(0)))), nil
	})
	dm("get", "d.get(key, default?)", "the value under key, or default", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		if v, ok := d.Get(vm.KeyString(args.At(0))); ok {
			return v, nil
		}
		return args.At(1), nil
	})
	dm("merge", "d.merge(other)", "union; other's values win", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		o, ok := args.Dict(0)
		if !ok {
			return vm.Of(d), nil
		}
		return vm.Of(d.Merge(o)), nil
	})
	dm("remove", "d.remove(key)", "a copy without key", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		return vm.Of(d.Delete(vm.KeyString(args.At(0)))), nil
	})
	dm("map_values", "d.map_values(f)", "f(value) for each entry", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(0)
		if !ok {
			return vm.Nil, nil
		}
		b := vm.NewDictBuilder(d.Len())
		var err error
		call := th.Prepare1(f)
		d.Range(func(k string, v vm.Value) bool {
			var r vm.Value
			r, err = call.Call(v)
			b.Set(k, r)
			return err == nil
		})
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(b.Build()), nil
	})
	dm("filter", "d.filter(f)", "entries whose value passes f(value)", func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(0)
		if !ok {
			return vm.Nil, nil
		}
		b := vm.NewDictBuilder(d.Len())
		var err error
		d.Range(func(k string, v vm.Value) bool {
			var keep bool
			keep, err = lib.Truth(th, f, v)
			if keep {
				b.Set(k, v)
			}
			return err == nil
		})
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(b.Build()), nil
	})
	rekey := func(th *vm.Thread, d *vm.Dict, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(0)
		if !ok {
			return vm.Nil, nil
		}
		b := vm.NewDictBuilder(d.Len())
		var err error
		d.Range(func(k string, v vm.Value) bool {
			var nk vm.Value
			nk, err = th.Call1(f, vm.Str(k))
			if err == nil {
				b.Set(vm.KeyString(nk), v)
			}
			return err == nil
		})
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(b.Build()), nil
	}
	dm("rekey", "d.rekey(f)", "new key display(f(key)) for each entry", rekey)
	dm("map_keys", "d.map_keys(f)", "new key display(f(key)) for each entry", rekey)
}

// firstList checks the first argument of the §3.7 functions.
func firstList(name string, args vm.Args) (*vm.List, error) {
	if args.Len() == 0 {
		return nil, vm.Runtimef("%s: first argument must be a list", name)
	}
	l, ok := args.List(0)
	if !ok {
		return nil, vm.Typef("%s: first argument must be a list, got %s", name, args[0].Type())
	}
	return l, nil
}

func listAndCallback(name string, args vm.Args) (*vm.List, vm.Value, error) {
	l, err := firstList(name, args)
	if err != nil {
		return nil, vm.Value{}, err
	}
	f, err := callbackAt(name, args, 1)
	if err != nil {
		return nil, vm.Value{}, err
	}
	return l, f, nil
}

// callbackAt is the callback argument i of name, checked as
// docs/spec/builtins.md §3.7 says for the collection free functions (and
// the method forms of the newer ones, which report the same errors).
func callbackAt(name string, args vm.Args, i int) (vm.Value, error) {
	if args.Len() <= i {
		return vm.Value{}, vm.Runtimef("%s: callback is required", name)
	}
	f, ok := args.Callable(i)
	if !ok {
		return vm.Value{}, vm.Typef("%s: callback must be callable, got %s", name, args[i].Type())
	}
	return f, nil
}

func dictKeys(d *vm.Dict) *vm.List {
	if d == nil {
		return lib.List(nil)
	}
	return lib.StrList(d.Keys())
}

func dictValues(d *vm.Dict) *vm.List {
	if d == nil {
		return lib.List(nil)
	}
	out := make([]vm.Value, 0, d.Len())
	d.Range(func(_ string, v vm.Value) bool {
		out = append(out, v)
		return true
	})
	return lib.List(out)
}

func dictEntries(d *vm.Dict) *vm.List {
	if d == nil {
		return lib.List(nil)
	}
	out := make([]vm.Value, 0, d.Len())
	d.Range(func(k string, v vm.Value) bool {
		out = append(out, vm.Of(vm.EntryDict(k, v)))
		return true
	})
	return lib.List(out)
}

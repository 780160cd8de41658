package collections

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Sets (docs/spec/builtins.md §3.9). The free set_* functions test membership by
// structural key (set_contains(set(1), 1.0) is false); the methods use
// ordinary equality (set(1).contains(1.0) is true).

func init() {
	lib.Def("set", "set(...args) -> set", "a set of the arguments (lists and sets contribute their items)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		var items []vm.Value
		for _, a := range args {
			switch x := a.Object().(type) {
			case *vm.List:
				items = append(items, x.Items()...)
			case *vm.Set:
				items = append(items, x.Items()...)
			default:
				items = append(items, a)
			}
		}
		return vm.Of(vm.NewSet(items)), nil
	})
	lib.Def("set_add", "set_add(s, v) -> set", "s with v added", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, ok := args.Set(0)
		if !ok {
			return vm.Value{}, vm.Throwf("set_add: first argument must be a set")
		}
		return vm.Of(s.Add(args.At(1))), nil
	})
	lib.Def("set_remove", "set_remove(s, v) -> set", "s without v", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, ok := args.Set(0)
		if !ok {
			return vm.Value{}, vm.Throwf("set_remove: first argument must be a set")
		}
		x := args.At(1)
		k := vm.StructuralKey(x)
		return vm.Of(keepItems(s, func(v vm.Value) bool { return !vm.Equal(v, x) || vm.StructuralKey(v) != k })), nil
	})
	lib.Def("set_contains", "set_contains(s, v) -> bool", "structural-key membership", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, ok := args.Set(0)
		return vm.BoolOf(ok && s.HasKey(args.At(1))), nil
	})
	algebra := func(name string, op func(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) *vm.Set) {
		lib.Def(name, name+"(a, b) -> set", "set algebra by structural key", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			a, ok1 := args.Set(0)
			b, ok2 := args.Set(1)
			if !ok1 || !ok2 {
				return vm.Value{}, vm.Throwf("%s: arguments must be sets", name)
			}
			return vm.Of(op(a, b, hasKey)), nil
		})
	}
	algebra("set_union", union)
	algebra("set_intersect", intersect)
	algebra("set_difference", difference)
	algebra("set_symmetric_difference", symmetricDifference)
	predicate := func(name string, fallback bool, op func(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) bool) {
		lib.Def(name, name+"(a, b) -> bool", "set relation by structural key", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			a, ok1 := args.Set(0)
			b, ok2 := args.Set(1)
			if !ok1 || !ok2 {
				return vm.BoolOf(fallback), nil
			}
			return vm.BoolOf(op(a, b, hasKey)), nil
		})
	}
	predicate("set_is_subset", false, isSubset)
	predicate("set_is_superset", false, func(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) bool { return isSubset(b, a, in) })
	predicate("set_is_disjoint", true, isDisjoint)

	sm := func(name, sig, doc string, fn func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error)) {
		lib.Method("set", name, sig, doc, func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
			return fn(th, recv.Object().(*vm.Set), args)
		})
	}
	size := func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) { return lib.IntOf(s.Len()), nil }
	sm("count", "s.count()", "number of items", size)
	sm("len", "s.len()", "number of items", size)
	sm("empty", "s.empty()", "whether the set is empty", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(s.Len() == 0), nil
	})
	sm("contains", "s.contains(v)", "whether some item equals v", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(hasEqual(s, args.At(0))), nil
	})
	sm("add", "s.add(v)", "s with v appended unless an equal item exists", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		v := args.At(0)
		if hasEqual(s, v) {
			return vm.Of(s), nil
		}
		return vm.Of(s.Add(v)), nil
	})
	remove := func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		x := args.At(0)
		return vm.Of(keepItems(s, func(v vm.Value) bool { return !vm.Equal(v, x) })), nil
	}
	sm("remove", "s.remove(v)", "s without the items equal to v", remove)
	sm("delete", "s.delete(v)", "s without the items equal to v", remove)
	binary := func(name string, nonSet func(s *vm.Set) vm.Value, op func(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) *vm.Set) {
		sm(name, "s."+name+"(other)", "set algebra by equality", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
			o, ok := args.Set(0)
			if !ok {
				return nonSet(s), nil
			}
			return vm.Of(op(s, o, hasEqual)), nil
		})
	}
	self := func(s *vm.Set) vm.Value { return vm.Of(s) }
	empty := func(*vm.Set) vm.Value { return vm.Of(vm.EmptySet) }
	binary("union", self, union)
	binary("intersect", empty, intersect)
	binary("intersection", empty, intersect)
	binary("difference", self, difference)
	binary("symmetric_difference", self, symmetricDifference)
	relation := func(name string, fallback bool, op func(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) bool) {
		sm(name, "s."+name+"(other)", "set relation by equality", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
			o, ok := args.Set(0)
			if !ok {
				return vm.BoolOf(fallback), nil
			}
			return vm.BoolOf(op(s, o, hasEqual)), nil
		})
	}
	relation("is_subset", false, isSubset)
	relation("is_superset", false, func(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) bool { return isSubset(b, a, in) })
	relation("is_disjoint", true, isDisjoint)
	sm("to_list", "s.to_list()", "the items in order", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		return vm.Of(lib.List(lib.CopyItems(s.Items()))), nil
	})
	sm("map", "s.map(f)", "mapped items, deduplicated by equality", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(0)
		if !ok {
			return vm.Nil, nil
		}
		out, err := mapItems(th, s.Items(), f)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(setByEquality(out)), nil
	})
	sm("filter", "s.filter(f)", "items where f(item) is truthy", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(0)
		if !ok {
			return vm.Nil, nil
		}
		out, err := filterItems(th, s.Items(), f, true)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(vm.NewSet(out)), nil
	})
	sm("any", "s.any(f)", "whether some item matches", func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(0)
		if !ok {
			return vm.False, nil
		}
		i, err := findIndex(th, s.Items(), f)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(i >= 0), nil
	})
	all := func(th *vm.Thread, s *vm.Set, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(0)
		if !ok {
			return vm.True, nil
		}
		out, err := filterItems(th, s.Items(), f, false)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(len(out) == 0), nil
	}
	sm("all", "s.all(f)", "whether every item matches", all)
	sm("every", "s.every(f)", "whether every item matches", all)
}

func hasKey(s *vm.Set, v vm.Value) bool { return s.HasKey(v) }

// hasEqual is membership by ordinary equality, as `v in s` asks.
func hasEqual(s *vm.Set, v vm.Value) bool { return s.Has(v) }

func keepItems(s *vm.Set, keep func(vm.Value) bool) *vm.Set {
	return s.Without(func(v vm.Value) bool { return !keep(v) })
}

// setByEquality builds a set keeping the first of each group of equal
// items.
func setByEquality(items []vm.Value) *vm.Set {
	var out []vm.Value
	for _, v := range items {
		if lib.IndexOf(out, v) < 0 {
			out = append(out, v)
		}
	}
	return vm.NewSet(out)
}

func union(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) *vm.Set {
	out := lib.CopyItems(a.Items())
	for _, v := range b.Items() {
		if !in(a, v) {
			out = append(out, v)
		}
	}
	return vm.NewSet(out)
}

func intersect(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) *vm.Set {
	return keepItems(a, func(v vm.Value) bool { return in(b, v) })
}

func difference(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) *vm.Set {
	return keepItems(a, func(v vm.Value) bool { return !in(b, v) })
}

func symmetricDifference(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) *vm.Set {
	var out []vm.Value
	for _, v := range a.Items() {
		if !in(b, v) {
			out = append(out, v)
		}
	}
	for _, v := range b.Items() {
		if !in(a, v) {
			out = append(out, v)
		}
	}
	return vm.NewSet(out)
}

func isSubset(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) bool {
	for _, v := range a.Items() {
		if !in(b, v) {
			return false
		}
	}
	return true
}

func isDisjoint(a, b *vm.Set, in func(*vm.Set, vm.Value) bool) bool {
	for _, v := range a.Items() {
		if in(b, v) {
			return false
		}
	}
	return true
}

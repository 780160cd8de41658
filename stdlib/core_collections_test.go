package stdlib_test

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

func TestListMethods(t *testing.T) {
	xs := l(i(1), i(2), i(3), i(4), i(5))
	people := l(vm.Of(d("n", s("b"), "age", i(30))), vm.Of(d("n", s("a"), "age", i(25))), vm.Of(d("n", s("c"), "age", i(30))), vm.Of(d("n", s("d"), "age", i(25))))
	age := cb(func(a vm.Args) vm.Value { v, _ := a.At(0).Object().(*vm.Dict).Get("age"); return v })
	runCore(t, []coreCase{
		{op: m(vm.Of(xs), "count"), want: "5"},
		{op: m(vm.Of(xs), "len"), err: "Runtime error: value of type list has no method `len`"}, // docs/spec/newer.md §2.11
		{op: m(vm.Of(l()), "empty"), want: "true"},
		{op: m(vm.Of(xs), "map", double), want: "[2, 4, 6, 8, 10]"},
		{op: m(vm.Of(xs), "map"), want: "nil"},
		{op: m(vm.Of(xs), "map", i(3)), want: "nil"},
		{op: m(vm.Of(xs), "filter", isEven), want: "[2, 4]"},
		{op: m(vm.Of(xs), "filter"), want: "nil"},
		{op: m(vm.Of(xs), "reduce", i(10), add), want: "25"},
		{op: m(vm.Of(xs), "reduce", add), want: "nil"},
		{op: m(vm.Of(xs), "find", isEven), want: "2"},
		{op: m(vm.Of(l(i(1))), "find", isEven), want: "nil"},
		{op: m(vm.Of(xs), "find_index", isEven), want: "1"},
		{op: m(vm.Of(xs), "find_index"), want: "-1"},
		{op: m(vm.Of(xs), "any", isEven), want: "true"},
		{op: m(vm.Of(xs), "any"), want: "false"},
		{op: m(vm.Of(xs), "all", isEven), want: "false"},
		{op: m(vm.Of(l(i(2))), "every", isEven), want: "true"},
		{op: m(vm.Of(xs), "all"), want: "true"},
		{op: m(vm.Of(xs), "none", isEven), want: "false"},
		{op: m(vm.Of(l()), "none"), want: "true"},
		{op: m(vm.Of(xs), "none"), want: "false"},
		{op: m(vm.Of(l(i(1), i(2))), "flat_map", cb(func(a vm.Args) vm.Value {
			n, _ := a.Int(0)
			if n == 1 {
				return vm.Of(l(i(1), vm.Of(l(i(1)))))
			}
			return s("x")
		})), want: "[1, [1], x]"},
		{op: m(vm.Of(l(vm.Of(l(i(1), i(2))), i(3), vm.Of(l(vm.Of(l(i(4))))))), "flatten"), want: "[1, 2, 3, [4]]"},
		{op: m(vm.Of(l(s("pear"), s("Apple"), s("apple"), s("Banana"))), "sort"), want: "[Apple, Banana, apple, pear]"},
		{op: m(vm.Of(l(i(3), f(1.5), i(2), f(0.5))), "sort"), want: "[0.5, 1.5, 2, 3]"},
		{name: "mixed kinds insertion sort", op: m(vm.Of(l(i(3), s("b"), i(1), s("a"), i(2))), "sort"), want: "[3, b, 1, a, 2]"},
		{op: m(vm.Of(people), "sort_by", age), want: "[{age: 25, n: a}, {age: 25, n: d}, {age: 30, n: b}, {age: 30, n: c}]"},
		{op: m(vm.Of(people), "sort_by"), want: "nil"},
		{op: m(vm.Of(xs), "reverse"), want: "[5, 4, 3, 2, 1]"},
		{op: m(vm.Of(l(i(4), i(9), i(1))), "max"), want: "9"},
		{op: m(vm.Of(l(i(4), f(1), i(1))), "min"), want: "1.0"},
		{op: m(vm.Of(l()), "min"), want: "nil"},
		{op: m(vm.Of(people), "min_by", age), want: "{age: 25, n: a}"},
		{op: m(vm.Of(people), "max_by", age), want: "{age: 30, n: b}"},
		{op: m(vm.Of(people), "max_by"), want: "nil"},
		{op: m(vm.Of(l(i(1), s("x"), i(2), nilv)), "sum"), want: "3", typ: "int"},
		{op: m(vm.Of(l(i(1), f(0.5))), "sum"), want: "1.5"},
		{op: m(vm.Of(l(i(9223372036854775807), i(1))), "sum"), want: "9223372036854776000", typ: "float"},
		{op: m(vm.Of(l()), "sum"), want: "0"},
		{op: m(vm.Of(l(i(1), f(2), s("x"), nilv)), "join", s("-")), want: "1-2.0-x-nil"},
		{op: m(vm.Of(l(i(1), i(2))), "join"), want: "12"},
		{op: m(vm.Of(xs), "contains", f(3)), want: "true"},
		{op: m(vm.Of(xs), "index_of", i(4)), want: "3"},
		{op: m(vm.Of(xs), "index_of", s("4")), want: "-1"},
		{op: m(vm.Of(xs), "first"), want: "1"},
		{op: m(vm.Of(xs), "first", i(2)), want: "[1, 2]"},
		{op: m(vm.Of(xs), "first", i(-2)), want: "[]"},
		{op: m(vm.Of(xs), "last"), want: "5"},
		{op: m(vm.Of(xs), "last", i(2)), want: "[4, 5]"},
		{op: m(vm.Of(l()), "last"), want: "nil"},
		{op: m(vm.Of(xs), "take", i(2)), want: "[1, 2]"},
		{op: m(vm.Of(xs), "take"), want: "[]"},
		{op: m(vm.Of(xs), "skip", i(3)), want: "[4, 5]"},
		{op: m(vm.Of(xs), "skip", i(-3)), want: "[1, 2, 3, 4, 5]"},
		{op: m(vm.Of(xs), "slice", i(1), i(3)), want: "[2, 3]"},
		{op: m(vm.Of(xs), "slice", i(-2)), want: "[4, 5]"},
		{op: m(vm.Of(xs), "slice", i(3), i(1)), want: "[]"},
		{op: m(vm.Of(xs), "slice", i(-99), i(99)), want: "[1, 2, 3, 4, 5]"},
		{op: m(vm.Of(l(i(1))), "push", i(2)), want: "[1, 2]"},
		{op: m(vm.Of(l(i(1))), "push"), want: "[1]"},
		{op: m(vm.Of(l(i(1), i(2))), "pop"), want: "[1]"},
		{op: m(vm.Of(l()), "pop"), want: "[]"},
		{op: m(vm.Of(l(i(1), f(1), i(1), s("1"))), "unique"), want: "[1, 1]"}, // docs/spec/newer.md §2.6
		{op: m(vm.Of(l(i(1), nilv, vm.False)), "compact"), want: "[1, false]"},
		{op: m(vm.Of(l(s("a"), s("b"))), "enumerate"), want: "[{index: 0, value: a}, {index: 1, value: b}]"},
		{op: m(vm.Of(l(i(1), i(2), i(3))), "zip", vm.Of(l(s("x"), s("y")))), want: "[[1, x], [2, y]]"},
		{op: m(vm.Of(l(i(1))), "zip", s("x")), want: "[]"},
		{op: m(vm.Of(xs), "partition", isEven), want: "[[2, 4], [1, 3, 5]]"},
		{op: m(vm.Of(xs), "partition"), want: "nil"},
		{op: m(vm.Of(l(i(10), i(2), i(33), i(4))), "group_by", cb(func(a vm.Args) vm.Value { n, _ := a.Int(0); return i(n % 2) })), want: "{0: [10, 2, 4], 1: [33]}"},
		{op: m(vm.Of(l(i(3), i(1), i(3), i(10))), "tally"), want: "{1: 1, 10: 1, 3: 2}"},
		{op: m(vm.Of(xs), "chunk", i(2)), want: "[[1, 2], [3, 4], [5]]"},
		{op: m(vm.Of(xs), "each_slice"), want: "[[1], [2], [3], [4], [5]]"},
		{op: m(vm.Of(xs), "chunk", i(-4)), want: "[[1], [2], [3], [4], [5]]"},
		{op: m(vm.Of(xs), "window"), want: "[[1, 2], [2, 3], [3, 4], [4, 5]]"},
		{op: m(vm.Of(xs), "sliding_window", i(3), i(2)), want: "[[1, 2, 3], [3, 4, 5]]"},
		{op: m(vm.Of(xs), "each_cons", i(9)), want: "[]"},
		{op: m(vm.Of(xs), "iter"), want: "<iter>"},
		{op: m(vm.Of(xs), "nope"), err: "Runtime error: value of type list has no method `nope`"},
		{op: m(vm.Of(xs), "map", vm.Of(boom)), err: "boom"},
	})
}

func TestCollectionFunctions(t *testing.T) {
	xs := l(i(1), i(2), i(3), i(4), i(5))
	runCore(t, []coreCase{
		{op: fn("chunk", vm.Of(xs), i(2)), want: "[[1, 2], [3, 4], [5]]"},
		{op: fn("window", vm.Of(xs), i(2), i(3)), want: "[[1, 2], [4, 5]]"},
		{op: fn("group_by", vm.Of(xs), isEven), err: "Type error: group_by: callback must return a string discriminator, got bool; wrap with to_string(...) so the bucket key is unambiguous"}, // docs/spec/newer.md §2.9
		{op: fn("partition", vm.Of(xs), isEven), want: "{match: [2, 4], no_match: [1, 3, 5]}"},
		{op: fn("dedup_by", vm.Of(l(i(1), f(1), i(3))), cb(func(a vm.Args) vm.Value { return a.At(0) })), want: "[1, 3]"}, // docs/spec/newer.md §2.6
		{op: fn("dedup_by", vm.Of(l(i(1), i(2), i(3))), isEven), want: "[1, 2]"},
		{op: fn("flat_map", vm.Of(l(i(1), i(2))), cb(func(a vm.Args) vm.Value { return vm.Of(l(a.At(0), a.At(0))) })), want: "[1, 1, 2, 2]"},
		{op: fn("chunk"), err: "Runtime error: chunk: first argument must be a list"},
		{op: fn("window", s("x")), err: "Type error: window: first argument must be a list, got string"},
		{op: fn("group_by", vm.Of(l(i(1), i(2)))), err: "Runtime error: group_by: callback is required"},
		{op: fn("partition", vm.Of(l(i(1))), i(5)), err: "Type error: partition: callback must be callable, got int"},
		{op: fn("dedup_by", nilv, ident), err: "Type error: dedup_by: first argument must be a list, got nil"},
		{op: fn("flat_map", vm.Of(l()), nilv), err: "Type error: flat_map: callback must be callable, got nil"},
		{op: fn("keys", vm.Of(d("b", i(1), "a", i(2)))), want: "[a, b]"},
		{op: fn("values", vm.Of(d("b", i(1), "a", i(2)))), want: "[2, 1]"},
		{op: fn("entries", vm.Of(d("a", i(1)))), want: "[{key: a, value: 1}]"},
		{op: fn("keys", vm.Of(l(i(1)))), want: "[]"},
		{op: fn("entries", nilv), want: "[]"},
	})
}

func TestDictMethods(t *testing.T) {
	dd := d("b", i(2), "a", i(1))
	runCore(t, []coreCase{
		{op: m(vm.Of(dd), "keys"), want: "[a, b]"},
		{op: m(vm.Of(dd), "values"), want: "[1, 2]"},
		{op: m(vm.Of(dd), "entries"), want: "[{key: a, value: 1}, {key: b, value: 2}]"},
		{op: m(vm.Of(dd), "count"), want: "2"},
		{op: m(vm.Of(dd), "len"), err: "Runtime error: dict has no method `len`"}, // docs/spec/newer.md §2.11
		{op: m(vm.Of(dd), "has", s("a")), want: "true"},
		{op: m(vm.Of(d("1", i(5))), "has", i(1)), want: "true"},
		{op: m(vm.Of(dd), "contains", s("a")), err: "Runtime error: dict has no method `contains`"}, // docs/spec/newer.md §2.11
		{op: m(vm.Of(dd), "get", s("z"), i(0)), want: "0"},
		{op: m(vm.Of(dd), "get", s("z")), want: "nil"},
		{op: m(vm.Of(d("k", nilv)), "get", s("k"), i(0)), want: "nil"},
		{op: m(vm.Of(dd), "merge", vm.Of(d("a", i(9), "c", i(3)))), want: "{a: 9, b: 2, c: 3}"},
		{op: m(vm.Of(dd), "merge", i(3)), want: "{a: 1, b: 2}"},
		{op: m(vm.Of(dd), "remove", s("a")), want: "{b: 2}"},
		{op: m(vm.Of(dd), "remove", s("zz")), want: "{a: 1, b: 2}"},
		{op: m(vm.Of(dd), "map_values", double), want: "{a: 2, b: 4}"},
		{op: m(vm.Of(dd), "map_values"), want: "nil"},
		{op: m(vm.Of(dd), "filter", isEven), want: "{b: 2}"},
		{op: m(vm.Of(dd), "rekey", cb(func(a vm.Args) vm.Value { return s("k") })), want: "{k: 2}"},
		{op: m(vm.Of(dd), "map_keys", cb(func(a vm.Args) vm.Value { return vm.Of(l(a.At(0))) })), want: "{[a]: 1, [b]: 2}"},
		{op: m(vm.Of(dd), "iter"), want: "<iter>"},
		{op: m(vm.Of(d("f", double)), "f", i(4)), want: "8"},
		{op: m(vm.Of(dd), "nothing"), err: "Runtime error: dict has no method `nothing`"},
	})
}

func TestSets(t *testing.T) {
	st := set(i(3), i(1), i(2))
	runCore(t, []coreCase{
		{op: fn("set", i(3), i(1), i(3), i(2)), want: "set(3, 1, 2)"},
		{op: fn("set", i(1), f(1)), want: "set(1)"}, // docs/spec/newer.md §2.6
		{op: fn("set", vm.Of(l(i(1), i(2))), vm.Of(set(i(2), i(3))), s("ab")), want: "set(1, 2, 3, ab)"},
		{op: fn("set"), want: "set()"},
		{op: fn("set_add", vm.Of(st), i(4)), want: "set(3, 1, 2, 4)"},
		{op: fn("set_add", vm.Of(st), f(1)), want: "set(3, 1, 2)"},
		{op: fn("set_add", vm.Of(l()), i(1)), err: "set_add: first argument must be a set"},
		{op: fn("set_remove", vm.Of(st), i(1)), want: "set(3, 2)"},
		{op: fn("set_remove", vm.Of(st), f(1)), want: "set(3, 2)"},
		{op: fn("set_remove", i(1), i(1)), err: "set_remove: first argument must be a set"},
		{op: fn("set_contains", vm.Of(set(i(1))), f(1)), want: "true"},
		{op: fn("set_contains", vm.Of(l(i(1))), i(1)), want: "false"},
		{op: fn("set_union", vm.Of(set(i(1), i(2))), vm.Of(set(i(2), i(3)))), want: "set(1, 2, 3)"},
		{op: fn("set_intersect", vm.Of(set(i(1), i(2))), vm.Of(set(i(2), i(3)))), want: "set(2)"},
		{op: fn("set_difference", vm.Of(set(i(1), i(2))), vm.Of(set(i(2), i(3)))), want: "set(1)"},
		{op: fn("set_symmetric_difference", vm.Of(set(i(1), i(2))), vm.Of(set(i(2), i(3)))), want: "set(1, 3)"},
		{op: fn("set_union", vm.Of(set()), vm.Of(l())), err: "set_union: arguments must be sets"},
		{op: fn("set_intersect", vm.Of(l()), vm.Of(set())), err: "set_intersect: arguments must be sets"},
		{op: fn("set_difference"), err: "set_difference: arguments must be sets"},
		{op: fn("set_symmetric_difference", vm.Of(set()), i(1)), err: "set_symmetric_difference: arguments must be sets"},
		{op: fn("set_is_subset", vm.Of(set(i(1))), vm.Of(set(i(1), i(2)))), want: "true"},
		{op: fn("set_is_subset", vm.Of(set(i(1))), vm.Of(set(f(1)))), want: "true"},
		{op: fn("set_is_superset", vm.Of(set(i(1), i(2))), vm.Of(set(i(2)))), want: "true"},
		{op: fn("set_is_disjoint", vm.Of(set(i(1))), vm.Of(set(i(2)))), want: "true"},
		{op: fn("set_is_subset", vm.Of(set()), vm.Of(l())), want: "false"},
		{op: fn("set_is_superset", vm.Of(set()), vm.Of(l())), want: "false"},
		{op: fn("set_is_disjoint", vm.Of(set(i(1))), vm.Of(l(i(1)))), want: "true"},
		{op: m(vm.Of(st), "count"), want: "3"},
		{op: m(vm.Of(st), "len"), want: "3"},
		{op: m(vm.Of(set()), "empty"), want: "true"},
		{op: m(vm.Of(set(i(1))), "contains", f(1)), want: "true"},
		{op: m(vm.Of(st), "add", i(1)), want: "set(3, 1, 2)"},
		{op: m(vm.Of(st), "add", f(1)), want: "set(3, 1, 2)"},
		{op: m(vm.Of(st), "add", i(4)), want: "set(3, 1, 2, 4)"},
		{op: m(vm.Of(st), "remove", f(1)), want: "set(3, 2)"},
		{op: m(vm.Of(st), "delete", i(3)), want: "set(1, 2)"},
		{op: m(vm.Of(set(i(1), i(2))), "union", vm.Of(set(f(2), i(3)))), want: "set(1, 2, 3)"},
		{op: m(vm.Of(set(i(1), i(2))), "intersect", vm.Of(set(f(2), i(3)))), want: "set(2)"},
		{op: m(vm.Of(set(i(1), i(2))), "intersection", vm.Of(set(i(2)))), want: "set(2)"},
		{op: m(vm.Of(set(i(1), i(2))), "difference", vm.Of(set(f(2)))), want: "set(1)"},
		{op: m(vm.Of(set(i(1), i(2))), "symmetric_difference", vm.Of(set(f(2), i(3)))), want: "set(1, 3)"},
		{op: m(vm.Of(st), "union", vm.Of(l())), want: "set(3, 1, 2)"},
		{op: m(vm.Of(st), "intersect", vm.Of(l())), want: "set()"},
		{op: m(vm.Of(st), "difference", vm.Of(l())), want: "set(3, 1, 2)"},
		{op: m(vm.Of(st), "symmetric_difference", vm.Of(l())), want: "set(3, 1, 2)"},
		{op: m(vm.Of(set(i(1))), "is_subset", vm.Of(set(f(1)))), want: "true"},
		{op: m(vm.Of(set(i(1))), "is_superset", i(1)), want: "false"},
		{op: m(vm.Of(set(i(1))), "is_disjoint", i(1)), want: "true"},
		{op: m(vm.Of(st), "to_list"), want: "[3, 1, 2]"},
		{op: m(vm.Of(set(i(1), i(2), i(3))), "map", cb(func(a vm.Args) vm.Value { n, _ := a.Int(0); return i(n / 2) })), want: "set(0, 1)"},
		{op: m(vm.Of(set(i(1), i(2))), "map", cb(func(a vm.Args) vm.Value { n, _ := a.Int(0); return f(float64(n / 2)) })), want: "set(0.0, 1.0)"},
		{op: m(vm.Of(st), "map"), want: "nil"},
		{op: m(vm.Of(st), "filter", isEven), want: "set(2)"},
		{op: m(vm.Of(st), "any", isEven), want: "true"},
		{op: m(vm.Of(st), "any"), want: "false"},
		{op: m(vm.Of(st), "all", isEven), want: "false"},
		{op: m(vm.Of(st), "every"), want: "true"},
		{op: m(vm.Of(st), "iter"), want: "<iter>"},
	})
}

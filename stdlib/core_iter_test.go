package stdlib_test

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

func rng(a, b int64, inclusive bool) *vm.Range {
	return &vm.Range{Start: a, End: b, Inclusive: inclusive}
}

// iterOf makes a fresh iterator over items on e's thread.
func iterOf(t *testing.T, e *coreEnv, x vm.Value) vm.Value {
	t.Helper()
	it, err := e.run(t, fn("iter", x))
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func TestRanges(t *testing.T) {
	r := rng(1, 4, true)
	runCore(t, []coreCase{
		{op: fn("range", i(3)), want: "0 to 3 exclusive"},
		{op: fn("range", i(2), i(5)), want: "2 to 5 exclusive"},
		{op: fn("range", s("3")), err: "Type error: range(n): expected integer argument"},
		{op: fn("range", i(1), f(2)), err: "Type error: range(a, b): expected integer arguments"},
		{op: fn("range"), err: "Type error: range expects 1 or 2 integer arguments, got 0"},
		{op: fn("range", i(1), i(2), i(3)), err: "Type error: range expects 1 or 2 integer arguments, got 3"},
		{op: m(vm.Of(r), "len"), want: "4"},
		{op: m(vm.Of(r), "count"), want: "4"},
		{op: m(vm.Of(rng(5, 1, true)), "empty"), want: "true"},
		{op: m(vm.Of(r), "contains", i(4)), want: "true"},
		{op: m(vm.Of(rng(0, 4, false)), "contains", i(4)), want: "false"},
		{op: m(vm.Of(r), "contains", f(2)), want: "false"},
		{op: m(vm.Of(r), "first"), want: "1"},
		{op: m(vm.Of(r), "last"), want: "4"},
		{op: m(vm.Of(rng(0, 4, false)), "last"), want: "3"},
		{op: m(vm.Of(rng(3, 3, false)), "first"), want: "nil"},
		{op: m(vm.Of(r), "to_string"), want: "1 to 4"},
		{op: m(vm.Of(r), "map", double), want: "<iter>"},
		{op: m(vm.Of(r), "to_list"), want: "[1, 2, 3, 4]"},
		{op: m(vm.Of(r), "sum"), want: "10"},
		{op: m(vm.Of(r), "iter"), want: "<iter>"},
		{op: m(vm.Of(r), "nope"), err: "Runtime error: value of type range has no method `nope`"}, // docs/spec/newer.md §2.11
		{op: fn("pair", i(1), s("a")), want: "(1, a)"},
		{op: fn("pair", i(1)), err: "Type error: pair: expected 2 arguments, got 1"},
	})
}

func TestIterators(t *testing.T) {
	xs := l(i(1), i(2), i(3), i(4), i(5))
	cases := []struct {
		src  vm.Value
		name string
		args []vm.Value
		then string // a sink applied to the result when non-empty
		want string
		err  string
	}{
		{vm.Of(xs), "map", args(double), "to_list", "[2, 4, 6, 8, 10]", ""},
		{vm.Of(xs), "filter", args(isEven), "to_list", "[2, 4]", ""},
		{vm.Of(l(i(1), i(2))), "flat_map", args(cb(func(a vm.Args) vm.Value { return vm.Of(l(a.At(0), i(0))) })), "to_list", "[1, 0, 2, 0]", ""},
		{vm.Of(l(i(1))), "flat_map", args(cb(func(a vm.Args) vm.Value { return vm.Of(rng(1, 3, true)) })), "to_list", "[1, 2, 3]", ""},
		{vm.Of(l(i(1))), "flat_map", args(ident), "to_list", "[1]", ""},
		{vm.Of(xs), "take", args(i(2)), "to_list", "[1, 2]", ""},
		{vm.Of(xs), "skip", args(i(3)), "to_list", "[4, 5]", ""},
		{vm.Of(xs), "take_while", args(cb(func(a vm.Args) vm.Value { n, _ := a.Int(0); return vm.BoolOf(n < 3) })), "to_list", "[1, 2]", ""},
		{vm.Of(xs), "skip_while", args(cb(func(a vm.Args) vm.Value { n, _ := a.Int(0); return vm.BoolOf(n < 3) })), "to_list", "[3, 4, 5]", ""},
		{vm.Of(xs), "zip", args(vm.Of(l(s("a"), s("b")))), "to_list", "[(1, a), (2, b)]", ""},
		{vm.Of(xs), "enumerate", nil, "first", "(0, 1)", ""},
		{vm.Of(l(i(1))), "chain", args(vm.Of(set(i(2)))), "to_list", "[1, 2]", ""},
		{vm.Of(xs), "chunks", args(i(2)), "to_list", "[[1, 2], [3, 4], [5]]", ""},
		{vm.Of(xs), "windows", args(i(4)), "to_list", "[[1, 2, 3, 4], [2, 3, 4, 5]]", ""},
		{vm.Of(xs), "to_list", nil, "", "[1, 2, 3, 4, 5]", ""},
		{vm.Of(l(i(1), f(1), i(2))), "to_set", nil, "", "set(1, 2)", ""},
		{vm.Of(d("b", i(1), "a", i(2))), "to_dict", nil, "", "{a: 2, b: 1}", ""},
		{vm.Of(xs), "count", nil, "", "5", ""},
		{vm.Of(xs), "sum", nil, "", "15", ""},
		{vm.Of(l(i(1), f(0.5))), "sum", nil, "", "1.5", ""},
		{vm.Of(l(i(3), i(1), i(3))), "min", nil, "", "1", ""},
		{vm.Of(l(i(3), i(1), i(3))), "max", nil, "", "3", ""},
		{vm.Of(l()), "max", nil, "", "nil", ""},
		{vm.Of(xs), "reduce", args(i(0), add), "", "15", ""},
		{vm.Of(xs), "first", nil, "", "1", ""},
		{vm.Of(l()), "first", nil, "", "nil", ""},
		{vm.Of(xs), "last", nil, "", "5", ""},
		{vm.Of(xs), "any", args(isEven), "", "true", ""},
		{vm.Of(xs), "all", args(isEven), "", "false", ""},
		{vm.Of(xs), "find", args(isEven), "", "2", ""},
		{vm.Of(l(i(1))), "find", args(isEven), "", "nil", ""},
		{vm.Of(xs), "for_each", args(ident), "", "nil", ""},
		{vm.Of(xs), "iter", nil, "", "<iter>", ""},
		{vm.Of(xs), "nope", nil, "", "", "Runtime error: value of type iter has no method `nope`"}, // docs/spec/newer.md §2.11
		{s("hé"), "to_list", nil, "", "[h, é]", ""},
		{vm.Of(rng(0, 3, false)), "to_list", nil, "", "[0, 1, 2]", ""},
		// errors
		{vm.Of(xs), "map", nil, "", "", "Type error: iter.map: expected callable"},
		{vm.Of(xs), "filter", args(i(1)), "", "", "Type error: iter.filter: expected callable"},
		{vm.Of(xs), "flat_map", nil, "", "", "Type error: iter.flat_map: expected callable"},
		{vm.Of(xs), "take_while", nil, "", "", "Type error: iter.take_while: expected callable"},
		{vm.Of(xs), "skip_while", nil, "", "", "Type error: iter.skip_while: expected callable"},
		{vm.Of(xs), "any", nil, "", "", "Type error: iter.any: expected callable"},
		{vm.Of(xs), "all", nil, "", "", "Type error: iter.all: expected callable"},
		{vm.Of(xs), "find", nil, "", "", "Type error: iter.find: expected callable"},
		{vm.Of(xs), "for_each", nil, "", "", "Type error: iter.for_each: expected callable"},
		{vm.Of(xs), "take", args(i(-1)), "", "", "Type error: iter.take: expected non-negative int"},
		{vm.Of(xs), "skip", args(s("1")), "", "", "Type error: iter.skip: expected non-negative int"},
		{vm.Of(xs), "chunks", args(i(0)), "", "", "Type error: iter.chunks: chunk size must be positive"},
		{vm.Of(xs), "windows", nil, "", "", "Type error: iter.windows: window size must be positive"},
		{vm.Of(xs), "to_dict", nil, "", "", "Type error: iter.to_dict: expected pair, got int"},
		{vm.Of(l(vm.Of(&vm.Pair{First: i(1), Second: i(2)}))), "to_dict", nil, "", "", "Type error: iter.to_dict: expected string key, got int"},
		{vm.Of(l(i(1), s("x"))), "sum", nil, "", "", "Type error: iter.sum: expected number, got string"},
		{vm.Of(xs), "reduce", args(i(0)), "", "", "Type error: iter.reduce: expected (init, fn)"},
		{vm.Of(xs), "reduce", args(i(0), i(1)), "", "", "Type error: iter.reduce: second arg must be callable"},
		{vm.Of(xs), "zip", args(i(1)), "", "", "Type error: iter.zip: value of type int is not iterable"},
		{vm.Of(xs), "map", args(vm.Of(boom)), "to_list", "", "boom"},
	}
	for _, c := range cases {
		e := newCore()
		it := iterOf(t, e, c.src)
		got, err := e.th.CallMethod(it, c.name, c.args...)
		if err == nil && c.then != "" {
			got, err = e.th.CallMethod(got, c.then)
		}
		label := show(c.src) + "." + c.name
		if c.err != "" {
			if err == nil || caught(err) != c.err {
				t.Errorf("%s: got %v / %v, want error %q", label, got, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s", label, caught(err))
			continue
		}
		if show(got) != c.want {
			t.Errorf("%s: got %s, want %s", label, show(got), c.want)
		}
	}

	runCore(t, []coreCase{
		{op: fn("iter"), err: "Type error: iter: expected 1 argument"},
		{op: fn("iter", i(5)), err: "Type error: iter: value of type int is not iterable"},
		{op: fn("iter", nilv), err: "Type error: iter: value of type nil is not iterable"},
	})
}

func TestIteratorProtocol(t *testing.T) {
	e := newCore()
	it := iterOf(t, e, vm.Of(l(i(1), i(2), i(3))))
	if again, _ := e.run(t, fn("iter", it)); !vm.Identical(again, it) {
		t.Error("iter of an iterator must be the same iterator")
	}
	if it.Type() != "iter" || !it.Truth() || !vm.Equal(it, it) || vm.Equal(it, iterOf(t, e, vm.Of(l()))) {
		t.Error("iterator kind, truth or equality")
	}
	head, _ := e.th.CallMethod(it, "take", i(2))
	got, _ := e.th.CallMethod(head, "to_list")
	if show(got) != "[1, 2]" || show(head) != "<iter (exhausted)>" || show(it) != "<iter>" {
		t.Errorf("take: %s %s %s", show(got), show(head), show(it))
	}
	rest, _ := e.th.CallMethod(it, "to_list")
	again, _ := e.th.CallMethod(it, "to_list")
	if show(rest) != "[3]" || show(again) != "[]" || show(it) != "<iter (exhausted)>" {
		t.Errorf("single pass: %s %s %s", show(rest), show(again), show(it))
	}

	// a for loop over a mapped iterator walks it through vm.Iterate
	mapped, _ := e.th.CallMethod(iterOf(t, e, vm.Of(l(i(1), i(2)))), "map", double)
	var seen []string
	loop := vm.Iterate(mapped)
	for {
		v, ok, err := loop.Next()
		if err != nil || !ok {
			break
		}
		seen = append(seen, show(v))
	}
	if len(seen) != 2 || seen[1] != "4" {
		t.Errorf("for loop over iterator: %v", seen)
	}

	// snapshot: the source collection is a value
	src := l(i(1))
	it2 := iterOf(t, e, vm.Of(src))
	src.Push(i(2))
	if got, _ := e.th.CallMethod(it2, "to_list"); show(got) != "[1]" {
		t.Errorf("snapshot: %s", show(got))
	}

	// dict iterators yield pairs in key order
	pairs, _ := e.th.CallMethod(iterOf(t, e, vm.Of(d("b", i(1), "a", i(2)))), "to_list")
	if show(pairs) != "[(a, 2), (b, 1)]" {
		t.Errorf("dict iter: %s", show(pairs))
	}
}

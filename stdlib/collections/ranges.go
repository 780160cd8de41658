package collections

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Ranges and pairs (docs/spec/builtins.md §3.10). A range answers a few methods
// itself; any other method lifts it into a lazy iterator first, so
// `(1 to 3).map(f)` is an iterator and `(1 to 4).sum()` is 10.

func init() {
	lib.Def("range", "range(n) -> range / range(a, b) -> range", "0 to n exclusive / a to b exclusive", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		switch args.Len() {
		case 1:
			n, ok := args.Int(0)
			if !ok {
				return vm.Value{}, vm.Typef("range(n): expected integer argument")
			}
			return vm.Of(&vm.Range{Start: 0, End: n}), nil
		case 2:
			a, ok1 := args.Int(0)
			b, ok2 := args.Int(1)
			if !ok1 || !ok2 {
				return vm.Value{}, vm.Typef("range(a, b): expected integer arguments")
			}
			return vm.Of(&vm.Range{Start: a, End: b}), nil
		}
		return vm.Value{}, vm.Typef("range expects 1 or 2 integer arguments, got %d", args.Len())
	})
	lib.Def("pair", "pair(a, b)", "the pair (a, b)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if args.Len() != 2 {
			return vm.Value{}, vm.Typef("pair: expected 2 arguments, got %d", args.Len())
		}
		return vm.Of(&vm.Pair{First: args[0], Second: args[1]}), nil
	})

	rm := func(name, sig, doc string, fn func(r *vm.Range, args vm.Args) vm.Value) {
		lib.Method("range", name, sig, doc, func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
			return fn(recv.Object().(*vm.Range), args), nil
		})
	}
	size := func(r *vm.Range, args vm.Args) vm.Value { return vm.IntOf(r.Len()) }
	rm("len", "r.len()", "number of elements", size)
	rm("count", "r.count()", "number of elements", size)
	rm("empty", "r.empty()", "whether the range is empty", func(r *vm.Range, args vm.Args) vm.Value {
		return vm.BoolOf(r.Len() == 0)
	})
	rm("contains", "r.contains(n)", "whether the int n is in the range", func(r *vm.Range, args vm.Args) vm.Value {
		n, ok := args.Int(0)
		return vm.BoolOf(ok && vm.Contains(vm.Of(r), vm.IntOf(n)))
	})
	rm("first", "r.first()", "the first element, nil when empty", func(r *vm.Range, args vm.Args) vm.Value {
		if r.Len() == 0 {
			return vm.Nil
		}
		return vm.IntOf(r.Start)
	})
	rm("last", "r.last()", "the last element, nil when empty", func(r *vm.Range, args vm.Args) vm.Value {
		last, ok := r.Last()
		if !ok {
			return vm.Nil
		}
		return vm.IntOf(last)
	})
	rm("to_string", "r.to_string()", "the display form", func(r *vm.Range, args vm.Args) vm.Value {
		return vm.Str(vm.ToDisplay(vm.Of(r)))
	})
	lib.Method("range", "*", "r.NAME(...)", "any other method: lift the range into an iterator", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		name := args.Text(0)
		if th.VM().Universe.Method("iter", name) == nil {
			return vm.Value{}, th.VM().Universe.NoMethod("range", name, "iter") // docs/spec/newer.md §2.11
		}
		it, _ := toIter(th, recv)
		return th.CallMethod(vm.Of(it), name, args[1:]...)
	})
}

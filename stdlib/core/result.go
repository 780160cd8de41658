package core

import (
	"github.com/harnlang/harn/stdlib/internal/errcat"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Assertions, error values and Result helpers (docs/spec/builtins.md §3.3).

func init() {
	lib.Def("assert", "assert(cond, msg?)", "throw msg (or `Assertion failed`) when cond is falsy", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if args.At(0).Truth() {
			return vm.Nil, nil
		}
		if args.Has(1) {
			return vm.Value{}, vm.Throw(vm.Str(args.Text(1)))
		}
		return vm.Value{}, vm.Throwf("Assertion failed")
	})
	lib.Def("assert_eq", "assert_eq(actual, expected, msg?)", "throw unless actual == expected", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if args.Len() < 2 {
			return vm.Value{}, vm.Throwf("assert_eq requires at least 2 arguments")
		}
		if vm.Equal(args[0], args[1]) {
			return vm.Nil, nil
		}
		if args.Has(2) {
			return vm.Value{}, vm.Throw(vm.Str(args.Text(2)))
		}
		return vm.Value{}, vm.Throwf("Assertion failed: expected %s, got %s", lib.Display(args[1]), lib.Display(args[0]))
	})
	lib.Def("assert_ne", "assert_ne(a, b, msg?)", "throw if a == b", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if args.Len() < 2 {
			return vm.Value{}, vm.Throwf("assert_ne requires at least 2 arguments")
		}
		if !vm.Equal(args[0], args[1]) {
			return vm.Nil, nil
		}
		if args.Has(2) {
			return vm.Value{}, vm.Throw(vm.Str(args.Text(2)))
		}
		return vm.Value{}, vm.Throwf("Assertion failed: values should not be equal: %s", lib.Display(args[0]))
	})
	lib.Def("unreachable", "unreachable(v?)", "fail: unreachable code was reached", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if args.Has(0) {
			e := vm.Runtimef("unreachable code was reached: %s", args.Text(0))
			e.Redacted = "unreachable code was reached"
			return vm.Value{}, e
		}
		return vm.Value{}, vm.Runtimef("unreachable code was reached")
	})
	lib.Def("throw_error", "throw_error(message, category?)", "throw {category, message}", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		cat := "generic"
		if c := args.Text(1); errcat.IsCategory(c) {
			cat = c
		}
		b := vm.NewDictBuilder(2)
		b.Set("category", vm.Str(cat))
		b.Set("message", vm.Str(args.Text(0)))
		return vm.Value{}, vm.Throw(vm.Of(b.Build()))
	})
	lib.Def("error_category", "error_category(err) -> string", "the category of an error value", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(errorCategory(args.At(0))), nil
	})
	lib.Def("is_timeout", "is_timeout(err) -> bool", `whether err's category is "timeout"`, func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(hasCategory(args.At(0), "timeout")), nil
	})
	lib.Def("is_rate_limited", "is_rate_limited(err) -> bool", `whether err's category is "rate_limit"`, func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(hasCategory(args.At(0), "rate_limit")), nil
	})

	lib.Def("Ok", "Ok(v?)", "Result.Ok(v)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Of(vm.Ok(args.At(0))), nil
	})
	lib.Def("Err", "Err(v?)", "Result.Err(v)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Of(vm.Err(args.At(0))), nil
	})
	lib.Def("is_ok", "is_ok(v) -> bool", "whether v is Result.Ok", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		ok, is := vm.IsResult(args.At(0))
		return vm.BoolOf(is && ok), nil
	})
	lib.Def("is_err", "is_err(v) -> bool", "whether v is Result.Err", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		ok, is := vm.IsResult(args.At(0))
		return vm.BoolOf(is && !ok), nil
	})
	lib.Def("unwrap", "unwrap(v)", "an Ok's payload; fails on Err; other values unchanged", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		v := args.At(0)
		ok, is := vm.IsResult(v)
		if !is {
			return v, nil
		}
		p := lib.Payload(v.Object().(*vm.EnumValue))
		if !ok {
			e := vm.Runtimef("unwrap called on Err: %s", lib.Display(p))
			e.Redacted = "unwrap called on Err"
			return vm.Value{}, e
		}
		return p, nil
	})
	lib.Def("unwrap_or", "unwrap_or(v, default)", "an Ok's payload, default for Err, other values unchanged", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		v := args.At(0)
		ok, is := vm.IsResult(v)
		switch {
		case !is:
			return v, nil
		case ok:
			return lib.Payload(v.Object().(*vm.EnumValue)), nil
		}
		return args.At(1), nil
	})
	lib.Def("unwrap_err", "unwrap_err(v)", "an Err's payload; fails on anything else", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		v := args.At(0)
		if ok, is := vm.IsResult(v); is && !ok {
			return lib.Payload(v.Object().(*vm.EnumValue)), nil
		}
		return vm.Value{}, vm.Runtimef("unwrap_err called on non-Err")
	})
}

// errorCategory: a dict's `category` field, a classified string, else
// "generic".
func errorCategory(v vm.Value) string {
	if x, ok := v.AsString(); ok {
		return errcat.OfText(x.Go())
	}
	switch x := v.Object().(type) {
	case *vm.Dict:
		if c, ok := x.Get("category"); ok {
			return vm.ToDisplay(c)
		}
		return "generic"
	}
	return "generic"
}

func hasCategory(v vm.Value, cat string) bool {
	if x, ok := v.AsString(); ok {
		return errcat.OfText(x.Go()) == cat
	}
	switch x := v.Object().(type) {
	case *vm.Dict:
		c, ok := x.Get("category")
		return ok && vm.ToDisplay(c) == cat
	}
	return false
}

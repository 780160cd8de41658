package core

import (
	"fmt"
	"math"

	"github.com/harnlang/harn/internal/numtext"
	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Types and conversion (docs/spec/builtins.md §3.2).

func init() {
	lib.Def("type_of", "type_of(v) -> string", "the type name of v", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(args.At(0).Type()), nil
	})
	lib.Def("to_string", "to_string(v) -> string", "the display form of v", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(args.Text(0)), nil
	}).MarkToString()
	lib.Def("to_int", "to_int(v) -> int?", "v as an int, or nil", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return toInt(args.At(0)), nil
	})
	lib.Def("to_float", "to_float(v) -> float?", "v as a float, or nil", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return toFloatValue(args.At(0)), nil
	})
	lib.Def("len", "len(v: string | bytes | list | dict | set | range) -> int", "length of a string (chars), bytes, list, dict, set or range; else 0", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return lib.IntOf(length(args.At(0))), nil
	})
	lib.Def("to_list", "to_list(v) -> list", "a set's items, a list itself, else [v]", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		switch v := args.At(0).Object().(type) {
		case *vm.List:
			return vm.Of(v), nil
		case *vm.Set:
			return vm.Of(lib.List(append([]vm.Value(nil), v.Items()...))), nil
		}
		return vm.Of(lib.List([]vm.Value{args.At(0)})), nil
	})
	lib.Def("is_same", "is_same(a, b) -> bool", "identity for lists, dicts, sets, closures and pairs; equality otherwise", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, b := args.At(0), args.At(1)
		if identityKind(a) {
			return vm.BoolOf(identityKind(b) && vm.Identical(a, b)), nil
		}
		return vm.BoolOf(vm.Equal(a, b)), nil
	})
	lib.Def("addr_of", "addr_of(v) -> string", "an identity key for v", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(addrOf(args.At(0))), nil
	})
	lib.Def("hash_value", "hash_value(v) -> int", "64-bit FNV-1a of v's structural key", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.IntOf(fnv1a(vm.StructuralKey(args.At(0)))), nil
	})
}

// identityKind reports whether v is compared by allocation in is_same.
func identityKind(v vm.Value) bool {
	switch v.Object().(type) {
	case *vm.List, *vm.Dict, *vm.Set, *vm.Closure, *vm.Pair:
		return true
	}
	return false
}

func addrOf(v vm.Value) string {
	switch x := v.Object().(type) {
	case *vm.List, *vm.Dict, *vm.Set, *vm.Closure, *vm.Pair:
		return fmt.Sprintf("%s@%p", v.Type(), x)
	case *vm.Builtin:
		return "builtin@" + x.Name()
	}
	return v.Type() + "@" + vm.ToDisplay(v)
}

// fnv1a is 64-bit FNV-1a, reinterpreted as a signed int.
func fnv1a(s string) int64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return int64(h)
}

func toInt(v vm.Value) vm.Value {
	if x, ok := v.AsString(); ok {
		// docs/spec/newer.md §2.12: surrounding whitespace is trimmed first
		n, ok := numtext.Int(x.Go())
		if !ok {
			return vm.Nil
		}
		return vm.IntOf(n)
	}
	if _, ok := v.AsInt(); ok {
		return v
	}
	if x, ok := v.AsFloat(); ok {
		// docs/spec/newer.md §2.12: NaN and floats outside the int range give nil
		// (April saturated them and mapped NaN to 0)
		f := float64(x)
		if math.IsNaN(f) || f >= 9223372036854775807 || f < -9223372036854775808 {
			return vm.Nil
		}
		return vm.IntOf(int64(f))
	}
	switch x := v.Object().(type) {
	case *decimal.Decimal:
		return x.ToInt()
	case vm.Bool:
		// docs/spec/newer.md §2.12: bools convert to 1 and 0
		if x {
			return vm.IntOf(1)
		}
		return vm.IntOf(0)
	}
	return vm.Nil
}

func toFloatValue(v vm.Value) vm.Value {
	if x, ok := v.AsString(); ok {
		if f, ok := numtext.Float(x.Go()); ok {
			return vm.FloatOf(f)
		}
	}
	if _, ok := v.AsFloat(); ok {
		return v
	}
	if n, ok := v.AsInt(); ok {
		return vm.FloatOf(float64(n))
	}
	if x, ok := decimal.Of(v); ok {
		return x.ToFloat()
	}
	return vm.Nil
}

// length is len(v): chars of a string, bytes, elements of collections and
// ranges; 0 for anything else.
func length(v vm.Value) int {
	if x, ok := v.AsString(); ok {
		return x.Len()
	}
	switch x := v.Object().(type) {
	case *vm.List:
		return x.Len()
	case *vm.Dict:
		return x.Len()
	case *vm.Set:
		return x.Len()
	case *vm.Range:
		return int(x.Len())
	case *lib.Bytes:
		return len(x.Data())
	}
	return 0
}

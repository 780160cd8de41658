package check

import (
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// Results of builtin methods whose type does not depend on their
// arguments' values (docs/spec/builtins.md §2–3): a call with the arity
// its signature allows always gives one (a lenient call with too few
// arguments may give nil instead, so it stays any). Methods whose result
// may be nil (`first`, `find`, `char_at`, `max`) are left out, and `sum`
// is typed only for a list of ints or of floats: the checker gives a type
// only where it is sure.
var (
	stringMethodResults = map[string]types.Type{
		"upper": types.String, "lower": types.String, "to_upper": types.String, "to_lower": types.String,
		"uppercase": types.String, "lowercase": types.String,
		"trim": types.String, "trim_start": types.String, "trim_end": types.String,
		"reverse": types.String, "reversed": types.String, "repeat": types.String, "replace": types.String,
		"pad_left": types.String, "pad_right": types.String, "slice": types.String, "substring": types.String,
		"len": types.Int, "count": types.Int, "index_of": types.Int, "last_index_of": types.Int,
		"contains": types.Bool, "includes": types.Bool, "starts_with": types.Bool, "ends_with": types.Bool, "empty": types.Bool,
		"split": &types.List{Elem: types.String}, "lines": &types.List{Elem: types.String}, "chars": &types.List{Elem: types.String},
	}
	listMethodResults = map[string]types.Type{
		"count": types.Int, "index_of": types.Int, "find_index": types.Int,
		"contains": types.Bool, "includes": types.Bool, "empty": types.Bool,
		"any": types.Bool, "all": types.Bool, "every": types.Bool, "none": types.Bool,
		"join": types.String,
		// lists whose elements are no longer the receiver's
		"map": anyList, "flat_map": anyList, "flatten": anyList, "compact": anyList,
		"enumerate": anyList, "zip": anyList, "partition": anyList,
		"chunk": anyList, "each_slice": anyList, "window": anyList, "each_cons": anyList, "sliding_window": anyList,
		"push": anyList, "appending": anyList,
	}
	// dict methods with a certain result (docs/spec/builtins.md §3.8); a
	// record (shape) has the same built-in methods, which win over a
	// callable stored under their name (docs/spec/language.md §2.9)
	dictMethodResults = map[string]types.Type{
		"count": types.Int, "has": types.Bool,
		"keys": &types.List{Elem: types.String}, "entries": anyList, "to_list": anyList,
	}
	// dict methods giving a dict of the receiver's own entries
	dictSameResults = map[string]bool{
		"filter": true, "remove": true, "removing": true, "to_dict": true,
	}
	// set methods with a certain result (docs/spec/builtins.md §3.9)
	setMethodResults = map[string]types.Type{
		"count": types.Int, "len": types.Int,
		"empty": types.Bool, "contains": types.Bool,
		"is_subset": types.Bool, "is_superset": types.Bool, "is_disjoint": types.Bool,
		"any": types.Bool, "all": types.Bool, "every": types.Bool,
	}
	// set methods giving a set of (some of) the receiver's own items
	setSameResults = map[string]bool{
		"filter": true, "intersect": true, "intersection": true, "difference": true,
		"remove": true, "delete": true, "removing": true,
	}
	// range methods with a certain result (docs/spec/builtins.md §3.10);
	// to_list and sum lift the range into an iterator of its ints
	rangeMethodResults = map[string]types.Type{
		"len": types.Int, "count": types.Int, "sum": types.Int,
		"empty": types.Bool, "contains": types.Bool, "to_string": types.String,
		"to_list": &types.List{Elem: types.Int},
	}
	// list methods giving a list of the receiver's own elements
	listSameResults = map[string]bool{
		"reversed": true, "reverse": true, "sorted": true, "sort": true, "sorted_by": true, "sort_by": true,
		"filter": true, "unique": true, "take": true, "skip": true, "slice": true,
		"take_while": true, "drop_while": true, "pop": true, "dropping_last": true,
	}
)

// anyList is the result of list methods whose elements are no longer the
// receiver's.
var anyList = &types.List{Elem: types.Any}

// iterMethodResult is the type of a lazy iterator's method over elements
// of type elem (docs/spec/builtins.md §3.10): combinators stay lazy
// (`.map(f)` is an iter, collected by `.to_list()`), sinks give their
// value; nil for the methods whose result may be nil or is not certain.
func iterMethodResult(name string, elem types.Type) types.Type {
	switch name {
	case "map", "flat_map", "enumerate", "zip", "chain", "chunks", "windows":
		return &types.Iter{Kind: types.IterPlain, Elem: types.Any}
	case "filter", "take", "skip", "take_while", "skip_while":
		return &types.Iter{Kind: types.IterPlain, Elem: elem}
	case "to_list":
		return &types.List{Elem: elem}
	case "count":
		return types.Int
	case "any", "all":
		return types.Bool
	}
	return nil
}

// iterOver is the lazy iterator `iter(x)` / `x.iter()` makes of a value
// of type t (docs/spec/builtins.md §3.10): an iter<T> over a list<T> or a
// set<T>, an iter<string> over a string's chars, an iter<int> over a
// range; nil for any other (a dict's iterator yields pairs, which have
// no type of their own).
func iterOver(t types.Type) types.Type {
	switch r := types.Underlying(t).(type) {
	case *types.List:
		return &types.Iter{Kind: types.IterPlain, Elem: r.Elem}
	case *types.Set:
		return &types.Iter{Kind: types.IterPlain, Elem: r.Elem}
	case *types.Literal:
		if r.Base() == types.String {
			return &types.Iter{Kind: types.IterPlain, Elem: types.String}
		}
	case *types.Basic:
		switch r {
		case types.String:
			return &types.Iter{Kind: types.IterPlain, Elem: types.String}
		case types.Range:
			return &types.Iter{Kind: types.IterPlain, Elem: types.Int}
		}
	}
	return nil
}

// builtinMethodResult is the type of `recv.name(…)` with n arguments for a
// string, list, dict, record, set or range receiver whose builtin method
// has a certain result (`"a".upper()` is a string, `xs.count()` an int,
// `s.split(",")` a list<string>, `xs.sorted()` xs's own list type,
// `s.contains(x)` a bool, `(1 to n).to_list()` a list<int>), or nil.
func (c *checker) builtinMethodResult(e *syntax.MethodCall, recv types.Type, args []types.Type) types.Type {
	if c.lib == nil || hasSpread(e.Args) {
		return nil
	}
	if e.Name == "iter" && len(e.Args) == 0 {
		if t := iterOver(recv); t != nil {
			return t
		}
	}
	var t types.Type
	kind := ""
	switch r := types.Underlying(recv).(type) {
	case *types.Iter:
		if r.Kind == types.IterPlain {
			kind, t = "iter", iterMethodResult(e.Name, r.Elem)
		}
	case *types.Literal:
		if r.Base() == types.String {
			kind, t = "string", stringMethodResults[e.Name]
		}
	case *types.Basic:
		if r == types.String {
			kind, t = "string", stringMethodResults[e.Name]
		} else if r == types.Range {
			// a range's own methods, else the method of the lazy iterator
			// the range is lifted into (docs/spec/builtins.md §3.10):
			// `range(n).map(f)` is an iter, not a list
			if rt, own := rangeMethodResults[e.Name]; own {
				kind, t = "range", rt
			} else {
				// elements stay any: `range(n).filter(f).to_list()` goes
				// where a list<float> is declared as a list literal of
				// ints does
				kind, t = "iter", iterMethodResult(e.Name, types.Any)
			}
		}
	case *types.Dict:
		// a dict's keys are strings (docs/spec/builtins.md §3.8), its
		// values of its value type
		kind, t = "dict", dictMethodResults[e.Name]
		switch {
		case e.Name == "values":
			t = &types.List{Elem: r.Value}
		case e.Name == "entries" || e.Name == "to_list":
			t = &types.List{Elem: elemType(r)} // {key, value} dicts

		case dictSameResults[e.Name] && !nilable(r.Value):
			// (`d.filter({ v -> v != nil })` of a dict<string, int?>
			// holds no nil, which the value type does not say)
			t = recv
		case e.Name == "get" && len(e.Args) == 2 && known(r.Value) && known(args[1]):
			// the value, or the default when the key is absent
			t = types.NewUnion(r.Value, types.Widen(args[1]))
		case (e.Name == "merge" || e.Name == "merging") && len(e.Args) == 1 && known(r.Value):
			// the other's values join the receiver's
			if o, ok := types.Underlying(args[0]).(*types.Dict); ok && known(o.Value) {
				t = &types.Dict{Key: r.Key, Value: types.NewUnion(r.Value, o.Value)}
			}
		case e.Name == "map_values" && len(e.Args) == 1:
			// f(value) for each entry, typed as `xs.map(f)` is
			t = &types.Dict{Key: types.String, Value: c.mappedList(e.Args[0], args[0], r.Value).(*types.List).Elem}
		}
	case *types.Shape:
		kind, t = "dict", dictMethodResults[e.Name]
		if (e.Name == "entries" || e.Name == "to_list") && !r.Open {
			t = &types.List{Elem: elemType(r)} // {key, value} dicts
		}
	case *types.Set:
		kind, t = "set", setMethodResults[e.Name]
		switch {
		case e.Name == "to_list":
			t = &types.List{Elem: r.Elem}
		case setSameResults[e.Name] && !nilable(r.Elem):
			t = recv
		case e.Name == "map" && len(e.Args) == 1:
			// the mapped values, typed as `xs.map(f)` is
			t = &types.Set{Elem: c.mappedList(e.Args[0], args[0], r.Elem).(*types.List).Elem}
		case (e.Name == "add" || e.Name == "adding") && len(e.Args) == 1 && known(r.Elem) && known(args[0]):
			t = &types.Set{Elem: types.NewUnion(types.Widen(r.Elem), types.Widen(args[0]))}
		case (e.Name == "union" || e.Name == "symmetric_difference") && len(e.Args) == 1 && known(r.Elem):
			// the items of both (a non-set other leaves the receiver)
			if o, ok := types.Underlying(args[0]).(*types.Set); ok && known(o.Elem) {
				t = &types.Set{Elem: types.NewUnion(r.Elem, o.Elem)}
			}
		}
	case *types.List:
		kind, t = "list", listMethodResults[e.Name]
		if t == nil && listSameResults[e.Name] {
			t = &types.List{Elem: r.Elem} // list<any> for a list of unknown elements
		}
		if e.Name == "map" && len(e.Args) == 1 {
			t = c.mappedList(e.Args[0], args[0], r.Elem)
		}
		if e.Name == "sum" && len(e.Args) == 0 {
			// numbers only, int unless a float is seen (docs/spec/builtins.md
			// §3.6): a list<int> sums to an int, a list<float> to a float
			switch types.Widen(r.Elem) {
			case types.Int:
				t = types.Int
			case types.Float:
				t = types.Float
			}
		}
		switch e.Name {
		case "tally", "count_by":
			// counts by display form / string discriminator
			t = &types.Dict{Key: types.String, Value: types.Int}
		case "group_by":
			t = &types.Dict{Key: types.String, Value: &types.List{Elem: r.Elem}}
		case "to_set":
			t = &types.Set{Elem: r.Elem}
		case "compact":
			// without its nil items (docs/spec/builtins.md §3.6)
			if elem := types.RemoveNil(r.Elem); elem != types.Never {
				t = &types.List{Elem: elem}
			}
		}
		if e.Name == "enumerate" && len(e.Args) == 0 {
			// `{index, value}` dicts (docs/spec/builtins.md §3.6)
			t = &types.List{Elem: &types.Shape{Fields: []types.Field{{Name: "index", Type: types.Int}, {Name: "value", Type: r.Elem}}}}
		}
		if e.Name == "flat_map" && len(e.Args) == 1 {
			t = c.flatMappedList(e.Args[0])
		}
		if (e.Name == "appending" || e.Name == "push") && len(e.Args) == 1 && known(r.Elem) && known(args[0]) {
			// a copy with one more element (docs/spec/builtins.md §3.6)
			t = &types.List{Elem: types.NewUnion(types.Widen(r.Elem), types.Widen(args[0]))}
		}
	}
	if t == nil {
		return nil
	}
	if kind == "range" && (e.Name == "to_list" || e.Name == "sum") {
		// lifted into an iterator: the iterator method's arity
		kind = "iter"
	}
	sig, ok := c.librarySig(kind, e.Name)
	if n := len(e.Args); !ok || n < sig.min || sig.max >= 0 && n > sig.max {
		return nil
	}
	return t
}

// mappedList is the result of `xs.map(f)` for a closure literal f
// without `return` whose last expression's type is known: a list of
// that type (`names.map({ n -> n.count })` is a list<int>); a list of
// any otherwise. A nil the checker inferred in it (an index read
// `row[j]`, a builtin's `T?` result) is left out, as it is where such a
// value goes directly (nil safety watches declared types only).
//
// A function value whose result the program declared (a function of the
// file named directly, a closure literal with `-> R`, a builtin whose
// descriptor states its result, such as `to_string`) gives a list of
// that result: `xs.map(describe)` with `fn describe(n: int) -> string`
// is a list<string>. A builtin's nilable result loses its nil as an
// inferred one does; a declared `-> T?` keeps it. A generic function of
// the file is instantiated from elem, the type of the receiver's elements
// (`[1, 2].map(wrap)` with `fn wrap<T>(x: T) -> list<T>` is a
// list<list<int>>).
func (c *checker) mappedList(f syntax.Expr, ft types.Type, elem types.Type) types.Type {
	if cl, ok := f.(*syntax.ClosureLit); ok && cl.Return == nil {
		if tail, ok := c.tails[cl]; ok && known(tail) && concrete(tail) {
			if elem := types.RemoveNil(tail); elem != types.Never {
				return &types.List{Elem: types.Widen(elem)}
			}
		}
		return anyList
	}
	if id, ok := f.(*syntax.Ident); ok {
		if ref := c.info.Refs[id]; ref != nil && ref.Scope == resolve.Universal {
			// a builtin named as a value: its descriptor's result
			if r := c.builtinValueResult(id.Name); r != nil && known(r) && concrete(r) {
				if elem := types.RemoveNil(r); elem != types.Never {
					return &types.List{Elem: elem}
				}
			}
			return anyList
		}
	}
	fn, ok := ft.(*types.Func)
	if ok && len(fn.TypeParams) > 0 {
		return c.mappedGeneric(f, fn, elem)
	}
	if !ok || !known(fn.Return) || !concrete(fn.Return) || fn.Return == types.Never {
		return anyList
	}
	switch f := f.(type) {
	case *syntax.ClosureLit:
		return &types.List{Elem: fn.Return}
	case *syntax.Ident:
		ref := c.info.Refs[f]
		if ref == nil || ref.Binding == nil || c.multiDecl[f.Name] {
			return anyList
		}
		if fd, ok := ref.Binding.Decl.(*syntax.FnDecl); ok && ref.Binding.Kind == resolve.KFn {
			if fd.Return != nil {
				return &types.List{Elem: fn.Return}
			}
			return anyList
		}
	}
	return anyList
}

// mappedGeneric is mappedList for f naming a generic function of the
// file declaring its result: the call `f(x)` for an element x of type
// elem, instantiated (its first parameter taking the element).
func (c *checker) mappedGeneric(f syntax.Expr, fn *types.Func, elem types.Type) types.Type {
	id, ok := f.(*syntax.Ident)
	if !ok || elem == nil || !known(elem) || len(fn.Params) == 0 || fn.Params[0].Rest {
		return anyList
	}
	ref := c.info.Refs[id]
	if ref == nil || ref.Binding == nil || c.multiDecl[id.Name] || ref.Binding.Kind != resolve.KFn {
		return anyList
	}
	if fd, ok := ref.Binding.Decl.(*syntax.FnDecl); !ok || fd.Return == nil {
		return anyList
	}
	bind := c.instantiate(nil, fn, []syntax.Expr{f}, []types.Type{elem})
	if r := types.Subst(fn.Return, bind); known(r) && concrete(r) && r != types.Never {
		return &types.List{Elem: r}
	}
	return anyList
}

// flatMappedList is the result of `xs.flat_map(f)` for a closure literal
// f without `return` whose last expression is a list of known elements:
// a list of those (`xs.flat_map({ x -> [x, x * 2] })` of a list<int> is
// a list<int>); a list of any otherwise.
func (c *checker) flatMappedList(f syntax.Expr) types.Type {
	if cl, ok := f.(*syntax.ClosureLit); ok && cl.Return == nil {
		if tail, ok := c.tails[cl].(*types.List); ok && known(tail.Elem) && concrete(tail.Elem) {
			if elem := types.RemoveNil(tail.Elem); elem != types.Never {
				return &types.List{Elem: types.Widen(elem)}
			}
		}
	}
	return anyList
}

// declaredDerived reports a method call that gives a list of the
// elements of a receiver whose type the program declared (`xs.filter(f)`,
// `xs.sorted()` with `xs: list<T>`, `d.values()` with `d: dict<string,
// V>`, chains of them): its element type is the program's, as the
// receiver's is.
func (c *checker) declaredDerived(x syntax.Expr) bool {
	e, ok := x.(*syntax.MethodCall)
	if !ok || e.Optional {
		return false
	}
	var elem types.Type
	switch t := types.Underlying(c.quietType(e.X)).(type) {
	case *types.List:
		if !listSameResults[e.Name] {
			return false
		}
		elem = t.Elem
	case *types.Dict:
		if e.Name != "values" {
			return false
		}
		elem = t.Value
	default:
		return false
	}
	if nilable(elem) {
		// `xs.filter({ x -> x != nil })` of a `list<int?>` holds no nil,
		// which the element type does not say: left to the lenient rules
		return false
	}
	return c.declaredPath(e.X) || c.declaredCall(e.X) || c.declaredDerived(e.X)
}

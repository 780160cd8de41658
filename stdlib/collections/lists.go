package collections

import (
	"slices"

	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// List methods (docs/spec/builtins.md §3.6). The receiver never changes. A callback
// method given no callable returns its documented fallback instead of
// failing.

func init() {
	lm := func(name, sig, doc string, fn func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error)) {
		lib.Method("list", name, sig, doc, func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
			return fn(th, recv.List(), args)
		})
	}
	// withFn registers a callback method whose fallback, without a
	// callable first argument, is fallback.
	withFn := func(name, sig, doc string, fallback vm.Value, fn func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error)) {
		lm(name, sig, doc, func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
			f, ok := args.Callable(0)
			if !ok {
				return fallback, nil
			}
			return fn(th, l.Items(), f)
		})
	}

	lm("count", "xs.count()", "number of items", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return lib.IntOf(l.Len()), nil
	})
	lm("empty", "xs.empty()", "whether the list is empty", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(l.Len() == 0), nil
	})
	withFn("map", "xs.map(f)", "f(item) for each item", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		out, err := mapItems(th, items, f)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.List(out)), nil
	})
	withFn("filter", "xs.filter(f)", "items where f(item) is truthy", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		out, err := filterItems(th, items, f, true)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.List(out)), nil
	})
	lm("reduce", "xs.reduce(init, f)", "left fold starting from init", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(1)
		if !ok {
			return vm.Nil, nil
		}
		acc := args.At(0)
		call := th.Prepare2(f)
		for _, v := range l.Items() {
			r, err := call.Call(acc, v)
			if err != nil {
				return vm.Value{}, err
			}
			acc = r
		}
		return acc, nil
	})
	withFn("find", "xs.find(f)", "first item with truthy f(item), or nil", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		i, err := findIndex(th, items, f)
		if err != nil || i < 0 {
			return vm.Nil, err
		}
		return items[i], nil
	})
	withFn("find_index", "xs.find_index(f)", "index of the first match, -1 if none", vm.IntOf(-1), func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		i, err := findIndex(th, items, f)
		if err != nil {
			return vm.Value{}, err
		}
		return lib.IntOf(i), nil
	})
	withFn("any", "xs.any(f)", "whether some item matches", vm.False, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		i, err := findIndex(th, items, f)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(i >= 0), nil
	})
	all := func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		call := th.Prepare1(f)
		for _, v := range items {
			r, err := call.Call(v)
			if err != nil {
				return vm.Value{}, err
			}
			if !r.Truth() {
				return vm.False, nil
			}
		}
		return vm.True, nil
	}
	withFn("all", "xs.all(f)", "whether every item matches", vm.True, all)
	withFn("every", "xs.every(f)", "whether every item matches", vm.True, all)
	lm("none", "xs.none(f?)", "no item matches (without f: the list is empty)", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		f, ok := args.Callable(0)
		if !ok {
			return vm.BoolOf(l.Len() == 0), nil
		}
		i, err := findIndex(th, l.Items(), f)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(i < 0), nil
	})
	withFn("flat_map", "xs.flat_map(f)", "f(item), splicing list results in", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		return flatMap(th, items, f)
	})
	lm("flatten", "xs.flatten()", "splice list items in, one level", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		var out []vm.Value
		for _, v := range l.Items() {
			if sub, ok := v.AsList(); ok {
				out = append(out, sub.Items()...)
			} else {
				out = append(out, v)
			}
		}
		return vm.Of(lib.List(out)), nil
	})
	lm("sort", "xs.sort()", "stable ascending sort", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		items, err := sortValues(th, l.Items())
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.List(items)), nil
	})
	withFn("sort_by", "xs.sort_by(f)", "stable ascending sort by key f(item)", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		keys, err := mapItems(th, items, f)
		if err != nil {
			return vm.Value{}, err
		}
		out := append([]vm.Value(nil), items...)
		if err := sortByKeys(th, out, keys); err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.List(out)), nil
	})
	lm("reverse", "xs.reverse()", "reversed copy", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		items := l.Items()
		out := make([]vm.Value, len(items))
		for i, v := range items {
			out[len(items)-1-i] = v
		}
		return vm.Of(lib.List(out)), nil
	})
	lm("min", "xs.min()", "smallest item (first of equals), nil when empty", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return extreme(l.Items(), l.Items(), -1), nil
	})
	lm("max", "xs.max()", "largest item (first of equals), nil when empty", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return extreme(l.Items(), l.Items(), 1), nil
	})
	withFn("min_by", "xs.min_by(f)", "item with the smallest key", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		keys, err := mapItems(th, items, f)
		if err != nil {
			return vm.Value{}, err
		}
		return extreme(items, keys, -1), nil
	})
	withFn("max_by", "xs.max_by(f)", "item with the largest key", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		keys, err := mapItems(th, items, f)
		if err != nil {
			return vm.Value{}, err
		}
		return extreme(items, keys, 1), nil
	})
	lm("sum", "xs.sum()", "sum of the numbers, skipping other items", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		var s summer
		p := lib.Pacer{Th: th}
		for _, v := range l.Items() {
			if err := p.Step(); err != nil {
				return vm.Value{}, err
			}
			s.add(v)
		}
		return s.value("list.sum")
	})
	lm("join", "xs.join(sep?)", `display items joined by sep (default "")`, func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		s, err := lib.JoinItems(th, l.Items(), lib.TextOr(args, 0, ""))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(s), nil
	})
	lm("contains", "xs.contains(x)", "whether some item equals x", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return vm.BoolOf(lib.IndexOf(l.Items(), args.At(0)) >= 0), nil
	})
	lm("index_of", "xs.index_of(x)", "index of the first item equal to x, -1 if absent", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return lib.IntOf(lib.IndexOf(l.Items(), args.At(0))), nil
	})
	lm("first", "xs.first(n?)", "first item (or the first n items)", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		items := l.Items()
		if n, ok := args.Int(0); ok {
			return vm.Of(lib.List(lib.CopyItems(items[:lib.ClampInt(n, 0, int64(len(items)))]))), nil
		}
		if len(items) == 0 {
			return vm.Nil, nil
		}
		return items[0], nil
	})
	lm("last", "xs.last(n?)", "last item (or the last n items)", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		items := l.Items()
		if n, ok := args.Int(0); ok {
			return vm.Of(lib.List(lib.CopyItems(items[int64(len(items))-lib.ClampInt(n, 0, int64(len(items))):]))), nil
		}
		if len(items) == 0 {
			return vm.Nil, nil
		}
		return items[len(items)-1], nil
	})
	lm("take", "xs.take(n)", "the first n items", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		items := l.Items()
		return vm.Of(lib.List(lib.CopyItems(items[:lib.ClampInt(args.IntOr(0, 0), 0, int64(len(items)))]))), nil
	})
	lm("skip", "xs.skip(n)", "all but the first n items", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		items := l.Items()
		return vm.Of(lib.List(lib.CopyItems(items[lib.ClampInt(args.IntOr(0, 0), 0, int64(len(items))):]))), nil
	})
	lm("slice", "xs.slice(start?, end?)", "items from start to end (exclusive; negative from the end)", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		items := l.Items()
		n := int64(len(items))
		start := sliceIndex(args.IntOr(0, 0), n)
		end := sliceIndex(args.IntOr(1, n), n)
		if start >= end {
			return vm.Of(lib.List(nil)), nil
		}
		return vm.Of(lib.List(lib.CopyItems(items[start:end]))), nil
	})
	lm("push", "xs.push(x)", "a copy with x appended", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		if !args.Has(0) {
			return vm.Of(lib.List(lib.CopyItems(l.Items()))), nil
		}
		return vm.Of(l.Push(args[0])), nil
	})
	lm("pop", "xs.pop()", "a copy without the last item", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		items := l.Items()
		if len(items) == 0 {
			return vm.Of(lib.List(nil)), nil
		}
		return vm.Of(lib.List(lib.CopyItems(items[:len(items)-1]))), nil
	})
	lm("unique", "xs.unique()", "first occurrence of each structural key", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return vm.Of(lib.List(uniqueBy(l.Items(), l.Items()))), nil
	})
	lm("compact", "xs.compact()", "without nil items", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		var out []vm.Value
		for _, v := range l.Items() {
			if !v.IsNil() {
				out = append(out, v)
			}
		}
		return vm.Of(lib.List(out)), nil
	})
	lm("enumerate", "xs.enumerate()", "[{index, value}, …]", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		out := make([]vm.Value, l.Len())
		for i, v := range l.Items() {
			b := vm.NewDictBuilder(2)
			b.Set("index", lib.IntOf(i))
			b.Set("value", v)
			out[i] = vm.Of(b.Build())
		}
		return vm.Of(lib.List(out)), nil
	})
	lm("zip", "xs.zip(other)", "[[a0, b0], …] up to the shorter list", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		o, ok := args.List(0)
		if !ok {
			return vm.Of(lib.List(nil)), nil
		}
		n := min(l.Len(), o.Len())
		out := make([]vm.Value, n)
		for i := 0; i < n; i++ {
			out[i] = vm.Of(lib.List([]vm.Value{l.At(i), o.At(i)}))
		}
		return vm.Of(lib.List(out)), nil
	})
	withFn("partition", "xs.partition(f)", "[[truthy items], [falsy items]]", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		yes, no, err := partition(th, items, f)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.List([]vm.Value{vm.Of(lib.List(yes)), vm.Of(lib.List(no))})), nil
	})
	withFn("group_by", "xs.group_by(f)", "dict of lists keyed by display(f(item))", vm.Nil, func(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
		return groupBy(th, items, f)
	})
	lm("tally", "xs.tally()", "dict of counts keyed by display(item)", func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		counts := map[string]int64{}
		for _, v := range l.Items() {
			counts[vm.KeyString(v)]++
		}
		b := vm.NewDictBuilder(len(counts))
		for k, n := range counts {
			b.Set(k, vm.IntOf(n))
		}
		return vm.Of(b.Build()), nil
	})
	chunk := func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return vm.Of(chunkList(l.Items(), args.At(0))), nil
	}
	lm("chunk", "xs.chunk(n)", "consecutive slices of n items", chunk)
	lm("each_slice", "xs.each_slice(n)", "consecutive slices of n items", chunk)
	window := func(th *vm.Thread, l *vm.List, args vm.Args) (vm.Value, error) {
		return vm.Of(windowList(l.Items(), args.At(0), args.At(1))), nil
	}
	lm("window", "xs.window(size = 2, step = 1)", "full windows of size items, advancing by step", window)
	lm("each_cons", "xs.each_cons(size = 2, step = 1)", "full windows of size items, advancing by step", window)
	lm("sliding_window", "xs.sliding_window(size = 2, step = 1)", "full windows of size items, advancing by step", window)
}

// sliceIndex resolves a negative index from the end and clamps to [0, n].
func sliceIndex(i, n int64) int64 {
	if i < 0 {
		i += n
	}
	return lib.ClampInt(i, 0, n)
}

func mapItems(th *vm.Thread, items []vm.Value, f vm.Value) ([]vm.Value, error) {
	out := make([]vm.Value, len(items))
	p := lib.Pacer{Th: th}
	call := th.Prepare1(f)
	for i, v := range items {
		if err := p.Step(); err != nil {
			return nil, err
		}
		r, err := call.Call(v)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// filterItems keeps the items whose f(item) truth is keep. The result is
// allocated at the input's length (no regrowth and copying as it fills)
// and trimmed when most of it would be left empty.
func filterItems(th *vm.Thread, items []vm.Value, f vm.Value, keep bool) ([]vm.Value, error) {
	out := make([]vm.Value, 0, len(items))
	p := lib.Pacer{Th: th}
	call := th.Prepare1(f)
	for _, v := range items {
		if err := p.Step(); err != nil {
			return nil, err
		}
		r, err := call.Call(v)
		if err != nil {
			return nil, err
		}
		if r.Truth() == keep {
			out = append(out, v)
		}
	}
	if len(out) < cap(out)/4 {
		out = slices.Clone(out)
	}
	return out, nil
}

func findIndex(th *vm.Thread, items []vm.Value, f vm.Value) (int, error) {
	call := th.Prepare1(f)
	for i, v := range items {
		r, err := call.Call(v)
		if err != nil {
			return -1, err
		}
		if r.Truth() {
			return i, nil
		}
	}
	return -1, nil
}

func flatMap(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
	var out []vm.Value
	call := th.Prepare1(f)
	for _, v := range items {
		r, err := call.Call(v)
		if err != nil {
			return vm.Value{}, err
		}
		if sub, ok := r.AsList(); ok {
			out = append(out, sub.Items()...)
		} else {
			out = append(out, r)
		}
	}
	return vm.Of(lib.List(out)), nil
}

func partition(th *vm.Thread, items []vm.Value, f vm.Value) (yes, no []vm.Value, err error) {
	call := th.Prepare1(f)
	for _, v := range items {
		r, err := call.Call(v)
		if err != nil {
			return nil, nil, err
		}
		if r.Truth() {
			yes = append(yes, v)
		} else {
			no = append(no, v)
		}
	}
	return yes, no, nil
}

func groupBy(th *vm.Thread, items []vm.Value, f vm.Value) (vm.Value, error) {
	call := th.Prepare1(f)
	return groupWith(items, func(v vm.Value) (string, error) {
		k, err := call.Call(v)
		if err != nil {
			return "", err
		}
		return vm.KeyString(k), nil
	})
}

// groupWith is a dict of the items grouped by key(item), the groups in
// the order their keys first appear.
func groupWith(items []vm.Value, key func(vm.Value) (string, error)) (vm.Value, error) {
	groups := map[string][]vm.Value{}
	var order []string
	for _, v := range items {
		k, err := key(v)
		if err != nil {
			return vm.Value{}, err
		}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], v)
	}
	b := vm.NewDictBuilder(len(order))
	for _, k := range order {
		b.Set(k, vm.Of(lib.List(groups[k])))
	}
	return vm.Of(b.Build()), nil
}

// uniqueBy keeps the first item of each distinct keys[i]: the same
// structural key, then == (docs/spec/newer.md §2.6), so keys that are
// never equal (NaN, durations, closures) never merge.
func uniqueBy(items, keys []vm.Value) []vm.Value {
	seen := map[string][]vm.Value{}
	var out []vm.Value
	for i, v := range items {
		k := vm.StructuralKey(keys[i])
		dup := false
		for _, prev := range seen[k] {
			if vm.Equal(prev, keys[i]) {
				dup = true
				break
			}
		}
		if !dup {
			seen[k] = append(seen[k], keys[i])
			out = append(out, v)
		}
	}
	return out
}

// chunkList splits items into slices of n (default 1, at least 1).
func chunkList(items []vm.Value, nv vm.Value) *vm.List {
	n := 1
	if k, ok := nv.AsInt(); ok && k > 1 {
		n = int(min(int64(k), int64(len(items))+1))
	}
	var out []vm.Value
	for i := 0; i < len(items); i += n {
		out = append(out, vm.Of(lib.List(lib.CopyItems(items[i:min(i+n, len(items))]))))
	}
	return lib.List(out)
}

// windowList yields the full windows of size items, advancing by step.
func windowList(items []vm.Value, sizeV, stepV vm.Value) *vm.List {
	size, step := int64(2), int64(1)
	if k, ok := sizeV.AsInt(); ok {
		size = max(int64(k), 1)
	}
	if k, ok := stepV.AsInt(); ok {
		step = max(int64(k), 1)
	}
	var out []vm.Value
	n := int64(len(items))
	// size <= n-i, not i+size <= n: a huge size must not overflow.
	for i := int64(0); size <= n-i; i += step {
		out = append(out, vm.Of(lib.List(lib.CopyItems(items[i:i+size]))))
	}
	return lib.List(out)
}

// extreme returns the item whose key is smallest (dir -1) or largest
// (dir 1); the first of equal extremes wins.
func extreme(items, keys []vm.Value, dir int) vm.Value {
	if len(items) == 0 {
		return vm.Nil
	}
	best := 0
	for i := 1; i < len(items); i++ {
		if vm.Compare(keys[i], keys[best])*dir > 0 {
			best = i
		}
	}
	return items[best]
}

// summer adds numbers: an int sum until a float is seen or the sum leaves
// 64 bits, a float sum from then on.
type summer struct {
	i       int64
	f       float64
	isFloat bool
	// dec is the sum of the decimals added (nil before the first): a
	// decimal makes the result a decimal, with the ints added exactly.
	dec *decimal.Decimal
}

// add adds v and reports whether it was a number.
func (s *summer) add(v vm.Value) bool {
	if d, ok := decimal.Of(v); ok {
		if s.dec == nil {
			s.dec = d
		} else {
			s.dec = s.dec.Add(d)
		}
		return true
	}
	if n, ok := v.AsInt(); ok {
		if s.isFloat {
			s.f += float64(n)
			return true
		}
		r := s.i + int64(n)
		if (r > s.i) != (n > 0) {
			s.isFloat = true
			s.f = float64(s.i) + float64(n)
			return true
		}
		s.i = r
		return true
	}
	n, ok := v.AsFloat()
	if !ok {
		return false
	}
	if !s.isFloat {
		s.isFloat = true
		s.f = float64(s.i)
	}
	s.f += float64(n)
	return true
}

// value is the sum: a decimal when a decimal was added (mixing one with
// a float is a type error, as in arithmetic), else an int or float.
func (s *summer) value(name string) (vm.Value, error) {
	if s.dec != nil {
		if s.isFloat {
			return vm.Value{}, decimal.MixedFloat(name)
		}
		return vm.Of(s.dec.Add(decimal.FromInt(s.i))), nil
	}
	if s.isFloat {
		return vm.FloatOf(s.f), nil
	}
	return vm.IntOf(s.i), nil
}

package collections

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Lazy iterators (docs/spec/builtins.md §3.10). An iterator is a single-pass,
// fused handle: combinators wrap it in a new iterator that pulls from it
// on demand, sinks drain it, and once it reports its end it stays
// exhausted. Sources are immutable values, so an iterator over a list or
// dict sees the collection as it was when the iterator was made.
//
// An iterator abandoned before its end closes the generator (or stream)
// it reads, through any number of stages, so its pending finally blocks
// and defers run (docs/concurrency.md, Generators and streams): a for loop
// over the iterator left early closes it as it closes a generator
// (vm.IterCloser), and so does a sink (each, .first, a spread,
// stream.collect …) whose read or callback fails. A stage whose callback
// fails only reports the failure: the loop or sink reading it closes the
// chain down to the generator. An iterator that merely stops reading (`.take(n)` reaching n,
// `.take_while` stopping, `.zip` when one side ends, `.find`/`.any`/`.all`
// answering early) leaves its generator open, so a generator bound to a
// name can still be resumed after it, as with Rust's and Python's
// iterators.

// Iter is a lazy iterator (type_of "iter").
type Iter struct {
	src  source
	done bool
	// th is the thread that made the iterator; a for loop runs callbacks
	// on the thread holding the VM lock, or on th when there is none.
	th *vm.Thread
	// pace paces interrupt checks: a builtin draining a huge range
	// (range(300000000).sum()) still stops at a deadline or Ctrl-C.
	pace lib.Pacer
}

// source produces an iterator's elements; ok=false at the end.
type source interface {
	next(th *vm.Thread) (v vm.Value, ok bool, err error)
}

// closer is a source that reads other iterators: close closes those it
// has not finished, and ended then reports whether that left it nothing
// more to give (the generator or stream it reads is done).
type closer interface {
	close(th *vm.Thread) error
	ended() bool
}

// ender is a VM iterator that can tell it is done (a generator or a
// stream, also when a close finished it).
type ender interface{ Ended() bool }

func newIter(th *vm.Thread, src source) *Iter { return &Iter{src: src, th: th} }

func (*Iter) Type() string { return "iter" }
func (*Iter) Truth() bool  { return true }

// Display never consumes: it only reports whether the end was reached.
func (it *Iter) Display(sb *strings.Builder) {
	if it.done {
		sb.WriteString("<iter (exhausted)>")
	} else {
		sb.WriteString("<iter>")
	}
}

// EqualTo: an iterator equals only itself.
func (it *Iter) EqualTo(o vm.Value) bool {
	x, ok := o.Object().(*Iter)
	return ok && x == it
}

// Next pulls the next element.
func (it *Iter) Next(th *vm.Thread) (vm.Value, bool, error) {
	if it.done {
		return vm.Value{}, false, nil
	}
	it.pace.Th = th
	if err := it.pace.Step(); err != nil {
		return vm.Value{}, false, err
	}
	v, ok, err := it.src.next(th)
	if err != nil {
		return vm.Value{}, false, err
	}
	if !ok {
		it.done = true
		it.src = nil
		return vm.Value{}, false, nil
	}
	return v, true, nil
}

// Close abandons the iterator: the generators and streams it reads,
// directly or through other stages, are closed. Other sources (a list,
// a range) are left as they are: after a loop over `it` left early,
// `it.to_list()` still gives the rest.
//
// An iterator whose close finished what it reads is exhausted at once,
// and displays so (docs/spec/builtins.md §1: `<iter (exhausted)>`).
func (it *Iter) Close(th *vm.Thread) error {
	c, ok := it.src.(closer)
	if !ok || it.done {
		return nil
	}
	err := c.close(th)
	if c.ended() {
		it.done = true
		it.src = nil
	}
	return err
}

// closeAll closes each iterator, returning the first close error.
func closeAll(th *vm.Thread, its ...*Iter) error {
	var first error
	for _, it := range its {
		if err := it.Close(th); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Iterate lets `for` loops walk the iterator (vm.Iterable).
func (it *Iter) Iterate() vm.Iterator { return loopIter{it} }

// loopIter runs the iterator's callbacks on the thread executing the loop.
type loopIter struct{ it *Iter }

func (l loopIter) Next() (vm.Value, bool, error) {
	th := l.it.th.VM().Current()
	if th == nil {
		th = l.it.th
	}
	return l.it.Next(th)
}

// CloseIter closes the iterator a for loop stopped iterating early
// (vm.IterCloser).
func (l loopIter) CloseIter(th *vm.Thread) error { return l.it.Close(th) }

// ---- sources over values ----

type sliceSource struct {
	items []vm.Value
	i     int
}

func (s *sliceSource) next(*vm.Thread) (vm.Value, bool, error) {
	if s.i >= len(s.items) {
		return vm.Value{}, false, nil
	}
	v := s.items[s.i]
	s.i++
	return v, true, nil
}

type charSource struct{ s string }

func (s *charSource) next(*vm.Thread) (vm.Value, bool, error) {
	if s.s == "" {
		return vm.Value{}, false, nil
	}
	_, n := utf8.DecodeRuneInString(s.s)
	c := s.s[:n]
	s.s = s.s[n:]
	return vm.Str(c), true, nil
}

type pairSource struct {
	d *vm.Dict
	i int
}

func (s *pairSource) next(*vm.Thread) (vm.Value, bool, error) {
	keys := s.d.Keys()
	if s.i >= len(keys) {
		return vm.Value{}, false, nil
	}
	k := keys[s.i]
	s.i++
	v, _ := s.d.Get(k)
	return vm.Of(&vm.Pair{First: vm.Str(k), Second: v}), true, nil
}

// vmSource adapts a VM iterator (ranges, generators, streams, channels).
type vmSource struct{ it vm.Iterator }

func (s *vmSource) next(*vm.Thread) (vm.Value, bool, error) { return s.it.Next() }

func (s *vmSource) close(th *vm.Thread) error {
	if c, ok := s.it.(vm.IterCloser); ok {
		return c.CloseIter(th)
	}
	return nil
}

func (s *vmSource) ended() bool {
	e, ok := s.it.(ender)
	return ok && e.Ended()
}

// toIter lifts an iterable value into a lazy iterator; an iterator is
// returned as is.
func toIter(th *vm.Thread, v vm.Value) (*Iter, bool) {
	if x, ok := v.AsString(); ok {
		return newIter(th, &charSource{s: x.Go()}), true
	}
	switch x := v.Object().(type) {
	case *Iter:
		return x, true
	case *vm.List:
		return newIter(th, &sliceSource{items: x.Items()}), true
	case *vm.Set:
		return newIter(th, &sliceSource{items: x.Items()}), true
	case *vm.Dict:
		return newIter(th, &pairSource{d: x}), true
	case vm.Iterable:
		return newIter(th, &vmSource{it: x.Iterate()}), true
	}
	return nil, false
}

func notIterable(who string, v vm.Value) error {
	return vm.Typef("%s: value of type %s is not iterable", who, v.Type())
}

// ---- combinators ----

// stageFn is a lazy stage's callback, prepared once for calls per item
// (vm.Callback1) on the thread that pulls the stage, and prepared again
// when another thread pulls it (a for loop or a task may pull an
// iterator made elsewhere).
type stageFn struct {
	f    vm.Value
	call vm.Callback1
}

// on is the callback prepared for th.
func (s *stageFn) on(th *vm.Thread) *vm.Callback1 {
	if s.call.Thread() != th {
		s.call = th.Prepare1(s.f)
	}
	return &s.call
}

// truth is whether the callback's result for v is truthy.
func (s *stageFn) truth(th *vm.Thread, v vm.Value) (bool, error) {
	r, err := s.on(th).Call(v)
	return err == nil && r.Truth(), err
}

type mapSource struct {
	in *Iter
	fn stageFn
}

func (s *mapSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *mapSource) ended() bool               { return s.in.done }

func (s *mapSource) next(th *vm.Thread) (vm.Value, bool, error) {
	v, ok, err := s.in.Next(th)
	if !ok || err != nil {
		return vm.Value{}, false, err
	}
	r, err := s.fn.on(th).Call(v)
	return r, err == nil, err
}

type filterSource struct {
	in *Iter
	fn stageFn
}

func (s *filterSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *filterSource) ended() bool               { return s.in.done }

func (s *filterSource) next(th *vm.Thread) (vm.Value, bool, error) {
	for {
		v, ok, err := s.in.Next(th)
		if !ok || err != nil {
			return vm.Value{}, false, err
		}
		keep, err := s.fn.truth(th, v)
		if err != nil {
			return vm.Value{}, false, err
		}
		if keep {
			return v, true, nil
		}
	}
}

type flatMapSource struct {
	in  *Iter
	fn  stageFn
	cur *Iter
}

func (s *flatMapSource) close(th *vm.Thread) error {
	if s.cur != nil {
		return closeAll(th, s.cur, s.in)
	}
	return s.in.Close(th)
}

// ended: the inner iterator being read is closed with the outer one, so
// the outer one decides.
func (s *flatMapSource) ended() bool { return s.in.done }

func (s *flatMapSource) next(th *vm.Thread) (vm.Value, bool, error) {
	for {
		if s.cur != nil {
			v, ok, err := s.cur.Next(th)
			if err != nil {
				return vm.Value{}, false, err
			}
			if ok {
				return v, true, nil
			}
			s.cur = nil
		}
		v, ok, err := s.in.Next(th)
		if !ok || err != nil {
			return vm.Value{}, false, err
		}
		r, err := s.fn.on(th).Call(v)
		if err != nil {
			return vm.Value{}, false, err
		}
		sub, ok := toIter(th, r)
		if !ok {
			return r, true, nil
		}
		s.cur = sub
	}
}

type takeSource struct {
	in *Iter
	n  int64
}

func (s *takeSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *takeSource) ended() bool               { return s.in.done }

func (s *takeSource) next(th *vm.Thread) (vm.Value, bool, error) {
	if s.n <= 0 {
		return vm.Value{}, false, nil
	}
	s.n--
	return s.in.Next(th)
}

type skipSource struct {
	in *Iter
	n  int64
}

func (s *skipSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *skipSource) ended() bool               { return s.in.done }

func (s *skipSource) next(th *vm.Thread) (vm.Value, bool, error) {
	for ; s.n > 0; s.n-- {
		if _, ok, err := s.in.Next(th); !ok || err != nil {
			return vm.Value{}, false, err
		}
	}
	return s.in.Next(th)
}

type takeWhileSource struct {
	in *Iter
	fn stageFn
}

func (s *takeWhileSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *takeWhileSource) ended() bool               { return s.in.done }

func (s *takeWhileSource) next(th *vm.Thread) (vm.Value, bool, error) {
	v, ok, err := s.in.Next(th)
	if !ok || err != nil {
		return vm.Value{}, false, err
	}
	keep, err := s.fn.truth(th, v)
	if !keep || err != nil {
		return vm.Value{}, false, err
	}
	return v, true, nil
}

type skipWhileSource struct {
	in      *Iter
	fn      stageFn
	skipped bool
}

func (s *skipWhileSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *skipWhileSource) ended() bool               { return s.in.done }

func (s *skipWhileSource) next(th *vm.Thread) (vm.Value, bool, error) {
	for {
		v, ok, err := s.in.Next(th)
		if !ok || err != nil {
			return vm.Value{}, false, err
		}
		if s.skipped {
			return v, true, nil
		}
		skip, err := s.fn.truth(th, v)
		if err != nil {
			return vm.Value{}, false, err
		}
		if !skip {
			s.skipped = true
			return v, true, nil
		}
	}
}

type zipSource struct{ a, b *Iter }

func (s *zipSource) close(th *vm.Thread) error { return closeAll(th, s.a, s.b) }

// ended: a zip ends with either side.
func (s *zipSource) ended() bool { return s.a.done || s.b.done }

// next pairs the next items until either side ends.
func (s *zipSource) next(th *vm.Thread) (vm.Value, bool, error) {
	x, ok, err := s.a.Next(th)
	if !ok || err != nil {
		return vm.Value{}, false, err
	}
	y, ok, err := s.b.Next(th)
	if !ok || err != nil {
		return vm.Value{}, false, err
	}
	return vm.Of(&vm.Pair{First: x, Second: y}), true, nil
}

type enumerateSource struct {
	in *Iter
	i  int64
}

func (s *enumerateSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *enumerateSource) ended() bool               { return s.in.done }

func (s *enumerateSource) next(th *vm.Thread) (vm.Value, bool, error) {
	v, ok, err := s.in.Next(th)
	if !ok || err != nil {
		return vm.Value{}, false, err
	}
	p := &vm.Pair{First: vm.IntOf(s.i), Second: v}
	s.i++
	return vm.Of(p), true, nil
}

type chainSource struct{ a, b *Iter }

// close closes the side being read: the second is not opened until the
// first ends.
func (s *chainSource) close(th *vm.Thread) error {
	if !s.a.done {
		return s.a.Close(th)
	}
	return s.b.Close(th)
}

func (s *chainSource) ended() bool { return s.a.done && s.b.done }

func (s *chainSource) next(th *vm.Thread) (vm.Value, bool, error) {
	v, ok, err := s.a.Next(th)
	if ok || err != nil {
		return v, ok, err
	}
	return s.b.Next(th)
}

type chunksSource struct {
	in *Iter
	n  int64
}

func (s *chunksSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *chunksSource) ended() bool               { return s.in.done }

func (s *chunksSource) next(th *vm.Thread) (vm.Value, bool, error) {
	var chunk []vm.Value
	for int64(len(chunk)) < s.n {
		v, ok, err := s.in.Next(th)
		if err != nil {
			return vm.Value{}, false, err
		}
		if !ok {
			break
		}
		chunk = append(chunk, v)
	}
	if len(chunk) == 0 {
		return vm.Value{}, false, nil
	}
	return vm.Of(lib.List(chunk)), true, nil
}

type windowsSource struct {
	in  *Iter
	n   int64
	win []vm.Value
}

func (s *windowsSource) close(th *vm.Thread) error { return s.in.Close(th) }
func (s *windowsSource) ended() bool               { return s.in.done }

func (s *windowsSource) next(th *vm.Thread) (vm.Value, bool, error) {
	for int64(len(s.win)) < s.n {
		v, ok, err := s.in.Next(th)
		if !ok || err != nil {
			return vm.Value{}, false, err
		}
		s.win = append(s.win, v)
	}
	out := lib.CopyItems(s.win)
	s.win = s.win[1:]
	return vm.Of(lib.List(out)), true, nil
}

// ---- registration ----

func init() {
	lib.Def("iter", "iter(x)", "a lazy iterator over a list, set, dict, string, range or iterator", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if args.Len() == 0 {
			return vm.Value{}, vm.Typef("iter: expected 1 argument")
		}
		it, ok := toIter(th, args[0])
		if !ok {
			return vm.Value{}, notIterable("iter", args[0])
		}
		return vm.Of(it), nil
	})
	iterMethod := func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		it, ok := toIter(th, recv)
		if !ok {
			return vm.Value{}, notIterable("iter", recv)
		}
		return vm.Of(it), nil
	}
	for _, kind := range []string{"list", "set", "dict", "string", "range", "iter", "generator", "stream", "channel"} {
		lib.Method(kind, "iter", "x.iter()", "a lazy iterator", iterMethod)
	}

	im := func(name, sig, doc string, fn func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error)) {
		lib.Method("iter", name, sig, doc, func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
			return fn(th, recv.Object().(*Iter), args)
		})
	}
	// withFn registers a method whose first argument must be callable.
	withFn := func(name, sig, doc string, fn func(th *vm.Thread, it *Iter, f vm.Value, args vm.Args) (vm.Value, error)) {
		im(name, sig, doc, func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
			f, ok := args.Callable(0)
			if !ok {
				return vm.Value{}, vm.Typef("iter.%s: expected callable", name)
			}
			return fn(th, it, f, args)
		})
	}

	withFn("map", "it.map(f)", "lazily f(item)", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		return vm.Of(newIter(th, &mapSource{in: it, fn: stageFn{f: f}})), nil
	})
	withFn("filter", "it.filter(f)", "lazily the items where f(item) is truthy", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		return vm.Of(newIter(th, &filterSource{in: it, fn: stageFn{f: f}})), nil
	})
	withFn("flat_map", "it.flat_map(f)", "lazily the items of each f(item)", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		return vm.Of(newIter(th, &flatMapSource{in: it, fn: stageFn{f: f}})), nil
	})
	count := func(name string) func(vm.Args) (int64, error) {
		return func(args vm.Args) (int64, error) {
			n, ok := args.Int(0)
			if !ok || n < 0 {
				return 0, vm.Typef("iter.%s: expected non-negative int", name)
			}
			return n, nil
		}
	}
	takeN, skipN := count("take"), count("skip")
	im("take", "it.take(n)", "lazily the first n items", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		n, err := takeN(args)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(newIter(th, &takeSource{it, n})), nil
	})
	im("skip", "it.skip(n)", "lazily all but the first n items", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		n, err := skipN(args)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(newIter(th, &skipSource{it, n})), nil
	})
	withFn("take_while", "it.take_while(f)", "lazily the items up to the first failing f(item)", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		return vm.Of(newIter(th, &takeWhileSource{in: it, fn: stageFn{f: f}})), nil
	})
	withFn("skip_while", "it.skip_while(f)", "lazily the items from the first failing f(item)", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		return vm.Of(newIter(th, &skipWhileSource{in: it, fn: stageFn{f: f}})), nil
	})
	im("zip", "it.zip(other)", "lazily pair(a, b), stopping at the shorter", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		o, ok := toIter(th, args.At(0))
		if !ok {
			return vm.Value{}, notIterable("iter.zip", args.At(0))
		}
		return vm.Of(newIter(th, &zipSource{it, o})), nil
	})
	im("enumerate", "it.enumerate()", "lazily pair(index, item)", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		return vm.Of(newIter(th, &enumerateSource{in: it})), nil
	})
	im("chain", "it.chain(other)", "lazily the items, then other's", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		o, ok := toIter(th, args.At(0))
		if !ok {
			return vm.Value{}, notIterable("iter.chain", args.At(0))
		}
		return vm.Of(newIter(th, &chainSource{it, o})), nil
	})
	im("chunks", "it.chunks(n)", "lazily lists of n items (the last may be shorter)", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		n, ok := args.Int(0)
		if !ok || n <= 0 {
			return vm.Value{}, vm.Typef("iter.chunks: chunk size must be positive")
		}
		return vm.Of(newIter(th, &chunksSource{it, n})), nil
	})
	im("windows", "it.windows(n)", "lazily every full window of n items", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		n, ok := args.Int(0)
		if !ok || n <= 0 {
			return vm.Value{}, vm.Typef("iter.windows: window size must be positive")
		}
		return vm.Of(newIter(th, &windowsSource{in: it, n: n})), nil
	})
	im("iter", "it.iter()", "the iterator itself", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		return vm.Of(it), nil
	})

	// sinks
	im("to_list", "it.to_list()", "drain into a list", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		items, err := drain(th, it)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.List(items)), nil
	})
	im("to_set", "it.to_set()", "drain into a set (deduplicated by equality)", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		items, err := drain(th, it)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(setByEquality(items)), nil
	})
	im("to_dict", "it.to_dict()", "drain pair(key, value) items into a dict", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		b := vm.NewDictBuilder(0)
		err := each(th, it, func(v vm.Value) (bool, error) {
			p, ok := v.AsPair()
			if !ok {
				return false, vm.Typef("iter.to_dict: expected pair, got %s", v.Type())
			}
			k, ok := p.First.AsString()
			if !ok {
				return false, vm.Typef("iter.to_dict: expected string key, got %s", p.First.Type())
			}
			b.Set(k.Go(), p.Second)
			return true, nil
		})
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(b.Build()), nil
	})
	im("count", "it.count()", "drain and count the items", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		n := 0
		err := each(th, it, func(vm.Value) (bool, error) { n++; return true, nil })
		if err != nil {
			return vm.Value{}, err
		}
		return lib.IntOf(n), nil
	})
	im("sum", "it.sum()", "drain and add the numbers", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		var s summer
		err := each(th, it, func(v vm.Value) (bool, error) {
			if !s.add(v) {
				return false, vm.Typef("iter.sum: expected number, got %s", v.Type())
			}
			return true, nil
		})
		if err != nil {
			return vm.Value{}, err
		}
		return s.value("iter.sum")
	})
	minmax := func(dir int) func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		return func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
			items, err := drain(th, it)
			if err != nil {
				return vm.Value{}, err
			}
			return extreme(items, items, dir), nil
		}
	}
	im("min", "it.min()", "drain; the smallest item or nil", minmax(-1))
	im("max", "it.max()", "drain; the largest item or nil", minmax(1))
	im("reduce", "it.reduce(init, f)", "drain with a left fold from init", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		if args.Len() < 2 {
			return vm.Value{}, vm.Typef("iter.reduce: expected (init, fn)")
		}
		f, ok := args.Callable(1)
		if !ok {
			return vm.Value{}, vm.Typef("iter.reduce: second arg must be callable")
		}
		acc := args[0]
		call := th.Prepare2(f)
		err := each(th, it, func(v vm.Value) (bool, error) {
			r, err := call.Call(acc, v)
			acc = r
			return err == nil, err
		})
		if err != nil {
			return vm.Value{}, err
		}
		return acc, nil
	})
	im("first", "it.first()", "the next item, or nil", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		v, ok, err := it.Next(th)
		if err != nil {
			_ = it.Close(th) // a failing read abandons it, as in each
			return vm.Nil, err
		}
		if !ok {
			return vm.Nil, nil
		}
		return v, nil
	})
	im("last", "it.last()", "drain; the last item or nil", func(th *vm.Thread, it *Iter, args vm.Args) (vm.Value, error) {
		var last vm.Value = vm.Nil
		err := each(th, it, func(v vm.Value) (bool, error) { last = v; return true, nil })
		if err != nil {
			return vm.Value{}, err
		}
		return last, nil
	})
	withFn("any", "it.any(f)", "whether some item matches (stops at the first)", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		v, err := findIn(th, it, f)
		return vm.BoolOf(v.IsValid()), err
	})
	withFn("all", "it.all(f)", "whether every item matches (stops at the first failure)", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		result := true
		call := th.Prepare1(f)
		err := each(th, it, func(v vm.Value) (bool, error) {
			r, err := call.Call(v)
			ok := err == nil && r.Truth()
			if !ok {
				result = false
			}
			return ok, err
		})
		return vm.BoolOf(result), err
	})
	withFn("find", "it.find(f)", "the first matching item, or nil", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		v, err := findIn(th, it, f)
		if !v.IsValid() || err != nil {
			return vm.Nil, err
		}
		return v, nil
	})
	withFn("for_each", "it.for_each(f)", "drain, calling f(item)", func(th *vm.Thread, it *Iter, f vm.Value, _ vm.Args) (vm.Value, error) {
		call := th.Prepare1(f)
		err := each(th, it, func(v vm.Value) (bool, error) {
			_, err := call.Call(v)
			return err == nil, err
		})
		return vm.Nil, err
	})
}

// each feeds items to fn until the end, an error, or fn returning false.
// A drain that stops by a failure closes the iterator (the failure wins
// over the close's); one that stops because fn has its answer leaves it
// open for the rest to be read.
func each(th *vm.Thread, it *Iter, fn func(vm.Value) (bool, error)) error {
	err := feed(th, it, fn)
	if err != nil {
		_ = it.Close(th)
	}
	return err
}

func feed(th *vm.Thread, it *Iter, fn func(vm.Value) (bool, error)) error {
	for n := 1; ; n++ {
		// A long drain (a huge range's to_list) runs in Go, out of the
		// interpreter's reach: honour interrupts, deadlines and the
		// memory ceiling here too (docs/limits.md).
		if n&1023 == 0 && th != nil {
			if err := th.CheckInterrupt(); err != nil {
				return err
			}
		}
		v, ok, err := it.Next(th)
		if err != nil || !ok {
			return err
		}
		more, err := fn(v)
		if err != nil || !more {
			return err
		}
	}
}

func drain(th *vm.Thread, it *Iter) ([]vm.Value, error) {
	var out []vm.Value
	err := each(th, it, func(v vm.Value) (bool, error) {
		if len(out) == cap(out) && len(out) >= 1024 {
			// the append reallocates: count it against the ceiling
			if err := vm.CheckAlloc("collecting an iterator", int64(2*len(out)), int64(unsafe.Sizeof(v))); err != nil {
				return false, err
			}
		}
		out = append(out, v)
		return true, nil
	})
	return out, err
}

// findIn returns the first item with a truthy f(item), or nil.
func findIn(th *vm.Thread, it *Iter, f vm.Value) (vm.Value, error) {
	var found vm.Value
	call := th.Prepare1(f)
	err := each(th, it, func(v vm.Value) (bool, error) {
		r, err := call.Call(v)
		ok := err == nil && r.Truth()
		if ok {
			found = v
		}
		return !ok, err
	})
	return found, err
}

package concurrency

// Generators and streams (docs/spec/language.md §13, docs/spec/builtins.md §3.10).
//
// Calling a function that contains `yield` makes a generator; calling a
// `gen fn` that uses `emit` makes a stream. Both are pull-based: the body
// runs on its own thread and goroutine, started by the first `.next()`,
// and runs only while its consumer waits for the next value — the
// consumer lends it the VM lock (vm.Thread.Lend) and gets it back at the
// next `yield`/`emit`. `.next()` returns `{done: false, value: v}` or, once
// the body has returned, `{done: true, value: nil}`; a failure in the body
// is raised by the `.next()` that runs into it, after which the generator
// is done. A for loop that stops iterating a generator early (break,
// return, a failure) closes it: the body returns from the yield it is
// suspended at, running its pending finally blocks and defers, and the
// generator is done (docs/concurrency.md, Generators and streams). A generator that
// becomes garbage before finishing has its goroutine released without
// running any more of its code.
//
// `parallel … as stream` and the `stream.*` operators make streams from
// other sources.

import (
	"runtime"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Generator is a generator or stream value.
type Generator struct {
	vm      *vm.VM
	stream  bool
	src     producer
	done    bool
	pulling bool // a pull is in progress (it may be waiting)
	// loopOwned: a `parallel … as stream` a for loop iterates directly
	// (__stream_loop); the loop's early stop cancels its branches.
	loopOwned bool
}

// producer makes a generator's elements; ok=false at the end.
type producer interface {
	pull(th *vm.Thread) (v vm.Value, ok bool, err error)
}

// concurrentProducer is a producer that several tasks may pull at once
// (parallelSource); any other refuses a second pull while one is in
// progress, so its state is never touched by two pulls at once.
type concurrentProducer interface {
	producer
	concurrent()
}

func newStream(v *vm.VM, src producer) *Generator {
	return &Generator{vm: v, src: src, stream: true}
}

func (g *Generator) Type() string {
	if g.stream {
		return "stream"
	}
	return "generator"
}
func (g *Generator) Truth() bool { return true }
func (g *Generator) Display(sb *strings.Builder) {
	sb.WriteByte('<')
	sb.WriteString(g.Type())
	if g.done {
		sb.WriteString(" (done)")
	}
	sb.WriteByte('>')
}

// Ended reports whether the generator is done: its body finished, or a
// close finished it (a lazy iterator reading it is then exhausted).
func (g *Generator) Ended() bool { return g.done }

// NextOn pulls the next element on behalf of th.
func (g *Generator) NextOn(th *vm.Thread) (vm.Value, bool, error) {
	if g.done {
		return vm.Value{}, false, nil
	}
	if _, shared := g.src.(concurrentProducer); !shared {
		if g.pulling {
			// Another task's pull is waiting for something (a generator's
			// body, a network read, the source of a derived stream).
			return vm.Value{}, false, vm.Runtimef("%s%s", g.Type(), busySuffix)
		}
		g.pulling = true
		defer func() { g.pulling = false }()
	}
	v, ok, err := g.src.pull(th)
	if _, co := g.src.(*coroutine); !co && isBusy(err) {
		// A source this stream reads refused a pull that overlapped
		// another: this stream has not ended, a later pull goes on.
		return vm.Value{}, false, err
	}
	if err != nil || !ok {
		g.done = true
		if o, op := g.src.(*opSource); op && err != nil {
			// an operator that failed (its callback threw) abandons the
			// sources it reads; the failure wins over their close
			_ = o.stop(th)
		}
		return vm.Value{}, false, err
	}
	return v, true, nil
}

const busySuffix = " already running"

// isBusy reports whether err is a stream's refusal of an overlapping pull.
func isBusy(err error) bool {
	e, ok := err.(*vm.Error)
	return ok && e.Kind == vm.KindRuntime && (e.Msg == "generator"+busySuffix || e.Msg == "stream"+busySuffix)
}

// Next pulls the next element for the thread holding the VM lock.
func (g *Generator) Next() (vm.Value, bool, error) { return g.NextOn(g.vm.Current()) }

// Iterate makes `for x in g` consume g.
func (g *Generator) Iterate() vm.Iterator { return g }

// CloseIter closes a generator a for loop stopped iterating early
// (vm.IterCloser): a body suspended at a yield returns from there, and
// what its finally blocks and defers raise is the error. A generator
// that is done, not started, or in a pull of another task is left as it
// is (the other pull goes on).
//
// A stream operator's stream closes the sources it reads, so a loop over
// `stream.map(g, f)` left early closes g; the stream of a `parallel … as
// stream` that a for loop iterates directly cancels its branches and
// waits for them (stopAll): nothing else can read it.
func (g *Generator) CloseIter(th *vm.Thread) error {
	if g.done || g.pulling {
		return nil
	}
	switch src := g.src.(type) {
	case *coroutine:
		g.done = true
		if !src.started {
			return nil
		}
		return src.close(th)
	case *opSource:
		g.done = true
		return src.stop(th)
	case *parallelSource:
		if g.loopOwned {
			src.p.stopAll(th)
		}
	}
	return nil
}

func nextDict(v vm.Value, ok bool) vm.Value {
	if !ok {
		return vm.Of(lib.DictOf("done", vm.True, "value", vm.Nil))
	}
	return vm.Of(lib.DictOf("done", vm.False, "value", v))
}

// ---- coroutines: the bodies of generator functions ----

// coroutine runs a generator function's body on its own thread. The
// consumer resumes it by sending itself on in (a nil thread abandons it;
// close asks the body to return from its yield); the body answers on out
// at each yield and when it ends.
type coroutine struct {
	fn      *vm.Closure
	args    []vm.Value
	th      *vm.Thread
	started bool
	closing bool // the body is returning for a close (its thread's)
	in      chan resume
	out     chan coMsg
}

type resume struct {
	from  *vm.Thread
	close bool
}

type coMsg struct {
	v   vm.Value
	end bool
	err error
}

// abandoned unwinds the body of a generator nobody can resume any more;
// as an exit-kind failure it runs no handler on the way out. (A fresh
// error each time: unwinding annotates it.)
func abandoned() *vm.Error { return &vm.Error{Kind: vm.KindExit, Msg: abandonedMsg} }

const abandonedMsg = "generator abandoned"

// yieldedWhileClosing unwinds a body that yields while it is being
// closed (a yield in a finally block or defer): like an abandoned one, it
// runs nothing more, and the close fails with closeYieldMsg.
func yieldedWhileClosing() *vm.Error { return &vm.Error{Kind: vm.KindExit, Msg: closeYieldMsg} }

const closeYieldMsg = "generator yielded while it was being closed (a yield in a finally block or defer)"

func makeGenerator(th *vm.Thread, f *vm.Closure, args []vm.Value) *Generator {
	c := &coroutine{fn: f, args: args, in: make(chan resume, 1), out: make(chan coMsg)}
	g := &Generator{vm: th.VM(), src: c, stream: f.Proto.IsStream}
	runtime.AddCleanup(g, func(c *coroutine) {
		select {
		case c.in <- resume{}:
		default:
		}
	}, c)
	return g
}

func (c *coroutine) pull(th *vm.Thread) (vm.Value, bool, error) {
	if th.ChainDepth() >= vm.MaxFrames {
		// resuming the body nests one more call level (vm.Thread.ChainDepth)
		return vm.Value{}, false, vm.Plainf("Stack overflow: too many nested calls")
	}
	if !c.started {
		c.started = true
		c.th = th.VM().NewThread()
		c.th.Task = c
		go c.body()
	}
	c.in <- resume{from: th}
	m := <-c.out
	if m.end {
		return vm.Value{}, false, m.err
	}
	return m.v, true, nil
}

// close resumes the suspended body on th to return from its yield and
// waits for it to end.
func (c *coroutine) close(th *vm.Thread) error {
	c.in <- resume{from: th, close: true}
	m := <-c.out
	if !m.end {
		return vm.Runtimef("%s", closeYieldMsg) // (the body never yields while closing)
	}
	return m.err
}

func (c *coroutine) body() {
	r := <-c.in
	if r.from == nil {
		return
	}
	th := c.th
	th.Lend(r.from)
	_, err := th.RunBody(c.fn, c.args)
	if e, ok := err.(*vm.Error); ok && e.Kind == vm.KindExit && e.Msg == closeYieldMsg {
		err = vm.Runtimef("%s", closeYieldMsg)
	}
	if e, ok := err.(*vm.Error); ok && e.Kind == vm.KindExit && e.Msg == abandonedMsg {
		th.CancelChildren(-1)
		releaseMutexOf(th)
		releasePermitsOf(th, true)
		return
	}
	th.EndChildren()
	releaseMutexOf(th)
	releasePermitsOf(th, err != nil)
	th.Unlend()
	c.out <- coMsg{end: true, err: err}
}

// Yield hands v to the consumer and waits to be resumed (vm.Yielder).
func (c *coroutine) Yield(th *vm.Thread, v vm.Value) (vm.Value, error) {
	if c.closing {
		return vm.Value{}, yieldedWhileClosing()
	}
	th.Unlend()
	c.out <- coMsg{v: v}
	r := <-c.in
	if r.from == nil {
		return vm.Value{}, abandoned()
	}
	th.Lend(r.from)
	if r.close {
		c.closing = true
		return vm.Nil, vm.ErrClosing
	}
	return vm.Nil, nil
}

// ---- stream sources built in Go ----

// funcSource adapts a Go function.
type funcSource func(th *vm.Thread) (vm.Value, bool, error)

func (f funcSource) pull(th *vm.Thread) (vm.Value, bool, error) { return f(th) }

// opSource is a stream operator's producer: next makes the elements from
// the sources it reads, and stop closes those sources when the stream is
// abandoned (a for loop over it left early).
type opSource struct {
	next funcSource
	stop func(th *vm.Thread) error
}

func (o *opSource) pull(th *vm.Thread) (vm.Value, bool, error) { return o.next(th) }

// reading is the stream of an operator whose elements next makes from
// ins: closing it closes them.
func reading(v *vm.VM, next funcSource, ins ...vm.Iterator) *Generator {
	return newStream(v, &opSource{next: next, stop: func(th *vm.Thread) error { return closeIters(th, ins...) }})
}

// closeIters closes the sources that can be closed (generators and the
// streams made from them), returning the first close error.
func closeIters(th *vm.Thread, ins ...vm.Iterator) error {
	var first error
	for _, in := range ins {
		if c, ok := in.(vm.IterCloser); ok {
			if err := c.CloseIter(th); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// drainFrom reads the next element of source it for a sink (collect,
// fold, first): a failing read abandons the source, which is closed down
// to the generator it reads (docs/concurrency.md); the failure wins over
// the close's.
func drainFrom(th *vm.Thread, it vm.Iterator) (vm.Value, bool, error) {
	v, ok, err := pullFrom(th, it)
	if err != nil {
		_ = closeIters(th, it)
	}
	return v, ok, err
}

// pullFrom reads the next element of any iterable source on th.
func pullFrom(th *vm.Thread, it vm.Iterator) (vm.Value, bool, error) {
	if ti, ok := it.(vm.ThreadIterator); ok {
		return ti.NextOn(th)
	}
	return it.Next()
}

func streamArg(th *vm.Thread, name string, v vm.Value) (vm.Iterator, error) {
	if it, ok := v.Object().(vm.Iterable); ok {
		return it.Iterate(), nil
	}
	return nil, vm.Typef("stream.%s: expected a stream, got %s", name, v.Type())
}

func init() {
	lib.Def("__generator", "__generator(f, args)", "runtime hook: call a generator function", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		f, ok := a.At(0).AsClosure()
		if !ok {
			return vm.Value{}, vm.Typef("cannot make a generator from %s", a.At(0).Type())
		}
		var args []vm.Value
		if l, ok := a.List(1); ok {
			args = l.Items()
		}
		return vm.Of(makeGenerator(th, f, args)), nil
	})
	next := func(th *vm.Thread, recv vm.Value, a vm.Args) (vm.Value, error) {
		v, ok, err := recv.Object().(*Generator).NextOn(th)
		if err != nil {
			return vm.Value{}, err
		}
		return nextDict(v, ok), nil
	}
	lib.Method("generator", "next", "g.next()", "the next value as {done, value}", next)
	lib.Method("stream", "next", "s.next()", "the next value as {done, value}", next)

	streamOps()
}

// streamOps registers the `stream` namespace (docs/spec/builtins.md §5 "Stream
// operators"): each operator takes a stream (or any iterable) first and
// returns a new lazy stream, or consumes it.
func streamOps() {
	op := func(name, sig, doc string, fn vm.BuiltinFunc) {
		streamNamespace = append(streamNamespace, vm.NewBuiltin("stream."+name, sig, doc, fn))
	}
	// streamAndFn reads the (stream, callable) arguments most operators take.
	// fnAt is the index of the callable (after an init value for scan/fold).
	streamAndFnAt := func(th *vm.Thread, name string, a vm.Args, fnAt int) (vm.Iterator, vm.Value, error) {
		in, err := streamArg(th, name, a.At(0))
		if err != nil {
			return nil, vm.Value{}, err
		}
		f, ok := a.Callable(fnAt)
		if !ok {
			return nil, vm.Value{}, vm.Typef("stream.%s: expected callable", name)
		}
		return in, f, nil
	}
	streamAndFn := func(th *vm.Thread, name string, a vm.Args) (vm.Iterator, vm.Value, error) {
		return streamAndFnAt(th, name, a, 1)
	}
	// eachElement is the builtin stream.name(s, f) whose stream is each
	// element v of s passed through step(th, f, v).
	eachElement := func(name string, step func(th *vm.Thread, f, v vm.Value) (vm.Value, error)) vm.BuiltinFunc {
		return func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			in, f, err := streamAndFn(th, name, a)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(reading(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
				v, ok, err := pullFrom(th, in)
				if err != nil || !ok {
					return vm.Value{}, false, err
				}
				v, err = step(th, f, v)
				return v, err == nil, err
			}, in)), nil
		}
	}
	op("map", "stream.map(s, f)", "apply f to each element", eachElement("map", func(th *vm.Thread, f, v vm.Value) (vm.Value, error) {
		return th.Call1(f, v)
	}))
	op("filter", "stream.filter(s, f)", "keep the elements f accepts", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, f, err := streamAndFn(th, "filter", a)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(reading(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
			for {
				v, ok, err := pullFrom(th, in)
				if err != nil || !ok {
					return vm.Value{}, false, err
				}
				keep, err := lib.Truth(th, f, v)
				if err != nil {
					return vm.Value{}, false, err
				}
				if keep {
					return v, true, nil
				}
			}
		}, in)), nil
	})
	op("tap", "stream.tap(s, f)", "call f on each element, passing it on", eachElement("tap", func(th *vm.Thread, f, v vm.Value) (vm.Value, error) {
		if _, err := th.Call1(f, v); err != nil {
			return vm.Value{}, err
		}
		return v, nil
	}))
	op("scan", "stream.scan(s, init, f)", "running accumulation: f(acc, x) for each element", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, f, err := streamAndFnAt(th, "scan", a, 2)
		if err != nil {
			return vm.Value{}, err
		}
		acc := a.At(1)
		return vm.Of(reading(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
			v, ok, err := pullFrom(th, in)
			if err != nil || !ok {
				return vm.Value{}, false, err
			}
			acc, err = th.Call(f, acc, v)
			return acc, err == nil, err
		}, in)), nil
	})
	op("take", "stream.take(s, n)", "the first n elements", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, err := streamArg(th, "take", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		n, ok := a.Int(1)
		if !ok || n < 0 {
			return vm.Value{}, vm.Typef("stream.take: expected non-negative int")
		}
		return vm.Of(reading(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
			if n <= 0 {
				return vm.Value{}, false, nil
			}
			n--
			return pullFrom(th, in)
		}, in)), nil
	})
	op("take_until", "stream.take_until(s, f)", "elements up to (not including) the first one f accepts", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, f, err := streamAndFn(th, "take_until", a)
		if err != nil {
			return vm.Value{}, err
		}
		stopped := false
		return vm.Of(reading(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
			if stopped {
				return vm.Value{}, false, nil
			}
			v, ok, err := pullFrom(th, in)
			if err != nil || !ok {
				return vm.Value{}, false, err
			}
			stop, err := lib.Truth(th, f, v)
			if err != nil || stop {
				stopped = true
				return vm.Value{}, false, err
			}
			return v, true, nil
		}, in)), nil
	})
	op("zip", "stream.zip(a, b)", "pairs of elements, ending with the shorter", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		x, err := streamArg(th, "zip", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		y, err := streamArg(th, "zip", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(reading(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
			v, ok, err := pullFrom(th, x)
			if err != nil || !ok {
				return vm.Value{}, false, err
			}
			w, ok, err := pullFrom(th, y)
			if err != nil || !ok {
				return vm.Value{}, false, err
			}
			return vm.Of(&vm.Pair{First: v, Second: w}), true, nil
		}, x, y)), nil
	})
	interleave := func(name string) vm.BuiltinFunc {
		return func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			var ins []vm.Iterator
			srcs := []vm.Value(a)
			if l, ok := a.List(0); ok && a.Len() == 1 {
				srcs = l.Items()
			}
			for _, s := range srcs {
				it, err := streamArg(th, name, s)
				if err != nil {
					return vm.Value{}, err
				}
				ins = append(ins, it)
			}
			i := 0
			return vm.Of(newStream(th.VM(), &opSource{stop: func(th *vm.Thread) error { return closeIters(th, ins...) }, next: func(th *vm.Thread) (vm.Value, bool, error) {
				for len(ins) > 0 {
					i %= len(ins)
					v, ok, err := pullFrom(th, ins[i])
					if err != nil {
						return vm.Value{}, false, err
					}
					if ok {
						i++
						return v, true, nil
					}
					ins = append(ins[:i:i], ins[i+1:]...)
				}
				return vm.Value{}, false, nil
			}})), nil
		}
	}
	op("interleave", "stream.interleave(a, b, …)", "one element of each stream in turn, until all end", interleave("interleave"))
	op("merge", "stream.merge(a, b, …)", "the elements of all streams (taken in turn)", interleave("merge"))
	op("collect", "stream.collect(s)", "all remaining elements as a list", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, err := streamArg(th, "collect", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		var out []vm.Value
		for {
			v, ok, err := drainFrom(th, in)
			if err != nil {
				return vm.Value{}, err
			}
			if !ok {
				return vm.Of(lib.List(out)), nil
			}
			out = append(out, v)
		}
	})
	op("fold", "stream.fold(s, init, f)", "reduce the elements with f(acc, x)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, f, err := streamAndFnAt(th, "fold", a, 2)
		if err != nil {
			return vm.Value{}, err
		}
		acc := a.At(1)
		for {
			v, ok, err := drainFrom(th, in)
			if err != nil {
				return vm.Value{}, err
			}
			if !ok {
				return acc, nil
			}
			if acc, err = th.Call(f, acc, v); err != nil {
				_ = closeIters(th, in) // the source is abandoned; the failure wins
				return vm.Value{}, err
			}
		}
	})
	op("first", "stream.first(s)", "the next element (nil when the stream has ended)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, err := streamArg(th, "first", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		v, ok, err := drainFrom(th, in)
		if err != nil || !ok {
			return vm.Nil, err
		}
		return v, nil
	})
	fanAndTimingOps(op)
	lib.Namespace("stream", streamNamespace)
}

var streamNamespace []*vm.Builtin

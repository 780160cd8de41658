package concurrency

// `parallel` (docs/spec/language.md §13): the runtime hook
// __parallel(mode, arg, body, max_concurrent, stream).
//
//	parallel N { i -> … }         mode 0: body(0) … body(N-1), results in index order
//	parallel each xs { x -> … }   mode 1: one branch per element, source order
//	parallel settle xs { x -> … } mode 2: never fails; {results, succeeded, failed}
//	… with { max_concurrent: K }  at most K branches running at once
//	… as stream                   a stream of the results in completion order
//
// Branches are tasks (tasks.go). When a branch fails (modes 0 and 1) the
// branches still running are cancelled, and the failure of the
// lowest-numbered branch that failed is raised once all have stopped.
// Without max_concurrent every branch still starts, as if all had been
// spawned at once: one that starts after the failure runs until its first
// wait and stops there. With max_concurrent no further branch starts. If the waiting code is itself cancelled or passes its
// deadline, every branch is cancelled before the failure propagates.

import (
	"cmp"
	"maps"
	"slices"
	"strconv"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

const (
	parCount  = 0
	parEach   = 1
	parSettle = 2
)

type parallelRun struct {
	parent *vm.Thread
	fn     vm.Value
	mode   int
	items  []vm.Value // nil in count mode
	n      int
	limit  int // max branches running at once (n when unlimited)

	// Touched only by threads holding the VM lock.
	started, finished int
	queued            int // branches started but not yet running
	one               [1]vm.Value
	onStart, onDone   func(*Task) // branchStarted and branchDone
	failed            bool
	halted            bool // the waiting code stopped it: no branch starts
	results           []vm.Value
	errs              []*vm.Error
	running           map[*Task]int
	allDone           chan struct{}

	// stream mode: completed branches in completion order that no reader
	// has taken yet, and the tasks waiting to read the stream (several
	// may, each taking other results), oldest first.
	stream  bool
	queue   []parResult
	readers []*streamReader
}

// streamReader is a task waiting for the next result of a `parallel …
// as stream`: a result is handed to the reader that began to wait first,
// as a queue with several consumers hands its items out (Go's channels,
// asyncio's Queue), so readers that each loop over the stream take turns.
type streamReader struct {
	wake chan struct{}
	r    *parResult // the result handed to it; nil when woken for the end
}

type parResult struct {
	v   vm.Value
	err *vm.Error
}

func init() {
	lib.Def("__parallel", "__parallel(mode, arg, body, max_concurrent, stream, max_concurrent_written?)", "runtime hook of `parallel`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		mode, _ := a.Int(0)
		p := &parallelRun{parent: th, fn: a.At(2), mode: int(mode), running: map[*Task]int{}, allDone: make(chan struct{})}
		p.onStart, p.onDone = p.branchStarted, p.branchDone
		if p.mode == parCount {
			n, ok := a.Int(1)
			if !ok {
				return vm.Value{}, vm.Typef("parallel: expected an int count, got %s", a.At(1).Type())
			}
			// the result is a list of n values: refuse a count whose
			// result could never be held, before allocating anything
			if err := vm.CheckAlloc("parallel "+strconv.FormatInt(n, 10), n, 24); err != nil {
				return vm.Value{}, err
			}
			p.n = int(max(n, 0))
		} else {
			items, err := parallelItems(th, p.mode, a.At(1))
			if err != nil {
				return vm.Value{}, err
			}
			p.items, p.n = items, len(items)
		}
		p.limit = p.n
		if written, _ := a.Bool(5); a.Given(3) || written {
			k, ok := a.Int(3)
			if !ok {
				return vm.Value{}, vm.Runtimef("parallel: max_concurrent must be a positive int, got %s", a.At(3).Type())
			}
			if k < 1 {
				return vm.Value{}, vm.Runtimef("parallel: max_concurrent must be a positive int, got %d", k)
			}
			if int(k) < p.limit {
				p.limit = int(k)
			}
		}
		p.results = make([]vm.Value, p.n)
		p.errs = make([]*vm.Error, p.n)
		p.stream, _ = a.Bool(4)
		p.startMore(false)
		if p.settled() { // nothing to run, or the run was ending already
			close(p.allDone)
		}
		if p.stream {
			return vm.Of(newStream(th.VM(), &parallelSource{p: p})), nil
		}
		return p.wait(th)
	})
}

func parallelItems(th *vm.Thread, mode int, v vm.Value) ([]vm.Value, error) {
	if items, ok, err := iterableItems(th, v); ok || err != nil {
		return items, err
	}
	word := "each"
	if mode == parSettle {
		word = "settle"
	}
	return nil, vm.Typef("parallel %s: expected a list, got %s", word, v.Type())
}

// iterableItems reads v up front when it is a list or another iterable
// (set, dict entries, range, iterator, generator, stream, channel);
// ok is false for a value that is neither.
func iterableItems(th *vm.Thread, v vm.Value) (items []vm.Value, ok bool, err error) {
	switch x := v.Object().(type) {
	case *vm.List:
		return x.Items(), true, nil
	case vm.Iterable:
		it := x.Iterate()
		for {
			var e vm.Value
			var more bool
			if ti, isTI := it.(vm.ThreadIterator); isTI {
				e, more, err = ti.NextOn(th)
			} else {
				e, more, err = it.Next()
			}
			if err != nil {
				return nil, true, err
			}
			if !more {
				return items, true, nil
			}
			items = append(items, e)
		}
	}
	return nil, false, nil
}

// startMore queues the next branch, if the concurrency limit allows (lock
// held). Only one branch waits in the scheduler's queue at a time; the
// next is queued when it starts (branchStarted), so a parallel over many
// items keeps just a few threads alive, whatever its size. next is set
// when the branch before starts: the new branch then takes its place in
// the scheduler's queue right behind it (vm.StartNext), so branches start
// in the order they would had all been spawned at once, ahead of tasks
// spawned or woken since (the branches of a nested parallel included);
// a branch past the first max_concurrent, let in by one that ended,
// queues as usual, as a task waiting for a free slot would be woken.
func (p *parallelRun) startMore(next bool) {
	if p.parent.VM().Stopping() {
		p.halted = true // the run is ending (Ctrl-C, exit): no more branches
	}
	if !p.halted && (!p.failed || p.limit == p.n) && p.queued == 0 && p.started < p.n && p.started-p.finished < p.limit {
		i := p.started
		p.started++
		var arg vm.Value
		if p.items != nil {
			arg = p.items[i]
		} else {
			arg = vm.IntOf(int64(i))
		}
		p.queued++
		p.one[0] = arg
		t := newTask(p.parent, p.fn, p.one[:], p.onDone)
		t.onStart = p.onStart
		if next && i < p.limit { // one of the first max_concurrent: not let in by an ending branch
			p.parent.VM().StartNext(t)
		} else {
			p.parent.VM().Start(t)
		}
		p.running[t] = i
	}
}

// branchStarted runs when a branch begins (on its thread, lock held).
// A branch cancelled while it was still queued was cancelled with its
// owner's other tasks (the owner ended, its deadline passed, its scope
// failed): the branches not yet queued are not its children yet, so they
// must not start either, or they would outlive the owner.
func (p *parallelRun) branchStarted(t *Task) {
	p.queued--
	if t.stopRequested() {
		p.halted = true
	}
	if p.failed {
		t.Cancel() // it runs until its first wait
	}
	p.startMore(true)
}

// branchDone records a finished branch; it runs on the branch's thread
// holding the VM lock.
func (p *parallelRun) branchDone(t *Task) {
	i := p.running[t]
	delete(p.running, t)
	p.finished++
	var r parResult
	switch {
	case t.err == nil:
		r.v = t.result
		if p.mode == parSettle {
			// one Result per item, as a bare `try { … }` gives
			// (docs/spec/language.md §8.4): a branch that returns a
			// Result is not wrapped again, so a returned Err counts as
			// failed
			if _, isRes := vm.IsResult(t.result); !isRes {
				r.v = vm.Of(vm.Ok(t.result))
			}
		}
	case p.mode == parSettle && !isCancellation(t.err):
		r.v = vm.Of(vm.Err(t.err.Caught()))
	case isCancellation(t.err) && !p.failed && t.cancelledByHandle():
		// cancelled through its handle (task_current()) by the script, not
		// by this run: as `await` of a cancelled task gives nil, so does
		// the branch; its siblings go on
		r.v = vm.Nil
		if p.mode == parSettle {
			r.v = vm.Of(vm.Ok(vm.Nil))
		}
	case isCancellation(t.err) && p.failed:
		// stopped because a sibling failed
		r.err = t.err
	default:
		r.err = t.err
		if !p.failed {
			p.failed = true
			for _, other := range p.runningInOrder() {
				// A branch still queued is cancelled when it starts
				// (branchStarted), or, with max_concurrent, now.
				if p.limit < p.n || other.hasStarted() {
					other.Cancel()
				}
			}
		}
	}
	p.results[i], p.errs[i] = r.v, r.err
	if p.stream && (r.err == nil || !isCancellation(r.err)) {
		p.queue = append(p.queue, r)
	}
	p.startMore(false)
	if p.settled() {
		p.parent.VM().WakeAll(p.allDone)
	}
	if p.stream {
		p.handOut()
	}
}

// settled tells whether every branch that will ever start has ended: all
// n did, or no more will (a branch failed, or the run is ending), and
// those started have finished (lock held). A run halted before its first
// branch (Ctrl-C or exit in a task came while the items were read) is
// settled at once: nothing is left to wait for.
func (p *parallelRun) settled() bool {
	return p.finished == p.started && (p.started == p.n || p.failed || p.halted)
}

// handOut gives the queued results to the readers waiting for them, the
// first result to the reader that began to wait first, and once every
// branch has ended wakes the readers left so that they see the end (lock
// held).
func (p *parallelRun) handOut() {
	for len(p.readers) > 0 && len(p.queue) > 0 {
		rd := p.readers[0]
		p.readers = p.readers[1:]
		r := p.queue[0]
		p.queue = p.queue[1:]
		rd.r = &r
		p.parent.VM().WakeAll(rd.wake)
	}
	if len(p.readers) > 0 && p.ended() {
		for _, rd := range p.readers {
			p.parent.VM().WakeAll(rd.wake)
		}
		p.readers = nil
	}
}

// ended tells whether every branch has ended.
func (p *parallelRun) ended() bool {
	select {
	case <-p.allDone:
		return true
	default:
		return false
	}
}

// cancel stops every running branch and starts no more (lock held).
func (p *parallelRun) cancel() {
	p.failed, p.halted = true, true
	for _, t := range p.runningInOrder() {
		t.Cancel()
	}
}

// runningInOrder lists the running branches by index, the order they are
// cancelled in, so their cleanups run in that order (lock held).
func (p *parallelRun) runningInOrder() []*Task {
	ts := slices.Collect(maps.Keys(p.running))
	slices.SortFunc(ts, func(a, b *Task) int { return cmp.Compare(p.running[a], p.running[b]) })
	return ts
}

// stopAll cancels the branches and waits, without the lock, until they
// have all ended.
func (p *parallelRun) stopAll(th *vm.Thread) {
	p.cancel()
	th.Unlock()
	<-p.allDone
	th.Lock()
}

// wait blocks until every branch has ended and returns the results.
func (p *parallelRun) wait(th *vm.Thread) (vm.Value, error) {
	select {
	case <-p.allDone:
	default:
		if _, err := th.WaitOnTasks(p.allDone, -1); err != nil {
			p.stopAll(th)
			return vm.Value{}, err
		}
	}
	if p.halted && p.started < p.n {
		// the run is ending (or this thread was cancelled) and some
		// branches never started: there is no whole result to give
		if err := th.CheckInterrupt(); err != nil {
			return vm.Value{}, err
		}
	}
	if p.failed {
		if e := p.firstError(); e != nil {
			return vm.Value{}, e
		}
	}
	if p.mode == parSettle {
		ok := 0
		for _, r := range p.results {
			if isOk, _ := vm.IsResult(r); isOk {
				ok++
			}
		}
		return vm.Of(lib.DictOf("results", vm.NewList(p.results), "succeeded", lib.IntOf(ok), "failed", lib.IntOf(p.n-ok))), nil
	}
	return vm.Of(vm.NewList(p.results)), nil
}

// firstError is the failure of the lowest-numbered branch that failed on
// its own (not because it was cancelled).
func (p *parallelRun) firstError() *vm.Error {
	var fallback *vm.Error
	for _, e := range p.errs {
		if e == nil {
			continue
		}
		if !isCancellation(e) {
			return e
		}
		if fallback == nil {
			fallback = e
		}
	}
	return fallback
}

func init() {
	lib.Def("__stream_loop", "__stream_loop(stream)", "runtime hook of a for loop over `parallel … as stream`: the loop owns the stream, and leaving it early stops the branches", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if g, ok := a.At(0).Object().(*Generator); ok {
			if _, ok := g.src.(*parallelSource); ok {
				g.loopOwned = true
			}
		}
		return a.At(0), nil
	})
}

// parallelSource feeds `parallel … as stream` results, in completion
// order, to the stream's consumers: tasks reading it at once each take
// other results, and all of them see its end.
type parallelSource struct {
	p *parallelRun
}

func (s *parallelSource) concurrent() {}

func (s *parallelSource) pull(th *vm.Thread) (vm.Value, bool, error) {
	p := s.p
	for {
		// while results are queued no reader waits (handOut)
		if len(p.queue) > 0 {
			r := p.queue[0]
			p.queue = p.queue[1:]
			return s.take(th, r)
		}
		if p.ended() {
			return vm.Value{}, false, nil
		}
		rd := &streamReader{wake: make(chan struct{})}
		p.readers = append(p.readers, rd)
		_, err := th.WaitOnTasks(rd.wake, -1)
		if rd.r != nil { // a result handed over wins over a cancellation that came with it
			return s.take(th, *rd.r)
		}
		if err != nil {
			p.readers = slices.DeleteFunc(p.readers, func(o *streamReader) bool { return o == rd })
			p.stopAll(th)
			return vm.Value{}, false, err
		}
	}
}

// take gives a reader result r: its value, or its failure once the
// other branches have been stopped.
func (s *parallelSource) take(th *vm.Thread, r parResult) (vm.Value, bool, error) {
	if r.err != nil {
		s.p.stopAll(th)
		return vm.Value{}, false, r.err
	}
	return r.v, true, nil
}

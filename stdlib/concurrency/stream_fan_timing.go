package concurrency

import (
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// The fan-out and timing stream operators: broadcast, race, throttle,
// debounce (docs/spec/builtins.md §5 names them; the behaviour below is this
// implementation's, after the usual reactive-stream meanings).
//
// Streams here are pulled, so an element "arrives" when the pull that
// produced it returns, read on the VM clock (which mock_time freezes and
// sleep advances, so these operators are deterministic under a mocked
// clock). throttle and debounce give the same elements a push-based
// operator would, only later: debounce learns that an element was the last
// of its burst when the next one arrives late (or the source ends). race
// pulls each source's first element in turn and lets the one that took the
// least time win, as if they had started together.

func fanAndTimingOps(op func(name, sig, doc string, fn vm.BuiltinFunc)) {
	op("broadcast", "stream.broadcast(s, n = 2)", "n streams that each see every element of s (s is read once)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, err := streamArg(th, "broadcast", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		n := int64(2)
		if a.Given(1) {
			var ok bool
			if n, ok = a.Int(1); !ok || n < 1 {
				return vm.Value{}, vm.Typef("stream.broadcast: n must be a positive int")
			}
			if err := vm.CheckAlloc("stream.broadcast", n, 64); err != nil {
				return vm.Value{}, err
			}
		}
		f := &fanout{in: in, queues: make([][]vm.Value, n)}
		out := make([]vm.Value, n)
		for i := range out {
			out[i] = vm.Of(newStream(th.VM(), funcSource(func(th *vm.Thread) (vm.Value, bool, error) {
				return f.pull(th, i)
			})))
		}
		return vm.Of(lib.List(out)), nil
	})
	op("race", "stream.race(a, b, …)", "the elements of the source whose first element came soonest", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		srcs := []vm.Value(a)
		if l, ok := a.List(0); ok && a.Len() == 1 {
			srcs = l.Items()
		}
		var ins []vm.Iterator
		for _, s := range srcs {
			it, err := streamArg(th, "race", s)
			if err != nil {
				return vm.Value{}, err
			}
			ins = append(ins, it)
		}
		var winner vm.Iterator
		var first *vm.Value
		stop := func(th *vm.Thread) error {
			if winner != nil {
				return closeIters(th, winner)
			}
			return closeIters(th, ins...)
		}
		return vm.Of(newStream(th.VM(), &opSource{stop: stop, next: func(th *vm.Thread) (vm.Value, bool, error) {
			if winner == nil {
				if len(ins) == 0 {
					return vm.Value{}, false, nil
				}
				won, v, ok, err := raceFirst(th, ins)
				all := ins
				var losers []vm.Iterator
				for i, in := range ins {
					if i != won {
						losers = append(losers, in)
					}
				}
				ins = nil
				if cerr := closeIters(th, losers...); err == nil {
					err = cerr // the losers are abandoned; a failure in flight wins
				}
				if err != nil || !ok {
					return vm.Value{}, false, err
				}
				winner, first = all[won], &v
			}
			if first != nil {
				v := *first
				first = nil
				return v, true, nil
			}
			return pullFrom(th, winner)
		}})), nil
	})
	op("throttle", "stream.throttle(s, interval)", "the first element, then only elements arriving at least interval after the last one passed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, d, err := streamAndInterval(th, "throttle", a)
		if err != nil {
			return vm.Value{}, err
		}
		var last time.Time
		started := false
		return vm.Of(reading(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
			for {
				v, ok, err := pullFrom(th, in)
				if err != nil || !ok {
					return vm.Value{}, false, err
				}
				now := htime.VMNow(th)
				if !started || now.Sub(last) >= d {
					started, last = true, now
					return v, true, nil
				}
			}
		}, in)), nil
	})
	op("debounce", "stream.debounce(s, interval)", "each element not followed by another within interval (the last of each burst)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, d, err := streamAndInterval(th, "debounce", a)
		if err != nil {
			return vm.Value{}, err
		}
		var pending vm.Value
		var at time.Time
		has, ended := false, false
		return vm.Of(reading(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
			for !ended {
				v, ok, err := pullFrom(th, in)
				if err != nil {
					return vm.Value{}, false, err
				}
				if !ok {
					ended = true
					break
				}
				now := htime.VMNow(th)
				if has && now.Sub(at) >= d {
					out := pending
					pending, at = v, now
					return out, true, nil
				}
				pending, at, has = v, now, true
			}
			if has {
				has = false
				return pending, true, nil
			}
			return vm.Value{}, false, nil
		}, in)), nil
	})
}

func streamAndInterval(th *vm.Thread, name string, a vm.Args) (vm.Iterator, time.Duration, error) {
	in, err := streamArg(th, name, a.At(0))
	if err != nil {
		return nil, 0, err
	}
	d, ok := lib.WaitDuration(a.At(1))
	if !ok || d < 0 {
		return nil, 0, vm.Typef("stream.%s: interval must be a duration or a number of milliseconds, got %s", name, a.At(1).Type())
	}
	return in, d, nil
}

// raceFirst pulls the first element of each source and picks the source
// whose pull took the least time (the earliest on a tie), returning its
// index; a source that ends at once cannot win, and a failure that came
// soonest is raised.
func raceFirst(th *vm.Thread, ins []vm.Iterator) (int, vm.Value, bool, error) {
	best := -1
	var bestV vm.Value
	var bestErr error
	var bestTook time.Duration
	for i, in := range ins {
		start := htime.VMNow(th)
		v, ok, err := pullFrom(th, in)
		took := htime.VMNow(th).Sub(start)
		if err == nil && !ok || best >= 0 && took >= bestTook {
			continue
		}
		best, bestTook = i, took
		bestV, bestErr = v, err
	}
	if bestErr != nil {
		return best, vm.Value{}, false, bestErr
	}
	return best, bestV, best >= 0, nil
}

// fanout reads one source for several branches: a branch with nothing
// queued pulls the source and queues the element for every other branch.
// Branches may be consumed by different tasks: the state is touched only
// under the VM lock, and a branch that finds another one pulling (its
// source released the lock, e.g. to sleep) waits for that pull instead of
// resuming the source twice.
type fanout struct {
	in      vm.Iterator
	queues  [][]vm.Value
	ended   bool
	err     error
	pulling chan struct{} // closed when the pull in progress ends; nil when none
}

func (f *fanout) pull(th *vm.Thread, i int) (vm.Value, bool, error) {
	for {
		if q := f.queues[i]; len(q) > 0 {
			v := q[0]
			f.queues[i] = q[1:]
			return v, true, nil
		}
		if f.ended {
			return vm.Value{}, false, f.err
		}
		if f.pulling == nil {
			return f.pullSource(th, i)
		}
		if _, err := th.WaitOnThreads(f.pulling, -1); err != nil {
			return vm.Value{}, false, err
		}
	}
}

func (f *fanout) pullSource(th *vm.Thread, i int) (vm.Value, bool, error) {
	done := make(chan struct{})
	f.pulling = done
	defer func() {
		f.pulling = nil
		th.VM().WakeAll(done)
	}()
	v, ok, err := pullFrom(th, f.in)
	if e, isVM := err.(*vm.Error); isVM && isCancellation(e) || isBusy(err) {
		// This reader was stopped (cancelled, its deadline) or the source
		// refused an overlapping pull: that ends neither the source nor the
		// other readers, whose next pull reads on (or finds the source ended).
		return vm.Value{}, false, err
	}
	if err != nil || !ok {
		f.ended, f.err = true, err
		return vm.Value{}, false, err
	}
	for j := range f.queues {
		if j != i {
			f.queues[j] = append(f.queues[j], v)
		}
	}
	return v, true, nil
}

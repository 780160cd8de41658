package concurrency

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// parallel_race (docs/spec/builtins.md §5): run callables as tasks and keep the
// first success; the others are cancelled, and the race returns once they
// have unwound (their finally blocks ran), as a parallel whose branch
// failed does (docs/concurrency.md, parallel_race).

func init() {
	lib.Def("parallel_race", "parallel_race(callables)", "the result of the first callable to finish without failing; the rest are cancelled; if all fail, the last failure is raised", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		// Any iterable of callables, read up front, as parallel each reads
		// its items; a string is not a list of callables.
		var fns []vm.Value
		var ok bool
		var err error
		if _, isStr := a.Str(0); !isStr {
			fns, ok, err = iterableItems(th, a.At(0))
			if err != nil {
				return vm.Value{}, err
			}
		}
		if !ok {
			return vm.Value{}, vm.Typef("parallel_race: expected a non-empty list of callables, got %s", a.At(0).Type())
		}
		if len(fns) == 0 {
			return vm.Value{}, vm.Typef("parallel_race: expected a non-empty list of callables, got an empty list")
		}
		for _, f := range fns {
			if !vm.IsCallable(f) {
				return vm.Value{}, vm.Typef("parallel_race: expected a non-empty list of callables, got an item of type %s", f.Type())
			}
		}
		notify := make(chan struct{}, len(fns))
		tasks := make([]*Task, len(fns))
		v := th.VM()
		for i, f := range fns {
			tasks[i] = spawnTask(th, f, nil, func(*Task) { v.Wake(notify) })
		}
		cancelAll := func() {
			for _, t := range tasks {
				t.Cancel()
			}
		}
		// stopLosers cancels the tasks still running and waits until every
		// one has ended; if the racing code is itself stopped meanwhile,
		// it waits on without the lock, as parallel's stopAll does.
		stopLosers := func() {
			cancelAll()
			for _, t := range tasks {
				select {
				case <-t.Done():
					continue
				default:
				}
				if _, err := th.WaitOnTasks(t.Done(), -1); err != nil {
					th.Unlock()
					for _, t := range tasks {
						<-t.Done()
					}
					th.Lock()
					return
				}
			}
		}
		finished := map[*Task]bool{}
		var lastErr error
		for len(finished) < len(tasks) {
			if _, err := th.WaitOnTasks(notify, -1); err != nil {
				stopLosers()
				return vm.Value{}, err
			}
			for _, t := range tasks {
				if finished[t] {
					continue
				}
				select {
				case <-t.Done():
				default:
					continue
				}
				finished[t] = true
				v, err := t.outcome()
				if err == nil && t.err == nil {
					stopLosers()
					return v, nil
				}
				if err != nil {
					lastErr = err
				}
			}
		}
		if lastErr == nil {
			return vm.Nil, nil
		}
		return vm.Value{}, lastErr
	})
}

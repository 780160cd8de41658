package concurrency

// `scope { … }`: a task nursery (docs/spec/newer.md §1.13, whose details
// are unverified; the choices are listed in docs/concurrency.md). The
// compiler brackets the body with __scope_enter and __scope_exit, and
// calls __scope_fail when the body fails. Every `spawn` the thread runs
// while a nursery is open (in the body or in a function it calls) joins
// the innermost one. At the end of the body the nursery waits for its
// tasks; the first task to fail (in completion order) cancels the others
// at once, and its error is raised when the block ends. When the body
// itself fails, its tasks are cancelled and waited for, and the body's
// error is raised. A cancelled task is not a failure.

import (
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

type nursery struct {
	mu     sync.Mutex
	tasks  []*Task
	failed *Task // the first task that ended with an error
}

// add enrols t; onDone then reports its end to the nursery.
func (n *nursery) add(t *Task) {
	n.mu.Lock()
	n.tasks = append(n.tasks, t)
	n.mu.Unlock()
}

// ended records t's outcome; the first failure cancels the siblings.
func (n *nursery) ended(t *Task) {
	if t.err == nil || isCancellation(t.err) {
		return
	}
	n.mu.Lock()
	first := n.failed == nil
	if first {
		n.failed = t
	}
	siblings := append([]*Task(nil), n.tasks...)
	n.mu.Unlock()
	if first {
		for _, s := range siblings {
			if s != t {
				s.Cancel()
			}
		}
	}
}

func (n *nursery) cancelAll() {
	n.mu.Lock()
	tasks := append([]*Task(nil), n.tasks...)
	n.mu.Unlock()
	for _, t := range tasks {
		t.Cancel()
	}
}

// stopAll cancels the tasks and waits, without the lock (this thread's own
// waits fail now), until they have all ended.
func (n *nursery) stopAll(th *vm.Thread) {
	n.cancelAll()
	n.mu.Lock()
	tasks := append([]*Task(nil), n.tasks...)
	n.mu.Unlock()
	th.Unlock()
	for _, t := range tasks {
		<-t.done
	}
	th.Lock()
}

// join waits for every task; a failed wait (this thread was cancelled or
// passed a deadline) cancels the tasks still running and waits for them
// to unwind, as a nursery does, before the failure goes on.
func (n *nursery) join(th *vm.Thread) error {
	for i := 0; ; i++ {
		n.mu.Lock()
		if i >= len(n.tasks) {
			n.mu.Unlock()
			return nil
		}
		t := n.tasks[i]
		n.mu.Unlock()
		select {
		case <-t.done:
			continue
		default:
		}
		if _, err := th.WaitOnTasks(t.done, -1); err != nil {
			n.stopAll(th)
			return err
		}
	}
}

// nurseries maps each thread to its stack of open nurseries.
type nurseries struct {
	mu    sync.Mutex
	stack map[*vm.Thread][]*nursery
}

type nurseryKey struct{}

func nurseriesOf(th *vm.Thread) *nurseries {
	return th.VM().Local(nurseryKey{}, func() any {
		return &nurseries{stack: map[*vm.Thread][]*nursery{}}
	}).(*nurseries)
}

func (ns *nurseries) push(th *vm.Thread) {
	ns.mu.Lock()
	ns.stack[th] = append(ns.stack[th], &nursery{})
	ns.mu.Unlock()
}

func (ns *nurseries) pop(th *vm.Thread) *nursery {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	s := ns.stack[th]
	if len(s) == 0 {
		return nil
	}
	n := s[len(s)-1]
	if len(s) == 1 {
		delete(ns.stack, th)
	} else {
		ns.stack[th] = s[:len(s)-1]
	}
	return n
}

// innermost is th's innermost open nursery, or nil.
func (ns *nurseries) innermost(th *vm.Thread) *nursery {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if s := ns.stack[th]; len(s) > 0 {
		return s[len(s)-1]
	}
	return nil
}

// spawnInScope is `spawn`: fn becomes a task of th and, when a nursery is
// open on th, one of the nursery's.
func spawnInScope(th *vm.Thread, fn vm.Value) *Task {
	n := nurseriesOf(th).innermost(th)
	if n == nil {
		return spawnTask(th, fn, nil, nil)
	}
	// Enrol before the task can run: spawnTask queues it at once.
	t := spawnTask(th, fn, nil, n.ended)
	n.add(t)
	return t
}

func init() {
	lib.Def("__scope_enter", "__scope_enter()", "runtime hook of `scope { … }`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		nurseriesOf(th).push(th)
		return vm.Nil, nil
	})
	lib.Def("__scope_exit", "__scope_exit()", "runtime hook of `scope { … }`: join the block's tasks, raising the first failure", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		n := nurseriesOf(th).pop(th)
		if n == nil {
			return vm.Nil, nil
		}
		if err := n.join(th); err != nil {
			return vm.Value{}, err
		}
		n.mu.Lock()
		failed := n.failed
		n.mu.Unlock()
		if failed != nil {
			return failed.outcome()
		}
		return vm.Nil, nil
	})
	lib.Def("__scope_fail", "__scope_fail(err)", "runtime hook of `scope { … }`: cancel and join the block's tasks, then re-raise err", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if n := nurseriesOf(th).pop(th); n != nil {
			n.cancelAll()
			_ = n.join(th) // a wait cut short (this thread stopped) leaves them to EndChildren
		}
		return a.At(0), nil
	})
}

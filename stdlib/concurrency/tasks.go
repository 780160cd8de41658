package concurrency

// Tasks: `spawn`, `await`, `cancel`, `cancel_graceful`, `is_cancelled`,
// `parallel`, `deadline` and `mutex` (docs/spec/language.md §13).
//
// Every task runs on its own vm.Thread (own stack, own goroutine once it
// starts) and executes Harn code only while holding the VM lock, so no
// value is ever touched by two goroutines at once; a task body captures
// variables like any closure (§3.4). Tasks are queued by vm.VM.Start and
// begin when the spawning code blocks or yields. A task is a child of the
// thread that spawned it: when that thread's work ends (a task body
// returns, the program finishes), its children still running are
// cancelled.

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Task is a spawned task or a parallel branch; as a value it is the task
// handle (`<task:ID>`, type "task_handle", equal by id).
type Task struct {
	id     int64
	parent *vm.Thread
	fn     vm.Value
	args   []vm.Value
	arg    [1]vm.Value   // backing for a single argument
	done   chan struct{} // closed when the task has ended
	// onDone runs on the task's thread, holding the VM lock, just before
	// done is closed (parallel bookkeeping).
	onDone func(*Task)
	// onStart runs on the task's thread, holding the VM lock, when the task
	// leaves the queue.
	onStart func(*Task)
	// inherited holds the InheritOnSpawn snapshots (nil when all are nil).
	inherited []any
	// context is the task's runtime context values (context.go), guarded
	// by the VM's contextState.
	context *vm.Dict

	// Set before done is closed.
	result vm.Value
	err    *vm.Error

	graceful atomic.Bool // cancel_graceful asked it to stop

	mu       sync.Mutex
	th       *vm.Thread // the thread running the body, while it runs
	stopped  bool       // cancel was asked for
	byHandle bool       // by cancel or cancel_graceful, not by its owner's lifetime
}

func (t *Task) Type() string { return "task_handle" }
func (t *Task) Truth() bool  { return true }
func (t *Task) Display(sb *strings.Builder) {
	sb.WriteString("<task:")
	sb.WriteString(strconv.FormatInt(t.id, 10))
	sb.WriteByte('>')
}

// EqualTo makes handles equal by id (docs/spec/builtins.md §1.5).
func (t *Task) EqualTo(o vm.Value) bool {
	u, ok := o.Object().(*Task)
	return ok && u.id == t.id
}

// Cancel stops the task: at once if it has not started, else at its next
// check or wait.
func (t *Task) Cancel() { t.cancelWithCleanup(vm.DefaultCleanupGrace) }

// cancelWithCleanup cancels the task, giving its cleanup up to grace to
// finish the waits it makes.
func (t *Task) cancelWithCleanup(grace time.Duration) {
	t.mu.Lock()
	t.stopped = true
	th := t.th
	t.mu.Unlock()
	if th != nil {
		th.CancelWithCleanup(grace)
	}
}

// cancelByHandle is cancel(h) and a cancel_graceful(h, grace) whose grace
// ran out: a cancellation the script asked for through the handle.
func (t *Task) cancelByHandle(grace time.Duration) {
	t.mu.Lock()
	t.byHandle = true
	t.mu.Unlock()
	t.cancelWithCleanup(grace)
}

// cancelledByHandle reports whether cancelByHandle was called.
func (t *Task) cancelledByHandle() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byHandle
}

// hasStarted reports whether the task's body has begun running.
func (t *Task) hasStarted() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.th != nil
}

// stopRequested reports whether cancel was called (not cancel_graceful);
// from onStart, whether the task was cancelled before it began.
func (t *Task) stopRequested() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopped
}

// cancelledOrAsked is is_cancelled(h): while the task runs (or waits to
// start), whether cancel or cancel_graceful asked it to stop; once it has
// ended, whether it ended cancelled, so a task that honoured a graceful
// request by returning a value, or ended before a cancel reached it, is
// not reported as cancelled. Nor is one whose cleanup failed after the
// cancel reached it: it ended failed, and await(h) raises that failure
// rather than giving nil, as Python's Task.cancelled() is false for a task
// whose cancellation handler raised.
func (t *Task) cancelledOrAsked() bool {
	ended := t.ended()
	t.mu.Lock()
	defer t.mu.Unlock()
	if ended {
		return t.stopped && t.err != nil && t.err.Kind == vm.KindCancelled
	}
	return t.stopped || t.graceful.Load()
}

// ended reports whether the task has ended.
func (t *Task) ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// Done is closed once the task has ended.
func (t *Task) Done() <-chan struct{} { return t.done }

// ID is the number shown in the handle's display form.
func (t *Task) ID() int64 { return t.id }

type taskIDKey struct{}

// spawnTask queues fn(args...) as a child task of th.
func spawnTask(th *vm.Thread, fn vm.Value, args []vm.Value, onDone func(*Task)) *Task {
	t := newTask(th, fn, args, onDone)
	th.VM().Start(t)
	return t
}

// newTask makes a task of th, a child of th, not yet queued to start.
func newTask(th *vm.Thread, fn vm.Value, args []vm.Value, onDone func(*Task)) *Task {
	ids := th.VM().Local(taskIDKey{}, func() any { return new(atomic.Int64) }).(*atomic.Int64)
	t := &Task{id: ids.Add(1), parent: th, fn: fn, done: make(chan struct{}), onDone: onDone}
	if len(args) == 1 {
		t.arg[0] = args[0]
		t.args = t.arg[:]
	} else {
		t.args = args
	}
	t.inherit(th)
	t.inheritContext(th)
	th.AddChild(t)
	return t
}

// Spawn starts fn(args...) as a task of th, as `spawn` does; hosts use it
// for background work that scripts can await or cancel.
func Spawn(th *vm.Thread, fn vm.Value, args ...vm.Value) *Task {
	return spawnTask(th, fn, args, nil)
}

// RunTask runs the task's body on its own thread (vm.Runner).
func (t *Task) RunTask(th *vm.Thread) bool {
	t.mu.Lock()
	t.th = th
	stopped := t.stopped
	t.mu.Unlock()
	th.Task = t
	if t.onStart != nil {
		t.onStart(t)
	}
	var err error
	switch {
	case stopped:
		err = vm.Cancelled()
	case th.VM().Stopping():
		// the run is ending (Ctrl-C, exit in another task): a task that
		// had not begun does not begin, as the run would stop it at its
		// first instruction
		err = vm.Interrupted()
	default:
		t.result, err = th.CallPlain(t.fn, t.args)
	}
	th.EndChildren()
	releaseMutexOf(th)
	releasePermitsOf(th, err != nil)
	if err != nil {
		t.result = vm.Value{}
		t.err = vm.AsError(err)
		if t.err.Kind == vm.KindExit && !isCancellation(t.err) {
			th.VM().ExitAll(t.err)
		}
	}
	t.parent.RemoveChild(t)
	if t.onDone != nil {
		t.onDone(t)
	}
	t.mu.Lock()
	t.th = nil
	t.mu.Unlock()
	th.VM().WakeAll(t.done)
	return true
}

// isCancellation reports whether e only says that a task was stopped.
func isCancellation(e *vm.Error) bool {
	return e.Kind == vm.KindCancelled || e.Stop == vm.StopInterrupted
}

// outcome returns the task's result, or a copy of its failure (the caller
// may decorate it; several threads may await one task).
func (t *Task) outcome() (vm.Value, error) {
	if t.err == nil {
		return t.result, nil
	}
	if t.err.Kind == vm.KindCancelled {
		return vm.Nil, nil
	}
	return vm.Value{}, t.err.Clone()
}

// Await waits for the task and returns its result, re-raising its
// failure; a cancelled task yields nil.
func (t *Task) Await(th *vm.Thread) (vm.Value, error) {
	select {
	case <-t.done:
	default:
		if _, err := th.WaitOnTasks(t.done, -1); err != nil {
			return vm.Value{}, err
		}
	}
	return t.outcome()
}

func taskArg(name string, a vm.Args) (*Task, error) {
	t, ok := a.At(0).Object().(*Task)
	if !ok {
		return nil, vm.Typef("%s: expected a task handle, got %s", name, a.At(0).Type())
	}
	return t, nil
}

func init() {
	lib.Def("__spawn", "__spawn(body)", "runtime hook of `spawn { … }`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(spawnInScope(th, a.At(0))), nil
	})
	lib.Def("await", "await(handle)", "wait for a task and return its result (re-raising its failure)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, ok := a.At(0).Object().(*Task)
		if !ok {
			return a.At(0), nil
		}
		if t == currentTask(th) {
			// it could only end after this await returns: refused at once,
			// not reported as a deadlock later (or never, while other
			// tasks keep running)
			return vm.Value{}, vm.Categorized("deadlock", awaitSelfMsg)
		}
		return t.Await(th)
	})
	lib.Def("cancel", "cancel(handle) -> nil", "cancel a task", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := taskArg("cancel", a)
		if err != nil {
			return vm.Value{}, err
		}
		if !t.ended() { // cancelling a task that has ended changes nothing
			t.cancelByHandle(vm.DefaultCleanupGrace)
		}
		return vm.Nil, nil
	})
	lib.Def("cancel_graceful", "cancel_graceful(handle, grace: duration | int | float) -> bool", "ask a task to stop (is_cancelled() turns true), cancel it after grace; true when it ended in time", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := taskArg("cancel_graceful", a)
		if err != nil {
			return vm.Value{}, err
		}
		grace, ok := lib.WaitDuration(a.At(1))
		if !ok && !a.At(1).IsNil() {
			return vm.Value{}, vm.Typef("cancel_graceful: grace must be a duration, got %s", a.At(1).Type())
		}
		if t.ended() {
			return vm.True, nil
		}
		t.graceful.Store(true)
		fired, err := th.Wait(t.done, max(grace, 0))
		if err != nil {
			return vm.Value{}, err
		}
		if fired || t.ended() { // it may end in the turn a zero grace gives it
			return vm.True, nil
		}
		// Forced: return once the task has unwound (its finally blocks
		// ran, within the cleanup period), as Kotlin's cancelAndJoin does,
		// so the code after the call never runs alongside its cleanup.
		t.cancelByHandle(grace)
		if _, err := th.WaitOnTasks(t.done, -1); err != nil {
			return vm.Value{}, err
		}
		return vm.False, nil
	})
	lib.Def("is_cancelled", "is_cancelled(handle?) -> bool", "whether the current task (or the given one) was asked to stop; for a task that has ended, whether it ended cancelled", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() > 0 { // an explicit nil (a missing key) is refused, not read as "this task"
			t, err := taskArg("is_cancelled", a)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.BoolOf(t.cancelledOrAsked()), nil
		}
		for cur := th; cur != nil; cur = cur.Lender() {
			if cur.IsCancelled() {
				return vm.True, nil
			}
			if t, ok := cur.Task.(*Task); ok && t.graceful.Load() {
				return vm.True, nil
			}
		}
		return vm.False, nil
	})

	lib.Def("__deadline_enter", "__deadline_enter(d)", "runtime hook of `deadline d { … }`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d, ok := lib.WaitDuration(a.At(0))
		if !ok {
			return vm.Value{}, vm.Typef("deadline: expected a duration, got %s", a.At(0).Type())
		}
		th.PushDeadlineIn(d, permitMark(th))
		return vm.Nil, nil
	})
	lib.Def("__deadline_exit", "__deadline_exit()", "runtime hook of `deadline`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		th.PopDeadline()
		return vm.Nil, nil
	})
	lib.Def("__deadline_fail", "__deadline_fail(err)", "runtime hook of `deadline`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		passed := th.OwnDeadlinePassed() // on the clock the block began on (mock_time)
		_, mark, permits := th.PopDeadline()
		e, ok := vm.ErrorOf(a.At(0))
		if !ok || e.Stop != vm.StopDeadline || !passed {
			return a.At(0), nil
		}
		// This block's own deadline passed: stop what it started and wait
		// for it to unwind, give back the permits it still holds (as a
		// failing task does) and make the failure catchable.
		th.StopChildren(mark)
		releasePermitsSince(th, permits)
		return vm.ErrorValue(vm.ThrownAt(vm.Str(vm.DeadlineMsg), e)), nil
	})

	lib.Def("__mutex_enter", "__mutex_enter(key, timeout?)", "runtime hook of `mutex(key, timeout?) { … }`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		timeout, err := acquireTimeout("mutex", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Nil, mutexesOf(th).enter(th, a.At(0), timeout)
	})
	lib.Def("__mutex_exit", "__mutex_exit()", "runtime hook of `mutex(key) { … }`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		mutexesOf(th).exit(th)
		return vm.Nil, nil
	})
}

// ---- mutex ----

// mutexTable holds the locks of `mutex(key) { … }` blocks of one VM (the
// process a Harn program runs in), one per structural key of the block's
// key (docs/spec/newer.md §1.7; the compiler gives a bare `mutex { … }` its call
// site as key). A lock is not re-entrant and is handed to its waiters in
// arrival order. Blocks nest lexically, so each thread releases its locks
// in the reverse order it took them: held is that stack.
type mutexTable struct {
	mu    sync.Mutex
	locks map[string]*harnMutex
	held  map[*vm.Thread][]string
}

type harnMutex struct {
	owner   *vm.Thread
	waiters []*mutexWaiter
}

type mutexWaiter struct {
	th   *vm.Thread
	wake chan struct{}
}

type mutexKey struct{}

func mutexesOf(th *vm.Thread) *mutexTable {
	return th.VM().Local(mutexKey{}, func() any {
		return &mutexTable{locks: map[string]*harnMutex{}, held: map[*vm.Thread][]string{}}
	}).(*mutexTable)
}

// awaitSelfMsg is the error of a task awaiting its own handle.
const awaitSelfMsg = "a task cannot await itself"

// reentrantMsg is docs/spec/newer.md §1.7's text for taking a lock the task holds.
const reentrantMsg = "re-entrant acquire of a non-reentrant mutex already held by this task (HARN-ORC-011)"

// acquireTimeout reads how long builtin name may wait for a lock: the
// second argument of `mutex(key, …)` or the options of a sync_*_acquire,
// nil (wait as long as it takes), a duration (or ms), or an options dict
// whose `timeout` is one.
func acquireTimeout(name string, v vm.Value) (time.Duration, error) {
	if d, ok := v.AsDict(); ok {
		return timeoutOption(name, d)
	}
	return waitTimeout(name, v)
}

// timeoutOption reads the `timeout` of builtin name's options dict d,
// as waitTimeout does; without one it waits as long as it takes.
// `timeout_ms` is the same option under the name the library's other
// waits give it (HTTP options, `__io_read_line`): a number of
// milliseconds, or a duration.
func timeoutOption(name string, d *vm.Dict) (time.Duration, error) {
	// a misspelt timeout would otherwise wait for ever
	if err := lib.CheckOptions(name, d, []string{"timeout", "timeout_ms"}); err != nil {
		return 0, err
	}
	t, ok := d.Get("timeout")
	if ms, both := d.Get("timeout_ms"); both {
		if ok {
			return 0, vm.Typef("%s: give timeout or timeout_ms, not both", name)
		}
		if _, num := lib.WaitDuration(ms); !num && !ms.IsNil() {
			return 0, vm.Typef("%s: timeout_ms must be a number of milliseconds, got %s", name, ms.Type())
		}
		t, ok = ms, true
	}
	if !ok {
		return -1, nil
	}
	return waitTimeout(name, t)
}

// waitTimeout reads the timeout of builtin name: nil waits as long as
// it takes (-1); a duration or a number of milliseconds waits that
// long, a negative one not at all.
func waitTimeout(name string, v vm.Value) (time.Duration, error) {
	if v.IsNil() {
		return -1, nil
	}
	d, ok := lib.WaitDuration(v)
	if !ok {
		return 0, vm.Typef("%s: timeout must be a duration, got %s", name, v.Type())
	}
	return max(d, 0), nil
}

// timedOut is docs/spec/newer.md §1.7's failure of an acquisition whose
// timeout passed: the key as displayed for strings, ints and bools, its
// structural key otherwise.
func timedOut(key vm.Value) error {
	text := vm.StructuralKey(key)
	switch key.Type() {
	case "string", "int", "bool":
		text = vm.ToDisplay(key)
	}
	return vm.Categorized("timeout", fmt.Sprintf("mutex '%s' timed out", text))
}

// enter takes the lock of keyValue for th, waiting at most timeout (none
// when negative).
func (t *mutexTable) enter(th *vm.Thread, keyValue vm.Value, timeout time.Duration) error {
	key := vm.StructuralKey(keyValue)
	t.mu.Lock()
	m := t.locks[key]
	if m == nil {
		m = &harnMutex{}
		t.locks[key] = m
	}
	// A thread lent to a consumer (a generator body) runs for that
	// consumer's task: waiting on the consumer's lock would never end.
	for o := th; o != nil; o = o.Lender() {
		if m.owner == o {
			t.mu.Unlock()
			return vm.Categorized("deadlock", reentrantMsg)
		}
	}
	if m.owner == nil {
		m.owner = th
		t.held[th] = append(t.held[th], key)
		t.mu.Unlock()
		return nil
	}
	w := &mutexWaiter{th: th, wake: make(chan struct{}, 1)}
	m.waiters = append(m.waiters, w)
	t.mu.Unlock()
	woken, err := th.WaitOnThreadsClocked(w.wake, timeout)
	if err == nil && woken {
		return nil
	}
	t.mu.Lock()
	for i, x := range m.waiters {
		if x == w {
			m.waiters = append(m.waiters[:i], m.waiters[i+1:]...)
			t.mu.Unlock()
			if err == nil {
				err = timedOut(keyValue)
			}
			return err
		}
	}
	t.mu.Unlock()
	if err == nil {
		return nil // handed to us as the timeout passed: ours after all
	}
	// It was handed to us as we stopped: pass it on.
	t.exit(th)
	return err
}

// exit releases the lock th took last.
func (t *mutexTable) exit(th *vm.Thread) {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := t.held[th]
	if len(keys) == 0 {
		return
	}
	key := keys[len(keys)-1]
	if len(keys) == 1 {
		delete(t.held, th)
	} else {
		t.held[th] = keys[:len(keys)-1]
	}
	t.handOff(key)
}

// handOff passes the lock of key to its first waiter, or frees it.
// t.mu is held.
func (t *mutexTable) handOff(key string) {
	m := t.locks[key]
	if len(m.waiters) == 0 {
		delete(t.locks, key)
		return
	}
	w := m.waiters[0]
	m.waiters = m.waiters[1:]
	m.owner = w.th
	t.held[w.th] = append(t.held[w.th], key)
	w.th.VM().Wake(w.wake)
}

// releaseMutexOf frees the locks a thread still holds when it ends.
func releaseMutexOf(th *vm.Thread) {
	t, ok := th.VM().Local(mutexKey{}, nil).(*mutexTable)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := t.held[th]
	delete(t.held, th)
	for i := len(keys) - 1; i >= 0; i-- {
		t.handOff(keys[i])
	}
}

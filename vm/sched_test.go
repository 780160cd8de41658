package vm

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type runFunc func(th *Thread) bool

func (f runFunc) RunTask(th *Thread) bool { return f(th) }

func newTestVM() *VM { return New(NewUniverse()) }

// Queued tasks start in order, only once the lock is free, and a thread
// a task gives back is reused by the next one.
func TestStartOrderAndReuse(t *testing.T) {
	v := newTestVM()
	main := v.NewThread()
	main.Lock()
	var order []int
	threads := map[*Thread]bool{}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		v.Start(runFunc(func(th *Thread) bool {
			defer wg.Done()
			if !th.held {
				t.Error("task started without the lock")
			}
			order = append(order, i)
			threads[th] = true
			return true
		}))
	}
	if len(order) != 0 {
		t.Fatal("tasks ran while the lock was held")
	}
	main.Unlock()
	wg.Wait()
	main.Lock()
	defer main.Unlock()
	for i, n := range order {
		if i != n {
			t.Fatalf("tasks ran out of order: %v", order)
		}
	}
	if len(threads) != 1 {
		t.Errorf("expected one reused thread, got %d", len(threads))
	}
}

// lockedWithQueuedTask returns a VM whose main thread holds the lock
// (released when the test ends) and one queued task, which sets *ran.
func lockedWithQueuedTask(t *testing.T) (*VM, *Thread, *bool) {
	v := newTestVM()
	main := v.NewThread()
	main.Lock()
	t.Cleanup(main.Unlock)
	ran := new(bool)
	v.Start(runFunc(func(*Thread) bool { *ran = true; return true }))
	return v, main, ran
}

// A thread that yields after its time slice lets a queued task run first.
func TestYieldRunsQueuedTask(t *testing.T) {
	v, main, ran := lockedWithQueuedTask(t)
	v.sched.heldSince = time.Now().Add(-timeSlice)
	v.sched.heldChecks = minSliceChecks
	if err := main.checkInterrupt(); err != nil {
		t.Fatal(err)
	}
	if !*ran {
		t.Fatal("yield did not run the queued task")
	}
	if v.Current() != main {
		t.Fatal("Current is not the yielding thread after yield")
	}
}

// Yield (sleep(0)) runs a queued task at once, whatever the time slice,
// and gives the lock back to the yielding thread.
func TestYieldRunsQueuedTaskAtOnce(t *testing.T) {
	v, main, ran := lockedWithQueuedTask(t)
	if err := main.Yield(); err != nil {
		t.Fatal(err)
	}
	if !*ran {
		t.Fatal("Yield did not run the queued task")
	}
	if v.Current() != main {
		t.Fatal("Current is not the yielding thread after Yield")
	}
}

// Yield in a cancelled thread fails with the cancellation, as a wait does.
func TestYieldFailsWhenCancelled(t *testing.T) {
	_, main, _ := lockedWithQueuedTask(t)
	main.Cancel()
	if err := main.Yield(); err == nil {
		t.Fatal("Yield of a cancelled thread succeeded")
	}
}

// A slice is work as well as time: a thread that took the lock more than
// a timeSlice ago but has reached yield only a few times since (the OS
// stopped the process in a short body) keeps the lock, so `seen = seen +
// [f(x)]` in a parallel body loses no update on a loaded machine.
func TestYieldNeedsWorkAsWellAsTime(t *testing.T) {
	v, main, ran := lockedWithQueuedTask(t)
	v.sched.heldSince = time.Now().Add(-10 * timeSlice)
	for range minSliceChecks - 1 {
		if err := main.checkInterrupt(); err != nil {
			t.Fatal(err)
		}
	}
	if *ran {
		t.Fatal("yield ran a queued task after a stall, before the holder did a slice's work")
	}
}

// Within its time slice a thread keeps the lock: code between two waits
// runs as one step, as on upstream's cooperative scheduler.
func TestYieldKeepsLockWithinSlice(t *testing.T) {
	v, main, ran := lockedWithQueuedTask(t)
	for range 100 {
		if err := main.checkInterrupt(); err != nil {
			t.Fatal(err)
		}
	}
	if *ran && time.Since(v.sched.heldSince) < timeSlice {
		t.Fatal("yield ran a queued task within the time slice")
	}
}

func waitErr(t *testing.T, th *Thread, wake <-chan struct{}, timeout time.Duration) (bool, error) {
	t.Helper()
	return runLocked(t, th, 10*time.Second, "Wait did not return", func() (bool, error) { return th.Wait(wake, timeout) })
}

// runLocked runs f on a thread holding th's lock and fails the test with
// failure when it takes longer than limit of real time.
func runLocked(t *testing.T, th *Thread, limit time.Duration, failure string, f func() (bool, error)) (bool, error) {
	t.Helper()
	type res struct {
		fired bool
		err   error
	}
	done := make(chan res, 1)
	go func() {
		th.Lock()
		fired, err := f()
		th.Unlock()
		done <- res{fired, err}
	}()
	select {
	case r := <-done:
		return r.fired, r.err
	case <-time.After(limit):
		t.Fatal(failure)
	}
	return false, nil
}

func TestWaitWakes(t *testing.T) {
	v := newTestVM()
	wake := make(chan struct{})
	close(wake)
	fired, err := waitErr(t, v.NewThread(), wake, -1)
	if !fired || err != nil {
		t.Fatalf("closed wake: fired=%v err=%v", fired, err)
	}
	fired, err = waitErr(t, v.NewThread(), nil, time.Millisecond)
	if fired || err != nil {
		t.Fatalf("timeout: fired=%v err=%v", fired, err)
	}
}

func TestWaitCancelled(t *testing.T) {
	v := newTestVM()
	th := v.NewThread()
	go func() {
		time.Sleep(5 * time.Millisecond)
		th.Cancel()
	}()
	_, err := waitErr(t, th, nil, -1)
	if e, ok := err.(*Error); !ok || e.Kind != KindCancelled || e.Msg != "Task cancelled" || e.Stop != StopCancelled {
		t.Fatalf("got %v", err)
	}
	// already cancelled: returns at once
	_, err = waitErr(t, th, nil, -1)
	if err == nil {
		t.Fatal("cancelled thread waited")
	}
}

func TestWaitDeadline(t *testing.T) {
	v := newTestVM()
	th := v.NewThread()
	th.PushDeadline(time.Now().Add(5*time.Millisecond).UnixMilli(), 0)
	_, err := waitErr(t, th, nil, -1)
	if e, ok := err.(*Error); !ok || e.Kind != KindCancelled || e.Msg != "Deadline exceeded" || e.Stop != StopDeadline {
		t.Fatalf("got %v", err)
	}
	own, _, _ := th.PopDeadline()
	if own == 0 || th.Deadline() != 0 {
		t.Fatal("deadline stack not popped")
	}
}

func TestNestedDeadlines(t *testing.T) {
	v := newTestVM()
	th := v.NewThread()
	th.PushDeadline(1000, 0)
	th.PushDeadline(5000, 0)
	if th.Deadline() != 1000 {
		t.Fatalf("effective deadline %d, want the outer 1000", th.Deadline())
	}
	if own, _, _ := th.PopDeadline(); own != 5000 {
		t.Fatalf("own deadline %d", own)
	}
}

func TestInterruptWakesWait(t *testing.T) {
	v := newTestVM()
	go func() {
		time.Sleep(5 * time.Millisecond)
		v.Interrupt()
	}()
	_, err := waitErr(t, v.NewThread(), nil, -1)
	if e, ok := err.(*Error); !ok || e.Kind != KindExit {
		t.Fatalf("got %v", err)
	}
}

func TestExitAll(t *testing.T) {
	v := newTestVM()
	v.ExitAll(ExitError(3))
	_, err := waitErr(t, v.NewThread(), nil, -1)
	if e, ok := err.(*Error); !ok || e.Kind != KindExit || e.Code != 3 {
		t.Fatalf("got %v", err)
	}
}

type testChild struct {
	done      chan struct{}
	cancelled bool
}

func (c *testChild) Cancel() {
	if !c.cancelled {
		c.cancelled = true
		close(c.done)
	}
}
func (c *testChild) Done() <-chan struct{} { return c.done }

func TestChildrenCancelledWithMark(t *testing.T) {
	v := newTestVM()
	th := v.NewThread()
	a := &testChild{done: make(chan struct{})}
	b := &testChild{done: make(chan struct{})}
	th.AddChild(a)
	mark := th.ChildMark()
	th.AddChild(b)
	th.CancelChildren(mark)
	if a.cancelled || !b.cancelled {
		t.Fatalf("cancel after mark: a=%v b=%v", a.cancelled, b.cancelled)
	}
	th.RemoveChild(b)
	th.EndChildren()
	if !a.cancelled {
		t.Fatal("EndChildren did not cancel")
	}
}

// Lock hand-over between many goroutines keeps mutual exclusion.
func TestLockExclusion(t *testing.T) {
	v := newTestVM()
	var wg sync.WaitGroup
	inside := 0
	count := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			th := v.NewThread()
			for i := 0; i < 200; i++ {
				th.Lock()
				inside++
				if inside != 1 {
					t.Error("two holders")
				}
				count++
				inside--
				if i%7 == 0 {
					th.checkInterrupt()
				}
				th.Unlock()
			}
		}()
	}
	wg.Wait()
	if count != 1600 {
		t.Fatalf("count %d", count)
	}
}

// A deadlock fails the oldest stuck wait only: the task that owns it may
// catch the error and wake another waiter, which then has no deadlock.
func TestDeadlockFailsOldestWaitFirst(t *testing.T) {
	v := newTestVM()
	v.DetectDeadlocks()
	main := v.NewThread()
	main.Lock()
	defer main.Unlock()
	never := make(chan struct{})
	second := make(chan struct{}, 1)
	done := make(chan struct{}, 2)
	var firstErr, secondErr error
	var secondFired bool
	v.Start(runFunc(func(th *Thread) bool {
		_, firstErr = th.WaitOnThreads(never, -1)
		v.Wake(second) // having caught it, wake the other task
		v.Wake(done)
		return true
	}))
	v.Start(runFunc(func(th *Thread) bool {
		secondFired, secondErr = th.WaitOnThreads(second, -1)
		v.Wake(done)
		return true
	}))
	for range 2 {
		if _, err := main.WaitOnTasks(done, -1); err != nil {
			t.Fatalf("main's join failed: %v", err)
		}
	}
	if e, ok := firstErr.(*Error); !ok || e.Msg != DeadlockMsg {
		t.Fatalf("oldest wait: got %v, want the deadlock error", firstErr)
	}
	if !secondFired || secondErr != nil {
		t.Fatalf("woken wait: fired=%v err=%v, want a normal wake", secondFired, secondErr)
	}
}

// A cancelled thread's cleanup waits as usual until its grace runs out,
// then fails with the cancellation again.
func TestCancelledCleanupIsMasked(t *testing.T) {
	v := newTestVM()
	th := v.NewThread()
	th.CancelWithCleanup(time.Hour)
	if _, err := waitErr(t, th, nil, 0); err == nil {
		t.Fatal("a cancelled thread's wait did not fail before its cleanup")
	}
	th.maskCancel()
	ready := make(chan struct{})
	close(ready)
	if fired, err := waitErr(t, th, ready, -1); !fired || err != nil {
		t.Fatalf("wait during cleanup: fired %v, err %v", fired, err)
	}
	th.cleanupUntil.Store(time.Now().UnixMilli() - 1)
	if _, err := waitErr(t, th, nil, -1); err == nil || AsError(err).Msg != "Task cancelled" {
		t.Fatalf("wait after the cleanup period: %v", err)
	}
}

// A task whose goroutine reached the lock late (th.lag) still wakes from
// a short sleep before a thread that began a longer sleep before the
// task ran: sleeps are placed from when the lock was handed over.
func TestSleepDiscountsHandOverLag(t *testing.T) {
	v := newTestVM()
	main := v.NewThread()
	main.Lock()
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	done := make(chan struct{})
	v.Start(runFunc(func(th *Thread) bool {
		defer close(done)
		// As if the goroutine had taken 60ms to run after the hand-over.
		time.Sleep(60 * time.Millisecond)
		th.lag = 60 * time.Millisecond
		if _, err := th.Wait(nil, 10*time.Millisecond); err != nil {
			t.Error(err)
		}
		note("task")
		return true
	}))
	if _, err := main.Wait(nil, 40*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	note("main")
	main.Unlock()
	<-done
	if len(order) != 2 || order[0] != "task" {
		t.Fatalf("wake order %v, want the task's 10ms sleep first", order)
	}
}

// The lag is measured: a task's first run records how long its goroutine
// took to start after the hand-over, and a later uncontended acquire
// clears it.
func TestHandOverLagMeasured(t *testing.T) {
	v := newTestVM()
	main := v.NewThread()
	main.Lock()
	got := make(chan time.Duration, 1)
	v.Start(runFunc(func(th *Thread) bool { got <- th.lag; return true }))
	v.sched.mu.Lock()
	v.sched.handedAt = time.Now().Add(-time.Hour) // hand-over below overwrites it
	v.sched.mu.Unlock()
	main.Unlock()
	if lag := <-got; lag < 0 || lag > time.Minute {
		t.Fatalf("lag %v: not measured from this hand-over", lag)
	}
	// The task may still hold the lock after sending (it unlocks when it
	// returns), so this acquire can be a hand-over with a lag of its own;
	// the task is gone after it, so the next acquire is uncontended.
	main.Lock()
	main.Unlock()
	main.Lock()
	if main.lag != 0 {
		t.Fatalf("uncontended acquire kept lag %v", main.lag)
	}
	main.Unlock()
}

// Threads cancelled one after another while they wait retake the lock in
// the order they were cancelled, whatever order their goroutines wake in,
// so their cleanups run in that order.
func TestCancelledWaitersResumeInCancelOrder(t *testing.T) {
	const n = 8
	for round := 0; round < 20; round++ {
		v := newTestVM()
		main := v.NewThread()
		main.Lock()
		threads := make([]*Thread, n)
		var parked, done sync.WaitGroup
		var order []int
		never := make(chan struct{})
		for i := 0; i < n; i++ {
			parked.Add(1)
			done.Add(1)
			v.Start(runFunc(func(th *Thread) bool {
				defer done.Done()
				threads[i] = th
				parked.Done()
				if _, err := th.Wait(never, -1); err == nil {
					t.Error("a cancelled wait returned without an error")
				}
				order = append(order, i)
				return true
			}))
		}
		main.Unlock()
		parked.Wait()
		main.Lock()
		for i := n - 1; i >= 0; i-- {
			threads[i].CancelWithCleanup(time.Second)
		}
		main.Unlock()
		done.Wait()
		for k, i := range order {
			if i != n-1-k {
				t.Fatalf("round %d: waiters resumed in order %v, want the cancel order (%d down to 0)", round, order, n-1)
			}
		}
	}
}

// Threads woken one after another (VM.Wake) retake the lock in the order
// they were woken, and threads woken together (VM.WakeAll) in the order
// they began to wait.
func TestWokenWaitersResumeInWakeOrder(t *testing.T) {
	const n = 8
	for round := 0; round < 20; round++ {
		for _, all := range []bool{false, true} {
			v := newTestVM()
			main := v.NewThread()
			main.Lock()
			wakes := make([]chan struct{}, n)
			shared := make(chan struct{})
			var parked, done sync.WaitGroup
			var order []int
			for i := 0; i < n; i++ {
				wakes[i] = make(chan struct{}, 1)
				parked.Add(1)
				done.Add(1)
				v.Start(runFunc(func(th *Thread) bool {
					defer done.Done()
					parked.Done()
					w := wakes[i]
					if all {
						w = shared
					}
					if fired, err := th.Wait(w, -1); !fired || err != nil {
						t.Errorf("wait ended without its wake: %v", err)
					}
					order = append(order, i)
					return true
				}))
			}
			main.Unlock()
			parked.Wait()
			main.Lock()
			want := make([]int, n)
			if all {
				v.WakeAll(shared)
				for i := range want {
					want[i] = i
				}
			} else {
				for k := range n {
					i := (k*3 + 1) % n
					want[k] = i
					v.Wake(wakes[i])
				}
			}
			main.Unlock()
			done.Wait()
			if !slices.Equal(order, want) {
				t.Fatalf("round %d (all=%v): waiters resumed in order %v, want %v", round, all, order, want)
			}
		}
	}
}

// Threads whose wait timeouts end together resume in the order they
// began to wait, like sleepers.
func TestEqualTimeoutsResumeInWaitOrder(t *testing.T) {
	const n = 8
	for round := 0; round < 10; round++ {
		v := newTestVM()
		main := v.NewThread()
		main.Lock()
		var done sync.WaitGroup
		var order []int
		never := make(chan struct{})
		for i := 0; i < n; i++ {
			done.Add(1)
			v.Start(runFunc(func(th *Thread) bool {
				defer done.Done()
				if fired, err := th.Wait(never, 20*time.Millisecond); fired || err != nil {
					t.Errorf("wait ended other than by its timeout: %v", err)
				}
				order = append(order, i)
				return true
			}))
		}
		main.Unlock()
		done.Wait()
		for k, i := range order {
			if k != i {
				t.Fatalf("round %d: timeouts ended in order %v", round, order)
			}
		}
	}
}

// waitParked runs a thread of v that waits, holding the lock, for wake
// (which only another thread could fire); its outcome arrives on the
// channel. started receives the thread once it has asked for the lock.
func waitParked(v *VM, wake <-chan struct{}, started chan<- *Thread) <-chan error {
	out := make(chan error, 1)
	go func() {
		th := v.NewThread()
		th.Lock()
		started <- th
		_, err := th.WaitOnThreads(wake, -1)
		th.Unlock()
		v.Forget(th)
		out <- err
	}()
	return out
}

// A thread the VM expects (Expect) counts as one that may still act: no
// deadlock is declared while it stands; dismissing it, with the lock
// free, has the parked threads judged.
func TestExpectedThreadHoldsOffTheVerdict(t *testing.T) {
	v := newTestVM()
	v.DetectDeadlocks()
	stand := v.NewThread()
	v.Expect(stand)
	started := make(chan *Thread, 1)
	res := waitParked(v, make(chan struct{}), started)
	<-started
	select {
	case err := <-res:
		t.Fatalf("a deadlock was declared while a thread was expected: %v", err)
	case <-time.After(3 * deadlockGrace / 2):
	}
	v.Dismiss(stand)
	select {
	case err := <-res:
		if e, ok := err.(*Error); !ok || e.Msg != DeadlockMsg {
			t.Fatalf("got %v, want the deadlock error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no deadlock declared once the expected thread was dismissed")
	}
}

// Of the waits that can never end, a foreground thread's fails first,
// though another's is older; the other survives.
func TestForegroundWaitFailsFirst(t *testing.T) {
	v := newTestVM()
	v.DetectDeadlocks()
	stand := v.NewThread()
	v.Expect(stand) // no verdict before both wait
	started := make(chan *Thread, 2)
	olderWake := make(chan struct{})
	older := waitParked(v, olderWake, started)
	<-started
	time.Sleep(20 * time.Millisecond)
	front := waitParked(v, make(chan struct{}), started)
	v.AddForeground(<-started)
	time.Sleep(20 * time.Millisecond)
	v.Dismiss(stand)
	select {
	case err := <-front:
		if e, ok := err.(*Error); !ok || e.Msg != DeadlockMsg {
			t.Fatalf("foreground wait: got %v, want the deadlock error", err)
		}
	case err := <-older:
		t.Fatalf("the older, background wait failed first: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("no deadlock declared")
	}
	v.Expect(stand) // the older wait stays, and is woken normally
	close(olderWake)
	if err := <-older; err != nil {
		t.Fatalf("older wait: %v", err)
	}
}

// Waits that stay stuck after a verdict are judged again at once, not a
// grace apart: ten tasks blocked for good, each ending once its wait
// fails, are all reported within about one grace.
func TestDeadlockVerdictsAfterTheFirstNeedNoGrace(t *testing.T) {
	v := newTestVM()
	v.DetectDeadlocks()
	main := v.NewThread()
	main.Lock()
	defer main.Unlock()
	const n = 10
	never := make(chan struct{})
	done := make(chan struct{}, n)
	var failed atomic.Int32
	for range n {
		v.Start(runFunc(func(th *Thread) bool {
			if _, err := th.WaitOnThreads(never, -1); err != nil {
				failed.Add(1)
			}
			v.Wake(done)
			return true
		}))
	}
	for range n {
		if _, err := main.WaitOnTasks(done, -1); err != nil {
			t.Fatalf("main's join failed: %v", err)
		}
	}
	wantPromptVerdicts(t, v, int(failed.Load()), n)
}

// A raw wake (RawWake) since the last verdict gives the next one its
// grace: the woken thread may still look parked.
func TestRawWakeKeepsTheGrace(t *testing.T) {
	v := newTestVM()
	s := &v.sched
	v.DetectDeadlocks()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.declare()
	if !s.stillDeadlocked() {
		t.Fatal("with no wake since the verdict, a deadlock should be declared at once")
	}
	RawWake()
	if s.stillDeadlocked() {
		t.Fatal("a raw wake since the verdict must leave the grace in force")
	}
}

// A wait that begins after a verdict — a task started in the place of
// one whose wait failed, as `parallel … max_concurrent` starts its next
// branch — is judged at once too: ten tasks started one after another,
// each as the previous one's wait fails, are all reported within about
// one grace.
func TestDeadlockVerdictForANewWaitNeedsNoGrace(t *testing.T) {
	v := newTestVM()
	v.DetectDeadlocks()
	main := v.NewThread()
	main.Lock()
	defer main.Unlock()
	const n = 10
	never := make(chan struct{})
	done := make(chan struct{}, 1)
	var failed atomic.Int32
	var next func(left int) Runner
	next = func(left int) Runner {
		return runFunc(func(th *Thread) bool {
			if _, err := th.WaitOnThreads(never, -1); err != nil {
				failed.Add(1)
			}
			if left > 1 {
				v.Start(next(left - 1))
			} else {
				v.Wake(done)
			}
			return true
		})
	}
	v.Start(next(n))
	if _, err := main.WaitOnTasks(done, -1); err != nil {
		t.Fatalf("main's join failed: %v", err)
	}
	wantPromptVerdicts(t, v, int(failed.Load()), n)
}

// A wait whose wake has fired when the verdict comes ends as woken, not
// with the deadlock error: here the wake is closed before the wait
// parks, and the verdict is declared at once (right after another).
func TestFiredWakeWinsOverTheVerdict(t *testing.T) {
	for range 50 {
		v := newTestVM()
		s := &v.sched
		v.DetectDeadlocks()
		th := v.NewThread()
		th.Lock()
		s.mu.Lock()
		s.declare() // a verdict with no wake since: the next one is at once
		s.mu.Unlock()
		wake := make(chan struct{})
		close(wake)
		fired, err := th.WaitOnThreads(wake, -1)
		th.Unlock()
		if err != nil || !fired {
			t.Fatalf("got fired=%v err=%v, want the wake", fired, err)
		}
	}
}

// A thread whose timer ended its wait lets a task queued meanwhile start
// first: here the task running when the timer fires queues another and
// then waits; the queued task starts before the sleeper resumes, as a
// single-threaded scheduler would run it, however late the timer's
// goroutine is.
func TestTimerWakeLetsQueuedTasksStartFirst(t *testing.T) {
	v := newTestVM()
	main := v.NewThread()
	main.Lock()
	defer main.Unlock()
	never := make(chan struct{})
	defer close(never)
	var secondStarted atomic.Bool
	v.Start(runFunc(func(th *Thread) bool {
		time.Sleep(20 * time.Millisecond) // the sleeper's timer fires meanwhile
		v.Start(runFunc(func(*Thread) bool {
			secondStarted.Store(true)
			return true
		}))
		th.Wait(never, -1)
		return true
	}))
	if _, err := main.Wait(nil, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if !secondStarted.Load() {
		t.Fatal("the sleeper resumed before the task queued while it slept had started")
	}
}

// graces is how many grace periods v's scheduler has waited.
func graces(v *VM) int {
	v.sched.mu.Lock()
	defer v.sched.mu.Unlock()
	return v.sched.graces
}

// wantPromptVerdicts checks that all n waits failed and that only the
// first verdict waited a grace period.
func wantPromptVerdicts(t *testing.T, v *VM, failed, n int) {
	t.Helper()
	if failed != n {
		t.Fatalf("%d waits failed, want %d", failed, n)
	}
	if g := graces(v); g > 1 {
		t.Fatalf("%d verdicts waited %d graces, want one (the first)", n, g)
	}
}

// Threads woken together (WakeAll) take their places in the lock's queue
// as one group: a thread that queues itself for the lock meanwhile (a
// sleeper whose timer fired, say) comes before them all or after them
// all, never between two of them. Before, each woken thread was queued
// on its own, and a timer-woken branch of a `parallel … as stream` could
// come between two of the stream's woken readers, so its result went to
// the reader that had begun to wait later
// (conformance/concurrency/parallel_as_stream_readers_resume_in_order,
// seen failing under the race detector).
func TestWokenGroupIsNotSplitByAThreadQueuedMeanwhile(t *testing.T) {
	const n = 8
	v := newTestVM()
	main := v.NewThread()
	main.Lock()
	shared := make(chan struct{})
	var parked, done sync.WaitGroup
	var order []int
	for i := 0; i < n; i++ {
		parked.Add(1)
		done.Add(1)
		v.Start(runFunc(func(th *Thread) bool {
			defer done.Done()
			parked.Done()
			if fired, err := th.Wait(shared, -1); !fired || err != nil {
				t.Errorf("wait ended without its wake: %v", err)
			}
			order = append(order, i)
			return true
		}))
	}
	main.Unlock()
	parked.Wait()
	main.Lock()
	intruder := v.NewThread()
	done.Add(1)
	groupHook = func(i int) {
		if i != n/2 {
			return
		}
		// halfway through the group, another thread asks for the lock
		go func() {
			defer done.Done()
			intruder.Lock()
			order = append(order, -1)
			intruder.Unlock()
		}()
		time.Sleep(20 * time.Millisecond)
	}
	defer func() { groupHook = nil }()
	v.WakeAll(shared)
	groupHook = nil
	main.Unlock()
	done.Wait()
	if at := slices.Index(order, -1); at != 0 && at != n {
		t.Fatalf("the thread that asked for the lock meanwhile came between threads woken together: %v", order)
	}
}

package vm

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// sched is the VM lock and the run queue of tasks that have not started.
//
// The lock is handed over, not competed for: a thread that releases it
// gives it directly to whichever became runnable first, the
// longest-waiting thread or the oldest queued task (one queue, as on a
// single-threaded run queue: a thread woken before a task was spawned
// runs before it, and after it otherwise); a queued task starts on a
// goroutine that already owns the lock. A queued task is only its Runner:
// its thread and goroutine are made when it starts, so spawning many tasks
// is cheap, and a thread whose task ended is reused by the next task on
// the same goroutine. A goroutine that finishes a task runs the next queued
// task itself when its turn has come, so bursts of short tasks run without
// a goroutine switch each; threads that run for long without blocking call
// yield (from checkInterrupt), which starts a queued task or lets a
// waiting thread run.
type sched struct {
	vm     *VM
	mu     sync.Mutex
	held   bool
	ready  []readyEntry // threads waiting for the lock, oldest first
	starts []queued     // tasks queued by Start, oldest first
	// queueSeq orders ready and starts as one queue: a thread woken
	// before a task was spawned runs before it, and after it otherwise
	// (readyEntry.seq, queued.seq).
	queueSeq uint64
	// startedSeq is the place in that queue of the task started last
	// (StartNext queues a task there).
	startedSeq uint64
	// waiting is len(ready)+len(starts), read without mu by yield's fast path.
	waiting atomic.Int32
	// cur is the thread holding the lock (written only by the holder).
	cur *Thread
	// heldSince is when cur's thread took the lock and heldChecks how
	// many times it has called yield since (both written only by the
	// holder): yield keeps the lock for a timeSlice and minSliceChecks.
	heldSince  time.Time
	heldChecks int
	// overtakes counts the queued tasks started in a row ahead of a
	// thread whose timer fired (handOff).
	overtakes int
	// handedAt is when the lock was last handed to a waiting thread or a
	// new goroutine (under mu, before the hand-over); the receiver reads
	// it to learn its lag.
	handedAt time.Time

	// Deadlock detection (DetectDeadlocks), all under mu. away holds the
	// threads that let the lock go and will want it back by themselves
	// (a timer, I/O, a host); parked holds the threads waiting for
	// something only another thread of this VM can do, each with the
	// channel closed to tell it that nothing ever will. gen counts changes
	// to the three, so a suspected deadlock is confirmed only if nothing
	// moved in between.
	detect    bool
	away      map[*Thread]struct{}
	parked    map[*Thread]*parking
	gen       uint64
	parks     uint64 // parkings so far (parking.seq)
	suspected bool
	graces    int // grace periods waited so far (suspectDeadlock)
	// blind counts the wakes that did not queue the woken thread for the
	// lock (several waiting on one channel, a waker not holding the
	// lock): until its goroutine runs, such a thread still looks parked.
	// It is the only way a wake can go unseen, so a deadlock that persists
	// after a verdict with no blind wake and no new parking since
	// (verdictSeq, verdictBlind) is declared again at once.
	blind        atomic.Uint64
	verdicts     bool
	verdictSeq   uint64
	verdictBlind uint64
	// foreground holds the threads whose waits fail first in a deadlock
	// (the REPL entry running now, the orchestrator's handler calls).
	foreground map[*Thread]struct{}
}

// readyEntry is a thread's place in sched.ready: the channel the lock is
// handed over on, and whether the thread's own timer ended its wait.
type readyEntry struct {
	w     chan struct{}
	timer bool
	seq   uint64
}

// queued is a task in sched.starts and its place in the one queue.
type queued struct {
	r   Runner
	seq uint64
}

// nextSeq numbers an entry of ready or starts (s.mu held).
func (s *sched) nextSeq() uint64 {
	s.queueSeq++
	return s.queueSeq
}

// startFirst reports whether the oldest queued task came before the
// oldest thread waiting for the lock (s.mu held): as on a single-threaded
// run queue, they take their turns in the order they became runnable.
func (s *sched) startFirst() bool {
	return len(s.starts) > 0 && (len(s.ready) == 0 || s.starts[0].seq < s.ready[0].seq)
}

// parking is a thread's entry in sched.parked.
type parking struct {
	wake <-chan struct{}
	dead chan struct{} // closed when a deadlock is declared
	join bool          // waiting for other threads to end (WaitOnTasks)
	seq  uint64        // order of parking: the oldest wait fails first
}

// startBatch bounds how many queued tasks a thread whose timer fired lets
// start ahead of it (handOff).
const startBatch = 32

// acquire takes the lock for th, queueing behind earlier waiters.
func (s *sched) acquire(th *Thread) { s.acquireThen(th, nil) }

// acquireThen is acquire that calls queued (when not nil) once th has
// its place: the lock, or a place in the queue for it.
func (s *sched) acquireThen(th *Thread, queued func()) {
	s.mu.Lock()
	if !s.held {
		s.held = true
		s.back(th)
		s.mu.Unlock()
		s.hold(th)
		th.lag = 0
		if queued != nil {
			queued()
		}
		return
	}
	s.back(th)
	w := th.wakeChan()
	s.ready = append(s.ready, readyEntry{w: w, timer: queued != nil, seq: s.nextSeq()})
	s.waiting.Add(1)
	s.mu.Unlock()
	if queued != nil {
		queued()
	}
	<-w
	s.hold(th)
	th.lag = time.Since(s.handedAt)
}

// reserve queues th, which waits with the lock let go, for the lock on
// behalf of the thread that woke it, and reports whether it did: only
// while someone holds the lock (the waker, as a rule), so that the
// hand-over reaches th in its place; th then takes it with takeReserved.
func (s *sched) reserve(th *Thread) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held {
		return false
	}
	s.back(th)
	s.ready = append(s.ready, readyEntry{w: th.wakeChan(), seq: s.nextSeq()})
	s.waiting.Add(1)
	return true
}

// reserveAll is reserve for threads woken together (VM.WakeAll): it
// queues them all under one hold of s.mu, so no thread asking for the
// lock meanwhile gets a place between two of them.
func (s *sched) reserveAll(ths []*Thread) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held {
		return false
	}
	for i, th := range ths {
		if groupHook != nil {
			groupHook(i)
		}
		s.back(th)
		s.ready = append(s.ready, readyEntry{w: th.wakeChan(), seq: s.nextSeq()})
		s.waiting.Add(1)
	}
	return true
}

// groupHook, when set (by a test), runs before each thread reserveAll
// queues, with its index in the group.
var groupHook func(int)

// takeReserved waits for the lock reserve queued th for.
func (s *sched) takeReserved(th *Thread) {
	<-th.wake
	s.hold(th)
	th.lag = time.Since(s.handedAt)
}

// sleepQueue orders the wake-ups of sleeping threads (a Wait with only a
// timeout, as sleep does). Each sleeper's own timer fires, but the
// goroutines that wake race for the lock; the queue lets them take their
// places in the lock's queue one at a time, in the order of their wake
// times (ties in the order they went to sleep), so tasks sleeping for the
// same time wake in the order they slept, as a single-threaded timer
// queue would wake them.
type sleepQueue struct {
	mu      sync.Mutex
	q       []*sleeper // pending, by wake time, ties in arrival order
	passing bool       // a sleeper has its turn and is taking its place
}

// sleeper is one thread's entry in the sleepQueue.
type sleeper struct {
	at    time.Time
	fired bool          // its timer has fired
	turn  chan struct{} // signalled when its turn comes
}

// add enqueues a sleeper waking at at.
func (q *sleepQueue) add(at time.Time) *sleeper {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := &sleeper{at: at, turn: make(chan struct{}, 1)}
	i := len(q.q)
	for i > 0 && q.q[i-1].at.After(at) {
		i--
	}
	q.q = slices.Insert(q.q, i, e)
	return e
}

// fire records that e's timer fired; e then waits for its turn.
func (q *sleepQueue) fire(e *sleeper) {
	q.mu.Lock()
	e.fired = true
	q.pass()
	q.mu.Unlock()
}

// leave takes e out of the queue when its wait ended another way
// (cancelled, a deadline, the VM stopping). It reports whether e had
// already been given its turn, which it must then hand on with placed.
func (q *sleepQueue) leave(e *sleeper) (hadTurn bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if i := slices.Index(q.q, e); i >= 0 {
		q.q = slices.Delete(q.q, i, i+1)
		q.pass()
		return false
	}
	return true
}

// requeue puts e, which has had its turn, back in the queue when a
// sleeper waking earlier than e is pending, and reports whether it did.
func (q *sleepQueue) requeue(e *sleeper) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.q) == 0 || !q.q[0].at.Before(e.at) {
		return false
	}
	i := len(q.q)
	for i > 0 && q.q[i-1].at.After(e.at) {
		i--
	}
	q.q = slices.Insert(q.q, i, e)
	return true
}

// placed hands the turn on: the sleeper holding it has its place.
func (q *sleepQueue) placed() {
	q.mu.Lock()
	q.passing = false
	q.pass()
	q.mu.Unlock()
}

// pass gives the turn to the first sleeper when its timer has fired and
// nobody holds the turn (q.mu held).
func (q *sleepQueue) pass() {
	if q.passing || len(q.q) == 0 || !q.q[0].fired {
		return
	}
	e := q.q[0]
	q.q = slices.Delete(q.q, 0, 1)
	q.passing = true
	e.turn <- struct{}{}
}

// release gives the lock away: to the oldest waiter, else to a new
// goroutine running the oldest queued task, else to nobody.
func (s *sched) release() {
	s.mu.Lock()
	if s.detect {
		if _, ok := s.parked[s.cur]; !ok {
			s.away[s.cur] = struct{}{}
			s.gen++
		}
	}
	s.handOff()
}

// back records that th wants the lock again (s.mu held).
func (s *sched) back(th *Thread) {
	if _, ok := s.away[th]; ok {
		delete(s.away, th)
		s.gen++
	}
}

// handOff passes the lock on; s.mu is held on entry and released.
// A thread whose timer ended its wait lets the tasks queued meanwhile
// start first (up to startBatch of them in a row), as a single-threaded
// scheduler would run the tasks spawned before it looked at its timers:
// on a loaded machine a sleep of 1 ms can end before the tasks spawned
// just before it have started, and a task that sleeps after spawning
// must find them started (a `parallel … as stream`, whose branches are
// queued one by one, then has all of them running).
func (s *sched) handOff() {
	if len(s.ready) > 0 && s.ready[0].timer && len(s.starts) > 0 && s.overtakes < startBatch {
		s.overtakes++
		s.startQueued()
		return
	}
	s.overtakes = 0
	if s.startFirst() {
		s.startQueued()
		return
	}
	if len(s.ready) > 0 {
		w := s.popReady()
		s.handedAt = time.Now()
		s.mu.Unlock()
		w <- struct{}{}
		return
	}
	s.held = false
	if s.detect {
		s.suspectDeadlock()
	}
	s.mu.Unlock()
}

// startQueued hands the lock to the oldest queued task, on a goroutine
// of its own; s.mu is held on entry and released.
func (s *sched) startQueued() {
	r := s.popStart()
	s.handedAt = time.Now()
	s.mu.Unlock()
	go s.runTasks(r)
}

// DetectDeadlocks makes the VM report a deadlock when every thread waits
// for another thread of the VM (WaitOnThreads, WaitOnTasks) and none is
// left to act: the waits fail with a deadlock error instead of hanging.
// Call it before the program runs, and only when nothing outside the VM
// (a server, a host) starts threads that could end those waits.
func (v *VM) DetectDeadlocks() {
	s := &v.sched
	s.mu.Lock()
	s.detect = true
	s.away = map[*Thread]struct{}{}
	s.parked = map[*Thread]*parking{}
	s.mu.Unlock()
}

// Forget tells the deadlock detector that th, which has let the lock
// go, will not want it back: it no longer counts as a thread that may
// still act. The REPL forgets an entry's thread when the next entry
// starts; until then the ended entry stands for the person at the
// prompt, who can still send what a task waits for. The parked
// threads are judged when the lock is next let go (Dismiss judges them
// at once).
func (v *VM) Forget(th *Thread) { v.forget(th, false) }

// Dismiss is Forget for a thread that may have been the last that could
// act while nothing holds the lock: the parked threads are judged at
// once, as when the lock is let go. The orchestrator dismisses the
// stand-in of a dispatch that has ended while others' handlers wait.
func (v *VM) Dismiss(th *Thread) { v.forget(th, true) }

func (v *VM) forget(th *Thread, judge bool) {
	s := &v.sched
	s.mu.Lock()
	if _, ok := s.away[th]; ok {
		delete(s.away, th)
		s.gen++
		if judge && s.detect && !s.held {
			s.suspectDeadlock()
		}
	}
	s.mu.Unlock()
}

// Expect tells the deadlock detector that th, which does not hold the
// lock, will want it: until th takes the lock or is forgotten (Forget)
// it counts as a thread that may still act, as one that let the lock go
// does. The orchestrator makes a thread stand so for a dispatch on its
// way to running a handler.
func (v *VM) Expect(th *Thread) {
	s := &v.sched
	s.mu.Lock()
	if s.detect {
		if _, ok := s.away[th]; !ok {
			s.away[th] = struct{}{}
			s.gen++
		}
	}
	s.mu.Unlock()
}

// SetForeground names the thread whose wait fails first when a deadlock
// is declared (nil for none): in the REPL the entry the person is
// waiting for, so that tasks left waiting by earlier entries survive it.
// It replaces the threads AddForeground named.
func (v *VM) SetForeground(th *Thread) {
	s := &v.sched
	s.mu.Lock()
	s.foreground = nil
	if th != nil {
		s.foreground = map[*Thread]struct{}{th: {}}
	}
	s.mu.Unlock()
}

// AddForeground adds th to the threads whose waits fail first when a
// deadlock is declared (the oldest wait of theirs fails): the
// orchestrator's handler calls, which may run several at once.
// RemoveForeground takes it out again.
func (v *VM) AddForeground(th *Thread) {
	s := &v.sched
	s.mu.Lock()
	if s.foreground == nil {
		s.foreground = map[*Thread]struct{}{}
	}
	s.foreground[th] = struct{}{}
	s.mu.Unlock()
}

// RemoveForeground undoes AddForeground.
func (v *VM) RemoveForeground(th *Thread) {
	s := &v.sched
	s.mu.Lock()
	delete(s.foreground, th)
	s.mu.Unlock()
}

// deadlockGrace is how long a suspected deadlock must stay unchanged
// before it is declared: a parked thread whose wake has just fired may
// not yet have told the scheduler, and on a loaded machine (two cores
// under the race detector) its goroutine can wait tens of milliseconds to
// run. A false deadlock kills a correct program; a late report of a real
// one costs a quarter of a second.
const deadlockGrace = 250 * time.Millisecond

// Alone reports, for the thread holding the lock, whether no other
// thread of the VM can act: none waits for the lock or to start, none is
// away (a timer, I/O, a host call), and every parked one awaits other
// threads' end with nothing come yet. A wait that only another thread
// could end would then be a deadlock for certain, which a caller may
// report at once instead of after deadlockGrace. It is conservative: a
// parked thread waiting for anything but a join, whose wake may be on
// its way unseen (a blind wake), makes it false. False when deadlocks
// are not detected.
func (v *VM) Alone() bool {
	s := &v.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.detect || len(s.ready) > 0 || len(s.starts) > 0 || len(s.away) > 0 || v.interrupt.Load() {
		return false
	}
	for _, p := range s.parked {
		if !p.join || len(p.wake) > 0 || closedNow(p.wake) {
			return false
		}
	}
	return true
}

// suspectDeadlock checks, with s.mu held and the lock free, whether the
// parked threads are all that is left; if so it confirms after
// deadlockGrace.
func (s *sched) suspectDeadlock() {
	if !s.stuck() || s.suspected {
		return
	}
	if s.stillDeadlocked() {
		s.declare()
		return
	}
	s.suspected = true
	s.graces++
	gen := s.gen
	time.AfterFunc(deadlockGrace, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.suspected = false
		if s.gen != gen || !s.stuck() {
			if s.stuck() {
				s.suspectDeadlock()
			}
			return
		}
		s.declare()
	})
}

// stillDeadlocked reports whether a deadlock found right after a verdict
// can be declared without the grace (s.mu held, s.stuck() true). The
// grace is for a wake the scheduler cannot see yet; since the verdict,
// every wake either queued its thread for the lock (which s.stuck()
// sees) or counted as blind. So when no wake was blind, nothing is left
// for the grace to wait for: the threads whose waits failed caught the
// error, or ended, and whatever they woke or started has run and waits
// again — also a thread that waits anew (a receive, a lock), or a
// branch a `parallel … max_concurrent` started in the place of one that
// failed. A join that parked since on a wake already closed is checked
// here; any other wait that parked on a wake already fired prefers the
// wake to the verdict (Thread.wait), so judging it at once is no false
// report either, and only the oldest wait fails each time, so a task
// that catches its report can still end the others' waits.
// A parallel settle whose branches all block (with max_concurrent or
// not), or tasks that each catch their report while the program awaits
// them one by one, get their verdicts one after another at once rather
// than a grace apart.
func (s *sched) stillDeadlocked() bool {
	if !s.verdicts || s.blindWakes() != s.verdictBlind {
		return false
	}
	for _, p := range s.parked {
		if p.seq > s.verdictSeq && p.join && closedNow(p.wake) {
			return false
		}
	}
	return true
}

// closedNow reports whether wake, which holds no signal, is closed. A
// receive from an open, empty channel does not proceed; none of this
// VM's threads can send meanwhile, as none holds the lock.
func closedNow(wake <-chan struct{}) bool {
	if wake == nil || len(wake) > 0 {
		return false
	}
	select {
	case _, ok := <-wake:
		return !ok
	default:
		return false
	}
}

// blindWakes counts the wakes that did not queue their thread: this VM's
// blind ones and the raw ones of the process (RawWake).
func (s *sched) blindWakes() uint64 { return s.blind.Load() + rawWakes.Load() }

// declare fails the waits of a confirmed deadlock (s.mu held).
func (s *sched) declare() {
	s.verdicts, s.verdictSeq, s.verdictBlind = true, s.parks, s.blindWakes()
	// The waits that can never end fail first: a join ends once the
	// threads it waits for have failed, so joins fail only when every
	// parked thread is a join (tasks awaiting each other), and then all
	// of them. Of the other waits only the oldest fails: its task may
	// catch the error and go on to end another's wait (a send, a
	// release), which would then be no deadlock; the rest are judged
	// again once it has moved.
	allJoins := true
	var oldest, front *Thread
	for th, p := range s.parked {
		allJoins = allJoins && p.join
		if !p.join && (oldest == nil || p.seq < s.parked[oldest].seq) {
			oldest = th
		}
		if _, ok := s.foreground[th]; ok && !p.join && (front == nil || p.seq < s.parked[front].seq) {
			front = th
		}
	}
	if front != nil {
		oldest = front
	}
	for th, p := range s.parked {
		if allJoins || th == oldest {
			close(p.dead)
			delete(s.parked, th)
		}
	}
	s.gen++
}

// stuck reports whether nothing can run: the lock is free, no thread
// wants it, none will come back by itself, and some are parked with no
// wake pending.
func (s *sched) stuck() bool {
	if s.held || len(s.ready) > 0 || len(s.starts) > 0 || len(s.away) > 0 || len(s.parked) == 0 {
		return false
	}
	if s.vm.interrupt.Load() {
		return false // ending anyway (Ctrl-C, exit in a task): every wait is woken
	}
	for _, p := range s.parked {
		if len(p.wake) > 0 {
			return false
		}
	}
	return true
}

// DeadlockMsg is the text of the error a deadlocked wait fails with.
const DeadlockMsg = "every task is waiting for another task; none can continue"

// park enters th into s.parked while it waits for wake (nil when
// deadlocks are not detected, or th's wait can end by itself); join marks
// a wait for other threads to end (WaitOnTasks).
func (s *sched) park(th *Thread, wake <-chan struct{}, join bool) *parking {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.detect {
		return nil
	}
	s.parks++
	p := &parking{wake: wake, dead: make(chan struct{}), join: join, seq: s.parks}
	s.parked[th] = p
	s.gen++
	return p
}

func (s *sched) unpark(th *Thread) {
	s.mu.Lock()
	if _, ok := s.parked[th]; ok {
		delete(s.parked, th)
		s.gen++
	}
	s.mu.Unlock()
}

func (s *sched) popReady() chan struct{} {
	w := s.ready[0].w
	s.ready[0] = readyEntry{}
	s.ready = s.ready[1:]
	if len(s.ready) == 0 {
		s.ready = s.ready[:0:0]
	}
	s.waiting.Add(-1)
	return w
}

func (s *sched) popStart() Runner {
	r := s.starts[0].r
	s.startedSeq = s.starts[0].seq
	s.starts[0] = queued{}
	s.starts = s.starts[1:]
	if len(s.starts) == 0 {
		s.starts = nil
	}
	s.waiting.Add(-1)
	return r
}

// timeSlice is how long a thread keeps the lock without waiting before
// yield lets others run. Upstream Harn switches tasks only where they wait,
// so a task's code between two waits runs as one step: `total = total +
// f(x)` in a parallel body loses no update however long f runs. A slice
// keeps that for any body of a realistic length while a task that never
// waits (a spin loop, a runaway computation) still cannot starve the
// others, its cancellation or their timers for longer than the slice.
const timeSlice = 50 * time.Millisecond

// minSliceChecks is how many times (each after 1024 loop iterations or
// calls) the holder must have reached yield, besides its timeSlice,
// before it lets others run. Wall time alone is not enough: a process the
// OS stopped for 50 ms in the middle of a short body would switch tasks
// inside `seen = seen + [f(x)]` and lose an update; with this, a body
// switches only once it has itself done some 16,000 steps of work.
const minSliceChecks = 16

// hold records that th now holds the lock, starting its slice.
func (s *sched) hold(th *Thread) {
	s.cur = th
	s.heldSince = time.Now()
	s.heldChecks = 0
}

// yield lets other threads run when any are waiting and the holder has
// had its timeSlice. A queued task is preferred to a waiting thread, so
// unstarted tasks always make progress even while running threads keep
// yielding to each other.
func (s *sched) yield(th *Thread) {
	s.heldChecks++
	if s.waiting.Load() == 0 || s.heldChecks < minSliceChecks || time.Since(s.heldSince) < timeSlice {
		return
	}
	s.mu.Lock()
	if len(s.ready) == 0 && len(s.starts) == 0 {
		s.mu.Unlock()
		return
	}
	if len(s.starts) > 0 {
		r := s.popStart()
		s.requeue(th, func() { go s.runTasks(r) })
	} else {
		next := s.popReady()
		s.requeue(th, func() { next <- struct{}{} })
	}
}

// yieldTurn lets every thread waiting for the lock and every queued task
// run before th, which holds the lock, goes on: th queues behind them and
// hands the lock to the first (sleep(0)). With nothing waiting th keeps
// the lock.
func (s *sched) yieldTurn(th *Thread) {
	s.mu.Lock()
	if len(s.ready) == 0 && len(s.starts) == 0 {
		s.mu.Unlock()
		return
	}
	w := th.wakeChan()
	s.ready = append(s.ready, readyEntry{w: w, seq: s.nextSeq()})
	s.waiting.Add(1)
	s.handOff()
	<-w
	s.hold(th)
	th.lag = time.Since(s.handedAt)
}

// requeue queues th, which holds the lock, for it behind the threads
// already waiting, releases s.mu (held), lets the next holder go with
// handOff, and returns once th holds the lock again.
func (s *sched) requeue(th *Thread, handOff func()) {
	w := th.wakeChan()
	s.handedAt = time.Now()
	s.ready = append(s.ready, readyEntry{w: w, seq: s.nextSeq()})
	s.waiting.Add(1)
	s.mu.Unlock()
	handOff()
	<-w
	s.hold(th)
	th.lag = time.Since(s.handedAt)
}

// behindReady lets the threads already waiting for the lock run before
// th, which holds it: a task cancelled before it first waits (a parallel
// branch started after a sibling failed) then unwinds after the tasks
// cancelled before it, which were queued for the lock as they were
// cancelled, so cleanups start in the order the tasks were cancelled.
func (s *sched) behindReady(th *Thread) {
	s.mu.Lock()
	if len(s.ready) == 0 {
		s.mu.Unlock()
		return
	}
	next := s.popReady()
	s.requeue(th, func() { next <- struct{}{} })
}

// start queues a task; the goroutine that eventually runs it owns the lock.
func (s *sched) start(r Runner) {
	s.mu.Lock()
	if !s.held {
		s.held = true
		s.handedAt = time.Now()
		s.startedSeq = s.nextSeq()
		s.mu.Unlock()
		go s.runTasks(r)
		return
	}
	s.starts = append(s.starts, queued{r: r, seq: s.nextSeq()})
	s.waiting.Add(1)
	s.mu.Unlock()
}

// startNext queues r in the place of the task starting now (called from
// that task's start, lock held): ahead of everything queued since that
// task was queued, as if r had been queued right behind it. Every entry
// still queued came later, so r goes first in starts.
func (s *sched) startNext(r Runner) {
	s.mu.Lock()
	if !s.held {
		s.mu.Unlock()
		s.start(r)
		return
	}
	s.starts = slices.Insert(s.starts, 0, queued{r: r, seq: s.startedSeq})
	s.waiting.Add(1)
	s.mu.Unlock()
}

// runTasks runs r on a new thread on this goroutine, which owns the lock,
// then keeps running queued tasks while theirs is the next turn
// (startFirst), reusing the thread when the task lets it go.
func (s *sched) runTasks(r Runner) {
	var th *Thread
	lag := time.Since(s.handedAt) // only the first task waited for this goroutine
	for r != nil {
		if th == nil {
			th = s.vm.NewThread()
		}
		s.hold(th)
		th.held = true
		th.lag = lag
		lag = 0
		if r.RunTask(th) {
			th.reset()
		} else {
			th = nil
		}
		r = nil
		s.mu.Lock()
		if s.startFirst() {
			r = s.popStart()
			s.mu.Unlock()
			continue
		}
		s.handOff()
	}
}

// reset readies a thread whose task has ended for another task.
func (th *Thread) reset() {
	th.ID = th.vm.threadIDs.Add(1)
	if cap(th.stack) > 256 {
		th.stack = th.stackBuf[:]
	} else {
		clear(th.stack)
	}
	th.sp = 0
	th.frames = th.frames[:0]
	th.cancelled.Store(false)
	th.cleanupUntil.Store(0)
	th.doneMu.Lock()
	th.done = nil
	th.doneMu.Unlock()
	th.deadlines = th.deadlines[:0]
	clear(th.openIters) // loops of the ended task's frames, if any were left
	th.openIters = th.openIters[:0]
	th.closing = false
	th.Task = nil
	th.held = false
	th.lender = nil
	th.lentTo.Store(nil)
	th.childMu.Lock()
	th.children = nil
	th.childMu.Unlock()
}

// Runner is a task queued by VM.Start.
type Runner interface {
	// RunTask runs the task on th, its own thread, called holding the VM
	// lock on the task's own goroutine; it must return holding it. It
	// reports whether th may be reused (nothing refers to it any more).
	RunTask(th *Thread) (reusable bool)
}

// RunnerFunc is a Runner from a function; its thread may be reused.
type RunnerFunc func(th *Thread)

// RunTask runs f on th.
func (f RunnerFunc) RunTask(th *Thread) bool { f(th); return true }

// Start queues r to run as a task once no other thread is ready to run;
// tasks start in the order they were queued.
func (v *VM) Start(r Runner) {
	v.sched.start(r)
}

// StartNext is Start for a task that belongs right behind the task
// starting now (the next branch of a parallel, queued lazily as its
// predecessor starts): it runs before the tasks and threads queued since
// that task was queued, as it would had both been queued together.
func (v *VM) StartNext(r Runner) {
	v.sched.startNext(r)
}

// Current returns the thread holding the VM lock. Only the holder may
// call it (an iterator pulled by a builtin uses it to find its consumer).
func (v *VM) Current() *Thread { return v.sched.cur }

// SetCurrent records that th now runs on the lock another thread holds
// (a generator resumed by its consumer, and the consumer again after).
func (v *VM) SetCurrent(th *Thread) { v.sched.cur = th }

func (th *Thread) wakeChan() chan struct{} {
	if th.wake == nil {
		th.wake = make(chan struct{}, 1)
	}
	return th.wake
}

// Lend marks that th runs on the VM lock held by the thread that resumed
// it (a generator's consumer), without taking it; Unlend gives it back.
// While lent, the consumer's cancellation and deadline reach th.
func (th *Thread) Lend(from *Thread) {
	th.held = true
	th.lender = from
	th.lentDepth = 0
	if from != nil {
		th.lentDepth = from.ChainDepth()
		from.lentTo.Store(th)
		if from.IsCancelled() && !from.cleaningUp() {
			th.Cancel()
		}
	}
	th.vm.sched.cur = th
}

// Lender is the thread th runs for while lent (nil otherwise).
func (th *Thread) Lender() *Thread { return th.lender }

// ChainDepth is th's call depth counting the consumers it runs for: its
// own frames plus, while lent (a generator's body resumed by a pull), the
// chain depth of its lender when it lent. A pull that would resume a
// generator past MaxFrames fails as a call would, so generators nested
// without end (one whose body loops over a fresh call of itself) stop
// with `Stack overflow: too many nested calls` instead of starting
// threads until memory runs out.
func (th *Thread) ChainDepth() int { return th.lentDepth + len(th.frames) }

// Unlend ends a Lend: th stops running on the lender's lock.
func (th *Thread) Unlend() {
	th.held = false
	if from := th.lender; from != nil {
		from.lentTo.Store(nil)
		th.lender = nil
		th.vm.sched.cur = from
	}
}

// Yield lets the threads and tasks that are ready to run take their turn
// before th goes on, as a zero-length sleep does on a single-threaded
// scheduler (asyncio's sleep(0), Trio's checkpoint). Like any wait it
// fails when th is cancelled or past its deadline.
func (th *Thread) Yield() error {
	if err := th.stopErr(); err != nil {
		return err
	}
	if th.held {
		th.vm.sched.yieldTurn(th)
	}
	return th.stopErr()
}

// Wait releases the VM lock and blocks until wake is ready (or closed),
// timeout passes (a negative timeout never passes), or the thread is
// cancelled, interrupted or runs past its deadline; it takes the lock
// back before returning. It reports whether wake fired; when the thread
// was stopped instead it returns the failure that stops it (KindCancelled
// or KindExit), and a wake that fired at the same moment is reported as
// not fired, so callers that hand values over through wake must check
// whether the hand-over happened.
func (th *Thread) Wait(wake <-chan struct{}, timeout time.Duration) (bool, error) {
	return th.wait(wake, timeout, false, false)
}

// WaitOnThreads is Wait for a wake that only another thread of this VM
// can fire (a channel send or receive, a task's end). Without a timeout
// or deadline it is a park: when every thread is parked so (and
// DetectDeadlocks is on), it fails with a "deadlock" error instead of
// waiting forever.
func (th *Thread) WaitOnThreads(wake <-chan struct{}, timeout time.Duration) (bool, error) {
	return th.wait(wake, timeout, true, false)
}

// WaitOnTasks is WaitOnThreads for a join: a wake fired when other
// threads of this VM end (await, the end of a parallel). In a deadlock
// it fails only after the waits it depends on have failed and still
// nothing can run, so a task that catches its deadlock error and
// returns lets its awaiter go on.
func (th *Thread) WaitOnTasks(wake <-chan struct{}, timeout time.Duration) (bool, error) {
	return th.wait(wake, timeout, true, true)
}

// WaitOnThreadsClocked is WaitOnThreads for a timeout on the VM's clock
// (select, channel_select, sync acquires): while mock_time holds the
// clock, the timeout is mocked time and waitMocked ends it.
func (th *Thread) WaitOnThreadsClocked(wake <-chan struct{}, timeout time.Duration) (bool, error) {
	if timeout > 0 && th.held {
		if _, on := th.vm.mockedNow(); on {
			return th.waitMocked(wake, timeout)
		}
	}
	return th.wait(wake, timeout, true, false)
}

func (th *Thread) wait(wake <-chan struct{}, timeout time.Duration, onThreads, join bool) (bool, error) {
	// A deadline set under mock_time passes when the mocked clock moves:
	// watch it from before the first check.
	var clock <-chan struct{}
	if th.MockDeadline() != 0 {
		clock = th.vm.watchClock()
	}
	if err := th.stopErr(); err != nil {
		if e, ok := err.(*Error); ok && e.Stop == StopCancelled && th.held && th.lender == nil {
			th.vm.sched.behindReady(th)
		}
		return false, err
	}
	var p *parking
	var dead <-chan struct{}
	if onThreads && timeout < 0 && th.held && th.Deadline() == 0 {
		if p = th.vm.sched.park(th, wake, join); p != nil {
			dead = p.dead
		}
	}
	var tc, dc <-chan time.Time
	if timeout >= 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		tc = t.C
	}
	// A wait holding the lock that a timer ends (a sleep, a timeout, a
	// deadline) wakes in order with the other sleepers (sleepQueue), so
	// that tasks whose timers end together resume in the order they began
	// to wait. A timeout's place is reckoned from when the lock was
	// handed to the thread, less the time the hand-over took to reach its
	// goroutine (th.lag): on a loaded machine a task spawned before
	// another thread's sleep(40) can start tens of milliseconds late, and
	// its sleep(10) must still end first, as on a single-threaded
	// scheduler. The timer still runs the whole timeout.
	var sl *sleeper
	if th.held && th.lender == nil {
		if at, ok := th.timerEnd(timeout); ok {
			sl = th.vm.sleeps.add(at)
		}
	}
	if at := th.Deadline(); at != 0 {
		t := time.NewTimer(time.Until(time.UnixMilli(at)))
		defer t.Stop()
		dc = t.C
	}
	var lenderDone <-chan struct{}
	if th.lender != nil && !th.lender.cleaningUp() {
		lenderDone = th.lender.doneChan()
	}
	var done <-chan struct{}
	if !th.cleaningUp() {
		done = th.doneChan()
	}
	held := th.held
	if held {
		th.vm.turns.park(th, wake)
	}
	th.Unlock()
	fired := false
	timedOut := false
	for waiting := true; waiting; {
		waiting = false
		select {
		case <-wake:
			fired = true
		case <-tc:
			timedOut = true
		case <-dc:
			timedOut = true
		case <-done:
		case <-lenderDone:
		case <-th.vm.stop:
		case <-dead:
			// a wake that fired too (before the wait parked, or as
			// the verdict came) wins: the wait can end after all
			fired = fires(wake)
		case <-clock:
			clock = th.vm.watchClock()
			waiting = !th.mockDeadlinePassed()
		}
	}
	if p != nil {
		th.vm.sched.unpark(th)
	}
	// A thread woken (VM.Wake) or cancelled while it waited was queued
	// for the lock by its waker (turns.go): it takes the lock there,
	// giving up its own sleep's place.
	if held && th.vm.turns.unpark(th) {
		q := &th.vm.sleeps
		if sl != nil && q.leave(sl) {
			<-sl.turn
			q.placed()
		}
		sl = nil
		th.vm.sched.takeReserved(th)
		th.held = true
	}
	if sl != nil {
		q := &th.vm.sleeps
		if timedOut {
			q.fire(sl)
		} else if !q.leave(sl) {
			sl = nil
		}
		for sl != nil {
			<-sl.turn
			th.vm.sched.acquireThen(th, q.placed)
			th.held = true
			// A thread handed the lock before this sleeper's wake time
			// may reach its own sleep only now, late (th.lag); when that
			// sleep ends earlier, it wakes first: this sleeper goes back
			// in the queue, its timer already fired, and lets go.
			if !q.requeue(sl) {
				break
			}
			th.Unlock()
		}
	}
	if held {
		th.Lock()
	}
	if fired {
		return true, nil
	}
	if err := th.stopErr(); err != nil {
		return false, err
	}
	if p != nil && fires(p.dead) {
		return false, Categorized("deadlock", DeadlockMsg)
	}
	return false, nil
}

// timerEnd is when a wait of th with timeout (< 0: none) ends by its
// timer or its deadline, whichever comes first; ok is false when neither
// is set.
func (th *Thread) timerEnd(timeout time.Duration) (at time.Time, ok bool) {
	if timeout >= 0 {
		at, ok = time.Now().Add(timeout-th.lag), true
	}
	if d := th.Deadline(); d != 0 {
		if dt := time.UnixMilli(d); !ok || dt.Before(at) {
			at, ok = dt, true
		}
	}
	return at, ok
}

// fires reports, without waiting, whether c is closed or holds a
// signal, which it then takes.
func fires(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// stopErr is the failure that stops th now, if any: an interrupt or exit
// of the whole VM, cancellation (of th or of its lender), or a deadline.
func (th *Thread) stopErr() error {
	v := th.vm
	if v.interrupt.Load() {
		if e := v.exitErr.Load(); e != nil {
			return e
		}
		return Interrupted()
	}
	for t := th; t != nil; t = t.lender {
		if t.cancelled.Load() && !t.cleaningUp() {
			return Cancelled()
		}
	}
	if at := th.Deadline(); at != 0 && time.Now().UnixMilli() >= at {
		return DeadlineExceeded()
	}
	if th.mockDeadlinePassed() {
		return DeadlineExceeded()
	}
	return checkMemory()
}

// waitMocked is WaitOnThreadsClocked while mock_time holds the clock:
// the timeout is mocked time, which only sleeps and advance_time move, so
// it does not wait for it in real time. The thread lets the lock go once, so that every thread
// waiting for the lock (tasks started, woken or yielding) gets a turn;
// when wake has not fired by then, it advances the clock by timeout (or
// only to its mocked deadline, then failing as that deadline does) and
// reports the timeout.
func (th *Thread) waitMocked(wake <-chan struct{}, timeout time.Duration) (bool, error) {
	fired, err := th.wait(wake, 0, true, false)
	if fired || err != nil {
		return fired, err
	}
	select {
	case <-wake: // fired during the turn, after the wait gave up
		return true, nil
	default:
	}
	if _, err := th.SleepMocked(timeout); err != nil {
		return false, err
	}
	return false, nil
}

// ExitAll ends every thread of the VM with err (exit() called in a task):
// running threads stop at their next check, waiting ones wake.
func (v *VM) ExitAll(err *Error) {
	v.exitErr.CompareAndSwap(nil, err)
	v.Interrupt()
}

// Child is an activity a thread started (a spawned task, a parallel
// branch) that must not outlive the thread's work.
type Child interface {
	Cancel()
	Done() <-chan struct{}
}

// AddChild registers c as started by th.
func (th *Thread) AddChild(c Child) {
	th.childMu.Lock()
	if th.children == nil {
		th.children = map[Child]int64{}
	}
	th.childSeq++
	th.children[c] = th.childSeq
	th.childMu.Unlock()
}

// RemoveChild forgets c (it finished, or was awaited).
func (th *Thread) RemoveChild(c Child) {
	th.childMu.Lock()
	delete(th.children, c)
	th.childMu.Unlock()
}

// ChildMark returns a mark such that CancelChildren(mark) cancels exactly
// the children registered after this call.
func (th *Thread) ChildMark() int64 {
	th.childMu.Lock()
	defer th.childMu.Unlock()
	return th.childSeq
}

// CancelChildren cancels the children registered after mark, in the
// order they were registered (so their cleanups run in spawn order), and
// returns them.
func (th *Thread) CancelChildren(mark int64) []Child {
	th.childMu.Lock()
	var out []Child
	for c, seq := range th.children {
		if seq > mark {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Child) int { return cmp.Compare(th.children[a], th.children[b]) })
	th.childMu.Unlock()
	for _, c := range out {
		c.Cancel()
	}
	return out
}

// Children are the tasks th started that are still running.
func (th *Thread) Children() []Child {
	th.childMu.Lock()
	defer th.childMu.Unlock()
	out := make([]Child, 0, len(th.children))
	for c := range th.children {
		out = append(out, c)
	}
	return out
}

// EndChildrenTimeout bounds how long EndChildren waits for cancelled
// children that do not stop (a builtin that ignores cancellation).
var EndChildrenTimeout = 5 * time.Second

// EndChildren cancels every child still running and waits (without the
// VM lock) until they have stopped: un-awaited tasks end with the thread
// that spawned them, and with the program (docs/spec/language.md §13).
func (th *Thread) EndChildren() { th.StopChildren(-1) }

// StopChildren cancels the children th started after mark (a value of
// ChildMark; -1 for all) and waits, without the VM lock, until they have
// stopped: their finally blocks have run. A deadline block that passed
// stops the tasks it started this way before its failure is raised, as
// a parallel stops its branches (docs/concurrency.md, deadline).
func (th *Thread) StopChildren(mark int64) {
	if len(th.Children()) == 0 {
		return
	}
	// Cancel holding the lock, so the children queue for it in the
	// order they are cancelled (turns.go).
	held := th.held
	th.Lock()
	cs := th.CancelChildren(mark)
	th.Unlock()
	limit := time.NewTimer(EndChildrenTimeout)
	defer limit.Stop()
wait:
	for _, c := range cs {
		select {
		case <-c.Done():
		case <-limit.C:
			break wait
		}
	}
	if held {
		th.Lock()
	}
}

// closedChan is the done channel of a thread cancelled before anything
// waited on it.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// doneChan is closed once th is cancelled.
func (th *Thread) doneChan() chan struct{} {
	th.doneMu.Lock()
	defer th.doneMu.Unlock()
	if th.done == nil {
		th.done = make(chan struct{})
	}
	return th.done
}

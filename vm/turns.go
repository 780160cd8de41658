package vm

import (
	"slices"
	"sync"
	"sync/atomic"
)

// turns orders the threads that retake the VM lock after a wait ended by
// another thread: those woken by VM.Wake or VM.WakeAll and those
// cancelled. The waker, which holds the lock, queues each for the lock
// itself as it wakes it (sched.reserve), so threads woken or cancelled
// one after another take the lock in that order (and threads woken
// together, by WakeAll, in the order they began to wait). Without it
// their goroutines would race for the lock, and Go's scheduler tends to
// run the last one woken first.
type turns struct {
	mu       sync.Mutex
	parkedOn map[<-chan struct{}][]*Thread // threads waiting on each wake channel, oldest first
}

// park records that th waits on wake (nil for none) having let the lock
// go.
func (t *turns) park(th *Thread, wake <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	th.parkedHeld = true
	if wake != nil {
		if t.parkedOn == nil {
			t.parkedOn = map[<-chan struct{}][]*Thread{}
		}
		t.parkedOn[wake] = append(t.parkedOn[wake], th)
		th.parkedWake = wake
	}
}

// unpark ends th's wait and reports whether th was queued for the lock
// meanwhile; the caller must then take it with sched.takeReserved.
func (t *turns) unpark(th *Thread) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	th.parkedHeld = false
	if w := th.parkedWake; w != nil {
		ths := slices.DeleteFunc(t.parkedOn[w], func(o *Thread) bool { return o == th })
		if len(ths) == 0 {
			delete(t.parkedOn, w)
		} else {
			t.parkedOn[w] = ths
		}
		th.parkedWake = nil
	}
	reserved := th.reserved
	th.reserved = false
	return reserved
}

// give queues th for the lock if it waits with the lock let go and is not
// queued yet.
func (t *turns) give(th *Thread) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.giveLocked(th)
}

func (t *turns) giveLocked(th *Thread) {
	if th.parkedHeld && !th.reserved {
		th.reserved = th.vm.sched.reserve(th)
		if !th.reserved {
			th.vm.sched.blind.Add(1)
		}
	}
}

// giveAll queues every thread waiting on w for the lock, oldest first,
// as one group (sched.reserveAll): a thread that queues itself for the
// lock meanwhile — a sleeper whose timer fired — comes before or after
// them all, never between two of them, so the woken threads run one
// after another as they would on a single-threaded scheduler (the
// readers of a `parallel … as stream` find the results in the order
// they began to wait).
func (t *turns) giveAll(w <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var group []*Thread
	for _, th := range t.parkedOn[w] {
		if th.parkedHeld && !th.reserved {
			group = append(group, th)
		}
	}
	if len(group) == 0 {
		return
	}
	ok := group[0].vm.sched.reserveAll(group)
	for _, th := range group {
		th.reserved = ok
		if !ok {
			th.vm.sched.blind.Add(1)
		}
	}
}

// giveOne queues the thread waiting on w for the lock when it is the
// only one: with several, the signal reaches just one of them, and a
// place in the queue its thread never takes would stop the lock there.
func (t *turns) giveOne(w <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ths := t.parkedOn[w]; len(ths) == 1 {
		t.giveLocked(ths[0])
	} else if len(ths) > 1 {
		ths[0].vm.sched.blind.Add(1)
	}
}

// rawWakes counts RawWake calls, in every VM of the process.
var rawWakes atomic.Uint64

// RawWake records that the caller is about to end a wait of a thread of
// some VM by sending on or closing its wake channel itself rather than
// through Wake or WakeAll. Such a wake does not queue the thread for the
// lock, so until its goroutine runs the thread still looks parked; the
// deadlock detector then gives the next verdict its full grace
// (sched.stillDeadlocked). Call it before the send or close.
func RawWake() { rawWakes.Add(1) }

// Wake signals w, a wake channel with room for the signal that one
// thread waits on (Thread.Wait and its variants), so that the thread
// retakes the lock in the order of the wake-ups.
func (v *VM) Wake(w chan struct{}) {
	v.turns.giveOne(w)
	w <- struct{}{}
}

// WakeAll closes w, waking every thread that waits on it; they retake
// the lock in the order they began to wait.
func (v *VM) WakeAll(w chan struct{}) {
	v.turns.giveAll(w)
	close(w)
}

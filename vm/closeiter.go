package vm

import (
	"math"
	"slices"
)

// For loops over generators (IterCloser): a loop that stops before its
// source is exhausted closes it, as JavaScript's for-of calls an
// iterator's return() — on break and return the compiler emits
// CLOSE_ITER (compiler/stmt.go), and on a failure the handler search
// closes the loops the failure leaves (abandonIters). A close error
// raised by break or return propagates from there; one raised while a
// failure is in flight is dropped: the failure wins.

// trackIter records slot, the iterator of a for loop whose frame has
// handlers handlers around the loop, as one to close.
func (th *Thread) trackIter(slot *iterSlot, handlers int) {
	depth := len(th.frames)
	// Loops of frames that are gone left without a close (nothing
	// should): close them now rather than keep them.
	th.abandonIters(depth, math.MaxInt, true)
	th.openIters = append(th.openIters, openIter{slot: slot, depth: depth, handlers: handlers})
}

// closeIter closes the iterator of the for loop whose slot holds v, if it
// is one to close (CLOSE_ITER).
func (th *Thread) closeIter(v Value) error {
	slot, ok := v.Object().(*iterSlot)
	if !ok || !th.untrackIter(slot) {
		return nil
	}
	return slot.it.(IterCloser).CloseIter(th)
}

// untrackIter forgets slot, a loop that ended or is being closed,
// reporting whether it was tracked. A loop that ran to the end is
// forgotten without a close (there is nothing left to close), so loops
// run to the end over and over do not pile up in openIters.
func (th *Thread) untrackIter(slot *iterSlot) bool {
	for i := len(th.openIters) - 1; i >= 0; i-- {
		if th.openIters[i].slot == slot {
			th.openIters = slices.Delete(th.openIters, i, i+1) // zeroes the freed entry
			return true
		}
	}
	return false
}

// abandonIters closes, innermost first, the tracked loops a failure
// leaves when the handler at index h of the frame at depth takes it (h =
// -1: the frame takes it nowhere and ends): those of deeper frames and
// those inside that handler. With run false (exit) they are dropped
// without running any code.
func (th *Thread) abandonIters(depth, h int, run bool) {
	for n := len(th.openIters); n > 0; n-- {
		o := th.openIters[n-1]
		if o.depth < depth || (o.depth == depth && o.handlers <= h) {
			return
		}
		th.openIters[n-1] = openIter{}
		th.openIters = th.openIters[:n-1]
		if run {
			_ = o.slot.it.(IterCloser).CloseIter(th) // the failure in flight wins
		}
	}
}

package hitl

import (
	"github.com/harnlang/harn/vm"
)

// The Go side of waitpoints, for programs that embed harn: a host that
// hands a waitpoint to something outside the VM (a web hook, a UI)
// completes or cancels it here. Such waitpoints should be created with
// `external: true`, so that a task waiting on one is not reported as a
// deadlock while the VM has nothing else to do.

// CompleteWaitpoint completes the pending waitpoint of v with the given
// id or name; an error when there is none or it is already settled.
func CompleteWaitpoint(v *vm.VM, key string, value vm.Value) error {
	w := stateOfVM(v).lookup(key)
	if w == nil {
		return vm.Throwf("waitpoint_complete: no waitpoint %q", key)
	}
	if !value.IsValid() {
		value = vm.Nil
	}
	if ok, prev := w.settle(wpCompleted, value); !ok {
		return vm.Throwf("waitpoint_complete: waitpoint %q is already %s", w.name, prev)
	}
	return nil
}

// CancelWaitpoint cancels the pending waitpoint of v with the given id or
// name; false when it was settled already, an error when there is none.
func CancelWaitpoint(v *vm.VM, key, reason string) (bool, error) {
	w := stateOfVM(v).lookup(key)
	if w == nil {
		return false, vm.Throwf("waitpoint_cancel: no waitpoint %q", key)
	}
	r := vm.Nil
	if reason != "" {
		r = vm.Str(reason)
	}
	ok, _ := w.settle(wpCancelled, r)
	return ok, nil
}

// PendingWaitpoints lists the ids of v's pending waitpoints, oldest first.
func PendingWaitpoints(v *vm.VM) []string {
	s := stateOfVM(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, w := range s.waitpoints {
		if w.Status() == wpPending {
			ids = append(ids, w.id)
		}
	}
	return ids
}

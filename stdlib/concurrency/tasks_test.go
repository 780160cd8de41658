package concurrency

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// A task counts as stopped (cancelled, interrupted) by what the scheduler
// recorded (vm.Error.Stop), not by its error's text: a script's own
// failure whose text is the cancellation's, or an exit whose code and
// text are the interrupt's, is an ordinary failure.
func TestCancellationIsKnownByCauseNotText(t *testing.T) {
	for _, c := range []struct {
		name string
		err  *vm.Error
		want bool
	}{
		{"cancelled", vm.Cancelled(), true},
		{"deadline", vm.DeadlineExceeded(), true},
		{"interrupted", vm.Interrupted(), true},
		{"thrown with the cancellation text", vm.Throw(vm.Str(vm.CancelledMsg)), false},
		{"runtime error with the cancellation text", vm.Runtimef("%s", vm.CancelledMsg), false},
		{"exit with the interrupt's code and text", &vm.Error{Kind: vm.KindExit, Code: 124, Msg: "interrupted"}, false},
	} {
		if got := isCancellation(c.err); got != c.want {
			t.Errorf("%s: isCancellation = %v, want %v", c.name, got, c.want)
		}
	}
}

// Awaiting a task that failed with a script error whose text is the
// cancellation's re-raises that error; only a cancelled task gives nil.
func TestAwaitOfAFailureWithTheCancellationText(t *testing.T) {
	failed := &Task{err: vm.Throw(vm.Str(vm.CancelledMsg))}
	if _, err := failed.outcome(); err == nil {
		t.Fatal("a task that threw the cancellation text gave a result, as a cancelled one would")
	}
	cancelled := &Task{err: vm.Cancelled()}
	if v, err := cancelled.outcome(); err != nil || !v.IsNil() {
		t.Fatalf("a cancelled task gave %v, %v; want nil", v, err)
	}
}

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

// An options dict holds only `timeout`: a misspelt key would otherwise be
// ignored and the acquire would wait for ever.
func TestTimeoutOptionRefusesUnknownKeys(t *testing.T) {
	for _, c := range []struct {
		opts *vm.Dict
		want string // "" when accepted
	}{
		{vm.NewDict(), ""},
		{vm.NewDict().Set("timeout", vm.IntOf(5)), ""},
		{vm.NewDict().Set("timout", vm.IntOf(5)), `sync_mutex_acquire: unknown option "timout" (did you mean "timeout"?) (known: timeout, timeout_ms)`},
		{vm.NewDict().Set("wait", vm.IntOf(5)), `sync_mutex_acquire: unknown option "wait" (known: timeout, timeout_ms)`},
		{vm.NewDict().Set("timeout_ms", vm.IntOf(5)), ""},
		{vm.NewDict().Set("timeout_ms", vm.Str("5")), `sync_mutex_acquire: timeout_ms must be a number of milliseconds, got string`},
		{vm.NewDict().Set("timeout", vm.IntOf(5)).Set("timeout_ms", vm.IntOf(5)), `sync_mutex_acquire: give timeout or timeout_ms, not both`},
	} {
		_, err := timeoutOption("sync_mutex_acquire", c.opts)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: unexpected error %v", vm.ToDisplay(vm.Of(c.opts)), err)
		case c.want != "" && (err == nil || errText(err) != c.want):
			t.Errorf("%v: error %v, want %q", vm.ToDisplay(vm.Of(c.opts)), err, c.want)
		}
	}
}

// errText is the message of err: its text, or the string it throws (the
// unknown-option errors of lib.CheckOptions).
func errText(err error) string {
	e := vm.AsError(err)
	if e.Msg != "" {
		return e.Msg
	}
	return vm.ToDisplay(e.Value)
}

// is_cancelled(h) of an ended task tells how it ended: cancelled, or
// with a value despite a request to stop.
func TestIsCancelledOfAnEndedTaskTellsHowItEnded(t *testing.T) {
	ended := func(stopped, graceful bool, err *vm.Error) *Task {
		tk := &Task{done: make(chan struct{}), stopped: stopped, err: err}
		tk.graceful.Store(graceful)
		close(tk.done)
		return tk
	}
	for _, c := range []struct {
		name string
		task *Task
		want bool
	}{
		{"cancelled", ended(true, false, vm.Cancelled()), true},
		{"honoured a graceful request", ended(false, true, nil), false},
		{"returned before the cancel reached it", ended(true, false, nil), false},
		{"never asked", ended(false, false, nil), false},
	} {
		if got := c.task.cancelledOrAsked(); got != c.want {
			t.Errorf("%s: is_cancelled = %v, want %v", c.name, got, c.want)
		}
	}
	running := &Task{done: make(chan struct{})}
	running.graceful.Store(true)
	if !running.cancelledOrAsked() {
		t.Error("a running task asked to stop: is_cancelled = false")
	}
}

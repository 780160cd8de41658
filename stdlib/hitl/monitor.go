package hitl

// monitor_wait_for_native (docs/spec/builtins.md §5, Human in the loop,
// which gives only the name; the shape is this implementation's,
// docs/hitl.md "Monitors"): wait, without a busy loop and without
// blocking other tasks, until a condition holds — a predicate polled at
// an interval, or a waitpoint settled — and report how the wait ended
// instead of throwing on a timeout.

import (
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("monitor_wait_for_native", "monitor_wait_for_native(condition, options?) -> dict",
		`wait until condition holds: a function polled every interval until it returns a truthy value, or a waitpoint (or its id or name) until it is settled; options: timeout (default none), interval (default 100ms). Returns {status: "satisfied"|"cancelled"|"timeout", value, polls, waited_ms}`,
		builtinMonitorWait)
}

func builtinMonitorWait(th *vm.Thread, args vm.Args) (vm.Value, error) {
	const name = "monitor_wait_for_native"
	if !args.Has(0) {
		return vm.Value{}, vm.Runtimef("%s: missing argument 1", name)
	}
	timeout, interval := time.Duration(-1), 100*time.Millisecond
	if args.Given(1) {
		d, ok := args.At(1).AsDict()
		if !ok {
			return vm.Value{}, lib.BadOptions(name, args.At(1))
		}
		if err := lib.CheckOptions(name, d, []string{"timeout", "interval"}); err != nil {
			return vm.Value{}, err
		}
		var err error
		if v, ok := d.Get("timeout"); ok {
			if timeout, err = timeoutValue(name, "timeout", v); err != nil {
				return vm.Value{}, err
			}
		}
		if v, ok := d.Get("interval"); ok && !v.IsNil() {
			if interval, err = timeoutValue(name, "interval", v); err != nil {
				return vm.Value{}, err
			}
			if interval <= 0 {
				return vm.Value{}, vm.Throwf("%s: interval must be positive, got %s", name, lib.Display(v))
			}
		}
	}
	start := time.Now()
	result := func(status string, value vm.Value, polls int) (vm.Value, error) {
		return vm.Of(lib.DictOf("status", vm.Str(status), "value", value, "polls", lib.IntOf(polls),
			"waited_ms", lib.IntOf(int(time.Since(start).Milliseconds())))), nil
	}
	cond := args.At(0)
	_, isWaitpoint := cond.Object().(*Waitpoint)
	_, isName := cond.AsString()
	if isWaitpoint || isName {
		w, err := waitpointArg(th, name, cond)
		if err != nil {
			return vm.Value{}, err
		}
		status, value, reason, err := w.await(th, timeout)
		switch {
		case status == wpCompleted:
			return result("satisfied", value, 1)
		case status == wpCancelled:
			return result("cancelled", reason, 1)
		case err != nil:
			return vm.Value{}, err
		}
		return result("timeout", vm.Nil, 1)
	}
	if !vm.IsCallable(cond) {
		return vm.Value{}, vm.Typef("%s: condition must be a function or a waitpoint (or its id or name), got %s", name, cond.Type())
	}
	var deadline time.Time
	if timeout >= 0 {
		deadline = start.Add(timeout)
	}
	for polls := 1; ; polls++ {
		v, err := th.Call(cond)
		if err != nil {
			return vm.Value{}, err
		}
		if v.Truth() {
			return result("satisfied", v, polls)
		}
		pause := interval
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return result("timeout", vm.Nil, polls)
			}
			pause = min(pause, left)
		}
		// A pause no other task can end: Wait on a channel that never
		// fires, so cancellation, Ctrl-C and deadlines still reach it.
		if _, err := th.Wait(nil, pause); err != nil {
			return vm.Value{}, err
		}
	}
}

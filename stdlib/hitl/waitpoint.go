package hitl

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("waitpoint_create", "waitpoint_create(name?, options?)",
		"a new pending waitpoint; options: timeout (the default of waitpoint_wait), data, external (completed from outside the VM, so a wait on it is never a deadlock)",
		builtinWaitpointCreate)
	lib.Def("waitpoint_wait", "waitpoint_wait(wp, timeout?)",
		"block this task until wp (a waitpoint, its id or name) is completed (→ its value), cancelled (throws) or timeout passes (throws a timeout error)",
		builtinWaitpointWait)
	lib.Def("waitpoint_complete", "waitpoint_complete(wp, value?)",
		"complete a pending waitpoint with value, waking every task that waits on it; completing a settled waitpoint is an error",
		builtinWaitpointComplete)
	lib.Def("waitpoint_cancel", "waitpoint_cancel(wp, reason?) -> bool",
		"cancel a pending waitpoint (its waiters throw); true when this call cancelled it, false when it was already settled",
		builtinWaitpointCancel)
}

// Waitpoint statuses.
const (
	wpPending   = "pending"
	wpCompleted = "completed"
	wpCancelled = "cancelled"
)

// Waitpoint is a one-shot rendezvous: pending until completed with a value
// or cancelled with a reason. Its fields are read as properties (wp.id,
// wp.name, wp.status, wp.value, wp.reason, wp.data, wp.created_at).
type Waitpoint struct {
	id, name  string
	data      vm.Value
	external  bool
	timeout   time.Duration // default wait limit; -1: none
	createdAt int64

	mu      sync.Mutex
	status  string
	value   vm.Value
	reason  vm.Value
	waiters int
	done    chan struct{} // closed when settled
}

func (*Waitpoint) Type() string { return "waitpoint" }
func (*Waitpoint) Truth() bool  { return true }
func (w *Waitpoint) Display(sb *strings.Builder) {
	w.mu.Lock()
	st := w.status
	w.mu.Unlock()
	fmt.Fprintf(sb, "<waitpoint %s %s>", w.name, st)
}

// Attr reads a waitpoint's properties.
func (w *Waitpoint) Attr(name string) (vm.Value, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch name {
	case "id":
		return vm.Str(w.id), nil
	case "name":
		return vm.Str(w.name), nil
	case "status":
		return vm.Str(w.status), nil
	case "value":
		return w.value, nil
	case "reason":
		return w.reason, nil
	case "data":
		return w.data, nil
	case "created_at":
		return vm.IntOf(w.createdAt), nil
	case "external":
		return vm.BoolOf(w.external), nil
	}
	return vm.Nil, nil
}

// ID is the waitpoint's id ("waitpoint-N").
func (w *Waitpoint) ID() string { return w.id }

// Name is the waitpoint's name (its id unless one was given).
func (w *Waitpoint) Name() string { return w.name }

// Status is "pending", "completed" or "cancelled".
func (w *Waitpoint) Status() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

// settle moves a pending waitpoint to status; false when it was settled
// already (then prev is its status).
func (w *Waitpoint) settle(status string, v vm.Value) (ok bool, prev string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status != wpPending {
		return false, w.status
	}
	w.status = status
	if status == wpCompleted {
		w.value = v
	} else {
		w.reason = v
	}
	vm.RawWake()
	close(w.done)
	return true, ""
}

// pendingEntry is the waitpoint's hitl_pending entry, nil once settled.
func (w *Waitpoint) pendingEntry() *vm.Dict {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status != wpPending {
		return nil
	}
	return lib.DictOf("id", vm.Str(w.id), "kind", vm.Str("waitpoint"), "name", vm.Str(w.name),
		"status", vm.Str(w.status), "waiters", lib.IntOf(w.waiters), "data", w.data, "created_at", vm.IntOf(w.createdAt))
}

func builtinWaitpointCreate(th *vm.Thread, args vm.Args) (vm.Value, error) {
	const name = "waitpoint_create"
	s := stateOf(th)
	wpName := ""
	oi := 1
	if args.Given(0) {
		if _, isDict := args.Dict(0); isDict {
			oi = 0
		} else {
			n, err := nonEmptyString(name, "name", args.At(0))
			if err != nil {
				return vm.Value{}, err
			}
			wpName = n
		}
	}
	d, err := options(name, args, oi, "timeout", "data", "external")
	if err != nil {
		return vm.Value{}, err
	}
	tv, _ := d.Get("timeout")
	timeout, err := timeoutValue(name, "timeout", tv)
	if err != nil {
		return vm.Value{}, err
	}
	w := &Waitpoint{timeout: timeout, data: vm.Nil, value: vm.Nil, reason: vm.Nil, status: wpPending, done: make(chan struct{}), createdAt: nowMs(th)}
	if v, ok := opt(d, "data"); ok {
		w.data = v
	}
	if v, ok := opt(d, "external"); ok {
		w.external = v.Truth()
	}
	w.id = s.newID("waitpoint")
	w.name = w.id
	if wpName != "" {
		w.name = wpName
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.waitpoints {
		if o.name == w.name && o.Status() == wpPending {
			return vm.Value{}, vm.Throwf("waitpoint_create: a pending waitpoint named %q already exists", w.name)
		}
	}
	s.waitpoints = append(s.waitpoints, w)
	return vm.Of(w), nil
}

// lookup finds a waitpoint by id or name (a pending one first, else the
// latest of that name).
func (s *state) lookup(key string) *Waitpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	var named *Waitpoint
	for i := len(s.waitpoints) - 1; i >= 0; i-- {
		w := s.waitpoints[i]
		if w.id == key {
			return w
		}
		if w.name == key && (named == nil || (named.Status() != wpPending && w.Status() == wpPending)) {
			named = w
		}
	}
	return named
}

// waitpointArg reads a waitpoint argument: the value, or its id or name.
func waitpointArg(th *vm.Thread, name string, v vm.Value) (*Waitpoint, error) {
	if w, ok := v.Object().(*Waitpoint); ok {
		return w, nil
	}
	if str, ok := v.AsString(); ok {
		if w := stateOf(th).lookup(str.Go()); w != nil {
			return w, nil
		}
		return nil, vm.Throwf("%s: no waitpoint %q", name, str.Go())
	}
	return nil, vm.Throwf("%s: expected a waitpoint (or its id or name), got %s", name, v.Type())
}

// await blocks th until w settles or timeout passes, counted among w's
// waiters, and returns how w stands then (err: the wait's own failure).
func (w *Waitpoint) await(th *vm.Thread, timeout time.Duration) (status string, value, reason vm.Value, err error) {
	w.mu.Lock()
	w.waiters++
	w.mu.Unlock()
	if w.external {
		_, err = th.Wait(w.done, timeout)
	} else {
		// Only another task of this VM can complete it: a park that the
		// deadlock detector sees.
		_, err = th.WaitOnThreads(w.done, timeout)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiters--
	return w.status, w.value, w.reason, err
}

func builtinWaitpointWait(th *vm.Thread, args vm.Args) (vm.Value, error) {
	const name = "waitpoint_wait"
	w, err := waitpointArg(th, name, args.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	timeout := w.timeout
	if args.Given(1) {
		if timeout, err = timeoutValue(name, "timeout", args.At(1)); err != nil {
			return vm.Value{}, err
		}
	}
	status, value, reason, err := w.await(th, timeout)
	if err != nil && status == wpPending {
		return vm.Value{}, err
	}
	switch status {
	case wpCompleted:
		return value, nil
	case wpCancelled:
		if reason.IsNil() {
			return vm.Value{}, vm.Throwf("waitpoint_wait: waitpoint %q was cancelled", w.name)
		}
		return vm.Value{}, vm.Throwf("waitpoint_wait: waitpoint %q was cancelled: %s", w.name, vm.ToDisplay(reason))
	}
	return vm.Value{}, vm.Categorized("timeout", fmt.Sprintf("waitpoint_wait: waitpoint %q was not completed within %s", w.name, durationText(timeout)))
}

func builtinWaitpointComplete(th *vm.Thread, args vm.Args) (vm.Value, error) {
	const name = "waitpoint_complete"
	w, err := waitpointArg(th, name, args.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	v := vm.Nil
	if args.Has(1) {
		v = args.At(1)
	}
	if ok, prev := w.settle(wpCompleted, v); !ok {
		return vm.Value{}, vm.Throwf("waitpoint_complete: waitpoint %q is already %s", w.name, prev)
	}
	return vm.Nil, nil
}

func builtinWaitpointCancel(th *vm.Thread, args vm.Args) (vm.Value, error) {
	w, err := waitpointArg(th, "waitpoint_cancel", args.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	reason := vm.Nil
	if args.Given(1) {
		reason = vm.Str(args.Text(1))
	}
	ok, _ := w.settle(wpCancelled, reason)
	return vm.BoolOf(ok), nil
}

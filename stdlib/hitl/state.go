package hitl

import (
	"fmt"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// state is the human-in-the-loop state of one VM: the requests in flight,
// the escalations recorded, the waitpoints and the turn that serializes
// reads of standard input between tasks.
type state struct {
	mu          sync.Mutex
	seq         map[string]int // next number per id prefix
	requests    []*request     // questions and approvals waiting for an answer
	escalations []vm.Value     // records, in order
	waitpoints  []*Waitpoint
	turn        chan struct{} // holds a token while no task reads stdin
}

// request is a question or approval in flight (hitl_pending).
type request struct {
	id   string
	kind string
	info func() *vm.Dict // its pending entry, built when listed
}

type stateKey struct{}

func stateOfVM(v *vm.VM) *state {
	return v.Local(stateKey{}, func() any {
		s := &state{seq: map[string]int{}, turn: make(chan struct{}, 1)}
		s.turn <- struct{}{}
		return s
	}).(*state)
}

func stateOf(th *vm.Thread) *state { return stateOfVM(th.VM()) }

// newID numbers ids per prefix: "ask-1", "approval-1", "waitpoint-2", …
func (s *state) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq[prefix]++
	return fmt.Sprintf("%s-%d", prefix, s.seq[prefix])
}

func (s *state) addRequest(r *request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}

func (s *state) removeRequest(r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.requests {
		if x == r {
			s.requests = append(s.requests[:i:i], s.requests[i+1:]...)
			return
		}
	}
}

// takeTurn waits until no other task is reading an answer, so the prompts
// and answers of concurrent tasks never interleave; giveTurn ends it.
func (s *state) takeTurn(th *vm.Thread) error {
	select {
	case <-s.turn:
		return nil
	default:
	}
	for {
		fired, err := th.WaitOnThreads(s.turn, -1)
		if err != nil {
			return err
		}
		if fired {
			return nil
		}
	}
}

func (s *state) giveTurn() {
	vm.RawWake()
	s.turn <- struct{}{}
}

// nowMs is the VM's wall clock (mock_time applies) in Unix milliseconds.
func nowMs(th *vm.Thread) int64 { return htime.VMNow(th).UnixMilli() }

// options reads an options argument: nil or missing is empty; anything but
// a dict, or a key not in known, is an error naming the builtin.
func options(name string, args vm.Args, i int, known ...string) (*vm.Dict, error) {
	if !args.Given(i) {
		return vm.NewDict(), nil
	}
	d, ok := args.Dict(i)
	if !ok {
		return nil, lib.BadOptions(name, args.At(i))
	}
	if err := lib.CheckOptions(name, d, known); err != nil {
		return nil, err
	}
	return d, nil
}

// opt is d[k] when present and not nil.
func opt(d *vm.Dict, k string) (vm.Value, bool) {
	v, ok := d.Get(k)
	if !ok || v.IsNil() {
		return vm.Value{}, false
	}
	return v, true
}

// timeoutValue reads a timeout: a duration or a number of milliseconds,
// not negative. Nil means no limit (-1).
func timeoutValue(name, what string, v vm.Value) (time.Duration, error) {
	if !v.IsValid() || v.IsNil() {
		return -1, nil
	}
	d, ok := lib.WaitDuration(v)
	if !ok || d < 0 {
		return 0, vm.Throwf("%s: %s must be a non-negative duration or number of milliseconds, got %s", name, what, lib.Display(v))
	}
	return d, nil
}

// nonEmptyString reads a required non-empty string argument.
func nonEmptyString(name, what string, v vm.Value) (string, error) {
	s, ok := v.AsString()
	if !ok || s.Go() == "" {
		if ok {
			return "", vm.Throwf("%s: %s must be a non-empty string", name, what)
		}
		return "", vm.Throwf("%s: %s must be a non-empty string, got %s", name, what, v.Type())
	}
	return s.Go(), nil
}

// durationText shows a timeout in messages: 50ms, 2s, 1m30s.
func durationText(d time.Duration) string { return d.String() }

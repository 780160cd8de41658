package process

import (
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// pipeline_on_finish (docs/spec/newer.md §2.20): callbacks that run when the entry
// pipeline or `main` finishes; each receives (harness, result) and its
// return value replaces the program result, and so the exit status.

func init() {
	lib.Def("pipeline_on_finish", "pipeline_on_finish(cb)", "run cb(harness, result) when the program finishes; its return value replaces the result", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		cb, ok := a.Callable(0)
		if !ok {
			return vm.Value{}, vm.Typef("pipeline_on_finish: expected a callable, got %s", a.At(0).Type())
		}
		h := finishHooksOf(th.VM())
		h.mu.Lock()
		h.cbs = append(h.cbs, cb)
		h.mu.Unlock()
		return vm.Nil, nil
	})
}

type finishHooks struct {
	mu  sync.Mutex
	cbs []vm.Value
}

type finishKey struct{}

func finishHooksOf(v *vm.VM) *finishHooks {
	return v.Local(finishKey{}, func() any { return &finishHooks{} }).(*finishHooks)
}

// Finish runs the pipeline_on_finish callbacks in registration order,
// threading the program result through them. Hosts call it once the
// entry module returned.
func Finish(th *vm.Thread, result vm.Value) (vm.Value, error) {
	h := finishHooksOf(th.VM())
	h.mu.Lock()
	cbs := h.cbs
	h.cbs = nil
	h.mu.Unlock()
	if len(cbs) == 0 {
		return result, nil
	}
	harness, ok := th.VM().Universe.Global("harness")
	if !ok {
		harness = vm.Nil
	}
	for _, cb := range cbs {
		v, err := th.CallPlain(cb, []vm.Value{harness, result})
		if err != nil {
			return vm.Value{}, err
		}
		result = v
	}
	return result, nil
}

// Unsettled is the work a run has started and not settled, the counts of
// std/lifecycle.unsettled_state (docs/spec/newer.md §2.20).
type Unsettled struct {
	Suspended int64 // spawned agents running a turn or stopped (daemon_stop)
	Queued    int64 // inputs queued for spawned agents and daemons
	Partial   int64 // handoffs begun and not finished (none: handoff is one call)
	InFlight  int64 // LLM calls begun and not answered
}

// unsettledSources add the unsettled work of their library area; the
// areas register them at init, so the lite build, which has none of
// them, reports zeros.
var unsettledSources []func(v *vm.VM, u *Unsettled)

// AddUnsettledSource registers f as the reporter of one area's unsettled
// work. Call it from init.
func AddUnsettledSource(f func(v *vm.VM, u *Unsettled)) {
	unsettledSources = append(unsettledSources, f)
}

func init() {
	lib.Def("__unsettled_state", "__unsettled_state()", "the run's unsettled work {suspended, queued, partial, in_flight} (std/lifecycle.unsettled_state)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return unsettledState(th), nil
	})
	// The harness root carries the pipeline-lifecycle method too
	// (docs/spec/language.md §5.4), the same counts.
	lib.Method("Harness", "unsettled_state", "harness.unsettled_state()", "the run's unsettled work {suspended, queued, partial, in_flight}, as std/lifecycle.unsettled_state", func(th *vm.Thread, _ vm.Value, _ vm.Args) (vm.Value, error) {
		return unsettledState(th), nil
	})
}

// unsettledState is the {suspended, queued, partial, in_flight} dict of
// the run's unsettled work.
func unsettledState(th *vm.Thread) vm.Value {
	var u Unsettled
	for _, f := range unsettledSources {
		f(th.VM(), &u)
	}
	return vm.Of(lib.DictOf("suspended", vm.IntOf(u.Suspended), "queued", vm.IntOf(u.Queued),
		"partial", vm.IntOf(u.Partial), "in_flight", vm.IntOf(u.InFlight)))
}

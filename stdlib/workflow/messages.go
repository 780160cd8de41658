package workflow

// Messages to running workflows (docs/workflow.md, "Messages"): the
// `workflow` namespace of docs/spec/builtins.md §5 — signal, query,
// publish_query, update, receive, respond_update, pause, resume, status
// and continue_as_new. A run of workflow_execute has an id; other tasks
// signal it, send it updates and wait for their answers, read the queries
// it publishes, and pause and resume it between nodes.

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// maxInbox bounds the messages waiting for a run; a signal or update
// beyond it is refused rather than queued without end.
const maxInbox = 10000

// Run statuses.
const (
	statusRunning   = "running"
	statusPaused    = "paused"
	statusCompleted = "completed"
	statusFailed    = "failed"
)

// handle is what other tasks see of one workflow run, by id. Every change
// closes and replaces changed, which wakes whoever waits on the run.
type handle struct {
	id        string
	mu        sync.Mutex
	changed   chan struct{}
	status    string
	pause     bool // asked to pause before its next node
	node      string
	steps     int64
	continues int64
	inbox     []vm.Value
	queries   map[string]vm.Value
	answers   map[int64]vm.Value // update id → its answer
	waiting   map[int64]bool     // updates sent and not yet answered
	ended     int64              // when it finished, in finish order (0: running)
}

// broadcast wakes the waiters of h; the caller holds h.mu.
func (h *handle) broadcast() {
	vm.RawWake()
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *handle) finished() bool { return h.status == statusCompleted || h.status == statusFailed }

type directoryKey struct{}

// directory is the VM's workflow runs by id, finished ones included (so
// their status and queries stay readable), and the counters for ids.
type directory struct {
	mu      sync.Mutex
	byID    map[string]*handle
	runs    int64
	updates int64
	ends    atomic.Int64 // finish order
}

// keepFinished is how many finished runs stay readable (status, query);
// beyond it the earliest finished are forgotten.
const keepFinished = 1000

func directoryOf(th *vm.Thread) *directory {
	return th.VM().Local(directoryKey{}, func() any { return &directory{byID: map[string]*handle{}} }).(*directory)
}

// open registers a run under id ("" makes one up); an id still running is
// an error.
func (d *directory) open(fn, id string) (*handle, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.runs++
	if id == "" {
		id = fmt.Sprintf("workflow-%d", d.runs)
	}
	if old, ok := d.byID[id]; ok {
		old.mu.Lock()
		done := old.finished()
		old.mu.Unlock()
		if !done {
			return nil, vm.Runtimef("%s: a workflow with id %q is already running", fn, id)
		}
	}
	h := &handle{id: id, changed: make(chan struct{}), status: statusRunning, queries: map[string]vm.Value{}, answers: map[int64]vm.Value{}, waiting: map[int64]bool{}}
	d.byID[id] = h
	d.prune()
	return h, nil
}

// prune forgets the earliest finished runs beyond keepFinished; the
// caller holds d.mu.
func (d *directory) prune() {
	if len(d.byID) <= 2*keepFinished {
		return
	}
	type done struct {
		id    string
		ended int64
	}
	var finished []done
	for id, h := range d.byID {
		h.mu.Lock()
		if h.ended > 0 {
			finished = append(finished, done{id, h.ended})
		}
		h.mu.Unlock()
	}
	if len(finished) <= keepFinished {
		return
	}
	sort.Slice(finished, func(i, j int) bool { return finished[i].ended < finished[j].ended })
	for _, f := range finished[:len(finished)-keepFinished] {
		delete(d.byID, f.id)
	}
}

// lookup finds the run id names.
func (d *directory) lookup(fn string, a vm.Args, i int) (*handle, error) {
	id, err := strArg(fn, a, i, "id")
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	h, ok := d.byID[id]
	d.mu.Unlock()
	if !ok {
		return nil, vm.Throwf("%s: no workflow with id %q", fn, id)
	}
	return h, nil
}

// finish records how the run ended and wakes everyone waiting on it.
func (h *handle) finish(d *directory, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = d.ends.Add(1)
	h.status = statusCompleted
	if err != nil {
		h.status = statusFailed
	}
	h.node = ""
	h.broadcast()
}

// enter marks the node the run is about to execute and waits there while
// the run is paused.
func (h *handle) enter(th *vm.Thread, node string, steps, continues int64) error {
	h.mu.Lock()
	h.node, h.steps, h.continues = node, steps, continues
	for h.pause {
		h.status = statusPaused
		wake := h.changed
		h.mu.Unlock()
		if _, err := th.WaitOnThreads(wake, -1); err != nil {
			return err
		}
		h.mu.Lock()
	}
	h.status = statusRunning
	h.mu.Unlock()
	return nil
}

// deliver queues a message for the run.
func (h *handle) deliver(fn string, msg vm.Value) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.finished() {
		return vm.Throwf("%s: the workflow %q has %s", fn, h.id, h.status)
	}
	if len(h.inbox) >= maxInbox {
		return vm.Throwf("%s: the workflow %q has %d messages waiting; it is not receiving them", fn, h.id, maxInbox)
	}
	h.inbox = append(h.inbox, msg)
	h.broadcast()
	return nil
}

// statusValue is workflow.status's answer.
func (h *handle) statusValue() vm.Value {
	h.mu.Lock()
	defer h.mu.Unlock()
	status := h.status
	if h.pause && status == statusRunning {
		status = "pausing"
	}
	node := vm.Nil
	if h.node != "" {
		node = vm.Str(h.node)
	}
	names := make([]string, 0, len(h.queries))
	for n := range h.queries {
		names = append(names, n)
	}
	sort.Strings(names)
	return vm.Of(lib.DictOf("id", vm.Str(h.id), "status", vm.Str(status), "node", node,
		"steps", vm.IntOf(h.steps), "continues", vm.IntOf(h.continues),
		"pending_messages", lib.IntOf(len(h.inbox)), "queries", strList(names)))
}

// currentHandle is the run whose node is executing on th.
func currentHandle(fn string, th *vm.Thread) (*handle, error) {
	r := runsOf(th).current(th)
	if r == nil || r.h == nil {
		return nil, vm.Runtimef("%s: called outside a running workflow (call it from a node of workflow_execute)", fn)
	}
	return r.h, nil
}

// timeoutArg reads an optional wait bound: nil or absent waits without one.
func timeoutArg(fn string, a vm.Args, i int) (time.Duration, error) {
	if !a.Given(i) || a.At(i).IsNil() {
		return -1, nil
	}
	d, ok := lib.WaitDuration(a.At(i))
	if !ok {
		return 0, vm.Typef("%s: timeout must be a duration, got %s", fn, a.At(i).Type())
	}
	return max(d, 0), nil
}

// awaitChange, called with h.mu held, releases it and waits until h
// changes or the deadline passes (zero: none); passed reports that the
// deadline is over.
func (h *handle) awaitChange(th *vm.Thread, deadline time.Time) (passed bool, err error) {
	wake := h.changed
	h.mu.Unlock()
	timeout := time.Duration(-1)
	if !deadline.IsZero() {
		if timeout = time.Until(deadline); timeout <= 0 {
			return true, nil
		}
	}
	fired, err := th.WaitOnThreads(wake, timeout)
	if err != nil {
		return false, err
	}
	return !fired && !deadline.IsZero() && !time.Now().Before(deadline), nil
}

func deadlineOf(timeout time.Duration) time.Time {
	if timeout < 0 {
		return time.Time{}
	}
	return time.Now().Add(timeout)
}

func message(kind, name string, payload vm.Value, update int64) vm.Value {
	b := vm.NewDictBuilder(4)
	b.Set("kind", vm.Str(kind))
	b.Set("name", vm.Str(name))
	b.Set("payload", payload)
	if update > 0 {
		b.Set("update_id", vm.IntOf(update))
	}
	return vm.Of(b.Build())
}

func optional(a vm.Args, i int) vm.Value {
	if a.Has(i) {
		return a.At(i)
	}
	return vm.Nil
}

func init() {
	var members []*vm.Builtin
	op := func(name, sig, doc string, fn vm.BuiltinFunc) {
		members = append(members, vm.NewBuiltin("workflow."+name, sig, doc, fn))
	}
	op("signal", "workflow.signal(id: string, name: string, payload?) -> bool",
		"queue the signal {kind: \"signal\", name, payload} for the running workflow id; true",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow.signal"
			h, name, err := workflowAndName(th, fn, a)
			if err != nil {
				return vm.Value{}, err
			}
			if err := h.deliver(fn, message("signal", name, optional(a, 2), 0)); err != nil {
				return vm.Value{}, err
			}
			return vm.True, nil
		})
	op("update", "workflow.update(id: string, name: string, payload?, timeout?)",
		"send the update {kind: \"update\", name, payload, update_id} to the running workflow id and wait for its respond_update answer (an error when the run ends first or the timeout passes)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow.update"
			name, err := strArg(fn, a, 1, "name")
			if err != nil {
				return vm.Value{}, err
			}
			timeout, err := timeoutArg(fn, a, 3)
			if err != nil {
				return vm.Value{}, err
			}
			dir := directoryOf(th)
			h, err := dir.lookup(fn, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			dir.mu.Lock()
			dir.updates++
			uid := dir.updates
			dir.mu.Unlock()
			h.mu.Lock()
			h.waiting[uid] = true
			h.mu.Unlock()
			defer func() {
				h.mu.Lock()
				delete(h.waiting, uid)
				delete(h.answers, uid)
				h.mu.Unlock()
			}()
			if err := h.deliver(fn, message("update", name, optional(a, 2), uid)); err != nil {
				return vm.Value{}, err
			}
			deadline := deadlineOf(timeout)
			for {
				h.mu.Lock()
				if v, ok := h.answers[uid]; ok {
					h.mu.Unlock()
					return v, nil
				}
				if h.finished() {
					status := h.status
					h.mu.Unlock()
					return vm.Value{}, vm.Throwf("%s: the workflow %q %s without answering update %d (%s)", fn, h.id, status, uid, name)
				}
				passed, err := h.awaitChange(th, deadline)
				if err != nil {
					return vm.Value{}, err
				}
				if passed {
					return vm.Value{}, vm.Throwf("%s: the workflow %q did not answer update %d (%s) in time", fn, h.id, uid, name)
				}
			}
		})
	op("receive", "workflow.receive(name?: string, timeout?) -> dict?",
		"inside a workflow node: the next signal or update sent to this run (only those called name when given), waiting for one; nil when the timeout passes",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow.receive"
			h, err := currentHandle(fn, th)
			if err != nil {
				return vm.Value{}, err
			}
			want := ""
			if a.Given(0) && !a.At(0).IsNil() {
				if want, err = strArg(fn, a, 0, "name"); err != nil {
					return vm.Value{}, err
				}
			}
			timeout, err := timeoutArg(fn, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			deadline := deadlineOf(timeout)
			for {
				h.mu.Lock()
				i := slices.IndexFunc(h.inbox, func(m vm.Value) bool {
					if want == "" {
						return true
					}
					d, _ := m.AsDict()
					n, _ := str(lib.Get(d, "name"))
					return n == want
				})
				if i >= 0 {
					m := h.inbox[i]
					h.inbox = slices.Delete(h.inbox, i, i+1)
					h.mu.Unlock()
					return m, nil
				}
				passed, err := h.awaitChange(th, deadline)
				if err != nil {
					return vm.Value{}, err
				}
				if passed {
					return vm.Nil, nil
				}
			}
		})
	op("respond_update", "workflow.respond_update(update_id: int, result) -> bool",
		"inside a workflow node: answer the update update_id (from workflow.receive) with result; true",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow.respond_update"
			h, err := currentHandle(fn, th)
			if err != nil {
				return vm.Value{}, err
			}
			uid, ok := a.At(0).AsInt()
			if !ok || a.At(0).Type() != "int" {
				return vm.Value{}, vm.Typef("%s: update_id must be an int, got %s", fn, a.At(0).Type())
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if !h.waiting[int64(uid)] {
				return vm.Value{}, vm.Throwf("%s: no update %d is waiting for an answer from the workflow %q", fn, uid, h.id)
			}
			if _, done := h.answers[int64(uid)]; done {
				return vm.Value{}, vm.Throwf("%s: update %d was already answered", fn, uid)
			}
			h.answers[int64(uid)] = optional(a, 1)
			h.broadcast()
			return vm.True, nil
		})
	op("publish_query", "workflow.publish_query(name: string, value)",
		"inside a workflow node: make value the answer of workflow.query(id, name) from now on; returns value",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow.publish_query"
			h, err := currentHandle(fn, th)
			if err != nil {
				return vm.Value{}, err
			}
			name, err := strArg(fn, a, 0, "name")
			if err != nil {
				return vm.Value{}, err
			}
			v := optional(a, 1)
			h.mu.Lock()
			h.queries[name] = v
			h.mu.Unlock()
			return v, nil
		})
	op("query", "workflow.query(id: string, name: string)",
		"the value the workflow id last published under name (nil before it publishes one), also after the run ended",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow.query"
			h, name, err := workflowAndName(th, fn, a)
			if err != nil {
				return vm.Value{}, err
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if v, ok := h.queries[name]; ok {
				return v, nil
			}
			return vm.Nil, nil
		})
	op("pause", "workflow.pause(id: string) -> bool",
		"ask the running workflow id to stop before its next node until workflow.resume; true",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if _, err := setPause(th, "workflow.pause", a, true); err != nil {
				return vm.Value{}, err
			}
			return vm.True, nil
		})
	op("resume", "workflow.resume(id: string) -> bool",
		"let a paused (or pausing) workflow id go on; whether it was paused",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			was, err := setPause(th, "workflow.resume", a, false)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.BoolOf(was), nil
		})
	op("status", "workflow.status(id?: string) -> dict",
		"{id, status: running/pausing/paused/completed/failed, node, steps, continues, pending_messages, queries} of the workflow id, or of the run whose node calls it",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow.status"
			if !a.Given(0) || a.At(0).IsNil() {
				h, err := currentHandle(fn, th)
				if err != nil {
					return vm.Value{}, err
				}
				return h.statusValue(), nil
			}
			h, err := directoryOf(th).lookup(fn, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			return h.statusValue(), nil
		})
	op("continue_as_new", "workflow.continue_as_new(input)",
		"continue_as_new: inside a workflow node, end the current run and start again from the entry with input",
		continueAsNew)
	lib.Namespace("workflow", members)
}

// workflowAndName reads the arguments (id: string, name: string, …) of
// fn: the name, then the running workflow id.
func workflowAndName(th *vm.Thread, fn string, a vm.Args) (*handle, string, error) {
	name, err := strArg(fn, a, 1, "name")
	if err != nil {
		return nil, "", err
	}
	h, err := directoryOf(th).lookup(fn, a, 0)
	return h, name, err
}

// setPause asks the running workflow named by argument 0 of fn to stop
// before its next node (pause) or to go on; was is whether it was
// pausing.
func setPause(th *vm.Thread, fn string, a vm.Args, pause bool) (was bool, err error) {
	h, err := directoryOf(th).lookup(fn, a, 0)
	if err != nil {
		return false, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.finished() {
		return false, vm.Throwf("%s: the workflow %q has %s", fn, h.id, h.status)
	}
	was = h.pause
	h.pause = pause
	h.broadcast()
	return was, nil
}

package concurrency

import (
	"slices"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Supervisors (docs/spec/builtins.md §5): run child callables as tasks and restart
// them by policy. A child's restart policy is "permanent" (restart after
// any exit), "transient" (restart after a failure; the default) or
// "temporary" (never restart); at most max_restarts restarts per child
// (default 3). supervisor_stop cancels the running children and waits for
// them, so the state it returns is final.

func init() {
	lib.Def("supervisor_start", "supervisor_start(children: list | dict, options?: dict | nil)", "run [{name, run, restart?}] as supervised tasks; options {name, max_restarts}; or one dict {children, name?, max_restarts?}", supervisorStart)
	lib.Def("supervisor_state", "supervisor_state(sup) -> dict", "{name, status, children: [{name, status, restarts}]}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := supArg("supervisor_state", a)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(s.state()), nil
	})
	lib.Def("supervisor_events", "supervisor_events(sup) -> list<dict>", "the {child, event, error?} events so far (started, restarted, completed, failed, stopped)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := supArg("supervisor_events", a)
		if err != nil {
			return vm.Value{}, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return vm.Of(lib.List(lib.CopyItems(s.events))), nil
	})
	lib.Def("supervisor_metrics", "supervisor_metrics(sup) -> dict", "{children, running, restarts, failures}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := supArg("supervisor_metrics", a)
		if err != nil {
			return vm.Value{}, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		running, restarts, failures := 0, 0, 0
		for _, c := range s.children {
			if c.status == "running" {
				running++
			}
			restarts += c.restarts
			failures += c.failures
		}
		return vm.Of(lib.DictOf("children", lib.IntOf(len(s.children)), "running", lib.IntOf(running),
			"restarts", lib.IntOf(restarts), "failures", lib.IntOf(failures))), nil
	})
	lib.Def("supervisor_wait", "supervisor_wait(sup) -> dict", "wait until no child is running (each completed, failed or stopped) and return the state", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := supArg("supervisor_wait", a)
		if err != nil {
			return vm.Value{}, err
		}
		for {
			s.mu.Lock()
			var t *Task
			for _, c := range s.children {
				if c.status == "running" && c.task != nil {
					t = c.task
					break
				}
			}
			s.mu.Unlock()
			if t == nil {
				return vm.Of(s.state()), nil
			}
			// The wait is a join (docs/concurrency.md, Deadlocks): when the
			// children all wait forever, their waits fail first, so each
			// child fails with the deadlock error and is restarted or
			// marked failed by its policy, like any other failure; the
			// wait itself fails only if it still cannot end.
			select {
			case <-t.Done():
			default:
				if _, err := th.WaitOnTasks(t.Done(), -1); err != nil {
					return vm.Value{}, err
				}
			}
		}
	})
	lib.Def("supervisor_stop", "supervisor_stop(sup) -> dict", "cancel the running children, wait for them, and return the final state", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := supArg("supervisor_stop", a)
		if err != nil {
			return vm.Value{}, err
		}
		s.mu.Lock()
		s.stopping = true
		var running []*Task
		for _, c := range s.children {
			if c.task != nil && c.status == "running" {
				running = append(running, c.task)
			}
		}
		s.mu.Unlock()
		for _, t := range running {
			t.Cancel()
		}
		for _, t := range running {
			select {
			case <-t.Done():
			default:
				if _, err := th.Wait(t.Done(), -1); err != nil {
					return vm.Value{}, err
				}
			}
		}
		return vm.Of(s.state()), nil
	})
}

// Supervisor is a supervisor handle (`<supervisor:NAME>`).
type Supervisor struct {
	name        string
	owner       *vm.Thread
	maxRestarts int

	mu       sync.Mutex
	children []*supChild
	events   []vm.Value
	stopping bool
}

type supChild struct {
	name, restart string
	run           vm.Value
	status        string // running, completed, failed, stopped
	restarts      int
	failures      int
	task          *Task
}

func (*Supervisor) Type() string { return "supervisor" }
func (*Supervisor) Truth() bool  { return true }
func (s *Supervisor) Display(sb *strings.Builder) {
	sb.WriteString("<supervisor:")
	sb.WriteString(s.name)
	sb.WriteByte('>')
}

// EqualTo: a supervisor equals only itself.
func (s *Supervisor) EqualTo(o vm.Value) bool { t, ok := o.Object().(*Supervisor); return ok && s == t }

func supArg(name string, a vm.Args) (*Supervisor, error) {
	s, ok := a.At(0).Object().(*Supervisor)
	if !ok {
		return nil, vm.Typef("%s: expected a supervisor, got %s", name, a.At(0).Type())
	}
	return s, nil
}

// specArgs turns the one-dict form `supervisor_start({children: […],
// name, max_restarts})` into the arguments of the two-argument form
// (children, options).
func specArgs(a vm.Args) vm.Args {
	d, ok := a.Dict(0)
	if !ok || a.Len() > 1 {
		return a
	}
	children, ok := d.Get("children")
	if !ok {
		return a
	}
	return vm.Args{children, a.At(0)}
}

func supervisorStart(th *vm.Thread, a vm.Args) (vm.Value, error) {
	a = specArgs(a)
	l, ok := a.List(0)
	if !ok {
		if d, isDict := a.Dict(0); isDict { // the one-dict form without `children`
			if err := misspeltOption(d); err != nil {
				return vm.Value{}, err
			}
		}
		return vm.Value{}, vm.Typef("supervisor_start: children must be a list, got %s", a.At(0).Type())
	}
	s := &Supervisor{name: "supervisor", owner: th, maxRestarts: 3}
	if o := a.At(1); !o.IsNil() && o.Type() != "dict" {
		return vm.Value{}, lib.BadOptions("supervisor_start", o)
	}
	if opts, ok := a.Dict(1); ok {
		if err := misspeltOption(opts); err != nil {
			return vm.Value{}, err
		}
		if n, ok := opts.Get("name"); ok && !n.IsNil() {
			s.name = vm.ToDisplay(n)
		}
		if m, ok := opts.Get("max_restarts"); ok && !m.IsNil() {
			n, isInt := m.AsInt()
			if !isInt || n < 0 {
				return vm.Value{}, vm.Typef("supervisor_start: max_restarts must be a non-negative int, got %s", positiveIntGot(m))
			}
			s.maxRestarts = int(n)
		}
	}
	for i, it := range l.Items() {
		d, ok := it.AsDict()
		if !ok {
			return vm.Value{}, vm.Typef("supervisor_start: child %d must be a dict {name, run, restart?}, got %s", i, it.Type())
		}
		run, _ := d.Get("run")
		if !run.IsValid() || !vm.IsCallable(run) {
			return vm.Value{}, vm.Typef("supervisor_start: child %d needs a callable run, got %s", i, run.Type())
		}
		if err := misspeltKey(d, "supervisor_start: child "+itoa(i)+" has an unknown key %q%s", "name", "run", "restart"); err != nil {
			return vm.Value{}, err
		}
		c := &supChild{name: lib.TextOr(vm.Args{lib.Get(d, "name")}, 0, ""), restart: "transient", run: run}
		if c.name == "" || c.name == "nil" {
			c.name = "child" + itoa(i)
		}
		if r, ok := d.Get("restart"); ok && !r.IsNil() {
			switch vm.ToDisplay(r) {
			case "permanent", "transient", "temporary":
				c.restart = vm.ToDisplay(r)
			default:
				return vm.Value{}, vm.Typef(`supervisor_start: restart must be "permanent", "transient" or "temporary", got %s`, choiceGot(vm.Args{r}, 0))
			}
		}
		s.children = append(s.children, c)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.children {
		s.launch(c, "started")
	}
	return vm.Of(s), nil
}

// misspeltOption refuses a key of supervisor_start's options d that is
// a near miss of a known one, in the one wording of unknown options
// (lib.CheckOptions).
func misspeltOption(d *vm.Dict) error {
	known := []string{"name", "max_restarts", "children"}
	if k, _ := nearMiss(d, known); k != "" {
		return lib.CheckOptions("supervisor_start", lib.DictOf(k, vm.Nil), known)
	}
	return nil
}

// misspeltKey refuses a key of a child dict d that is a near miss of
// one of known (`restrat`), worded by format from the key and the hint.
func misspeltKey(d *vm.Dict, format string, known ...string) error {
	if k, hint := nearMiss(d, known); k != "" {
		return vm.Typef(format, k, hint)
	}
	return nil
}

// nearMiss is the first key of d that is not one of known but close to
// one (`max_restart`, `restrat`), with its did-you-mean hint: it would be
// ignored and the supervisor would run with the default instead. Keys
// unlike any known one are left alone, as extra keys of a dict argument
// are elsewhere (docs/concurrency.md).
func nearMiss(d *vm.Dict, known []string) (key, hint string) {
	for _, k := range d.Keys() {
		if slices.Contains(known, k) {
			continue
		}
		if hint := lib.DidYouMean(k, known); hint != "" {
			return k, hint
		}
	}
	return "", ""
}

func itoa(i int) string { return vm.ToDisplay(vm.IntOf(int64(i))) }

// launch starts c (s.mu held) and records event.
func (s *Supervisor) launch(c *supChild, event string) {
	c.status = "running"
	s.events = append(s.events, vm.Of(lib.DictOf("child", vm.Str(c.name), "event", vm.Str(event))))
	c.task = spawnTask(s.owner, c.run, nil, func(t *Task) { s.exited(c, t) })
}

// exited runs on the child's thread when its task ends.
func (s *Supervisor) exited(c *supChild, t *Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	failed := t.err != nil && t.err.Kind != vm.KindCancelled
	switch {
	case s.stopping || (t.err != nil && t.err.Kind == vm.KindCancelled):
		c.status = "stopped"
		s.events = append(s.events, vm.Of(lib.DictOf("child", vm.Str(c.name), "event", vm.Str("stopped"))))
		return
	case failed:
		c.failures++
		s.events = append(s.events, vm.Of(lib.DictOf("child", vm.Str(c.name), "event", vm.Str("failed"), "error", vm.Str(vm.ToDisplay(t.err.Caught())))))
	default:
		s.events = append(s.events, vm.Of(lib.DictOf("child", vm.Str(c.name), "event", vm.Str("completed"))))
	}
	again := c.restart == "permanent" || (c.restart == "transient" && failed)
	if again && c.restarts < s.maxRestarts {
		c.restarts++
		s.launch(c, "restarted")
		return
	}
	if failed {
		c.status = "failed"
	} else {
		c.status = "completed"
	}
}

func (s *Supervisor) state() *vm.Dict {
	s.mu.Lock()
	defer s.mu.Unlock()
	status := "completed"
	var kids []vm.Value
	anyRunning, anyFailed, anyStopped := false, false, false
	for _, c := range s.children {
		kids = append(kids, vm.Of(lib.DictOf("name", vm.Str(c.name), "status", vm.Str(c.status), "restarts", lib.IntOf(c.restarts))))
		anyRunning = anyRunning || c.status == "running"
		anyFailed = anyFailed || c.status == "failed"
		anyStopped = anyStopped || c.status == "stopped"
	}
	switch {
	case s.stopping:
		status = "stopped"
	case anyRunning:
		status = "running"
	case anyFailed:
		status = "failed"
	case anyStopped: // cancelled with the task that started the supervisor
		status = "stopped"
	}
	return lib.DictOf("name", vm.Str(s.name), "status", vm.Str(status), "children", lib.List(kids))
}

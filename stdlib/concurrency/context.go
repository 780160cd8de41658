package concurrency

import (
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The runtime context (docs/spec/builtins.md §5): which task is running, and
// the context values of the running code. Each task has its own values: a
// spawned task (a `parallel` branch too) starts with a copy of its
// spawner's, and what it sets or clears stays its own; the main thread
// (and a host's) uses the program's. Dicts are immutable, so the copy is
// the spawner's dict itself.

type contextState struct {
	mu     sync.Mutex
	values *vm.Dict // the main thread's
}

type contextKey struct{}

func contextOf(v *vm.VM) *contextState {
	return v.Local(contextKey{}, func() any { return &contextState{values: vm.NewDict()} }).(*contextState)
}

// valuesOf is the context values of the code th runs. c.mu is held.
func (c *contextState) valuesOf(th *vm.Thread) *vm.Dict {
	if t := currentTask(th); t != nil {
		if t.context == nil {
			return vm.NewDict() // spawned before the program had any
		}
		return t.context
	}
	return c.values
}

// setValues replaces the context values of the code th runs. c.mu is held.
func (c *contextState) setValues(th *vm.Thread, d *vm.Dict) {
	if t := currentTask(th); t != nil {
		t.context = d
		return
	}
	c.values = d
}

// inheritContext gives t, spawned by th, a copy of th's context values
// (none while the program has used no context builtin).
func (t *Task) inheritContext(th *vm.Thread) {
	c, ok := th.VM().Local(contextKey{}, nil).(*contextState)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.context = c.valuesOf(th)
}

// currentTask is the task th runs for, or nil on the main thread.
func currentTask(th *vm.Thread) *Task {
	for t := th; t != nil; t = t.Lender() {
		if task, ok := t.Task.(*Task); ok {
			return task
		}
	}
	return nil
}

func init() {
	lib.Def("task_current", "task_current()", "the handle of the running task, or nil on the main thread", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if t := currentTask(th); t != nil {
			return vm.Of(t), nil
		}
		return vm.Nil, nil
	})
	lib.Def("runtime_context", "runtime_context() -> dict", "{task_id, in_task, values}: where the code runs and the context values", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var id vm.Value = vm.Nil
		t := currentTask(th)
		if t != nil {
			id = vm.IntOf(t.ID())
		}
		c := contextOf(th.VM())
		c.mu.Lock()
		defer c.mu.Unlock()
		return vm.Of(lib.DictOf("task_id", id, "in_task", vm.BoolOf(t != nil), "values", c.valuesOf(th))), nil
	})
	lib.Def("runtime_context_values", "runtime_context_values() -> dict", "the context values as a dict", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c := contextOf(th.VM())
		c.mu.Lock()
		defer c.mu.Unlock()
		return vm.Of(c.valuesOf(th)), nil
	})
	lib.Def("runtime_context_get", "runtime_context_get(key: string, default = nil)", "the context value at key, or default", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		key, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("runtime_context_get: key must be a string, got %s", a.At(0).Type())
		}
		c := contextOf(th.VM())
		c.mu.Lock()
		defer c.mu.Unlock()
		if v, ok := c.valuesOf(th).Get(key); ok {
			return v, nil
		}
		return a.At(1), nil
	})
	lib.Def("runtime_context_set", "runtime_context_set(key: string, value)", "set a context value; returns the previous one (nil when none)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		key, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("runtime_context_set: key must be a string, got %s", a.At(0).Type())
		}
		c := contextOf(th.VM())
		c.mu.Lock()
		defer c.mu.Unlock()
		values := c.valuesOf(th)
		old, had := values.Get(key)
		if !had {
			old = vm.Nil
		}
		c.setValues(th, values.Set(key, a.At(1)))
		return old, nil
	})
	lib.Def("runtime_context_clear", "runtime_context_clear(key?: string)", "remove one context value, or all of them", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		// An explicit nil (a missing key: runtime_context_clear(cfg.key))
		// is refused rather than read as "clear everything".
		key, ok := a.Str(0)
		if a.Len() > 0 && !ok {
			return vm.Value{}, vm.Typef("runtime_context_clear: key must be a string, got %s", a.At(0).Type())
		}
		c := contextOf(th.VM())
		c.mu.Lock()
		defer c.mu.Unlock()
		if a.Len() > 0 {
			c.setValues(th, c.valuesOf(th).Delete(key))
		} else {
			c.setValues(th, vm.NewDict())
		}
		return vm.Nil, nil
	})
}

package concurrency

import "github.com/harnlang/harn/vm"

// State a task inherits from the code that spawned it, for other areas
// (tracing: the span open where a task was spawned is its first span's
// parent). Each area registers, at init, a snapshot taken on the
// spawner's thread when a task is spawned; the task reads it back with
// Inherited.

var inheritors []func(spawner *vm.Thread) any

// InheritOnSpawn registers snap, run on the spawner's thread (holding the
// VM lock) for every spawned task and parallel branch, and returns the
// slot Inherited reads its result from. Call it only from init.
func InheritOnSpawn(snap func(spawner *vm.Thread) any) int {
	inheritors = append(inheritors, snap)
	return len(inheritors) - 1
}

// inherit takes the snapshots for t, spawned by th; a task that inherits
// nothing keeps no slice.
func (t *Task) inherit(th *vm.Thread) {
	for i, snap := range inheritors {
		if v := snap(th); v != nil {
			if t.inherited == nil {
				t.inherited = make([]any, len(inheritors))
			}
			t.inherited[i] = v
		}
	}
}

// Inherited is the snapshot in slot taken when the task th runs for was
// spawned; nil on the main thread or when the snapshot was nil.
func Inherited(th *vm.Thread, slot int) any {
	if t := currentTask(th); t != nil && t.inherited != nil {
		return t.inherited[slot]
	}
	return nil
}

// TaskOf is the task th runs for (a generator's body runs for its
// consumer's), or nil on the main thread.
func TaskOf(th *vm.Thread) *Task { return currentTask(th) }

package store

// The internals of std/agent_state (docs/agents.md, "Agent state"): a
// key/value scratchpad per agent session, persisted as the JSON document
// <root>/<session>.json (root: <state root>/agent_state unless given), so
// a later run resumes it. A handle is the dict {_type: "agent_state",
// session, path}; every call reads the file, a change rewrites it.

import (
	"path/filepath"
	"slices"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

const agentStateType = "agent_state"

// agentStateFile is the path of the state a handle names.
func agentStateFile(fn string, v vm.Value) (string, error) {
	h, ok := v.AsDict()
	if ok {
		t, _ := h.Get("_type")
		p, _ := h.Get("path")
		if s, isStr := p.AsString(); vm.ToDisplay(t) == agentStateType && isStr && s.Go() != "" {
			return s.Go(), nil
		}
	}
	return "", vm.Typef("%s: expected an agent state handle (from agent_state_init or agent_state_resume), got %s", fn, v.Type())
}

// stateKey is the key argument of fn: a non-empty string.
func stateKey(fn string, v vm.Value) (string, error) {
	if s, ok := v.AsString(); ok && s.Go() != "" {
		return s.Go(), nil
	}
	return "", vm.Typef("%s: key must be a non-empty string, got %s", fn, lib.Shown(v))
}

// withState is a builtin that changes or reads the state a handle names,
// as updateDoc does with change, given the call's key argument when key is
// true and its arguments.
func withState(fn string, key bool, change func(d *vm.Dict, key string, a vm.Args) (*vm.Dict, vm.Value, error)) vm.BuiltinFunc {
	return func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		path, err := agentStateFile(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		k := ""
		if key {
			if k, err = stateKey(fn, a.At(1)); err != nil {
				return vm.Value{}, err
			}
		}
		return updateDoc(th, fn, path, func(d *vm.Dict, _ bool) (*vm.Dict, vm.Value, error) { return change(d, k, a) })
	}
}

func init() {
	lib.Def("__agent_state_open", "__agent_state_open(fn, session, root, must_exist)", "the agent state handle of session (std/agent_state.agent_state_init, agent_state_resume)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		fn := a.Text(0)
		session, err := docName(fn, "session id", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		path, err := docPath(th, fn, a.At(2), "agent_state", session)
		if err != nil {
			return vm.Value{}, err
		}
		mustExist := a.At(3).Truth()
		_, err = updateDoc(th, fn, path, func(d *vm.Dict, exists bool) (*vm.Dict, vm.Value, error) {
			switch {
			case exists:
				return nil, vm.Nil, nil
			case mustExist:
				return nil, vm.Nil, vm.Runtimef("%s: session %q has no saved state (%s)", fn, session, path)
			}
			return d, vm.Nil, nil
		})
		if err != nil {
			return vm.Value{}, err
		}
		// session_id and root: upstream's names for the session and the directory
		return vm.Of(lib.DictOf("_type", vm.Str(agentStateType), "session", vm.Str(session), "path", vm.Str(path),
			"session_id", vm.Str(session), "root", vm.Str(filepath.Dir(path)))), nil
	})
	lib.Def("__agent_state_read", "__agent_state_read(state, key, default?)", "the value stored under key, else default (std/agent_state.agent_state_read)",
		withState("agent_state_read", true, func(d *vm.Dict, key string, a vm.Args) (*vm.Dict, vm.Value, error) {
			if v, ok := d.Get(key); ok {
				return nil, v, nil
			}
			return nil, a.At(2), nil
		}))
	lib.Def("__agent_state_write", "__agent_state_write(state, key, value)", "store a JSON copy of value under key (std/agent_state.agent_state_write)",
		withState("agent_state_write", true, func(d *vm.Dict, key string, a vm.Args) (*vm.Dict, vm.Value, error) {
			return d.Set(key, jsonCopy(a.At(2))), vm.Nil, nil
		}))
	lib.Def("__agent_state_delete", "__agent_state_delete(state, key)", "remove key; whether it was there (std/agent_state.agent_state_delete)",
		withState("agent_state_delete", true, func(d *vm.Dict, key string, _ vm.Args) (*vm.Dict, vm.Value, error) {
			if !d.Has(key) {
				return nil, vm.False, nil
			}
			return d.Delete(key), vm.True, nil
		}))
	lib.Def("__agent_state_list", "__agent_state_list(state)", "the stored keys, sorted (std/agent_state.agent_state_list)",
		withState("agent_state_list", false, func(d *vm.Dict, _ string, _ vm.Args) (*vm.Dict, vm.Value, error) {
			return nil, vm.Of(lib.StrList(slices.Sorted(slices.Values(d.Keys())))), nil
		}))
	lib.Def("__agent_state_snapshot", "__agent_state_snapshot(state)", "every key and value (std/agent_state.agent_state_snapshot)",
		withState("agent_state_snapshot", false, func(d *vm.Dict, _ string, _ vm.Args) (*vm.Dict, vm.Value, error) {
			return nil, vm.Of(d), nil
		}))
	lib.Def("__agent_state_clear", "__agent_state_clear(state)", "remove every key; how many there were (std/agent_state.agent_state_clear)",
		withState("agent_state_clear", false, func(d *vm.Dict, _ string, _ vm.Args) (*vm.Dict, vm.Value, error) {
			return vm.NewDict(), lib.IntOf(d.Len()), nil
		}))
}

package agents

// Spawned agents (docs/agents.md, "Spawned agents"; docs/spec/builtins.md
// §5 names the builtins only). spawn_agent runs agent_loop as a task (the
// spawn machinery of stdlib/concurrency), continuing an agent session of
// its own, so every later input is the next user turn of one
// conversation. An agent is running while its task works through the
// queued inputs, then idle until it gets another one: an idle agent has
// no task, so waiting for it never blocks. Daemons are spawned agents
// started without a prompt that wait for triggered inputs; stopping one
// keeps its session and queue for daemon_resume.

import (
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/concurrency"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/stdlib/transcripts"
	"github.com/harnlang/harn/vm"
)

// handleType is the `_type` of a spawned agent's handle.
const handleType = "agent_handle"

// Statuses of a spawned agent.
const (
	stRunning = "running"
	stIdle    = "idle"
	stFailed  = "failed"
	stStopped = "stopped" // daemon_stop: resumable
	stClosed  = "closed"  // close_agent: for good
)

type spawned struct {
	id      int64
	name    string
	agent   *vm.Dict
	opts    *vm.Dict // agent_loop options of every run (session set)
	session string
	daemon  bool
	status  string
	queue   []vm.Value // prompts (strings) still to run; nil entries resume without a prompt
	task    *concurrency.Task
	result  vm.Value
	err     error
	runs    int
	turns   int64
}

type spawnState struct {
	mu     sync.Mutex
	next   int64
	agents []*spawned
}

type spawnKey struct{}

func spawnsOf(th *vm.Thread) *spawnState { return spawnsOfVM(th.VM()) }

func spawnsOfVM(v *vm.VM) *spawnState {
	return v.Local(spawnKey{}, func() any { return &spawnState{} }).(*spawnState)
}

// std/lifecycle's suspended count is the spawned agents whose work is
// unfinished: running a turn, or stopped by daemon_stop (resumable); its
// queued count is the inputs of open agents not started yet. Idle,
// failed and closed agents are settled.
func init() {
	process.AddUnsettledSource(func(v *vm.VM, u *process.Unsettled) {
		s := spawnsOfVM(v)
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, x := range s.agents {
			if x.status == stRunning || x.status == stStopped {
				u.Suspended++
			}
			if x.status != stClosed {
				u.Queued += int64(len(x.queue))
			}
		}
	})
}

func (x *spawned) handle() vm.Value {
	return vm.Of(lib.DictOf("_type", vm.Str(handleType), "id", vm.IntOf(x.id), "agent", vm.Str(x.name), "session", vm.Str(x.session)))
}

// info is list_agents' record; the caller holds mu.
func (x *spawned) info() *vm.Dict {
	errV := vm.Nil
	if x.err != nil {
		errV = errorValue(x.err)
	}
	return lib.DictOf("id", vm.IntOf(x.id), "agent", vm.Str(x.name), "status", vm.Str(x.status), "session", vm.Str(x.session),
		"daemon", vm.BoolOf(x.daemon), "queued", lib.IntOf(len(x.queue)), "runs", lib.IntOf(x.runs), "turns", vm.IntOf(x.turns), "error", errV)
}

// handleArg finds the spawned agent of a handle (or its id).
func handleArg(th *vm.Thread, fn string, v vm.Value) (*spawned, error) {
	var id int64
	if d, ok := v.AsDict(); ok && vm.ToDisplay(get(d, "_type")) == handleType {
		n, _ := get(d, "id").AsInt()
		id = int64(n)
	} else if n, ok := v.AsInt(); ok {
		id = int64(n)
	} else {
		return nil, vm.Throwf("%s: expected an agent handle (from spawn_agent) or its id, got %s", fn, v.Type())
	}
	s := spawnsOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.agents {
		if x.id == id {
			return x, nil
		}
	}
	return nil, vm.Throwf("%s: no spawned agent %d", fn, id)
}

// spawnOptions are spawn_agent's own option keys; the others are
// agent_loop options given to every run.
var spawnOptions = []string{"session"}

func spawnAgent(th *vm.Thread, fn string, agentV, prompt, optsV vm.Value, daemon bool) (vm.Value, error) {
	var a *vm.Dict
	if d, ok := agentV.AsDict(); ok {
		if isAgent(d) {
			a = d
		} else {
			var err error
			if a, err = newAgent(th, d); err != nil {
				return vm.Value{}, err
			}
		}
	} else {
		return vm.Value{}, vm.Throwf("%s: expected an agent or an agent config dict {name, system?, tools?, …}, got %s", fn, agentV.Type())
	}
	if prompt.IsValid() && !prompt.IsNil() {
		if _, ok := prompt.AsString(); !ok {
			return vm.Value{}, vm.Throwf("%s: prompt must be a string, got %s", fn, prompt.Type())
		}
	}
	opts := vm.NewDict()
	if optsV.IsValid() && !optsV.IsNil() {
		d, ok := optsV.AsDict()
		if !ok {
			return vm.Value{}, lib.BadOptions(fn, optsV)
		}
		for _, k := range []string{"messages", "transcript", "agent"} {
			if d.Has(k) {
				return vm.Value{}, vm.Throwf("%s: options.%s is not accepted: a spawned agent's conversation is its session (options.session)", fn, k)
			}
		}
		if b, _ := get(d, "daemon").AsBool(); bool(b) {
			return vm.Value{}, vm.Throwf("%s: options.daemon is not accepted: a spawned agent already waits for its next input between runs (daemon_spawn starts one without a prompt)", fn)
		}
		opts = d
	}
	// each run finishes, so that the agent takes its next input: an
	// agent value's daemon does not make its spawned runs idle
	opts = opts.Set("daemon", vm.False)
	s := spawnsOf(th)
	s.mu.Lock()
	s.next++
	x := &spawned{id: s.next, name: vm.ToDisplay(get(a, "name")), agent: a, daemon: daemon, status: stIdle, result: vm.Nil}
	s.mu.Unlock()
	madeUp := false // the session id is agent_ID, not the script's
	if v := get(opts, "session"); !v.IsNil() {
		id, err := sessionID(fn, v)
		if err != nil {
			return vm.Value{}, err
		}
		x.session = id
	} else {
		x.session = "agent_" + itoa(x.id)
		madeUp = true
	}
	x.opts = opts.Set("session", vm.Str(x.session))
	// check the options now, as the first run would
	probe := x.opts.Delete("session")
	if _, err := readLoop(th, fn, vm.Str("probe"), vm.Nil, vm.Of(probe), a, 0); err != nil {
		return vm.Value{}, err
	}
	ss := sessionsOf(th)
	ss.mu.Lock()
	if ss.byID[x.session] == nil {
		if n := ss.create(x.session, nil, nil, -1); madeUp {
			n.stream = transcripts.NewID()
		}
	}
	ss.mu.Unlock()
	s.mu.Lock()
	s.agents = append(s.agents, x)
	s.mu.Unlock()
	if prompt.IsValid() && !prompt.IsNil() {
		if err := enqueue(th, fn, x, prompt); err != nil {
			return vm.Value{}, err
		}
	}
	return x.handle(), nil
}

func itoa(n int64) string { return vm.ToDisplay(vm.IntOf(n)) }

// enqueue queues input (a string, or nil to resume the conversation as
// it is) and starts the agent's task when none runs.
func enqueue(th *vm.Thread, fn string, x *spawned, input vm.Value) error {
	s := spawnsOf(th)
	s.mu.Lock()
	switch x.status {
	case stClosed:
		s.mu.Unlock()
		return vm.Throwf("%s: agent %d (%s) is closed", fn, x.id, x.name)
	}
	x.queue = append(x.queue, input)
	start := x.status != stRunning && x.status != stStopped
	if start {
		x.status = stRunning
		x.err = nil
	}
	s.mu.Unlock()
	if start {
		startTask(th, x)
	}
	return nil
}

// startTask runs the agent's queued inputs on a new task; the caller
// has set status running.
func startTask(th *vm.Thread, x *spawned) {
	body := vm.NewBuiltin("spawned_agent", "spawned_agent()", "the task of a spawned agent", func(th *vm.Thread, _ vm.Args) (vm.Value, error) {
		s := spawnsOf(th)
		for {
			s.mu.Lock()
			if x.status != stRunning || len(x.queue) == 0 {
				if x.status == stRunning {
					x.status = stIdle
				}
				x.task = nil
				s.mu.Unlock()
				return vm.Nil, nil
			}
			input := x.queue[0]
			x.queue = x.queue[1:]
			s.mu.Unlock()
			res, err := runAgent(th, "spawn_agent", x.agent, input, vm.Of(x.opts), 0)
			if err != nil {
				if e, ok := err.(*vm.Error); ok && (e.Kind == vm.KindCancelled || e.Kind == vm.KindExit) {
					s.mu.Lock()
					x.task = nil
					if x.status == stRunning { // cancelled by its parent task's end, not by close or stop
						x.status, x.err = stFailed, err
					}
					s.mu.Unlock()
					return vm.Value{}, err
				}
			}
			s.mu.Lock()
			x.runs++
			if err != nil {
				x.err, x.result = err, vm.Nil
				if x.status == stRunning {
					x.status = stFailed
				}
				x.task = nil
				s.mu.Unlock()
				return vm.Nil, nil
			}
			x.result = res
			if d, ok := res.AsDict(); ok {
				n, _ := get(d, "turns").AsInt()
				x.turns += int64(n)
			}
			s.mu.Unlock()
		}
	})
	s := spawnsOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	x.task = concurrency.Spawn(th, vm.Of(body))
}

// waitFor waits until x has no running task (or timeout passes: ok false).
func waitFor(th *vm.Thread, x *spawned, timeout time.Duration) (bool, error) {
	s := spawnsOf(th)
	var deadline time.Time
	if timeout >= 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		s.mu.Lock()
		t := x.task
		s.mu.Unlock()
		if t == nil {
			return true, nil
		}
		left := time.Duration(-1)
		if timeout >= 0 {
			if left = time.Until(deadline); left < 0 {
				left = 0
			}
		}
		select {
		case <-t.Done():
			continue
		default:
		}
		fired, err := th.WaitOnTasks(t.Done(), left)
		if err != nil {
			return false, err
		}
		if !fired {
			return false, nil
		}
	}
}

func timeoutArg(fn string, a vm.Args, i int) (time.Duration, error) {
	if !a.Given(i) || a.At(i).IsNil() {
		return -1, nil
	}
	switch d := a.At(i).Object().(type) {
	case vm.Duration:
		if d >= 0 {
			return time.Duration(d) * time.Millisecond, nil
		}
	case vm.Int:
		if d >= 0 {
			return time.Duration(d) * time.Millisecond, nil
		}
	}
	return 0, vm.Throwf("%s: timeout must be a non-negative duration or int of milliseconds, got %s", fn, lib.Shown(a.At(i)))
}

// lastOutcome is the last run's result, or its failure raised.
func lastOutcome(th *vm.Thread, x *spawned) (vm.Value, error) {
	s := spawnsOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	if x.err != nil {
		if e, ok := x.err.(*vm.Error); ok {
			return vm.Value{}, e.Clone()
		}
		return vm.Value{}, x.err
	}
	return x.result, nil
}

func inputText(fn string, v vm.Value) (vm.Value, error) {
	switch {
	case v.Kind() == vm.KString:
		if vm.ToDisplay(v) == "" {
			return vm.Value{}, vm.Throwf("%s: message must be a non-empty string, got \"\"", fn)
		}
		return v, nil
	case v.IsNil():
		return vm.Value{}, vm.Throwf("%s: message must be a string (or a value sent as JSON), got nil", fn)
	}
	return vm.Str(llm.ContentText(v)), nil
}

func snapshot(th *vm.Thread, x *spawned) vm.Value {
	s := spawnsOf(th)
	s.mu.Lock()
	d := x.info().Set("last_result", x.result)
	sid := x.session
	s.mu.Unlock()
	ss := sessionsOf(th)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	tr := vm.Nil
	if se := ss.byID[sid]; se != nil {
		tr = se.snapshot()
	}
	return vm.Of(d.Set("transcript", tr))
}

func stop(th *vm.Thread, x *spawned, to string) bool {
	s := spawnsOf(th)
	s.mu.Lock()
	was := x.status
	if was == stClosed || (to == stStopped && was == stStopped) {
		s.mu.Unlock()
		return false
	}
	x.status = to
	t := x.task
	s.mu.Unlock()
	if t != nil {
		t.Cancel()
	}
	return true
}

func init() {
	lib.Def("spawn_agent", "spawn_agent(agent_or_config, prompt, options?) -> dict", "run agent_loop as a task on a session of its own (options.session, default agent_ID; other options go to agent_loop); an agent handle {_type, id, agent, session}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(1) {
			return vm.Value{}, vm.Throwf("spawn_agent: a prompt is required (daemon_spawn starts an agent that waits for inputs)")
		}
		return spawnAgent(th, "spawn_agent", a.At(0), a.At(1), a.At(2), false)
	})
	lib.Def("send_input", "send_input(handle, message)", "queue message (a string; other values as JSON) as the agent's next user turn, starting it again when it is idle or failed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "send_input"
		x, err := handleArg(th, fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		m, err := inputText(fn, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Nil, enqueue(th, fn, x, m)
	})
	lib.Def("wait_agent", "wait_agent(handle, timeout?)", "wait until the agent has worked through its inputs; its last agent_loop result (a failed run's error is raised), or nil when timeout passes first", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "wait_agent"
		x, err := handleArg(th, fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		d, err := timeoutArg(fn, a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		s := spawnsOf(th)
		s.mu.Lock()
		self := x.task != nil && th.Task == any(x.task)
		s.mu.Unlock()
		if self {
			return vm.Value{}, vm.Throwf("%s: agent %d (%s) cannot wait for itself (it would never finish)", fn, x.id, x.name)
		}
		done, err := waitFor(th, x, d)
		if err != nil {
			return vm.Value{}, err
		}
		if !done {
			return vm.Nil, nil
		}
		return lastOutcome(th, x)
	})
	lib.Def("resume_agent", "resume_agent(handle, prompt?) -> dict", "start an idle, failed or stopped agent again: with prompt as its next user turn, without one on its conversation as it is (a failed run is retried); the handle", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "resume_agent"
		x, err := handleArg(th, fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return resume(th, fn, x, a, 1)
	})
	lib.Def("close_agent", "close_agent(handle) -> bool", "stop a spawned agent for good (its running turn is cancelled, queued inputs dropped; its session stays); true if it was open", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		x, err := handleArg(th, "close_agent", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		ok := stop(th, x, stClosed)
		if ok {
			s := spawnsOf(th)
			s.mu.Lock()
			x.queue = nil
			s.mu.Unlock()
		}
		return vm.BoolOf(ok), nil
	})
	lib.Def("list_agents", "list_agents() -> list<dict>", "the spawned agents in spawn order: [{id, agent, status (running, idle, failed, stopped, closed), session, daemon, queued, runs, turns, error}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s := spawnsOf(th)
		s.mu.Lock()
		defer s.mu.Unlock()
		out := make([]vm.Value, len(s.agents))
		for i, x := range s.agents {
			out[i] = vm.Of(x.info())
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("worker_trigger", "worker_trigger(handle, payload) -> dict", "trigger a spawned agent or daemon with payload (a string, other values as JSON) as its next input; the handle", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return trigger(th, "worker_trigger", a)
	})
	lib.Def("daemon_spawn", "daemon_spawn(agent_or_config, options?) -> dict", "a spawned agent that waits idle for inputs (daemon_trigger); options as spawn_agent's; its handle", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return spawnAgent(th, "daemon_spawn", a.At(0), vm.Nil, a.At(1), true)
	})
	lib.Def("daemon_trigger", "daemon_trigger(handle, payload) -> dict", "queue payload (a string, other values as JSON) as the daemon's next input; while it is stopped the input waits for daemon_resume; the handle", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return trigger(th, "daemon_trigger", a)
	})
	lib.Def("daemon_snapshot", "daemon_snapshot(handle) -> dict", "list_agents' record of the agent with last_result and transcript (its session as a transcript)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		x, err := handleArg(th, "daemon_snapshot", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return snapshot(th, x), nil
	})
	lib.Def("daemon_stop", "daemon_stop(handle) -> bool", "stop the agent (its running turn is cancelled) keeping its session and queued inputs for daemon_resume; true if it was not stopped or closed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		x, err := handleArg(th, "daemon_stop", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(stop(th, x, stStopped)), nil
	})
	lib.Def("daemon_resume", "daemon_resume(handle) -> dict", "start a stopped daemon again: it works through the inputs queued meanwhile; the handle", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "daemon_resume"
		x, err := handleArg(th, fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		s := spawnsOf(th)
		s.mu.Lock()
		switch x.status {
		case stClosed:
			s.mu.Unlock()
			return vm.Value{}, vm.Throwf("%s: agent %d (%s) is closed", fn, x.id, x.name)
		case stRunning:
			s.mu.Unlock()
			return x.handle(), nil
		}
		start := len(x.queue) > 0
		x.status = stIdle
		if start {
			x.status, x.err = stRunning, nil
		}
		s.mu.Unlock()
		if start {
			startTask(th, x)
		}
		return x.handle(), nil
	})
}

func trigger(th *vm.Thread, fn string, a vm.Args) (vm.Value, error) {
	x, err := handleArg(th, fn, a.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	m, err := inputText(fn, a.At(1))
	if err != nil {
		return vm.Value{}, err
	}
	if err := enqueue(th, fn, x, m); err != nil {
		return vm.Value{}, err
	}
	return x.handle(), nil
}

func resume(th *vm.Thread, fn string, x *spawned, a vm.Args, i int) (vm.Value, error) {
	s := spawnsOf(th)
	s.mu.Lock()
	status := x.status
	if status == stStopped {
		x.status = stIdle
	}
	queued := len(x.queue)
	s.mu.Unlock()
	switch status {
	case stClosed:
		return vm.Value{}, vm.Throwf("%s: agent %d (%s) is closed", fn, x.id, x.name)
	case stRunning:
		return vm.Value{}, vm.Throwf("%s: agent %d (%s) is running (send_input queues a message for it)", fn, x.id, x.name)
	}
	if a.Given(i) {
		m, err := inputText(fn, a.At(i))
		if err != nil {
			return vm.Value{}, err
		}
		return x.handle(), enqueue(th, fn, x, m)
	}
	if queued > 0 {
		s.mu.Lock()
		x.status, x.err = stRunning, nil
		s.mu.Unlock()
		startTask(th, x)
		return x.handle(), nil
	}
	// no input: continue the conversation as it is, when it ends with a user turn
	ss := sessionsOf(th)
	ss.mu.Lock()
	var last string
	if se := ss.byID[x.session]; se != nil && len(se.messages) > 0 {
		last = transcripts.Role(se.messages[len(se.messages)-1])
	}
	ss.mu.Unlock()
	if last != "user" && last != "tool" {
		return vm.Value{}, vm.Throwf("%s: agent %d (%s) has nothing to resume: its conversation does not end with an unanswered turn; give a prompt", fn, x.id, x.name)
	}
	return x.handle(), enqueue(th, fn, x, vm.Nil)
}

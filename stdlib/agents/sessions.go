package agents

// Agent sessions (docs/agents.md, "Sessions"; docs/spec/builtins.md §5
// names the builtins only): a session is a named conversation kept by the
// VM for the whole run. agent_loop(…, {session: id}) starts from the
// session's messages and stores the conversation back when it ends, so
// successive loops (and spawned agents) continue one conversation.
// Forks remember their parent; a session in use by a running loop
// cannot be changed by anything else.

import (
	"fmt"
	"slices"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/transcripts"
	"github.com/harnlang/harn/vm"
)

type session struct {
	id       string
	messages []vm.Value
	ancestry []string // the ids it was forked from, root first
	forkedAt int      // messages taken from the parent; -1 when not a fork
	busy     bool     // a running loop uses it
	runs     int
	// stream names the session's transcript stream for a host that
	// keeps transcripts (the orchestrator's agent.transcript.<stream>):
	// the id a script chose, but a fresh transcript id for one made up
	// here, as session_N is made up afresh by every process.
	stream string
}

type sessions struct {
	mu      sync.Mutex
	byID    map[string]*session
	next    int
	current string
	active  map[*vm.Thread][]string // sessions of the running loops, per thread
}

type sessionsKey struct{}

func sessionsOf(th *vm.Thread) *sessions {
	return th.VM().Local(sessionsKey{}, func() any {
		return &sessions{byID: map[string]*session{}, active: map[*vm.Thread][]string{}}
	}).(*sessions)
}

// lookup is the open session id; the caller holds mu.
func (s *sessions) lookup(fn, id string) (*session, error) {
	x := s.byID[id]
	if x == nil {
		return nil, vm.Throwf("%s: no session %q (agent_session_open creates one)", fn, id)
	}
	return x, nil
}

func (s *sessions) create(id string, msgs []vm.Value, ancestry []string, forkedAt int) *session {
	stream := id
	if id == "" {
		for {
			s.next++
			id = fmt.Sprintf("session_%d", s.next)
			if s.byID[id] == nil {
				break
			}
		}
		stream = transcripts.NewID()
	}
	x := &session{id: id, messages: msgs, ancestry: ancestry, forkedAt: forkedAt, stream: stream}
	s.byID[id] = x
	s.current = id
	return x
}

func sessionID(fn string, v vm.Value) (string, error) {
	s, ok := v.AsString()
	if !ok || s.Go() == "" {
		return "", vm.Throwf("%s: session id must be a non-empty string, got %s", fn, lib.Shown(v))
	}
	return s.Go(), nil
}

// sessionStart claims session id (created when missing) for a loop and
// returns its messages.
func sessionStart(th *vm.Thread, fn string, v vm.Value) (string, []vm.Value, error) {
	id, err := sessionID(fn, v)
	if err != nil {
		return "", nil, vm.Throwf("%s: options.session must be a session id (a non-empty string), got %s", fn, lib.Shown(v))
	}
	s := sessionsOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.byID[id]
	if x == nil {
		x = s.create(id, nil, nil, -1)
	}
	if x.busy {
		return "", nil, vm.Throwf("%s: session %q is in use by another running agent loop", fn, id)
	}
	x.busy = true
	x.runs++
	s.current = id
	s.active[th] = append(s.active[th], id)
	return id, slices.Clone(x.messages), nil
}

// sessionStream is the transcript stream of session id (see
// session.stream).
func sessionStream(th *vm.Thread, id string) string {
	s := sessionsOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.byID[id]; x != nil {
		return x.stream
	}
	return id
}

// sessionEnd stores a loop's conversation in its session and releases it.
func sessionEnd(th *vm.Thread, id string, msgs []vm.Value) {
	s := sessionsOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.byID[id]; x != nil {
		x.messages = slices.Clone(msgs)
		x.busy = false
	}
	if st := s.active[th]; len(st) > 0 {
		s.active[th] = st[:len(st)-1]
		if len(s.active[th]) == 0 {
			delete(s.active, th)
		}
	}
}

func (x *session) snapshot() vm.Value {
	parent := vm.Nil
	if len(x.ancestry) > 0 {
		parent = vm.Str(x.ancestry[len(x.ancestry)-1])
	}
	md := lib.DictOf("session", vm.Str(x.id), "runs", lib.IntOf(x.runs))
	if x.forkedAt >= 0 {
		md = md.Set("forked_at", lib.IntOf(x.forkedAt))
	}
	return vm.Of(transcripts.New(x.id, slices.Clone(x.messages), vm.Of(md), parent))
}

// withSession runs f on open session id (not in use by a running loop
// when write is set), holding mu.
func withSession(th *vm.Thread, fn string, idV vm.Value, write bool, f func(s *sessions, x *session) (vm.Value, error)) (vm.Value, error) {
	id, err := sessionID(fn, idV)
	if err != nil {
		return vm.Value{}, err
	}
	s := sessionsOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	x, err := s.lookup(fn, id)
	if err != nil {
		return vm.Value{}, err
	}
	if write && x.busy {
		return vm.Value{}, vm.Throwf("%s: session %q is in use by a running agent loop (agent_inject_feedback reaches the loop)", fn, id)
	}
	return f(s, x)
}

func newIDArg(fn string, a vm.Args, i int) (string, error) {
	if !a.Given(i) {
		return "", nil
	}
	return sessionID(fn, a.At(i))
}

func init() {
	lib.Def("agent_session_open", "agent_session_open(id?, options?) -> string", "open a session (a named conversation agent_loop continues with {session: id}) and make it current; an existing one is reopened as it is; options {system?, messages?} seed a new one; its id", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "agent_session_open"
		id, optsV := "", a.At(1)
		if d, ok := a.Dict(0); ok && !a.Given(1) {
			optsV = vm.Of(d)
		} else if a.Given(0) {
			var err error
			if id, err = sessionID(fn, a.At(0)); err != nil {
				return vm.Value{}, err
			}
		}
		var seed []vm.Value
		if optsV.IsValid() && !optsV.IsNil() {
			o, ok := optsV.AsDict()
			if !ok {
				return vm.Value{}, lib.BadOptions(fn, optsV)
			}
			if err := lib.CheckOptions(fn, o, []string{"system", "messages"}); err != nil {
				return vm.Value{}, err
			}
			if v := get(o, "system"); !v.IsNil() {
				sv, ok := v.AsString()
				if !ok {
					return vm.Value{}, vm.Throwf("%s: system must be a string, got %s", fn, v.Type())
				}
				seed = append(seed, transcripts.NewMessage("system", sv.Go()))
			}
			if v := get(o, "messages"); !v.IsNil() {
				ms, err := transcripts.MessagesAt(fn, fn+": options.messages", v)
				if err != nil {
					return vm.Value{}, err
				}
				seed = append(seed, ms...)
			}
		}
		s := sessionsOf(th)
		s.mu.Lock()
		defer s.mu.Unlock()
		if x := s.byID[id]; x != nil {
			if len(seed) > 0 {
				return vm.Value{}, vm.Throwf("%s: session %q already exists; its conversation cannot be seeded again (agent_session_reset or agent_session_inject)", fn, id)
			}
			s.current = id
			return vm.Str(id), nil
		}
		return vm.Str(s.create(id, seed, nil, -1).id), nil
	})
	lib.Def("agent_session_exists", "agent_session_exists(id) -> bool", "whether a session of that id is open", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		id, err := sessionID("agent_session_exists", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		s := sessionsOf(th)
		s.mu.Lock()
		defer s.mu.Unlock()
		return vm.BoolOf(s.byID[id] != nil), nil
	})
	lib.Def("agent_session_current_id", "agent_session_current_id() -> string?", "the session of the innermost agent loop running on this task, else the last session opened or used; nil when none", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s := sessionsOf(th)
		s.mu.Lock()
		defer s.mu.Unlock()
		if st := s.active[th]; len(st) > 0 {
			return vm.Str(st[len(st)-1]), nil
		}
		if s.current != "" && s.byID[s.current] != nil {
			return vm.Str(s.current), nil
		}
		return vm.Nil, nil
	})
	lib.Def("agent_session_length", "agent_session_length(id) -> int", "the number of messages in a session", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return withSession(th, "agent_session_length", a.At(0), false, func(s *sessions, x *session) (vm.Value, error) {
			return lib.IntOf(len(x.messages)), nil
		})
	})
	lib.Def("agent_session_snapshot", "agent_session_snapshot(id) -> dict", "the session as a transcript: {_type, id (the session id), messages, metadata {session, runs, forked_at?}, parent}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return withSession(th, "agent_session_snapshot", a.At(0), false, func(s *sessions, x *session) (vm.Value, error) {
			return x.snapshot(), nil
		})
	})
	lib.Def("agent_session_ancestry", "agent_session_ancestry(id) -> list<string>", "the ids of the sessions it was forked from, root first, ending with id", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return withSession(th, "agent_session_ancestry", a.At(0), false, func(s *sessions, x *session) (vm.Value, error) {
			return vm.Of(lib.StrList(append(slices.Clone(x.ancestry), x.id))), nil
		})
	})
	lib.Def("agent_session_reset", "agent_session_reset(id) -> int", "drop a session's messages but its system messages; the number left", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return withSession(th, "agent_session_reset", a.At(0), true, func(s *sessions, x *session) (vm.Value, error) {
			x.messages = slices.DeleteFunc(x.messages, func(m vm.Value) bool {
				d, _ := m.AsDict()
				return transcripts.Role(m) != "system" || !get(d, "compacted").IsNil()
			})
			return lib.IntOf(len(x.messages)), nil
		})
	})
	fork := func(fn string, th *vm.Thread, idV vm.Value, at int, newID string) (vm.Value, error) {
		return withSession(th, fn, idV, false, func(s *sessions, x *session) (vm.Value, error) {
			if at < 0 {
				at = len(x.messages)
			}
			if at > len(x.messages) {
				return vm.Value{}, vm.Throwf("%s: n must be an int from 0 to %d (the session's length), got %d", fn, len(x.messages), at)
			}
			if newID != "" && s.byID[newID] != nil {
				return vm.Value{}, vm.Throwf("%s: session %q already exists", fn, newID)
			}
			y := s.create(newID, slices.Clone(x.messages[:at]), append(slices.Clone(x.ancestry), x.id), at)
			return vm.Str(y.id), nil
		})
	}
	lib.Def("agent_session_fork", "agent_session_fork(id, new_id?) -> string", "a new session holding a copy of the session's conversation, with it as parent; the new id (current now)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		nid, err := newIDArg("agent_session_fork", a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		return fork("agent_session_fork", th, a.At(0), -1, nid)
	})
	lib.Def("agent_session_fork_at", "agent_session_fork_at(id, n, new_id?) -> string", "a new session holding the session's first n messages, with it as parent; the new id (current now)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "agent_session_fork_at"
		n, ok := a.Int(1)
		if !ok || n < 0 {
			return vm.Value{}, vm.Throwf("%s: n must be a non-negative int, got %s", fn, lib.Shown(a.At(1)))
		}
		nid, err := newIDArg(fn, a, 2)
		if err != nil {
			return vm.Value{}, err
		}
		return fork(fn, th, a.At(0), int(n), nid)
	})
	lib.Def("agent_session_trim", "agent_session_trim(id, keep_last) -> int", "keep the system messages and the last keep_last others (never starting with a tool result cut from its call); the new length", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "agent_session_trim"
		k, ok := a.Int(1)
		if !ok || k < 0 {
			return vm.Value{}, vm.Throwf("%s: keep_last must be a non-negative int, got %s", fn, lib.Shown(a.At(1)))
		}
		return withSession(th, fn, a.At(0), true, func(s *sessions, x *session) (vm.Value, error) {
			var sys, body []vm.Value
			for _, m := range x.messages {
				if transcripts.Role(m) == "system" {
					sys = append(sys, m)
				} else {
					body = append(body, m)
				}
			}
			if len(body) > int(k) {
				body = body[len(body)-int(k):]
			}
			for len(body) > 0 && transcripts.Role(body[0]) == "tool" {
				body = body[1:]
			}
			x.messages = append(sys, body...)
			return lib.IntOf(len(x.messages)), nil
		})
	})
	lib.Def("agent_session_compact", "agent_session_compact(id, options?) -> int", "compact a session's conversation with transcript_compact (same options); the new length", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "agent_session_compact"
		id, err := sessionID(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		s := sessionsOf(th)
		s.mu.Lock()
		x, err := s.lookup(fn, id)
		if err == nil && x.busy {
			err = vm.Throwf("%s: session %q is in use by a running agent loop", fn, id)
		}
		var msgs []vm.Value
		if err == nil {
			msgs = slices.Clone(x.messages)
			x.busy = true // the summarizer may run Harn code: keep others out
		}
		s.mu.Unlock()
		if err != nil {
			return vm.Value{}, err
		}
		v, cerr := transcripts.Compact(th, fn, vm.Of(vm.NewList(msgs)), a.At(1))
		s.mu.Lock()
		defer s.mu.Unlock()
		x.busy = false
		if cerr != nil {
			return vm.Value{}, cerr
		}
		items, _, _ := transcripts.Split(fn, v)
		x.messages = slices.Clone(items)
		return lib.IntOf(len(x.messages)), nil
	})
	lib.Def("agent_session_inject", "agent_session_inject(id, message) -> int", "append a message (a string is a user message) to a session that no loop is running on; the new length", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "agent_session_inject"
		m := a.At(1)
		if s, ok := a.Str(1); ok {
			m = transcripts.NewMessage("user", s)
		}
		d, err := transcripts.Message(fn+": message", m)
		if err != nil {
			return vm.Value{}, err
		}
		return withSession(th, fn, a.At(0), true, func(s *sessions, x *session) (vm.Value, error) {
			x.messages = append(x.messages, vm.Of(d))
			return lib.IntOf(len(x.messages)), nil
		})
	})
	lib.Def("agent_session_close", "agent_session_close(id) -> bool", "forget a session (its forks keep their own conversations); true if it was open", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "agent_session_close"
		id, err := sessionID(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		s := sessionsOf(th)
		s.mu.Lock()
		defer s.mu.Unlock()
		x := s.byID[id]
		if x == nil {
			return vm.False, nil
		}
		if x.busy {
			return vm.Value{}, vm.Throwf("%s: session %q is in use by a running agent loop", fn, id)
		}
		delete(s.byID, id)
		if s.current == id {
			s.current = ""
		}
		return vm.True, nil
	})
}

// claimSession takes the loop's session (options.session) and starts
// the conversation from its messages. The probe of agent(config) does
// not claim.
func (l *loop) claimSession(th *vm.Thread) error {
	if l.sessionV.IsNil() || !l.sessionV.IsValid() || l.fn == "agent" {
		return nil
	}
	id, msgs, err := sessionStart(th, l.fn, l.sessionV)
	if err != nil {
		return err
	}
	l.session, l.messages = id, append(msgs, l.messages...)
	if l.prompt == "" {
		for i := len(l.messages) - 1; i >= 0; i-- {
			if transcripts.Role(l.messages[i]) == "user" {
				l.prompt = transcripts.Text(l.messages[i])
				break
			}
		}
	}
	if len(l.messages) == 0 {
		l.releaseSession(th)
		return vm.Throwf("%s: nothing to send: give a prompt, options.messages, or a session holding messages", l.fn)
	}
	return nil
}

// releaseSession stores the conversation back into the session.
func (l *loop) releaseSession(th *vm.Thread) {
	if l.session != "" {
		sessionEnd(th, l.session, l.messages)
		l.session = ""
	}
}

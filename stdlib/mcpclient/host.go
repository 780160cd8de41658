package mcpclient

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Supervised servers (docs/mcp-client.md, "Supervised servers"):
// mcp_host_spawn starts a stdio server under a name and keeps it
// running. When its process exits without being asked to, a supervisor
// goroutine starts it again after a backoff that doubles each time, at
// most max_restarts times in a row (a process that ran a minute before
// exiting starts the count afresh); then the server is "failed" until
// mcp_host_reload. Calls made while it restarts wait for it. The run's
// end (VM.Close) stops every supervised server. This table is apart
// from the registry of mcp_ensure_active: its servers are not
// reference-counted, and the same name may be in both.

const (
	defaultMaxRestarts = 5
	defaultBackoff     = 500 * time.Millisecond
	maxBackoff         = 30 * time.Second
	// stableAfter: a process that ran this long before it exited counts
	// as a fresh start for the restart limit.
	stableAfter = time.Minute
)

// The states of a supervised server.
const (
	stateStarting   = "starting"   // mcp_host_spawn or mcp_host_reload is connecting it
	stateRunning    = "running"    // connected
	stateRestarting = "restarting" // its process exited; the supervisor is starting it again
	stateFailed     = "failed"     // it could not be started, or exited max_restarts times in a row
	stateStopped    = "stopped"    // mcp_host_stop (or the end of the run) stopped it
)

type hosts struct {
	mu      sync.Mutex
	servers map[string]*hostServer
	closed  bool // the run is over
}

type hostServer struct {
	name        string
	cfg         *config
	p           prepared
	maxRestarts int
	backoff     time.Duration

	// Guarded by hosts.mu.
	state     string
	client    *Client // nil unless running
	restarts  int     // in a row, since the last spawn, reload or stable run
	startedAt time.Time
	lastError string
	// gen counts starts by spawn and reload and stops: a supervisor or
	// a start of an older generation gives up.
	gen  int
	quit chan struct{} // closed when gen moves on: ends the supervisor's waits
	// changed is closed (and replaced) whenever state or client change;
	// calls waiting for a restart wait on it.
	changed chan struct{}
}

type hostsKey struct{}

func hostsOf(th *vm.Thread) *hosts {
	var made *hosts
	h := th.VM().Local(hostsKey{}, func() any {
		made = &hosts{servers: map[string]*hostServer{}}
		return made
	}).(*hosts)
	if made != nil {
		th.VM().OnClose(made.closeAll)
	}
	return h
}

// closeAll stops every supervised server (the run is over).
func (h *hosts) closeAll() {
	h.mu.Lock()
	h.closed = true
	var clients []*Client
	for _, s := range h.servers {
		if c := h.retire(s, stateStopped); c != nil {
			clients = append(clients, c)
		}
	}
	h.mu.Unlock()
	closeClients(clients)
}

// retire ends s's current generation: its supervisor and any start in
// progress give up. It returns the client to close. h.mu is held.
func (h *hosts) retire(s *hostServer, state string) *Client {
	s.gen++
	close(s.quit)
	s.quit = make(chan struct{})
	c := s.client
	s.client = nil
	h.set(s, state)
	return c
}

// set changes s's state and wakes the calls waiting for it. h.mu is
// held.
func (h *hosts) set(s *hostServer, state string) {
	s.state = state
	close(s.changed)
	s.changed = make(chan struct{})
}

// lookup is the server named by argument 0. h.mu is held.
func (h *hosts) lookup(builtin string, a vm.Args) (*hostServer, error) {
	name, err := textArg(builtin, "server name", a, 0)
	if err != nil {
		return nil, err
	}
	s := h.servers[name]
	if s == nil {
		return nil, vm.Throwf("%s: no supervised MCP server named %q (mcp_host_spawn starts one)", builtin, name)
	}
	return s, nil
}

// launch connects s for generation gen (its state is "starting") and,
// once connected, supervises it.
func (h *hosts) launch(th *vm.Thread, builtin string, s *hostServer, gen int) error {
	var c *Client
	err := blocking(th, func(ctx context.Context) error {
		var cerr error
		c, cerr = s.p.connect(ctx, s.cfg)
		return cerr
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.gen != gen {
		// Stopped (or started again) meanwhile.
		if c != nil {
			go c.s.close()
		}
		if err != nil {
			return failure(builtin, nil, err)
		}
		return vm.Throwf("%s: the MCP server %q was stopped while it started", builtin, s.name)
	}
	if err != nil {
		s.lastError = errText(failure(builtin, nil, err))
		h.set(s, stateFailed)
		return failure(builtin, nil, err)
	}
	c.name = s.name
	s.client, s.startedAt, s.lastError = c, time.Now(), ""
	h.set(s, stateRunning)
	go h.supervise(s, gen, c, s.quit)
	return nil
}

// start launches s for generation gen and reports its status, what
// mcp_host_spawn and mcp_host_reload return.
func (h *hosts) start(th *vm.Thread, builtin string, s *hostServer, gen int) (vm.Value, error) {
	if err := h.launch(th, builtin, s, gen); err != nil {
		return vm.Value{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return s.status(), nil
}

// supervise restarts s's server each time its process exits, until the
// generation ends or the restarts run out.
func (h *hosts) supervise(s *hostServer, gen int, c *Client, quit chan struct{}) {
	for {
		st := c.s.t.(*stdioTransport)
		select {
		case <-st.done:
		case <-quit:
			return
		}
		h.mu.Lock()
		if s.gen != gen {
			h.mu.Unlock()
			return
		}
		if err := st.endedErr(); err != nil {
			s.lastError = err.Error()
		}
		if time.Since(s.startedAt) >= stableAfter {
			s.restarts = 0
		}
		s.client = nil
		h.set(s, stateRestarting)
		h.mu.Unlock()
		if c = h.restart(s, gen, quit); c == nil {
			return
		}
	}
}

// restart starts s's server again after the backoff, retrying a start
// that fails, within the restart limit. It returns the new client, or
// nil when it gave up or the generation ended.
func (h *hosts) restart(s *hostServer, gen int, quit chan struct{}) *Client {
	for {
		h.mu.Lock()
		if s.gen != gen {
			h.mu.Unlock()
			return nil
		}
		if s.restarts >= s.maxRestarts {
			h.set(s, stateFailed)
			h.mu.Unlock()
			return nil
		}
		s.restarts++
		delay := s.delay()
		h.set(s, stateRestarting)
		h.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-quit:
			return nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-quit:
				cancel()
			case <-ctx.Done():
			}
		}()
		c, err := s.p.connect(ctx, s.cfg)
		cancel()
		h.mu.Lock()
		if s.gen != gen {
			h.mu.Unlock()
			if c != nil {
				c.s.close()
			}
			return nil
		}
		if err != nil {
			s.lastError = err.Error()
			h.mu.Unlock()
			continue
		}
		c.name = s.name
		s.client, s.startedAt = c, time.Now()
		h.set(s, stateRunning)
		h.mu.Unlock()
		return c
	}
}

// delay is the wait before restart number s.restarts: the backoff,
// doubled for each restart before it in a row, at most maxBackoff.
func (s *hostServer) delay() time.Duration {
	d := s.backoff
	for i := 1; i < s.restarts && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// clientFor is the running client of the server named by argument 0,
// waiting while it starts or restarts.
func (h *hosts) clientFor(th *vm.Thread, builtin string, a vm.Args) (*Client, error) {
	for {
		h.mu.Lock()
		s, err := h.lookup(builtin, a)
		if err != nil {
			h.mu.Unlock()
			return nil, err
		}
		switch s.state {
		case stateRunning:
			if c := s.liveClient(); c != nil {
				h.mu.Unlock()
				return c, nil
			}
			// It just exited: the supervisor is about to restart it.
		case stateFailed:
			err := vm.Throwf("%s: the MCP server %q is not running: it failed (%s); mcp_host_reload starts it again", builtin, s.name, s.lastError)
			h.mu.Unlock()
			return nil, err
		case stateStopped:
			h.mu.Unlock()
			return nil, vm.Throwf("%s: the MCP server %q is not running (it was stopped; mcp_host_reload starts it again)", builtin, s.name)
		}
		wait := s.changed
		h.mu.Unlock()
		if err := blocking(th, func(ctx context.Context) error {
			select {
			case <-wait:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}); err != nil {
			return nil, failure(builtin, nil, err)
		}
	}
}

// liveClient is s's client while it is running and its process has
// not exited, nil otherwise (between its exit and the supervisor's
// restart the state may still read running). h.mu is held.
func (s *hostServer) liveClient() *Client {
	if s.state != stateRunning || s.client == nil || !s.client.alive() {
		return nil
	}
	return s.client
}

// status is s's status dict. h.mu is held.
func (s *hostServer) status() vm.Value {
	pid, serverName := vm.Nil, vm.Nil
	if s.client != nil {
		if st, ok := s.client.s.t.(*stdioTransport); ok && st.cmd.Process != nil {
			pid = lib.IntOf(st.cmd.Process.Pid)
		}
		if n := s.client.s.serverName(); n != "" {
			serverName = vm.Str(n)
		}
	}
	lastErr := vm.Nil
	if s.lastError != "" {
		lastErr = vm.Str(s.lastError)
	}
	return vm.Of(lib.DictOf(
		"name", vm.Str(s.name),
		"state", vm.Str(s.state),
		"pid", pid,
		"restarts", lib.IntOf(s.restarts),
		"server_name", serverName,
		"last_error", lastErr,
	))
}

// spawnOptions reads mcp_host_spawn's options {max_restarts?, backoff?}.
func spawnOptions(builtin string, s *hostServer, v vm.Value) error {
	if v.IsNil() {
		return nil
	}
	d, ok := v.AsDict()
	if !ok {
		return lib.BadOptions(builtin, v)
	}
	if err := lib.CheckOptions(builtin, d, []string{"backoff", "max_restarts"}); err != nil {
		return err
	}
	if x, ok := d.Get("max_restarts"); ok && !x.IsNil() {
		n, ok := x.AsInt()
		if !ok || n < 0 {
			return argErr(builtin, "max_restarts must be an int, at least 0, got %s", vm.ToDisplay(x))
		}
		s.maxRestarts = int(n)
	}
	if x, ok := d.Get("backoff"); ok && !x.IsNil() {
		ms, ok := lib.ToFloat(x)
		if dur, isDur := x.AsDuration(); isDur {
			ms, ok = float64(dur), true
		}
		if !ok || x.Kind() == vm.KBool || ms <= 0 {
			return argErr(builtin, "backoff must be a positive duration (500ms) or number of milliseconds, got %s", vm.ToDisplay(x))
		}
		s.backoff = time.Duration(ms * float64(time.Millisecond))
	}
	return nil
}

func mcpHostSpawn(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_host_spawn"
	name, err := textArg(builtin, "server name", a, 0)
	if err != nil {
		return vm.Value{}, err
	}
	v := a.At(1)
	if _, isStr := v.AsString(); !isStr {
		if _, isDict := v.AsDict(); !isDict {
			return vm.Value{}, argErr(builtin, "the config must be a command line or a dict {command, args?, env?, cwd?}, got %s", v.Type())
		}
	}
	cfg, err := parseConfig(builtin, vm.Args{v})
	if err != nil {
		return vm.Value{}, err
	}
	if cfg.url != "" {
		return vm.Value{}, argErr(builtin, "a supervised server is a process: the config needs a command, not a url (mcp_ensure_active connects to an HTTP server)")
	}
	if cfg.name == "" {
		cfg.name = name
	}
	s := &hostServer{name: name, cfg: cfg, maxRestarts: defaultMaxRestarts, backoff: defaultBackoff,
		quit: make(chan struct{}), changed: make(chan struct{})}
	if err := spawnOptions(builtin, s, a.At(2)); err != nil {
		return vm.Value{}, err
	}
	s.p = prepare(th, cfg)
	h := hostsOf(th)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return vm.Value{}, vm.Throwf("%s: the run is over", builtin)
	}
	if old := h.servers[name]; old != nil && old.state != stateStopped && old.state != stateFailed {
		h.mu.Unlock()
		return vm.Value{}, vm.Throwf("%s: the MCP server %q is already %s (mcp_host_reload restarts it, mcp_host_stop stops it)", builtin, name, old.state)
	}
	h.servers[name] = s
	s.gen = 1
	s.state = stateStarting
	h.mu.Unlock()
	return h.start(th, builtin, s, 1)
}

func mcpHostReload(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_host_reload"
	h := hostsOf(th)
	h.mu.Lock()
	s, err := h.lookup(builtin, a)
	if err != nil {
		h.mu.Unlock()
		return vm.Value{}, err
	}
	if h.closed {
		h.mu.Unlock()
		return vm.Value{}, vm.Throwf("%s: the run is over", builtin)
	}
	old := h.retire(s, stateStarting)
	s.restarts = 0
	gen := s.gen
	h.mu.Unlock()
	closeOff(th, old)
	return h.start(th, builtin, s, gen)
}

func mcpHostStop(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_host_stop"
	h := hostsOf(th)
	h.mu.Lock()
	s, err := h.lookup(builtin, a)
	if err != nil {
		h.mu.Unlock()
		return vm.Value{}, err
	}
	if s.state == stateStopped {
		h.mu.Unlock()
		return vm.Value{}, vm.Throwf("%s: the MCP server %q is not running (it was stopped already)", builtin, s.name)
	}
	old := h.retire(s, stateStopped)
	h.mu.Unlock()
	closeOff(th, old)
	return vm.Nil, nil
}

func mcpHostTools(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_host_tools"
	c, err := hostsOf(th).clientFor(th, builtin, a)
	if err != nil {
		return vm.Value{}, err
	}
	return listOn(th, builtin, c, "tools", "tools/list", "tools")
}

func mcpHostCall(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_host_call"
	c, err := hostsOf(th).clientFor(th, builtin, a)
	if err != nil {
		return vm.Value{}, err
	}
	return callTool(th, builtin, c, a[1:])
}

func mcpHostStatus(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_host_status"
	h := hostsOf(th)
	h.mu.Lock()
	defer h.mu.Unlock()
	if a.Given(0) && !a.At(0).IsNil() {
		s, err := h.lookup(builtin, a)
		if err != nil {
			return vm.Value{}, err
		}
		return s.status(), nil
	}
	names := make([]string, 0, len(h.servers))
	for n := range h.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	items := make([]vm.Value, len(names))
	for i, n := range names {
		items[i] = h.servers[n].status()
	}
	return vm.Of(lib.List(items)), nil
}

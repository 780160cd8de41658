package httpserver

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Server is an HTTP server value (type "http_server"): its options, routes,
// middleware, readiness and shutdown hooks, and — once `listen()` ran — its
// listener. Everything a handler or builtin changes is guarded by mu, since
// the goroutines of the listener read it without the VM lock.
type Server struct {
	host           string
	port           int
	maxBody        int64
	readTimeout    time.Duration
	writeTimeout   time.Duration
	idleTimeout    time.Duration
	shutdownGrace  time.Duration
	handlerTimeout time.Duration // 0: none
	exposeErrors   bool
	readinessPath  string
	tls            *TLSConfig

	mu       sync.Mutex
	routes   []*route
	seq      int
	before   []vm.Value
	after    []vm.Value
	security []header // added to every response that lacks them
	ready    bool
	reason   string
	hooks    []vm.Value
	state    serverState
	vm       *vm.VM
	httpSrv  *http.Server
	addr     *net.TCPAddr
	calls    map[*call]struct{} // network requests being dispatched
	inFlight int
	changed  chan struct{}               // closed (and replaced) whenever inFlight drops
	stopped  chan struct{}               // closed once the server has shut down
	streams  map[*int]context.CancelFunc // streamed responses being served
	owner    *vm.Thread                  // the thread whose end stops the server
}

type serverState int

const (
	stateIdle serverState = iota
	stateListening
	stateDraining
	stateStopped
)

type header struct{ name, value string }

func (*Server) Type() string { return "http_server" }
func (*Server) Truth() bool  { return true }
func (s *Server) Display(sb *strings.Builder) {
	sb.WriteString("<http_server")
	s.mu.Lock()
	if s.addr != nil {
		sb.WriteByte(':')
		sb.WriteString(s.addr.String())
	}
	s.mu.Unlock()
	sb.WriteByte('>')
}

// EqualTo: a server equals only itself.
func (s *Server) EqualTo(o vm.Value) bool { t, ok := o.Object().(*Server); return ok && s == t }

const (
	defaultMaxBody = 1 << 20
	defaultGrace   = 5 * time.Second
)

// serverOptions are the keys of http_server's options.
var serverOptions = []string{"host", "port", "max_body", "read_timeout", "write_timeout", "idle_timeout", "shutdown_timeout", "handler_timeout", "expose_errors", "ready", "readiness_path", "tls"}

// newServer reads http_server's options.
func newServer(opts *vm.Dict) (*Server, error) {
	s := &Server{
		host:          "127.0.0.1",
		maxBody:       defaultMaxBody,
		readTimeout:   30 * time.Second,
		writeTimeout:  60 * time.Second,
		idleTimeout:   60 * time.Second,
		shutdownGrace: defaultGrace,
		ready:         true,
		calls:         map[*call]struct{}{},
		changed:       make(chan struct{}),
		stopped:       make(chan struct{}),
	}
	if opts == nil {
		return s, nil
	}
	if err := lib.CheckOptions("http_server", opts, serverOptions); err != nil {
		return nil, err
	}
	var err error
	opts.Range(func(k string, v vm.Value) bool {
		err = s.option(k, v)
		return err == nil
	})
	return s, err
}

func (s *Server) option(k string, v vm.Value) error {
	duration := func(dst *time.Duration) error {
		d, ok := lib.WaitDuration(v)
		if !ok || d < 0 {
			return vm.Typef("http_server: %s must be a non-negative duration, got %s", k, v.Type())
		}
		*dst = d
		return nil
	}
	switch k {
	case "host":
		h, ok := v.AsString()
		if !ok {
			return vm.Typef("http_server: host must be a string, got %s", v.Type())
		}
		s.host = h.Go()
	case "port":
		p, ok := v.AsInt()
		if !ok {
			return vm.Typef("http_server: port must be an int, got %s", v.Type())
		}
		if p < 0 || p > 65535 {
			return vm.Throwf("http_server: port must be between 0 and 65535, got %d", p)
		}
		s.port = int(p)
	case "max_body":
		n, ok := v.AsInt()
		if !ok {
			return vm.Typef("http_server: max_body must be an int, got %s", v.Type())
		}
		if n < 0 {
			return vm.Throwf("http_server: max_body must not be negative, got %d", n)
		}
		s.maxBody = int64(n)
	case "read_timeout":
		return duration(&s.readTimeout)
	case "write_timeout":
		return duration(&s.writeTimeout)
	case "idle_timeout":
		return duration(&s.idleTimeout)
	case "shutdown_timeout":
		return duration(&s.shutdownGrace)
	case "handler_timeout":
		if v.IsNil() {
			s.handlerTimeout = 0
			return nil
		}
		return duration(&s.handlerTimeout)
	case "expose_errors":
		b, ok := v.AsBool()
		if !ok {
			return vm.Typef("http_server: expose_errors must be a bool, got %s", v.Type())
		}
		s.exposeErrors = bool(b)
	case "ready":
		b, ok := v.AsBool()
		if !ok {
			return vm.Typef("http_server: ready must be a bool, got %s", v.Type())
		}
		s.ready = bool(b)
	case "readiness_path":
		if v.IsNil() {
			s.readinessPath = ""
			return nil
		}
		p, ok := v.AsString()
		if !ok || !strings.HasPrefix(p.Go(), "/") {
			return vm.Typef("http_server: readiness_path must be a path starting with /, got %s", lib.Display(v))
		}
		s.readinessPath = p.Go()
	case "tls":
		if v.IsNil() {
			return nil
		}
		t, ok := v.Object().(*TLSConfig)
		if !ok {
			return vm.Typef("http_server: tls must be a value of http_server_tls_*, got %s", v.Type())
		}
		s.tls = t
	}
	return nil
}

// Attr is `server.url`, `server.port`, `server.host`, `server.listening`.
func (s *Server) Attr(name string) (vm.Value, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch name {
	case "host":
		if s.addr != nil {
			return vm.Str(s.addr.IP.String()), nil
		}
		return vm.Str(s.host), nil
	case "port":
		if s.addr != nil {
			return lib.IntOf(s.addr.Port), nil
		}
		return lib.IntOf(s.port), nil
	case "url":
		if s.addr == nil {
			return vm.Nil, nil
		}
		return vm.Str(s.urlLocked()), nil
	case "listening":
		return vm.BoolOf(s.state == stateListening), nil
	}
	return vm.Value{}, vm.Runtimef("http_server has no field `%s`", name)
}

func (s *Server) urlLocked() string {
	scheme := "http"
	if s.tls.terminates() {
		scheme = "https"
	}
	return scheme + "://" + s.addr.String()
}

// CallMethod is `server.listen()` and `server.wait(timeout?)`.
func (s *Server) CallMethod(th *vm.Thread, name string, a vm.Args) (vm.Value, bool, error) {
	switch name {
	case "listen":
		v, err := s.listen(th)
		return v, true, err
	case "wait":
		v, err := s.wait(th, a)
		return v, true, err
	case "shutdown":
		v, err := s.shutdown(th, a.At(0), "shutdown")
		return v, true, err
	}
	return vm.Value{}, false, nil
}

// listen opens the listener and serves in the background; it returns
// {host, port, url}. The server stops when the thread that started it
// ends (the program, or the task that called listen), like a spawned task.
func (s *Server) listen(th *vm.Thread) (vm.Value, error) {
	s.mu.Lock()
	switch s.state {
	case stateListening:
		s.mu.Unlock()
		return vm.Value{}, vm.Throwf("http_server: the server is already listening")
	case stateDraining, stateStopped:
		s.mu.Unlock()
		return vm.Value{}, vm.Throwf("http_server: the server was shut down")
	}
	s.mu.Unlock()
	ln, err := net.Listen("tcp", net.JoinHostPort(s.host, strconv.Itoa(s.port)))
	if err != nil {
		return vm.Value{}, vm.Throwf("http_server: cannot listen on %s: %s", net.JoinHostPort(s.host, strconv.Itoa(s.port)), netErrText(err))
	}
	srv := &http.Server{
		Handler:      s,
		ReadTimeout:  s.readTimeout,
		WriteTimeout: s.writeTimeout,
		IdleTimeout:  s.idleTimeout,
		ErrorLog:     log.New(io.Discard, "", 0),
	}
	if s.tls.terminates() {
		srv.TLSConfig = s.tls.cfg.Clone()
		ln = tlsListener(ln, srv.TLSConfig)
	}
	s.mu.Lock()
	s.vm = th.VM()
	s.httpSrv = srv
	s.addr = ln.Addr().(*net.TCPAddr)
	s.state = stateListening
	s.owner = th
	info := lib.DictOf("host", vm.Str(s.addr.IP.String()), "port", lib.IntOf(s.addr.Port), "url", vm.Str(s.urlLocked()))
	s.mu.Unlock()
	th.AddChild(lifetime{s})
	// A listening server can wake the script's waits from outside (a
	// request whose handler sends on a channel), so the deadlock detector
	// must not call a wait for it hopeless: a task of the VM waits, away
	// from the lock like a builtin doing I/O, until the server stops.
	th.VM().Start(vm.RunnerFunc(func(t *vm.Thread) { t.Wait(s.stopped, -1) }))
	go srv.Serve(ln)
	return vm.Of(info), nil
}

func netErrText(err error) string {
	if op, ok := err.(*net.OpError); ok && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// wait blocks the calling task until the server has shut down (true), or
// until timeout passes (false).
func (s *Server) wait(th *vm.Thread, a vm.Args) (vm.Value, error) {
	timeout := time.Duration(-1)
	if a.Given(0) && !a.At(0).IsNil() {
		d, ok := lib.WaitDuration(a.At(0))
		if !ok {
			return vm.Value{}, vm.Typef("http_server.wait: timeout must be a duration, got %s", a.At(0).Type())
		}
		timeout = max(d, 0)
	}
	select {
	case <-s.stopped:
		return vm.True, nil
	default:
	}
	s.mu.Lock()
	idle := s.state == stateIdle
	s.mu.Unlock()
	if idle {
		return vm.Value{}, vm.Throwf("http_server.wait: the server is not listening (call listen() first)")
	}
	fired, err := th.Wait(s.stopped, timeout)
	if err != nil {
		return vm.Value{}, err
	}
	return vm.BoolOf(fired), nil
}

// lifetime ties a listening server to the thread that started it
// (vm.Child): when that thread's work ends, the server shuts down.
type lifetime struct{ s *Server }

func (l lifetime) Cancel() { go l.s.stopDetached() }

func (l lifetime) Done() <-chan struct{} { return l.s.stopped }

// beginShutdown moves the server to draining; it reports false when a
// shutdown already began.
func (s *Server) beginShutdown() (hooks []vm.Value, srv *http.Server, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateDraining || s.state == stateStopped {
		return nil, nil, false
	}
	s.state = stateDraining
	s.ready = false
	s.reason = "shutting down"
	for _, stop := range s.streams {
		stop() // a stream has no natural end; its script sees a disconnect
	}
	hooks = append([]vm.Value(nil), s.hooks...)
	return hooks, s.httpSrv, true
}

// pending returns how many network requests other than self are being
// served, and a channel closed when that number next drops.
func (s *Server) pending(self *vm.Thread) (int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.inFlight
	for c := range s.calls {
		if c.runsOn(self) {
			n--
		}
	}
	return n, s.changed
}

// cancelCalls cancels the requests still being served, but not self's.
func (s *Server) cancelCalls(self *vm.Thread) {
	s.mu.Lock()
	cs := make([]*call, 0, len(s.calls))
	for c := range s.calls {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		if !c.runsOn(self) {
			c.cancel()
		}
	}
}

// shutdown is http_server_shutdown: stop accepting, wait up to the grace
// for the requests being served (the caller's own request, when a handler
// shuts its server down, is not waited for), cancel the rest, then run
// the on_shutdown hooks on the calling thread. It returns true when every
// request finished within the grace. A second shutdown returns true at
// once.
func (s *Server) shutdown(th *vm.Thread, graceArg vm.Value, name string) (vm.Value, error) {
	grace := s.shutdownGrace
	if !graceArg.IsNil() && graceArg.IsValid() {
		d, ok := lib.WaitDuration(graceArg)
		if !ok {
			return vm.Value{}, vm.Typef("%s: timeout must be a duration, got %s", name, graceArg.Type())
		}
		grace = max(d, 0)
	}
	hooks, srv, ok := s.beginShutdown()
	if !ok {
		return vm.True, nil
	}
	drained := true
	if srv != nil {
		stopAccepting(srv)
		limit := time.Now().Add(grace)
		for {
			n, changed := s.pending(th)
			if n <= 0 {
				break
			}
			left := time.Until(limit)
			if left <= 0 {
				drained = false
				s.cancelCalls(th)
				break
			}
			if _, err := th.Wait(changed, left); err != nil {
				s.cancelCalls(th)
				s.finish()
				return vm.Value{}, err
			}
		}
	}
	err := runHooks(th, hooks)
	s.finish()
	if err != nil {
		return vm.Value{}, err
	}
	return vm.BoolOf(drained), nil
}

// stopAccepting starts srv's shutdown and returns once its listener is
// closed, so a connection attempt after http_server_shutdown returns is
// refused rather than accepted and reset. The shutdown goes on in the
// background, closing connections as they become idle.
func stopAccepting(srv *http.Server) {
	closed := make(chan struct{})
	// Shutdown calls the hooks once it has closed the listeners.
	srv.RegisterOnShutdown(func() { close(closed) })
	go srv.Shutdown(doneCtx())
	<-closed
}

// finish marks the server stopped; the thread that started it no longer
// has it to stop.
func (s *Server) finish() {
	s.mu.Lock()
	owner := s.owner
	if s.state != stateStopped {
		s.state = stateStopped
		close(s.stopped)
	}
	s.owner = nil
	s.mu.Unlock()
	if owner != nil {
		owner.RemoveChild(lifetime{s})
	}
}

// runHooks calls each on_shutdown hook in registration order; every hook
// runs, and the first failure is returned.
func runHooks(th *vm.Thread, hooks []vm.Value) error {
	var first error
	for _, h := range hooks {
		if _, err := th.Call(h); err != nil {
			if e := vm.AsError(err); e.Kind == vm.KindExit || e.Kind == vm.KindCancelled {
				return err
			}
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// stopDetached shuts the server down without a thread of its own: the
// thread that started it has ended. The hooks run as a task of the VM.
func (s *Server) stopDetached() {
	hooks, srv, ok := s.beginShutdown()
	if !ok {
		return
	}
	if srv != nil {
		stopAccepting(srv)
		limit := time.NewTimer(s.shutdownGrace)
		defer limit.Stop()
	drain:
		for {
			n, changed := s.pending(nil)
			if n <= 0 {
				break
			}
			select {
			case <-changed:
			case <-limit.C:
				s.cancelCalls(nil)
				break drain
			}
		}
	}
	if len(hooks) > 0 && s.vm != nil {
		done := make(chan struct{})
		s.vm.Start(vm.RunnerFunc(func(th *vm.Thread) {
			defer close(done)
			if err := runHooks(th, hooks); err != nil {
				io.WriteString(th.VM().Stderr, "http_server: on_shutdown hook failed: "+vm.AsError(err).UncaughtText()+"\n")
			}
			th.EndChildren()
		}))
		<-done
	}
	s.finish()
}

// doneCtx is an already cancelled context: http.Server.Shutdown with it
// closes the listener and the idle connections and returns, leaving the
// requests being served to finish (their connections close after them);
// the server counts those requests itself.
func doneCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

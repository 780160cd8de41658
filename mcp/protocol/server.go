package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/harnlang/harn/internal/jsonv"
)

// Protocol versions and _meta keys (docs/spec/mcp-projection.md §3).
const (
	Version20260728 = "2026-07-28"
	LatestReleased  = "2025-11-25"

	MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo      = "io.modelcontextprotocol/clientInfo"
	MetaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	MetaServerInfo      = "io.modelcontextprotocol/serverInfo"
	MetaLogLevel        = "io.modelcontextprotocol/logLevel"
	TasksExtension      = "io.modelcontextprotocol/tasks"
)

var releasedVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

// maxLine bounds one incoming stdio message (64 MiB).
const maxLine = 64 << 20

// Provider is what a server serves. The server answers the protocol
// (lifecycles, envelopes, pagination, tasks, cancellation, errors) and
// asks the provider only for content. List methods return every item;
// the server pages them. Methods are called on the connection's reader
// goroutine unless they return a Handler, which the server runs on the
// executor (see the package comment).
type Provider interface {
	// ServerInfo is initialize's serverInfo and server/discover's
	// _meta serverInfo ({name, version, ...}).
	ServerInfo() *jsonv.Object
	// Instructions are the server instructions ("" for none).
	Instructions() string
	// Capabilities is the capabilities object of both lifecycles.
	Capabilities() *jsonv.Object

	// Tools are the tools/list documents for r's profile.
	Tools(r *Request) ([]*jsonv.Object, *Error)
	// Tool finds a tool for tools/call (false: unknown tool). It is
	// called on the executor.
	Tool(r *Request, name string) (Tool, bool)

	// Resources are the resources/list items.
	Resources(r *Request) ([]any, *Error)
	// ResourceTemplates are the resources/templates/list items.
	ResourceTemplates(r *Request) ([]any, *Error)
	// ReadResource answers resources/read of uri: a result object, an
	// *Error, or a Handler.
	ReadResource(r *Request, uri string) any

	// Prompts are the prompts/list items.
	Prompts(r *Request) ([]any, *Error)
	// GetPrompt answers prompts/get: a result object, an *Error, or a
	// Handler.
	GetPrompt(r *Request) any

	// Complete returns the candidates for a completion/complete whose
	// ref and argument name are present; the server filters, ranks and
	// caps them (docs/spec/mcp-projection.md §14).
	Complete(r *Request, ref CompletionRef, argument, value string) ([]string, *Error)
}

// Tool is a tools/call target.
type Tool interface {
	// TaskSupport is the tool's execution.taskSupport: "forbidden" (or
	// ""), "optional" or "required".
	TaskSupport() string
	// Validate checks the call's arguments; an error (usually -32602)
	// answers the call before any task exists.
	Validate(args any) *Error
	// Call runs the tool on valid arguments and returns the
	// CallToolResult (*jsonv.Object) or an *Error.
	Call(x *Call, args any) any
}

// Handler is an answer that runs provider code on the executor: the
// result object or an *Error (nil sends nothing).
type Handler func(x *Call) any

// CompletionRef is the ref of completion/complete: Type is ref/prompt
// (Name set) or ref/resource (URI set).
type CompletionRef struct {
	Type, Name, URI string
}

// Options configures a Server.
type Options struct {
	// PageSize is the list page size; 0 reads HARN_MCP_LIST_PAGE_SIZE
	// (default 100).
	PageSize int
	// Parallel runs each handler job of a connection on its own
	// goroutine (and task work in the background) instead of one
	// executor in arrival order. Set it when the provider's handlers
	// are safe to run concurrently.
	Parallel bool
}

// Server serves one provider to any number of connections.
type Server struct {
	p     Provider
	opts  Options
	tasks *taskStore
	// jobs: every handler job holds it for reading; Quiesce takes it
	// for writing.
	jobs sync.RWMutex

	// calls are the requests whose handler job is queued or running, on
	// any connection (*Request to *conn), for Drain, and active counts
	// them; once draining, new ones are refused and idle is closed when
	// the last one ends. Every call registers and unregisters itself, so
	// they take no lock: a server-wide mutex there made every call of a
	// busy server queue behind a holder that the OS had descheduled.
	// (See track for why the counter and the flag need no lock.)
	calls    sync.Map
	active   atomic.Int64
	draining atomic.Bool

	mu    sync.Mutex
	conns map[*conn]bool
	// working are the tasks whose work runs, which outlives the call
	// that created them (on HTTP, in parallel mode); Drain waits for
	// them too.
	working map[*task]bool
	idle    chan struct{} // made, under mu, before draining is set
	// stopCtx is every call's ancestor context: Drain cancels it, with
	// ErrShuttingDown as the cause, when its deadline passes. A call's
	// context is made from one of its children, stopShards, picked at
	// random: a context registers each child it has under a mutex of its
	// own, so with one parent every call of the server took one mutex
	// twice (at its start and end), and under load queued there behind a
	// holder the OS had descheduled.
	stopCtx      context.Context
	stop         context.CancelCauseFunc
	stopShards   [stopShardCount]context.Context
	stopShardEnd [stopShardCount]context.CancelFunc // called by Drain with stop
	// httpCalls are the requests in progress on HTTP, for
	// notifications/cancelled.
	httpCalls httpCalls
}

// ErrShuttingDown is the cause of a call context cancelled by Drain.
var ErrShuttingDown = errors.New("server is shutting down")

// shuttingDown answers a call the server will not run to its end.
func shuttingDown() *Error { return Errorf(CodeInternalError, ErrShuttingDown.Error()) }

// NewServer returns a server for p.
func NewServer(p Provider, opts Options) *Server {
	if opts.PageSize <= 0 {
		opts.PageSize = PageSizeFromEnv()
	}
	s := &Server{p: p, opts: opts, tasks: newTaskStore(), conns: map[*conn]bool{}, working: map[*task]bool{}}
	s.stopCtx, s.stop = context.WithCancelCause(context.Background())
	for i := range s.stopShards {
		// Cancelled with stopCtx, and with its cause.
		s.stopShards[i], s.stopShardEnd[i] = context.WithCancel(s.stopCtx)
	}
	return s
}

// stopShardCount is the number of stopShards: enough that the calls of
// 64 busy clients seldom meet on one.
const stopShardCount = 32

// callParent is the parent context of a new call (see stopShards).
func (s *Server) callParent() context.Context {
	return s.stopShards[rand.IntN(stopShardCount)]
}

// Drain stops the server taking calls — a tools/call, resources/read or
// prompts/get received from now on is answered with a JSON-RPC error
// saying the server is shutting down — and waits until every call in
// progress is answered and every task's work has finished. When ctx
// ends first, the calls still running are cancelled (their context's
// cause is ErrShuttingDown) and answered with that error at once,
// whatever their handler answers later; the tasks still working are
// failed with the status message "Tool execution failed: server is
// shutting down" and their work cancelled the same way; and Drain
// returns ctx's error. Either way every call has its answer written (or
// routed to its HTTP response), and every task a terminal status, when
// Drain returns.
func (s *Server) Drain(ctx context.Context) error {
	s.mu.Lock()
	if !s.draining.Load() {
		s.idle = make(chan struct{})
		s.draining.Store(true)
		s.closeIfIdleLocked()
	}
	idle := s.idle
	s.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	cut := map[*Request]*conn{}
	s.calls.Range(func(k, v any) bool {
		cut[k.(*Request)] = v.(*conn)
		return true
	})
	s.mu.Lock()
	cutTasks := maps.Clone(s.working)
	s.mu.Unlock()
	for t := range cutTasks {
		t.finish(shuttingDown())
	}
	// The answers are taken before the calls are cancelled: a handler
	// that returns as soon as it is must not answer first.
	for req := range cut {
		// A call its client cancelled gets no answer, now as ever.
		if req.cancel.isCancelled() || !req.answered.CompareAndSwap(false, true) {
			delete(cut, req)
		}
	}
	s.stop(ErrShuttingDown)
	for _, end := range s.stopShardEnd {
		end() // done already, as stopCtx's children
	}
	for req, c := range cut {
		c.fail(req, shuttingDown())
	}
	return ctx.Err()
}

// Stopped is cancelled, with ErrShuttingDown as the cause, when Drain's
// bound passes and the calls still running are cut short. A provider
// whose handlers do not watch Call.Context interrupts them on it.
func (s *Server) Stopped() context.Context { return s.stopCtx }

// track registers a call about to be queued; false when draining.
//
// It counts the call, registers it, and only then looks at draining,
// while Drain sets draining and only then looks at the count (both
// sequentially consistent atomics): if track saw no drain, Drain's
// look comes later and sees the call, counted and registered, and waits
// for it (or cuts it); if it saw one, it takes the call back and tells
// a drain that may have seen it counted.
func (s *Server) track(req *Request, c *conn) bool {
	s.active.Add(1)
	s.calls.Store(req, c)
	if s.draining.Load() {
		s.untrack(req)
		return false
	}
	return true
}

// untrack removes a call whose job ended.
func (s *Server) untrack(req *Request) {
	s.calls.Delete(req)
	if s.active.Add(-1) == 0 && s.draining.Load() {
		s.mu.Lock()
		s.closeIfIdleLocked()
		s.mu.Unlock()
	}
}

// startWork registers the work of task t, which its call's job starts
// before it ends (so a drain never sees neither).
func (s *Server) startWork(t *task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.working[t] = true
}

// endWork removes a task whose work returned.
func (s *Server) endWork(t *task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.working, t)
	s.closeIfIdleLocked()
}

// closeIfIdleLocked ends a drain's wait once no call runs and no task
// works; call with s.mu held.
func (s *Server) closeIfIdleLocked() {
	if !s.draining.Load() || s.active.Load() > 0 || len(s.working) > 0 {
		return
	}
	select {
	case <-s.idle:
	default:
		close(s.idle)
	}
}

// PageSizeFromEnv is HARN_MCP_LIST_PAGE_SIZE when it is a positive
// integer, else 100.
func PageSizeFromEnv() int {
	if n, err := strconv.Atoi(os.Getenv("HARN_MCP_LIST_PAGE_SIZE")); err == nil && n > 0 {
		return n
	}
	return 100
}

// runJob runs a handler job, holding jobs for reading so that Quiesce
// waits for it.
func (s *Server) runJob(job func()) {
	s.jobs.RLock()
	defer s.jobs.RUnlock()
	job()
}

// Quiesce runs f while no handler job of any connection runs: jobs in
// progress finish first, later ones wait for f.
func (s *Server) Quiesce(f func()) {
	s.jobs.Lock()
	defer s.jobs.Unlock()
	f()
}

// NotifyListChanged sends notifications/<kind>/list_changed, for each
// kind in order, to every stdio connection ready for notifications.
func (s *Server) NotifyListChanged(kinds ...string) {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		if c.ready.Load() && !c.ephemeral {
			for _, k := range kinds {
				c.w.line(notification("notifications/"+k+"/list_changed", nil))
			}
		}
	}
}

// Serve speaks newline-delimited JSON-RPC on r and w until r ends, then
// finishes the calls in progress.
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	c := s.newConn(newWriter(w), false)
	defer c.close()
	lr := &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: maxLine}
	for {
		line, tooLong, err := lr.next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if tooLong {
			c.w.line(errorResponse(nil, Errorf(CodeInvalidRequest, "Invalid Request: message too large")))
			continue
		}
		c.handleLine(line)
	}
}

// conn is one client connection.
type conn struct {
	srv *Server
	w   *writer
	// ephemeral: one HTTP request's connection. It gets no pushed
	// notifications and has no executor: its one request's job runs on
	// the goroutine that handles the request (see enqueue).
	ephemeral bool
	// principal is the identity an HTTP authenticator established.
	principal string

	// Lifecycle (written by the reader goroutine).
	initialized atomic.Bool
	ready       atomic.Bool
	mu          sync.Mutex
	version     string        // negotiated released version
	identity    string        // released client identity
	caps        *jsonv.Object // released client capabilities
	logLevel    string
	subscribed  map[string]bool

	// Requests queued or running, by id key (for cancellation).
	inflight requestTable
	// The server's own requests awaiting the client's answer.
	pending map[string]*pendingCall
	nextID  atomic.Int64

	// The executor's queue: unbounded, so the reader never blocks on it
	// (it must stay free to deliver the client's answers).
	qmu     sync.Mutex
	queued  []func()
	closed  bool
	wake    chan struct{}
	done    chan struct{}
	running sync.WaitGroup // parallel jobs
}

func (s *Server) newConn(w *writer, ephemeral bool) *conn {
	if ephemeral {
		return s.initEphemeral(new(conn), w)
	}
	// pending and subscribed are made on first use: most connections
	// (every HTTP request's) never need them.
	c := &conn{srv: s, w: w}
	c.wake, c.done = make(chan struct{}, 1), make(chan struct{})
	s.mu.Lock()
	s.conns[c] = true
	s.mu.Unlock()
	go c.executor()
	return c
}

// initEphemeral makes c one HTTP request's connection, writing to w.
// Nothing is pushed to it, and it runs its jobs inline: neither the
// registry of connections nor an executor goroutine is needed, which
// saves a request three goroutine hand-offs.
func (s *Server) initEphemeral(c *conn, w *writer) *conn {
	*c = conn{srv: s, w: w, ephemeral: true}
	return c
}

func (c *conn) executor() {
	defer close(c.done)
	for {
		c.qmu.Lock()
		for len(c.queued) == 0 && !c.closed {
			c.qmu.Unlock()
			<-c.wake
			c.qmu.Lock()
		}
		if len(c.queued) == 0 {
			c.qmu.Unlock()
			return
		}
		job := c.queued[0]
		c.queued[0] = nil
		c.queued = c.queued[1:]
		c.qmu.Unlock()
		job()
	}
}

// enqueue hands a job to the executor (or, in parallel mode, to a
// goroutine of its own); false once the connection closed. An ephemeral
// connection runs its job at once on the caller's goroutine: it serves
// one request, so there is no order to keep and no reader to keep free.
func (c *conn) enqueue(job func()) bool {
	if c.ephemeral {
		c.qmu.Lock()
		closed := c.closed
		c.qmu.Unlock()
		if closed {
			return false
		}
		c.srv.runJob(job)
		return true
	}
	if c.srv.opts.Parallel {
		return c.background(job)
	}
	c.qmu.Lock()
	if c.closed {
		c.qmu.Unlock()
		return false
	}
	c.queued = append(c.queued, func() { c.srv.runJob(job) })
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

// background runs a job on a goroutine of its own (parallel mode, and
// task work that must outlive the request that created it); false once
// the connection closed.
func (c *conn) background(job func()) bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if c.closed {
		return false
	}
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		c.srv.runJob(job)
	}()
	return true
}

// close finishes queued calls, then fails the server's outstanding
// requests. An ephemeral connection does not wait for the task work it
// started: that outlives the request, and its transport discards what
// it still writes.
func (c *conn) close() {
	c.qmu.Lock()
	c.closed = true
	c.qmu.Unlock()
	if c.ephemeral {
		c.failPending()
		return
	}
	c.srv.mu.Lock()
	delete(c.srv.conns, c)
	c.srv.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	c.failPending()
	<-c.done
	c.running.Wait()
}

// failPending wakes the handlers waiting for answers to the server's
// own requests: the connection can deliver none now.
func (c *conn) failPending() {
	c.mu.Lock()
	for id, pc := range c.pending {
		close(pc.wake)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *conn) handleLine(line []byte) {
	if blank(line) {
		return
	}
	v, err := jsonv.Parse(line)
	// JSON text is UTF-8 (RFC 8259 §8.1): decoding would turn bad bytes
	// into U+FFFD, and an id must come back exactly as it was sent
	// (docs/spec/mcp-projection.md §2).
	if err != nil || !utf8.Valid(line) {
		c.w.line(errorResponse(unparsedID(line), errParse))
		return
	}
	if elems, ok := v.([]any); ok {
		if c.acceptsBatches() {
			c.batch(line, elems)
		} else {
			c.w.line(errorResponse(nil, errBatch))
		}
		return
	}
	m, id, rerr := decode(v)
	if rerr != nil {
		c.recordUndecoded(m, wireID(id, line), rerr)
		c.w.line(errorResponse(wireID(id, line), rerr))
		return
	}
	m.wire = wireID(m.id, line)
	c.handle(m)
}

func (c *conn) handle(m *message) {
	switch {
	case m.isResponse:
		c.deliver(m)
	case !m.hasID:
		c.notification(m)
	default:
		c.request(m)
	}
}

// deliver routes a response to the server request awaiting it; other
// responses are ignored.
func (c *conn) deliver(m *message) {
	if !m.hasID {
		return
	}
	c.mu.Lock()
	pc, ok := c.pending[idKey(m.id)]
	if ok {
		delete(c.pending, idKey(m.id))
	}
	c.mu.Unlock()
	if ok {
		pc.msg = m
		close(pc.wake)
	}
}

func (c *conn) notification(m *message) {
	switch m.method {
	case "notifications/initialized":
		// Only after initialize: one sent before it finishes no
		// handshake, and list changes must not reach a client that has
		// not negotiated a version (docs/spec/mcp-projection.md §3.1).
		if c.initialized.Load() {
			c.ready.Store(true)
		}
	case "notifications/cancelled":
		id, _ := m.params.Get("requestId")
		c.cancelRequest(id)
	}
}

// cancelRequest cancels an in-flight request by id.
func (c *conn) cancelRequest(id any) {
	c.mu.Lock()
	r := c.inflight.get(idKey(id))
	c.mu.Unlock()
	if r != nil {
		r.cancel.cancel()
	}
}

// request decides the profile of a request, then answers or queues it.
func (c *conn) request(m *message) {
	req := newRequest(m, m.wire, c.principal)
	if m.method == "initialize" {
		c.reply(req, c.initialize(req))
		return
	}
	_, hasMeta := m.params.Get("_meta")
	switch {
	// An HTTP request has no initialize to belong to: it is always in
	// the 2026-07-28 profile, and without _meta it is malformed, not
	// early (docs/spec/orchestrator.md §8 step 5).
	case m.method == "server/discover" || c.ephemeral || (!c.initialized.Load() && hasMeta):
		if rerr := req.modernRequest(); rerr != nil {
			c.refuse(req, rerr)
			return
		}
		c.ready.Store(true)
	case c.initialized.Load():
		c.joinSession(req)
	case m.method == "ping":
		c.reply(req, jsonv.NewObject(0))
		return
	default:
		c.refuse(req, Errorf(CodeNotInitialized, "server not initialized"))
		return
	}
	if meta, ok := m.params.Get("_meta"); ok {
		if mo, ok := meta.(*jsonv.Object); ok {
			req.meta = mo
			if tok, ok := mo.Get("progressToken"); ok {
				switch t := tok.(type) {
				case string:
					req.token = t
				case json.Number:
					if jsonv.IsInteger(t) {
						req.token = t
					}
				}
			}
		}
	}
	c.dispatch(req)
}

// refuse answers a request its lifecycle refuses (not initialized, bad
// 2026-07-28 metadata); a refused tools/call is still told to a
// CallRecorder.
func (c *conn) refuse(req *Request, e *Error) {
	c.recordRefused(req, e)
	c.fail(req, e)
}

// recordRefused tells a CallRecorder of a tools/call refused with e,
// or cancelled before it started (e is CancelledBeforeStart).
func (c *conn) recordRefused(req *Request, e *Error) {
	if r, ok := c.srv.p.(CallRecorder); ok && req.method == "tools/call" {
		name, _ := nameParam(req, "tool")
		x := c.newCall(req, nil)
		r.RefusedCall(x, name, e)
		x.end()
	}
}

// recordUndecoded tells a CallRecorder of a tools/call refused before
// it became a request, its params not being an object: recorded like
// every refused call, tool unknown (its name is in the params it lacks),
// with the session's client identity when a released-profile session
// has one.
func (c *conn) recordUndecoded(m *message, wire any, e *Error) {
	if m == nil || m.method != "tools/call" {
		return
	}
	req := newRequest(m, wire, c.principal)
	if c.initialized.Load() {
		c.joinSession(req)
	}
	c.recordRefused(req, e)
}

// joinSession gives req the negotiated version, client identity and
// capabilities of c's released-profile session (initialize done).
func (c *conn) joinSession(req *Request) {
	c.mu.Lock()
	req.version, req.identity, req.caps = c.version, c.identity, c.caps
	c.mu.Unlock()
}

// initialize is the released lifecycle's handshake. It happens once per
// connection: docs/spec/mcp-projection.md §3.1 is silent on a second one,
// and like the reference SDKs the server refuses it (-32600) and keeps the
// negotiated version and client identity, which a client must not be
// able to change in the middle of a session.
func (c *conn) initialize(req *Request) any {
	if c.initialized.Load() {
		return Errorf(CodeInvalidRequest, "server already initialized")
	}
	p := req.params
	pv, ok := p.Get("protocolVersion")
	requested, isString := pv.(string)
	if !ok || !isString {
		return InvalidParams("invalid MCP initialize params: protocolVersion must be a string")
	}
	cv, _ := p.Get("capabilities")
	caps, ok := cv.(*jsonv.Object)
	if !ok {
		return InvalidParams("invalid MCP initialize params: capabilities must be an object")
	}
	ci, hasInfo := p.Get("clientInfo")
	identity, ok := clientIdentity(ci)
	if !hasInfo || !ok {
		return InvalidParams("invalid MCP initialize params: clientInfo must be an object with a name and a version")
	}
	version := LatestReleased
	if releasedVersions[requested] {
		version = requested
	}
	c.mu.Lock()
	c.version, c.identity, c.caps = version, identity, caps
	c.mu.Unlock()
	c.initialized.Store(true)
	pr := c.srv.p
	res := jsonv.NewObject(4)
	res.Set("protocolVersion", version)
	res.Set("capabilities", pr.Capabilities())
	res.Set("serverInfo", pr.ServerInfo())
	if in := pr.Instructions(); in != "" {
		res.Set("instructions", in)
	}
	return res
}

func (c *conn) discover() any {
	pr := c.srv.p
	res := jsonv.NewObject(7)
	res.Set("resultType", "complete")
	res.Set("supportedVersions", []any{Version20260728})
	res.Set("capabilities", pr.Capabilities())
	res.Set("ttlMs", jsonv.Int(0))
	res.Set("cacheScope", "private")
	meta := jsonv.NewObject(1)
	meta.Set(MetaServerInfo, pr.ServerInfo())
	res.Set("_meta", meta)
	if in := pr.Instructions(); in != "" {
		res.Set("instructions", in)
	}
	return res
}

// listMethods get the 2026 cache envelope (docs/spec/mcp-projection.md §3.2).
var listMethods = map[string]bool{"tools/list": true, "resources/list": true, "resources/templates/list": true, "prompts/list": true}

// envelope adds the 2026-07-28 result envelope to o.
func envelope(req *Request, o *jsonv.Object) {
	if !req.modern {
		return
	}
	if !o.Has("resultType") {
		o.Set("resultType", "complete")
	}
	switch {
	case listMethods[req.method]:
		o.Set("ttlMs", jsonv.Int(5000))
		o.Set("cacheScope", "private")
	case req.method == "resources/read":
		o.Set("ttlMs", jsonv.Int(1000))
		o.Set("cacheScope", "private")
	}
}

// reply answers a request with a result object or an *Error.
func (c *conn) reply(req *Request, result any) {
	if rerr, ok := result.(*Error); ok {
		c.fail(req, rerr)
		return
	}
	o, ok := result.(*jsonv.Object)
	if !ok {
		o = jsonv.NewObject(0)
	}
	envelope(req, o)
	c.send(req, response(req.wire, o))
}

func (c *conn) fail(req *Request, e *Error) { c.send(req, errorResponse(req.wire, e)) }

// send writes req's response, or gives it to req's batch.
func (c *conn) send(req *Request, msg *jsonv.Object) {
	if req.batch != nil {
		req.batch.settle(req, msg)
		return
	}
	c.w.line(msg)
}

// unsupported are the explicitly unsupported features (§10).
var unsupported = map[string]struct{ feature, role, reason string }{
	"sampling/createMessage": {"sampling", "client", "MCP sampling is an embedded input request in stable multi-round-trip results; it cannot be called as a top-level request on an MCP server endpoint."},
	"elicitation/create":     {"elicitation", "client", "MCP elicitation is an embedded input request in stable multi-round-trip results; it cannot be called as a top-level request on an MCP server endpoint."},
	"roots/list":             {"roots", "client", "MCP roots are an embedded input request in stable multi-round-trip results; they cannot be called as a top-level request on an MCP server endpoint."},
	"subscriptions/listen":   {"subscriptions", "server", "Harn does not advertise or implement the request-scoped notification stream."},
}

// UnsupportedFeature is the -32601 answer to an explicitly unsupported
// method (docs/spec/mcp-projection.md §10), or nil for any other method.
func UnsupportedFeature(method, version string) *Error {
	u, ok := unsupported[method]
	if !ok {
		return nil
	}
	data := jsonv.NewObject(7)
	data.Set("type", "mcp.unsupportedFeature")
	data.Set("protocolVersion", version)
	data.Set("method", method)
	data.Set("feature", u.feature)
	data.Set("role", u.role)
	data.Set("status", "unsupported")
	data.Set("reason", u.reason)
	// one prefix for every role: "subscriptions/listen uses the same
	// message prefix" (docs/spec/mcp-projection.md §10)
	return &Error{Code: CodeMethodNotFound, Message: "Unsupported MCP client-bound method: " + method, Data: data}
}

// dispatch answers a request of a known profile: inline, or by queuing
// it on the executor when it runs provider handler code.
func (c *conn) dispatch(req *Request) {
	pr := c.srv.p
	switch req.method {
	case "ping":
		c.reply(req, jsonv.NewObject(0))
	case "server/discover":
		c.reply(req, c.discover())
	case "tools/list":
		docs, rerr := pr.Tools(req)
		if rerr != nil {
			c.fail(req, rerr)
			return
		}
		items := make([]any, len(docs))
		for i, d := range docs {
			items[i] = d
		}
		c.reply(req, c.listResult(req, "tools", items))
	case "tools/call":
		c.queue(req, c.toolsCall)
	case "tasks/get", "tasks/update", "tasks/cancel", "tasks/list":
		c.reply(req, c.taskMethod(req))
	case "resources/list":
		c.replyList(req, "resources", pr.Resources)
	case "resources/templates/list":
		c.replyList(req, "resourceTemplates", pr.ResourceTemplates)
	case "resources/read":
		uv, _ := req.params.Get("uri")
		uri, ok := uv.(string)
		if !ok {
			c.fail(req, InvalidParams("resources/read: uri must be a string"))
			return
		}
		c.answer(req, pr.ReadResource(req, uri))
	case "resources/subscribe", "resources/unsubscribe":
		if !offersSubscribe(pr.Capabilities()) {
			c.fail(req, Errorf(CodeMethodNotFound, "Method not found: "+req.method))
			return
		}
		c.reply(req, c.subscribe(req))
	case "prompts/list":
		c.replyList(req, "prompts", pr.Prompts)
	case "prompts/get":
		if _, rerr := nameParam(req, "prompt"); rerr != nil {
			c.fail(req, rerr)
			return
		}
		c.answer(req, pr.GetPrompt(req))
	case "completion/complete":
		c.reply(req, c.complete(req))
	case "logging/setLevel":
		// A method of a capability the server does not advertise is
		// unknown to it: a client that never saw the capability must
		// not come to rely on the method.
		if !pr.Capabilities().Has("logging") {
			c.fail(req, Errorf(CodeMethodNotFound, "Method not found: "+req.method))
			return
		}
		c.reply(req, c.setLevel(req))
	default:
		if u := UnsupportedFeature(req.method, req.version); u != nil {
			c.fail(req, u)
			return
		}
		c.fail(req, Errorf(CodeMethodNotFound, "Method not found: "+req.method))
	}
}

// answer sends a provider's answer, queuing it when it is a Handler.
func (c *conn) answer(req *Request, res any) {
	if h, ok := res.(Handler); ok {
		c.queue(req, func(x *Call) any { return h(x) })
		return
	}
	c.reply(req, res)
}

// queue runs a handler job for req on the executor. Its answer is
// suppressed when the client cancels it. A tools/call cancelled before
// its job starts never reaches the provider, so a CallRecorder is told
// of it here.
func (c *conn) queue(req *Request, run func(*Call) any) {
	if !c.srv.track(req, c) {
		c.refuse(req, shuttingDown())
		return
	}
	key := idKey(req.id)
	c.mu.Lock()
	c.inflight.put(key, req)
	c.mu.Unlock()
	job := func() {
		defer c.srv.untrack(req)
		var res any
		if !req.cancel.isCancelled() {
			res = guardHandler(func() any {
				x := c.newCall(req, nil)
				defer x.end()
				return x.outcome(run(x))
			})
		} else {
			c.recordRefused(req, CancelledBeforeStart)
		}
		c.mu.Lock()
		c.inflight.remove(key, req)
		c.mu.Unlock()
		switch {
		case !req.answered.CompareAndSwap(false, true):
			// answered already: by Drain, or with a task's creation
		case res != nil && !req.cancel.isCancelled():
			c.reply(req, res)
		case req.batch != nil:
			req.batch.settle(req, nil)
		}
	}
	if !c.enqueue(job) {
		c.srv.untrack(req)
		c.fail(req, shuttingDown())
	}
}

// A requestTable maps id keys to requests. An HTTP request's connection
// only ever holds one, so the first is kept in a field and a map is made
// only for more (a stdio connection's).
type requestTable struct {
	key  string
	req  *Request
	more map[string]*Request
}

func (t *requestTable) get(key string) *Request {
	if t.req != nil && t.key == key {
		return t.req
	}
	return t.more[key]
}

// put adds or replaces the request under key.
func (t *requestTable) put(key string, r *Request) {
	if _, inMore := t.more[key]; !inMore && (t.req == nil || t.key == key) {
		t.key, t.req = key, r
		return
	}
	if t.more == nil {
		t.more = map[string]*Request{}
	}
	t.more[key] = r
}

// remove takes key out if it still maps to r.
func (t *requestTable) remove(key string, r *Request) {
	if t.req == r && t.key == key {
		t.key, t.req = "", nil
	} else if t.more[key] == r {
		delete(t.more, key)
	}
}

// guardHandler runs one request's handler so that a Go panic in it (a
// bug in a builtin or in the projection) is answered as an internal error
// for that request alone: the server keeps reading and serving the others.
func guardHandler(run func() any) (res any) {
	defer func() {
		if r := recover(); r != nil {
			res = Errorf(CodeInternalError, fmt.Sprintf("internal error: %v", r))
		}
	}()
	return run()
}

func (c *conn) replyList(req *Request, key string, list func(*Request) ([]any, *Error)) {
	items, rerr := list(req)
	if rerr != nil {
		c.fail(req, rerr)
		return
	}
	c.reply(req, c.listResult(req, key, items))
}

// listResult pages items into {key: [...], nextCursor?}
// (docs/spec/mcp-projection.md §9).
func (c *conn) listResult(req *Request, key string, items []any) any {
	start, end, next, rerr := c.page(req, len(items))
	if rerr != nil {
		return rerr
	}
	res := jsonv.NewObject(2)
	page := make([]any, 0, end-start)
	page = append(page, items[start:end]...)
	res.Set(key, page)
	if next != "" {
		res.Set("nextCursor", next)
	}
	return res
}

var levelRank = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// levelKnown reports one of the eight MCP log levels.
func levelKnown(level string) bool {
	_, known := levelRank[level]
	return known
}

func (c *conn) setLevel(req *Request) any {
	lv, _ := req.params.Get("level")
	level, _ := lv.(string)
	if !levelKnown(level) {
		return InvalidParams("logging/setLevel: level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	c.mu.Lock()
	c.logLevel = level
	c.mu.Unlock()
	return jsonv.NewObject(0)
}

// offersSubscribe reports whether caps advertise resources.subscribe: a
// server that does not (the orchestrator's, docs/spec/orchestrator.md §6)
// does not know the method.
func offersSubscribe(caps *jsonv.Object) bool {
	rv, _ := caps.Get("resources")
	r, _ := rv.(*jsonv.Object) // nil-safe
	v, _ := r.Get("subscribe")
	return v == true
}

func (c *conn) subscribe(req *Request) any {
	uv, _ := req.params.Get("uri")
	uri, ok := uv.(string)
	if !ok {
		return InvalidParams(req.method + ": uri must be a string")
	}
	c.mu.Lock()
	if req.method == "resources/subscribe" {
		if c.subscribed == nil {
			c.subscribed = map[string]bool{}
		}
		c.subscribed[uri] = true
	} else {
		delete(c.subscribed, uri)
	}
	c.mu.Unlock()
	return jsonv.NewObject(0)
}

// nameParam reads the params.name of a tools/call or prompts/get (what
// names the thing named). A missing or non-string name is -32602 naming
// the param, and the name returned with it is "".
func nameParam(req *Request, what string) (string, *Error) {
	nv, present := req.params.Get("name")
	if name, ok := nv.(string); ok {
		return name, nil
	}
	if !present {
		return "", InvalidParams("Invalid params: " + req.method + " requires params.name, the " + what + " name")
	}
	return "", InvalidParams("Invalid params: " + req.method + " params.name must be a string, not " + string(jsonv.Marshal(nv)))
}

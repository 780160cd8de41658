package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/jsonv"
	"github.com/harnlang/harn/vm"
)

// Protocol versions (mcp-projection.md §3).
const (
	Version20260728 = "2026-07-28"
	latestReleased  = "2025-11-25"

	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
	metaLogLevel        = "io.modelcontextprotocol/logLevel"
	tasksExtension      = "io.modelcontextprotocol/tasks"
)

var releasedVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

// maxLine bounds one incoming message (64 MiB).
const maxLine = 64 << 20

// Options configures a Server.
type Options struct {
	// Watch advertises listChanged and enables Reload (mcp-projection.md §11).
	Watch bool
	// Card is the Server Card (--card), a JSON value, or nil.
	Card any
	// PageSize is the list page size; 0 reads HARN_MCP_LIST_PAGE_SIZE
	// (default 100).
	PageSize int
	// Stderr receives the server's diagnostics (default os.Stderr).
	Stderr io.Writer
}

// Server serves one surface (replaced atomically by Swap) to any number
// of connections.
type Server struct {
	opts    Options
	surface atomic.Pointer[Surface]
	tasks   *taskStore
	// callMu serializes handler calls across connections: a surface's
	// handlers share one VM and one active-request slot.
	callMu sync.Mutex

	mu    sync.Mutex
	conns map[*conn]bool
}

// NewServer returns a server for sf.
func NewServer(sf *Surface, opts Options) *Server {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.PageSize <= 0 {
		opts.PageSize = pageSizeFromEnv()
	}
	s := &Server{opts: opts, tasks: newTaskStore(), conns: map[*conn]bool{}}
	s.surface.Store(sf)
	return s
}

func pageSizeFromEnv() int {
	if n, err := strconv.Atoi(os.Getenv("HARN_MCP_LIST_PAGE_SIZE")); err == nil && n > 0 {
		return n
	}
	return 100
}

// Surface returns the surface now served.
func (s *Server) Surface() *Surface { return s.surface.Load() }

// Swap replaces the served surface between two handler calls of every
// connection, closes the old runtime and sends the list-changed
// notifications to the connections ready for them.
func (s *Server) Swap(sf *Surface) {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	// Every executor is idle while the swap happens: each connection's
	// executor takes the swap as a job and waits for it.
	var wg sync.WaitGroup
	release := make(chan struct{})
	for _, c := range conns {
		wg.Add(1)
		if !c.enqueue(func() { wg.Done(); <-release }) {
			wg.Done()
		}
	}
	wg.Wait()
	old := s.surface.Swap(sf)
	close(release)
	if old != nil && old.Runtime != nil && old != sf {
		old.Runtime.Close()
	}
	for _, c := range conns {
		if c.ready.Load() {
			for _, m := range []string{"notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed"} {
				c.w.line(notification(m, nil))
			}
		}
	}
}

// Serve speaks newline-delimited JSON-RPC on r and w until r ends, then
// finishes the calls in progress.
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	c := s.newConn(newWriter(w))
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
			c.w.line(errorResponse(nil, errorf(codeInvalidRequest, "Invalid Request: message too large")))
			continue
		}
		c.handleLine(line)
	}
}

// conn is one client connection.
type conn struct {
	srv *Server
	w   *writer

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
	inflight map[string]*request
	// The server's own requests awaiting the client's answer.
	pending map[string]*pendingCall
	nextID  atomic.Int64

	// The executor's queue: unbounded, so the reader never blocks on it
	// (it must stay free to deliver the client's answers).
	qmu    sync.Mutex
	queued []func()
	closed bool
	wake   chan struct{}
	done   chan struct{}
}

func (s *Server) newConn(w *writer) *conn {
	c := &conn{srv: s, w: w, inflight: map[string]*request{}, pending: map[string]*pendingCall{},
		subscribed: map[string]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.mu.Lock()
	s.conns[c] = true
	s.mu.Unlock()
	go c.executor()
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

// enqueue hands a job to the executor; false once the connection closed.
func (c *conn) enqueue(job func()) bool {
	c.qmu.Lock()
	if c.closed {
		c.qmu.Unlock()
		return false
	}
	c.queued = append(c.queued, job)
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

// close finishes queued calls, then fails the server's outstanding
// requests.
func (c *conn) close() {
	c.srv.mu.Lock()
	delete(c.srv.conns, c)
	c.srv.mu.Unlock()
	c.qmu.Lock()
	c.closed = true
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	// A handler waiting for the client's answer can get none now.
	c.mu.Lock()
	for id, pc := range c.pending {
		close(pc.wake)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	<-c.done
}

// request is one incoming request with its profile.
type request struct {
	id       any
	method   string
	params   *jsonv.Object
	modern   bool          // 2026-07-28 profile
	version  string        // the profile's protocol version
	identity string        // "<name>/<version>"
	caps     *jsonv.Object // client capabilities (nil when none)
	meta     *jsonv.Object
	logLevel string
	token    any // progress token

	cancelled atomic.Bool
	thread    atomic.Pointer[vm.Thread]
}

func (r *request) profile() tool.MCPProfile {
	if r.modern {
		return tool.MCP20260728
	}
	return tool.MCPReleased
}

// tasksOptIn reports a 2026 request that lists the tasks extension.
func (r *request) tasksOptIn() bool {
	if !r.modern || r.caps == nil {
		return false
	}
	ext, _ := r.caps.Get("extensions")
	eo, ok := ext.(*jsonv.Object)
	return ok && eo.Has(tasksExtension)
}

func (r *request) cancel() {
	r.cancelled.Store(true)
	if th := r.thread.Load(); th != nil {
		th.Cancel()
	}
}

// start records the thread running the request's handler.
func (r *request) start(th *vm.Thread) {
	r.thread.Store(th)
	if r.cancelled.Load() {
		th.Cancel()
	}
}

func (c *conn) handleLine(line []byte) {
	if blank(line) {
		return
	}
	v, err := jsonv.Parse(line)
	if err != nil {
		c.w.line(errorResponse(nil, errorf(codeParseError, "Parse error")))
		return
	}
	m, id, rerr := decode(v)
	if rerr != nil {
		c.w.line(errorResponse(id, rerr))
		return
	}
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
		c.ready.Store(true)
	case "notifications/cancelled":
		id, _ := m.params.Get("requestId")
		c.mu.Lock()
		r := c.inflight[idKey(id)]
		c.mu.Unlock()
		if r != nil {
			r.cancel()
		}
	}
}

// request decides the profile of a request, then answers or queues it.
func (c *conn) request(m *message) {
	req := &request{id: m.id, method: m.method, params: m.params}
	if m.method == "initialize" {
		c.reply(req, c.initialize(req))
		return
	}
	_, hasMeta := m.params.Get("_meta")
	switch {
	case m.method == "server/discover" || (!c.initialized.Load() && hasMeta):
		if rerr := c.modernRequest(req); rerr != nil {
			c.fail(req, rerr)
			return
		}
		c.ready.Store(true)
	case c.initialized.Load():
		c.mu.Lock()
		req.version, req.identity, req.caps = c.version, c.identity, c.caps
		c.mu.Unlock()
	case m.method == "ping":
		c.reply(req, jsonv.NewObject(0))
		return
	default:
		c.fail(req, errorf(codeNotInitialized, "server not initialized"))
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

// modernRequest validates the per-request metadata of a 2026-07-28
// request (mcp-projection.md §3.2).
func (c *conn) modernRequest(req *request) *rpcError {
	names := []string{metaProtocolVersion, metaClientInfo, metaClientCaps}
	malformed := func(keys ...string) *rpcError {
		msg := "request _meta is missing or has malformed required fields: "
		for i, k := range keys {
			if i > 0 {
				msg += ", "
			}
			msg += k
		}
		return invalidParams(msg)
	}
	mv, _ := req.params.Get("_meta")
	meta, ok := mv.(*jsonv.Object)
	if !ok {
		return malformed(names...)
	}
	pv, ok := meta.Get(metaProtocolVersion)
	if !ok {
		return malformed(names...)
	}
	var bad []string
	version, isString := pv.(string)
	if !isString {
		bad = append(bad, metaProtocolVersion)
	} else if version != Version20260728 {
		data := jsonv.NewObject(2)
		data.Set("supported", []any{Version20260728})
		data.Set("requested", version)
		return &rpcError{Code: codeUnsupportedVersion, Message: "Unsupported protocol version", Data: data}
	}
	ci, _ := meta.Get(metaClientInfo)
	identity, ok := clientIdentity(ci)
	if !ok {
		bad = append(bad, metaClientInfo)
	}
	cv, _ := meta.Get(metaClientCaps)
	caps, ok := cv.(*jsonv.Object)
	if !ok {
		bad = append(bad, metaClientCaps)
	}
	if len(bad) > 0 {
		return malformed(bad...)
	}
	req.modern, req.version, req.identity, req.caps = true, Version20260728, identity, caps
	if lv, ok := meta.Get(metaLogLevel); ok {
		req.logLevel, _ = lv.(string)
	}
	return nil
}

// clientIdentity is "<name>/<version>" of a clientInfo object.
func clientIdentity(v any) (string, bool) {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return "unknown", false
	}
	name, ok1 := o.Get("name")
	version, ok2 := o.Get("version")
	ns, ok3 := name.(string)
	vs, ok4 := version.(string)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return "unknown", false
	}
	return ns + "/" + vs, true
}

// initialize is the released lifecycle's handshake.
func (c *conn) initialize(req *request) any {
	p := req.params
	pv, ok := p.Get("protocolVersion")
	requested, isString := pv.(string)
	if !ok || !isString {
		return invalidParams("invalid MCP initialize params: protocolVersion must be a string")
	}
	cv, _ := p.Get("capabilities")
	caps, ok := cv.(*jsonv.Object)
	if !ok {
		return invalidParams("invalid MCP initialize params: capabilities must be an object")
	}
	ci, hasInfo := p.Get("clientInfo")
	identity, ok := clientIdentity(ci)
	if !hasInfo || !ok {
		return invalidParams("invalid MCP initialize params: clientInfo must be an object with a name and a version")
	}
	version := latestReleased
	if releasedVersions[requested] {
		version = requested
	}
	c.mu.Lock()
	c.version, c.identity, c.caps = version, identity, caps
	c.mu.Unlock()
	c.initialized.Store(true)
	sf := c.srv.Surface()
	res := jsonv.NewObject(4)
	res.Set("protocolVersion", version)
	res.Set("capabilities", c.srv.capabilities(sf))
	res.Set("serverInfo", c.srv.serverInfo(sf))
	if sf.Instructions != "" {
		res.Set("instructions", sf.Instructions)
	}
	return res
}

func (s *Server) serverInfo(sf *Surface) *jsonv.Object {
	info := jsonv.NewObject(3)
	info.Set("name", sf.Name)
	info.Set("version", sf.Version)
	if s.opts.Card != nil {
		info.Set("card", s.opts.Card)
	}
	return info
}

// capabilities is the capabilities object of mcp-projection.md §3.3,
// plus the logging capability and resource subscriptions (docs/mcp.md).
func (s *Server) capabilities(sf *Surface) *jsonv.Object {
	caps := jsonv.NewObject(6)
	feature := func(extra ...string) *jsonv.Object {
		o := jsonv.NewObject(2)
		for _, k := range extra {
			o.Set(k, true)
		}
		if s.opts.Watch {
			o.Set("listChanged", true)
		}
		return o
	}
	if len(sf.Catalog.Tools(tool.AudienceMCP)) > 0 || s.opts.Watch {
		caps.Set("tools", feature())
	}
	if sf.Kind == "exports" {
		// The exports surface advertises tools, and the tasks extension
		// only when some export is a @job (mcp-projection.md §3.3).
		caps.Set("logging", jsonv.NewObject(0))
		for _, pt := range sf.Catalog.Tools(tool.AudienceMCP) {
			if pt.Entry().Execution != nil {
				ext := jsonv.NewObject(1)
				ext.Set(tasksExtension, jsonv.NewObject(0))
				caps.Set("extensions", ext)
				break
			}
		}
		return caps
	}
	if len(sf.Resources) > 0 || len(sf.Templates) > 0 || s.opts.Card != nil || s.opts.Watch {
		caps.Set("resources", feature("subscribe"))
	}
	if len(sf.Prompts) > 0 || s.opts.Watch {
		caps.Set("prompts", feature())
	}
	caps.Set("completions", jsonv.NewObject(0))
	caps.Set("logging", jsonv.NewObject(0))
	ext := jsonv.NewObject(2)
	ext.Set(tasksExtension, jsonv.NewObject(0))
	for _, r := range sf.Resources {
		if len(r.URI) > 5 && r.URI[:5] == "ui://" && r.MimeType == "text/html;profile=mcp-app" {
			ui := jsonv.NewObject(1)
			ui.Set("mimeTypes", []any{"text/html;profile=mcp-app"})
			ext.Set("io.modelcontextprotocol/ui", ui)
			break
		}
	}
	caps.Set("extensions", ext)
	return caps
}

// listMethods get the 2026 cache envelope (mcp-projection.md §3.2).
var listMethods = map[string]bool{"tools/list": true, "resources/list": true, "resources/templates/list": true, "prompts/list": true}

// reply answers a request with a result object or an *rpcError.
func (c *conn) reply(req *request, result any) {
	if rerr, ok := result.(*rpcError); ok {
		c.fail(req, rerr)
		return
	}
	o, ok := result.(*jsonv.Object)
	if !ok {
		o = jsonv.NewObject(0)
	}
	if req.modern {
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
	c.w.line(response(req.id, o))
}

func (c *conn) fail(req *request, e *rpcError) { c.w.line(errorResponse(req.id, e)) }

// unsupported are the explicitly unsupported features (§10).
var unsupported = map[string]struct{ feature, role, reason string }{
	"sampling/createMessage": {"sampling", "client", "MCP sampling is an embedded input request in stable multi-round-trip results; it cannot be called as a top-level request on an MCP server endpoint."},
	"elicitation/create":     {"elicitation", "client", "MCP elicitation is an embedded input request in stable multi-round-trip results; it cannot be called as a top-level request on an MCP server endpoint."},
	"roots/list":             {"roots", "client", "MCP roots are an embedded input request in stable multi-round-trip results; they cannot be called as a top-level request on an MCP server endpoint."},
	"subscriptions/listen":   {"subscriptions", "server", "Harn does not advertise or implement the request-scoped notification stream."},
}

// dispatch answers a request of a known profile: inline, or by queuing
// it on the executor when it runs Harn code.
func (c *conn) dispatch(req *request) {
	switch req.method {
	case "ping":
		c.reply(req, jsonv.NewObject(0))
	case "server/discover":
		c.reply(req, c.discover())
	case "tools/list":
		c.reply(req, c.toolsList(req))
	case "tools/call":
		c.queue(req, c.toolsCall)
	case "tasks/get", "tasks/update", "tasks/cancel":
		c.reply(req, c.taskMethod(req))
	case "resources/list":
		c.reply(req, c.resourcesList(req))
	case "resources/templates/list":
		c.reply(req, c.templatesList(req))
	case "resources/read":
		if res, handled := c.readStatic(req); handled {
			c.reply(req, res)
		} else {
			c.queue(req, c.readTemplate)
		}
	case "resources/subscribe", "resources/unsubscribe":
		c.reply(req, c.subscribe(req))
	case "prompts/list":
		c.reply(req, c.promptsList(req))
	case "prompts/get":
		c.queue(req, c.promptsGet)
	case "completion/complete":
		c.reply(req, c.complete(req))
	case "logging/setLevel":
		c.reply(req, c.setLevel(req))
	default:
		if u, ok := unsupported[req.method]; ok {
			data := jsonv.NewObject(7)
			data.Set("type", "mcp.unsupportedFeature")
			data.Set("protocolVersion", req.version)
			data.Set("method", req.method)
			data.Set("feature", u.feature)
			data.Set("role", u.role)
			data.Set("status", "unsupported")
			data.Set("reason", u.reason)
			prefix := "Unsupported MCP client-bound method: "
			if u.role == "server" {
				prefix = "Unsupported MCP server method: "
			}
			c.fail(req, &rpcError{Code: codeMethodNotFound, Message: prefix + req.method, Data: data})
			return
		}
		c.fail(req, errorf(codeMethodNotFound, "Method not found: "+req.method))
	}
}

// queue runs a handler-calling request on the executor. Its answer is
// suppressed when the client cancels it.
func (c *conn) queue(req *request, run func(*request) any) {
	key := idKey(req.id)
	c.mu.Lock()
	c.inflight[key] = req
	c.mu.Unlock()
	job := func() {
		var res any
		if !req.cancelled.Load() {
			res = run(req)
		}
		c.mu.Lock()
		if c.inflight[key] == req {
			delete(c.inflight, key)
		}
		c.mu.Unlock()
		if res != nil && !req.cancelled.Load() {
			c.reply(req, res)
		}
	}
	if !c.enqueue(job) {
		c.fail(req, errorf(codeInternalError, "server is shutting down"))
	}
}

func (c *conn) discover() any {
	sf := c.srv.Surface()
	res := jsonv.NewObject(7)
	res.Set("resultType", "complete")
	res.Set("supportedVersions", []any{Version20260728})
	res.Set("capabilities", c.srv.capabilities(sf))
	res.Set("ttlMs", jsonv.Int(0))
	res.Set("cacheScope", "private")
	meta := jsonv.NewObject(1)
	meta.Set(metaServerInfo, c.srv.serverInfo(sf))
	res.Set("_meta", meta)
	if sf.Instructions != "" {
		res.Set("instructions", sf.Instructions)
	}
	return res
}

var levelRank = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

func (c *conn) setLevel(req *request) any {
	lv, _ := req.params.Get("level")
	level, ok := lv.(string)
	if _, known := levelRank[level]; !ok || !known {
		return invalidParams("logging/setLevel: level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	c.mu.Lock()
	c.logLevel = level
	c.mu.Unlock()
	return jsonv.NewObject(0)
}

func (c *conn) subscribe(req *request) any {
	uv, _ := req.params.Get("uri")
	uri, ok := uv.(string)
	if !ok {
		return invalidParams(fmt.Sprintf("%s: uri must be a string", req.method))
	}
	c.mu.Lock()
	if req.method == "resources/subscribe" {
		c.subscribed[uri] = true
	} else {
		delete(c.subscribed, uri)
	}
	c.mu.Unlock()
	return jsonv.NewObject(0)
}

// page slices a list per the cursor (mcp-projection.md §9).
func (c *conn) page(req *request, n int) (start, end int, next string, rerr *rpcError) {
	bad := invalidParams("invalid " + req.method + " cursor")
	if cv, ok := req.params.Get("cursor"); ok && cv != nil {
		s, ok := cv.(string)
		if !ok {
			return 0, 0, "", bad
		}
		off, ok := decodeCursor(s)
		if !ok {
			return 0, 0, "", bad
		}
		start = off
	}
	if start > n {
		start = n
	}
	size := c.srv.opts.PageSize
	end = n
	if n-start > size {
		end = start + size
		next = encodeCursor(end)
	}
	return start, end, next, nil
}

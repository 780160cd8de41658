package httpserver

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/concurrency"
	"github.com/harnlang/harn/vm"
)

// Network requests. The listener's goroutines never touch Harn values:
// each request becomes a task of the script's VM, spawned (as `spawn`
// does, stdlib/concurrency) as a child of the thread that called
// listen(); the task runs the middleware and the handler on a thread of
// its own while holding the VM lock, converts the response to Go data
// and hands it back. A handler that waits (sleep, a channel, an HTTP
// call) lets other handlers and the script's own tasks run, and what a
// spawned task's end cleans up (its unawaited tasks, its sync permits) is
// cleaned up after a handler too (docs/concurrency.md).

// call is one network request being dispatched.
type call struct {
	s    *Server
	req  *goRequest
	task *concurrency.Task
	resp goResponse

	mu     sync.Mutex
	th     *vm.Thread // the thread serving it, while it runs
	served bool

	// A streamed response: ready is closed once the handler answered,
	// streamed when its body has been served. Until then the handler's
	// task waits, so the tasks it spawned to feed the stream live on;
	// endStream stops the body when that task is stopped first.
	ready     chan struct{}
	streamed  chan struct{}
	endOnce   sync.Once
	streamCtx context.Context
	endStream context.CancelFunc
}

func newCall(s *Server, g *goRequest) *call {
	c := &call{s: s, req: g, ready: make(chan struct{}), streamed: make(chan struct{})}
	c.streamCtx, c.endStream = context.WithCancel(context.Background())
	return c
}

// doneStreaming records that the streamed body ended, letting the
// handler's task finish.
func (c *call) doneStreaming() { c.endOnce.Do(func() { close(c.streamed) }) }

// run is the task's body: it serves the request on th.
func (c *call) run(th *vm.Thread, _ vm.Args) (vm.Value, error) {
	c.mu.Lock()
	c.th = th
	c.mu.Unlock()
	resp, err := c.serve(th)
	c.mu.Lock()
	c.th = nil
	c.resp, c.served = resp, true
	c.mu.Unlock()
	close(c.ready)
	if resp.stream != nil && err == nil {
		if _, werr := th.Wait(c.streamed, -1); werr != nil {
			c.endStream() // the program ends or the task was cancelled
			return vm.Nil, werr
		}
		// The tasks feeding the stream now see their sends fail; give
		// them the shutdown grace to finish before they are cancelled.
		limit := time.Now().Add(c.s.shutdownGrace)
		for _, child := range th.Children() {
			left := time.Until(limit)
			if left <= 0 {
				break
			}
			if _, werr := th.WaitOnTasks(child.Done(), left); werr != nil {
				return vm.Nil, werr
			}
		}
	}
	return vm.Nil, err
}

// serve dispatches the request and converts the response while th still
// holds the VM lock. The failure returned is the task's: exit() ends
// the program, a handler's failure (already answered 500) makes the task
// a failed one, which gives back the sync permits it held; nobody awaits
// the task, so nothing else sees it. A cancelled request answers 503.
func (c *call) serve(th *vm.Thread) (out goResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			e := vm.Runtimef("http_server: %v", p)
			out, err = toGo(c.s.failed(th, c.req, e)), e
		}
	}()
	resp, err := c.s.dispatch(th, c.req)
	if err != nil {
		return toGo(errorResponse(503, "request cancelled")), err
	}
	return toGo(resp), c.req.failure
}

// runsOn reports whether th is the thread serving this request.
func (c *call) runsOn(th *vm.Thread) bool {
	if th == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.th == th
}

// cancel stops the handler at its next check or wait; a request not yet
// started never runs Harn code.
func (c *call) cancel() { c.task.Cancel() }

// response is what to write: the handler's, or 503 when it never ran.
func (c *call) response() goResponse {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.served {
		return toGo(errorResponse(503, "server is shutting down"))
	}
	return c.resp
}

// ServeHTTP is the listener's handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g := &goRequest{
		method:      r.Method,
		path:        r.URL.Path,
		escapedPath: r.URL.EscapedPath(),
		rawQuery:    r.URL.RawQuery,
		header:      r.Header,
		remote:      r.RemoteAddr,
	}
	if r.Host != "" && r.Header.Get("Host") == "" {
		// net/http moves Host out of the header map; handlers see it there
		g.header = r.Header.Clone()
		g.header.Set("Host", r.Host)
	}
	if r.Body != nil {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			g.tooLarge = true
		case err != nil:
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		g.body = body
	}
	c := newCall(s, g)
	s.mu.Lock()
	owner := s.owner
	if owner == nil {
		s.mu.Unlock()
		writeResponse(w, r, toGo(errorResponse(503, "server is shutting down")))
		return
	}
	s.calls[c] = struct{}{}
	s.inFlight++
	b := vm.MakeBuiltin("http_server handler", "", "", c.run)
	c.task = concurrency.Spawn(owner, vm.Of(&b))
	s.mu.Unlock()
	select {
	case <-c.task.Done():
	case <-c.ready:
	case <-r.Context().Done():
		c.cancel() // the client went away
		<-c.task.Done()
		s.release(c)
		if resp := c.response(); resp.stream != nil {
			// It left as the handler returned a stream: serving it on the
			// ended request only records the disconnect, so the script's
			// sends fail instead of queueing for nobody.
			s.serveStream(w, r, c, resp)
		}
		return
	}
	resp := c.response()
	if resp.stream == nil {
		<-c.task.Done()
		s.release(c)
		writeResponse(w, r, resp)
		return
	}
	// The handler is done: a streamed body no longer counts as a request
	// in flight (a shutdown does not wait for it, it ends it).
	s.release(c)
	defer c.doneStreaming()
	s.serveStream(w, r, c, resp)
}

// serveStream writes a streamed response (sse_server_response): the
// headers the hooks and security settings added, then the stream's own
// status, headers and body, until the script ends it, the client goes
// away or the server shuts down. The write timeout does not apply to it.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, c *call, resp goResponse) {
	h := w.Header()
	for _, x := range resp.header {
		switch x.name {
		case "content-length", "transfer-encoding", "connection":
		default:
			h.Set(x.name, x.value)
		}
	}
	ctx, stop := context.WithCancel(r.Context())
	defer stop()
	defer context.AfterFunc(c.streamCtx, stop)()
	key := new(int)
	s.mu.Lock()
	if s.state == stateDraining || s.state == stateStopped || r.Method == "HEAD" {
		stop() // headers only; the script sees a disconnect
	}
	if s.streams == nil {
		s.streams = map[*int]context.CancelFunc{}
	}
	s.streams[key] = stop
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.streams, key)
		s.mu.Unlock()
	}()
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	resp.stream.ServeHTTP(w, r.WithContext(ctx))
}

func writeResponse(w http.ResponseWriter, r *http.Request, resp goResponse) {
	h := w.Header()
	for _, x := range resp.header {
		switch x.name {
		case "content-length", "transfer-encoding", "connection":
			// framing is net/http's: a wrong length would break the connection
		default:
			h.Add(x.name, x.value)
		}
	}
	w.WriteHeader(resp.status)
	if r.Method != "HEAD" {
		w.Write(resp.body)
	}
}

// release forgets a finished request and wakes a shutdown waiting for it.
func (s *Server) release(c *call) {
	s.mu.Lock()
	delete(s.calls, c)
	s.inFlight--
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func tlsListener(ln net.Listener, cfg *tls.Config) net.Listener { return tls.NewListener(ln, cfg) }

package httpserver

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/harnlang/harn/vm"
)

// Network requests. The listener's goroutines never touch Harn values:
// each request is queued as a task of the script's VM (vm.VM.Start, the
// mechanism behind `spawn`), which runs the middleware and the handler on
// a thread of its own while holding the VM lock, converts the response to
// Go data and hands it back. A handler that waits (sleep, a channel, an
// HTTP call) lets other handlers and the script's own tasks run, as a
// spawned task does (docs/concurrency.md).

// call is one network request being dispatched (a vm.Runner).
type call struct {
	s    *Server
	req  *goRequest
	done chan struct{}
	resp goResponse

	mu        sync.Mutex
	th        *vm.Thread // the thread serving it, while it runs
	cancelled bool
}

// RunTask serves the request on th (vm.Runner).
func (c *call) RunTask(th *vm.Thread) bool {
	c.mu.Lock()
	c.th = th
	cancelled := c.cancelled
	c.mu.Unlock()
	if cancelled {
		c.resp = toGo(errorResponse(503, "server is shutting down"))
	} else {
		c.resp = c.serve(th)
	}
	th.EndChildren()
	c.mu.Lock()
	c.th = nil
	c.mu.Unlock()
	close(c.done)
	return true
}

// serve dispatches the request and converts the response while th still
// holds the VM lock.
func (c *call) serve(th *vm.Thread) (out goResponse) {
	defer func() {
		if p := recover(); p != nil {
			err := vm.Runtimef("http_server: %v", p)
			out = toGo(c.s.failed(th, c.req.method, c.req.path, err))
		}
	}()
	resp, err := c.s.dispatch(th, c.req)
	if err != nil {
		e := vm.AsError(err)
		if e.Kind == vm.KindExit && e.Msg != "interrupted" {
			th.VM().ExitAll(e)
		}
		return toGo(errorResponse(503, "request cancelled"))
	}
	return toGo(resp)
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
// started is answered 503 without running Harn code.
func (c *call) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancelled = true
	if c.th != nil {
		c.th.Cancel()
	}
}

// ServeHTTP is the listener's handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g := &goRequest{
		method:   r.Method,
		path:     r.URL.Path,
		rawQuery: r.URL.RawQuery,
		header:   r.Header,
		remote:   r.RemoteAddr,
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
	c := &call{s: s, req: g, done: make(chan struct{})}
	s.mu.Lock()
	v := s.vm
	s.calls[c] = struct{}{}
	s.inFlight++
	s.mu.Unlock()
	defer s.release(c)
	v.Start(c)
	select {
	case <-c.done:
	case <-r.Context().Done():
		c.cancel() // the client went away
		<-c.done
		return
	}
	h := w.Header()
	for _, x := range c.resp.header {
		switch x.name {
		case "content-length", "transfer-encoding", "connection":
			// framing is net/http's: a wrong length would break the connection
		default:
			h.Add(x.name, x.value)
		}
	}
	w.WriteHeader(c.resp.status)
	if r.Method != "HEAD" {
		w.Write(c.resp.body)
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

package streams

import (
	"context"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The server side of SSE (docs/streams.md, "Serving events"). A script's
// HTTP handler creates an SSEResponse with sse_server_response and
// returns it; the Go HTTP server that called the handler sees that the
// value is an http.Handler and calls its ServeHTTP, which writes the
// status and headers and then streams whatever the script sends — the
// sends only queue text, and the serving goroutine is the only one that
// touches the http.ResponseWriter. Serve is the same over any io.Writer.
// Until a writer is attached the text stays queued, which is what the
// test doubles sse_server_mock_receive and sse_server_mock_disconnect
// work on.

// SSEResponse is a streaming event response (type "sse_server").
type SSEResponse struct {
	mu           sync.Mutex
	status       int
	headers      map[string]string
	autoFlush    bool
	pending      []byte
	flushWanted  bool
	signal       chan struct{}
	attached     bool
	closed       bool
	cancelled    bool
	cancelReason string
	disconnected bool
	events       int
	heartbeats   int
	flushes      int
	bytes        int
	mockParser   *sseParser
}

var _ http.Handler = (*SSEResponse)(nil)

func (*SSEResponse) Type() string { return "sse_server" }
func (*SSEResponse) Truth() bool  { return true }
func (s *SSEResponse) Display(sb *strings.Builder) {
	s.mu.Lock()
	state := s.stateLocked()
	s.mu.Unlock()
	display(sb, "sse_server", state)
}

// EqualTo: a response equals only itself.
func (s *SSEResponse) EqualTo(o vm.Value) bool {
	t, ok := o.Object().(*SSEResponse)
	return ok && s == t
}

func (s *SSEResponse) stateLocked() string {
	switch {
	case s.cancelled:
		return "cancelled"
	case s.disconnected:
		return "disconnected"
	case s.closed:
		return "closed"
	}
	return "open"
}

// StatusCode is the HTTP status the response is sent with.
func (s *SSEResponse) StatusCode() int { return s.status }

// Header is the response's headers (names as given; Content-Type
// text/event-stream and Cache-Control no-cache unless overridden).
func (s *SSEResponse) Header() http.Header {
	h := http.Header{}
	for k, v := range s.headers {
		h.Set(k, v)
	}
	return h
}

// ServeHTTP streams the response to an HTTP client: it writes the status
// and headers, then the queued and later text, flushing as asked, until
// the script closes or cancels the response or the client goes away
// (which the script sees as sse_server_disconnected).
func (s *SSEResponse) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, vs := range s.Header() {
		w.Header()[k] = vs
	}
	w.WriteHeader(s.status)
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
		flush = f.Flush
	}
	_ = s.Serve(r.Context(), w, flush)
}

// Serve writes the response body to w until the script closes or
// cancels it, or ctx ends or a write fails (both count as the client
// disconnecting). flush, when not nil, pushes written text to the client.
// Only one Serve may run for a response.
func (s *SSEResponse) Serve(ctx context.Context, w io.Writer, flush func()) error {
	if flush == nil {
		flush = func() {}
	}
	s.mu.Lock()
	if s.attached {
		s.mu.Unlock()
		return errAttached
	}
	s.attached = true
	s.mu.Unlock()
	for {
		s.mu.Lock()
		chunk, wantFlush, end := s.pending, s.flushWanted, s.closed || s.cancelled || s.disconnected
		s.pending, s.flushWanted = nil, false
		signal := s.signal
		s.mu.Unlock()
		if len(chunk) > 0 {
			if _, err := w.Write(chunk); err != nil {
				s.disconnect()
				return err
			}
		}
		if wantFlush {
			flush()
		}
		if end {
			flush()
			return nil
		}
		select {
		case <-signal:
		case <-ctx.Done():
			s.disconnect()
			return ctx.Err()
		}
	}
}

type attachedError struct{}

func (attachedError) Error() string { return "the response is already being served" }

var errAttached error = attachedError{}

func (s *SSEResponse) wakeLocked() {
	close(s.signal)
	s.signal = make(chan struct{})
}

func (s *SSEResponse) disconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.disconnected {
		s.disconnected = true
		s.wakeLocked()
	}
}

// write queues text; ok is false when the client is gone or the response
// was cancelled (nothing is written then).
func (s *SSEResponse) write(name, text string, flush bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancelled || s.disconnected {
		return false, nil
	}
	if s.closed {
		return false, vm.Throwf("%s: the response is closed", name)
	}
	s.pending = append(s.pending, text...)
	s.bytes += len(text)
	if flush {
		s.flushWanted = true
		s.flushes++
	}
	s.wakeLocked()
	return true, nil
}

func newSSEResponse(name string, d *vm.Dict) (*SSEResponse, error) {
	if err := checkKeys(name, d, "status", "headers", "retry", "auto_flush"); err != nil {
		return nil, err
	}
	s := &SSEResponse{status: 200, autoFlush: true, signal: make(chan struct{}), headers: map[string]string{
		"Content-Type":  "text/event-stream; charset=utf-8",
		"Cache-Control": "no-cache",
	}}
	if v, ok := opt(d, "status"); ok {
		n, isInt := v.AsInt()
		if !isInt || n < 200 || n > 599 {
			return nil, vm.Typef("%s: status must be an int from 200 to 599, got %s", name, vm.ToDisplay(v))
		}
		s.status = int(n)
	}
	h, err := headersOpt(name, d)
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		for old := range s.headers {
			if strings.EqualFold(old, k) {
				delete(s.headers, old)
			}
		}
		s.headers[http.CanonicalHeaderKey(k)] = v
	}
	if v, ok := opt(d, "auto_flush"); ok {
		s.autoFlush = v.Truth()
	}
	if v, ok := opt(d, "retry"); ok {
		text, err := formatEvent(name, vm.Of(lib.DictOf("retry", v)))
		if err != nil {
			return nil, err
		}
		s.pending = append(s.pending, text...)
		s.bytes += len(text)
	}
	return s, nil
}

func sseServerArg(name string, a vm.Args) (*SSEResponse, error) {
	s, ok := a.At(0).Object().(*SSEResponse)
	if !ok {
		return nil, vm.Typef("%s: expected an sse_server response, got %s", name, a.At(0).Type())
	}
	return s, nil
}

func init() {
	def("sse_server_response", "sse_server_response(options?)",
		"a streaming text/event-stream response for an HTTP handler to return; options: status, headers, retry, auto_flush",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "sse_server_response"
			d, err := optionsArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			s, err := newSSEResponse(name, d)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(s), nil
		})
	def("sse_server_send", "sse_server_send(sse, event)",
		"send one event ({data, event, id, retry, comment} or a data string) → true, or false when the client is gone or the response was cancelled",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "sse_server_send"
			s, err := sseServerArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			if a.Len() < 2 {
				return vm.Value{}, vm.Throwf("%s requires 2 arguments", name)
			}
			text, err := formatEvent(name, a.At(1))
			if err != nil {
				return vm.Value{}, err
			}
			ok, err := s.write(name, text, s.autoFlush)
			if err != nil {
				return vm.Value{}, err
			}
			if ok {
				s.mu.Lock()
				s.events++
				s.mu.Unlock()
			}
			return vm.BoolOf(ok), nil
		})
	def("sse_server_heartbeat", "sse_server_heartbeat(sse, comment?)",
		"send a comment line that keeps the connection alive (no event reaches the client) → true, or false when the client is gone",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "sse_server_heartbeat"
			s, err := sseServerArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			comment := "heartbeat"
			if a.Given(1) {
				c, ok := a.Str(1)
				if !ok {
					return vm.Value{}, vm.Typef("%s: comment must be a string, got %s", name, a.At(1).Type())
				}
				comment = c
			}
			text, err := formatEvent(name, vm.Of(lib.DictOf("comment", vm.Str(comment))))
			if err != nil {
				return vm.Value{}, err
			}
			ok, err := s.write(name, text, true)
			if err != nil {
				return vm.Value{}, err
			}
			if ok {
				s.mu.Lock()
				s.heartbeats++
				s.mu.Unlock()
			}
			return vm.BoolOf(ok), nil
		})
	def("sse_server_flush", "sse_server_flush(sse)",
		"push the text sent so far to the client (needed only with auto_flush: false) → true, or false when the client is gone",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := sseServerArg("sse_server_flush", a)
			if err != nil {
				return vm.Value{}, err
			}
			ok, err := s.write("sse_server_flush", "", true)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.BoolOf(ok), nil
		})
	def("sse_server_close", "sse_server_close(sse)",
		"end the response after the text sent so far (closing twice is allowed)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := sseServerArg("sse_server_close", a)
			if err != nil {
				return vm.Value{}, err
			}
			s.mu.Lock()
			if !s.closed {
				s.closed = true
				s.flushWanted = true
				s.wakeLocked()
			}
			s.mu.Unlock()
			return vm.Nil, nil
		})
	def("sse_server_status", "sse_server_status(sse)",
		"{status, headers, state, events_sent, heartbeats, flushes, bytes_sent, closed, cancelled, cancel_reason, disconnected, attached}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := sseServerArg("sse_server_status", a)
			if err != nil {
				return vm.Value{}, err
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			names := make([]string, 0, len(s.headers))
			for k := range s.headers {
				names = append(names, k)
			}
			sort.Strings(names)
			hb := vm.NewDictBuilder(len(names))
			for _, k := range names {
				hb.Set(strings.ToLower(k), vm.Str(s.headers[k]))
			}
			reason := vm.Nil
			if s.cancelled {
				reason = vm.Str(s.cancelReason)
			}
			return vm.Of(lib.DictOf("status", lib.IntOf(s.status), "headers", hb.Build(), "state", vm.Str(s.stateLocked()),
				"events_sent", lib.IntOf(s.events), "heartbeats", lib.IntOf(s.heartbeats), "flushes", lib.IntOf(s.flushes),
				"bytes_sent", lib.IntOf(s.bytes), "closed", vm.BoolOf(s.closed), "cancelled", vm.BoolOf(s.cancelled),
				"cancel_reason", reason, "disconnected", vm.BoolOf(s.disconnected), "attached", vm.BoolOf(s.attached))), nil
		})
	def("sse_server_cancel", "sse_server_cancel(sse, reason?)",
		"stop the response from the server side: later sends return false and the stream ends",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := sseServerArg("sse_server_cancel", a)
			if err != nil {
				return vm.Value{}, err
			}
			s.mu.Lock()
			if !s.cancelled {
				s.cancelled = true
				s.cancelReason = "cancelled"
				if a.Given(1) {
					s.cancelReason = a.Text(1)
				}
				s.wakeLocked()
			}
			s.mu.Unlock()
			return vm.Nil, nil
		})
	def("sse_server_cancelled", "sse_server_cancelled(sse)", "whether sse_server_cancel stopped the response",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := sseServerArg("sse_server_cancelled", a)
			if err != nil {
				return vm.Value{}, err
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			return vm.BoolOf(s.cancelled), nil
		})
	def("sse_server_disconnected", "sse_server_disconnected(sse)", "whether the client went away (or sse_server_mock_disconnect said so)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := sseServerArg("sse_server_disconnected", a)
			if err != nil {
				return vm.Value{}, err
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			return vm.BoolOf(s.disconnected), nil
		})
	def("sse_server_mock_receive", "sse_server_mock_receive(sse, options?)",
		"test double: the events a client would have received since the last call → list of {event, data, id, retry}; {raw: true} → the text instead",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "sse_server_mock_receive"
			s, err := sseServerArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			d, err := optionsArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkKeys(name, d, "raw"); err != nil {
				return vm.Value{}, err
			}
			raw := false
			if v, ok := opt(d, "raw"); ok {
				raw = v.Truth()
			}
			s.mu.Lock()
			if s.attached {
				s.mu.Unlock()
				return vm.Value{}, vm.Throwf("%s: the response is being served to a real client", name)
			}
			text := string(s.pending)
			s.pending = nil
			if s.mockParser == nil {
				s.mockParser = newSSEParser()
			}
			defer s.mu.Unlock()
			if raw {
				return vm.Str(text), nil
			}
			out := []vm.Value{}
			s.mockParser.parseText(text, func(e sseEvent) {
				if e.event != "" {
					out = append(out, e.value())
				}
			})
			return vm.Of(vm.NewList(out)), nil
		})
	def("sse_server_mock_disconnect", "sse_server_mock_disconnect(sse)",
		"test double: act as if the client went away; later sends return false",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := sseServerArg("sse_server_mock_disconnect", a)
			if err != nil {
				return vm.Value{}, err
			}
			s.disconnect()
			return vm.Nil, nil
		})
}

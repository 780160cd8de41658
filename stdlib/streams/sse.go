package streams

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/vm"
)

// The SSE client (docs/streams.md, "Server-Sent Events"): sse_connect
// opens the stream and a goroutine parses it into a queue of events that
// sse_receive takes from. With `reconnect`, a stream that ends or fails
// is opened again after the retry delay, sending the last event ID in
// Last-Event-ID.

// SSEConn is a client connection (type "sse_connection").
type SSEConn struct {
	url    string
	events *queue[sseEvent]
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	status int
	mocked bool
}

func (*SSEConn) Type() string { return "sse_connection" }
func (*SSEConn) Truth() bool  { return true }
func (c *SSEConn) Display(sb *strings.Builder) {
	display(sb, "sse_connection", c.url)
}

// EqualTo: a connection equals only itself.
func (c *SSEConn) EqualTo(o vm.Value) bool { t, ok := o.Object().(*SSEConn); return ok && c == t }

// Attr exposes url, status and closed (`conn.url`).
func (c *SSEConn) Attr(name string) (vm.Value, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch name {
	case "url":
		return vm.Str(c.url), nil
	case "status":
		return vm.IntOf(int64(c.status)), nil
	case "closed":
		return vm.BoolOf(c.closed), nil
	case "mocked":
		return vm.BoolOf(c.mocked), nil
	}
	return vm.Value{}, vm.Typef("cannot access property `%s` on sse_connection (expected url, status, closed or mocked)", name)
}

type sseMockKey struct{}

// sseMockSpec is what sse_mock registered for a URL pattern.
type sseMockSpec struct {
	text   string // the events as event-stream text
	status int
}

func sseMocksOf(th *vm.Thread) *mockTable[sseMockSpec] {
	return th.VM().Local(sseMockKey{}, func() any { return &mockTable[sseMockSpec]{} }).(*mockTable[sseMockSpec])
}

type sseOptions struct {
	headers     map[string]string
	lastID      string
	reconnect   int // attempts left; -1 unlimited
	retry       time.Duration
	connTimeout time.Duration
}

func readSSEOptions(name string, d *vm.Dict) (sseOptions, error) {
	o := sseOptions{retry: 3 * time.Second, connTimeout: 30 * time.Second}
	if err := checkKeys(name, d, "headers", "last_event_id", "reconnect", "retry", "timeout"); err != nil {
		return o, err
	}
	h, err := headersOpt(name, d)
	if err != nil {
		return o, err
	}
	o.headers = h
	if v, ok := opt(d, "last_event_id"); ok {
		o.lastID = vm.ToDisplay(v)
	}
	if v, ok := opt(d, "reconnect"); ok {
		switch {
		case v.Kind() == vm.KBool:
			if v.Truth() {
				o.reconnect = -1
			}
		case v.Kind() == vm.KInt:
			n, _ := v.AsInt()
			if n < 0 {
				return o, vm.Typef("%s: reconnect must be a bool or an int of attempts (0 or more), got %d", name, n)
			}
			o.reconnect = int(n)
		default:
			return o, vm.Typef("%s: reconnect must be a bool or an int of attempts, got %s", name, v.Type())
		}
	}
	if v, ok := opt(d, "retry"); ok {
		if o.retry, err = timeoutValue(name, "retry", v); err != nil {
			return o, err
		}
	}
	if v, ok := opt(d, "timeout"); ok {
		if o.connTimeout, err = timeoutValue(name, "timeout", v); err != nil {
			return o, err
		}
	}
	return o, nil
}

// openSSE sends the request and checks the response: a 2xx status and a
// text/event-stream body.
func openSSE(ctx context.Context, url string, o sseOptions, lastID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	for k, v := range o.headers {
		req.Header.Set(k, v)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := streamClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNoContent {
		resp.Body.Close()
		return resp, errNoContent
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body.Close()
		return resp, sseFatal(fmt.Sprintf("HTTP status %d", resp.StatusCode))
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		resp.Body.Close()
		return resp, sseFatal(fmt.Sprintf("expected content-type text/event-stream, got %q", resp.Header.Get("Content-Type")))
	}
	return resp, nil
}

// sseFatal is a response that ends the stream without a reconnection
// (a status other than 2xx, or not an event stream), as in a browser.
type sseFatal string

func (e sseFatal) Error() string { return string(e) }

// errNoContent is a 204 answer: the server asks the client to stop, so
// the stream ends cleanly.
var errNoContent = errors.New("no content")

// streamClient has no overall timeout: a stream lasts as long as it
// lasts; connecting is bounded by the caller's context instead.
var streamClient = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 0}}

// connectSSE opens the first response while the calling thread waits
// (other tasks run; cancellation aborts it).
func connectSSE(th *vm.Thread, name, url string, o sseOptions) (*SSEConn, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &SSEConn{url: url, events: newQueue[sseEvent](), cancel: cancel}
	var resp *http.Response
	var err error
	done := make(chan struct{})
	timer := time.AfterFunc(o.connTimeout, cancel)
	go func() {
		defer close(done)
		resp, err = openSSE(ctx, url, o, o.lastID)
	}()
	if _, werr := th.Wait(done, -1); werr != nil {
		cancel()
		<-done
		if resp != nil && err == nil {
			resp.Body.Close()
		}
		return nil, werr
	}
	if !timer.Stop() && err != nil {
		cancel()
		return nil, timeoutError(fmt.Sprintf("%s: timed out connecting to %s after %s", name, url, vm.FormatDuration(o.connTimeout.Milliseconds())))
	}
	if err == errNoContent {
		cancel()
		c.status = http.StatusNoContent
		c.events.finish(nil)
		return c, nil
	}
	if err != nil {
		cancel()
		return nil, vm.Throwf("%s: %s", name, err)
	}
	c.status = resp.StatusCode
	go c.run(ctx, resp, o)
	return c, nil
}

// run parses responses until the stream ends for good.
func (c *SSEConn) run(ctx context.Context, resp *http.Response, o sseOptions) {
	p := newSSEParser()
	p.lastID = o.lastID
	retry := o.retry
	for {
		err := p.feed(resp.Body, func(e sseEvent) {
			if e.retry >= 0 {
				retry = time.Duration(e.retry) * time.Millisecond
			}
			if e.event != "" {
				c.events.push(e)
			}
		})
		resp.Body.Close()
		if ctx.Err() != nil {
			c.events.finish(nil)
			return
		}
		if o.reconnect == 0 {
			if err != nil {
				c.events.finish(fmt.Errorf("%s", err))
			} else {
				c.events.finish(nil)
			}
			return
		}
		// reconnect: wait the retry delay, then ask for the events after
		// the last ID seen; a failed attempt counts against the limit too.
		for {
			if o.reconnect > 0 {
				o.reconnect--
			}
			t := time.NewTimer(retry)
			select {
			case <-ctx.Done():
				t.Stop()
				c.events.finish(nil)
				return
			case <-t.C:
			}
			next, rerr := openSSE(ctx, c.url, o, p.lastID)
			if rerr == errNoContent {
				c.events.finish(nil)
				return
			}
			if _, fatal := rerr.(sseFatal); fatal {
				c.events.finish(rerr)
				return
			}
			if rerr == nil {
				resp = next
				c.mu.Lock()
				c.status = next.StatusCode
				c.mu.Unlock()
				// a new response starts a fresh block (the old one's
				// unterminated tail is dropped)
				p.data.Reset()
				p.hasData, p.event, p.retry, p.line, p.started, p.pendingCR = false, "", -1, strings.Builder{}, false, false
				break
			}
			if ctx.Err() != nil {
				c.events.finish(nil)
				return
			}
			if o.reconnect == 0 {
				c.events.finish(rerr)
				return
			}
		}
	}
}

// mockSSE opens a connection that replays a mock's events.
func mockSSE(name, url string, spec sseMockSpec) (*SSEConn, error) {
	if spec.status < 200 || spec.status > 299 {
		return nil, vm.Throwf("%s: HTTP status %d", name, spec.status)
	}
	c := &SSEConn{url: url, events: newQueue[sseEvent](), cancel: func() {}, status: spec.status, mocked: true}
	c.events.limit = 0 // filled here, on the calling thread
	p := newSSEParser()
	p.parseText(spec.text, func(e sseEvent) {
		if e.event != "" {
			c.events.push(e)
		}
	})
	c.events.finish(nil)
	return c, nil
}

func init() {
	def("sse_connect", "sse_connect(url, options?)",
		"open a Server-Sent Events stream; options: headers, last_event_id, reconnect (bool or attempts), retry, timeout",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "sse_connect"
			url, err := urlArg(th, name, a, "http", "https")
			if err != nil {
				return vm.Value{}, err
			}
			d, err := optionsArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			o, err := readSSEOptions(name, d)
			if err != nil {
				return vm.Value{}, err
			}
			if spec, pattern, ok := sseMocksOf(th).find(url); ok {
				recordMockCall(th, "sse", "connect", url, "pattern", vm.Str(pattern))
				c, err := mockSSE(name, url, spec)
				if err != nil {
					return vm.Value{}, err
				}
				return vm.Of(c), nil
			}
			c, err := connectSSE(th, name, url, o)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(c), nil
		})
	def("sse_receive", "sse_receive(conn, timeout?)",
		"the next event → {event, data, id, retry}, or nil when the stream has ended; a timeout that passes throws (error_category timeout)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "sse_receive"
			c, err := sseConnArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			timeout, err := timeoutArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			c.mu.Lock()
			closed := c.closed
			c.mu.Unlock()
			if closed {
				return vm.Value{}, vm.Throwf("%s: the connection is closed", name)
			}
			e, ok, err := take(th, name, c.events, timeout)
			if err != nil {
				if _, isVM := err.(*vm.Error); isVM {
					return vm.Value{}, err
				}
				return vm.Value{}, vm.Throwf("%s: %s", name, err)
			}
			if !ok {
				return vm.Nil, nil
			}
			return e.value(), nil
		})
	def("sse_close", "sse_close(conn)", "close the stream (closing twice is allowed)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			c, err := sseConnArg("sse_close", a)
			if err != nil {
				return vm.Value{}, err
			}
			c.mu.Lock()
			c.closed = true
			c.mu.Unlock()
			c.cancel()
			c.events.finish(nil)
			return vm.Nil, nil
		})
	def("sse_event", "sse_event(fields)",
		"one event as event-stream text: fields is {data, event, id, retry, comment} or a data string",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if a.Len() == 0 {
				return vm.Value{}, vm.Throwf("sse_event requires 1 argument")
			}
			s, err := formatEvent("sse_event", a.At(0))
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Str(s), nil
		})
	def("sse_mock", "sse_mock(url_pattern, events)",
		"answer sse_connect to matching URLs (`*` matches anything) with canned events: a list of event dicts or data strings, or {events, status}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "sse_mock"
			pattern, ok := a.Str(0)
			if !ok {
				return vm.Value{}, vm.Typef("%s: url_pattern must be a string, got %s", name, a.At(0).Type())
			}
			spec := sseMockSpec{status: 200}
			events := a.At(1)
			if d, ok := events.AsDict(); ok {
				if err := checkKeys(name, d, "events", "status"); err != nil {
					return vm.Value{}, err
				}
				if s, ok := opt(d, "status"); ok {
					n, isInt := s.AsInt()
					if !isInt || n < 100 || n > 599 {
						return vm.Value{}, vm.Typef("%s: status must be an int from 100 to 599, got %s", name, vm.ToDisplay(s))
					}
					spec.status = int(n)
				}
				events, _ = d.Get("events")
				if !events.IsValid() {
					events = vm.Of(vm.NewList(nil))
				}
			}
			l, ok := events.AsList()
			if !ok {
				return vm.Value{}, vm.Typef("%s: events must be a list of event dicts or strings, got %s", name, events.Type())
			}
			var sb strings.Builder
			for i, e := range l.Items() {
				text, err := formatEvent(name, e)
				if err != nil {
					return vm.Value{}, vm.Throwf("%s: event %d: %s", name, i+1, strings.TrimPrefix(errText(err), name+": "))
				}
				sb.WriteString(text)
			}
			spec.text = sb.String()
			sseMocksOf(th).add(pattern, spec)
			return vm.Nil, nil
		})
}

func sseConnArg(name string, a vm.Args) (*SSEConn, error) {
	c, ok := a.At(0).Object().(*SSEConn)
	if !ok {
		return nil, vm.Typef("%s: expected an sse_connection, got %s", name, a.At(0).Type())
	}
	return c, nil
}

// errText is the message of a failure without its kind prefix.
func errText(err error) string {
	if e, ok := err.(*vm.Error); ok {
		if e.Value.IsValid() {
			return vm.ToDisplay(e.Value)
		}
		return e.Msg
	}
	return err.Error()
}

package streams

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// WebSocket connections (docs/streams.md, "WebSocket"). The RFC 6455
// framing — masking, fragmented messages, ping/pong and the close
// handshake — is github.com/gorilla/websocket's: a goroutine per
// connection reads whole messages (answering pings on the way) into a
// queue that websocket_receive takes from; writes go through one mutex
// because a connection allows one writer at a time.

// wsMsg is one received message; kind is "text", "binary" or "close".
type wsMsg struct {
	kind   string
	data   []byte
	code   int
	reason string
}

func (m wsMsg) value() vm.Value {
	switch m.kind {
	case "text":
		return vm.Of(lib.DictOf("type", vm.Str("text"), "data", vm.Str(lib.LossyUTF8(m.data))))
	case "binary":
		return vm.Of(lib.DictOf("type", vm.Str("binary"), "data", lib.NewBytes(m.data)))
	}
	return vm.Of(lib.DictOf("type", vm.Str("close"), "data", vm.Str(m.reason), "code", lib.IntOf(m.code)))
}

// WebSocket is one connection, client or server side (type "websocket").
type WebSocket struct {
	url      string // client side: the URL dialled; server side: the request URL
	path     string // server side: the route
	server   bool
	protocol string
	headers  *vm.Dict // server side: the request's headers
	conn     *websocket.Conn
	msgs     *queue[wsMsg]
	readDone chan struct{}
	writeMu  sync.Mutex

	mu        sync.Mutex
	closed    bool   // closed by this side
	peerClose *wsMsg // the close message received, once it has been
	mock      *wsMock
}

// wsMock is the state of a websocket_mock connection: no network; the
// script's messages are queued at connect, and with echo each sent
// message is queued again.
type wsMock struct {
	echo  bool
	close wsMsg
	sent  []vm.Value
}

func (*WebSocket) Type() string { return "websocket" }
func (*WebSocket) Truth() bool  { return true }
func (w *WebSocket) Display(sb *strings.Builder) {
	if w.server {
		display(sb, "websocket", w.path)
		return
	}
	display(sb, "websocket", w.url)
}

// EqualTo: a connection equals only itself.
func (w *WebSocket) EqualTo(o vm.Value) bool { t, ok := o.Object().(*WebSocket); return ok && w == t }

// Attr exposes url, path, protocol, headers, closed, mocked and (for a
// mock) sent.
func (w *WebSocket) Attr(name string) (vm.Value, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch name {
	case "url":
		return vm.Str(w.url), nil
	case "path":
		if !w.server {
			return vm.Nil, nil
		}
		return vm.Str(w.path), nil
	case "protocol":
		return vm.Str(w.protocol), nil
	case "headers":
		if w.headers == nil {
			return vm.Of(vm.NewDict()), nil
		}
		return vm.Of(w.headers), nil
	case "closed":
		return vm.BoolOf(w.closed || w.peerClose != nil), nil
	case "mocked":
		return vm.BoolOf(w.mock != nil), nil
	case "sent":
		if w.mock == nil {
			return vm.Nil, nil
		}
		return vm.Of(vm.NewList(append([]vm.Value(nil), w.mock.sent...))), nil
	}
	return vm.Value{}, vm.Typef("cannot access property `%s` on websocket (expected url, path, protocol, headers, closed, mocked or sent)", name)
}

func newWebSocket(conn *websocket.Conn, url string) *WebSocket {
	w := &WebSocket{url: url, conn: conn, msgs: newQueue[wsMsg](), readDone: make(chan struct{}), protocol: conn.Subprotocol()}
	go w.readLoop()
	return w
}

// readLoop queues messages until the connection ends; the last item is
// always a close message (code 1006 when the peer vanished without one).
func (w *WebSocket) readLoop() {
	defer close(w.readDone)
	for {
		mt, data, err := w.conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			m := wsMsg{kind: "close", code: websocket.CloseAbnormalClosure, reason: "connection lost"}
			if errors.As(err, &ce) {
				m.code, m.reason = ce.Code, ce.Text
			} else if errors.Is(err, websocket.ErrReadLimit) {
				m.code, m.reason = websocket.CloseMessageTooBig, "message too big"
				w.writeMu.Lock()
				_ = w.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(m.code, m.reason), time.Now().Add(time.Second))
				w.writeMu.Unlock()
			}
			w.msgs.push(m)
			w.msgs.finish(nil)
			w.conn.Close()
			return
		}
		if mt == websocket.BinaryMessage {
			w.msgs.push(wsMsg{kind: "binary", data: data})
		} else {
			w.msgs.push(wsMsg{kind: "text", data: data})
		}
	}
}

type wsMockKey struct{}

type wsMockSpec struct {
	messages []wsMsg
	echo     bool
	close    wsMsg
}

func wsMocksOf(th *vm.Thread) *mockTable[wsMockSpec] {
	return th.VM().Local(wsMockKey{}, func() any { return &mockTable[wsMockSpec]{} }).(*mockTable[wsMockSpec])
}

// readScriptMessage reads one message of a websocket_mock script: a
// string (text), bytes (binary), or {type, data, code}.
func readScriptMessage(name string, i int, v vm.Value) (wsMsg, error) {
	if s, ok := v.AsString(); ok {
		return wsMsg{kind: "text", data: []byte(s.Go())}, nil
	}
	if b, ok := v.Object().(*lib.Bytes); ok {
		return wsMsg{kind: "binary", data: b.Data()}, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return wsMsg{}, vm.Typef("%s: message %d must be a string, bytes or a {type, data} dict, got %s", name, i, v.Type())
	}
	if err := checkKeys(name, d, "type", "data", "code"); err != nil {
		return wsMsg{}, err
	}
	kind := "text"
	if t, ok := opt(d, "type"); ok {
		kind = vm.ToDisplay(t)
	}
	data, _ := opt(d, "data")
	switch kind {
	case "text":
		return wsMsg{kind: "text", data: []byte(textOf(data))}, nil
	case "binary":
		if b, ok := data.Object().(*lib.Bytes); ok {
			return wsMsg{kind: "binary", data: b.Data()}, nil
		}
		return wsMsg{kind: "binary", data: []byte(textOf(data))}, nil
	case "close":
		code := int64(websocket.CloseNormalClosure)
		if c, ok := opt(d, "code"); ok {
			n, isInt := c.AsInt()
			if !isInt {
				return wsMsg{}, vm.Typef("%s: message %d: code must be an int, got %s", name, i, c.Type())
			}
			code = int64(n)
		}
		return wsMsg{kind: "close", code: int(code), reason: textOf(data)}, nil
	}
	return wsMsg{}, vm.Throwf("%s: message %d: type must be text, binary or close, got %q", name, i, kind)
}

func textOf(v vm.Value) string {
	if !v.IsValid() || v.IsNil() {
		return ""
	}
	return vm.ToDisplay(v)
}

func mockWebSocket(url string, spec wsMockSpec) *WebSocket {
	w := &WebSocket{url: url, msgs: newQueue[wsMsg](), readDone: make(chan struct{}), mock: &wsMock{echo: spec.echo, close: spec.close}}
	close(w.readDone)
	w.msgs.limit = 0 // filled on the calling thread (the script, echoes)
	for _, m := range spec.messages {
		w.msgs.push(m)
		if m.kind == "close" {
			break
		}
	}
	return w
}

func wsArg(name string, a vm.Args) (*WebSocket, error) {
	w, ok := a.At(0).Object().(*WebSocket)
	if !ok {
		return nil, vm.Typef("%s: expected a websocket, got %s", name, a.At(0).Type())
	}
	return w, nil
}

// receive is websocket_receive: the next message; once the peer's close
// message has been received, every later receive returns it again.
func (w *WebSocket) receive(th *vm.Thread, name string, timeout time.Duration) (vm.Value, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return vm.Value{}, vm.Throwf("%s: the connection is closed", name)
	}
	if w.peerClose != nil {
		m := *w.peerClose
		w.mu.Unlock()
		return m.value(), nil
	}
	mock := w.mock
	w.mu.Unlock()
	var m wsMsg
	if mock != nil {
		// a mock never waits: when the script has run out, the peer closes
		x, ok, _, _, _ := w.msgs.poll()
		if ok {
			m = x
		} else {
			m = mock.close
		}
	} else {
		x, ok, err := take(th, name, w.msgs, timeout)
		if err != nil {
			return vm.Value{}, err
		}
		if !ok {
			x = wsMsg{kind: "close", code: websocket.CloseAbnormalClosure, reason: "connection lost"}
		}
		m = x
	}
	if m.kind == "close" {
		w.mu.Lock()
		w.peerClose = &m
		w.mu.Unlock()
	}
	return m.value(), nil
}

// send writes one message while the thread waits (other tasks run; a
// cancelled thread breaks the connection off, since a half-written frame
// cannot be taken back).
func (w *WebSocket) send(th *vm.Thread, name string, v vm.Value) error {
	var mt int
	var data []byte
	if s, ok := v.AsString(); ok {
		mt, data = websocket.TextMessage, []byte(s.Go())
	} else if b, ok := v.Object().(*lib.Bytes); ok {
		mt, data = websocket.BinaryMessage, b.Data()
	} else {
		return vm.Typef("%s: message must be a string or bytes, got %s", name, v.Type())
	}
	w.mu.Lock()
	if w.closed || w.peerClose != nil {
		w.mu.Unlock()
		return vm.Throwf("%s: the connection is closed", name)
	}
	if w.mock != nil {
		w.mock.sent = append(w.mock.sent, v)
		echo := w.mock.echo
		w.mu.Unlock()
		recordMockCall(th, "websocket", "send", w.url, "data", v)
		if echo {
			kind := "text"
			if mt == websocket.BinaryMessage {
				kind = "binary"
			}
			w.msgs.push(wsMsg{kind: kind, data: data})
		}
		return nil
	}
	w.mu.Unlock()
	var werr error
	var smu sync.Mutex
	stopped := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.writeMu.Lock()
		defer w.writeMu.Unlock()
		smu.Lock()
		if stopped {
			smu.Unlock()
			return
		}
		smu.Unlock()
		_ = w.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
		werr = w.conn.WriteMessage(mt, data)
	}()
	if _, err := th.Wait(done, -1); err != nil {
		// closing the socket (safe while another goroutine writes) ends
		// a write in progress at once
		smu.Lock()
		stopped = true
		smu.Unlock()
		w.conn.Close()
		<-done
		return err
	}
	if werr != nil {
		if errors.Is(werr, websocket.ErrCloseSent) {
			return vm.Throwf("%s: the connection is closed", name)
		}
		return vm.Throwf("%s: %s", name, werr)
	}
	return nil
}

// closeWith runs the close handshake: send a close frame, wait up to a
// second for the peer's (the read loop answers and ends), then drop the
// connection. The wait lets other tasks run.
func (w *WebSocket) closeWith(th *vm.Thread, code int, reason string) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	peerClosed := w.peerClose != nil
	mocked := w.mock != nil
	w.mu.Unlock()
	if mocked && th != nil {
		recordMockCall(th, "websocket", "close", w.url, "code", vm.IntOf(int64(code)))
	}
	w.msgs.finish(nil)
	if w.conn == nil {
		return nil
	}
	if !peerClosed {
		w.writeMu.Lock()
		_ = w.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		w.writeMu.Unlock()
		var err error
		if th != nil {
			_, err = th.Wait(w.readDone, time.Second)
		} else {
			select {
			case <-w.readDone:
			case <-time.After(time.Second):
			}
		}
		w.conn.Close()
		return err
	}
	w.conn.Close()
	return nil
}

func validCloseCode(n int64) bool {
	switch {
	case n == 1000 || n == 1001 || n == 1002 || n == 1003:
		return true
	case n >= 1007 && n <= 1014:
		return true
	case n >= 3000 && n <= 4999:
		return true
	}
	return false
}

func init() {
	def("websocket_connect", "websocket_connect(url, options?)",
		"open a WebSocket connection (ws:// or wss://); options: headers, subprotocols, timeout, max_message_bytes",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "websocket_connect"
			url, err := urlArg(th, name, a, "ws", "wss")
			if err != nil {
				return vm.Value{}, err
			}
			d, err := optionsArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkKeys(name, d, "headers", "subprotocols", "timeout", "max_message_bytes"); err != nil {
				return vm.Value{}, err
			}
			hdrs, err := headersOpt(name, d)
			if err != nil {
				return vm.Value{}, err
			}
			protocols, err := stringListOpt(name, d, "subprotocols")
			if err != nil {
				return vm.Value{}, err
			}
			limit, err := sizeOpt(name, d, "max_message_bytes", 16<<20)
			if err != nil {
				return vm.Value{}, err
			}
			timeout := 30 * time.Second
			if v, ok := opt(d, "timeout"); ok {
				if timeout, err = timeoutValue(name, "timeout", v); err != nil {
					return vm.Value{}, err
				}
			}
			if spec, pattern, ok := wsMocksOf(th).find(url); ok {
				recordMockCall(th, "websocket", "connect", url, "pattern", vm.Str(pattern))
				return vm.Of(mockWebSocket(url, spec)), nil
			}
			header := http.Header{}
			for k, v := range hdrs {
				header.Set(k, v)
			}
			dialer := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: timeout, Subprotocols: protocols}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var conn *websocket.Conn
			var resp *http.Response
			var derr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				conn, resp, derr = dialer.DialContext(ctx, url, header)
			}()
			if _, werr := th.Wait(done, -1); werr != nil {
				cancel()
				<-done
				if derr == nil {
					conn.Close()
				}
				return vm.Value{}, werr
			}
			if derr != nil {
				if resp != nil && errors.Is(derr, websocket.ErrBadHandshake) {
					return vm.Value{}, vm.Throwf("%s: handshake failed with HTTP status %d", name, resp.StatusCode)
				}
				var ne net.Error
				if errors.As(derr, &ne) && ne.Timeout() {
					return vm.Value{}, timeoutError(fmt.Sprintf("%s: timed out connecting to %s after %s", name, url, vm.FormatDuration(timeout.Milliseconds())))
				}
				return vm.Value{}, vm.Throwf("%s: %s", name, derr)
			}
			conn.SetReadLimit(limit)
			return vm.Of(newWebSocket(conn, url)), nil
		})
	def("websocket_send", "websocket_send(ws, message)",
		"send a message: a string as a text message, bytes as a binary one",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "websocket_send"
			w, err := wsArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			if a.Len() < 2 {
				return vm.Value{}, vm.Throwf("%s requires 2 arguments", name)
			}
			if err := w.send(th, name, a.At(1)); err != nil {
				return vm.Value{}, err
			}
			return vm.Nil, nil
		})
	def("websocket_receive", "websocket_receive(ws, timeout?)",
		"the next message → {type: text|binary, data} or, once the peer has closed, {type: close, data: reason, code}; a timeout that passes throws (error_category timeout)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "websocket_receive"
			w, err := wsArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			timeout, err := timeoutArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			return w.receive(th, name, timeout)
		})
	def("websocket_close", "websocket_close(ws, code?, reason?)",
		"close the connection with the close handshake (code 1000 unless given; closing twice is allowed)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "websocket_close"
			w, err := wsArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			code := int64(websocket.CloseNormalClosure)
			if a.Given(1) {
				n, ok := a.Int(1)
				if !ok {
					return vm.Value{}, vm.Typef("%s: code must be an int, got %s", name, a.At(1).Type())
				}
				if !validCloseCode(int64(n)) {
					return vm.Value{}, vm.Throwf("%s: invalid close code %d (expected 1000-1003, 1007-1014 or 3000-4999)", name, n)
				}
				code = int64(n)
			}
			reason := ""
			if a.Given(2) {
				reason = a.Text(2)
				if len(reason) > 123 {
					return vm.Value{}, vm.Throwf("%s: reason must be at most 123 bytes, got %d", name, len(reason))
				}
			}
			if err := w.closeWith(th, int(code), reason); err != nil {
				return vm.Value{}, err
			}
			return vm.Nil, nil
		})
	def("websocket_mock", "websocket_mock(url_pattern, script)",
		"answer websocket_connect to matching URLs (`*` matches anything) without the network: script is the messages to receive (strings, bytes, {type, data, code}) or {messages, echo, close}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "websocket_mock"
			pattern, ok := a.Str(0)
			if !ok {
				return vm.Value{}, vm.Typef("%s: url_pattern must be a string, got %s", name, a.At(0).Type())
			}
			spec := wsMockSpec{close: wsMsg{kind: "close", code: websocket.CloseNormalClosure}}
			script := a.At(1)
			if d, ok := script.AsDict(); ok {
				if err := checkKeys(name, d, "messages", "echo", "close"); err != nil {
					return vm.Value{}, err
				}
				if v, ok := opt(d, "echo"); ok {
					spec.echo = v.Truth()
				}
				if v, ok := opt(d, "close"); ok {
					cd, isDict := v.AsDict()
					if !isDict {
						return vm.Value{}, vm.Typef("%s: close must be a {code, data} dict, got %s", name, v.Type())
					}
					m, err := readScriptMessage(name, 0, vm.Of(cd.Set("type", vm.Str("close"))))
					if err != nil {
						return vm.Value{}, err
					}
					spec.close = m
				}
				script = vm.Of(vm.NewList(nil))
				if v, ok := opt(d, "messages"); ok {
					script = v
				}
			}
			l, ok := script.AsList()
			if !ok {
				return vm.Value{}, vm.Typef("%s: script must be a list of messages or a {messages, echo, close} dict, got %s", name, script.Type())
			}
			for i, it := range l.Items() {
				m, err := readScriptMessage(name, i+1, it)
				if err != nil {
					return vm.Value{}, err
				}
				spec.messages = append(spec.messages, m)
			}
			wsMocksOf(th).add(pattern, spec)
			return vm.Nil, nil
		})
}

func stringListOpt(name string, d *vm.Dict, key string) ([]string, error) {
	v, ok := opt(d, key)
	if !ok {
		return nil, nil
	}
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Typef("%s: %s must be a list of strings, got %s", name, key, v.Type())
	}
	out := make([]string, 0, l.Len())
	for _, it := range l.Items() {
		s, ok := it.AsString()
		if !ok {
			return nil, vm.Typef("%s: %s must be a list of strings, got an item of type %s", name, key, it.Type())
		}
		out = append(out, s.Go())
	}
	return out, nil
}

func sizeOpt(name string, d *vm.Dict, key string, def int64) (int64, error) {
	v, ok := opt(d, key)
	if !ok {
		return def, nil
	}
	n, isInt := v.AsInt()
	if !isInt || n < 1 {
		return 0, vm.Typef("%s: %s must be a positive int, got %s", name, key, vm.ToDisplay(v))
	}
	return int64(n), nil
}

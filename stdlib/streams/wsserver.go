package streams

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnlang/harn/vm"
)

// WebSocket servers (docs/streams.md, "Serving WebSocket"): a real
// listener, loopback by default, whose routes upgrade requests to
// connections. The HTTP goroutines only queue the new connections;
// Harn code runs only on the thread that calls websocket_accept, which
// takes the next one and, when its route has a handler, calls the
// handler with it there.

// WSServer is a listening WebSocket server (type "websocket_server").
type WSServer struct {
	host, url string
	port      int
	srv       *http.Server
	upgrader  websocket.Upgrader
	limit     int64
	pending   *queue[*WebSocket]

	mu     sync.Mutex
	routes map[string]vm.Value // path → handler (nil: none)
	conns  map[*WebSocket]bool
	closed bool
}

func (*WSServer) Type() string { return "websocket_server" }
func (*WSServer) Truth() bool  { return true }
func (s *WSServer) Display(sb *strings.Builder) {
	display(sb, "websocket_server", s.url)
}

// EqualTo: a server equals only itself.
func (s *WSServer) EqualTo(o vm.Value) bool { t, ok := o.Object().(*WSServer); return ok && s == t }

// Attr exposes url, host, port, routes and closed.
func (s *WSServer) Attr(name string) (vm.Value, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch name {
	case "url":
		return vm.Str(s.url), nil
	case "host":
		return vm.Str(s.host), nil
	case "port":
		return vm.IntOf(int64(s.port)), nil
	case "closed":
		return vm.BoolOf(s.closed), nil
	case "routes":
		paths := make([]string, 0, len(s.routes))
		for p := range s.routes {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		items := make([]vm.Value, len(paths))
		for i, p := range paths {
			items[i] = vm.Str(p)
		}
		return vm.Of(vm.NewList(items)), nil
	}
	return vm.Value{}, vm.Typef("cannot access property `%s` on websocket_server (expected url, host, port, routes or closed)", name)
}

// ServeHTTP upgrades a request for a routed path and queues the
// connection for websocket_accept.
func (s *WSServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	_, routed := s.routes[r.URL.Path]
	closed := s.closed
	s.mu.Unlock()
	if closed {
		http.Error(w, "server closed", http.StatusServiceUnavailable)
		return
	}
	if !routed {
		http.NotFound(w, r)
		return
	}
	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered with the error status
	}
	conn.SetReadLimit(s.limit)
	u := *r.URL
	u.Scheme, u.Host = "ws", r.Host
	ws := newWebSocket(conn, u.String())
	ws.server, ws.path, ws.headers = true, r.URL.Path, headerDict(r.Header)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.closeWith(nil, websocket.CloseGoingAway, "server closed")
		return
	}
	s.conns[ws] = true
	s.mu.Unlock()
	s.pending.push(ws)
}

func (s *WSServer) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	conns := make([]*WebSocket, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.conns = map[*WebSocket]bool{}
	s.mu.Unlock()
	s.pending.finish(nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.closeWith(nil, websocket.CloseGoingAway, "server closed")
		}()
	}
	wg.Wait()
	// connections accepted by the listener but never taken by
	// websocket_accept
	for {
		c, ok, _, _, _ := s.pending.poll()
		if !ok {
			break
		}
		c.closeWith(nil, websocket.CloseGoingAway, "server closed")
	}
}

func wsServerArg(name string, a vm.Args) (*WSServer, error) {
	s, ok := a.At(0).Object().(*WSServer)
	if !ok {
		return nil, vm.Typef("%s: expected a websocket_server, got %s", name, a.At(0).Type())
	}
	return s, nil
}

func init() {
	def("websocket_server", "websocket_server(options?)",
		"start a WebSocket server listening on host (default 127.0.0.1) and port (default: any free one); options: host, port, allowed_origins, subprotocols, max_message_bytes",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "websocket_server"
			d, err := optionsArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkKeys(name, d, "host", "port", "allowed_origins", "subprotocols", "max_message_bytes"); err != nil {
				return vm.Value{}, err
			}
			host := "127.0.0.1"
			if v, ok := opt(d, "host"); ok {
				h, isStr := v.AsString()
				if !isStr || h.Go() == "" {
					return vm.Value{}, vm.Typef("%s: host must be a non-empty string, got %s", name, v.Type())
				}
				host = h.Go()
			}
			port := int64(0)
			if v, ok := opt(d, "port"); ok {
				n, isInt := v.AsInt()
				if !isInt || n < 0 || n > 65535 {
					return vm.Value{}, vm.Typef("%s: port must be an int from 0 to 65535, got %s", name, vm.ToDisplay(v))
				}
				port = int64(n)
			}
			origins, err := stringListOpt(name, d, "allowed_origins")
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
			ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.FormatInt(port, 10)))
			if err != nil {
				return vm.Value{}, vm.Throwf("%s: cannot listen on %s: %s", name, net.JoinHostPort(host, strconv.FormatInt(port, 10)), listenErrText(err))
			}
			addr := ln.Addr().(*net.TCPAddr)
			s := &WSServer{host: host, port: addr.Port, limit: limit, pending: newQueue[*WebSocket](),
				routes: map[string]vm.Value{}, conns: map[*WebSocket]bool{}}
			s.url = "ws://" + net.JoinHostPort(host, strconv.Itoa(addr.Port))
			s.upgrader = websocket.Upgrader{Subprotocols: protocols, CheckOrigin: originChecker(origins)}
			s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
			go func() { _ = s.srv.Serve(ln) }()
			return vm.Of(s), nil
		})
	def("websocket_route", "websocket_route(server, path, handler?)",
		"accept WebSocket connections on path (other paths answer 404); websocket_accept calls handler(ws), when given, for each",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "websocket_route"
			s, err := wsServerArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			path, ok := a.Str(1)
			if !ok {
				return vm.Value{}, vm.Typef("%s: path must be a string, got %s", name, a.At(1).Type())
			}
			if !strings.HasPrefix(path, "/") {
				return vm.Value{}, vm.Throwf("%s: path must start with /, got %q", name, path)
			}
			handler := vm.Nil
			if a.Given(2) {
				h, ok := a.Callable(2)
				if !ok {
					return vm.Value{}, vm.Typef("%s: handler must be a function, got %s", name, a.At(2).Type())
				}
				handler = h
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.closed {
				return vm.Value{}, vm.Throwf("%s: the server is closed", name)
			}
			s.routes[path] = handler
			return vm.Nil, nil
		})
	def("websocket_accept", "websocket_accept(server, timeout?)",
		"wait for the next connection → the websocket, or, when its route has a handler, the handler's result (the connection is closed when the handler returns)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "websocket_accept"
			s, err := wsServerArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			timeout, err := timeoutArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return vm.Value{}, vm.Throwf("%s: the server is closed", name)
			}
			ws, ok, err := take(th, name, s.pending, timeout)
			if err != nil {
				return vm.Value{}, err
			}
			if !ok {
				return vm.Value{}, vm.Throwf("%s: the server is closed", name)
			}
			s.mu.Lock()
			handler := s.routes[ws.path]
			s.mu.Unlock()
			if !handler.IsValid() || handler.IsNil() {
				return vm.Of(ws), nil
			}
			res, herr := th.Call(handler, vm.Of(ws))
			code, reason := websocket.CloseNormalClosure, ""
			if herr != nil {
				code, reason = websocket.CloseInternalServerErr, "handler failed"
			}
			_ = ws.closeWith(th, code, reason)
			s.mu.Lock()
			delete(s.conns, ws)
			s.mu.Unlock()
			if herr != nil {
				return vm.Value{}, herr
			}
			return res, nil
		})
	def("websocket_server_close", "websocket_server_close(server)",
		"stop listening and close every open connection with code 1001 (closing twice is allowed)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := wsServerArg("websocket_server_close", a)
			if err != nil {
				return vm.Value{}, err
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				s.close()
			}()
			if _, err := th.Wait(done, -1); err != nil {
				<-done
				return vm.Value{}, err
			}
			return vm.Nil, nil
		})
}

// originChecker allows the listed origins ("*": any); with no list,
// only requests without an Origin header or from the server's own host
// (gorilla's same-origin rule).
func originChecker(origins []string) func(*http.Request) bool {
	if len(origins) == 0 {
		return nil
	}
	return func(r *http.Request) bool {
		o := r.Header.Get("Origin")
		if o == "" {
			return true
		}
		for _, x := range origins {
			if x == "*" || strings.EqualFold(x, o) {
				return true
			}
		}
		if u, err := url.Parse(o); err == nil && strings.EqualFold(u.Host, r.Host) {
			return true
		}
		return false
	}
}

func listenErrText(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	return err.Error()
}

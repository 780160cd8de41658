package httpserver

import (
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/vm"
)

func serverArg(name string, a vm.Args) (*Server, error) {
	s, ok := a.At(0).Object().(*Server)
	if !ok {
		return nil, vm.Typef("%s: expected an http_server, got %s", name, a.At(0).Type())
	}
	return s, nil
}

func callableArg(name, what string, a vm.Args, i int) (vm.Value, error) {
	f, ok := a.Callable(i)
	if !ok {
		return vm.Value{}, vm.Typef("%s: %s must be a function, got %s", name, what, a.At(i).Type())
	}
	return f, nil
}

// statusArg reads an optional status argument (default def).
func statusArg(name string, a vm.Args, i int, def int64) (vm.Value, error) {
	if !a.Given(i) || a.At(i).IsNil() {
		return vm.IntOf(def), nil
	}
	if a.At(i).Kind() != vm.KInt {
		return vm.Value{}, vm.Typef("%s: status must be an int, got %s", name, a.At(i).Type())
	}
	return a.At(i), nil
}

func response(name string, status, body, headers vm.Value, ctype string) (vm.Value, error) {
	d, bad := makeResponse(status, body, headers, ctype)
	if bad != "" {
		if strings.HasPrefix(bad, "status must be an int") || strings.HasPrefix(bad, "headers must be a dict") {
			return vm.Value{}, vm.Typef("%s: %s", name, bad)
		}
		return vm.Value{}, vm.Throwf("%s: %s", name, bad)
	}
	return vm.Of(d), nil
}

// defaultSecurity is what http_server_security_headers adds; HSTS is
// added when the server is reached over TLS (its own or an edge's) or
// when asked for.
var defaultSecurity = []header{
	{"content-security-policy", "default-src 'none'; frame-ancestors 'none'"},
	{"cross-origin-opener-policy", "same-origin"},
	{"cross-origin-resource-policy", "same-origin"},
	{"referrer-policy", "no-referrer"},
	{"x-content-type-options", "nosniff"},
	{"x-frame-options", "DENY"},
}

const hstsValue = "max-age=31536000; includeSubDomains"

func init() {
	lib.Def("http_server", "http_server(options?)", "an HTTP server: options {host, port (0 = any free port), max_body, read_timeout, write_timeout, idle_timeout, shutdown_timeout, handler_timeout, expose_errors, ready, readiness_path, tls}; server.listen() starts it", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var opts *vm.Dict
		if a.Given(0) && !a.At(0).IsNil() {
			d, ok := a.Dict(0)
			if !ok {
				return vm.Value{}, lib.BadOptions("http_server", a.At(0))
			}
			opts = d
		}
		s, err := newServer(opts)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(s), nil
	})
	lib.Def("http_server_route", "http_server_route(server, method, pattern, handler)", "route method (or \"*\") and a path pattern (/users/:id, /files/{name}, /static/*) to handler(request) → response; returns the server", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := serverArg("http_server_route", a)
		if err != nil {
			return vm.Value{}, err
		}
		m, ok := a.Str(1)
		if !ok {
			return vm.Value{}, vm.Typef("http_server_route: method must be a string, got %s", a.At(1).Type())
		}
		method := strings.ToUpper(strings.TrimSpace(m))
		if method == "ANY" {
			method = "*"
		}
		if method != "*" && !validHeaderName(method) {
			return vm.Value{}, vm.Throwf("http_server_route: invalid method %q", m)
		}
		p, ok := a.Str(2)
		if !ok {
			return vm.Value{}, vm.Typef("http_server_route: pattern must be a string, got %s", a.At(2).Type())
		}
		segs, bad := compilePattern(p)
		if bad != "" {
			return vm.Value{}, vm.Throwf("http_server_route: %s", bad)
		}
		h, err := callableArg("http_server_route", "handler", a, 3)
		if err != nil {
			return vm.Value{}, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, r := range s.routes {
			if r.method == method && samePattern(r.segs, segs) {
				return vm.Value{}, vm.Throwf("http_server_route: %s %s is already routed (as %s)", method, p, r.pattern)
			}
		}
		s.seq++
		s.routes = append(s.routes, &route{method: method, pattern: p, segs: segs, handler: h, seq: s.seq})
		return a.At(0), nil
	})
	lib.Def("http_server_before", "http_server_before(server, fn)", "run fn(request) before every handler: nil continues, a request dict replaces the request, anything else is the response; returns the server", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return addHook("http_server_before", a, func(s *Server, f vm.Value) { s.before = append(s.before, f) })
	})
	lib.Def("http_server_after", "http_server_after(server, fn)", "run fn(request, response) after every response: nil keeps it, anything else replaces it; returns the server", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return addHook("http_server_after", a, func(s *Server, f vm.Value) { s.after = append(s.after, f) })
	})
	lib.Def("http_server_on_shutdown", "http_server_on_shutdown(server, fn)", "run fn() when the server shuts down, after its requests finished; returns the server", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return addHook("http_server_on_shutdown", a, func(s *Server, f vm.Value) { s.hooks = append(s.hooks, f) })
	})
	lib.Def("http_server_shutdown", "http_server_shutdown(server, timeout?)", "stop accepting requests, wait up to timeout (default shutdown_timeout) for those being served, cancel the rest, run the on_shutdown hooks; true when all finished in time", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := serverArg("http_server_shutdown", a)
		if err != nil {
			return vm.Value{}, err
		}
		return s.shutdown(th, a.At(1), "http_server_shutdown")
	})

	lib.Def("http_server_set_ready", "http_server_set_ready(server, ready, reason?)", "set the readiness a health check reports; returns the server", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := serverArg("http_server_set_ready", a)
		if err != nil {
			return vm.Value{}, err
		}
		b, ok := a.Bool(1)
		if !ok {
			return vm.Value{}, vm.Typef("http_server_set_ready: ready must be a bool, got %s", a.At(1).Type())
		}
		reason := ""
		if a.Given(2) && !a.At(2).IsNil() {
			reason = a.Text(2)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.state == stateDraining || s.state == stateStopped {
			return vm.Value{}, vm.Throwf("http_server_set_ready: the server is shutting down")
		}
		s.ready = b
		s.reason = reason
		return a.At(0), nil
	})
	lib.Def("http_server_ready", "http_server_ready(server)", "whether the server reports itself ready", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := serverArg("http_server_ready", a)
		if err != nil {
			return vm.Value{}, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return vm.BoolOf(s.ready), nil
	})
	lib.Def("http_server_readiness", "http_server_readiness(server)", "{ready, reason, state, in_flight}: state is idle, listening, draining or stopped", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := serverArg("http_server_readiness", a)
		if err != nil {
			return vm.Value{}, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		reason := vm.Nil
		if s.reason != "" {
			reason = vm.Str(s.reason)
		}
		state := [...]string{"idle", "listening", "draining", "stopped"}[s.state]
		return vm.Of(lib.DictOf("ready", vm.BoolOf(s.ready), "reason", reason, "state", vm.Str(state), "in_flight", lib.IntOf(s.inFlight))), nil
	})
	lib.Def("http_server_security_headers", "http_server_security_headers(server, options?)", "add standard security headers to every response that lacks them; options override a header (string) or drop it (false), hsts: bool; returns the server", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := serverArg("http_server_security_headers", a)
		if err != nil {
			return vm.Value{}, err
		}
		set := map[string]string{}
		for _, h := range defaultSecurity {
			set[h.name] = h.value
		}
		if s.tls != nil && (s.tls.mode == "edge" || s.tls.terminates()) {
			set["strict-transport-security"] = hstsValue
		}
		if a.Given(1) && !a.At(1).IsNil() {
			d, ok := a.Dict(1)
			if !ok {
				return vm.Value{}, lib.BadOptions("http_server_security_headers", a.At(1))
			}
			var bad error
			d.Range(func(k string, v vm.Value) bool {
				if k == "hsts" {
					b, ok := v.AsBool()
					if !ok {
						bad = vm.Typef("http_server_security_headers: hsts must be a bool, got %s", v.Type())
						return false
					}
					if b {
						set["strict-transport-security"] = hstsValue
					} else {
						delete(set, "strict-transport-security")
					}
					return true
				}
				name := strings.ToLower(k)
				if !validHeaderName(name) {
					bad = vm.Throwf("http_server_security_headers: invalid header name %q", k)
					return false
				}
				switch {
				case v.IsNil() || v.Kind() == vm.KBool && !v.Truth():
					delete(set, name)
				case v.Kind() == vm.KString:
					if strings.ContainsAny(lib.Display(v), "\r\n") {
						bad = vm.Throwf("http_server_security_headers: header %q holds a line break", name)
						return false
					}
					set[name] = lib.Display(v)
				default:
					bad = vm.Typef("http_server_security_headers: %s must be a string or false, got %s", k, v.Type())
					return false
				}
				return true
			})
			if bad != nil {
				return vm.Value{}, bad
			}
		}
		names := make([]string, 0, len(set))
		for k := range set {
			names = append(names, k)
		}
		sort.Strings(names)
		hs := make([]header, len(names))
		for i, k := range names {
			hs[i] = header{k, set[k]}
		}
		s.mu.Lock()
		s.security = hs
		s.mu.Unlock()
		return a.At(0), nil
	})

	lib.Def("http_response", "http_response(status, body?, headers?) -> dict", "a response {status, headers, body}: a string body is text, bytes binary, any other value JSON", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) {
			return vm.Value{}, lib.ArgCountError("http_response", 1)
		}
		if a.At(0).Kind() != vm.KInt {
			return vm.Value{}, vm.Typef("http_response: status must be an int, got %s", a.At(0).Type())
		}
		return response("http_response", a.At(0), a.At(1), a.At(2), "")
	})
	lib.Def("http_response_json", "http_response_json(value, status?, headers?) -> dict", "a JSON response (status 200 by default)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		st, err := statusArg("http_response_json", a, 1, 200)
		if err != nil {
			return vm.Value{}, err
		}
		if err := json.RefuseHandle("http_response_json", a.At(0)); err != nil {
			return vm.Value{}, err
		}
		body := vm.Str(json.Stringify(a.At(0)))
		return response("http_response_json", st, body, a.At(2), jsonType)
	})
	lib.Def("http_response_text", "http_response_text(text, status?, headers?) -> dict", "a text/plain response (status 200 by default)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		st, err := statusArg("http_response_text", a, 1, 200)
		if err != nil {
			return vm.Value{}, err
		}
		return response("http_response_text", st, vm.Str(a.Text(0)), a.At(2), textType)
	})
	lib.Def("http_response_bytes", "http_response_bytes(data, status?, headers?) -> dict", "a binary response (application/octet-stream unless the headers give a content-type)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !lib.IsBytes(a.At(0)) {
			return vm.Value{}, vm.Typef("http_response_bytes: expected bytes, got %s", a.At(0).Type())
		}
		st, err := statusArg("http_response_bytes", a, 1, 200)
		if err != nil {
			return vm.Value{}, err
		}
		return response("http_response_bytes", st, a.At(0), a.At(2), binaryType)
	})
	lib.Def("http_header", "http_header(message, name)", "a header of a request or response (or of a headers dict), case-insensitive; nil when absent", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d, ok := a.Dict(0)
		if !ok {
			return vm.Value{}, vm.Typef("http_header: expected a request or response dict, got %s", a.At(0).Type())
		}
		if h, ok := d.Get("headers"); ok {
			hd, ok := h.AsDict()
			if !ok {
				return vm.Value{}, vm.Typef("http_header: headers must be a dict, got %s", h.Type())
			}
			d = hd
		}
		name, ok := a.Str(1)
		if !ok {
			return vm.Value{}, vm.Typef("http_header: name must be a string, got %s", a.At(1).Type())
		}
		want := strings.ToLower(name)
		found := vm.Nil
		d.Range(func(k string, v vm.Value) bool {
			if strings.ToLower(k) != want {
				return true
			}
			if l, ok := v.AsList(); ok {
				parts := make([]string, 0, l.Len())
				for _, x := range l.Items() {
					parts = append(parts, lib.Display(x))
				}
				found = vm.Str(strings.Join(parts, ", "))
			} else {
				found = vm.Str(lib.Display(v))
			}
			return false
		})
		return found, nil
	})

	lib.Def("http_server_request", "http_server_request(server, method, path, options?) -> dict", "serve a request in-process, without the network → {status, headers, body, json, ok}; options {headers, body, json, query, remote_addr}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := serverArg("http_server_request", a)
		if err != nil {
			return vm.Value{}, err
		}
		m, ok := a.Str(1)
		if !ok {
			return vm.Value{}, vm.Typef("http_server_request: method must be a string, got %s", a.At(1).Type())
		}
		p, ok := a.Str(2)
		if !ok {
			return vm.Value{}, vm.Typef("http_server_request: path must be a string, got %s", a.At(2).Type())
		}
		var opts *vm.Dict
		if a.Given(3) && !a.At(3).IsNil() {
			if opts, ok = a.Dict(3); !ok {
				return vm.Value{}, lib.BadOptions("http_server_request", a.At(3))
			}
		}
		g, err := s.inProcessRequest("http_server_request", m, p, opts)
		if err != nil {
			return vm.Value{}, err
		}
		resp, err := s.dispatch(th, g)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(clientView(th, resp)), nil
	})
	lib.Def("http_server_test", "http_server_test(server, cases) -> dict", "run request cases in-process and check their expectations → {ok, passed, failed, results}; a case is {name?, method?, path, headers?, body?, json?, query?, expect: {status?, body?, body_contains?, json?, headers?}}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, err := serverArg("http_server_test", a)
		if err != nil {
			return vm.Value{}, err
		}
		cases, ok := a.List(1)
		if !ok {
			return vm.Value{}, vm.Typef("http_server_test: cases must be a list, got %s", a.At(1).Type())
		}
		return s.runTests(th, cases)
	})
}

func addHook(name string, a vm.Args, add func(*Server, vm.Value)) (vm.Value, error) {
	s, err := serverArg(name, a)
	if err != nil {
		return vm.Value{}, err
	}
	f, err := callableArg(name, "fn", a, 1)
	if err != nil {
		return vm.Value{}, err
	}
	s.mu.Lock()
	add(s, f)
	s.mu.Unlock()
	return a.At(0), nil
}

func samePattern(a, b []segment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].kind != b[i].kind || a[i].kind == segLiteral && a[i].text != b[i].text {
			return false
		}
	}
	return true
}

var requestOptions = []string{"headers", "body", "json", "query", "remote_addr"}

// inProcessRequest builds the request http_server_request (and a case of
// http_server_test) serves.
func (s *Server) inProcessRequest(name, method, target string, opts *vm.Dict) (*goRequest, error) {
	method = strings.ToUpper(strings.TrimSpace(method))
	if !validHeaderName(method) {
		return nil, vm.Throwf("%s: invalid method %q", name, method)
	}
	if !strings.HasPrefix(target, "/") {
		return nil, vm.Throwf("%s: path must start with /, got %q", name, target)
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, vm.Throwf("%s: invalid path %q", name, target)
	}
	g := &goRequest{method: method, path: u.Path, escapedPath: u.EscapedPath(), rawQuery: u.RawQuery, header: http.Header{}, remote: "in-process", inProcess: true}
	if opts == nil {
		return g, nil
	}
	if err := lib.CheckOptions(name, opts, requestOptions); err != nil {
		return nil, err
	}
	if h, ok := opts.Get("headers"); ok && !h.IsNil() {
		hd, ok := h.AsDict()
		if !ok {
			return nil, vm.Typef("%s: headers must be a dict, got %s", name, h.Type())
		}
		hd.Range(func(k string, v vm.Value) bool {
			for _, x := range optionValues(v) {
				g.header.Add(k, x)
			}
			return true
		})
	}
	if q, ok := opts.Get("query"); ok && !q.IsNil() {
		qd, ok := q.AsDict()
		if !ok {
			return nil, vm.Typef("%s: query must be a dict, got %s", name, q.Type())
		}
		vals, _ := url.ParseQuery(g.rawQuery)
		qd.Range(func(k string, v vm.Value) bool {
			for _, x := range optionValues(v) {
				vals.Add(k, x)
			}
			return true
		})
		g.rawQuery = vals.Encode()
	}
	j, hasJSON := opts.Get("json")
	b, hasBody := opts.Get("body")
	switch {
	case hasJSON && hasBody && !b.IsNil():
		return nil, vm.Throwf("%s: give body or json, not both", name)
	case hasJSON:
		if err := json.RefuseHandle(name, j); err != nil {
			return nil, err
		}
		g.body = []byte(json.Stringify(j))
		if g.header.Get("Content-Type") == "" {
			g.header.Set("Content-Type", jsonType)
		}
	case hasBody && !b.IsNil():
		if by, ok := b.Object().(*lib.Bytes); ok {
			g.body = by.Data()
		} else if b.Kind() == vm.KString {
			g.body = []byte(lib.Display(b))
		} else {
			return nil, vm.Typef("%s: body must be a string or bytes, got %s (use json: for values)", name, b.Type())
		}
	}
	if r, ok := opts.Get("remote_addr"); ok && !r.IsNil() {
		g.remote = lib.Display(r)
	}
	if int64(len(g.body)) > s.maxBody {
		g.tooLarge = true
		g.body = nil
	}
	return g, nil
}

// optionValues are the texts a header or query parameter of a request's
// options stands for: a list is the parameter repeated, and nil leaves it
// out, as the HTTP client reads them (docs/http-client.md).
func optionValues(v vm.Value) []string {
	items := []vm.Value{v}
	if l, ok := v.AsList(); ok {
		items = l.Items()
	}
	out := make([]string, 0, len(items))
	for _, x := range items {
		if !x.IsNil() {
			out = append(out, lib.Display(x))
		}
	}
	return out
}

// clientView is what http_server_request returns: the response as a
// client sees it, {status, headers, body, json, ok}, the body as text,
// and for a streamed response the stream itself.
func clientView(th *vm.Thread, resp *vm.Dict) *vm.Dict {
	g := toGo(resp)
	hb := vm.NewDictBuilder(len(g.header))
	var ct string
	joined := map[string][]string{}
	var order []string
	for _, h := range g.header {
		if _, seen := joined[h.name]; !seen {
			order = append(order, h.name)
		}
		joined[h.name] = append(joined[h.name], h.value)
		if h.name == "content-type" && ct == "" {
			ct = h.value
		}
	}
	for _, k := range order {
		hb.Set(k, vm.Str(strings.Join(joined[k], ", ")))
	}
	body := lib.LossyUTF8(g.body)
	parsed := vm.Nil
	if isJSONType(ct) && body != "" {
		if v, err := json.ParseOn(th, body); err == nil {
			parsed = v
		}
	}
	view := lib.DictOf("status", lib.IntOf(g.status), "headers", hb.Build(), "body", vm.Str(body), "json", parsed,
		"ok", vm.BoolOf(g.status >= 200 && g.status < 300))
	if sv, ok := resp.Get("stream"); ok && g.stream != nil {
		// a streamed body: read it with sse_server_mock_receive(view.stream)
		view = view.Set("stream", sv)
	}
	return view
}

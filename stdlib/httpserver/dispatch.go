package httpserver

import (
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/vm"
)

// goRequest is a request as read from the network or built by
// http_server_request, before it becomes a Harn dict.
type goRequest struct {
	method string
	path   string // percent-decoded
	// escapedPath is the path as sent: route matching splits it before
	// decoding, so that an escaped "/" (%2F) stays inside its segment.
	escapedPath string
	rawQuery    string
	header      http.Header
	body        []byte
	remote      string
	tooLarge    bool
	inProcess   bool
	// failure is the first failure a hook or handler answered with a 500
	// (or the handler timeout): the task serving a network request ends
	// with it, so that what it held is given back as for a failed task.
	failure error
}

// goResponse is a response ready to be written.
type goResponse struct {
	status int
	header []header // lower-case names, in order
	body   []byte
	stream http.Handler // a streamed body (sse_server_response), or nil
}

// streamResponse is a handler result whose body is streamed after the
// handler returns: an sse_server_response (stdlib/streams' SSEResponse).
// Its status and headers start the response dict; the value itself rides
// along under "stream".
type streamResponse interface {
	http.Handler
	StatusCode() int
	Header() http.Header
}

// streamOf is the streamed response v holds, if any.
func streamOf(v vm.Value) (streamResponse, bool) {
	if !v.IsValid() {
		return nil, false
	}
	sr, ok := v.Object().(streamResponse)
	return sr, ok
}

// requestDict is the request a handler receives: {method, path, params,
// query, headers, body, json, remote_addr}.
func requestDict(th *vm.Thread, g *goRequest) *vm.Dict {
	q, _ := url.ParseQuery(g.rawQuery)
	qb := vm.NewDictBuilder(len(q))
	for k, vs := range q {
		if len(vs) == 1 {
			qb.Set(k, vm.Str(vs[0]))
		} else {
			qb.Set(k, vm.Of(lib.StrList(vs)))
		}
	}
	hb := vm.NewDictBuilder(len(g.header))
	for k, vs := range g.header {
		hb.Set(strings.ToLower(k), vm.Str(strings.Join(vs, ", ")))
	}
	body := lib.LossyUTF8(g.body)
	parsed := vm.Nil
	if isJSONType(g.header.Get("Content-Type")) && len(g.body) > 0 {
		if v, err := json.ParseOn(th, body); err == nil {
			parsed = v
		}
	}
	return lib.DictOf(
		"method", vm.Str(g.method),
		"path", vm.Str(g.path),
		"params", vm.NewDict(),
		"query", qb.Build(),
		"headers", hb.Build(),
		"body", vm.Str(body),
		"json", parsed,
		"remote_addr", vm.Str(g.remote),
	)
}

// isJSONType reports whether a Content-Type names JSON
// (application/json or any +json type).
func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// isRequest tells a request dict that a before hook returned (to replace
// the request) from a response: it has a method and a path.
func isRequest(d *vm.Dict) bool {
	_, m := d.Get("method")
	_, p := d.Get("path")
	return m && p
}

// asResponseDict reports whether v has the shape of a response: a dict
// with an int status and no keys but status, headers and body (and
// stream, holding a streamed response, as normalize builds one).
func asResponseDict(v vm.Value) (*vm.Dict, bool) {
	d, ok := v.AsDict()
	if !ok {
		return nil, false
	}
	st, ok := d.Get("status")
	if !ok || st.Kind() != vm.KInt {
		return nil, false
	}
	for _, k := range d.Keys() {
		if k == "stream" {
			if sv, _ := d.Get("stream"); !sv.IsNil() {
				if _, ok := streamOf(sv); !ok {
					return nil, false
				}
			}
			continue
		}
		if k != "status" && k != "headers" && k != "body" {
			return nil, false
		}
	}
	return d, true
}

const (
	textType   = "text/plain; charset=utf-8"
	jsonType   = "application/json"
	binaryType = "application/octet-stream"
)

// normalize turns what a handler or middleware returned into a response
// dict {status, headers, body}: nil is 204, a string is text, bytes are
// binary, a response dict is checked, anything else is JSON. The error
// text completes "NAME: ".
func normalize(v vm.Value) (*vm.Dict, string) {
	if v.IsNil() {
		return responseDict(204, vm.NewDict(), vm.Str("")), ""
	}
	if sr, ok := streamOf(v); ok {
		hb := vm.NewDictBuilder(4)
		for k, vs := range sr.Header() {
			hb.Set(strings.ToLower(k), vm.Str(strings.Join(vs, ", ")))
		}
		return responseDict(sr.StatusCode(), hb.Build(), vm.Str("")).Set("stream", v), ""
	}
	if d, ok := asResponseDict(v); ok {
		st, _ := d.Get("status")
		h, _ := d.Get("headers")
		b, _ := d.Get("body")
		r, bad := makeResponse(st, b, h, "")
		if sv, _ := d.Get("stream"); bad == "" && !sv.IsNil() && sv.IsValid() {
			r = r.Set("stream", sv)
		}
		return r, bad
	}
	return makeResponse(vm.IntOf(200), v, vm.Nil, "")
}

// makeResponse builds a response dict from its parts; ctype, when set,
// is the content type unless the headers give one. The error text
// completes "NAME: ".
func makeResponse(status, body, headers vm.Value, ctype string) (*vm.Dict, string) {
	st, ok := status.AsInt()
	if !ok {
		return nil, "status must be an int, got " + status.Type()
	}
	if st < 100 || st > 599 {
		return nil, "status must be between 100 and 599, got " + lib.Display(status)
	}
	hb := vm.NewDictBuilder(4)
	if headers.IsValid() && !headers.IsNil() {
		hd, ok := headers.AsDict()
		if !ok {
			return nil, "headers must be a dict, got " + headers.Type()
		}
		var bad string
		hd.Range(func(k string, v vm.Value) bool {
			name := strings.ToLower(strings.TrimSpace(k))
			if !validHeaderName(name) {
				bad = "invalid header name " + quote(k)
				return false
			}
			if v.IsNil() {
				return true // a nil value leaves the header out
			}
			if l, ok := v.AsList(); ok {
				vals := make([]string, 0, l.Len())
				for _, x := range l.Items() {
					vals = append(vals, lib.Display(x))
				}
				for _, x := range vals {
					if strings.ContainsAny(x, "\r\n") {
						bad = "header " + quote(name) + " holds a line break"
						return false
					}
				}
				hb.Set(name, vm.Of(lib.StrList(vals)))
				return true
			}
			x := lib.Display(v)
			if strings.ContainsAny(x, "\r\n") {
				bad = "header " + quote(name) + " holds a line break"
				return false
			}
			hb.Set(name, vm.Str(x))
			return true
		})
		if bad != "" {
			return nil, bad
		}
	}
	h := hb.Build()
	var b vm.Value
	switch {
	case !body.IsValid() || body.IsNil():
		b = vm.Str("")
	case body.Kind() == vm.KString:
		b = body
		if ctype == "" {
			ctype = textType
		}
	default:
		if lib.IsBytes(body) {
			b = body
			if ctype == "" {
				ctype = binaryType
			}
		} else {
			b = vm.Str(json.Stringify(body))
			if ctype == "" {
				ctype = jsonType
			}
		}
	}
	if ctype != "" && !h.Has("content-type") && (b.Truth() || ctype == jsonType) {
		h = h.Set("content-type", vm.Str(ctype))
	}
	return responseDict(int(st), h, b), ""
}

func responseDict(status int, headers *vm.Dict, body vm.Value) *vm.Dict {
	return lib.DictOf("status", lib.IntOf(status), "headers", headers, "body", body)
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// errorResponse is a JSON error body {"error": msg}.
func errorResponse(status int, msg string) *vm.Dict {
	return responseDict(status, lib.DictOf("content-type", vm.Str(jsonType)), vm.Str(json.Stringify(vm.Of(lib.DictOf("error", vm.Str(msg))))))
}

// fatal reports failures that must not become a 500: exit() and the
// cancellation of the thread serving the request.
func fatal(err error) bool {
	e := vm.AsError(err)
	return e.Kind == vm.KindExit || e.Kind == vm.KindCancelled
}

// failed is the 500 a failing handler or middleware gives. The failure
// is reported on stderr; its text goes to the client only with
// expose_errors.
func (s *Server) failed(th *vm.Thread, g *goRequest, err error) *vm.Dict {
	e := vm.AsError(err)
	if g.failure == nil {
		g.failure = e
	}
	io.WriteString(th.VM().Stderr, "http_server: "+g.method+" "+g.path+": "+e.UncaughtText()+"\n")
	body := lib.DictOf("error", vm.Str("internal server error"))
	if s.exposeErrors {
		body = body.Set("message", vm.Str(lib.Display(e.Caught())))
	}
	return responseDict(500, lib.DictOf("content-type", vm.Str(jsonType)), vm.Str(json.Stringify(vm.Of(body))))
}

// snapshot is what one dispatch reads of the server.
type snapshot struct {
	routes        []*route
	before, after []vm.Value
	security      []header
	ready         bool
	reason        string
	stopped       bool
}

func (s *Server) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot{
		routes:   s.routes[:len(s.routes):len(s.routes)],
		before:   s.before[:len(s.before):len(s.before)],
		after:    s.after[:len(s.after):len(s.after)],
		security: s.security[:len(s.security):len(s.security)],
		ready:    s.ready,
		reason:   s.reason,
		stopped:  s.state == stateDraining || s.state == stateStopped,
	}
}

// dispatch serves one request on th, which holds the VM lock: before
// hooks, the route's handler, after hooks, security headers. Only exit()
// and cancellation fail it; every other failure is a 500.
func (s *Server) dispatch(th *vm.Thread, g *goRequest) (*vm.Dict, error) {
	snap := s.snapshot()
	if g.inProcess && snap.stopped {
		return s.finishResponse(g, snap, errorResponse(503, "server is shutting down")), nil
	}
	req := requestDict(th, g)
	var resp *vm.Dict
	switch {
	case g.tooLarge:
		resp = errorResponse(413, "request body too large")
	case s.readinessPath != "" && g.path == s.readinessPath && (g.method == "GET" || g.method == "HEAD"):
		resp = readinessResponse(snap)
	}
	if resp == nil {
		var own int64
		if s.handlerTimeout > 0 {
			own = time.Now().Add(s.handlerTimeout).UnixMilli()
			th.PushDeadline(own, 0)
		}
		var err error
		req, resp, err = s.handle(th, g, snap, req)
		if s.handlerTimeout > 0 {
			th.PopDeadline()
		}
		if err != nil {
			if !s.timedOut(th, err, own) {
				return nil, err
			}
			io.WriteString(th.VM().Stderr, "http_server: "+g.method+" "+g.path+": handler timed out after "+s.handlerTimeout.String()+"\n")
			if g.failure == nil {
				g.failure = vm.Throwf("http_server: handler timed out")
			}
			resp = errorResponse(503, "handler timed out")
		}
	}
	for _, fn := range snap.after {
		v, err := th.Call(fn, vm.Of(req), vm.Of(resp))
		if err != nil {
			if fatal(err) {
				return nil, err
			}
			resp = s.failed(th, g, err)
			break
		}
		if v.IsNil() {
			continue
		}
		r, bad := normalize(v)
		if bad != "" {
			resp = s.failed(th, g, vm.Throwf("http_server: an after hook returned an invalid response: %s", bad))
			break
		}
		resp = r
	}
	return s.finishResponse(g, snap, resp), nil
}

// handle runs the before hooks and the route's handler; only exit()
// and cancellation (or the handler timeout passing) fail it.
func (s *Server) handle(th *vm.Thread, g *goRequest, snap snapshot, req *vm.Dict) (*vm.Dict, *vm.Dict, error) {
	for _, fn := range snap.before {
		v, err := th.Call(fn, vm.Of(req))
		if err != nil {
			if fatal(err) {
				return req, nil, err
			}
			return req, s.failed(th, g, err), nil
		}
		if v.IsNil() {
			continue
		}
		if d, ok := v.AsDict(); ok && isRequest(d) {
			req = d
			continue
		}
		r, bad := normalize(v)
		if bad != "" {
			return req, s.failed(th, g, vm.Throwf("http_server: a before hook returned an invalid response: %s", bad)), nil
		}
		return req, r, nil
	}
	r, err := s.route(th, g, snap, req)
	if err != nil {
		return req, nil, err
	}
	return r.req, r.resp, nil
}

// timedOut reports whether err is the handler timeout (own, ms since the
// epoch) passing, rather than a cancellation or an enclosing deadline.
func (s *Server) timedOut(th *vm.Thread, err error, own int64) bool {
	e := vm.AsError(err)
	return own != 0 && e.Stop == vm.StopDeadline &&
		time.Now().UnixMilli() >= own && !th.IsCancelled()
}

type routed struct{ req, resp *vm.Dict }

// route finds the route for the request and calls its handler.
func (s *Server) route(th *vm.Thread, g *goRequest, snap snapshot, req *vm.Dict) (routed, error) {
	method := g.method
	if m, ok := req.Get("method"); ok {
		method = strings.ToUpper(lib.Display(m))
	}
	path := g.escapedPath
	if p, ok := req.Get("path"); ok && lib.Display(p) != g.path {
		path = lib.Display(p) // a before hook's; read as sent
	}
	parts := requestSegments(path)
	var best, bestHead *route
	var bestParams, headParams map[string]string
	allowed := map[string]bool{}
	for _, r := range snap.routes {
		params, ok := r.match(parts)
		if !ok {
			continue
		}
		switch {
		case r.method == method || r.method == "*":
			if best == nil || moreSpecific(r, best) {
				best, bestParams = r, params
			}
		case method == "HEAD" && r.method == "GET":
			if bestHead == nil || moreSpecific(r, bestHead) {
				bestHead, headParams = r, params
			}
		default:
			allowed[r.method] = true
			// A GET route also answers HEAD (docs/http-server.md).
			if r.method == "GET" {
				allowed["HEAD"] = true
			}
		}
	}
	if best == nil && bestHead != nil {
		best, bestParams = bestHead, headParams
	}
	if best == nil {
		if len(allowed) > 0 {
			names := make([]string, 0, len(allowed))
			for m := range allowed {
				names = append(names, m)
			}
			sort.Strings(names)
			resp := errorResponse(405, "method not allowed")
			resp = resp.Set("headers", vm.Of(lib.DictOf("allow", vm.Str(strings.Join(names, ", ")), "content-type", vm.Str(jsonType))))
			return routed{req, resp}, nil
		}
		return routed{req, errorResponse(404, "not found")}, nil
	}
	pb := vm.NewDictBuilder(len(bestParams))
	for k, v := range bestParams {
		pb.Set(k, vm.Str(v))
	}
	req = req.Set("params", vm.Of(pb.Build()))
	v, err := th.Call(best.handler, vm.Of(req))
	if err != nil {
		if fatal(err) {
			return routed{}, err
		}
		return routed{req, s.failed(th, g, err)}, nil
	}
	resp, bad := normalize(v)
	if bad != "" {
		return routed{req, s.failed(th, g, vm.Throwf("http_server: the handler of %s %s returned an invalid response: %s", best.method, best.pattern, bad))}, nil
	}
	return routed{req, resp}, nil
}

func readinessResponse(snap snapshot) *vm.Dict {
	if snap.ready {
		return responseDict(200, lib.DictOf("content-type", vm.Str(jsonType)), vm.Str(`{"ready":true}`))
	}
	body := lib.DictOf("ready", vm.False)
	if snap.reason != "" {
		body = body.Set("reason", vm.Str(snap.reason))
	}
	return responseDict(503, lib.DictOf("content-type", vm.Str(jsonType)), vm.Str(json.Stringify(vm.Of(body))))
}

// finishResponse adds the security headers a response lacks and drops
// the body of a HEAD response.
func (s *Server) finishResponse(g *goRequest, snap snapshot, resp *vm.Dict) *vm.Dict {
	if len(snap.security) > 0 {
		hv, _ := resp.Get("headers")
		h, ok := hv.AsDict()
		if !ok {
			h = vm.NewDict()
		}
		for _, sh := range snap.security {
			if !h.Has(sh.name) {
				h = h.Set(sh.name, vm.Str(sh.value))
			}
		}
		resp = resp.Set("headers", vm.Of(h))
	}
	st, _ := resp.Get("status")
	status, _ := st.AsInt()
	if g.method == "HEAD" || bodiless(int(status)) {
		resp = resp.Set("body", vm.Str(""))
	}
	if status == http.StatusNotModified {
		if hv, ok := resp.Get("headers"); ok {
			if h, ok := hv.AsDict(); ok {
				resp = resp.Set("headers", vm.Of(h.Delete("content-type")))
			}
		}
	}
	return resp
}

// bodiless says whether a response of this status has no body on the
// wire (1xx, 204 No Content, 304 Not Modified, RFC 9110 §6.4.1): a
// body a handler gives it is dropped, in-process as over the network,
// and a 304 loses its content type as net/http drops it.
func bodiless(status int) bool {
	return status < 200 || status == http.StatusNoContent || status == http.StatusNotModified
}

// toGo converts a response dict (as normalize built it) for writing.
func toGo(resp *vm.Dict) goResponse {
	var out goResponse
	st, _ := resp.Get("status")
	n, _ := st.AsInt()
	out.status = int(n)
	if hv, ok := resp.Get("headers"); ok {
		if h, ok := hv.AsDict(); ok {
			h.Range(func(k string, v vm.Value) bool {
				if l, ok := v.AsList(); ok {
					for _, x := range l.Items() {
						out.header = append(out.header, header{k, lib.Display(x)})
					}
				} else {
					out.header = append(out.header, header{k, lib.Display(v)})
				}
				return true
			})
		}
	}
	if bv, ok := resp.Get("body"); ok {
		if b, ok := bv.Object().(*lib.Bytes); ok {
			out.body = b.Data()
		} else {
			out.body = []byte(lib.Display(bv))
		}
	}
	if sv, ok := resp.Get("stream"); ok {
		if sr, ok := streamOf(sv); ok {
			out.stream = sr
		}
	}
	return out
}

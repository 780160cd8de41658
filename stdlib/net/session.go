package net

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// HTTP sessions (docs/spec/builtins.md §5 names http_session,
// http_session_request and http_session_close; the behaviour is this
// implementation's): a session carries default request options and a
// cookie jar. Each request merges its options over the session's
// (headers key by key), resolves a relative URL against `base_url`, sends
// the cookies the jar holds for the URL's host, and stores the cookies the
// response sets (Max-Age=0 or an empty value deletes one). Cookies are
// kept per host; Path and Domain attributes are not applied.

// Session is an HTTP session (type "http_session").
type Session struct {
	mu       sync.Mutex
	base     string
	defaults *vm.Dict
	jar      map[string]map[string]string // host → name → value
	closed   bool
}

func (*Session) Type() string { return "http_session" }
func (*Session) Truth() bool  { return true }
func (s *Session) Display(sb *strings.Builder) {
	sb.WriteString("<http_session")
	if s.base != "" {
		sb.WriteByte(':')
		sb.WriteString(s.base)
	}
	sb.WriteByte('>')
}

// EqualTo: a session equals only itself.
func (s *Session) EqualTo(o vm.Value) bool { t, ok := o.Object().(*Session); return ok && s == t }

func init() {
	lib.Def("http_session", "http_session(options?)", "a session: default request options (base_url, headers, auth, timeout_ms, …) and a cookie jar", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s := &Session{defaults: vm.NewDict(), jar: map[string]map[string]string{}}
		if a.Given(0) && !a.At(0).IsNil() {
			d, ok := a.Dict(0)
			if !ok {
				return vm.Value{}, lib.BadOptions("http_session", a.At(0))
			}
			if b, ok := optGet(d, "base_url"); ok {
				s.base = vm.ToDisplay(b)
			}
			if h, ok := optGet(d, "headers"); ok && h.Kind() != vm.KDict {
				return vm.Value{}, vm.Typef("http_session: headers must be a dict, got %s", h.Type())
			}
			s.defaults = d.Delete("base_url")
		}
		return vm.Of(s), nil
	})
	lib.Def("http_session_request", "http_session_request(session, method, url, options?) -> dict", "a request through the session → {status, headers, body, ok}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, ok := a.At(0).Object().(*Session)
		if !ok {
			return vm.Value{}, vm.Typef("http_session_request: expected an http_session, got %s", a.At(0).Type())
		}
		method, err := methodArg("http_session_request", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		opts, err := optsArg("http_session_request", a, 3)
		if err != nil {
			return vm.Value{}, err
		}
		full, host, merged, err := s.prepare(a.Text(2), opts)
		if err != nil {
			return vm.Value{}, err
		}
		var body vm.Value
		if b, ok := merged.Get("body"); ok {
			body = b
		}
		res, _, err := httpExchange(th, method, full, body, merged)
		if err != nil {
			return vm.Value{}, err
		}
		if h, ok := res.Get("headers"); ok {
			if hd, ok := h.AsDict(); ok {
				if sc, ok := hd.Get("set-cookie"); ok {
					s.store(host, vm.ToDisplay(sc))
				}
			}
		}
		return vm.Of(res), nil
	})
	lib.Def("http_session_close", "http_session_close(session)", "close the session (later requests through it fail)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, ok := a.At(0).Object().(*Session)
		if !ok {
			return vm.Value{}, vm.Typef("http_session_close: expected an http_session, got %s", a.At(0).Type())
		}
		s.mu.Lock()
		s.closed = true
		s.jar = map[string]map[string]string{}
		s.mu.Unlock()
		return vm.Nil, nil
	})
}

// prepare resolves the URL and merges the options and the jar's cookies.
func (s *Session) prepare(raw string, opts *vm.Dict) (full, host string, merged *vm.Dict, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", "", nil, vm.Throwf("http_session_request: the session is closed")
	}
	full = raw
	if s.base != "" {
		base, berr := url.Parse(s.base)
		ref, rerr := url.Parse(raw)
		if berr != nil || rerr != nil {
			return "", "", nil, vm.Throwf("http_session_request: invalid url: %s", raw)
		}
		full = base.ResolveReference(ref).String()
	}
	u, perr := url.Parse(full)
	if perr != nil {
		return "", "", nil, vm.Throwf("http_session_request: invalid url: %s", full)
	}
	host = u.Host
	merged = s.defaults
	headers := vm.NewDict()
	if h, ok := optGet(s.defaults, "headers"); ok {
		headers, _ = h.AsDict()
	}
	if opts != nil {
		// A request's timeout replaces the session's under either
		// spelling (`timeout` is the short one of `timeout_ms`).
		for _, pair := range [][2]string{{"timeout", "timeout_ms"}, {"timeout_ms", "timeout"}} {
			if _, ok := optGet(opts, pair[0]); ok {
				merged = merged.Delete(pair[1])
			}
		}
		merged = merged.Merge(opts)
		// The query is merged parameter by parameter, like the headers: a
		// session's `{api_key}` stays when a request adds `{page}`.
		if sq, ok := optGet(s.defaults, "query"); ok {
			if rq, ok := optGet(opts, "query"); ok {
				sd, ok1 := sq.AsDict()
				rd, ok2 := rq.AsDict()
				if ok1 && ok2 {
					merged = merged.Set("query", vm.Of(sd.Merge(rd)))
				}
			}
		}
		if h, ok := optGet(opts, "headers"); ok {
			hd, ok := h.AsDict()
			if !ok {
				return "", "", nil, vm.Typef("http_session_request: headers must be a dict, got %s", h.Type())
			}
			headers = mergeHeaders(headers, hd)
		}
	}
	if c := s.cookieHeader(host); c != "" && !hasHeader(headers, "cookie") {
		headers = headers.Set("cookie", vm.Str(c))
	}
	return full, host, merged.Set("headers", vm.Of(headers)), nil
}

// mergeHeaders is the session's headers with a request's over them.
// Header names are case-insensitive, so a request's `X-App` replaces the
// session's `x-app`.
func mergeHeaders(session, request *vm.Dict) *vm.Dict {
	out := session
	request.Range(func(name string, _ vm.Value) bool {
		for _, k := range out.Keys() {
			if strings.EqualFold(k, name) {
				out = out.Delete(k)
			}
		}
		return true
	})
	return out.Merge(request)
}

func hasHeader(h *vm.Dict, name string) bool {
	found := false
	h.Range(func(k string, _ vm.Value) bool {
		found = strings.EqualFold(k, name)
		return !found
	})
	return found
}

// cookieHeader is the jar's cookies for host, sorted by name.
func (s *Session) cookieHeader(host string) string {
	cs := s.jar[host]
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + cs[n]
	}
	return strings.Join(parts, "; ")
}

// store reads a Set-Cookie header (several cookies joined by ", ", as
// response headers are joined) into the jar.
func (s *Session) store(host, header string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	cs := s.jar[host]
	if cs == nil {
		cs = map[string]string{}
		s.jar[host] = cs
	}
	for _, c := range splitSetCookie(header) {
		attrs := strings.Split(c, ";")
		name, value, ok := strings.Cut(strings.TrimSpace(attrs[0]), "=")
		if !ok || name == "" {
			continue
		}
		remove := value == ""
		for _, at := range attrs[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(at), "=")
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && strings.EqualFold(k, "max-age") && n <= 0 {
				remove = true
			}
		}
		if remove {
			delete(cs, name)
		} else {
			cs[name] = value
		}
	}
}

// splitSetCookie splits joined Set-Cookie values. A comma also appears
// inside Expires dates ("Thu, 01 Jan 1970 …"), so a piece starts a new
// cookie only when it begins with `name=`.
func splitSetCookie(h string) []string {
	var out []string
	for _, piece := range strings.Split(h, ",") {
		t := strings.TrimSpace(piece)
		eq := strings.IndexByte(t, '=')
		startsCookie := eq > 0 && !strings.ContainsAny(t[:eq], " ;\t")
		if len(out) == 0 || startsCookie {
			out = append(out, t)
		} else {
			out[len(out)-1] += "," + piece
		}
	}
	return out
}

package net

// HTTP client builtins and mocks (docs/spec/builtins.md §4.3). Mocks registered with
// http_mock are consulted before the network; a request a mock answers is
// recorded for http_mock_calls. Network failures throw; HTTP error
// statuses are ordinary results ({status, headers, body, ok}).

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/harnlang/harn/internal/tlsconf"
	"github.com/harnlang/harn/stdlib/formats"
	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/codec"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

type httpMockKey struct{}

type httpMock struct {
	method    string // upper case, or "*"
	pattern   string
	re        *regexp.Regexp // the pattern as written
	rootRe    *regexp.Regexp // the pattern with the root path (withRootPath)
	responses []vm.Value
	served    int
}

type httpMocks struct {
	mu    sync.Mutex
	mocks []*httpMock
	calls []httpCall
}

type httpCall struct {
	method, url string
	headers     map[string]string
	body        string
}

func httpMocksOf(th *vm.Thread) *httpMocks {
	return th.VM().Local(httpMockKey{}, func() any { return &httpMocks{} }).(*httpMocks)
}

func init() {
	lib.Def("http_get", "http_get(url, opts?) -> dict", "GET → {status, headers, body, ok}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		opts, err := optsArg("http_get", a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		return doHTTP(th, "GET", a.Text(0), vm.Value{}, opts)
	})
	lib.Def("http_delete", "http_delete(url, opts?) -> dict", "DELETE → {status, headers, body, ok}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		opts, err := optsArg("http_delete", a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		return doHTTP(th, "DELETE", a.Text(0), vm.Value{}, opts)
	})
	for _, m := range []string{"post", "put", "patch"} {
		method := strings.ToUpper(m)
		name := "http_" + m
		lib.Def(name, name+"(url, body, opts?) -> dict", method+" → {status, headers, body, ok}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			opts, err := optsArg(name, a, 2)
			if err != nil {
				return vm.Value{}, err
			}
			return doHTTP(th, method, a.Text(0), a.At(1), opts)
		})
	}
	lib.Def("http_request", "http_request(method, url, opts?) -> dict", "any method → {status, headers, body, ok}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		opts, err := optsArg("http_request", a, 2)
		if err != nil {
			return vm.Value{}, err
		}
		var body vm.Value
		if opts != nil {
			if b, ok := opts.Get("body"); ok {
				body = b
			}
		}
		method, err := methodArg("http_request", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return doHTTP(th, method, a.Text(1), body, opts)
	})
	lib.Def("http_download", "http_download(url, path, opts?) -> dict", "save a response body to a file → {bytes_written, status, headers, ok}; a missing or nil path is an error (before any request)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		// Without a path the body would land in a file named "nil".
		if !a.Given(1) {
			return vm.Value{}, vm.Throwf("http_download: a destination path is required")
		}
		opts, err := optsArg("http_download", a, 2)
		if err != nil {
			return vm.Value{}, err
		}
		res, raw, err := httpExchange(th, "GET", a.Text(0), vm.Value{}, opts)
		if err != nil {
			return vm.Value{}, err
		}
		p := fs.ResolvePath(th, a.Text(1))
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			return vm.Value{}, vm.Throwf("http_download: Failed to write file %s: %s", p, fs.OSErrorText(err))
		}
		status, _ := res.Get("status")
		headers, _ := res.Get("headers")
		ok, _ := res.Get("ok")
		return vm.Of(lib.DictOf("bytes_written", lib.IntOf(len(raw)), "status", status, "headers", headers, "ok", ok)), nil
	})
	lib.Def("http_mock", "http_mock(method, pattern, response)", "answer matching requests without the network", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		method := strings.ToUpper(a.Text(0))
		pattern := a.Text(1)
		responses, err := mockResponses(a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		re, rootRe := mockPattern(pattern), mockPattern(withRootPath(pattern))
		hm := httpMocksOf(th)
		hm.mu.Lock()
		defer hm.mu.Unlock()
		m := &httpMock{method: method, pattern: pattern, re: re, rootRe: rootRe, responses: responses}
		for i, old := range hm.mocks {
			if old.method == method && old.pattern == pattern {
				hm.mocks[i] = m
				return vm.Nil, nil
			}
		}
		hm.mocks = append(hm.mocks, m)
		return vm.Nil, nil
	})
	lib.Def("http_mock_calls", "http_mock_calls(opts?) -> list", "[{method, url, headers, body}] of mocked requests", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		redact := true
		if opts, ok := a.Dict(0); ok {
			if r, ok := opts.Get("redact_sensitive"); ok {
				redact = r.Truth()
			}
		}
		hm := httpMocksOf(th)
		hm.mu.Lock()
		defer hm.mu.Unlock()
		out := make([]vm.Value, len(hm.calls))
		for i, c := range hm.calls {
			hb := vm.NewDictBuilder(len(c.headers))
			for k, v := range c.headers {
				if redact && sensitiveHeader(k) {
					v = "[redacted]"
				}
				hb.Set(k, vm.Str(v))
			}
			out[i] = vm.Of(lib.DictOf("method", vm.Str(c.method), "url", vm.Str(c.url), "headers", hb.Build(), "body", vm.Str(c.body)))
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("http_mock_clear", "http_mock_clear()", "remove every mock and recorded call", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		hm := httpMocksOf(th)
		hm.mu.Lock()
		hm.mocks, hm.calls = nil, nil
		hm.mu.Unlock()
		return vm.Nil, nil
	})
}

// optsArg reads the options argument of a request builtin: a dict, or
// nothing (left out or nil). Any other value is a type error rather than
// options silently ignored.
func optsArg(name string, a vm.Args, i int) (*vm.Dict, error) {
	if !a.Given(i) || a.At(i).IsNil() {
		return nil, nil
	}
	d, ok := a.Dict(i)
	if !ok {
		return nil, lib.BadOptions(name, a.At(i))
	}
	return d, nil
}

// mockResponses reads http_mock's response argument: a response dict
// ({status, body, headers}; left out or nil is the empty one) or
// {responses: [dict, ...]} served in order. Anything else is a type error,
// so a mistyped mock fails where it is written rather than answering 200.
func mockResponses(r vm.Value) ([]vm.Value, error) {
	if !r.IsValid() || r.IsNil() {
		return []vm.Value{r}, nil
	}
	d, ok := r.AsDict()
	if !ok {
		return nil, vm.Typef("http_mock: response must be a dict such as {status, body, headers}, got %s", r.Type())
	}
	rs, ok := d.Get("responses")
	if !ok {
		return []vm.Value{r}, nil
	}
	l, ok := rs.AsList()
	if !ok {
		return nil, vm.Typef("http_mock: responses must be a list of response dicts, got %s", rs.Type())
	}
	if l.Len() == 0 {
		return []vm.Value{r}, nil
	}
	for i, it := range l.Items() {
		if it.Kind() != vm.KDict {
			return nil, vm.Typef("http_mock: responses[%d] must be a response dict, got %s", i, it.Type())
		}
	}
	return l.Items(), nil
}

// methodArg reads a request's method: a string, upper-cased. Nothing
// else stands for GET, so a nil or missing method (an argument left out
// by mistake) is an error rather than a request with the method "Nil"
// (docs/http-client.md).
func methodArg(fn string, v vm.Value) (string, error) {
	m, ok := v.AsString()
	if !ok {
		return "", vm.Typef("%s: method must be a string such as \"GET\", got %s", fn, v.Type())
	}
	if strings.TrimSpace(m.Go()) == "" {
		return "", vm.Throwf("%s: method must not be empty", fn)
	}
	return strings.ToUpper(m.Go()), nil
}

func sensitiveHeader(name string) bool {
	switch name {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token":
		return true
	}
	return strings.Contains(name, "token") || strings.Contains(name, "secret") || strings.Contains(name, "password")
}

func doHTTP(th *vm.Thread, method, rawURL string, body vm.Value, opts *vm.Dict) (vm.Value, error) {
	res, _, err := httpExchange(th, method, rawURL, body, opts)
	if err != nil {
		return vm.Value{}, err
	}
	return vm.Of(res), nil
}

func optGet(opts *vm.Dict, key string) (vm.Value, bool) {
	if opts == nil {
		return vm.Value{}, false
	}
	v, ok := opts.Get(key)
	if !ok || v.IsNil() {
		return vm.Value{}, false
	}
	return v, true
}

// httpExchange performs one request (mock or network) and returns the
// result dict and the raw body.
func httpExchange(th *vm.Thread, method, rawURL string, body vm.Value, opts *vm.Dict) (*vm.Dict, []byte, error) {
	full := rawURL
	if q, ok := optGet(opts, "query"); ok {
		full = withQuery(rawURL, formats.QueryString(q))
	}
	headers := map[string]string{}
	if h, ok := optGet(opts, "headers"); ok {
		if hd, ok := h.AsDict(); ok {
			hd.Range(func(k string, v vm.Value) bool {
				if text, ok := headerText(v); ok {
					headers[strings.ToLower(k)] = text
				}
				return true
			})
		}
	}
	if auth, ok := optGet(opts, "auth"); ok {
		if x, ok := auth.AsString(); ok {
			if strings.Contains(x.Go(), " ") {
				headers["authorization"] = x.Go()
			} else {
				headers["authorization"] = "Bearer " + x.Go()
			}
		}
		switch x := auth.Object().(type) {
		case *vm.Dict:
			if b, ok := optGet(x, "bearer"); ok {
				headers["authorization"] = "Bearer " + vm.ToDisplay(b)
			} else if basic, ok := optGet(x, "basic"); ok {
				if bd, ok := basic.AsDict(); ok {
					// A missing (or nil) user or password is empty, as
					// reqwest's basic_auth(user, None) sends `user:`.
					text := func(keys ...string) string {
						for _, k := range keys {
							if v, ok := optGet(bd, k); ok {
								return vm.ToDisplay(v)
							}
						}
						return ""
					}
					req, _ := http.NewRequest("GET", "http://x", nil)
					req.SetBasicAuth(text("user", "username"), text("password"))
					headers["authorization"] = req.Header.Get("Authorization")
				}
			}
		}
	}
	if !body.IsValid() || body.IsNil() {
		if b, ok := optGet(opts, "body"); ok {
			body = b
		}
	}
	var payload []byte
	// json: a value sent as a JSON body, as http_server_request's json
	// option is (docs/http-client.md).
	if j, ok := optGet(opts, "json"); ok {
		if body.IsValid() && !body.IsNil() {
			return nil, nil, vm.Throwf("HTTP request: give body or json, not both")
		}
		if _, set := headers["content-type"]; !set {
			headers["content-type"] = "application/json"
		}
		body = vm.Str(json.Stringify(j))
	}
	if mp, ok := optGet(opts, "multipart"); ok {
		form, err := formats.MultipartFormData(th, vm.Args{mp})
		if err != nil {
			return nil, nil, err
		}
		fd := form.Dict()
		ct, _ := fd.Get("content_type")
		b, _ := fd.Get("body")
		headers["content-type"] = vm.ToDisplay(ct)
		payload = b.Object().(*lib.Bytes).Data()
	} else if body.IsValid() && !body.IsNil() {
		switch x := body.Object().(type) {
		case vm.String:
			payload = []byte(x.Go())
		case *lib.Bytes:
			payload = x.Data()
		case *vm.Dict, *vm.List, *vm.StructValue:
			payload = []byte(json.Stringify(body))
			if _, set := headers["content-type"]; !set {
				headers["content-type"] = "application/json"
			}
		default:
			payload = []byte(vm.ToDisplay(body))
		}
	}

	if err := lib.CheckEgress(th, full); err != nil {
		return nil, nil, err
	}
	policy := retryOf(opts)
	var client *http.Client // built when the network serves an attempt
	decompress := true
	if d, ok := optGet(opts, "decompress"); ok {
		decompress = d.Truth()
	}
	// Each attempt asks the mocks first, so a script can test its retry
	// option against a sequence of mocked responses.
	for attempt := 0; ; attempt++ {
		res, raw, ok := mockResponse(th, method, full, headers, payload)
		var err error
		retryable := ok
		if !ok {
			if client == nil {
				if err := checkURL(full); err != nil {
					return nil, nil, vm.Throwf("HTTP request failed: %s", err)
				}
				if client, err = newClient(th, opts, decompress); err != nil {
					return nil, nil, vm.Throwf("HTTP request failed: %s", err)
				}
			}
			res, raw, retryable, err = networkAttempt(th, client, method, full, headers, payload, decompress)
		}
		if err == nil && retryable {
			status, _ := res.Get("status")
			n, _ := status.AsInt()
			retryable = policy.on[int(n)]
		}
		if !retryable || attempt >= policy.max {
			return res, raw, err
		}
		if err := htime.Sleep(th, policy.backoff*time.Duration(1<<attempt)); err != nil {
			return nil, nil, err
		}
	}
}

// retryPolicy is the retry option: how many attempts follow the first,
// the wait before the second (doubling after each), and the statuses
// that call for another attempt.
type retryPolicy struct {
	max     int
	backoff time.Duration
	on      map[int]bool
}

func retryOf(opts *vm.Dict) retryPolicy {
	p := retryPolicy{backoff: 500 * time.Millisecond, on: map[int]bool{408: true, 429: true, 500: true, 502: true, 503: true, 504: true}}
	// The short spellings `retries: N` and `backoff: ms` read as
	// `retry: {max: N, backoff_ms: ms}`; the retry dict wins over them.
	if n, ok := optGet(opts, "retries"); ok {
		if n, ok := n.AsInt(); ok {
			p.max = int(n)
		}
	}
	if b, ok := optGet(opts, "backoff"); ok {
		if f, ok := millisOf(b); ok {
			p.backoff = time.Duration(f * float64(time.Millisecond))
		}
	}
	r, ok := optGet(opts, "retry")
	if !ok {
		return p
	}
	rd, ok := r.AsDict()
	if !ok {
		return p
	}
	if m, ok := rd.Get("max"); ok {
		if n, ok := m.AsInt(); ok {
			p.max = int(n)
		}
	}
	if b, ok := rd.Get("backoff_ms"); ok {
		if f, ok := millisOf(b); ok {
			p.backoff = time.Duration(f * float64(time.Millisecond))
		}
	}
	if s, ok := rd.Get("statuses"); ok {
		if l, ok := s.AsList(); ok {
			p.on = map[int]bool{}
			for _, it := range l.Items() {
				if n, ok := it.AsInt(); ok {
					p.on[int(n)] = true
				}
			}
		}
	}
	return p
}

// bodyError words a failure reading a response body (docs/http-client.md):
// a gzip body that is not gzip, or one cut short, in codec.Problem's words.
func bodyError(gzipped bool, err error) error {
	switch {
	case gzipped && (codec.IsDecoding(err) || errors.Is(err, io.ErrUnexpectedEOF)):
		return fmt.Errorf("the response body: %s", codec.Problem("gzip", err))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the response body is truncated (the connection closed early)")
	}
	return err
}

// requestFailure words a failed request. A request that got no response
// (no connection, an unknown host, a timeout) reads as upstream's HTTP
// client words it, `error sending request for url (URL)`, followed by the
// cause in a few words (docs/http-client.md); a failure after the
// response began keeps `METHOD URL: cause`.
func requestFailure(method, full string, err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return method + " " + full + ": " + err.Error()
	}
	var tm *tooManyRedirects
	if errors.As(err, &tm) {
		return "error following redirect for url (" + shownURL(tm.url) + "): too many redirects"
	}
	return "error sending request for url (" + shownURL(full) + "): " + sendCause(ue)
}

// sendCause is why a request got no response, in a few words.
func sendCause(ue *url.Error) string {
	var dns *net.DNSError
	switch {
	case ue.Timeout():
		return "operation timed out"
	case errors.Is(ue.Err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(ue.Err, syscall.ECONNRESET):
		return "connection reset by peer"
	case errors.As(ue.Err, &dns):
		if dns.IsNotFound {
			return "dns error: no such host " + dns.Name
		}
		return "dns error: " + dns.Err
	}
	return ue.Err.Error()
}

// shownURL is full as the URL standard serializes it: a host without a
// path gets the root path (`http://h:1` → `http://h:1/`).
func shownURL(full string) string {
	u, err := url.Parse(full)
	if err != nil || u.Opaque != "" || u.Host == "" || u.Path != "" {
		return full
	}
	u.Path = "/"
	return u.String()
}

// millisOf reads a time option in milliseconds: an int or float of them,
// or a duration (`timeout_ms: 5s`).
func millisOf(v vm.Value) (float64, bool) {
	if d, ok := v.AsDuration(); ok {
		return float64(d), true
	}
	return lib.ToFloat(v)
}

// newClient is the HTTP client the options describe (timeout_ms, proxy,
// tls, decompress, follow_redirects). It fails only on a tls.ca_cert that
// cannot be read.
func newClient(th *vm.Thread, opts *vm.Dict, decompress bool) (*http.Client, error) {
	timeout := 30 * time.Second
	// `timeout` is the short spelling of `timeout_ms`.
	for _, key := range []string{"timeout", "timeout_ms"} {
		if t, ok := optGet(opts, key); ok {
			if f, ok := millisOf(t); ok && f > 0 {
				timeout = time.Duration(f * float64(time.Millisecond))
			}
		}
	}
	transport := &http.Transport{Proxy: http.ProxyFromEnvironment, DisableCompression: !decompress}
	if p, ok := optGet(opts, "proxy"); ok {
		if pu, err := url.Parse(vm.ToDisplay(p)); err == nil {
			transport.Proxy = http.ProxyURL(pu)
		}
	}
	if t, ok := optGet(opts, "tls"); ok {
		if td, ok := t.AsDict(); ok {
			cfg := &tls.Config{}
			for _, k := range []string{"insecure", "insecure_skip_verify", "danger_accept_invalid_certs"} {
				if v, ok := td.Get(k); ok && v.Truth() {
					cfg.InsecureSkipVerify = true
				}
			}
			// ca_cert: the certificates (PEM text or a file holding it) to
			// trust instead of the system's, e.g. a development server's.
			if ca, ok := optGet(td, "ca_cert"); ok {
				// A path is relative to the execution root, as http_download's is.
				text := vm.ToDisplay(ca)
				if th != nil && !strings.Contains(text, "-----BEGIN") {
					text = fs.ResolvePath(th, text)
				}
				pem, err := tlsconf.ReadPEM("ca_cert", text)
				if err != nil {
					return nil, err
				}
				pool := x509.NewCertPool()
				if !pool.AppendCertsFromPEM(pem) {
					return nil, errors.New("tls ca_cert holds no PEM certificate")
				}
				cfg.RootCAs = pool
			}
			transport.TLSClientConfig = cfg
		}
	}
	follow := true
	if fr, ok := optGet(opts, "follow_redirects"); ok && !fr.Truth() {
		follow = false
	}
	client := &http.Client{Timeout: timeout, Transport: transport}
	client.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
		switch {
		case !follow:
			return http.ErrUseLastResponse
		case len(via) > maxRedirects:
			return &tooManyRedirects{url: via[len(via)-1].URL.String()}
		}
		return nil
	}
	return client, nil
}

// maxRedirects is how many redirects a request follows, as many as
// upstream's client (reqwest) does.
const maxRedirects = 10

// tooManyRedirects stops a request that was redirected maxRedirects
// times; url is the one that answered with the redirect too many.
type tooManyRedirects struct{ url string }

func (e *tooManyRedirects) Error() string { return "too many redirects" }

// networkAttempt sends the request once, without the VM lock. retryable
// says whether another attempt may go differently: a response, or a
// failure of the network (not a request that cannot be built, nor the
// thread being stopped).
func networkAttempt(th *vm.Thread, client *http.Client, method, full string, headers map[string]string, payload []byte, decompress bool) (res *vm.Dict, raw []byte, retryable bool, err error) {
	var resp *http.Response
	var netErr error
	built := true
	stop := htime.BlockingCtx(th, func(ctx context.Context) {
		req, err := http.NewRequestWithContext(ctx, method, full, bytes.NewReader(payload))
		if err != nil {
			netErr, built = err, false
			return
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		// Go sends req.Host, not a Host header; a script's `host` header
		// names the virtual host to ask for.
		if h, ok := headers["host"]; ok {
			req.Host = h
		}
		resp, netErr = client.Do(req)
		if netErr != nil {
			return
		}
		defer resp.Body.Close()
		var reader io.Reader = resp.Body
		if decompress && resp.Header.Get("Content-Encoding") == "gzip" && !resp.Uncompressed {
			if gz, gerr := gzip.NewReader(resp.Body); gerr == nil {
				reader = gz
			}
		}
		raw, netErr = io.ReadAll(reader)
		if netErr != nil {
			gzipped := resp.Uncompressed || resp.Header.Get("Content-Encoding") == "gzip"
			netErr = bodyError(gzipped, netErr)
		}
	})
	if stop != nil {
		return nil, nil, false, stop
	}
	if netErr != nil {
		return nil, nil, built, vm.Throwf("HTTP request failed: %s", requestFailure(method, full, netErr))
	}
	hb := vm.NewDictBuilder(len(resp.Header))
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		hb.Set(strings.ToLower(k), vm.Str(strings.Join(resp.Header.Values(k), ", ")))
	}
	return lib.DictOf("status", lib.IntOf(resp.StatusCode), "headers", hb.Build(), "body", vm.Str(lib.LossyUTF8(raw)),
		"ok", vm.BoolOf(resp.StatusCode >= 200 && resp.StatusCode <= 299)), raw, true, nil
}

// withQuery adds the encoded parameters qs to raw's query, after the
// parameters it already has and before its fragment (which never
// reaches the server). A URL net/url cannot parse is left as is: checkURL
// reports it.
func withQuery(raw, qs string) string {
	u, err := url.Parse(raw)
	if qs == "" || err != nil {
		return raw
	}
	if u.RawQuery != "" {
		u.RawQuery += "&" + qs
	} else {
		u.RawQuery = qs
	}
	return u.String()
}

// checkURL says, in a user's words, why a URL cannot be requested: it
// must be absolute, http or https, and name a host.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("invalid URL %q: %v", raw, err.(*url.Error).Err)
	case u.Scheme == "":
		return fmt.Errorf("the URL %q has no scheme; write http:// or https:// before the host", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("the URL %q is not http or https (scheme %q)", raw, u.Scheme)
	case u.Host == "":
		return fmt.Errorf("the URL %q has no host", raw)
	}
	return nil
}

// mockPattern compiles an http_mock pattern: `*` matches anything, the
// rest literally.
func mockPattern(pattern string) *regexp.Regexp {
	return regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$")
}

// withRootPath is full with the "/" path a request sends when the URL has
// none ("https://a.test" asks for "https://a.test/"): mocks and requests
// are also compared in this form, so "https://a.test" and
// "https://a.test/" name the same resource whichever way each is written.
// full itself when it has a path.
func withRootPath(full string) string {
	scheme, rest, ok := strings.Cut(full, "://")
	if !ok {
		return full
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		return scheme + "://" + rest + "/"
	}
	if rest[end] == '/' {
		return full
	}
	return scheme + "://" + rest[:end] + "/" + rest[end:]
}

// mockResponse answers from the first matching mock and records the call.
func mockResponse(th *vm.Thread, method, full string, headers map[string]string, payload []byte) (*vm.Dict, []byte, bool) {
	hm := httpMocksOf(th)
	hm.mu.Lock()
	defer hm.mu.Unlock()
	var found *httpMock
	rooted := withRootPath(full)
	for _, m := range hm.mocks {
		if (m.method == "*" || m.method == method) && (m.re.MatchString(full) || m.rootRe.MatchString(rooted)) {
			found = m
			break
		}
	}
	if found == nil {
		return nil, nil, false
	}
	hcopy := make(map[string]string, len(headers))
	for k, v := range headers {
		hcopy[k] = v
	}
	hm.calls = append(hm.calls, httpCall{method: method, url: full, headers: hcopy, body: lib.LossyUTF8(payload)})
	idx := min(found.served, len(found.responses)-1)
	found.served++
	spec, _ := found.responses[idx].AsDict()
	status := int64(200)
	var raw []byte
	hb := vm.NewDictBuilder(2)
	if spec != nil {
		if s, ok := spec.Get("status"); ok {
			if n, ok := s.AsInt(); ok {
				status = int64(n)
			}
		}
		if b, ok := spec.Get("body"); ok && !b.IsNil() {
			switch x := b.Object().(type) {
			case vm.String:
				raw = []byte(x.Go())
			case *lib.Bytes:
				raw = x.Data()
			case *vm.Dict, *vm.List:
				raw = []byte(json.Stringify(b))
			default:
				raw = []byte(vm.ToDisplay(b))
			}
		}
		if h, ok := spec.Get("headers"); ok {
			if hd, ok := h.AsDict(); ok {
				hd.Range(func(k string, v vm.Value) bool {
					if text, ok := headerText(v); ok {
						hb.Set(strings.ToLower(k), vm.Str(text))
					}
					return true
				})
			}
		}
	}
	return lib.DictOf("status", vm.IntOf(status), "headers", hb.Build(), "body", vm.Str(lib.LossyUTF8(raw)),
		"ok", vm.BoolOf(status >= 200 && status <= 299)), raw, true
}

// headerText is the text of a header value, of a request or of a mocked
// response: a list is a header sent several times, its values joined
// with ", " as the network's repeated headers are (so a mocked
// `set-cookie: ["a=1", "b=2"]` sets both cookies of a session); nil
// leaves the header out.
func headerText(v vm.Value) (string, bool) {
	if v.IsNil() {
		return "", false
	}
	l, ok := v.AsList()
	if !ok {
		return vm.ToDisplay(v), true
	}
	parts := make([]string, 0, len(l.Items()))
	for _, it := range l.Items() {
		if !it.IsNil() {
			parts = append(parts, vm.ToDisplay(it))
		}
	}
	return strings.Join(parts, ", "), len(parts) > 0
}

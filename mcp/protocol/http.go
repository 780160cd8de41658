package protocol

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/harnlang/harn/internal/jsonv"
)

// HTTPOptions configures the session-free Streamable HTTP transport
// (docs/spec/orchestrator.md §8, docs/spec/mcp-projection.md §12).
type HTTPOptions struct {
	// Path is the endpoint path (default /mcp).
	Path string
	// Auth authenticates every POST after the Origin check and before
	// the body is read; nil allows every request.
	Auth Authenticator
	// MaxBody bounds a request body (default 4 MiB); a larger one is
	// HTTP 413.
	MaxBody int64
	// Discovery, when set, is served as GET /.well-known/mcp.json (the
	// endpoint discovery document); nil answers that path 404.
	Discovery *Discovery
	// AllowedOrigins are browser origins accepted besides loopback ones
	// (exact "scheme://host[:port]" values), for a browser client behind
	// a proxy.
	AllowedOrigins []string
}

// Discovery is the identity published in /.well-known/mcp.json.
type Discovery struct {
	Name, Title, Version string
}

// Authenticator checks credentials after the Origin check and before
// the body is read.
type Authenticator interface {
	// Authenticate returns the caller's identity, or writes the 401/403
	// response itself and returns false.
	Authenticate(w http.ResponseWriter, r *http.Request, endpoint string) (identity string, ok bool)
	// ServeMetadata serves RFC 9728 protected-resource metadata (404
	// when OAuth is off).
	ServeMetadata(w http.ResponseWriter, r *http.Request, endpoint string)
	// ResourceMetadataURL is the metadata URL published in
	// /.well-known/mcp.json ("" when OAuth is off).
	ResourceMetadataURL(endpoint string) string
}

// BodyAuthenticator is an Authenticator some of whose credentials sign
// the request body (HMAC request signing). Its Authenticate checks what
// the headers hold and may accept a signed request provisionally; once
// the body is read (and found within the size limit), before it is
// parsed, AuthenticateBody decides, given the identity Authenticate
// returned, and writes the refusal itself.
type BodyAuthenticator interface {
	Authenticator
	AuthenticateBody(w http.ResponseWriter, r *http.Request, endpoint, identity string, body []byte) bool
}

const defaultMaxBody = 4 << 20

// Well-known paths of the HTTP transport.
const (
	DiscoveryPath        = "/.well-known/mcp.json"
	ResourceMetadataPath = "/.well-known/oauth-protected-resource"
	discoveryTransport   = "streamable-http"
	routingVersionHeader = "Mcp-Protocol-Version" // MCP-Protocol-Version, in canonical form
)

// Header values of every response, shared rather than allocated per
// response (http.Header.Set allocates both key and value): net/http
// only reads them.
var (
	routingVersionValue = []string{Version20260728}
	contentTypeJSON     = []string{"application/json"}
)

// HTTPHandler serves 2026-07-28 clients over HTTP (docs/spec/orchestrator.md §8):
//
//	POST <path>                             one JSON-RPC message per request, no sessions
//	other methods on <path>                 405
//	GET /.well-known/mcp.json               the discovery document (Discovery set), else 404
//	GET /.well-known/oauth-protected-resource[<path>]
//	                                        Auth.ServeMetadata (404 without Auth)
//	anything else                           404
//
// A POST is checked in this order: Origin (a browser origin that is not
// loopback or allowed: 403), authentication, body size (413), a
// BodyAuthenticator's check of the body's signature, JSON (400),
// initialize refusal, routing headers; then it is dispatched on a
// connection of its own. To serve more routes on the same listener
// (webhooks), mount this handler in a mux next to them.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.Path == "" {
		o.Path = "/mcp"
	}
	if o.MaxBody <= 0 {
		o.MaxBody = defaultMaxBody
	}
	return &httpHandler{srv: s, opts: o}
}

type httpHandler struct {
	srv  *Server
	opts HTTPOptions
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header()[routingVersionHeader] = routingVersionValue
	switch {
	case r.URL.Path == h.opts.Path:
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
	case r.URL.Path == DiscoveryPath && h.opts.Discovery != nil:
		if getOnly(w, r) {
			h.discovery(w, r)
		}
		return
	case h.metadataPath(r.URL.Path) && h.opts.Auth != nil:
		if getOnly(w, r) {
			h.opts.Auth.ServeMetadata(w, r, PublicEndpoint(r, h.opts.Path))
		}
		return
	default:
		http.NotFound(w, r)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.allowedOrigin(origin) {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	principal := ""
	if h.opts.Auth != nil {
		id, ok := h.opts.Auth.Authenticate(w, r, PublicEndpoint(r, h.opts.Path))
		if !ok {
			return
		}
		principal = id
	}
	buf := bodyBuffers.Get().(*[]byte)
	defer putBodyBuffer(buf)
	var rd io.Reader = r.Body
	if r.ContentLength <= 0 || r.ContentLength > h.opts.MaxBody {
		// A positive declared length within the limit bounds the body
		// already (net/http reads no further); otherwise the limit does, and
		// closes the connection when it is hit.
		rd = http.MaxBytesReader(w, r.Body, h.opts.MaxBody)
	}
	body, err := readAll(rd, (*buf)[:0])
	*buf = body
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, errorResponse(nil, Errorf(CodeInvalidRequest, fmt.Sprintf("Invalid Request: body larger than %d bytes", h.opts.MaxBody))))
			return
		}
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, Errorf(CodeInvalidRequest, "Invalid Request: unreadable body: "+err.Error())))
		return
	}
	if ba, ok := h.opts.Auth.(BodyAuthenticator); ok && !ba.AuthenticateBody(w, r, PublicEndpoint(r, h.opts.Path), principal, body) {
		return
	}
	v, err := jsonv.Parse(body)
	if err != nil || !utf8.Valid(body) {
		writeJSON(w, http.StatusBadRequest, errorResponse(unparsedID(body), errParse))
		return
	}
	if _, batch := v.([]any); batch {
		// This transport serves 2026-07-28 alone, which has no batches.
		// A batch sent as 2025-03-26 (the version with batches) or any
		// other is refused for its version, as each of its messages
		// would be (docs/spec/orchestrator.md §8).
		if pv := r.Header[routingVersionHeader]; len(pv) > 0 && pv[0] != Version20260728 {
			writeJSON(w, http.StatusBadRequest, errorResponse(nil, unsupportedVersion(pv[0])))
			return
		}
		writeJSON(w, statusFor(errBatch.Code), errorResponse(nil, errBatch))
		return
	}
	m, id, rerr := decode(v)
	id = wireID(id, body)
	if m != nil {
		m.wire = id
	}
	if rerr != nil {
		h.refusalConn(principal).recordUndecoded(m, id, rerr)
		writeJSON(w, statusFor(rerr.Code), errorResponse(id, rerr))
		return
	}
	if m.method == "initialize" {
		pv, _ := m.params.Get("protocolVersion")
		writeJSON(w, http.StatusBadRequest, errorResponse(id, unsupportedVersion(pv)))
		return
	}
	if !m.isResponse {
		if rerr := routingHeaders(r, m); rerr != nil {
			if m.hasID {
				req := newRequest(m, id, principal)
				req.identity = metaIdentity(m.params)
				h.refusalConn(principal).recordRefused(req, rerr)
			}
			writeJSON(w, statusFor(rerr.Code), errorResponse(id, rerr))
			return
		}
	}
	if m.isResponse || !m.hasID {
		if !m.isResponse && m.method == "notifications/cancelled" {
			id, _ := m.params.Get("requestId")
			if key, ok := callKey(principal, id); ok {
				h.srv.httpCalls.cancel(key, metaIdentity(m.params))
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.call(w, r, m, principal)
}

// refusalConn is the connection, writing nothing, that records a call
// of principal refused before it ran.
func (h *httpHandler) refusalConn(principal string) *conn {
	c := h.srv.newConn(&writer{route: dropAll{}}, true)
	c.principal = principal
	return c
}

// bodyBuffers hold request bodies while they are parsed: jsonv.Parse
// copies what it keeps, and the ids read from the text are copied too
// (wireID, unparsedID), so a body is done with when ServeHTTP returns.
var bodyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// putBodyBuffer pools a body buffer unless a large body grew it.
func putBodyBuffer(b *[]byte) {
	if cap(*b) <= 64<<10 {
		bodyBuffers.Put(b)
	}
}

// readAll is io.ReadAll into buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// call dispatches one request on a connection of its own and writes its
// answer. A client that accepts only text/event-stream gets an SSE
// stream: a priming event, the request's notifications (progress), then
// the answer as an `event: message`. A client that accepts both JSON and
// SSE gets plain JSON, unless a notification comes before the answer:
// then the response becomes that SSE stream, the only way to deliver the
// progress it asked for. Notifications for a client that does not
// accept SSE are dropped.
//
// Either way the stream starts with the first message the request
// writes, not before: an answer that comes first and is an error of
// HTTP 400 (docs/spec/orchestrator.md §8 step 6) is sent as that status
// with a JSON body, whatever the client accepts. Once a notification
// has been streamed, the status (200) is gone, and an error answer is
// the stream's last event.
//
// The request's job runs on this goroutine (the connection is
// ephemeral), and its messages are routed as they are written; the
// answer normally exists when handle returns. What the connection writes
// after the answer, or after this returns (a task's work), is discarded.
func (h *httpHandler) call(w http.ResponseWriter, r *http.Request, m *message, principal string) {
	accept := r.Header.Get("Accept")
	ex := &httpExchange{rt: httpRoute{w: w, want: idKey(m.id), canSSE: acceptsSSE(accept), sseOnly: wantsSSE(accept)}}
	rt := &ex.rt
	rt.st.w = w
	ex.w.route = rt
	c := h.srv.initEphemeral(&ex.c, &ex.w)
	c.principal = principal
	ex.id, ex.params = m.id, m.params
	// A notifications/cancelled POST of the same client finds the
	// request here.
	key, cancellable := callKey(principal, m.id)
	if cancellable {
		h.srv.httpCalls.add(key, ex)
	}
	// The client went away: cancel its request as notifications/cancelled
	// would.
	stop := context.AfterFunc(r.Context(), func() { c.cancelRequest(m.id) })
	c.handle(m)
	c.w.mu.Lock()
	if !rt.done {
		// Not answered yet (the answer normally is by now): wait for it,
		// its cancellation, or the client to go away.
		rt.answered = make(chan struct{})
		c.w.mu.Unlock()
		select {
		case <-rt.answered:
		case <-r.Context().Done():
		}
		c.w.mu.Lock()
	}
	rt.done = true
	cancelled := rt.cancelled
	c.w.mu.Unlock()
	if cancellable {
		h.srv.httpCalls.remove(key, ex)
	}
	stop()
	c.close()
	if cancelled && !rt.st.started {
		w.WriteHeader(http.StatusNoContent)
	}
}

// httpExchange is one HTTP request's connection with what it writes
// through, in one allocation.
type httpExchange struct {
	c  conn
	rt httpRoute
	w  writer
	// id and params of the request, for its cancellation (httpCalls),
	// and the next request in progress under the same key.
	id     any
	params *jsonv.Object
	next   *httpExchange
}

// dropAll routes every message nowhere.
type dropAll struct{}

func (dropAll) route(any, []byte) {}

// httpRoute writes the messages of one HTTP request's connection to its
// response.
type httpRoute struct {
	w      http.ResponseWriter
	st     sseStream
	want   string // idKey of the request
	canSSE bool
	// sseOnly: the client accepts text/event-stream alone, so even an
	// answer with nothing before it is streamed (unless it is a 400).
	sseOnly bool
	// answered is closed once the answer is written; call makes it only
	// when the answer was not written while the request's job ran.
	answered chan struct{}
	// done: the answer is written, the handler returned, or the client
	// cancelled the request; later messages are dropped.
	done bool
	// cancelled: the client cancelled the request before its answer
	// (notifications/cancelled), which is therefore never written.
	cancelled bool
}

func (rt *httpRoute) route(v any, line []byte) {
	if rt.done {
		return
	}
	o, _ := v.(*jsonv.Object)
	if o == nil {
		return
	}
	idv, hasID := o.Get("id")
	if _, isNote := o.Get("method"); isNote || !hasID || idKey(idv) != rt.want {
		if rt.canSSE {
			rt.st.start()
			rt.st.event(line)
		}
		return
	}
	rt.done = true
	if rt.answered != nil {
		defer close(rt.answered)
	}
	if rt.st.started {
		rt.st.event(line)
		return
	}
	status := http.StatusOK
	if ev, ok := o.Get("error"); ok {
		if eo, ok := ev.(*jsonv.Object); ok {
			code, _ := eo.Get("code")
			status = statusFor(numberInt(code))
		}
	}
	if status == http.StatusOK && rt.sseOnly {
		rt.st.start()
		rt.st.event(line)
		return
	}
	rt.w.Header()["Content-Type"] = contentTypeJSON
	rt.w.WriteHeader(status)
	rt.w.Write(line)
}

// sseStream writes one response as server-sent events.
type sseStream struct {
	w       http.ResponseWriter
	started bool
	n       int
}

// start sends the headers and the priming event (id set, empty data),
// once.
func (s *sseStream) start() {
	if s.started {
		return
	}
	s.started = true
	s.w.Header().Set("Content-Type", "text/event-stream")
	s.w.Header().Set("Cache-Control", "no-cache")
	s.w.WriteHeader(http.StatusOK)
	fmt.Fprint(s.w, "id: 0\ndata: \n\n")
	s.flush()
}

func (s *sseStream) event(data []byte) {
	s.n++
	fmt.Fprintf(s.w, "id: %d\nevent: message\ndata: %s\n\n", s.n, data)
	s.flush()
}

func (s *sseStream) flush() {
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// HTTPServerOptions are the listener limits of NewHTTPServer; zero
// values take the defaults.
type HTTPServerOptions struct {
	// ReadHeaderTimeout bounds reading the request headers (default 10s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request (default 30s).
	ReadTimeout time.Duration
	// WriteTimeout bounds a response, including an inline tool call
	// (default 5m; long work belongs in tasks).
	WriteTimeout time.Duration
	// IdleTimeout bounds an idle keep-alive connection (default 2m).
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the request headers (default 64 KiB).
	MaxHeaderBytes int
}

// NewHTTPServer is an http.Server for h with read and write timeouts
// and a header size limit, so a slow or hostile client cannot hold a
// connection open forever.
func NewHTTPServer(h http.Handler, o HTTPServerOptions) *http.Server {
	or := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 64 << 10
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: or(o.ReadHeaderTimeout, 10*time.Second),
		ReadTimeout:       or(o.ReadTimeout, 30*time.Second),
		WriteTimeout:      or(o.WriteTimeout, 5*time.Minute),
		IdleTimeout:       or(o.IdleTimeout, 2*time.Minute),
		MaxHeaderBytes:    o.MaxHeaderBytes,
	}
}

// getOnly answers 405 to anything but GET and HEAD; true lets the GET
// through.
func getOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	w.WriteHeader(http.StatusMethodNotAllowed)
	return false
}

// metadataPath reports the RFC 9728 metadata paths: the bare one and
// the one suffixed with the endpoint path.
func (h *httpHandler) metadataPath(p string) bool {
	return p == ResourceMetadataPath || (h.opts.Path != "/" && p == ResourceMetadataPath+h.opts.Path)
}

// ResourceMetadataURL is the RFC 9728 metadata URL of a public endpoint
// (docs/spec/orchestrator.md §9): the well-known path suffixed with the endpoint
// path, or bare when the path is "/".
func ResourceMetadataURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	p := u.Path
	if p == "/" {
		p = ""
	}
	return u.Scheme + "://" + u.Host + ResourceMetadataPath + p
}

// discovery serves /.well-known/mcp.json (docs/spec/orchestrator.md §8): where the
// Streamable HTTP endpoint is, by the public-origin rule, and, when the
// authenticator runs OAuth, where its protected-resource metadata is.
func (h *httpHandler) discovery(w http.ResponseWriter, r *http.Request) {
	d := h.opts.Discovery
	endpoint := PublicEndpoint(r, h.opts.Path)
	doc := jsonv.NewObject(7)
	doc.Set("name", d.Name)
	if d.Title != "" {
		doc.Set("title", d.Title)
	}
	doc.Set("version", d.Version)
	doc.Set("endpoint", endpoint)
	doc.Set("transport", discoveryTransport)
	doc.Set("protocolVersions", []any{Version20260728})
	if h.opts.Auth != nil {
		if u := h.opts.Auth.ResourceMetadataURL(endpoint); u != "" {
			auth := jsonv.NewObject(1)
			auth.Set("resourceMetadata", u)
			doc.Set("authorization", auth)
		}
	}
	writeJSON(w, http.StatusOK, doc)
}

func numberInt(v any) int {
	var n int
	fmt.Sscan(fmt.Sprint(v), &n)
	return n
}

// statusFor maps a JSON-RPC error code to the HTTP status
// (docs/spec/orchestrator.md §8 steps 3 and 6): 400 for a parse error
// and for -32602, -32020, -32021 and -32022; any other answer,
// -32600 Invalid Request included, is 200.
func statusFor(code int) int {
	switch code {
	case CodeInvalidParams, CodeHeaderMismatch, CodeMissingCapability, CodeUnsupportedVersion, CodeParseError:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// WriteJSON writes a JSON response (JSON-RPC bodies of the transport,
// and authenticators' own answers).
func WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header()["Content-Type"] = contentTypeJSON
	w.WriteHeader(status)
	w.Write(jsonv.Marshal(v))
}

// ErrorResponse is a JSON-RPC error response for id (nil: null).
func ErrorResponse(id any, e *Error) *jsonv.Object { return errorResponse(id, e) }

// allowedOrigin is the DNS-rebinding check: a loopback origin, or one
// the options allow.
func (h *httpHandler) allowedOrigin(origin string) bool {
	for _, o := range h.opts.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return LocalOrigin(origin)
}

// LocalOrigin reports whether a browser Origin header names a loopback
// host (localhost, 127.0.0.1, ::1; host names in any case): the only
// pages allowed to reach the listener by default (DNS-rebinding
// protection, docs/spec/orchestrator.md §8).
func LocalOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// acceptsSSE reports an Accept header that lists text/event-stream.
func acceptsSSE(accept string) bool {
	return strings.Contains(strings.ToLower(accept), "text/event-stream")
}

// wantsSSE reports an Accept header that lists text/event-stream but
// neither application/json nor */*.
func wantsSSE(accept string) bool {
	a := strings.ToLower(accept)
	return strings.Contains(a, "text/event-stream") && !strings.Contains(a, "application/json") && !strings.Contains(a, "*/*")
}

// routingHeaders checks MCP-Protocol-Version, Mcp-Method and Mcp-Name
// against the body.
func routingHeaders(r *http.Request, m *message) *Error {
	pv, hasPV := r.Header["Mcp-Protocol-Version"]
	if !hasPV {
		return Errorf(CodeHeaderMismatch, "MCP-Protocol-Version header is required")
	}
	if pv[0] != Version20260728 {
		return unsupportedVersion(pv[0])
	}
	// The header routes the request; the body's _meta must agree with it.
	if mv, ok := m.params.Get("_meta"); ok {
		if meta, ok := mv.(*jsonv.Object); ok {
			if bv, ok := meta.Get(MetaProtocolVersion); ok {
				if s, isString := bv.(string); isString && s != pv[0] {
					data := jsonv.NewObject(2)
					data.Set("headerValue", pv[0])
					data.Set("bodyVersion", s)
					return &Error{Code: CodeHeaderMismatch, Message: "MCP-Protocol-Version header does not match request body", Data: data}
				}
			}
		}
	}
	method, hasMethod := r.Header["Mcp-Method"]
	if !hasMethod {
		return Errorf(CodeHeaderMismatch, "Mcp-Method header is required")
	}
	if method[0] != m.method {
		data := jsonv.NewObject(2)
		data.Set("headerValue", method[0])
		data.Set("bodyMethod", m.method)
		return &Error{Code: CodeHeaderMismatch, Message: "Mcp-Method header does not match request body", Data: data}
	}
	key := ""
	switch m.method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		key = "taskId"
	default:
		return nil
	}
	name, hasName := r.Header["Mcp-Name"]
	if !hasName {
		return Errorf(CodeHeaderMismatch, "Mcp-Name header is required for this request")
	}
	body, _ := m.params.Get(key)
	if bs, _ := body.(string); !headerNames(name[0], bs) {
		data := jsonv.NewObject(2)
		data.Set("headerValue", name[0])
		data.Set("bodyName", body)
		return &Error{Code: CodeHeaderMismatch, Message: "Mcp-Name header does not match request body", Data: data}
	}
	return nil
}

// The sentinel a 2026-07-28 client wraps a header value in when the
// value is not plain printable ASCII (non-ASCII text, an empty string,
// leading or trailing spaces): "=?base64?" + standard padded Base64 of
// its UTF-8 + "?=" (the official TypeScript SDK does this for Mcp-Name).
const (
	base64SentinelPrefix = "=?base64?"
	base64SentinelSuffix = "?="
)

// headerNames reports whether the Mcp-Name header value names want: it
// is want itself or, Base64-wrapped, want's UTF-8. A sentinel that does
// not decode to valid UTF-8 names nothing.
func headerNames(header, want string) bool {
	if header == want {
		return true
	}
	inner, ok := strings.CutPrefix(header, base64SentinelPrefix)
	if !ok || !strings.HasSuffix(inner, base64SentinelSuffix) {
		return false
	}
	inner = strings.TrimSuffix(inner, base64SentinelSuffix)
	text, err := base64.StdEncoding.DecodeString(inner)
	return err == nil && utf8.Valid(text) && string(text) == want
}

// PublicEndpoint is the endpoint clients reach path at, by the
// public-origin rule (docs/spec/orchestrator.md §8): scheme from the first
// X-Forwarded-Proto value when it is http or https (else https for a
// request that came over TLS, http otherwise), host
// from the first X-Forwarded-Host value when it is a host[:port] (else
// Host, which the HTTP server has checked, else 127.0.0.1); both
// lower-cased. Every URL the server publishes (the discovery document,
// the WWW-Authenticate resource_metadata, the metadata's resource) is
// built from it, so a forwarded value with a path, a query or a space in
// it cannot make them disagree.
func PublicEndpoint(r *http.Request, path string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := firstValue(r.Header.Get("X-Forwarded-Proto")); p != "" {
		if lp := strings.ToLower(p); lp == "http" || lp == "https" {
			scheme = lp
		}
	}
	host := firstValue(r.Header.Get("X-Forwarded-Host"))
	if !validHost(host) {
		host = r.Host
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return scheme + "://" + strings.ToLower(host) + path
}

// validHost says whether h is a host[:port] as a Host header carries
// one: a DNS name or IPv4 address (letters, digits, '-', '.', '_') or an
// IPv6 address in brackets, and an optional decimal port.
func validHost(h string) bool {
	host, port, hasPort := h, "", false
	if rest, ok := strings.CutPrefix(h, "["); ok {
		addr, after, closed := strings.Cut(rest, "]")
		if !closed || !strings.Contains(addr, ":") || net.ParseIP(addr) == nil {
			return false
		}
		host = addr
		if after != "" {
			port, hasPort = strings.CutPrefix(after, ":")
			if !hasPort {
				return false
			}
		}
	} else {
		if i := strings.LastIndexByte(h, ':'); i >= 0 {
			host, port, hasPort = h[:i], h[i+1:], true
		}
		if host == "" || strings.IndexFunc(host, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
		}) >= 0 {
			return false
		}
	}
	if hasPort {
		n, err := strconv.Atoi(port)
		if err != nil || n < 0 || n > 65535 || len(port) > 5 || strings.ContainsAny(port, "+-") {
			return false
		}
	}
	return true
}

func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first)
}

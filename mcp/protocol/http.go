package protocol

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/harnlang/harn/tool/jsonv"
)

// HTTPOptions configures the session-free Streamable HTTP transport
// (orchestrator.md §8, mcp-projection.md §12).
type HTTPOptions struct {
	// Path is the endpoint path (default /mcp).
	Path string
	// Auth authenticates every POST after the Origin check and before
	// the body is read; nil allows every request.
	Auth Authenticator
	// MaxBody bounds a request body (default 64 MiB).
	MaxBody int64
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

const defaultMaxBody = 64 << 20

// HTTPHandler serves 2026-07-28 clients over HTTP: one JSON-RPC message
// per POST, no sessions.
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
	w.Header().Set("MCP-Protocol-Version", Version20260728)
	switch {
	case r.URL.Path != h.opts.Path:
		http.NotFound(w, r)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !localOrigin(origin) {
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
	body, err := io.ReadAll(io.LimitReader(r.Body, h.opts.MaxBody+1))
	if err != nil || int64(len(body)) > h.opts.MaxBody {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, Errorf(CodeInvalidRequest, "Invalid Request: body too large or unreadable")))
		return
	}
	v, err := jsonv.Parse(body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, Errorf(CodeParseError, "Parse error: "+err.Error())))
		return
	}
	m, id, rerr := decode(v)
	if rerr != nil {
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
			writeJSON(w, statusFor(rerr.Code), errorResponse(id, rerr))
			return
		}
	}
	if m.isResponse || !m.hasID {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.call(w, r, m, principal)
}

// call dispatches one request on a connection of its own and writes its
// answer, as JSON or as an SSE stream that first carries the request's
// notifications.
func (h *httpHandler) call(w http.ResponseWriter, r *http.Request, m *message, principal string) {
	lines := make(chan []byte, 16)
	c := h.srv.newConn(newWriter(&lineSink{out: lines}), true)
	c.principal = principal
	c.handle(m)
	sse := wantsSSE(r.Header.Get("Accept"))
	var flusher http.Flusher
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "id: 0\ndata: \n\n")
		flusher, _ = w.(http.Flusher)
		if flusher != nil {
			flusher.Flush()
		}
	}
	want := idKey(m.id)
	event := 0
	for line := range lines {
		v, _ := jsonv.Parse(line)
		o, _ := v.(*jsonv.Object)
		if o == nil {
			continue
		}
		idv, hasID := o.Get("id")
		if _, isNote := o.Get("method"); isNote || !hasID || idKey(idv) != want {
			if sse {
				event++
				fmt.Fprintf(w, "id: %d\nevent: message\ndata: %s\n\n", event, line)
				if flusher != nil {
					flusher.Flush()
				}
			}
			continue
		}
		if sse {
			event++
			fmt.Fprintf(w, "id: %d\nevent: message\ndata: %s\n\n", event, line)
		} else {
			status := http.StatusOK
			if ev, ok := o.Get("error"); ok {
				if eo, ok := ev.(*jsonv.Object); ok {
					code, _ := eo.Get("code")
					status = statusFor(numberInt(code))
				}
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(line)
		}
		break
	}
	// The connection finishes in the background (a task keeps running
	// after its create answer), discarding what it still writes.
	go func() {
		for range lines {
		}
	}()
	go func() {
		c.close()
		close(lines)
	}()
}

func numberInt(v any) int {
	var n int
	fmt.Sscan(fmt.Sprint(v), &n)
	return n
}

// statusFor maps a JSON-RPC error code to the HTTP status.
func statusFor(code int) int {
	switch code {
	case CodeInvalidParams, CodeHeaderMismatch, CodeMissingCapability, CodeUnsupportedVersion, CodeParseError, CodeInvalidRequest:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// WriteJSON writes a JSON response (JSON-RPC bodies of the transport,
// and authenticators' own answers).
func WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(jsonv.Marshal(v))
}

// ErrorResponse is a JSON-RPC error response for id (nil: null).
func ErrorResponse(id any, e *Error) *jsonv.Object { return errorResponse(id, e) }

func localOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

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
	if bs, _ := body.(string); bs != name[0] {
		data := jsonv.NewObject(2)
		data.Set("headerValue", name[0])
		data.Set("bodyName", body)
		return &Error{Code: CodeHeaderMismatch, Message: "Mcp-Name header does not match request body", Data: data}
	}
	return nil
}

// PublicEndpoint is the endpoint clients reach path at, by the
// public-origin rule (orchestrator.md §8): scheme from the first
// X-Forwarded-Proto value when it is http or https (else http), host
// from the first X-Forwarded-Host value, else Host, else 127.0.0.1;
// both lower-cased.
func PublicEndpoint(r *http.Request, path string) string {
	scheme := "http"
	if p := firstValue(r.Header.Get("X-Forwarded-Proto")); p != "" {
		if lp := strings.ToLower(p); lp == "http" || lp == "https" {
			scheme = lp
		}
	}
	host := firstValue(r.Header.Get("X-Forwarded-Host"))
	if host == "" {
		host = r.Host
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return scheme + "://" + strings.ToLower(host) + path
}

func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first)
}

// lineSink splits what a writer writes into lines.
type lineSink struct {
	buf []byte
	out chan<- []byte
}

func (s *lineSink) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := append([]byte(nil), s.buf[:i]...)
		s.buf = s.buf[i+1:]
		s.out <- line
	}
}

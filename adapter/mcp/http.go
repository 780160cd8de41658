package mcp

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/harnlang/harn/tool/jsonv"
)

// HTTPOptions configures the session-free Streamable HTTP transport
// (mcp-projection.md §12, orchestrator.md §8).
type HTTPOptions struct {
	// Path is the endpoint path (default /mcp).
	Path string
	// APIKeys, when set, are required on every POST (Authorization:
	// Bearer or X-API-Key).
	APIKeys []string
}

const maxHTTPBody = 64 << 20

// HTTPHandler serves the surface to 2026-07-28 clients over HTTP: one
// JSON-RPC message per POST, no sessions.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.Path == "" {
		o.Path = "/mcp"
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
	case r.URL.Path == "/.well-known/mcp-card" && r.Method == http.MethodGet && h.srv.opts.Card != nil:
		w.Header().Set("Content-Type", "application/json")
		w.Write(jsonv.Marshal(h.srv.opts.Card))
		return
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
	if len(h.opts.APIKeys) > 0 && !h.authorized(r) {
		writeJSON(w, http.StatusUnauthorized, errorResponse(nil, errorf(codeUnauthorized, "unauthorized")))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody+1))
	if err != nil || len(body) > maxHTTPBody {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, errorf(codeInvalidRequest, "Invalid Request: body too large or unreadable")))
		return
	}
	v, err := jsonv.Parse(body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, errorf(codeParseError, "Parse error: "+err.Error())))
		return
	}
	m, id, rerr := decode(v)
	if rerr != nil {
		writeJSON(w, statusFor(rerr.Code), errorResponse(id, rerr))
		return
	}
	if m.method == "initialize" {
		data := jsonv.NewObject(2)
		data.Set("supported", []any{Version20260728})
		pv, _ := m.params.Get("protocolVersion")
		data.Set("requested", pv)
		writeJSON(w, http.StatusBadRequest, errorResponse(id, &rpcError{Code: codeUnsupportedVersion, Message: "Unsupported protocol version", Data: data}))
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
	h.call(w, r, m, body)
}

// call dispatches one request on a connection of its own and writes its
// answer, as JSON or as an SSE stream that first carries the request's
// notifications.
func (h *httpHandler) call(w http.ResponseWriter, r *http.Request, m *message, body []byte) {
	lines := make(chan []byte, 16)
	c := h.srv.newConn(newWriter(&lineSink{out: lines}))
	c.handleLine(body)
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
	case codeInvalidParams, codeHeaderMismatch, codeMissingCapability, codeUnsupportedVersion, codeParseError, codeInvalidRequest:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(jsonv.Marshal(v))
}

func (h *httpHandler) authorized(r *http.Request) bool {
	given := r.Header.Get("X-API-Key")
	if a := r.Header.Get("Authorization"); given == "" && strings.HasPrefix(a, "Bearer ") {
		given = strings.TrimPrefix(a, "Bearer ")
	}
	for _, k := range h.opts.APIKeys {
		if given != "" && subtle.ConstantTimeCompare([]byte(given), []byte(k)) == 1 {
			return true
		}
	}
	return false
}

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
func routingHeaders(r *http.Request, m *message) *rpcError {
	pv, hasPV := r.Header["Mcp-Protocol-Version"]
	if !hasPV {
		return errorf(codeHeaderMismatch, "MCP-Protocol-Version header is required")
	}
	if pv[0] != Version20260728 {
		data := jsonv.NewObject(2)
		data.Set("supported", []any{Version20260728})
		data.Set("requested", pv[0])
		return &rpcError{Code: codeUnsupportedVersion, Message: "Unsupported protocol version", Data: data}
	}
	method, hasMethod := r.Header["Mcp-Method"]
	if !hasMethod {
		return errorf(codeHeaderMismatch, "Mcp-Method header is required")
	}
	if method[0] != m.method {
		data := jsonv.NewObject(2)
		data.Set("headerValue", method[0])
		data.Set("bodyMethod", m.method)
		return &rpcError{Code: codeHeaderMismatch, Message: "Mcp-Method header does not match request body", Data: data}
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
		return errorf(codeHeaderMismatch, "Mcp-Name header is required for this request")
	}
	body, _ := m.params.Get(key)
	if bs, _ := body.(string); bs != name[0] {
		data := jsonv.NewObject(2)
		data.Set("headerValue", name[0])
		data.Set("bodyName", body)
		return &rpcError{Code: codeHeaderMismatch, Message: "Mcp-Name header does not match request body", Data: data}
	}
	return nil
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

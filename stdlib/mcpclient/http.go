package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
)

// httpTransport speaks MCP Streamable HTTP: one POST per message, the
// answer as a JSON body or in a text/event-stream. It follows the
// released profile (an Mcp-Session-Id the server hands out at initialize,
// the MCP-Protocol-Version header afterwards) and the session-free
// 2026-07-28 profile of Harn's own servers (docs/spec/mcp-projection.md §12:
// the Mcp-Method and Mcp-Name routing headers, version metadata in every
// request).
type httpTransport struct {
	url     string
	headers map[string]string
	client  *http.Client
	in      *inputs // answers the server's requests

	mu          sync.Mutex
	nextID      int64
	sessionID   string // Mcp-Session-Id, when the server gave one
	version     string // MCP-Protocol-Version once negotiated
	sessionFree bool   // the 2026-07-28 profile: routing headers
	closed      bool
	// creds are the auth function's credentials (auth.go); refused: the
	// server answered 401 to a request that carried them.
	creds   credentials
	refused bool
}

// setCredentials makes creds the Authorization of the next requests.
func (t *httpTransport) setCredentials(creds credentials) {
	t.mu.Lock()
	t.creds, t.refused = creds, false
	t.mu.Unlock()
}

// credentialsExpired reports whether the credentials were refused or
// have expired at now.
func (t *httpTransport) credentialsExpired(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.creds.header == "" {
		return false
	}
	return t.refused || !t.creds.expires.IsZero() && !now.Before(t.creds.expires)
}

func newHTTP(rawURL string, headers map[string]string) (*httpTransport, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", rawURL)
	}
	return &httpTransport{url: rawURL, headers: headers, client: &http.Client{}}, nil
}

func (t *httpTransport) kind() string { return "http" }

// errSessionExpired is a 404 to a request that carried a session id.
var errSessionExpired = errors.New("the server ended the session (HTTP 404)")

// noteRefused records a 401 answer to a request that carried sent, when
// sent is still the current credentials.
func (t *httpTransport) noteRefused(sent string) {
	t.mu.Lock()
	if sent != "" && sent == t.creds.header {
		t.refused = true
	}
	t.mu.Unlock()
}

// setProfile records the negotiated version (sent as
// MCP-Protocol-Version) and whether requests carry routing headers.
func (t *httpTransport) setProfile(version string, sessionFree bool) {
	t.mu.Lock()
	t.version, t.sessionFree = version, sessionFree
	t.mu.Unlock()
}

func (t *httpTransport) newRequest(ctx context.Context, method string, body []byte, rpcMethod, name string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	t.mu.Lock()
	if t.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", t.sessionID)
	}
	if t.version != "" {
		req.Header.Set("MCP-Protocol-Version", t.version)
	}
	if t.sessionFree && rpcMethod != "" {
		req.Header.Set("Mcp-Method", rpcMethod)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	auth := t.creds.header
	t.mu.Unlock()
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return req, nil
}

// netError words a failed round trip as "POST URL: reason".
func (t *httpTransport) netError(method string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s %s: %v", method, t.url, err)
}

func (t *httpTransport) call(ctx context.Context, method string, params *jsonv.Object, name string) (any, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, errClosed
	}
	t.nextID++
	id := t.nextID
	t.mu.Unlock()
	req, err := t.newRequest(ctx, http.MethodPost, request(id, method, params), method, name)
	if err != nil {
		return nil, err
	}
	sentSession := req.Header.Get("Mcp-Session-Id")
	resp, err := t.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, t.netError("POST", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		t.noteRefused(req.Header.Get("Authorization"))
	}
	if resp.StatusCode == http.StatusNotFound && sentSession != "" {
		// The server ended the session (MCP: start a new one).
		t.mu.Lock()
		if t.sessionID == sentSession {
			t.sessionID = ""
		}
		t.mu.Unlock()
		return nil, errSessionExpired
	}
	if method == "initialize" {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			t.mu.Lock()
			t.sessionID = sid
			t.mu.Unlock()
		}
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if strings.HasPrefix(ct, "text/event-stream") {
		return t.readStream(ctx, resp, id)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, t.netError("POST", err)
	}
	if len(body) > maxMessage {
		return nil, errTooLong
	}
	if v, perr := jsonv.Parse(body); perr == nil {
		if m, ok := decodeIncoming(v); ok && m.response {
			if n, ok := idNumber(m.id); ok && n == id || m.id == nil && m.err != nil {
				if m.err != nil {
					return nil, m.err
				}
				return m.result, nil
			}
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("POST %s: HTTP %s%s", t.url, resp.Status, snippet(body))
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil, fmt.Errorf("POST %s: the server accepted %s without answering it", t.url, method)
	}
	return nil, fmt.Errorf("POST %s: the answer to %s is not a JSON-RPC response%s", t.url, method, snippet(body))
}

// snippet is ": " plus the start of a body, for error messages.
func snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return ": " + s
}

// readStream reads server-sent events until the answer to id arrives,
// answering the server's own requests on the way.
func (t *httpTransport) readStream(ctx context.Context, resp *http.Response, id int64) (any, error) {
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	var data []byte
	for {
		line, err := readLine(r)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, errTooLong) {
				return nil, err
			}
			return nil, fmt.Errorf("POST %s: the event stream ended without an answer", t.url)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				rest = bytes.TrimPrefix(rest, []byte(" "))
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, rest...)
				if len(data) > maxMessage {
					return nil, errTooLong
				}
			}
			continue
		}
		// A blank line ends an event.
		if len(data) == 0 {
			data = nil
			continue
		}
		v, perr := jsonv.Parse(data)
		data = nil
		if perr != nil {
			continue
		}
		m, ok := decodeIncoming(v)
		if !ok {
			continue
		}
		switch {
		case m.response:
			if n, ok := idNumber(m.id); ok && n == id {
				if m.err != nil {
					return nil, m.err
				}
				return m.result, nil
			}
		case m.hasID:
			if slowAnswer(m.method) {
				go func() { t.post(ctx, answerServerRequest(ctx, m, t.in)) }()
			} else {
				t.post(ctx, answerServerRequest(ctx, m, t.in))
			}
		}
	}
}

// post sends a message that expects no answer (a notification or the
// client's answer to a server request).
func (t *httpTransport) post(ctx context.Context, msg []byte) error {
	req, err := t.newRequest(ctx, http.MethodPost, msg, "", "")
	if err != nil {
		return err
	}
	return t.postUnanswered(req)
}

func (t *httpTransport) notify(ctx context.Context, method string, params *jsonv.Object) error {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return errClosed
	}
	req, err := t.newRequest(ctx, http.MethodPost, notification(method, params), method, "")
	if err != nil {
		return err
	}
	return t.postUnanswered(req)
}

// postUnanswered sends req, a POST that expects no answer, and reads
// away its body.
func (t *httpTransport) postUnanswered(req *http.Request) error {
	resp, err := t.client.Do(req)
	if err != nil {
		return t.netError("POST", err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("POST %s: HTTP %s", t.url, resp.Status)
	}
	return nil
}

// close ends the session: a DELETE with the session id, when the server
// gave one (a server that does not support it answers 405; ignored).
func (t *httpTransport) close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	sid := t.sessionID
	t.mu.Unlock()
	if sid == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := t.newRequest(ctx, http.MethodDelete, nil, "", "")
	if err != nil {
		return
	}
	if resp, err := t.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

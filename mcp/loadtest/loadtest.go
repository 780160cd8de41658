// Package loadtest measures an MCP Streamable HTTP server the way issue
// 11's speed figure states it: session-free `tools/call` requests from
// many concurrent clients over loopback, reported as throughput and
// latency percentiles (p50, p90, p99, max).
//
// It drives either an http.Handler, served on a loopback listener of its
// own (RunHandler), or a server that is already listening (RunURL), for
// example a `harn mcp serve --transport http` process. Each client is a
// goroutine that sends its next request as soon as the previous answer
// has been read, over a keep-alive connection of its own, so latency
// includes the HTTP round trip, the server's routing-header and auth
// checks, the dispatch and the JSON encoding — everything but a real
// network.
package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Options describe the load.
type Options struct {
	// Clients is the number of concurrent clients (default 64).
	Clients int
	// Requests is the number of measured requests, shared among the
	// clients (default 100 per client).
	Requests int
	// Warmup requests per client are sent first and not measured
	// (default 5): connections open and caches fill.
	Warmup int
	// Path is the endpoint path for RunHandler (default /mcp).
	Path string
	// Tool and Arguments are the tools/call target; Arguments is a JSON
	// object (default {}).
	Tool      string
	Arguments json.RawMessage
	// Header is added to every request (credentials, for example).
	Header http.Header
	// Timeout bounds each request (default 30s).
	Timeout time.Duration
	// NetHTTP sends the requests through net/http's client (one
	// keep-alive transport shared by the clients) instead of each
	// client's own connection, written and read directly: the load
	// generator this package had first, kept to compare what the client
	// side costs. Answers are checked the same way.
	NetHTTP bool
}

// Result is what a run measured.
type Result struct {
	Requests int           // measured requests
	Errors   int           // transport errors, non-200 answers, JSON-RPC errors and isError results
	Elapsed  time.Duration // wall time of the measured phase
	P50, P90 time.Duration
	P99, Max time.Duration
	// Passed50 and Passed99 are percentiles of how many other requests
	// were answered while a request was in flight. With every client
	// waiting for its answer before it sends again, a server that answers
	// in arrival order lets about Clients-1 pass each request; more is
	// overtaking, the service order's share of the tail. Unlike the
	// latencies they hardly move with other load on the machine.
	Passed50, Passed99 int64
	// FirstError describes the first failed request, if any.
	FirstError string
}

// PerSecond is the measured throughput.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

func (r Result) String() string {
	return fmt.Sprintf("%d requests, %d errors, %.0f/s, p50 %s, p90 %s, p99 %s, max %s, passed p50 %d p99 %d",
		r.Requests, r.Errors, r.PerSecond(), r.P50, r.P90, r.P99, r.Max, r.Passed50, r.Passed99)
}

// RunHandler serves h on a loopback port for the duration of the run.
func RunHandler(ctx context.Context, h http.Handler, o Options) (Result, error) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	path := o.Path
	if path == "" {
		path = "/mcp"
	}
	return RunURL(ctx, srv.URL+path, o)
}

// RunURL sends the load to the MCP endpoint at url.
func RunURL(ctx context.Context, url string, o Options) (Result, error) {
	if o.Tool == "" {
		return Result{}, errors.New("loadtest: Options.Tool is required")
	}
	if o.Clients <= 0 {
		o.Clients = 64
	}
	if o.Requests <= 0 {
		o.Requests = 100 * o.Clients
	}
	if o.Warmup < 0 {
		o.Warmup = 0
	} else if o.Warmup == 0 {
		o.Warmup = 5
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	args := o.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	target, err := parseTarget(url)
	if err != nil {
		return Result{}, err
	}

	var (
		next       atomic.Int64 // measured requests handed out
		errs       atomic.Int64
		firstErr   sync.Once
		firstError string
		latencies  = make([]time.Duration, o.Requests)
		passed     = make([]int64, o.Requests)
		answered   atomic.Int64 // requests answered, warm-up included
		ready      sync.WaitGroup
		done       sync.WaitGroup
		start      = make(chan struct{})
	)
	fail := func(msg string) {
		errs.Add(1)
		firstErr.Do(func() { firstError = msg })
	}
	// The body differs per request only in its id: marshal the rest once,
	// so the clients spend their CPU on the requests, not on building them.
	params, err := json.Marshal(map[string]any{
		"name": o.Tool, "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "harn-loadtest", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	})
	if err != nil {
		return Result{}, fmt.Errorf("loadtest: arguments: %v", err)
	}
	head := requestHead(target, o)
	var shared *http.Client
	if o.NetHTTP {
		transport := &http.Transport{MaxIdleConns: o.Clients, MaxIdleConnsPerHost: o.Clients,
			MaxConnsPerHost: o.Clients, IdleConnTimeout: time.Minute}
		defer transport.CloseIdleConnections()
		shared = &http.Client{Transport: transport, Timeout: o.Timeout}
	}
	var id atomic.Int64
	for range o.Clients {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			var c caller
			if shared != nil {
				c = &netHTTPClient{ctx: ctx, client: shared, url: url, header: o.Header, tool: o.Tool, params: params}
			} else {
				raw := &client{target: target, head: head, params: params, timeout: o.Timeout}
				defer raw.close()
				stop := context.AfterFunc(ctx, raw.close)
				defer stop()
				c = raw
			}
			one := func() (time.Duration, int64, error) {
				before := answered.Load()
				took, err := c.call(id.Add(1))
				return took, answered.Add(1) - 1 - before, err
			}
			for range o.Warmup {
				if _, _, err := one(); err != nil {
					fail("warm-up: " + err.Error())
				}
			}
			ready.Done()
			<-start
			for {
				i := next.Add(1) - 1
				if i >= int64(o.Requests) || ctx.Err() != nil {
					return
				}
				took, n, err := one()
				latencies[i], passed[i] = took, n
				if err != nil {
					fail(err.Error())
				}
			}
		}()
	}
	ready.Wait()
	begin := time.Now()
	close(start)
	done.Wait()
	elapsed := time.Since(begin)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	slices.Sort(latencies)
	slices.Sort(passed)
	pct := func(p float64) time.Duration { return latencies[rank(p, len(latencies))] }
	return Result{
		Requests:   o.Requests,
		Errors:     int(errs.Load()),
		Elapsed:    elapsed,
		P50:        pct(0.50),
		P90:        pct(0.90),
		P99:        pct(0.99),
		Max:        latencies[len(latencies)-1],
		Passed50:   passed[rank(0.50, len(passed))],
		Passed99:   passed[rank(0.99, len(passed))],
		FirstError: firstError,
	}, nil
}

// rank is the index of the p-th percentile of n sorted values.
func rank(p float64, n int) int {
	i := int(p*float64(n)+0.999999) - 1
	return max(0, min(i, n-1))
}

// checkAnswer accepts a JSON-RPC success for request id whose
// CallToolResult is not an error, as application/json or as the last
// SSE message event. A success is recognised by walking the answer's
// members without decoding it (the load generator's CPU is taken from
// the server it measures); anything else is decoded to say what is
// wrong.
func checkAnswer(answer []byte, id int64) error {
	if bytes.HasPrefix(answer, []byte("id:")) {
		if i := bytes.LastIndex(answer, []byte("\ndata: ")); i >= 0 {
			answer = bytes.TrimSpace(answer[i+len("\ndata: "):])
		}
	}
	var buf [20]byte
	wantID := strconv.AppendInt(buf[:0], id, 10)
	if succeeded(answer, wantID) {
		return nil
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &m); err != nil {
		return fmt.Errorf("answer is not JSON-RPC: %.200s", answer)
	}
	switch {
	case m.Error != nil:
		return fmt.Errorf("JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
	case !bytes.Equal(m.ID, wantID):
		return fmt.Errorf("answer to id %s, want %d: %.200s", m.ID, id, answer)
	case m.Result == nil:
		return fmt.Errorf("answer has no result: %.200s", answer)
	case m.Result.IsError:
		return fmt.Errorf("tool failed: %.200s", answer)
	}
	return nil
}

// succeeded reports whether answer is a valid JSON object with the id
// (as written: a JSON number) wantID, a result object, no error member
// and no isError true in the result.
func succeeded(answer, wantID []byte) bool {
	if !json.Valid(answer) {
		return false
	}
	result, idOK, failed := false, false, false
	eachMember(answer, func(key, value []byte) {
		switch string(key) {
		case "id":
			idOK = bytes.Equal(value, wantID)
		case "error":
			failed = true
		case "result":
			result = len(value) > 0 && value[0] == '{'
			eachMember(value, func(key, value []byte) {
				if string(key) == "isError" && string(value) != "false" {
					failed = true
				}
			})
		}
	})
	return result && idOK && !failed
}

// eachMember calls f with the key (as written, without its quotes) and
// the value of each member of obj, a valid JSON object.
func eachMember(obj []byte, f func(key, value []byte)) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	for i++; ; i++ {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return // "}" of an empty object
		}
		end := skipValue(obj, i)
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end) + 1 // past ':'
		i = skipSpace(obj, i)
		end = skipValue(obj, i)
		f(key, obj[i:end])
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue is the end of the valid JSON value that starts at b[i].
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // a scalar's end: the enclosing object's
			}
		case ',':
			if depth == 0 {
				return i
			}
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// target is where a run sends its requests: a plain-HTTP endpoint.
type target struct {
	addr string // host:port to dial
	host string // Host header
	path string // request target
}

func parseTarget(raw string) (target, error) {
	u, err := neturl.Parse(raw)
	if err != nil {
		return target{}, fmt.Errorf("loadtest: %v", err)
	}
	if u.Scheme != "http" {
		return target{}, fmt.Errorf("loadtest: %s: only http:// endpoints can be loaded (loopback, no TLS)", raw)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	path := u.RequestURI()
	return target{addr: addr, host: u.Host, path: path}, nil
}

// requestHead is the request line and the headers every request
// carries, up to the Content-Length value.
func requestHead(t target, o Options) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\n", t.path, t.host)
	b.WriteString("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
	b.WriteString("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n")
	fmt.Fprintf(&b, "Mcp-Name: %s\r\n", o.Tool)
	for k, vs := range o.Header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("Content-Length: ")
	return b.Bytes()
}

// client is one load client: a keep-alive HTTP/1.1 connection of its
// own, written and read directly. net/http's client costs two goroutine
// hand-offs and several allocations a request; on a machine whose cores
// the server shares, that CPU would be taken from the server being
// measured.
type client struct {
	target  target
	head    []byte
	params  []byte
	timeout time.Duration

	mu     sync.Mutex // guards conn and closed against close from ctx
	conn   net.Conn
	closed bool
	r      *bufio.Reader
	req    []byte
	body   []byte
}

func (c *client) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.drop()
}

func (c *client) dial() (net.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("loadtest: cancelled")
	}
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.target.addr, c.timeout)
		if err != nil {
			return nil, err
		}
		c.conn, c.r = conn, bufio.NewReaderSize(conn, 16<<10)
	}
	return c.conn, nil
}

// drop closes the connection after a failure or a Connection: close
// answer; the next request dials again.
func (c *client) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// call sends one tools/call with id and checks its answer.
func (c *client) call(id int64) (time.Duration, error) {
	conn, err := c.dial()
	if err != nil {
		return 0, err
	}
	body := c.req[:0]
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendInt(body, id, 10)
	body = append(body, `,"method":"tools/call","params":`...)
	body = append(body, c.params...)
	body = append(body, '}')
	n := len(body)
	// The head, Content-Length and body go out in one write.
	msg := append(body, c.head...)
	msg = strconv.AppendInt(msg, int64(n), 10)
	msg = append(msg, "\r\n\r\n"...)
	msg = append(msg, body[:n]...)
	c.req = msg
	begin := time.Now()
	conn.SetDeadline(begin.Add(c.timeout))
	if _, err := conn.Write(msg[n:]); err != nil {
		c.drop()
		return 0, err
	}
	status, answer, keep, err := c.readResponse()
	took := time.Since(begin)
	if err != nil || !keep {
		c.drop()
	}
	if err != nil {
		return took, err
	}
	if status != 200 {
		return took, fmt.Errorf("HTTP %d: %.200s", status, answer)
	}
	return took, checkAnswer(answer, id)
}

// A caller sends one tools/call with an id and checks its answer.
type caller interface {
	call(id int64) (time.Duration, error)
}

// netHTTPClient is a caller through net/http's client (Options.NetHTTP).
type netHTTPClient struct {
	ctx    context.Context
	client *http.Client
	url    string
	header http.Header
	tool   string
	params []byte
}

func (c *netHTTPClient) call(id int64) (time.Duration, error) {
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, c.params)
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", c.tool)
	for k, vs := range c.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	begin := time.Now()
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, err
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(begin)
	if err != nil {
		return took, err
	}
	if resp.StatusCode != http.StatusOK {
		return took, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, answer)
	}
	return took, checkAnswer(answer, id)
}

// readResponse reads one HTTP/1.1 response: its status, its body
// (Content-Length or chunked) and whether the connection stays open.
func (c *client) readResponse() (status int, body []byte, keep bool, err error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, nil, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, nil, false, fmt.Errorf("malformed status line %q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, nil, false, fmt.Errorf("malformed status line %q", line)
	}
	length, chunked, keep := -1, false, true
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, nil, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqual(name, "Content-Length"):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, nil, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case asciiEqual(name, "Transfer-Encoding"):
			chunked = asciiEqual(value, "chunked")
		case asciiEqual(name, "Connection"):
			keep = !asciiEqual(value, "close")
		}
	}
	c.body = c.body[:0]
	switch {
	case chunked:
		for {
			line, err := c.r.ReadSlice('\n')
			if err != nil {
				return 0, nil, false, err
			}
			size, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.SplitN(line, []byte(";"), 2)[0])), 16, 32)
			if err != nil {
				return 0, nil, false, fmt.Errorf("bad chunk size %q", line)
			}
			if size == 0 {
				// Trailers, then the blank line.
				for {
					line, err := c.r.ReadSlice('\n')
					if err != nil {
						return 0, nil, false, err
					}
					if len(bytes.TrimRight(line, "\r\n")) == 0 {
						return status, c.body, keep, nil
					}
				}
			}
			if c.body, err = readN(c.r, c.body, int(size)+2); err != nil {
				return 0, nil, false, err
			}
			c.body = c.body[:len(c.body)-2]
		}
	case length >= 0:
		c.body, err = readN(c.r, c.body, length)
		return status, c.body, keep, err
	default:
		c.body, err = io.ReadAll(c.r)
		return status, c.body, false, err
	}
}

func readN(r io.Reader, buf []byte, n int) ([]byte, error) {
	start := len(buf)
	buf = slices.Grow(buf, n)[:start+n]
	_, err := io.ReadFull(r, buf[start:])
	return buf, err
}

func asciiEqual(b []byte, s string) bool { return bytes.EqualFold(b, []byte(s)) }

package streams_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnlang/harn/interp"
)

// The tests run Harn programs against loopback servers (httptest) and
// compare what they print.

func run(t *testing.T, src string) string {
	t.Helper()
	var stderr bytes.Buffer
	res := interp.RunProgram(filepath.Join(t.TempDir(), "main.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
	out := string(res.Stdout)
	if res.Err != nil {
		out += "ERROR: " + res.Err.Error()
	}
	return out
}

func check(t *testing.T, src, want string) {
	t.Helper()
	if got := run(t, src); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func sseHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for _, part := range strings.SplitAfter(body, "\n\n") {
			fmt.Fprint(w, part)
			w.(http.Flusher).Flush()
		}
	}
}

func TestSSEClientParsesTheStream(t *testing.T) {
	srv := httptest.NewServer(sseHandler(": a comment\n\nevent: greet\r\ndata: one\r\ndata: two\r\nid: 7\r\n\r\ndata:no space\rretry: 250\r\rdata: tail without blank line"))
	defer srv.Close()
	check(t, fmt.Sprintf(`
let c = sse_connect(%q)
println(c.status)
println(sse_receive(c, 5s))
println(sse_receive(c, 5s))
println(sse_receive(c, 5s))
`, srv.URL), "200\n{data: one\ntwo, event: greet, id: 7, retry: nil}\n{data: no space, event: message, id: 7, retry: 250}\nnil\n")
}

func TestSSEClientSendsHeadersAndReconnectsWithLastEventID(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Token")+"|"+r.Header.Get("Last-Event-ID"))
		n := len(seen)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		switch n {
		case 1:
			fmt.Fprint(w, "retry: 10\nid: 1\ndata: first\n\n")
		case 2:
			fmt.Fprint(w, "id: 2\ndata: second\n\n")
		default:
			w.WriteHeader(http.StatusNoContent) // stop reconnecting
		}
	}))
	defer srv.Close()
	check(t, fmt.Sprintf(`
let c = sse_connect(%q, {headers: {"X-Token": "abc"}, reconnect: 2, retry: 10})
println(sse_receive(c, 5s).data)
println(sse_receive(c, 5s).data)
println(sse_receive(c, 5s))
`, srv.URL), "first\nsecond\nnil\n")
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[0] != "abc|" || seen[1] != "abc|1" || seen[2] != "abc|2" {
		t.Errorf("requests: %q", seen)
	}
}

// A reconnection answered with an error status ends the stream with
// that error; one refused at the network level is retried.
func TestSSEReconnectFailures(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k > 1 {
			w.WriteHeader(500)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: only\n\n")
	}))
	defer srv.Close()
	check(t, fmt.Sprintf(`
let c = sse_connect(%q, {reconnect: true, retry: 5ms})
println(sse_receive(c, 5s).data)
println(try { sse_receive(c, 5s) } catch (e) { e })
`, srv.URL), "only\nsse_receive: HTTP status 500\n")
}

func TestSSEConnectRejectsBadResponses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/json" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "{}")
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	check(t, fmt.Sprintf(`
println(try { sse_connect(%q) } catch (e) { e })
println(try { sse_connect(%q) } catch (e) { e })
`, srv.URL+"/missing", srv.URL+"/json"),
		"sse_connect: HTTP status 404\nsse_connect: expected content-type text/event-stream, got \"application/json\"\n")
}

// A receive waits without holding up other tasks, and its timeout, a
// deadline and cancellation all stop it.
func TestSSEReceiveCooperates(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	check(t, fmt.Sprintf(`
let c = sse_connect(%q)
let ch = channel(1)
let other = spawn { send(ch, "other task ran"); "done" }
let e = try { sse_receive(c, 200ms) } catch (err) { err }
println(receive(ch))
println("${is_timeout(e)} ${e.message}")
let d = try { deadline 100ms { sse_receive(c) } } catch (err) { err }
println(error_category(d))
let h = spawn { sse_receive(c) }
sleep(20ms)
cancel(h)
println(await(h))
sse_close(c)
println(try { sse_receive(c) } catch (err) { err })
`, srv.URL), "other task ran\ntrue sse_receive: timed out after 200ms\ntimeout\nnil\nsse_receive: the connection is closed\n")
}

func TestHTTPStreamReadsPiecesAsTheyArrive(t *testing.T) {
	// The script asks for the rest (GET /rest) only after it has read the
	// first piece, so the two pieces reach it as two reads however slow
	// the machine is.
	step := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/rest" {
			close(step)
			return
		}
		w.Header().Set("X-Kind", "chunks")
		w.WriteHeader(201)
		fmt.Fprint(w, "first \xc3")
		w.(http.Flusher).Flush()
		<-step
		fmt.Fprint(w, "\xa9 second")
	}))
	defer srv.Close()
	got := run(t, fmt.Sprintf(`
let s = http_stream_open(%q, {method: "post", body: {a: 1}})
let info = http_stream_info(s)
println("${info.status} ${info.ok} ${info.headers["x-kind"]}")
println(http_stream_read(s))
http_get(%q)
println(http_stream_read(s))
println(http_stream_read(s))
println("${http_stream_info(s).bytes_read} ${http_stream_info(s).eof}")
http_stream_close(s)
println(try { http_stream_read(s) } catch (e) { e })
`, srv.URL, srv.URL+"/rest"))
	want := "201 true chunks\nfirst \né second\nnil\n15 true\nhttp_stream_read: the stream is closed\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func echoServer(t *testing.T, pingFirst bool) *httptest.Server {
	up := websocket.Upgrader{WriteBufferSize: 16} // small buffers: long messages go out in fragments
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		var wmu sync.Mutex
		if pingFirst {
			pong := make(chan struct{}, 1)
			c.SetPongHandler(func(string) error { pong <- struct{}{}; return nil })
			_ = c.WriteControl(websocket.PingMessage, []byte("p"), time.Now().Add(time.Second))
			go func() {
				<-pong
				wmu.Lock()
				defer wmu.Unlock()
				_ = c.WriteMessage(websocket.TextMessage, []byte("got pong"))
			}()
		}
		for {
			mt, data, err := c.ReadMessage()
			if err != nil {
				return
			}
			reply := append([]byte(r.Header.Get("X-Who")+":"), data...)
			wmu.Lock()
			err = c.WriteMessage(mt, reply)
			wmu.Unlock()
			if err != nil {
				return
			}
		}
	}))
}

func TestWebSocketClientAgainstAGoServer(t *testing.T) {
	srv := echoServer(t, true)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	check(t, fmt.Sprintf(`
let ws = websocket_connect(%q, {headers: {"X-Who": "me"}})
println(websocket_receive(ws, 5s))
websocket_send(ws, "hello")
println(websocket_receive(ws, 5s))
websocket_send(ws, bytes_from_hex("00ff"))
println(websocket_receive(ws, 5s))
let long = repeat("abcdefghij", 20)
websocket_send(ws, long)
println(websocket_receive(ws, 5s).data == "me:" + long)
websocket_close(ws)
println(try { websocket_send(ws, "x") } catch (e) { e })
`, url), "{data: got pong, type: text}\n{data: me:hello, type: text}\n{data: b\"6d653a00ff\", type: binary}\ntrue\nwebsocket_send: the connection is closed\n")
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// dial retries until the program's server listens.
func dial(t *testing.T, url string, h http.Header) (*websocket.Conn, *http.Response, error) {
	for i := 0; ; i++ {
		c, resp, err := websocket.DefaultDialer.Dial(url, h)
		if err == nil || resp != nil || i == 200 {
			return c, resp, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWebSocketServerWithAGoClient(t *testing.T) {
	port := freePort(t)
	done := make(chan string)
	go func() {
		done <- run(t, fmt.Sprintf(`
let srv = websocket_server({port: %d})
websocket_route(srv, "/chat", fn(ws) {
  let m = websocket_receive(ws, 5s)
  websocket_send(ws, "echo " + m.data)
  let c = websocket_receive(ws, 5s)
  return [ws.path, ws.headers["x-who"], m.type, c.type, c.code, c.data]
})
websocket_route(srv, "/plain")
println(srv.routes)
println(websocket_accept(srv, 10s))
let ws = websocket_accept(srv, 10s)
println("${ws.path} ${websocket_receive(ws, 5s)}")
websocket_server_close(srv)
`, port))
	}()
	base := fmt.Sprintf("ws://127.0.0.1:%d", port)
	if _, resp, err := dial(t, base+"/nowhere", nil); err == nil || resp == nil || resp.StatusCode != 404 {
		t.Fatalf("unrouted path: %v %v", resp, err)
	}
	c, _, err := dial(t, base+"/chat", http.Header{"X-Who": {"go"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMessage(websocket.TextMessage, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	_, data, err := c.ReadMessage()
	if err != nil || string(data) != "echo hi" {
		t.Fatalf("reply %q, %v", data, err)
	}
	// the client started the handshake, so it must not answer the
	// server's close frame again
	c.SetCloseHandler(func(int, string) error { return nil })
	_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4001, "bye"))
	// the server answers the close handshake
	_, _, err = c.ReadMessage()
	if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != 4001 {
		t.Errorf("close answer: %v", err)
	}
	c.Close()
	c2, _, err := dial(t, base+"/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = c2.WriteMessage(websocket.BinaryMessage, []byte{1, 2})
	// websocket_server_close closes the connection with 1001
	_, _, err = c2.ReadMessage()
	if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != websocket.CloseGoingAway {
		t.Errorf("server close: %v", err)
	}
	c2.Close()
	got := <-done
	want := "[/chat, /plain]\n[/chat, go, text, close, 4001, bye]\n/plain {data: b\"0102\", type: binary}\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A Harn client and server in one program, on separate tasks.
func TestWebSocketLoopbackInOneProgram(t *testing.T) {
	check(t, `
let srv = websocket_server()
websocket_route(srv, "/sum", fn(ws) {
  var total = 0
  while true {
    let m = websocket_receive(ws, 5s)
    if m.type == "close" { break }
    total = total + to_int(m.data)
    websocket_send(ws, to_string(total))
  }
  return total
})
let server = spawn { websocket_accept(srv, 5s) }
let ws = websocket_connect(srv.url + "/sum")
for n in [1, 2, 3] {
  websocket_send(ws, to_string(n))
  println(websocket_receive(ws, 5s).data)
}
websocket_close(ws, 1000, "done")
println(await(server))
websocket_server_close(srv)
`, "1\n3\n6\n6\n")
}

func TestWebSocketConnectFailures(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	check(t, fmt.Sprintf(`
println(try { websocket_connect(%q) } catch (e) { e })
`, url+"/x"), "websocket_connect: handshake failed with HTTP status 404\n")
	srv.Close()
	got := run(t, fmt.Sprintf(`println(try { websocket_connect(%q) } catch (e) { e })`, url+"/x"))
	if !strings.HasPrefix(got, "websocket_connect: ") || !strings.Contains(got, "refused") {
		t.Errorf("connecting to a closed port: %q", got)
	}
}

// A handler that throws closes its connection with 1011, and
// websocket_accept re-raises the failure.
func TestWebSocketHandlerFailure(t *testing.T) {
	check(t, `
let srv = websocket_server()
websocket_route(srv, "/bad", fn(ws) { throw "handler broke" })
let server = spawn { try { websocket_accept(srv, 5s) } catch (e) { "caught: " + e } }
let ws = websocket_connect(srv.url + "/bad")
let m = websocket_receive(ws, 5s)
println("${m.type} ${m.code} ${m.data}")
println(await(server))
websocket_server_close(srv)
`, "close 1011 handler failed\ncaught: handler broke\n")
}

func TestSSELastEventIDOption(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: after %s\n\n", r.Header.Get("Last-Event-ID"))
	}))
	defer srv.Close()
	check(t, fmt.Sprintf(`
let c = sse_connect(%q, {last_event_id: "17"})
let e = sse_receive(c, 5s)
println("${e.data}|${e.id}")
`, srv.URL), "after 17|17\n")
}

// A read waiting for data is stopped by a deadline, which closes the
// stream; other tasks ran meanwhile.
func TestHTTPStreamReadStoppedByDeadline(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	check(t, fmt.Sprintf(`
let s = http_stream_open(%q)
let other = spawn { "ran" }
let e = try { deadline 100ms { http_stream_read(s) } } catch (err) { err }
println(error_category(e))
println(await(other))
println(http_stream_info(s).closed)
`, srv.URL), "timeout\nran\ntrue\n")
}

// A send blocked because the peer does not read is stopped by a
// deadline; the connection is broken off.
func TestWebSocketSendStoppedByDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		<-release // never reads
	}))
	defer srv.Close()
	defer close(release)
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	check(t, fmt.Sprintf(`
let ws = websocket_connect(%q)
let big = repeat("x", 1048576)
let e = try { deadline 300ms { for i in range(1000) { websocket_send(ws, big) } } } catch (err) { err }
println(error_category(e))
println(try { websocket_send(ws, "more"); "sent" } catch (err) { starts_with(err, "websocket_send: ") })
`, url), "timeout\ntrue\n")
}

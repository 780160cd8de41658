package httpserver_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
)

// run is a script running in the background; url is where its server
// listens (the script writes it to a file once listen() returned).
type run struct {
	url    string
	done   chan interp.RunResult
	stderr *syncBuffer
	dir    string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs src with DIR replaced by a fresh directory, and waits for
// the file DIR/url.
func start(t *testing.T, src string) *run {
	t.Helper()
	dir := t.TempDir()
	src = strings.ReplaceAll(src, "DIR", dir)
	r := &run{done: make(chan interp.RunResult, 1), stderr: &syncBuffer{}, dir: dir}
	go func() {
		r.done <- interp.RunProgram(filepath.Join(dir, "server.harn"), []byte(src), interp.Options{Stderr: r.stderr})
	}()
	limit := time.After(30 * time.Second)
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "url")); err == nil && len(b) > 0 {
			r.url = string(b)
			return r
		}
		select {
		case res := <-r.done:
			t.Fatalf("the script ended before listening: %v\n%s", res.Err, r.stderr.String())
		case <-limit:
			t.Fatal("the script did not listen")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// finish waits for the script to end and returns its stdout.
func (r *run) finish(t *testing.T) string {
	t.Helper()
	select {
	case res := <-r.done:
		if res.Err != nil {
			t.Fatalf("script failed: %v\n%s", res.Err, r.stderr.String())
		}
		return string(res.Stdout)
	case <-time.After(30 * time.Second):
		t.Fatal("the script did not end")
	}
	return ""
}

func get(t *testing.T, c *http.Client, method, url, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

const writeURL = `write_file("DIR/url", srv.listen().url)`

func TestServeOverLoopback(t *testing.T) {
	r := start(t, `
let srv = http_server({max_body: 64, handler_timeout: 2s})
let never = channel()
http_server_route(srv, "GET", "/stuck", { req -> receive(never) })
http_server_security_headers(srv)
http_server_route(srv, "GET", "/users/:id", { req -> http_response_json({id: req.params.id, tag: req.query.tag, agent: http_header(req, "X-Agent"), local: http_header(req, "host").starts_with("127.0.0.1:")}) })
http_server_route(srv, "POST", "/echo", { req -> {got: req.json, type: req.headers["content-type"]} })
http_server_route(srv, "GET", "/boom", { req -> throw "kaboom" })
http_server_route(srv, "GET", "/slow/{n}", { req ->
  sleep(20ms)
  "slow " + req.params.n
})
http_server_route(srv, "POST", "/stop", { req ->
  http_server_shutdown(srv)
  http_response(202, "stopping")
})
`+writeURL+`
println(srv.wait())
`)
	c := &http.Client{Timeout: 20 * time.Second}
	st, h, body := get(t, c, "GET", r.url+"/users/7?tag=x", "", map[string]string{"x-agent": "go"})
	if st != 200 || body != `{"agent":"go","id":"7","local":true,"tag":"x"}` || h.Get("Content-Type") != "application/json" {
		t.Errorf("GET /users/7: %d %q %v", st, body, h)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
		t.Errorf("security headers missing: %v", h)
	}
	st, _, body = get(t, c, "POST", r.url+"/echo", `{"a":[1,2]}`, map[string]string{"content-type": "application/json"})
	if st != 200 || body != `{"got":{"a":[1,2]},"type":"application/json"}` {
		t.Errorf("POST /echo: %d %q", st, body)
	}
	st, _, body = get(t, c, "POST", r.url+"/echo", strings.Repeat("x", 65), nil)
	if st != 413 {
		t.Errorf("oversized body: %d %q", st, body)
	}
	st, h, _ = get(t, c, "DELETE", r.url+"/echo", "", nil)
	if st != 405 || h.Get("Allow") != "POST" {
		t.Errorf("DELETE /echo: %d %v", st, h)
	}
	if st, _, _ = get(t, c, "GET", r.url+"/missing", "", nil); st != 404 {
		t.Errorf("GET /missing: %d", st)
	}
	// A handler that throws gives a 500 and the server keeps serving.
	for i := 0; i < 2; i++ {
		st, _, body = get(t, c, "GET", r.url+"/boom", "", nil)
		if st != 500 || body != `{"error":"internal server error"}` {
			t.Errorf("GET /boom: %d %q", st, body)
		}
	}
	if !strings.Contains(r.stderr.String(), "GET /boom: Thrown: kaboom") {
		t.Errorf("the failure was not reported on stderr: %q", r.stderr.String())
	}
	if st, _, body = get(t, c, "GET", r.url+"/stuck", "", nil); st != 503 || body != `{"error":"handler timed out"}` {
		t.Errorf("GET /stuck: %d %q", st, body)
	}
	st, _, body = get(t, c, "HEAD", r.url+"/users/1", "", nil)
	if st != 200 || body != "" {
		t.Errorf("HEAD: %d %q", st, body)
	}
	// Concurrent requests: each handler waits, letting the others run.
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, err := c.Get(fmt.Sprintf("%s/slow/%d", r.url, i))
			if err != nil {
				t.Errorf("slow %d: %v", i, err)
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if want := fmt.Sprintf("slow %d", i); string(b) != want {
				t.Errorf("slow %d: got %q", i, b)
			}
		}(i)
	}
	wg.Wait()
	st, _, body = get(t, c, "POST", r.url+"/stop", "", nil)
	if st != 202 || body != "stopping" {
		t.Errorf("POST /stop: %d %q", st, body)
	}
	if out := r.finish(t); out != "true\n" {
		t.Errorf("stdout %q", out)
	}
	if _, err := c.Get(r.url + "/users/1"); err == nil {
		t.Error("the server still answers after shutdown")
	}
}

// Shutdown waits for the requests being served, then runs the hooks.
func TestShutdownWaitsForInFlight(t *testing.T) {
	r := start(t, `
let srv = http_server()
let started = channel()
http_server_route(srv, "GET", "/slow", { req ->
  send(started, true)
  sleep(200ms)
  "finished"
})
http_server_on_shutdown(srv, { -> println("hook") })
`+writeURL+`
receive(started)
println(http_server_shutdown(srv, 20s))
println(http_server_readiness(srv).state)
`)
	c := &http.Client{Timeout: 20 * time.Second}
	st, _, body := get(t, c, "GET", r.url+"/slow", "", nil)
	if st != 200 || body != "finished" {
		t.Errorf("in-flight request: %d %q", st, body)
	}
	if out := r.finish(t); out != "hook\ntrue\nstopped\n" {
		t.Errorf("stdout %q", out)
	}
}

// Requests still running when the grace runs out are cancelled.
func TestShutdownCancelsStragglers(t *testing.T) {
	r := start(t, `
let srv = http_server()
let started = channel()
let never = channel()
http_server_route(srv, "GET", "/stuck", { req ->
  send(started, true)
  receive(never)
  "unreachable"
})
`+writeURL+`
receive(started)
println(http_server_shutdown(srv, 50ms))
`)
	c := &http.Client{Timeout: 20 * time.Second}
	st, _, body := get(t, c, "GET", r.url+"/stuck", "", nil)
	if st != 503 {
		t.Errorf("cancelled request: %d %q", st, body)
	}
	if out := r.finish(t); out != "false\n" {
		t.Errorf("stdout %q", out)
	}
}

// A script that ends stops its server, running the hooks.
func TestProgramEndStopsServer(t *testing.T) {
	r := start(t, `
let srv = http_server()
let got = channel()
http_server_route(srv, "POST", "/msg", { req ->
  send(got, req.body)
  "ok"
})
http_server_on_shutdown(srv, { -> eprintln("hook ran") })
`+writeURL+`
println(receive(got))
`)
	c := &http.Client{Timeout: 20 * time.Second}
	if st, _, body := get(t, c, "POST", r.url+"/msg", "hello", nil); st != 200 || body != "ok" {
		t.Errorf("POST /msg: %d %q", st, body)
	}
	if out := r.finish(t); out != "hello\n" {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(r.stderr.String(), "hook ran") {
		t.Errorf("hook did not run: %q", r.stderr.String())
	}
	c.CloseIdleConnections()
	if _, err := c.Get(r.url + "/msg"); err == nil {
		t.Error("the server still answers after the program ended")
	}
}

func TestSelfSignedTLS(t *testing.T) {
	r := start(t, `
let tls = http_server_tls_self_signed_dev()
write_file("DIR/cert.pem", tls.cert_pem)
let srv = http_server({tls: tls})
http_server_security_headers(srv)
http_server_route(srv, "GET", "/", { req -> "secure" })
http_server_route(srv, "POST", "/stop", { req -> http_server_shutdown(srv) })
`+writeURL+`
srv.wait()
`)
	if !strings.HasPrefix(r.url, "https://") {
		t.Fatalf("url %q", r.url)
	}
	pemBytes, err := os.ReadFile(filepath.Join(r.dir, "cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("bad certificate PEM")
	}
	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	st, h, body := get(t, c, "GET", r.url+"/", "", nil)
	if st != 200 || body != "secure" {
		t.Errorf("GET /: %d %q", st, body)
	}
	if h.Get("Strict-Transport-Security") == "" {
		t.Errorf("no HSTS over TLS: %v", h)
	}
	get(t, c, "POST", r.url+"/stop", "", nil)
	r.finish(t)
}

// The readiness path answers from the readiness state.
func TestReadinessPath(t *testing.T) {
	r := start(t, `
let srv = http_server({readiness_path: "/readyz", ready: false})
http_server_route(srv, "POST", "/ready", { req ->
  http_server_set_ready(srv, true)
  nil
})
http_server_route(srv, "POST", "/stop", { req -> http_server_shutdown(srv) })
`+writeURL+`
srv.wait()
`)
	c := &http.Client{Timeout: 20 * time.Second}
	if st, _, body := get(t, c, "GET", r.url+"/readyz", "", nil); st != 503 || body != `{"ready":false}` {
		t.Errorf("not ready: %d %q", st, body)
	}
	if st, _, _ := get(t, c, "POST", r.url+"/ready", "", nil); st != 204 {
		t.Errorf("POST /ready: %d", st)
	}
	st, _, body := get(t, c, "GET", r.url+"/readyz", "", nil)
	var v map[string]any
	if st != 200 || json.Unmarshal([]byte(body), &v) != nil || v["ready"] != true {
		t.Errorf("ready: %d %q", st, body)
	}
	get(t, c, "POST", r.url+"/stop", "", nil)
	r.finish(t)
}

// A client that goes away cancels its handler, which unwinds through its
// finally blocks.
func TestClientDisconnectCancelsHandler(t *testing.T) {
	r := start(t, `
let srv = http_server()
let started = channel()
let cleaned = channel()
let never = channel()
http_server_route(srv, "GET", "/hang", { req ->
  try {
    send(started, true)
    receive(never)
  } finally {
    send(cleaned, "cleanup ran")
  }
  "unreachable"
})
`+writeURL+`
receive(started)
write_file("DIR/started", "yes")
println(receive(cleaned))
println(http_server_shutdown(srv))
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", r.url+"/hang", nil)
	errc := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		errc <- err
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(r.dir, "started")); err == nil {
			break
		}
		if i > 6000 {
			t.Fatal("the handler did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Error("the cancelled request succeeded")
	}
	if out := r.finish(t); out != "cleanup ran\ntrue\n" {
		t.Errorf("stdout %q", out)
	}
}

// Many clients while the server shuts down: every request gets a whole
// answer or a connection error, and the script ends.
func TestShutdownUnderLoad(t *testing.T) {
	r := start(t, `
let srv = http_server()
let seen = channel(1000)
http_server_route(srv, "GET", "/work/:n", { req ->
  send(seen, true)
  sleep(5ms)
  "done " + req.params.n
})
`+writeURL+`
for i in 0 to 20 { receive(seen) }
println(http_server_shutdown(srv, 20s))
`)
	c := &http.Client{Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				res, err := c.Get(fmt.Sprintf("%s/work/%d", r.url, i))
				if err != nil {
					return // the server went away
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				switch {
				case res.StatusCode == 200 && string(b) == fmt.Sprintf("done %d", i):
					mu.Lock()
					ok++
					mu.Unlock()
				case res.StatusCode == 503:
				default:
					t.Errorf("worker %d request %d: %d %q", w, i, res.StatusCode, b)
				}
			}
		}(w)
	}
	wg.Wait()
	if out := r.finish(t); out != "true\n" {
		t.Errorf("stdout %q", out)
	}
	if ok < 20 {
		t.Errorf("only %d requests were served", ok)
	}
}

// A handler that fails while holding a sync permit gives it back, as a
// failed task does; the next request can take it.
func TestFailedHandlerReleasesPermits(t *testing.T) {
	r := start(t, `
let srv = http_server({handler_timeout: 20s})
http_server_route(srv, "GET", "/lock", { req ->
  let p = sync_mutex_acquire("db")
  if req.query.fail == "1" { throw "oops" }
  sync_release(p)
  "locked and released"
})
http_server_route(srv, "POST", "/stop", { req -> http_server_shutdown(srv) })
`+writeURL+`
srv.wait()
`)
	c := &http.Client{Timeout: 20 * time.Second}
	if st, _, _ := get(t, c, "GET", r.url+"/lock?fail=1", "", nil); st != 500 {
		t.Errorf("failing handler: %d", st)
	}
	if st, _, body := get(t, c, "GET", r.url+"/lock", "", nil); st != 200 || body != "locked and released" {
		t.Errorf("second request: %d %q", st, body)
	}
	get(t, c, "POST", r.url+"/stop", "", nil)
	r.finish(t)
}

// An encoded "/" in a request path stays inside its segment, over the
// network as in process (docs/http-server.md, "Routes").
func TestEncodedSlashInParamOverLoopback(t *testing.T) {
	r := start(t, `
let srv = http_server()
http_server_route(srv, "GET", "/u/:name", { req -> req.params.name })
http_server_route(srv, "POST", "/stop", { req ->
  http_server_shutdown(srv)
  http_response(202, "stopping")
})
`+writeURL+`
srv.wait()
`)
	c := &http.Client{Timeout: 20 * time.Second}
	for path, want := range map[string]string{"/u/al%2Fice": "al/ice", "/u/a%20b": "a b", "/u/a%2520b": "a%20b"} {
		if st, _, body := get(t, c, "GET", r.url+path, "", nil); st != 200 || body != want {
			t.Errorf("GET %s: %d %q, want 200 %q", path, st, body, want)
		}
	}
	get(t, c, "POST", r.url+"/stop", "", nil)
	r.finish(t)
}

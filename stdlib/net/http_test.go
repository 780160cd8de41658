package net_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harnlang/harn/interp"
)

// runScript runs src with URL replaced by base and returns its stdout.
func runScript(t *testing.T, base, src string) string {
	t.Helper()
	src = strings.ReplaceAll(src, "URL", base)
	res := interp.RunProgram(filepath.Join(t.TempDir(), "main.harn"), []byte(src), interp.Options{})
	if res.Err != nil {
		t.Fatalf("script failed: %v", res.Err)
	}
	return strings.TrimSpace(string(res.Stdout))
}

// The query option reaches a real server merged into the URL's query,
// not glued after its fragment (docs/http-client.md).
func TestQueryOptionReachesServer(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RawQuery)
		mu.Unlock()
	}))
	defer srv.Close()
	runScript(t, srv.URL, `
http_get("URL/p?x=1#frag", {query: {y: "2"}})
http_get("URL/p#frag", {query: {y: "2"}})
`)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"x=1&y=2", "y=2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the server saw queries %q, want %q", got, want)
	}
}

// Retries against a server wait through the script's clock: under
// mock_time the backoff advances it instead of sleeping.
func TestNetworkRetryBackoffFollowsMockTime(t *testing.T) {
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		n := hits
		mu.Unlock()
		if n < 3 {
			w.WriteHeader(503)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	out := runScript(t, srv.URL, `
mock_time(0)
let r = http_get("URL/", {retry: {max: 3, backoff_ms: 20000}})
println([r.status, r.body, timestamp()])
`)
	mu.Lock()
	defer mu.Unlock()
	if out != "[200, ok, 60.0]" || hits != 3 {
		t.Errorf("got %s after %d requests, want [200, ok, 60.0] after 3", out, hits)
	}
}

// A gzip response body that is not gzip, or is cut short, fails in
// Harn's words with the method and URL, not Go's bare `gzip: invalid
// header` / `unexpected EOF` (docs/http-client.md).
func TestCorruptGzipBodyWording(t *testing.T) {
	var whole bytes.Buffer
	zw := gzip.NewWriter(&whole)
	zw.Write(bytes.Repeat([]byte("hello world "), 200))
	zw.Close()
	bodies := map[string][]byte{"/bad": []byte("not gzip at all"), "/cut": whole.Bytes()[:30]}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bodies[r.URL.Path])
	}))
	defer srv.Close()
	got := runScript(t, srv.URL, `
for p in ["/bad", "/cut"] {
  try { http_get("URL" + p) } catch (e) { println(e) }
}
println(http_get("URL/bad", {decompress: false}).body)
`)
	want := "HTTP request failed: GET " + srv.URL + "/bad: the response body: not gzip data (bad header)\n" +
		"HTTP request failed: GET " + srv.URL + "/cut: the response body: the gzip data is truncated\n" +
		"not gzip at all"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

package stdlib_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/vm"
)

func TestLoggingTimersCircuits(t *testing.T) {
	e := newT2(t)
	e.show(t, "mock_time", iv(1705314600000))
	steps := []t2case{
		{"log_info", []vm.Value{sv("hello \"x\""), dv("b", iv(1), "a", fv(1.5), "n", fv(zeroF/zeroF), "l", lv(iv(1)), "s", sv("v"), "z", vm.Nil)}, "nil"},
		{"log_debug", []vm.Value{sv("hidden")}, "nil"},
		{"log_set_level", []vm.Value{sv("debug")}, "nil"},
		{"log_debug", []vm.Value{sv("shown")}, "nil"},
		{"log_set_level", []vm.Value{sv("loud")}, "ERR: log_set_level: invalid level 'loud'. Expected debug, info, warn, or error"},
		{"log_json", []vm.Value{sv("k"), dv("x", fv(1.0))}, "nil"},
		{"timer_start", []vm.Value{sv("t1")}, "{name: t1, start_ms: 1705314600000}"},
		{"circuit_check", []vm.Value{sv("api")}, "closed"},
		{"circuit_breaker", []vm.Value{sv("api"), iv(2), iv(1000)}, "api"},
		{"circuit_record_failure", []vm.Value{sv("api")}, "false"},
		{"circuit_record_failure", []vm.Value{sv("api")}, "true"},
		{"circuit_check", []vm.Value{sv("api")}, "open"},
		{"advance_time", []vm.Value{iv(1000)}, "1705314601000"},
		{"circuit_check", []vm.Value{sv("api")}, "half_open"},
		{"circuit_record_success", []vm.Value{sv("api")}, "nil"},
		{"circuit_check", []vm.Value{sv("api")}, "closed"},
		{"circuit_record_failure", []vm.Value{sv("api")}, "false"},
		{"circuit_reset", []vm.Value{sv("api")}, "nil"},
		{"circuit_record_failure", []vm.Value{sv("api")}, "false"},
	}
	for _, c := range steps {
		if got := e.show(t, c.name, c.args...); got != c.want {
			t.Errorf("%s: got %q want %q", c.name, got, c.want)
		}
	}
	timer := dv("name", sv("t1"), "start_ms", iv(1705314600000))
	if got := e.show(t, "timer_end", timer); got != "1000" {
		t.Errorf("timer_end = %s", got)
	}
	want := `{"ts":"2024-01-15T10:30:00.000Z","level":"info","msg":"hello \"x\"","a":1.5,"b":1,"l":"[1]","n":null,"s":"v","z":null}` + "\n" +
		`{"ts":"2024-01-15T10:30:00.000Z","level":"debug","msg":"shown"}` + "\n" +
		`{"ts":"2024-01-15T10:30:00.000Z","key":"k","value":{"x":1}}` + "\n" +
		"[timer] t1: 1000ms\n"
	if e.out.String() != want {
		t.Errorf("log output:\n%s\nwant:\n%s", e.out.String(), want)
	}
	var errBuf strings.Builder
	e.th.VM().Stderr = &errBuf
	e.show(t, "capture_stderr_start")
	e.th.VM().Stderr.Write([]byte("captured"))
	if got := e.show(t, "capture_stderr_take"); got != "captured" || errBuf.Len() != 0 {
		t.Errorf("capture: %q / %q", got, errBuf.String())
	}
}

var zeroF = 0.0

func TestHTTPMocksAndClient(t *testing.T) {
	e := newT2(t)
	steps := []t2case{
		{"http_mock", []vm.Value{sv("get"), sv("https://api.test/items*"), dv("status", iv(201), "body", dv("ok", vm.True), "headers", dv("X-Id", sv("7")))}, "nil"},
		{"http_mock", []vm.Value{sv("*"), sv("https://seq.test/"), dv("responses", lv(dv("status", iv(500)), dv("body", sv("second"))))}, "nil"},
		{"http_get", []vm.Value{sv("https://api.test/items"), dv("query", dv("a", iv(1), "b", vm.Nil), "headers", dv("Authorization", sv("Bearer s3cret"), "Accept", sv("json")))}, `{body: {"ok":true}, headers: {x-id: 7}, ok: true, status: 201}`},
		{"http_post", []vm.Value{sv("https://seq.test/"), dv("k", sv("v"))}, "{body: , headers: {}, ok: false, status: 500}"},
		{"http_put", []vm.Value{sv("https://seq.test/"), sv("raw")}, "{body: second, headers: {}, ok: true, status: 200}"},
		{"http_request", []vm.Value{sv("delete"), sv("https://seq.test/")}, "{body: second, headers: {}, ok: true, status: 200}"},
		{"http_mock_calls", nil, `[{body: , headers: {accept: json, authorization: [redacted]}, method: GET, url: https://api.test/items?a=1}, {body: {"k":"v"}, headers: {content-type: application/json}, method: POST, url: https://seq.test/}, {body: raw, headers: {}, method: PUT, url: https://seq.test/}, {body: , headers: {}, method: DELETE, url: https://seq.test/}]`},
		{"http_mock_calls", []vm.Value{dv("redact_sensitive", vm.False)}, `[{body: , headers: {accept: json, authorization: Bearer s3cret}, method: GET, url: https://api.test/items?a=1}, {body: {"k":"v"}, headers: {content-type: application/json}, method: POST, url: https://seq.test/}, {body: raw, headers: {}, method: PUT, url: https://seq.test/}, {body: , headers: {}, method: DELETE, url: https://seq.test/}]`},
		{"http_mock_clear", nil, "nil"},
		{"http_mock_calls", nil, "[]"},
	}
	for _, c := range steps {
		if got := e.show(t, c.name, c.args...); got != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.name, got, c.want)
		}
	}

	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case <-r.Context().Done():
			case <-time.After(300 * time.Millisecond):
			}
			return
		}
		hits++
		if r.URL.Path == "/flaky" && hits < 3 {
			w.WriteHeader(503)
			return
		}
		w.Header().Set("X-Method", r.Method)
		u, p, _ := r.BasicAuth()
		w.Write([]byte(r.URL.RawQuery + "|" + u + ":" + p))
	}))
	defer srv.Close()
	got := e.show(t, "http_get", sv(srv.URL+"/x"), dv("query", dv("q", sv("a b")), "auth", dv("basic", dv("user", sv("u"), "password", sv("p")))))
	if !strings.Contains(got, "body: q=a+b|u:p") || !strings.Contains(got, "x-method: GET") || !strings.Contains(got, "status: 200") {
		t.Errorf("real GET: %s", got)
	}
	got = e.show(t, "http_get", sv(srv.URL+"/flaky"), dv("retry", dv("max", iv(3), "backoff_ms", iv(1))))
	if !strings.Contains(got, "status: 200") || hits != 3 {
		t.Errorf("retry: %s (hits %d)", got, hits)
	}
	dir := t.TempDir()
	fs.SetExecutionRoot(e.th.VM(), dir)
	got = e.show(t, "http_download", sv(srv.URL+"/dl?z=1"), sv("out.txt"))
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "z=1|:" || !strings.Contains(got, "bytes_written: 5") {
		t.Errorf("download: %s / %q", got, b)
	}
	if got := e.show(t, "http_get", sv("http://127.0.0.1:1/")); !strings.HasPrefix(got, "ERR: HTTP request failed: error sending request for url (http://127.0.0.1:1/): connection refused") {
		t.Errorf("network failure: %s", got)
	}
	if got := e.show(t, "http_post", sv(srv.URL+"/slow"), sv("b"), dv("timeout_ms", iv(50))); got != "ERR: HTTP request failed: error sending request for url ("+srv.URL+"/slow): operation timed out" {
		t.Errorf("timeout: %s", got)
	}
}

func TestStore(t *testing.T) {
	dir := t.TempDir()
	e := newT2(t)
	fs.SetExecutionRoot(e.th.VM(), dir)
	os.Unsetenv("HARN_STATE_DIR")
	steps := []t2case{
		{"store_get", []vm.Value{sv("a")}, "nil"},
		{"store_set", []vm.Value{sv("b"), dv("x", fv(1.0), "f", vm.Duration(5))}, "nil"},
		{"store_set", []vm.Value{iv(1), sv("one")}, "nil"},
		{"store_get", []vm.Value{sv("b")}, "{f: nil, x: 1.0}"},
		{"store_list", nil, "[1, b]"},
		{"store_delete", []vm.Value{sv("1")}, "nil"},
		{"store_list", nil, "[b]"},
	}
	for _, c := range steps {
		if got := e.show(t, c.name, c.args...); got != c.want {
			t.Errorf("%s: got %q want %q", c.name, got, c.want)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, ".harn", "store.json"))
	if err != nil || string(b) != "{\n  \"b\": {\n    \"f\": null,\n    \"x\": 1.0\n  }\n}" {
		t.Errorf("store file: %q %v", b, err)
	}
	e2 := newT2(t)
	fs.SetExecutionRoot(e2.th.VM(), dir)
	if got := e2.show(t, "store_get", sv("b")); got != "{f: nil, x: 1.0}" {
		t.Errorf("reload: %s", got)
	}
	e2.show(t, "store_clear")
	if got := e2.show(t, "store_list"); got != "[]" {
		t.Errorf("clear: %s", got)
	}
}

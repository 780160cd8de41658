package llm_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestHealthcheckProbesLoopback: a configured provider is probed on its
// models endpoint with its key; any HTTP answer counts as reachable.
func TestHealthcheckProbesLoopback(t *testing.T) {
	clearEnv(t)
	var mu sync.Mutex
	var paths, keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		keys = append(keys, r.Header.Get("Authorization")+r.Header.Get("x-api-key"))
		mu.Unlock()
		if r.Header.Get("x-api-key") == "" && r.Header.Get("Authorization") == "" {
			w.WriteHeader(401)
			return
		}
		w.Write([]byte(`{"data":[]}`))
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-o")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("ANTHROPIC_API_KEY", "sk-a")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	out := mustRun(t, `
let o = llm_healthcheck("openai")
println([o.configured, o.reachable, o.ok, o.status, o.checked])
let a = llm_healthcheck("anthropic")
println([a.reachable, a.ok, a.status])
let r = llm_healthcheck("openrouter")
println([r.configured, r.reachable, r.checked, r.error])
`)
	want := "[true, true, true, 200, true]\n[true, true, 200]\n[false, nil, false, not configured: set OPENROUTER_API_KEY]"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	if len(paths) != 2 || paths[0] != "/v1/models" || paths[1] != "/v1/models" || keys[0] != "Bearer sk-o" || keys[1] != "sk-a" {
		t.Fatalf("requests %v %v", paths, keys)
	}
}

func TestHealthcheckErrorsAndMock(t *testing.T) {
	clearEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	t.Setenv("OPENAI_API_KEY", "sk-o")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `
let o = llm_healthcheck("openai")
println([o.reachable, o.ok, o.status, o.error])
llm_mock("x")
let m = llm_healthcheck("openai")
println([m.checked, m.reachable, m.error])
`)
	want := "[true, false, 503, HTTP 503 (overloaded)]\n[false, nil, not checked: llm_mock is armed, no request is sent]"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	srv.Close() // now nothing listens there
	out = mustRun(t, `
let o = llm_healthcheck("openai", {timeout_ms: 2000})
println([o.reachable, o.ok, o.error != nil])
`)
	if out != "[false, false, true]" {
		t.Fatalf("closed server: %s", out)
	}
}

// TestRegisteredProviderIsCalled: a provider_register'ed OpenAI-compatible
// server gets the call of one of its models, with the key of api_key_env.
func TestRegisteredProviderIsCalled(t *testing.T) {
	clearEnv(t)
	srv, got := fake(t, 200, `{"model":"local-1","choices":[{"message":{"role":"assistant","content":"from local"},"finish_reason":"stop"}]}`, "application/json")
	t.Setenv("MY_LOCAL_KEY", "k-123")
	out := mustRun(t, `
provider_register("local", {base_url: "`+srv.URL+`/v1", api_key_env: "MY_LOCAL_KEY", models: ["local-1"]})
let r = llm_call("hi", {model: "local-1"})
println([r.text, r.provider])
println(llm_config({model: "local-1"}).provider)
`)
	if out != "[from local, local]\nlocal" {
		t.Fatalf("got %s", out)
	}
	if len(*got) != 1 || (*got)[0].path != "/v1/chat/completions" || (*got)[0].headers.Get("Authorization") != "Bearer k-123" {
		t.Fatalf("requests %+v", *got)
	}
}

// TestRateLimitWaitsOnTheMockClock: a third call within the minute of a
// 2 rpm limit waits 30 s of (mocked) time.
func TestRateLimitWaitsOnTheMockClock(t *testing.T) {
	clearEnv(t)
	out := mustRun(t, `
mock_time(0)
llm_rate_limit("mock", 2)
llm_mock(["a", "b", "c"])
for i in 1 to 3 { llm_call("x") }
println(now_ms())
println(llm_rate_limit("mock").waits)
`)
	if out != "30000\n1" {
		t.Fatalf("got %s", out)
	}
}

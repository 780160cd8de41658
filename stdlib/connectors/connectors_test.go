package connectors_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
)

// request is what the loopback server saw of one call.
type request struct {
	Method, Path, RawQuery, Auth, Client, Body string
}

// run runs src as main.harn of a project whose harn.toml is manifest.
func run(t *testing.T, manifest, src string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "harn.toml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main.harn")
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	res := interp.RunProgram(main, nil, interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
	if res.Err != nil {
		return string(res.Stdout), res.Err
	}
	return string(res.Stdout), nil
}

// A declared connector reaches a real server: the path parameter is
// escaped into the path, the rest of a GET's parameters are the query, a
// POST's are the JSON body, the manifest's headers and the token read from
// the secret's environment variable go with each call, and a JSON answer
// is parsed.
func TestConnectorCallReachesServer(t *testing.T) {
	var mu sync.Mutex
	var seen []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, request{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("X-Client"), string(b)})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"path": r.URL.Path})
	}))
	defer srv.Close()
	t.Setenv("HARN_SECRET_ACME_API_TOKEN", "s3cr3t")
	manifest := `
[connectors.acme]
base_url = "` + srv.URL + `/v1"
secret = "acme/api-token"
headers = { "X-Client" = "harn-test" }

[connectors.acme.methods]
create = "POST /items"
`
	out, err := run(t, manifest, `
let g = connector_call("acme", "GET /repos/{owner}/issues", {owner: "a b", state: "open"})
println("${g.status} ${g.ok} ${g.data.path}")
let p = connector_call("acme", "create", {name: "nut", size: 3})
println("${p.status} ${p.ok}")
`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "200 true /v1/repos/a b/issues\n201 true\n"; out != want {
		t.Fatalf("stdout %q, want %q", out, want)
	}
	want := []request{
		{"GET", "/v1/repos/a%20b/issues", "state=open", "Bearer s3cr3t", "harn-test", ""},
		{"POST", "/v1/items", "", "Bearer s3cr3t", "harn-test", `{"name":"nut","size":3}`},
	}
	if len(seen) != len(want) {
		t.Fatalf("server saw %d requests: %+v", len(seen), seen)
	}
	for i := range want {
		got := seen[i]
		got.Body = strings.TrimSpace(got.Body)
		if got != want[i] {
			t.Errorf("request %d: got %+v, want %+v", i, got, want[i])
		}
	}
}

// A manifest timeout bounds the call, and the failure is a catchable
// network error, not a hang.
func TestConnectorCallTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	manifest := "[connectors.slow]\nbase_url = \"" + srv.URL + "\"\ntimeout_ms = 100\n"
	start := time.Now()
	out, err := run(t, manifest, `println(try { connector_call("slow", "GET /x") } catch (e) { "caught" })`)
	if err != nil || out != "caught\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the timeout did not stop the call (%s)", d)
	}
}

// A secret the manifest names but the environment lacks is an error that
// names the variable and sends nothing.
func TestConnectorCallUnsetSecret(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	manifest := "[connectors.acme]\nbase_url = \"" + srv.URL + "\"\nsecret = \"acme/absent\"\n"
	_, err := run(t, manifest, `connector_call("acme", "GET /x")`)
	if err == nil || !strings.Contains(err.Error(), "environment variable HARN_SECRET_ACME_ABSENT") {
		t.Fatalf("got %v", err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the server was called %d times", hits.Load())
	}
}

// A token in harn.toml is refused: a manifest is committed, a secret is not.
func TestConnectorCallRefusesManifestToken(t *testing.T) {
	_, err := run(t, "[connectors.acme]\nbase_url = \"https://acme.test\"\ntoken = \"x\"\n", `connector_call("acme", "GET /x")`)
	if err == nil || !strings.Contains(err.Error(), "a token does not belong in harn.toml") {
		t.Fatalf("got %v", err)
	}
}

package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/orchestrator"
)

// TestMcpServeSignedWebhookReplay: over HTTP against `harn mcp serve`, a
// harn-signed delivery captured inside the replay window cannot be
// accepted again by changing its unsigned delivery id: it is the same
// delivery, and exactly one event is recorded and dispatched.
func TestMcpServeSignedWebhookReplay(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "harn.toml")
	os.WriteFile(config, []byte("[package]\nname = \"hooks\"\n\n[[triggers]]\nid = \"push\"\nkind = \"webhook\"\nhandler = \"on_push\"\nwebhook = { secret_env = \"HARN_TEST_REPLAY_SECRET\" }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("fn on_push(e) { return e.payload }\n"), 0o644)
	p := startHarn(t, []string{"HARN_TEST_REPLAY_SECRET=s3cret", "HARN_ORCHESTRATOR_API_KEYS="}, "mcp", "serve", "--config", config, "--state-dir", filepath.Join(dir, "state"), "--transport", "http", "--bind", "127.0.0.1:0")
	endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP HTTP listener ready on (http://\S+)$`))[1]
	base := strings.TrimSuffix(endpoint, "/mcp")
	secret := []byte("s3cret")
	body := `{"ref":"refs/heads/main"}`
	post := func(ts int64, sig, delivery string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", base+"/hooks/push", strings.NewReader(body))
		req.Header.Set("X-Harn-Timestamp", strconv.FormatInt(ts, 10))
		req.Header.Set("X-Harn-Signature", sig)
		if delivery != "" {
			req.Header.Set("X-Harn-Delivery-Id", delivery)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	now := time.Now().Unix()
	sig := orchestrator.Sign(secret, now, []byte(body))
	code, first := post(now, sig, "d-1")
	if code != 202 || first["duplicate"] != false {
		t.Fatalf("delivery: %d %v", code, first)
	}
	for _, id := range []string{"d-1", "forged-2", ""} {
		if code, again := post(now, sig, id); code != 202 || again["duplicate"] != true || again["event_id"] != first["event_id"] {
			t.Fatalf("replay under delivery id %q: %d %v", id, code, again)
		}
	}
	// A signature covering the id: a re-send with a fresh timestamp is a
	// duplicate, the same signature under another id is refused.
	code, named := post(now, orchestrator.SignDelivery(secret, "d-2", now, []byte(body)), "d-2")
	if code != 202 || named["duplicate"] != false || named["event_id"] == first["event_id"] {
		t.Fatalf("id-signed delivery: %d %v", code, named)
	}
	if code, again := post(now+1, orchestrator.SignDelivery(secret, "d-2", now+1, []byte(body)), "d-2"); code != 202 || again["duplicate"] != true || again["event_id"] != named["event_id"] {
		t.Fatalf("id-signed re-send: %d %v", code, again)
	}
	if code, again := post(now, orchestrator.SignDelivery(secret, "d-2", now, []byte(body)), "d-3"); code != 401 || again["error"] != "signature mismatch" {
		t.Fatalf("id-signed delivery under another id: %d %v", code, again)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, p.errText())
	}
	// Two deliveries: two events accepted, two attempts.
	var out, errb strings.Builder
	if code := run([]string{"orchestrator", "queue", "--json", "--config", config, "--state-dir", filepath.Join(dir, "state")}, nil, &out, &errb); code != 0 {
		t.Fatalf("queue: %d %s", code, errb.String())
	}
	var q map[string]any
	json.Unmarshal([]byte(out.String()), &q)
	if n := strings.Count(out.String(), `"source": "webhook"`); n != 2 || dig(q, "attempts", "count") != 2.0 {
		t.Fatalf("%d webhook events accepted, %v attempts:\n%s", n, dig(q, "attempts", "count"), out.String())
	}
}

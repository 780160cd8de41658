package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator"
)

// TestCrashRecovery kills `harn mcp serve` with SIGKILL at random points
// while webhook deliveries stream in, restarts it on the same state
// directory, and checks the log once everything drained: every
// acknowledged delivery was accepted once (redeliveries deduplicated
// across restarts), and every accepted event has exactly one recorded
// outcome — none lost, none completed twice. Handlers may run again for
// attempts a kill interrupted (at-least-once); the test reports how many.
func TestCrashRecovery(t *testing.T) { crashRecovery(t, "sqlite") }

// TestCrashRecoveryFile is the same on the file backend (JSON lines and a
// redo journal instead of SQLite).
func TestCrashRecoveryFile(t *testing.T) { crashRecovery(t, "file") }

func crashRecovery(t *testing.T, backend string) {
	if testing.Short() {
		t.Skip("kills and restarts a server several times")
	}
	const deliveries, kills = 300, 6
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.txt")
	os.WriteFile(filepath.Join(dir, "harn.toml"), []byte("[[triggers]]\nid = \"ingest\"\nkind = \"webhook\"\nhandler = \"on_event\"\nretry = { max = 0 }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(fmt.Sprintf("fn on_event(event) {\n  sleep(40)\n  append_file(%q, \"${event.payload.n}\\n\")\n  return {n: event.payload.n}\n}\n", runs)), 0o644)
	state := filepath.Join(dir, "state")
	env := []string{"HARN_ORCHESTRATOR_LEASE_TTL=1s", "HARN_ORCHESTRATOR_API_KEYS=", "HARN_EVENT_LOG_URL=", "HARN_EVENT_LOG_BACKEND=" + backend, "HARN_EVENT_LOG_DIR="}
	rng := rand.New(rand.NewSource(11))
	client := &http.Client{Timeout: 5 * time.Second}

	var mu sync.Mutex
	acked := map[int]string{} // delivery -> event id
	send := func(base string, until time.Time) {
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range next {
					req, _ := http.NewRequest("POST", base+"/hooks/ingest", strings.NewReader(fmt.Sprintf(`{"n":%d}`, n)))
					req.Header.Set("X-Harn-Delivery-Id", fmt.Sprint(n))
					resp, err := client.Do(req)
					if err != nil {
						continue // the server died: resent next round
					}
					var ack orchestrator.WebhookAck
					json.NewDecoder(resp.Body).Decode(&ack)
					resp.Body.Close()
					if resp.StatusCode == 202 {
						mu.Lock()
						if prev, ok := acked[n]; ok && prev != ack.EventID {
							t.Errorf("delivery %d acknowledged as %s and %s", n, prev, ack.EventID)
						}
						acked[n] = ack.EventID
						mu.Unlock()
					}
				}
			}()
		}
		for n := 0; n < deliveries && time.Now().Before(until); n++ {
			mu.Lock()
			_, done := acked[n]
			mu.Unlock()
			// Resend some acknowledged ones too: redeliveries must dedupe.
			if !done || rng.Intn(10) == 0 {
				next <- n
			}
		}
		close(next)
		wg.Wait()
	}

	start := func() (*harnProc, string) {
		p := startHarn(t, env, "mcp", "serve", "--config", filepath.Join(dir, "harn.toml"), "--state-dir", state, "--transport", "http", "--bind", "127.0.0.1:0")
		endpoint := p.waitLine(t, regexp.MustCompile(`ready on (http://\S+)$`))[1]
		return p, strings.TrimSuffix(endpoint, "/mcp")
	}
	for k := 0; k < kills; k++ {
		p, base := start()
		delay := time.Duration(50+rng.Intn(400)) * time.Millisecond
		go func() {
			time.Sleep(delay)
			p.cmd.Process.Signal(syscall.SIGKILL)
		}()
		send(base, time.Now().Add(10*time.Second))
		p.wait()
	}
	p, base := start()
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n == deliveries {
			break
		}
		send(base, time.Now().Add(time.Minute))
	}
	// Drain: every accepted event gets its outcome (interrupted leases
	// expire after 1s and are claimed again). The file log is open in the
	// server only: its outbox file is counted instead.
	outcomeCount := func() int64 {
		data, _ := os.ReadFile(filepath.Join(state, "events", orchestrator.TopicOutbox+".jsonl"))
		return int64(strings.Count(string(data), "\n"))
	}
	var log eventlog.Log
	if backend == "sqlite" {
		l, err := sqlite.Open(context.Background(), filepath.Join(state, "events.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		log = l
		outcomeCount = func() int64 {
			n, _ := l.Count(context.Background(), orchestrator.TopicOutbox)
			return n
		}
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		n := outcomeCount()
		if n >= deliveries {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d outcomes; stderr:\n%s", n, deliveries, p.errText())
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(); err != nil {
		t.Fatalf("final server: %v", err)
	}
	if backend == "file" {
		l, err := memory.OpenDir(filepath.Join(state, "events"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		log = l
	}

	ctx := context.Background()
	events, _ := log.Read(ctx, orchestrator.TopicEvents, 0, 0)
	outbox, _ := log.Read(ctx, orchestrator.TopicOutbox, 0, 0)
	attempts, _ := log.Read(ctx, orchestrator.TopicAttempts, 0, 0)
	byDelivery := map[string]string{}
	for _, r := range events {
		var p struct {
			Event struct {
				ID         string `json:"id"`
				DeliveryID string `json:"delivery_id"`
			} `json:"event"`
		}
		json.Unmarshal(r.Payload, &p)
		if prev, dup := byDelivery[p.Event.DeliveryID]; dup {
			t.Errorf("delivery %s accepted twice: %s and %s", p.Event.DeliveryID, prev, p.Event.ID)
		}
		byDelivery[p.Event.DeliveryID] = p.Event.ID
	}
	outcomes := map[string]int{}
	for _, r := range outbox {
		outcomes[r.Headers["event_id"]]++
		if r.Kind != "dispatch_succeeded" {
			t.Errorf("outcome %s for %s", r.Kind, r.Headers["event_id"])
		}
	}
	lost, twice := 0, 0
	for n := 0; n < deliveries; n++ {
		id := acked[n]
		if byDelivery[fmt.Sprint(n)] != id {
			t.Errorf("delivery %d: acknowledged %s, recorded %s", n, id, byDelivery[fmt.Sprint(n)])
		}
		switch outcomes[id] {
		case 0:
			lost++
		case 1:
		default:
			twice++
		}
	}
	data, _ := os.ReadFile(runs)
	handlerRuns := strings.Count(string(data), "\n")
	t.Logf("crash recovery (%s): %d kills, %d deliveries accepted, %d events recorded, %d outcomes, %d attempts, %d handler runs (%d re-run after a kill), %d lost, %d completed twice",
		backend, kills, len(acked), len(events), len(outbox), len(attempts), handlerRuns, handlerRuns-deliveries, lost, twice)
	if lost != 0 || twice != 0 || len(events) != deliveries || len(outbox) != deliveries {
		t.Fatalf("lost %d, completed twice %d, events %d, outcomes %d", lost, twice, len(events), len(outbox))
	}
}

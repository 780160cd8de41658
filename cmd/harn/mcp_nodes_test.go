package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
	"github.com/harnlang/harn/eventlog/postgres"
	"github.com/harnlang/harn/orchestrator"
)

// TestThreeNodesOnePostgres runs three `harn mcp serve` processes on one
// PostgreSQL log, streams webhook deliveries to all three, kills one with
// SIGKILL a third of the way through, and checks that the survivors
// finish its work: every delivery accepted once, every event dispatched
// to exactly one recorded outcome, none lost.
func TestThreeNodesOnePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers on PostgreSQL")
	}
	pg := pgtest.Schema(t)
	const deliveries = 300
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "harn.toml"), []byte("[[triggers]]\nid = \"ingest\"\nkind = \"webhook\"\nhandler = \"on_event\"\nretry = { max = 0 }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("fn on_event(event) {\n  sleep(20)\n  return {n: event.payload.n}\n}\n"), 0o644)
	env := []string{"HARN_EVENT_LOG_URL=" + pg, "HARN_ORCHESTRATOR_LEASE_TTL=1s", "HARN_ORCHESTRATOR_API_KEYS="}
	nodes := make([]*harnProc, 3)
	bases := make([]string, 3)
	for i := range nodes {
		nodes[i] = startHarn(t, env, "mcp", "serve", "--config", filepath.Join(dir, "harn.toml"), "--state-dir", filepath.Join(dir, fmt.Sprintf("node%d", i)),
			"--transport", "http", "--bind", "127.0.0.1:0")
		bases[i] = strings.TrimSuffix(nodes[i].waitLine(t, regexp.MustCompile(`ready on (http://\S+)$`))[1], "/mcp")
	}
	client := &http.Client{Timeout: 5 * time.Second}
	var mu sync.Mutex
	acked := map[int]string{}
	dead := map[int]bool{}
	deliver := func(n int) {
		for try := 0; ; try++ {
			node := (n + try) % 3
			mu.Lock()
			skip := dead[node]
			mu.Unlock()
			if skip {
				continue
			}
			req, _ := http.NewRequest("POST", bases[node]+"/hooks/ingest", strings.NewReader(fmt.Sprintf(`{"n":%d}`, n)))
			req.Header.Set("X-Harn-Delivery-Id", fmt.Sprint(n))
			resp, err := client.Do(req)
			if err != nil {
				continue
			}
			var ack orchestrator.WebhookAck
			json.NewDecoder(resp.Body).Decode(&ack)
			resp.Body.Close()
			if resp.StatusCode == 202 {
				mu.Lock()
				acked[n] = ack.EventID
				mu.Unlock()
				return
			}
		}
	}
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range work {
				deliver(n)
			}
		}()
	}
	for n := 0; n < deliveries; n++ {
		if n == deliveries/3 {
			mu.Lock()
			dead[1] = true
			mu.Unlock()
			nodes[1].cmd.Process.Signal(syscall.SIGKILL)
			nodes[1].wait()
		}
		work <- n
	}
	close(work)
	wg.Wait()

	log, err := postgres.Open(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		n, _ := log.Count(ctx, orchestrator.TopicOutbox)
		if n >= deliveries {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d outcomes", n, deliveries)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, i := range []int{0, 2} {
		nodes[i].cmd.Process.Signal(syscall.SIGTERM)
		if err := nodes[i].wait(); err != nil {
			t.Errorf("node %d: %v\n%s", i, err, nodes[i].errText())
		}
	}
	events, _ := log.Read(ctx, orchestrator.TopicEvents, 0, 0)
	outbox, _ := log.Read(ctx, orchestrator.TopicOutbox, 0, 0)
	attempts, _ := log.Read(ctx, orchestrator.TopicAttempts, 0, 0)
	outcomes := map[string]int{}
	for _, r := range outbox {
		outcomes[r.Headers["event_id"]]++
	}
	perNode := map[string]int{}
	for _, r := range attempts {
		var a orchestrator.AttemptInfo
		json.Unmarshal(r.Payload, &a)
		perNode[a.Node]++
	}
	lost, twice := 0, 0
	for n := 0; n < deliveries; n++ {
		switch outcomes[acked[n]] {
		case 0:
			lost++
		case 1:
		default:
			twice++
		}
	}
	t.Logf("three nodes, one killed: %d deliveries accepted, %d events recorded, %d outcomes, %d attempts on %d nodes %v, %d lost, %d dispatched twice",
		len(acked), len(events), len(outbox), len(attempts), len(perNode), perNode, lost, twice)
	if lost != 0 || twice != 0 || len(events) != deliveries || len(outbox) != deliveries || len(perNode) < 2 {
		t.Fatalf("lost %d, twice %d, events %d, outcomes %d, nodes %d", lost, twice, len(events), len(outbox), len(perNode))
	}
}

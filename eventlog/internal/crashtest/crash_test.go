package crashtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
	"github.com/harnlang/harn/eventlog/postgres"
	"github.com/harnlang/harn/eventlog/sqlite"
)

func TestMain(m *testing.M) {
	if os.Getenv(envMode) != "" {
		os.Exit(worker())
	}
	os.Exit(pgtest.Main(m))
}

// childTimeout bounds every wait on a worker: the race detector and two
// shared cores make them slow, never stuck.
const childTimeout = 3 * time.Minute

// child is one worker process.
type child struct {
	t       *testing.T
	name    string
	cmd     *exec.Cmd
	stderr  bytes.Buffer
	mu      sync.Mutex
	acks    int // one past the highest acknowledged delivery index
	holding chan []string
	ready   chan struct{}
	exited  chan struct{}
	err     error // cmd.Wait's, once exited is closed
}

func spawn(t *testing.T, env []string, mode, owner string, total, ackFrom, holdAfter int) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...),
		envMode+"="+mode, envOwner+"="+owner,
		envTotal+"="+strconv.Itoa(total), envAckFrom+"="+strconv.Itoa(ackFrom),
		envHoldAfter+"="+strconv.Itoa(holdAfter), envTTL+"=400")
	c := &child{t: t, name: owner, cmd: cmd, acks: ackFrom, holding: make(chan []string, 1),
		ready: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = &c.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.kill() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "ready":
				close(c.ready)
			case strings.HasPrefix(line, "ack "):
				i, _ := strconv.Atoi(strings.TrimPrefix(line, "ack "))
				c.mu.Lock()
				c.acks = i + 1
				c.mu.Unlock()
			case strings.HasPrefix(line, "holding "):
				c.holding <- strings.Split(strings.TrimPrefix(line, "holding "), ",")
			}
		}
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c
}

// kill sends SIGKILL and waits for the process and its output.
func (c *child) kill() {
	c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.exited
}

// wait waits for a clean exit.
func (c *child) wait() {
	c.t.Helper()
	select {
	case <-c.exited:
	case <-time.After(childTimeout):
		c.kill()
		c.t.Fatalf("worker %s did not finish in %v; stderr:\n%s", c.name, childTimeout, c.stderr.String())
	}
	if c.err != nil {
		c.t.Fatalf("worker %s: %v; stderr:\n%s", c.name, c.err, c.stderr.String())
	}
}

func (c *child) waitHolding() []string {
	c.t.Helper()
	select {
	case ids := <-c.holding:
		return ids
	case <-c.exited:
		c.t.Fatalf("worker %s exited before holding leases: %v; stderr:\n%s", c.name, c.err, c.stderr.String())
	case <-time.After(childTimeout):
		c.t.Fatalf("worker %s held no leases in %v; stderr:\n%s", c.name, childTimeout, c.stderr.String())
	}
	return nil
}

func (c *child) acked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acks
}

// figures is what a run proves, printed by the tests.
type figures struct {
	accepted, dispatched, duplicated, lost int
	reruns, reclaimed                      int
	byOwner                                map[string]int
}

// verify checks the log after the last worker finished: every delivery is
// done with exactly one completion record, and the handler ran at most once
// per lease granted.
func verify(t *testing.T, log eventlog.Log, total int, held []string, heldOwner string) figures {
	t.Helper()
	ctx := context.Background()
	count := func(topic string) (map[string]int, map[string][]string) {
		recs, err := log.Read(ctx, topic, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		n, owners := map[string]int{}, map[string][]string{}
		for _, r := range recs {
			n[r.Kind]++
			owners[r.Kind] = append(owners[r.Kind], r.Headers["owner"])
		}
		return n, owners
	}
	completions, completedBy := count(topicOutbox)
	effects, _ := count(topicEffects)
	envelopes, _ := count(topicEnvelopes)
	f := figures{accepted: total, byOwner: map[string]int{}}
	in := log.Inbox()
	for i := 0; i < total; i++ {
		id := deliveryID(i)
		d, err := in.Get(ctx, id)
		if err != nil || d.State != eventlog.Done {
			f.lost++
			t.Errorf("%s: accepted but not done (%+v, %v)", id, d, err)
			continue
		}
		f.dispatched += completions[id]
		switch c := completions[id]; {
		case c == 0:
			f.lost++
			t.Errorf("%s: done without a completion record", id)
		case c > 1:
			f.duplicated += c - 1
			t.Errorf("%s: %d completion records, want exactly 1", id, c)
		default:
			f.byOwner[completedBy[id][0]]++
		}
		if effects[id] < 1 || effects[id] > d.Attempts {
			t.Errorf("%s: handler ran %d times over %d leases, want 1..leases", id, effects[id], d.Attempts)
		}
		f.reruns += effects[id] - 1
		if d.Attempts > 1 {
			f.reclaimed++
		}
		if envelopes[id] != 1 {
			t.Errorf("%s: %d envelope records, want 1 (Accept is idempotent)", id, envelopes[id])
		}
	}
	for _, id := range held {
		d, _ := in.Get(ctx, id)
		if d.Attempts < 2 || effects[id] < 2 || completions[id] != 1 {
			t.Errorf("%s, held by the killed worker: %d leases, %d handler runs, %d completions; want its lease reclaimed after expiry (≥2, ≥2, 1)",
				id, d.Attempts, effects[id], completions[id])
		}
		if by := completedBy[id]; len(by) == 1 && by[0] == heldOwner {
			t.Errorf("%s was completed by %s, which was killed holding it", id, heldOwner)
		}
	}
	st, err := in.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st != (eventlog.InboxStats{Done: int64(total)}) {
		t.Errorf("Stats = %+v, want %d done", st, total)
	}
	// Nothing completed is ever handed out again.
	if ls, err := in.Claim(ctx, "auditor", total, time.Hour); err != nil || len(ls) != 0 {
		t.Errorf("Claim after the run = %d leases, %v; want none", len(ls), err)
	}
	return f
}

// crashRun kills workers at random instants across hundreds of dispatches,
// then lets a last one finish, and checks the log.
func crashRun(t *testing.T, env []string, open func() eventlog.Log) {
	const total, rounds = 300, 25
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("kill instants seeded with %d", seed)

	// A worker that dies holding leases, deterministically: their expiry
	// is what hands the deliveries to the next worker.
	c := spawn(t, env, "hold", "w-hold", total, 0, 20)
	held := c.waitHolding()
	c.kill()
	acks := c.acked()

	kills := 1
	for round := 0; round < rounds; round++ {
		c := spawn(t, env, "run", fmt.Sprintf("w%02d", round), total, acks, 0)
		// The instant is random within the worker's run, not its start-up.
		select {
		case <-c.ready:
		case <-c.exited:
		case <-time.After(childTimeout):
			t.Fatalf("worker %s did not open the log in %v; stderr:\n%s", c.name, childTimeout, c.stderr.String())
		}
		select {
		case <-time.After(time.Duration(rng.IntN(150)) * time.Millisecond):
			c.kill()
			kills++
		case <-c.exited:
		}
		acks = c.acked()
	}
	final := spawn(t, env, "run", "w-final", total, acks, 0)
	final.wait()
	if final.acked() != total {
		t.Fatalf("the final worker acknowledged up to %d of %d", final.acked(), total)
	}

	log := open()
	defer log.Close()
	f := verify(t, log, total, held, "w-hold")
	t.Logf("%s: %d workers killed with SIGKILL; accepted %d, dispatched %d, duplicated %d, lost %d; "+
		"deliveries reclaimed after a lease expiry %d, handler re-runs before Complete (at-least-once) %d",
		log.Backend(), kills, f.accepted, f.dispatched, f.duplicated, f.lost, f.reclaimed, f.reruns)
}

func TestCrashSQLite(t *testing.T) { crashSQLite(t, "") }

// TestCrashSQLiteCheckpoints starts the checkpoints at 8 pages, so the
// workers are killed while the checkpointer copies, while the writer
// catches up and while the WAL starts over (eventlog/sqlite's
// Checkpoints), not only between them.
func TestCrashSQLiteCheckpoints(t *testing.T) { crashSQLite(t, "8") }

func crashSQLite(t *testing.T, checkpoint string) {
	dir := t.TempDir()
	env := []string{envStateDir + "=" + dir, "HARN_EVENT_LOG_URL=", "HARN_EVENT_LOG_BACKEND=sqlite", "HARN_EVENT_LOG_SQLITE_PATH=",
		"HARN_EVENT_LOG_SQLITE_CHECKPOINT=" + checkpoint}
	crashRun(t, env, func() eventlog.Log {
		l, err := sqlite.Open(context.Background(), filepath.Join(dir, "events.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

func openPostgres(t *testing.T, url string) eventlog.Log {
	l, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestCrashPostgres(t *testing.T) {
	url := pgtest.Schema(t)
	crashRun(t, []string{"HARN_EVENT_LOG_URL=" + url}, func() eventlog.Log { return openPostgres(t, url) })
}

// TestThreeWorkersPostgres: three processes share one database and split
// the inbox; one dies holding leases while the others dispatch.
func TestThreeWorkersPostgres(t *testing.T) {
	url := pgtest.Schema(t)
	log := openPostgres(t, url)
	defer log.Close()
	threeWorkers(t, []string{"HARN_EVENT_LOG_URL=" + url}, log)
}

// TestThreeWorkersSQLite: the same on one SQLite file, as a server and
// operator commands share a state directory.
func TestThreeWorkersSQLite(t *testing.T) {
	dir := t.TempDir()
	env := []string{envStateDir + "=" + dir, "HARN_EVENT_LOG_URL=", "HARN_EVENT_LOG_BACKEND=sqlite", "HARN_EVENT_LOG_SQLITE_PATH="}
	log, err := sqlite.Open(context.Background(), filepath.Join(dir, "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	threeWorkers(t, env, log)
}

func threeWorkers(t *testing.T, env []string, log eventlog.Log) {
	const total = 300
	ctx := context.Background()
	for i := 0; i < total; i++ {
		id := deliveryID(i)
		if _, _, err := log.Inbox().Accept(ctx, eventlog.Delivery{ID: id, BindingID: "three"},
			eventlog.TopicRecord{Topic: topicEnvelopes, Record: eventlog.Record{Kind: id}}); err != nil {
			t.Fatal(err)
		}
	}
	// w2 dispatches alone first, so it is mid-run when it dies: it
	// completes 10, then takes a batch, runs its handlers and stops.
	w2 := spawn(t, env, "hold", "w2", total, total, 10)
	held := w2.waitHolding()
	w1 := spawn(t, env, "run", "w1", total, total, 0)
	w3 := spawn(t, env, "run", "w3", total, total, 0)
	// Kill w2 once the others are dispatching.
	before, _ := log.Count(ctx, topicOutbox)
	deadline := time.Now().Add(childTimeout)
	for n := before; n < before+16; n, _ = log.Count(ctx, topicOutbox) {
		if time.Now().After(deadline) {
			t.Fatalf("w1 and w3 made no progress in %v", childTimeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	w2.kill()
	w1.wait()
	w3.wait()
	f := verify(t, log, total, held, "w2")
	// How w1 and w3 split the rest is up to the scheduler (SQLite's lock
	// is not fair); that they finished it together is not.
	if f.byOwner["w2"] < 10 || f.byOwner["w1"]+f.byOwner["w3"]+f.byOwner["w2"] != total {
		t.Errorf("completions by worker %v: want w2 ≥ 10 before it died, and w1 and w3 the rest", f.byOwner)
	}
	t.Logf("%s, three workers, w2 killed holding %d leases: accepted %d, dispatched %d, duplicated %d, lost %d; "+
		"completed by w1 %d, w2 %d, w3 %d; reclaimed after expiry %d, handler re-runs %d",
		log.Backend(), len(held), f.accepted, f.dispatched, f.duplicated, f.lost, f.byOwner["w1"], f.byOwner["w2"], f.byOwner["w3"], f.reclaimed, f.reruns)
}

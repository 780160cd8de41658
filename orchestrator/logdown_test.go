package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/orchestrator/manifest"
)

// errDown is what a database that cannot be reached says: its user,
// database, host and port.
var errDown = errors.New("eventlog: postgres: failed to connect to `user=postgres database=harn`: 127.0.0.1:55433: connection refused")

// downLog is a memory log whose inbox fails while down is set, as a
// PostgreSQL log does while its server is stopped.
type downLog struct {
	*memory.Log
	down   atomic.Bool
	claims atomic.Int64 // claims that failed
	// recordDown fails only recording attempts' outcomes (Complete and
	// Retry), as a log that goes down while its attempts run does.
	recordDown atomic.Bool
	records    atomic.Int64 // outcomes that failed
}

func (d *downLog) Inbox() eventlog.Inbox { return downInbox{d.Log.Inbox(), d} }

type downInbox struct {
	eventlog.Inbox
	d *downLog
}

func (d downInbox) Accept(ctx context.Context, dl eventlog.Delivery, records ...eventlog.TopicRecord) (eventlog.Delivery, bool, error) {
	if d.d.down.Load() {
		return eventlog.Delivery{}, false, errDown
	}
	return d.Inbox.Accept(ctx, dl, records...)
}

func (d downInbox) Claim(ctx context.Context, owner string, n int, ttl time.Duration) ([]eventlog.Lease, error) {
	if d.d.down.Load() {
		d.d.claims.Add(1)
		return nil, errDown
	}
	return d.Inbox.Claim(ctx, owner, n, ttl)
}

func (d downInbox) Complete(ctx context.Context, l eventlog.Lease, state eventlog.DeliveryState, errText string, records ...eventlog.TopicRecord) error {
	if d.d.recordDown.Load() {
		d.d.records.Add(1)
		return errDown
	}
	return d.Inbox.Complete(ctx, l, state, errText, records...)
}

func (d downInbox) Retry(ctx context.Context, l eventlog.Lease, atMs int64, errText string, records ...eventlog.TopicRecord) error {
	if d.d.recordDown.Load() {
		d.d.records.Add(1)
		return errDown
	}
	return d.Inbox.Retry(ctx, l, atMs, errText, records...)
}

// A webhook delivery the log cannot accept is answered 503 with a body
// that says only that the log is unavailable: the sender is not told the
// database's user, name, host or port, which go to stderr.
func TestWebhookWhileLogDownHidesTheCause(t *testing.T) {
	path := writeProject(t, "[[triggers]]\nid = \"push\"\nkind = \"webhook\"\nhandler = \"ok\"\n", "fn ok(e) { return true }", "")
	log := &downLog{Log: memory.New()}
	var stderr strings.Builder
	o := startWith(t, path, Options{Log: log, Stderr: &syncWriter{w: &stderr}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !o.ServeWebhook(w, r, nil) {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	log.down.Store(true)
	resp, err := http.Post(srv.URL+"/hooks/push", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var out map[string]any
	json.Unmarshal(body, &out)
	if resp.StatusCode != 503 || out["error"] != "delivery not accepted; retry later" {
		t.Errorf("503 expected: %d %s", resp.StatusCode, body)
	}
	for _, secret := range []string{"postgres", "55433", "127.0.0.1"} {
		if strings.Contains(string(body), secret) {
			t.Errorf("the body tells the sender %q: %s", secret, body)
		}
	}
	o.Close()
	if !strings.Contains(stderr.String(), "[harn] orchestrator: webhook push failed: "+errDown.Error()) {
		t.Errorf("the cause is not on stderr:\n%s", stderr.String())
	}
}

// A node whose log is down writes its first claim failure, not one line
// per claim, and says so once when the log is back.
func TestClaimFailuresWhileLogDown(t *testing.T) {
	path := writeProject(t, "[[triggers]]\nid = \"m\"\nkind = \"manual\"\nhandler = \"ok\"\n", "fn ok(e) { return true }", "")
	log := &downLog{Log: memory.New()}
	log.down.Store(true)
	var stderr strings.Builder
	sw := &syncWriter{w: &stderr}
	text := func() string { sw.mu.Lock(); defer sw.mu.Unlock(); return stderr.String() }
	o := startWith(t, path, Options{Log: log, Stderr: sw})
	deadline := time.Now().Add(30 * time.Second)
	for log.claims.Load() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := log.claims.Load(); n < 4 {
		t.Fatalf("only %d claims in 30 s", n)
	}
	log.down.Store(false)
	recovered := func() bool {
		return strings.Contains(text(), "[harn] orchestrator: claim works again after ")
	}
	for !recovered() && time.Now().Before(deadline) { // the next claim comes after a backoff of at most 5 s
		time.Sleep(10 * time.Millisecond)
	}
	fire(t, o, "m", nil)
	o.Close()
	out := text()
	if n := strings.Count(out, "claim failed: "+errDown.Error()); n != 1 {
		t.Errorf("%d claim failure lines for %d failed claims:\n%s", n, log.claims.Load(), out)
	}
	if !recovered() {
		t.Errorf("the recovery is not reported:\n%s", out)
	}
}

// startWith starts a node on the project at path with opts.
func startWith(t *testing.T, path string, opts Options) *Orchestrator {
	t.Helper()
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	opts.Manifest, opts.StateDir = m, filepath.Dir(path)
	if opts.Poll == 0 {
		opts.Poll = 10 * time.Millisecond
	}
	o, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	o.Start()
	t.Cleanup(func() { o.Close() })
	return o
}

// Attempts whose outcome the log cannot record while it is down write
// the first one's line (which attempt of which event), not one per
// attempt, and the recovery once (docs/orchestrator.md, Failure
// semantics).
func TestUnrecordedAttemptsWhileLogDown(t *testing.T) {
	path := writeProject(t, "[[triggers]]\nid = \"m\"\nkind = \"manual\"\nhandler = \"ok\"\n", "fn ok(e) { return true }", "")
	log := &downLog{Log: memory.New()}
	log.recordDown.Store(true)
	var stderr strings.Builder
	sw := &syncWriter{w: &stderr}
	text := func() string { sw.mu.Lock(); defer sw.mu.Unlock(); return stderr.String() }
	// a short lease: an attempt not recorded runs again soon
	o := startWith(t, path, Options{Log: log, Stderr: sw, LeaseTTL: 300 * time.Millisecond})
	// Fire waits for the attempt's recorded outcome: it returns once the
	// log is back and an attempt of the event is recorded.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var fired sync.WaitGroup
	for range 4 {
		fired.Go(func() {
			if h, err := o.Fire(ctx, "m", nil, Caller{Client: "test/1"}); err != nil || h.Status != "succeeded" {
				t.Errorf("fire: %+v %v", h, err)
			}
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for log.records.Load() < 6 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := log.records.Load(); n < 6 {
		t.Fatalf("only %d attempts ran in 30 s", n)
	}
	log.recordDown.Store(false)
	recovered := func() bool {
		return strings.Contains(text(), "[harn] orchestrator: recording attempts works again after ")
	}
	for !recovered() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	fired.Wait()
	o.Close()
	out := text()
	if n := strings.Count(out, "not recorded: "); n != 1 {
		t.Errorf("%d lines for %d attempts not recorded:\n%s", n, log.records.Load(), out)
	}
	if !regexp.MustCompile(`\[harn\] orchestrator: attempt 1 of \S+ not recorded: ` + regexp.QuoteMeta(errDown.Error()) + "\n").MatchString(out) {
		t.Errorf("the first attempt not recorded is not named:\n%s", out)
	}
	if !recovered() {
		t.Errorf("the recovery is not reported:\n%s", out)
	}
}

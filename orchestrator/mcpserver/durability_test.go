package mcpserver

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/internal/secretscan"
	"github.com/harnlang/harn/orchestrator"
)

// heldLog holds every write of the call records (action graph, scan
// audit) until release is closed, and fails them with fail when it is
// set; the dispatch writes (inbox, outcomes) go through as usual.
type heldLog struct {
	eventlog.Log
	release chan struct{}
	fail    error
}

func callRecord(topic string) bool {
	return topic == orchestrator.TopicActionGraph || topic == secretscan.AuditTopic
}

func (l *heldLog) hold(topics ...string) error {
	for _, t := range topics {
		if callRecord(t) {
			<-l.release
			return l.fail
		}
	}
	return nil
}

func (l *heldLog) Append(ctx context.Context, topic string, rec eventlog.Record) (int64, error) {
	if err := l.hold(topic); err != nil {
		return 0, err
	}
	return l.Log.Append(ctx, topic, rec)
}

func (l *heldLog) AppendAll(ctx context.Context, records ...eventlog.TopicRecord) ([]int64, error) {
	topics := make([]string, len(records))
	for i, r := range records {
		topics[i] = r.Topic
	}
	if err := l.hold(topics...); err != nil {
		return nil, err
	}
	return l.Log.AppendAll(ctx, records...)
}

// openSQLite opens an SQLite log in a temporary directory, closed when
// the test ends, and returns it with its path.
func openSQLite(t *testing.T) (*sqlite.Log, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.db")
	log, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return log, path
}

// answerWithin runs call and fails the test if it does not return in time.
func answerWithin[T any](t *testing.T, d time.Duration, call func() T) T {
	t.Helper()
	got := make(chan T, 1)
	go func() { got <- call() }()
	select {
	case v := <-got:
		return v
	case <-time.After(d):
		t.Fatalf("no answer within %s", d)
	}
	var zero T
	return zero
}

const scanArgs = `token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"`

// harn.secret_scan answers without waiting for its audit record to be
// written: the audit goes behind the answer, with the action-graph
// record, so the call's latency does not include an fsync.
func TestScanAnswersBeforeItsAuditIsWritten(t *testing.T) {
	sq, _ := openSQLite(t)
	log := &heldLog{Log: sq, release: make(chan struct{})}
	defer close(log.release)
	c := newClientOn(t, log)
	c.initialize()
	findings := answerWithin(t, 5*time.Second, func() any { return c.ok("harn.secret_scan", map[string]any{"content": scanArgs}) })
	if n := len(findings.([]any)); n != 1 {
		t.Fatalf("findings %s", js(findings))
	}
	if audits, _ := sq.Read(context.Background(), secretscan.AuditTopic, 0, 0); len(audits) != 0 {
		t.Fatalf("audit written while the log held it: %v", audits)
	}
}

// A graceful shutdown writes the audit records (and action-graph
// records) still queued: Close returns only once they are in the log.
func TestCloseWritesQueuedAudits(t *testing.T) {
	sq, path := openSQLite(t)
	log := &heldLog{Log: sq, release: make(chan struct{})}
	c := newClientOn(t, log)
	c.initialize()
	for range 3 {
		answerWithin(t, 5*time.Second, func() any { return c.ok("harn.secret_scan", map[string]any{"content": scanArgs}) })
	}
	closed := make(chan struct{})
	go func() { c.srv.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned before the queued records were written")
	case <-time.After(100 * time.Millisecond):
	}
	close(log.release)
	<-closed
	// Another handle on the file sees what is committed.
	other, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	audits, _ := other.Read(context.Background(), secretscan.AuditTopic, 0, 0)
	if len(audits) != 3 {
		t.Fatalf("%d audits after Close, want 3", len(audits))
	}
	for _, a := range audits {
		if a.Kind != "scan_detected" || a.Headers["trace_id"] == "" || a.OccurredAtMs == 0 || strings.Contains(string(a.Payload), "ghp_1234") {
			t.Errorf("audit %+v", a)
		}
	}
	graph, _ := other.Read(context.Background(), orchestrator.TopicActionGraph, 0, 0)
	scans := 0
	for _, g := range graph {
		if g.Headers["tool_name"] == "harn.secret_scan" {
			scans++
		}
	}
	if scans != 3 {
		t.Fatalf("%d action-graph records of scans after Close, want 3", scans)
	}
}

// An audit the log refuses no longer fails the call, which answered
// before it was written: the failure is reported on stderr.
func TestRefusedAuditIsReported(t *testing.T) {
	sq, _ := openSQLite(t)
	log := &heldLog{Log: sq, release: make(chan struct{}), fail: errors.New("disk full")}
	close(log.release)
	c := newClientOn(t, log)
	c.initialize()
	c.ok("harn.secret_scan", map[string]any{"content": scanArgs})
	c.srv.Flush()
	if got := c.stderr.String(); !strings.Contains(got, "[harn] mcp: recording a tool call: disk full") {
		t.Fatalf("stderr %q", got)
	}
}

// An accepted fire is durable before its answer: the event and its
// delivery are committed when harn.trigger.fire answers, even while the
// call records are held behind it (another handle on the file, as
// another process would, sees them at once).
func TestFireIsCommittedBeforeItsAnswer(t *testing.T) {
	sq, path := openSQLite(t)
	log := &heldLog{Log: sq, release: make(chan struct{})}
	defer close(log.release)
	c := newClientOn(t, log)
	c.initialize()
	h := answerWithin(t, 10*time.Second, func() any {
		return c.ok("harn.trigger.fire", map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}})
	})
	id, _ := get(h, "event_id").(string)
	if id == "" || get(h, "status") != "succeeded" {
		t.Fatalf("fire %s", js(h))
	}
	other, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	d, err := other.Inbox().Get(context.Background(), id)
	if err != nil || d.State != eventlog.Done {
		t.Fatalf("delivery %s: %+v, %v; want it done", id, d, err)
	}
	events, _ := other.Read(context.Background(), orchestrator.TopicEvents, 0, 0)
	found := false
	for _, e := range events {
		found = found || strings.Contains(string(e.Payload), id)
	}
	if !found {
		t.Fatalf("event %s not on %s: %v", id, orchestrator.TopicEvents, events)
	}
	if graph, _ := other.Read(context.Background(), orchestrator.TopicActionGraph, 0, 0); len(graph) != 0 {
		t.Fatalf("action-graph records written while held: %d", len(graph))
	}
}

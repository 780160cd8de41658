package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/orchestrator/manifest"
	"github.com/harnlang/harn/stdlib/agents/transcriptsink"
)

// Topics of the event log (docs/spec/orchestrator.md §4).
const (
	TopicInboxEnvelopes = "trigger.inbox.envelopes"
	TopicInboxClaims    = "trigger.inbox.claims"
	TopicInboxLegacy    = "trigger.inbox"
	TopicOutbox         = "trigger.outbox"
	TopicAttempts       = "trigger.attempts"
	TopicDLQ            = "trigger.dlq"
	TopicLifecycle      = "triggers.lifecycle"
	TopicEvents         = "triggers.events"
	TopicActionGraph    = "observability.action_graph"
	TopicSecretScan     = "audit.secret_scan"
	TopicOpsAudit       = "trigger.operations.audit"
	TranscriptPrefix    = "agent.transcript."
)

// Options configures a node.
type Options struct {
	// Log is the event log (required); the Orchestrator does not close it.
	Log eventlog.Log
	// Manifest is the validated manifest (required).
	Manifest *manifest.Manifest
	// StateDir, when set, receives orchestrator-state.json (and inspect
	// reports it).
	StateDir string
	// Operator makes the node an operator command's (harn orchestrator):
	// a short-lived worker that brings no events in by itself. It runs no
	// cron schedule (the servers' schedules tick; a CLI run must not add
	// ticks of its own), registers no binding lifecycle records (it reads
	// the versions the servers registered: an operator's manifest must not
	// re-version or terminate the servers' bindings), purges no expired
	// dead letters, leaves the snapshot to the node that owns the state
	// directory, and does not repeat the server's warning about bindings
	// this build runs no connector for.
	Operator bool
	// Bind is reported in the snapshot ("stdio" or the HTTP address).
	Bind string
	// Owner names this node in leases (default host-pid-random).
	Owner string
	// Workers bounds concurrent dispatches on this node (default 16).
	Workers int
	// LeaseTTL is how long a claimed delivery stays leased without
	// renewal (default 30s); a dead node's work is taken over after it.
	LeaseTTL time.Duration
	// Poll is how often an idle worker loop looks for due deliveries
	// accepted elsewhere or due for retry (default 200ms).
	Poll time.Duration
	// DrainTimeout bounds how long Close waits for the attempts in flight
	// (default 30s); attempts still running then are left to their lease
	// expiry, and run again on a live node.
	DrainTimeout time.Duration
	// Stderr receives handler output and operational messages.
	Stderr io.Writer
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Orchestrator is one node of the trigger runtime.
type Orchestrator struct {
	opts Options
	log  eventlog.Log
	proj atomic.Pointer[project]
	view *view
	flow *flow
	// batches collects the events of batch bindings on this node.
	batches batcher

	wake     chan struct{}
	slots    chan struct{} // one per attempt running on this node (Workers)
	waitMu   sync.Mutex
	waiters  map[string]chan Handle
	inFlight atomic.Int64
	// failures reports the failures of claims, cron ticks and webhook
	// deliveries.
	failures *failures
	perBind  sync.Map // binding id -> *atomic.Int64 (in flight on this node)

	cronMu   sync.Mutex
	cronStop chan struct{} // closed to stop the schedule goroutines
	cronWG   sync.WaitGroup

	connMu     sync.Mutex
	connectors map[string]bool
	// unconnected holds the bindings already warned about (id, kind and
	// provider), so a reload warns only about what it changes.
	unconnected map[string]bool

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	status  atomic.Value // "running", "draining", "stopped"
	started atomic.Bool
}

// Binding is a manifest trigger with its version and lifecycle state.
type Binding struct {
	*manifest.Trigger
	Version int
	State   string // registering, active, draining, terminated
}

// project is what one manifest load produced; replaced as a whole on
// reload.
type project struct {
	m        *manifest.Manifest
	rt       *Runtime
	bindings map[string]*Binding
	order    []*Binding
	// past caches the earlier versions of bindings that replays as of a
	// past instant resolved against this project (binding id and version
	// to *Binding).
	past sync.Map
}

// New opens a node: loads the handlers, registers the bindings'
// versions and lifecycle in the log (an operator node only reads them),
// and writes the state snapshot. It starts no goroutines; Start does.
func New(ctx context.Context, opts Options) (*Orchestrator, error) {
	if opts.Log == nil || opts.Manifest == nil {
		return nil, errors.New("orchestrator: Log and Manifest are required")
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Workers <= 0 {
		opts.Workers = 16
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = 30 * time.Second
	}
	if opts.Poll <= 0 {
		opts.Poll = 200 * time.Millisecond
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 30 * time.Second
	}
	if opts.Owner == "" {
		host, _ := os.Hostname()
		opts.Owner = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	o := &Orchestrator{opts: opts, log: opts.Log, wake: make(chan struct{}, 1), slots: make(chan struct{}, opts.Workers), waiters: map[string]chan Handle{}}
	o.view = newView(opts.Log, opts.Now)
	o.failures = newFailures(opts.Stderr, opts.Now)
	o.flow = newFlow()
	o.status.Store("running")
	o.ctx, o.cancel = context.WithCancel(context.Background())
	if err := o.Reload(ctx, opts.Manifest); err != nil {
		return nil, err
	}
	return o, nil
}

// Manifest is the manifest now served.
func (o *Orchestrator) Manifest() *manifest.Manifest { return o.proj.Load().m }

// Owner names the node in leases and attempt records.
func (o *Orchestrator) Owner() string { return o.opts.Owner }

// InFlight is the number of attempts running on this node.
func (o *Orchestrator) InFlight() int64 { return o.inFlight.Load() }

// DrainTimeout bounds how long Close waits for the attempts in flight.
func (o *Orchestrator) DrainTimeout() time.Duration { return o.opts.DrainTimeout }

// Log is the node's event log.
func (o *Orchestrator) Log() eventlog.Log { return o.log }

// Bindings lists the bindings in manifest order.
func (o *Orchestrator) Bindings() []*Binding { return o.proj.Load().order }

// Binding returns the binding with id, or nil.
func (o *Orchestrator) Binding(id string) *Binding { return o.proj.Load().bindings[id] }

// Reload loads a manifest's handlers and swaps it in: a binding whose
// definition changed gets the next version, a new one version 1, and a
// removed one is terminated; each change is a triggers.lifecycle record,
// written by every node but an operator command's. A failure leaves the
// previous project served.
func (o *Orchestrator) Reload(ctx context.Context, m *manifest.Manifest) error {
	rt, err := LoadRuntime(m, o.opts.Stderr)
	if err != nil {
		return err
	}
	transcriptsink.Set(rt.sess.VM, o.appendTranscript)
	known, err := readLifecycle(ctx, o.log)
	if err != nil {
		return err
	}
	p := &project{m: m, rt: rt, bindings: map[string]*Binding{}}
	now := o.opts.Now().UnixMilli()
	for _, t := range m.Triggers {
		b := &Binding{Trigger: t, State: "active"}
		last := known.latest(t.ID)
		switch {
		case last == nil:
			b.Version = 1
		case last.Fingerprint == t.Fingerprint && last.State != "terminated":
			b.Version = last.Version
		default:
			b.Version = last.Version + 1
		}
		if !o.opts.Operator && (last == nil || last.Version != b.Version || last.State == "terminated") {
			rec := lifecycleRecord{BindingID: t.ID, Version: b.Version, State: "active", Fingerprint: t.Fingerprint,
				Kind: t.Kind, Provider: t.Provider, Handler: t.Handler.String(), When: t.When, Definition: t.Definition}
			if err := o.appendJSON(ctx, TopicLifecycle, "binding_registered", rec, map[string]string{"binding_id": t.ID}, now); err != nil {
				return err
			}
		}
		p.bindings[t.ID] = b
		p.order = append(p.order, b)
	}
	for _, id := range known.ids() {
		if last := known.latest(id); !o.opts.Operator && p.bindings[id] == nil && last.State != "terminated" {
			rec := *last
			rec.State = "terminated"
			if err := o.appendJSON(ctx, TopicLifecycle, "binding_terminated", rec, map[string]string{"binding_id": id}, now); err != nil {
				return err
			}
		}
	}
	o.warnUnconnected(p.order)
	o.proj.Store(p)
	if o.started.Load() {
		o.startCron()
	}
	o.writeSnapshot(ctx)
	return nil
}

// appendTranscript appends one message of an agent loop a handler runs
// to its transcript stream, agent.transcript.<id> (docs/spec/orchestrator.md
// §4), headed with the agent's name and run. The stream is observability:
// a failed append is reported on stderr and the run goes on.
func (o *Orchestrator) appendTranscript(id string, msg any, agent string, run int64) {
	headers := map[string]string{"agent": agent, "run": strconv.FormatInt(run, 10)}
	if err := o.appendJSON(context.Background(), TranscriptPrefix+id, "message", msg, headers, o.opts.Now().UnixMilli()); err != nil {
		fmt.Fprintf(o.opts.Stderr, "warning: cannot record agent transcript %s: %v\n", id, err)
	}
}

func (o *Orchestrator) appendJSON(ctx context.Context, topic, kind string, payload any, headers map[string]string, at int64) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = o.log.Append(ctx, topic, eventlog.Record{Kind: kind, Payload: b, Headers: headers, OccurredAtMs: at})
	return err
}

// warnUnconnected says on stderr which bindings fire only by hand
// because this build runs no connector for their kind: once per binding
// (id, kind and provider) for the life of the node, not again on every
// reload, and never on an operator command's node.
func (o *Orchestrator) warnUnconnected(bindings []*Binding) {
	if o.opts.Operator {
		return
	}
	o.connMu.Lock()
	defer o.connMu.Unlock()
	for _, b := range bindings {
		key := b.ID + "\x00" + b.Kind + "\x00" + b.Provider
		if hasConnector(b.Kind) || o.unconnected[key] {
			continue
		}
		if o.unconnected == nil {
			o.unconnected = map[string]bool{}
		}
		o.unconnected[key] = true
		fmt.Fprintf(o.opts.Stderr, "[harn] orchestrator: trigger %s (kind %s, provider %s): this build runs no %s connector; the trigger fires only through harn.trigger.fire or harn orchestrator fire\n",
			b.ID, b.Kind, b.Provider, b.Kind)
	}
}

// hasConnector says whether this build brings events of a binding kind
// in by itself: cron runs a schedule, webhook and a2a-push receive HTTP
// deliveries, manual triggers need none. poll, stream and predicate
// bindings have no connector yet.
func hasConnector(kind string) bool {
	switch kind {
	case "poll", "stream", "predicate":
		return false
	}
	return true
}

// lifecycleRecord is the payload of a triggers.lifecycle record.
type lifecycleRecord struct {
	BindingID   string         `json:"binding_id"`
	Version     int            `json:"version"`
	State       string         `json:"state"`
	Fingerprint string         `json:"fingerprint"`
	Kind        string         `json:"kind"`
	Provider    string         `json:"provider"`
	Handler     string         `json:"handler"`
	When        string         `json:"when,omitempty"`
	Definition  map[string]any `json:"definition,omitempty"`
	AtMs        int64          `json:"-"`
}

type lifecycle map[string][]*lifecycleRecord

func (l lifecycle) latest(id string) *lifecycleRecord {
	recs := l[id]
	if len(recs) == 0 {
		return nil
	}
	return recs[len(recs)-1]
}

// asOf is the binding's registration in force at ms, or nil.
func (l lifecycle) asOf(id string, ms int64) *lifecycleRecord {
	var out *lifecycleRecord
	for _, r := range l[id] {
		if r.AtMs <= ms {
			out = r
		}
	}
	return out
}

func (l lifecycle) ids() []string {
	out := make([]string, 0, len(l))
	for id := range l {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func readLifecycle(ctx context.Context, log eventlog.Log) (lifecycle, error) {
	recs, err := log.Read(ctx, TopicLifecycle, 0, 0)
	if err != nil {
		return nil, err
	}
	out := lifecycle{}
	for _, r := range recs {
		var lr lifecycleRecord
		if json.Unmarshal(r.Payload, &lr) != nil || lr.BindingID == "" {
			continue
		}
		lr.AtMs = r.OccurredAtMs
		out[lr.BindingID] = append(out[lr.BindingID], &lr)
	}
	return out, nil
}

// The background refresh: the view every viewRefreshInterval, the
// expired DLQ entries and the state snapshot every snapshotTicks of it
// (2 seconds).
const (
	viewRefreshInterval = 500 * time.Millisecond
	snapshotTicks       = 4
)

// Appended tells the orchestrator about records its process appended to
// topic (their ids set), so that its view folds them without reading
// them back from the log. Optional: what is not handed over is read.
func (o *Orchestrator) Appended(topic string, recs []eventlog.Record) { o.view.appended(topic, recs) }

// Start runs the worker loop and, unless the node is an operator
// command's, the cron schedules until Close.
func (o *Orchestrator) Start() {
	o.startCron()
	o.started.Store(true)
	o.wg.Add(2)
	go o.workLoop()
	go func() { // keep the view and the snapshot's metrics current
		defer o.wg.Done()
		// The view folds what was appended since its last refresh: every
		// MCP tool call's action-graph record among it. Folded every
		// 2 seconds, a busy server's records made a burst of work long
		// enough to show in its tools/call latency; folded every half
		// second, the same work comes in four smaller pieces.
		t := time.NewTicker(viewRefreshInterval)
		defer t.Stop()
		for tick := 1; ; tick++ {
			select {
			case <-o.ctx.Done():
				return
			case <-t.C:
				if tick%snapshotTicks != 0 {
					_ = o.view.refresh(o.ctx)
					continue
				}
				if !o.opts.Operator {
					o.purgeExpiredDLQ(o.ctx, o.opts.Now())
				}
				o.writeSnapshot(o.ctx)
			}
		}
	}()
}

// Close stops claiming, waits up to DrainTimeout for the attempts in
// flight to end (each is recorded), then writes the final snapshot.
func (o *Orchestrator) Close() error {
	o.status.Store("draining")
	o.stopCron()
	o.cancel()
	// The state directory tells a draining node from a running one
	// while its last attempts finish (up to DrainTimeout).
	o.writeSnapshot(context.Background())
	drained := make(chan struct{})
	go func() { o.wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(o.opts.DrainTimeout):
		fmt.Fprintf(o.opts.Stderr, "[harn] orchestrator: %d attempts still running after %s; their leases will expire and another node will run them\n",
			o.inFlight.Load(), o.opts.DrainTimeout)
	}
	o.status.Store("stopped")
	o.writeSnapshot(context.Background())
	return nil
}

// NewTraceID is a fresh trace id: mcp_ and a uuidv7 as 32 hex digits.
// Every MCP tool call makes one.
func NewTraceID() string { return triggerspec.NewTraceID("mcp") }

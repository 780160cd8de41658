package crashtest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/backend"
)

// The worker's environment. The log itself is chosen by backend.Open from
// HARN_EVENT_LOG_URL / HARN_EVENT_LOG_SQLITE_PATH and the state dir.
const (
	envMode      = "HARN_CRASHTEST_WORKER" // "run", or "hold": stop after claiming and running handlers
	envStateDir  = "HARN_CRASHTEST_STATE_DIR"
	envOwner     = "HARN_CRASHTEST_OWNER"
	envTotal     = "HARN_CRASHTEST_TOTAL"      // deliveries the test sends: d0000 … d<total-1>
	envAckFrom   = "HARN_CRASHTEST_ACK_FROM"   // the first one not acknowledged yet: accept from there
	envTTL       = "HARN_CRASHTEST_TTL_MS"     // lease ttl
	envHoldAfter = "HARN_CRASHTEST_HOLD_AFTER" // hold mode: completions before the batch it holds
)

// Topics the worker writes.
const (
	topicEnvelopes = "trigger.inbox.envelopes" // one per accepted delivery, in Accept's transaction
	topicEffects   = "handler.effects"         // the handler's side effect, outside any lease transaction
	topicOutbox    = "trigger.outbox"          // one completion record per delivery, in Complete's transaction
)

func deliveryID(i int) string { return fmt.Sprintf("d%04d", i) }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// out is the worker's line protocol to the test: "ready" once the log is
// open, "ack <i>" once delivery i is accepted (the sender's
// acknowledgement), "holding <ids>" in hold mode.
var out = struct {
	sync.Mutex
	w *bufio.Writer
}{w: bufio.NewWriter(os.Stdout)}

func say(format string, args ...any) {
	out.Lock()
	defer out.Unlock()
	fmt.Fprintf(out.w, format+"\n", args...)
	out.w.Flush()
}

// worker is the child process: it accepts the deliveries not acknowledged
// yet and dispatches until every delivery is done.
func worker() int {
	ctx := context.Background()
	log, err := backend.Open(ctx, os.Getenv(envStateDir), os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	defer log.Close()
	say("ready")
	in := log.Inbox()
	owner := os.Getenv(envOwner)
	total, ackFrom := envInt(envTotal, 0), envInt(envAckFrom, 0)
	ttl := time.Duration(envInt(envTTL, 500)) * time.Millisecond
	hold := os.Getenv(envMode) == "hold"
	holdAfter := envInt(envHoldAfter, 0)

	complete := func(l eventlog.Lease) error {
		err := in.Complete(ctx, l, eventlog.Done, "",
			eventlog.TopicRecord{Topic: topicOutbox, Record: eventlog.Record{Kind: l.ID,
				Headers: map[string]string{"owner": owner, "attempt": strconv.Itoa(l.Attempts)}}})
		if err == eventlog.ErrLeaseLost {
			return nil // another worker took it after our lease expired; it completes it
		}
		return err
	}

	errc := make(chan error, 2)
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for i := ackFrom; i < total; i++ {
			id := deliveryID(i)
			d := eventlog.Delivery{ID: id, BindingID: "crash", Envelope: []byte(`{"n":` + strconv.Itoa(i) + `}`)}
			envelope := eventlog.TopicRecord{Topic: topicEnvelopes, Record: eventlog.Record{Kind: id}}
			if hold || i%2 == 0 {
				if _, _, err := in.Accept(ctx, d, envelope); err != nil {
					errc <- err
					return
				}
				say("ack %d", i)
				continue
			}
			// Every other delivery is accepted leased to this worker and
			// run at once, as a node runs an event fired through it.
			l, created, err := in.AcceptLeased(ctx, d, owner, ttl, envelope)
			if err != nil {
				errc <- err
				return
			}
			say("ack %d", i)
			if created {
				if err := effect(ctx, log, l); err != nil {
					errc <- err
					return
				}
				if err := complete(l); err != nil {
					errc <- err
					return
				}
			}
		}
	}()

	completed := 0
	for {
		ls, err := in.Claim(ctx, owner, 8, ttl)
		if err != nil {
			fmt.Fprintln(os.Stderr, "worker: claim:", err)
			return 2
		}
		if len(ls) == 0 {
			select {
			case err := <-errc:
				fmt.Fprintln(os.Stderr, "worker: accept:", err)
				return 2
			case <-accepted:
				st, err := in.Stats(ctx)
				if err != nil {
					fmt.Fprintln(os.Stderr, "worker: stats:", err)
					return 2
				}
				if st.Pending == 0 && st.Leased == 0 {
					return 0
				}
			default:
			}
			time.Sleep(2 * time.Millisecond)
			continue
		}
		if hold && completed >= holdAfter {
			// Run the handlers, then die holding the leases: the test
			// kills this process when it reads the line.
			var ids []string
			for _, l := range ls {
				if err := effect(ctx, log, l); err != nil {
					fmt.Fprintln(os.Stderr, "worker:", err)
					return 2
				}
				ids = append(ids, l.ID)
			}
			say("holding %s", strings.Join(ids, ","))
			time.Sleep(time.Hour)
			return 0
		}
		for _, l := range ls {
			if err := effect(ctx, log, l); err != nil {
				fmt.Fprintln(os.Stderr, "worker:", err)
				return 2
			}
			if err := complete(l); err != nil {
				fmt.Fprintln(os.Stderr, "worker: complete:", err)
				return 2
			}
			completed++
		}
	}
}

// effect is the handler: a side effect in the log, outside the lease's
// transactions, so a crash between it and Complete runs it again
// (at-least-once) while the completion stays exactly-once.
func effect(ctx context.Context, log eventlog.Log, l eventlog.Lease) error {
	_, err := log.Append(ctx, topicEffects, eventlog.Record{Kind: l.ID,
		Headers: map[string]string{"owner": l.Owner, "attempt": strconv.Itoa(l.Attempts)}})
	return err
}

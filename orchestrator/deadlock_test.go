package orchestrator

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/orchestrator/manifest"
	"github.com/harnlang/harn/vm"
)

// The deadlock tests' project: handlers that wait for what nothing can
// do, and pairs that hand values over through a module-level channel.
const deadlockManifest = `
[exports]
handlers = "handlers.harn"

[[triggers]]
id = "stuck"
kind = "manual"
handler = "stuck"
retry = { max = 3, backoff = "linear", base = "1ms" }

[[triggers]]
id = "stuck-once"
kind = "manual"
handler = "stuck"
retry = { max = 0 }

[[triggers]]
id = "locked"
kind = "manual"
handler = "locked"
retry = { max = 0 }

[[triggers]]
id = "ok"
kind = "manual"
handler = "echo"

[[triggers]]
id = "stuck-when"
kind = "manual"
handler = "echo"
when = "stuck"
retry = { max = 0 }

[[triggers]]
id = "take"
kind = "manual"
handler = "take"
retry = { max = 0 }

[[triggers]]
id = "give-later"
kind = "manual"
handler = "give"
retry = { max = 0 }
debounce = { period = "700ms" }

[[triggers]]
id = "gated"
kind = "manual"
handler = "stuck"
retry = { max = 0 }
concurrency = { max = 1 }

[[triggers]]
id = "leave-waiter"
kind = "manual"
handler = "leave_waiter"
retry = { max = 0 }

[[triggers]]
id = "feed"
kind = "manual"
handler = "feed"
retry = { max = 0 }
timeout = "5s"
`

const deadlockLib = `
let handover = channel()
let fed = channel()

fn stuck(event) {
  return receive(channel())
}

fn locked(event) {
  let held = sync_mutex_acquire("orchestrator-test")
  let h = spawn { sync_mutex_acquire("orchestrator-test") }
  return await(h)
}

fn echo(event) { return event.payload }

fn take(event) { return receive(handover) }

fn give(event) {
  send(handover, "handed over")
  return "given"
}

fn leave_waiter(event) {
  spawn {
    let v = receive(fed)
    send(fed, v + 1)
  }
  return "left"
}

fn feed(event) {
  send(fed, 41)
  sleep(1)
  return receive(fed)
}
`

const deadlockText = "Error [deadlock]: " + vm.DeadlockMsg

func deadlockProject(t *testing.T) *Orchestrator {
	return start(t, memory.New(), writeProject(t, deadlockManifest, deadlockLib, ""))
}

// fireAsync fires id on a goroutine; the handle arrives on the channel.
func fireAsync(t *testing.T, o *Orchestrator, id string, payload any) <-chan Handle {
	t.Helper()
	out := make(chan Handle, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		h, err := o.Fire(ctx, id, payload, Caller{Client: "test/1"})
		if err != nil {
			t.Error(err)
		}
		out <- h
	}()
	return out
}

// TestDeadlockedHandlerFailsAndRetries: a handler waiting for what no
// task can ever do fails with the deadlock error; each attempt does, by
// the retry policy, and the event is dead-lettered.
func TestDeadlockedHandlerFailsAndRetries(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, deadlockManifest, deadlockLib, ""))
	h := fire(t, o, "stuck", nil)
	if h.Status != "failed" || h.Error == nil || !strings.HasPrefix(*h.Error, deadlockText) {
		t.Fatalf("first attempt: %s", js(h))
	}
	var entries []DLQEntry
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && len(entries) == 0; {
		time.Sleep(20 * time.Millisecond)
		entries, _ = o.PendingDLQ(context.Background())
	}
	if len(entries) != 1 {
		t.Fatalf("dlq %s", js(entries))
	}
	e := entries[0]
	if e.EventID != h.EventID || e.ErrorClass != "handler_panic" || !strings.HasPrefix(e.Error, deadlockText) || len(e.RetryHistory) != 3 {
		t.Fatalf("entry %s", js(e))
	}
	for _, a := range e.RetryHistory {
		if a.Status != "failed" || a.Error == nil || !strings.HasPrefix(*a.Error, deadlockText) {
			t.Fatalf("attempt %s", js(a))
		}
	}
}

// TestDeadlockedHandlerIsLocated: the error names the handler's line,
// as any runtime error of a handler does.
func TestDeadlockedHandlerIsLocated(t *testing.T) {
	o := deadlockProject(t)
	h := fire(t, o, "stuck-once", nil)
	if h.Status != "dlq" || h.Error == nil || *h.Error != deadlockText+" (lib.harn:6)" {
		t.Fatalf("%s", js(h))
	}
}

// TestDeadlockedPredicateFails: a `when` predicate that deadlocks fails
// the attempt as a predicate failure.
func TestDeadlockedPredicateFails(t *testing.T) {
	o := deadlockProject(t)
	h := fire(t, o, "stuck-when", nil)
	if h.Status != "dlq" || h.Error == nil || *h.Error != "predicate stuck: "+deadlockText+" (lib.harn:6)" {
		t.Fatalf("%s", js(h))
	}
	entries, _ := o.PendingDLQ(context.Background())
	if len(entries) != 1 || entries[0].ErrorClass != "predicate_panic" {
		t.Fatalf("dlq %s", js(entries))
	}
}

// TestDeadlockedMutexFails: a sync_mutex_acquire nothing will release is
// a deadlock too: the spawned task's wait fails, and the handler's await
// with it.
func TestDeadlockedMutexFails(t *testing.T) {
	o := deadlockProject(t)
	h := fire(t, o, "locked", nil)
	if h.Status != "dlq" || h.Error == nil || !strings.Contains(*h.Error, "deadlock") {
		t.Fatalf("%s", js(h))
	}
}

// TestOtherTriggersRunBesideADeadlock: while a handler is deadlocked,
// other triggers' handlers run and complete.
func TestOtherTriggersRunBesideADeadlock(t *testing.T) {
	o := deadlockProject(t)
	stuck := fireAsync(t, o, "stuck-once", nil)
	time.Sleep(100 * time.Millisecond) // it waits, within the grace
	for i := range 5 {
		if h := fire(t, o, "ok", map[string]any{"n": i}); h.Status != "succeeded" {
			t.Fatalf("ok beside a deadlock: %s", js(h))
		}
	}
	select {
	case h := <-stuck:
		if h.Status != "dlq" || h.Error == nil || !strings.HasPrefix(*h.Error, deadlockText) {
			t.Fatalf("stuck: %s", js(h))
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the deadlocked handler never failed")
	}
}

// TestDispatchOnItsWayCountsAsActing: a handler waiting for a value
// that another dispatch in progress will send is no deadlock, though
// that dispatch waits (a debounce period, in Go) longer than the
// detector's grace before its handler runs.
func TestDispatchOnItsWayCountsAsActing(t *testing.T) {
	o := deadlockProject(t)
	give := fireAsync(t, o, "give-later", nil)
	time.Sleep(50 * time.Millisecond) // the giver is in its debounce period
	h := fire(t, o, "take", nil)
	if h.Status != "succeeded" || h.Result != "handed over" {
		t.Fatalf("take: %s", js(h))
	}
	if g := <-give; g.Status != "succeeded" {
		t.Fatalf("give: %s", js(g))
	}
}

// TestGatedDeadlocksBothFail: an attempt waiting at a concurrency gate
// for a deadlocked one cannot act until it ends, so it does not keep it
// from being judged: both fail, neither hangs.
func TestGatedDeadlocksBothFail(t *testing.T) {
	o := deadlockProject(t)
	a, b := fireAsync(t, o, "gated", nil), fireAsync(t, o, "gated", nil)
	for _, c := range []<-chan Handle{a, b} {
		select {
		case h := <-c:
			if h.Status != "dlq" || h.Error == nil || !strings.HasPrefix(*h.Error, deadlockText) {
				t.Fatalf("%s", js(h))
			}
		case <-time.After(15 * time.Second):
			t.Fatal("a gated deadlocked handler never failed")
		}
	}
}

// TestLeftoverTaskSurvivesIdle: a task a handler left waiting on a
// module-level channel is not judged while the orchestrator is idle: a
// later dispatch may feed it, as this one does.
func TestLeftoverTaskSurvivesIdle(t *testing.T) {
	o := deadlockProject(t)
	if h := fire(t, o, "leave-waiter", nil); h.Status != "succeeded" {
		t.Fatalf("%s", js(h))
	}
	time.Sleep(600 * time.Millisecond) // idle past the grace
	if h := fire(t, o, "feed", nil); h.Status != "succeeded" || js(h.Result) != "42" {
		t.Fatalf("feed: %s", js(h))
	}
}

// TestRunningHandlerFailsBeforeLeftoverTask: when a running handler and
// a leftover task both wait forever, the handler's wait fails and the
// task survives for a later dispatch.
func TestRunningHandlerFailsBeforeLeftoverTask(t *testing.T) {
	o := deadlockProject(t)
	if h := fire(t, o, "leave-waiter", nil); h.Status != "succeeded" {
		t.Fatalf("%s", js(h))
	}
	if h := fire(t, o, "stuck-once", nil); h.Status != "dlq" || h.Error == nil || !strings.HasPrefix(*h.Error, deadlockText) {
		t.Fatalf("stuck: %s", js(h))
	}
	if h := fire(t, o, "feed", nil); h.Status != "succeeded" || js(h.Result) != "42" {
		t.Fatalf("feed: %s", js(h))
	}
}

// TestConcurrentDeadlocksAllFail: several deadlocked handlers at once
// each fail, one verdict after another.
func TestConcurrentDeadlocksAllFail(t *testing.T) {
	o := deadlockProject(t)
	var wg sync.WaitGroup
	for range 3 {
		c := fireAsync(t, o, "stuck-once", nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case h := <-c:
				if h.Status != "dlq" || h.Error == nil || !strings.HasPrefix(*h.Error, deadlockText) {
					t.Errorf("%s", js(h))
				}
			case <-time.After(15 * time.Second):
				t.Error("a deadlocked handler never failed")
			}
		}()
	}
	wg.Wait()
}

// TestModuleDeadlockFailsToLoad: top-level code that deadlocks fails
// the load, as a call would, instead of hanging it.
func TestModuleDeadlockFailsToLoad(t *testing.T) {
	path := writeProject(t, "[exports]\nhandlers = \"handlers.harn\"\n\n[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"echo\"\n",
		"let v = receive(channel())\nfn echo(event) { return event }\n", "")
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadRuntime(m, nil)
	if err == nil || !strings.Contains(err.Error(), deadlockText) {
		t.Fatalf("%v", err)
	}
}

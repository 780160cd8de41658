package orchestrator

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// While the log is unreachable, the first failure is written, repeats
// of the same error only once a minute with their count, a different
// error at once, and the recovery once (docs/orchestrator.md, Failure
// semantics). The clock is injected: nothing here waits.
func TestFailuresAreNotRepeated(t *testing.T) {
	var out strings.Builder
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := newFailures(&out, func() time.Time { return now })
	down := errors.New("connection refused")
	step := func(d time.Duration) { now = now.Add(d) }
	lines := func() []string {
		defer out.Reset()
		return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	}

	f.ok("claim") // nothing failed: nothing to say
	if out.Len() != 0 {
		t.Fatalf("a success with no failure before is written: %q", out.String())
	}
	f.failed("claim", down)
	for i := 0; i < 299; i++ { // five a second for a minute, less a tick
		step(200 * time.Millisecond)
		f.failed("claim", down)
	}
	if got := lines(); len(got) != 1 || got[0] != "[harn] orchestrator: claim failed: connection refused" {
		t.Fatalf("first minute: %q", got)
	}
	step(200 * time.Millisecond)
	f.failed("claim", down)
	if got := lines(); len(got) != 1 || got[0] != "[harn] orchestrator: claim still failing: connection refused (300 times more in the last 1m0s)" {
		t.Fatalf("summary: %q", got)
	}
	if n := f.failingNow("claim"); n != 301 {
		t.Errorf("failingNow = %d, want 301", n)
	}
	// Another activity is reported on its own.
	f.failed("cron trigger tick", down)
	if got := lines(); len(got) != 1 || got[0] != "[harn] orchestrator: cron trigger tick failed: connection refused" {
		t.Fatalf("another activity: %q", got)
	}
	// A different error is written at once, after the count of the
	// repeats not yet reported.
	step(time.Second)
	f.failed("claim", down)
	f.failed("claim", errors.New("password authentication failed"))
	if got := strings.Join(lines(), "\n"); got != "[harn] orchestrator: claim failed 1 time more: connection refused\n[harn] orchestrator: claim failed: password authentication failed" {
		t.Fatalf("a new error: %q", got)
	}
	step(29 * time.Second)
	f.ok("claim")
	f.ok("claim")
	if got := lines(); len(got) != 1 || got[0] != "[harn] orchestrator: claim works again after 303 failures in 1m30s" {
		t.Fatalf("recovery: %q", got)
	}
	if n := f.failingNow("claim"); n != 0 {
		t.Errorf("failingNow after recovery = %d", n)
	}
	f.failed("claim", down) // a new run starts with its first line
	if got := lines(); len(got) != 1 || got[0] != "[harn] orchestrator: claim failed: connection refused" {
		t.Fatalf("new run: %q", got)
	}
}

// Claims that fail are retried later each time, up to maxClaimBackoff.
func TestClaimBackoff(t *testing.T) {
	poll := 200 * time.Millisecond
	for _, c := range []struct {
		n    int
		want time.Duration
	}{{0, poll}, {1, 400 * time.Millisecond}, {2, 800 * time.Millisecond}, {4, 3200 * time.Millisecond}, {5, maxClaimBackoff}, {1000, maxClaimBackoff}} {
		if got := claimBackoff(poll, c.n); got != c.want {
			t.Errorf("claimBackoff(%s, %d) = %s, want %s", poll, c.n, got, c.want)
		}
	}
	if got := claimBackoff(10*time.Second, 3); got != 10*time.Second {
		t.Errorf("a poll longer than the bound: %s", got)
	}
}

// failedAs writes its own line where failed writes "X failed: …"; the
// repeats and the recovery are said as for any activity.
func TestFailedAsNamesTheFirstFailure(t *testing.T) {
	var out strings.Builder
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := newFailures(&out, func() time.Time { return now })
	down := errors.New("connection refused")
	f.failedAs("recording attempts", down, "attempt 1 of ev_1 not recorded: connection refused")
	now = now.Add(30 * time.Second)
	f.failedAs("recording attempts", down, "attempt 1 of ev_2 not recorded: connection refused")
	now = now.Add(30 * time.Second)
	f.failedAs("recording attempts", down, "attempt 2 of ev_1 not recorded: connection refused")
	now = now.Add(5 * time.Second)
	f.failedAs("recording attempts", down, "attempt 2 of ev_2 not recorded: connection refused")
	f.ok("recording attempts")
	want := `[harn] orchestrator: attempt 1 of ev_1 not recorded: connection refused
[harn] orchestrator: recording attempts still failing: connection refused (2 times more in the last 1m0s)
[harn] orchestrator: recording attempts works again after 4 failures in 1m5s
`
	if out.String() != want {
		t.Errorf("got:\n%swant:\n%s", out.String(), want)
	}
}

package orchestrator

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// failureSummaryEvery is how often a failure that keeps repeating is
// summarised on stderr.
const failureSummaryEvery = time.Minute

// maxClaimBackoff bounds how long the work loop waits between claims
// while they fail.
const maxClaimBackoff = 5 * time.Second

// failures reports recurring failures of the node's work (claims, cron
// ticks, webhook deliveries, recording attempts' outcomes) on stderr without flooding it while the event
// log is unreachable: the first failure of an activity is written, then
// repeats of the same error are only counted and summarised once per
// failureSummaryEvery, and the first success after failures is written
// once (docs/orchestrator.md, Failure semantics). A different error is
// written at once.
type failures struct {
	w     io.Writer
	now   func() time.Time
	mu    sync.Mutex
	state map[string]*failing // by activity
}

// failing is one activity's run of failures.
type failing struct {
	err    string    // the error last written
	first  time.Time // when the run started
	total  int       // failures in the run
	quiet  int       // repeats of err since the last line
	lineAt time.Time // when the last line was written
}

func newFailures(w io.Writer, now func() time.Time) *failures {
	return &failures{w: w, now: now, state: map[string]*failing{}}
}

// failed reports that activity (e.g. "claim") failed with err.
func (f *failures) failed(activity string, err error) {
	f.failedAs(activity, err, activity+" failed: "+err.Error())
}

// failedAs is failed whose line, when one is written for err (the first
// of a run, or a new error), is line: recording an attempt names the
// attempt and the event whose outcome is lost. Repeats and the recovery
// are counted and written as failed's are.
func (f *failures) failedAs(activity string, err error, line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now, msg := f.now(), err.Error()
	s := f.state[activity]
	switch {
	case s == nil:
		s = &failing{first: now}
		f.state[activity] = s
	case msg == s.err:
		s.total++
		s.quiet++
		if now.Sub(s.lineAt) >= failureSummaryEvery {
			fmt.Fprintf(f.w, "[harn] orchestrator: %s still failing: %s (%s more in the last %s)\n", activity, msg, times(s.quiet), roundDuration(now.Sub(s.lineAt)))
			s.quiet, s.lineAt = 0, now
		}
		return
	case s.quiet > 0:
		fmt.Fprintf(f.w, "[harn] orchestrator: %s failed %s more: %s\n", activity, times(s.quiet), s.err)
	}
	s.total++
	s.err, s.quiet, s.lineAt = msg, 0, now
	fmt.Fprintf(f.w, "[harn] orchestrator: %s\n", line)
}

// ok reports that activity succeeded; after failures, that is written
// once.
func (f *failures) ok(activity string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.state[activity]
	if s == nil {
		return
	}
	delete(f.state, activity)
	fmt.Fprintf(f.w, "[harn] orchestrator: %s works again after %s in %s\n", activity, plural(s.total, "failure"), roundDuration(f.now().Sub(s.first)))
}

// failingNow reports how many times in a row activity has failed.
func (f *failures) failingNow(activity string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s := f.state[activity]; s != nil {
		return s.total
	}
	return 0
}

// times is "1 time" or "n times".
func times(n int) string { return plural(n, "time") }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func roundDuration(d time.Duration) time.Duration { return d.Round(time.Second) }

// claimBackoff is how long the work loop waits before claiming again
// after n claims in a row failed: the poll interval, doubled for each
// failure, at most maxClaimBackoff (and never less than poll).
func claimBackoff(poll time.Duration, n int) time.Duration {
	d := poll
	for i := 0; i < n && d < maxClaimBackoff; i++ {
		d *= 2
	}
	return max(min(d, maxClaimBackoff), poll)
}

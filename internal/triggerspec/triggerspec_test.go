package triggerspec

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDelaySchedules(t *testing.T) {
	cases := []struct {
		r    Retry
		want []time.Duration
	}{
		{DefaultRetry, []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour}},
		{Retry{Backoff: "linear", Base: 3 * time.Second}, []time.Duration{0, 3 * time.Second, 6 * time.Second, 9 * time.Second}},
		{Retry{Backoff: "exponential", Base: time.Second}, []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{Retry{Backoff: "exponential", Base: 4 * time.Hour}, []time.Duration{0, 4 * time.Hour, 8 * time.Hour, 10 * time.Hour}},
	}
	for _, c := range cases {
		for n, want := range c.want {
			if got := c.r.Delay(n); got != want {
				t.Errorf("%s base %v: Delay(%d) = %v, want %v", c.r.Backoff, c.r.Base, n, got, want)
			}
		}
	}
	if (Retry{Max: 0}).Attempts() != 1 || (Retry{Max: 1}).Attempts() != 1 || DefaultRetry.Attempts() != 7 {
		t.Error("Attempts: 0 and 1 mean one attempt; the default is 7")
	}
}

func TestProblems(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{IDProblem("ok-1.x_y"), ""},
		{IDProblem("-x"), `"-x" may contain only`},
		{KindProblem("cron"), ""},
		{KindProblem("cronn"), "did you mean cron?"},
		{KindProblem("zzzzzzzz"), "(one of cron, webhook, manual, poll, stream, predicate, a2a-push)"},
		{ProviderProblem("webhook", "github"), ""},
		{ProviderProblem("manual", "github"), `provider "github" does not serve kind "manual" (it serves webhook, poll)`},
		{ProviderProblem("manual", "nope"), `unknown provider "nope"`},
		{TierProblem("act_auto"), ""},
		{TierProblem("auto"), `unknown tier "auto"`},
		{RetryMaxProblem(100), ""},
		{RetryMaxProblem(101), "must be between 0 and 100, got 101"},
		{BackoffProblem("fib"), `unknown backoff "fib" (one of svix, linear, exponential)`},
		{RetentionProblem(0), "must be at least 1, got 0"},
		{ScheduleProblem("*/5 * * * *"), ""},
		{ScheduleProblem("@hourly"), ""},
		{ScheduleProblem(""), "is required for a cron trigger"},
		{ScheduleProblem("CRON_TZ=UTC * * * * *"), `write timezone = "UTC"`},
		{ScheduleProblem("every minute"), `invalid cron expression "every minute"`},
	} {
		if c.want == "" && c.got != "" || c.want != "" && !strings.Contains(c.got, c.want) {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if _, msg := Location("Europe/Paris"); msg != "" {
		t.Error(msg)
	}
	for _, bad := range []string{"Mars/Base", "Local"} {
		if _, msg := Location(bad); !strings.Contains(msg, "unknown time zone") {
			t.Errorf("%s: %q", bad, msg)
		}
	}
	for _, c := range []struct {
		x    any
		want time.Duration
		ok   bool
	}{{"30s", 30 * time.Second, true}, {int64(2), 2 * time.Second, true}, {1.5, 1500 * time.Millisecond, true}, {"-1s", -time.Second, false}, {true, 0, false}} {
		if d, ok := DurationOf(c.x); d != c.want || ok != c.ok {
			t.Errorf("DurationOf(%v) = %v, %v", c.x, d, ok)
		}
	}
}

// TestScheduleAcrossDST: classic cron semantics on Europe/Paris change
// days (docs/triggers.md): a fixed-time schedule runs once, a wildcard
// one on real time.
func TestScheduleAcrossDST(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	ticks := func(expr string, from time.Time, n int) []string {
		s, err := ParseSchedule(expr)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		at := from.In(paris)
		for range n {
			at = s.Next(at)
			out = append(out, at.Format(time.RFC3339))
		}
		return out
	}
	cases := []struct {
		expr string
		from time.Time
		want []string
	}{
		{"30 2 * * *", time.Date(2026, 3, 28, 12, 0, 0, 0, paris), []string{"2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}},
		{"30 2 * * *", time.Date(2026, 10, 24, 12, 0, 0, 0, paris), []string{"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}},
		// started during the repeated hour, after its first 02:30
		{"30 2 * * *", time.Date(2026, 10, 25, 0, 45, 0, 0, time.UTC), []string{"2026-10-26T02:30:00+01:00"}},
		{"0 30 2 * * *", time.Date(2026, 3, 29, 1, 0, 0, 0, paris), []string{"2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}},
		{"0 * * * *", time.Date(2026, 10, 25, 1, 30, 0, 0, paris), []string{"2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T03:00:00+01:00"}},
		{"@every 30m", time.Date(2026, 3, 29, 1, 45, 0, 0, paris), []string{"2026-03-29T03:15:00+02:00"}},
	}
	for _, c := range cases {
		if got := ticks(c.expr, c.from, len(c.want)); !slices.Equal(got, c.want) {
			t.Errorf("%s from %s: %v, want %v", c.expr, c.from.Format(time.RFC3339), got, c.want)
		}
	}
}

// Event, dead-letter and trace ids carry their prefix and a fresh
// uuidv7: hyphenated in the first two, 32 hex digits in a trace id.
func TestNewIDs(t *testing.T) {
	isV7 := func(s string) bool {
		return len(s) == 36 && s[14] == '7' && strings.Count(s, "-") == 4
	}
	ev, dlq := NewEventID(), NewDLQID()
	if e, ok := strings.CutPrefix(ev, "trigger_evt_"); !ok || !isV7(e) {
		t.Errorf("event id %q", ev)
	}
	if d, ok := strings.CutPrefix(dlq, "dlq_"); !ok || !isV7(d) {
		t.Errorf("dead-letter id %q", dlq)
	}
	a, b := NewTraceID("cron"), NewTraceID("script")
	for _, id := range []string{a, b} {
		_, h, _ := strings.Cut(id, "_")
		if len(h) != 32 || strings.Trim(h, "0123456789abcdef") != "" || h[12] != '7' {
			t.Errorf("trace id %q is not a source and a uuidv7 in 32 hex digits", id)
		}
	}
	if !strings.HasPrefix(a, "cron_") || !strings.HasPrefix(b, "script_") || a[5:] >= b[7:] {
		t.Errorf("trace ids %q then %q: wrong source or not in order", a, b)
	}
}

// A day-of-week of 7 is Sunday, as in classic cron (docs/orchestrator.md,
// schedule): alone, in a list, and at the end of a range or a stepped
// range; 8 and ranges past 7 stay refused.
func TestSundayAsSeven(t *testing.T) {
	for expr, want := range map[string]string{
		"0 9 * * 7":       "0 9 * * 0",
		"0 9 * * 5-7":     "0 9 * * 5,6,0",
		"0 9 * * 1-7/2":   "0 9 * * 1,3,5,0",
		"0 9 * * 0,7":     "0 9 * * 0,0",
		"0 0 9 * * 7":     "0 0 9 * * 0",
		"0 9 * * 1-5":     "0 9 * * 1-5",
		"7 7 7 7 *":       "7 7 7 7 *",
		"@every 7m":       "@every 7m",
		"0 0 * * MON-FRI": "0 0 * * MON-FRI",
	} {
		if got := sundayAsSeven(expr); got != want {
			t.Errorf("sundayAsSeven(%q) = %q, want %q", expr, got, want)
		}
	}
	sun := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) // a Sunday
	for _, expr := range []string{"0 9 * * 7", "0 9 * * SUN", "0 9 * * 0"} {
		s, err := ParseSchedule(expr)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if next := s.Next(sun.Add(-time.Hour)); !next.Equal(sun.Add(9 * time.Hour)) {
			t.Errorf("%q: next %v, want %v", expr, next, sun.Add(9*time.Hour))
		}
	}
	if got := ScheduleProblem("0 9 * * 8"); got != `invalid cron expression "0 9 * * 8": end of range (8) above maximum (7): 8` {
		t.Errorf("day 8: %q", got)
	}
}

// A schedule whose day and month never meet (February 30, April 31) is
// refused: the trigger would never fire. February 29 fires in leap years,
// and a day of the week as well as a day of the month fires on either
// (classic cron), so those stay accepted.
func TestScheduleThatNeverFires(t *testing.T) {
	for _, expr := range []string{"0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 0 31 11 *"} {
		want := fmt.Sprintf("cron expression %q matches no date: the month has no such day, so the trigger would never fire", expr)
		if got := ScheduleProblem(expr); got != want {
			t.Errorf("%q: %q, want %q", expr, got, want)
		}
	}
	for _, expr := range []string{"0 0 29 2 *", "0 0 31 * *", "0 0 31 2,3 *", "0 0 30 2 1", "@yearly"} {
		if got := ScheduleProblem(expr); got != "" {
			t.Errorf("%q refused: %s", expr, got)
		}
	}
}

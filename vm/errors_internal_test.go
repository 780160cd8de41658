package vm

import "testing"

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9990: "9,990", 1234567: "1,234,567"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMaxFramesFromEnv(t *testing.T) {
	for env, want := range map[string]int{"": DefaultMaxFrames, "300": 300, "x": DefaultMaxFrames, "-1": DefaultMaxFrames, "99999999": MaxMaxFrames} {
		t.Setenv("HARN_MAX_DEPTH", env)
		if got := maxFramesFromEnv(); got != want {
			t.Errorf("HARN_MAX_DEPTH=%q: %d, want %d", env, got, want)
		}
	}
}

// FormatTrace folds a repeated cycle of frames (alternating recursion)
// as it folds a run of one frame (docs/run.md).
func TestFormatTraceFoldsCycles(t *testing.T) {
	fr := func(fn string, line int) TraceFrame { return TraceFrame{Func: fn, File: "p.harn", Line: line} }
	var trace []TraceFrame
	for range 5 {
		trace = append(trace, fr("f", 2), fr("<closure>", 2))
	}
	trace = append(trace, fr("f", 2), fr("g", 7), fr("g", 7), fr("g", 7))
	for range 3 {
		trace = append(trace, fr("a", 1), fr("b", 2), fr("c", 3))
	}
	trace = append(trace, fr("", 9))
	got := (&Error{Trace: trace}).FormatTrace()
	want := "  at f (p.harn:2)\n  at <closure> (p.harn:2)\n  [the 2 frames above repeated 4 more times]\n" +
		"  at f (p.harn:2)\n  at g (p.harn:7)\n  [repeated 2 more times]\n" +
		"  at a (p.harn:1)\n  at b (p.harn:2)\n  at c (p.harn:3)\n  [the 3 frames above repeated 2 more times]\n" +
		"  at <top level> (p.harn:9)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Two identical frames both print (a fold line would save nothing),
	// and a cycle seen twice folds in the singular.
	trace = []TraceFrame{fr("<closure>", 1), fr("<closure>", 1), fr("a", 1), fr("b", 2), fr("a", 1), fr("b", 2), fr("", 3)}
	got = (&Error{Trace: trace}).FormatTrace()
	want = "  at <closure> (p.harn:1)\n  at <closure> (p.harn:1)\n" +
		"  at a (p.harn:1)\n  at b (p.harn:2)\n  [the 2 frames above repeated 1 more time]\n" +
		"  at <top level> (p.harn:3)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// ThrownAt throws a value from where another failure was raised: it
// keeps that failure's trace (a copy), so the report points at it.
func TestThrownAtKeepsTheTrace(t *testing.T) {
	stopped := DeadlineExceeded()
	stopped.Trace = []TraceFrame{{Func: "slow", File: "a.harn", Line: 3, Col: 5}}
	thrown := ThrownAt(Str(DeadlineMsg), stopped)
	if thrown.Kind != KindThrown || ToDisplay(thrown.Caught()) != DeadlineMsg {
		t.Fatalf("got %v, want the thrown string %q", thrown, DeadlineMsg)
	}
	if len(thrown.Trace) != 1 || thrown.Trace[0] != stopped.Trace[0] {
		t.Fatalf("trace %v, want %v", thrown.Trace, stopped.Trace)
	}
	thrown.Trace[0].Line = 99
	if stopped.Trace[0].Line != 3 {
		t.Fatal("the thrown failure shares its trace with the one it was thrown from")
	}
}

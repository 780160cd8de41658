package vm

import (
	"fmt"
	"strconv"
	"strings"
)

// ErrorKind classifies run-time failures; the kind decides the text a
// script's `catch` receives and the text printed when nothing catches it
// (docs/spec/builtins.md §0, docs/spec/language.md §8.2 and §12.2).
type ErrorKind int

const (
	// KindThrown is a value raised by `throw` (or require, assert, a failed
	// match, builtins that throw values). catch binds the value unchanged.
	KindThrown ErrorKind = iota
	// KindRuntime reads "Runtime error: msg".
	KindRuntime
	// KindType reads "Type error: msg".
	KindType
	// KindPlain has no prefix when caught ("Division by zero",
	// "Undefined variable: x", "Stack overflow: …") and reads
	// "Runtime error: msg" when uncaught.
	KindPlain
	// KindCategorized reads "Error [category]: msg" everywhere, no line.
	KindCategorized
	// KindExit is exit(code): it unwinds everything and is never caught.
	KindExit
	// KindCancelled unwinds a cancelled task or an exceeded deadline; it is
	// never caught by catch (deadline converts it at its own boundary).
	KindCancelled
)

// Error is a Harn run-time failure.
type Error struct {
	Kind     ErrorKind
	Msg      string // message without kind prefix or line suffix
	Value    Value  // KindThrown: the thrown value
	Category string // KindCategorized
	Code     int    // KindExit: the exit code
	Line     int    // line of the failing operation; 0 when unknown
	Col      int
	Trace    []TraceFrame
	// Rethrown marks a failure re-raised by an exhausted retry: it prints as
	// a thrown string (docs/spec/language.md §8.6).
	Rethrown bool
	// Redacted, when set, is Msg without the script values it quotes
	// (unwrap's Err payload, unreachable's argument). Value-free reports
	// such as a tool failure summary use it instead of Msg, which may
	// carry a secret.
	Redacted string
	// Help is advice the uncaught report prints after the location
	// (`= help: …`); it is not part of the text catch receives.
	Help string
	// Stop says what stopped the thread, for the failures the scheduler
	// makes (Thread.stopErr): code tells a cancellation from a passed
	// deadline or an interrupt by it, never by the text, which a script's
	// own error may share.
	Stop StopCause

	// tracedBy and tracedDepth name the frame whose line Trace last
	// recorded. A failure that a frame's bracket code (finally, the
	// release of a mutex or deadline) takes and re-raises passes that
	// frame's handler search again; it must not be listed twice.
	tracedBy    *Thread
	tracedDepth int
}

// StopCause is why the scheduler stopped a thread (Error.Stop).
type StopCause uint8

const (
	// NotStopped: the failure is not the scheduler's.
	NotStopped StopCause = iota
	// StopCancelled: the task was cancelled (KindCancelled, CancelledMsg).
	StopCancelled
	// StopDeadline: a deadline passed (KindCancelled, "Deadline exceeded").
	StopDeadline
	// StopInterrupted: the whole VM is interrupted (KindExit, code 124).
	StopInterrupted
)

// CancelledMsg is the text of the error a cancelled task stops with.
const CancelledMsg = "Task cancelled"

// DeadlineMsg is the text of the error a passed deadline stops a thread with.
const DeadlineMsg = "Deadline exceeded"

// Cancelled is the failure a cancelled task stops with.
func Cancelled() *Error {
	return &Error{Kind: KindCancelled, Msg: CancelledMsg, Stop: StopCancelled}
}

// DeadlineExceeded is the failure a thread whose deadline passed stops with.
func DeadlineExceeded() *Error {
	return &Error{Kind: KindCancelled, Msg: DeadlineMsg, Stop: StopDeadline}
}

// Interrupted is the failure every thread of an interrupted VM stops with.
func Interrupted() *Error {
	return &Error{Kind: KindExit, Code: 124, Msg: "interrupted", Stop: StopInterrupted}
}

// TraceFrame is one line of a Harn stack trace, innermost first.
type TraceFrame struct {
	Func string
	File string
	Line int
	Col  int
}

func (e *Error) Error() string { return e.UncaughtText() }

// InStd reports whether the frame runs code of an embedded std/* module,
// whose lines mean nothing to the script (failures are located at the
// script's first frame instead).
func (f TraceFrame) InStd() bool { return IsStdFile(f.File) }

// IsStdFile reports whether a source name is an embedded std/* module.
func IsStdFile(file string) bool { return strings.HasPrefix(file, "std/") }

// Caught is the value `catch (e)` binds (docs/spec/language.md §8.2).
func (e *Error) Caught() Value {
	switch e.Kind {
	case KindThrown:
		return e.Value
	case KindRuntime:
		return Str("Runtime error: " + e.Msg)
	case KindType:
		return Str("Type error: " + e.Msg)
	case KindCategorized:
		return Str("Error [" + e.Category + "]: " + e.Msg)
	}
	return Str(e.Msg)
}

// UncaughtText is the first line `harn run` prints after "error: "
// (docs/spec/language.md §12.2).
func (e *Error) UncaughtText() string {
	line := ""
	if e.Line > 0 {
		line = " (line " + strconv.Itoa(e.Line) + ")"
	}
	switch e.Kind {
	case KindThrown:
		return "Thrown: " + displayForError(e.Value)
	case KindRuntime, KindPlain:
		return "Runtime error: " + e.Msg + line
	case KindType:
		return "Type error: " + e.Msg + line
	case KindCategorized:
		return "Error [" + e.Category + "]: " + e.Msg
	case KindExit:
		return fmt.Sprintf("exit(%d)", e.Code)
	case KindCancelled:
		return e.Msg
	}
	return e.Msg
}

// ValueFreeText is the caught text of a non-thrown failure with any
// quoted script value left out (the Redacted message when there is one).
func (e *Error) ValueFreeText() string {
	if e.Redacted == "" {
		return displayForError(e.Caught())
	}
	r := *e
	r.Msg = e.Redacted
	return displayForError(r.Caught())
}

// displayForError is the display form of a value in an error report; a
// value too deep to display is named instead, since the report itself
// must not fail.
func displayForError(v Value) string {
	s, err := DisplayChecked(v)
	if err != nil {
		return "<" + AsError(err).Msg + ">"
	}
	return s
}

// maxRelabels bounds how many identical " (line N)" suffixes Relabel
// appends to one message.
const maxRelabels = 8

// Relabel applies the callback rule (docs/spec/language.md §8.2): a non-thrown
// failure leaving a nested execution gets " (line N)" appended and, if it
// had no prefix, becomes a runtime error.
func (e *Error) Relabel() *Error {
	switch e.Kind {
	case KindThrown, KindExit, KindCancelled, KindCategorized:
		return e
	}
	out := *e
	if e.Line > 0 {
		suffix := " (line " + strconv.Itoa(e.Line) + ")"
		// Deep recursion through callbacks would grow the message by one
		// suffix per level (thousands); past maxRelabels identical levels
		// the message stops growing.
		if !strings.HasSuffix(e.Msg, strings.Repeat(suffix, maxRelabels)) {
			out.Msg = e.Msg + suffix
			if e.Redacted != "" {
				out.Redacted = e.Redacted + suffix
			}
		}
	}
	if out.Kind == KindPlain {
		out.Kind = KindRuntime
	}
	out.Line = 0
	return &out
}

// FormatTrace renders the Harn stack trace, one frame per line; a run
// of three or more identical frames (deep recursion) prints once,
// followed by `[repeated N more times]`, and a run of a repeated cycle of up to
// maxTraceCycle frames (alternating recursion, f calling a callback
// calling f) prints the cycle once, followed by
// `[the K frames above repeated N more times]` (docs/run.md).
func (e *Error) FormatTrace() string {
	var sb strings.Builder
	for i := 0; i < len(e.Trace); {
		period, reps := traceCycle(e.Trace[i:])
		if period == 1 && reps == 2 {
			reps = 1 // a fold line in place of one frame would save nothing
		}
		for _, f := range e.Trace[i : i+period] {
			name := f.Func
			if name == "" {
				name = "<top level>"
			}
			fmt.Fprintf(&sb, "  at %s (%s:%d)\n", name, f.File, f.Line)
		}
		times := "times"
		if reps == 2 {
			times = "time"
		}
		switch {
		case reps > 1 && period == 1:
			fmt.Fprintf(&sb, "  [repeated %s more %s]\n", groupDigits(reps-1), times)
		case reps > 1:
			fmt.Fprintf(&sb, "  [the %d frames above repeated %s more %s]\n", period, groupDigits(reps-1), times)
		}
		i += period * reps
	}
	return sb.String()
}

// maxTraceCycle is the longest cycle of frames FormatTrace folds.
const maxTraceCycle = 8

// traceCycle finds the cycle of frames trace starts with that repeats
// over the most frames (the shortest such cycle on a tie): its length and
// how many times it occurs in a row (1, 1 when nothing repeats).
func traceCycle(trace []TraceFrame) (period, reps int) {
	period, reps = 1, 1
	same := func(a, b TraceFrame) bool { return a.Func == b.Func && a.File == b.File && a.Line == b.Line }
	for p := 1; p <= maxTraceCycle && 2*p <= len(trace); p++ {
		n := p // frames that continue the cycle
		for n < len(trace) && same(trace[n], trace[n-p]) {
			n++
		}
		if r := n / p; r > 1 && r*p > period*reps {
			period, reps = p, r
		}
	}
	return period, reps
}

// Clone is a copy of the failure that another thread may raise and
// decorate on its own: its trace is a fresh slice, and no frame of the
// new thread counts as recorded yet.
func (e *Error) Clone() *Error {
	c := *e
	c.Trace = append([]TraceFrame(nil), e.Trace...)
	c.tracedBy, c.tracedDepth = nil, 0
	return &c
}

// groupDigits writes n with comma thousands separators (9,990).
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Throw raises v as a thrown value.
func Throw(v Value) *Error { return &Error{Kind: KindThrown, Value: v} }

// Throwf raises a thrown string (the `[T]` errors of docs/spec/builtins.md).
func Throwf(format string, args ...any) *Error {
	return &Error{Kind: KindThrown, Value: Str(fmt.Sprintf(format, args...))}
}

// Runtimef raises a "Runtime error: …" (the `[R]` errors).
func Runtimef(format string, args ...any) *Error {
	return &Error{Kind: KindRuntime, Msg: fmt.Sprintf(format, args...)}
}

// Typef raises a "Type error: …" (the `[Y]` errors).
func Typef(format string, args ...any) *Error {
	return &Error{Kind: KindType, Msg: fmt.Sprintf(format, args...)}
}

// Plainf raises an unprefixed failure such as "Undefined variable: x".
func Plainf(format string, args ...any) *Error {
	return &Error{Kind: KindPlain, Msg: fmt.Sprintf(format, args...)}
}

// DivisionByZero is the failure of int `/ 0`, `% 0` and float `% 0`.
func DivisionByZero() *Error { return &Error{Kind: KindPlain, Msg: "Division by zero"} }

// Categorized raises "Error [category]: msg".
func Categorized(category, msg string) *Error {
	return &Error{Kind: KindCategorized, Category: category, Msg: msg}
}

// ExitError ends the program with code.
func ExitError(code int) *Error { return &Error{Kind: KindExit, Code: code} }

// AsError converts any Go error into a Harn *Error (non-Harn errors become
// runtime errors).
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	return &Error{Kind: KindRuntime, Msg: err.Error()}
}

// ErrorOf returns the failure carried by a catch-path value (the operand
// a runtime hook receives from a guarded region's failure path).
func ErrorOf(v Value) (*Error, bool) {
	b, ok := v.Object().(*errBox)
	if !ok {
		return nil, false
	}
	return b.err, true
}

// ThrownAt is v thrown from where e was raised: it keeps e's trace, so
// an uncaught report points at the operation e stopped, not at the
// runtime hook that turns e into v (a deadline block's boundary).
func ThrownAt(v Value, e *Error) *Error {
	t := Throw(v)
	t.Trace = append([]TraceFrame(nil), e.Trace...)
	t.tracedBy, t.tracedDepth = e.tracedBy, e.tracedDepth
	return t
}

// ErrorValue boxes a failure so a runtime hook can hand it back for RERAISE.
func ErrorValue(e *Error) Value { return Of(&errBox{err: e}) }

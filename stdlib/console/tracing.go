package console

import (
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// Tracing (docs/spec/builtins.md §5, runtime context/tracing): spans opened with
// trace_start and closed with trace_end, nested per VM. While a span is
// open, log_* lines carry its trace_id and span_id (docs/spec/builtins.md §4.9).
// Tracing is on by default; enable_tracing(false) makes trace_start a
// no-op returning nil.

type traceState struct {
	mu       sync.Mutex
	disabled bool
	open     []*vm.Dict // innermost last
	finished []vm.Value
}

type traceKey struct{}

func tracesOf(v *vm.VM) *traceState {
	return v.Local(traceKey{}, func() any { return &traceState{} }).(*traceState)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// enclosing is the trace id and parent span id of a span opened now:
// the innermost open span's, or a new trace and nil. st.mu is held.
func (st *traceState) enclosing() (traceID, parent vm.Value) {
	if n := len(st.open); n > 0 {
		traceID, _ = st.open[n-1].Get("trace_id")
		parent, _ = st.open[n-1].Get("span_id")
		return traceID, parent
	}
	return vm.Str(randomHex(16)), vm.Nil
}

// currentSpan returns the trace and span ids of the innermost open span.
func currentSpan(th *vm.Thread) (traceID, spanID string, ok bool) {
	st := tracesOf(th.VM())
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.open) == 0 {
		return "", "", false
	}
	top := st.open[len(st.open)-1]
	t, _ := top.Get("trace_id")
	s, _ := top.Get("span_id")
	return vm.ToDisplay(t), vm.ToDisplay(s), true
}

func init() {
	lib.Def("enable_tracing", "enable_tracing(on = true)", "turn span recording on or off", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		st := tracesOf(th.VM())
		st.mu.Lock()
		st.disabled = a.Given(0) && !a.At(0).Truth()
		st.mu.Unlock()
		return vm.Nil, nil
	})
	lib.Def("trace_start", "trace_start(name, attributes?)", "open a span {trace_id, span_id, parent_id, name, attributes, start_ms} inside the current one; nil when tracing is off", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("trace_start: name must be a string, got %s", a.At(0).Type())
		}
		attrs, ok := a.Dict(1)
		if !ok {
			attrs = vm.NewDict()
		}
		st := tracesOf(th.VM())
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.disabled {
			return vm.Nil, nil
		}
		traceID, parent := st.enclosing()
		span := lib.DictOf("trace_id", traceID, "span_id", vm.Str(randomHex(8)), "parent_id", parent,
			"name", vm.Str(name), "attributes", attrs, "start_ms", vm.IntOf(htime.VMNow(th).UnixMilli()))
		st.open = append(st.open, span)
		return vm.Of(span), nil
	})
	lib.Def("trace_end", "trace_end(span, attributes?)", "close span (and any spans opened inside it); the finished span with end_ms and duration_ms", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		span, ok := a.Dict(0)
		if !ok {
			if a.At(0).IsNil() {
				return vm.Nil, nil // trace_start returned nil: tracing is off
			}
			return vm.Value{}, vm.Typef("trace_end: expected a span, got %s", a.At(0).Type())
		}
		id, _ := span.Get("span_id")
		st := tracesOf(th.VM())
		st.mu.Lock()
		defer st.mu.Unlock()
		at := -1
		for i, s := range st.open {
			if sid, _ := s.Get("span_id"); id.IsValid() && vm.Equal(sid, id) {
				at = i
			}
		}
		if at < 0 {
			return vm.Value{}, vm.Throwf("trace_end: span is not open")
		}
		end := htime.VMNow(th).UnixMilli()
		var done vm.Value
		for i := len(st.open) - 1; i >= at; i-- {
			s := st.open[i]
			start, _ := s.Get("start_ms")
			startMs, _ := start.AsInt()
			f := s.Set("end_ms", vm.IntOf(end)).Set("duration_ms", vm.IntOf(end-int64(startMs)))
			if i == at {
				if extra, ok := a.Dict(1); ok {
					attrs, _ := f.Get("attributes")
					if ad, ok := attrs.AsDict(); ok {
						f = f.Set("attributes", vm.Of(ad.Merge(extra)))
					}
				}
				done = vm.Of(f)
			}
			st.finished = append(st.finished, vm.Of(f))
		}
		st.open = st.open[:at]
		return done, nil
	})
	lib.Def("trace_id", "trace_id()", "the trace id of the innermost open span, or nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, _, ok := currentSpan(th)
		if !ok {
			return vm.Nil, nil
		}
		return vm.Str(t), nil
	})
	lib.Def("trace_spans", "trace_spans()", "the finished spans, in the order they ended", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		st := tracesOf(th.VM())
		st.mu.Lock()
		defer st.mu.Unlock()
		return vm.Of(lib.List(lib.CopyItems(st.finished))), nil
	})
	lib.Def("trace_summary", "trace_summary()", "{spans, open, total_ms, names}: counts of the recorded spans", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		st := tracesOf(th.VM())
		st.mu.Lock()
		defer st.mu.Unlock()
		var total int64
		names := vm.NewDict()
		for _, s := range st.finished {
			d := s.Dict()
			if ms, ok := d.Get("duration_ms"); ok {
				if n, ok := ms.AsInt(); ok {
					total += int64(n)
				}
			}
			nm, _ := d.Get("name")
			c, _ := names.Get(vm.ToDisplay(nm))
			n, _ := c.AsInt()
			names = names.Set(vm.ToDisplay(nm), vm.IntOf(int64(n)+1))
		}
		return vm.Of(lib.DictOf("spans", lib.IntOf(len(st.finished)), "open", lib.IntOf(len(st.open)), "total_ms", vm.IntOf(total), "names", names)), nil
	})
}

// RecordEvent records a finished zero-length span named name, with
// attributes, inside the innermost open span (a trace of its own when
// none is open), for builtins that mark a moment rather than time a
// stretch (prompt_mark_rendered). It returns the span, or nil when
// tracing is off.
func RecordEvent(th *vm.Thread, name string, attrs *vm.Dict) vm.Value {
	st := tracesOf(th.VM())
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.disabled {
		return vm.Nil
	}
	traceID, parent := st.enclosing()
	now := vm.IntOf(htime.VMNow(th).UnixMilli())
	span := vm.Of(lib.DictOf("trace_id", traceID, "span_id", vm.Str(randomHex(8)), "parent_id", parent,
		"name", vm.Str(name), "attributes", attrs, "start_ms", now, "end_ms", now, "duration_ms", vm.IntOf(0)))
	st.finished = append(st.finished, span)
	return span
}

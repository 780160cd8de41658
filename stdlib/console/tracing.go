package console

import (
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/harnlang/harn/stdlib/concurrency"
	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// Tracing (docs/spec/builtins.md §5, runtime context/tracing): spans opened with
// trace_start and closed with trace_end. Each task nests its own spans (a
// generator's body nests in its consumer's); a task's first span is a
// child of the span open where the task was spawned. While a span is
// open, log_* lines carry its trace_id and span_id (docs/spec/builtins.md §4.9).
// Tracing is on by default; enable_tracing(false) makes trace_start a
// no-op returning nil.

type traceState struct {
	mu       sync.Mutex
	disabled bool
	open     map[any][]*vm.Dict // per task (spanOwner), innermost last
	finished []vm.Value
}

type traceKey struct{}

func tracesOf(v *vm.VM) *traceState {
	return v.Local(traceKey{}, func() any { return &traceState{open: map[any][]*vm.Dict{}} }).(*traceState)
}

// spawnSpan is the InheritOnSpawn slot of the span open where a task was
// spawned.
var spawnSpan int

func init() { spawnSpan = concurrency.InheritOnSpawn(spawnerSpan) }

// spawnerSpan is the span a task spawned by spawner opens its spans in.
func spawnerSpan(spawner *vm.Thread) any {
	st, ok := spawner.VM().Local(traceKey{}, nil).(*traceState)
	if !ok {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if span := st.innermost(spawner); span != nil {
		return span
	}
	return nil // a nil *vm.Dict must not become a non-nil any
}

// spanOwner is the key of the span stack th's spans go on: its task, or
// the thread the code runs on at the root (the main thread, a host's).
func spanOwner(th *vm.Thread) any {
	if t := concurrency.TaskOf(th); t != nil {
		return t
	}
	for th.Lender() != nil {
		th = th.Lender()
	}
	return th
}

// innermost is the span th's next span opens inside: the innermost span
// of its task's own, or else the one open where the task was spawned;
// nil for none. st.mu is held.
func (st *traceState) innermost(th *vm.Thread) *vm.Dict {
	if open := st.open[spanOwner(th)]; len(open) > 0 {
		return open[len(open)-1]
	}
	if span, ok := concurrency.Inherited(th, spawnSpan).(*vm.Dict); ok {
		return span
	}
	return nil
}

// find locates the open span with id: on th's own stack first, else on
// another task's (a span handed to the task that ends it). at is -1 when
// no stack has it. st.mu is held.
func (st *traceState) find(th *vm.Thread, id vm.Value) (owner any, at int) {
	indexIn := func(open []*vm.Dict) int {
		for i := len(open) - 1; i >= 0; i-- {
			if sid, _ := open[i].Get("span_id"); id.IsValid() && vm.Equal(sid, id) {
				return i
			}
		}
		return -1
	}
	owner = spanOwner(th)
	if at = indexIn(st.open[owner]); at >= 0 {
		return owner, at
	}
	for o, open := range st.open {
		if at = indexIn(open); at >= 0 {
			return o, at
		}
	}
	return owner, -1
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// enclosing is the trace id and parent span id of a span th opens now:
// the innermost span's (innermost), or a new trace and nil. st.mu is held.
func (st *traceState) enclosing(th *vm.Thread) (traceID, parent vm.Value) {
	if span := st.innermost(th); span != nil {
		traceID, _ = span.Get("trace_id")
		parent, _ = span.Get("span_id")
		return traceID, parent
	}
	return vm.Str(randomHex(16)), vm.Nil
}

// currentSpan returns the trace and span ids of th's innermost span.
func currentSpan(th *vm.Thread) (traceID, spanID string, ok bool) {
	st := tracesOf(th.VM())
	st.mu.Lock()
	defer st.mu.Unlock()
	top := st.innermost(th)
	if top == nil {
		return "", "", false
	}
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
	lib.Def("trace_start", "trace_start(name, attributes?)", "open a span {trace_id, span_id, parent_id, name, attributes, start_ms} (attributes: a dict, or nil for none) inside the task's innermost open one (a task's first: inside the span open where it was spawned); nil when tracing is off", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("trace_start: name must be a string, got %s", a.At(0).Type())
		}
		attrs, ok := a.Dict(1)
		if !ok {
			if a.Given(1) && !a.At(1).IsNil() {
				return vm.Value{}, vm.Typef("trace_start: attributes must be a dict, got %s", a.At(1).Type())
			}
			attrs = vm.NewDict()
		}
		st := tracesOf(th.VM())
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.disabled {
			return vm.Nil, nil
		}
		traceID, parent := st.enclosing(th)
		span := lib.DictOf("trace_id", traceID, "span_id", vm.Str(randomHex(8)), "parent_id", parent,
			"name", vm.Str(name), "attributes", attrs, "start_ms", vm.IntOf(htime.VMNow(th).UnixMilli()))
		owner := spanOwner(th)
		st.open[owner] = append(st.open[owner], span)
		return vm.Of(span), nil
	})
	lib.Def("trace_end", "trace_end(span, attributes?)", "close span (and any spans opened inside it); the finished span with end_ms and duration_ms, and attributes (a dict) merged into its own", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		span, ok := a.Dict(0)
		if !ok {
			if a.At(0).IsNil() {
				return vm.Nil, nil // trace_start returned nil: tracing is off
			}
			return vm.Value{}, vm.Typef("trace_end: expected a span, got %s", a.At(0).Type())
		}
		extra, ok := a.Dict(1)
		if !ok && a.Given(1) && !a.At(1).IsNil() {
			return vm.Value{}, vm.Typef("trace_end: attributes must be a dict, got %s", a.At(1).Type())
		}
		id, _ := span.Get("span_id")
		st := tracesOf(th.VM())
		st.mu.Lock()
		defer st.mu.Unlock()
		owner, at := st.find(th, id)
		open := st.open[owner]
		if at < 0 {
			return vm.Value{}, vm.Throwf("trace_end: span is not open")
		}
		end := htime.VMNow(th).UnixMilli()
		var done vm.Value
		for i := len(open) - 1; i >= at; i-- {
			s := open[i]
			start, _ := s.Get("start_ms")
			startMs, _ := start.AsInt()
			f := s.Set("end_ms", vm.IntOf(end)).Set("duration_ms", vm.IntOf(end-int64(startMs)))
			if i == at {
				if extra != nil {
					attrs, _ := f.Get("attributes")
					if ad, ok := attrs.AsDict(); ok {
						f = f.Set("attributes", vm.Of(ad.Merge(extra)))
					}
				}
				done = vm.Of(f)
			}
			st.finished = append(st.finished, vm.Of(f))
		}
		if at == 0 {
			delete(st.open, owner)
		} else {
			st.open[owner] = open[:at]
		}
		return done, nil
	})
	lib.Def("trace_id", "trace_id() -> string?", "the trace id of the task's innermost open span, or nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
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
		open := 0
		for _, spans := range st.open {
			open += len(spans)
		}
		return vm.Of(lib.DictOf("spans", lib.IntOf(len(st.finished)), "open", lib.IntOf(open), "total_ms", vm.IntOf(total), "names", names)), nil
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
	traceID, parent := st.enclosing(th)
	now := vm.IntOf(htime.VMNow(th).UnixMilli())
	span := vm.Of(lib.DictOf("trace_id", traceID, "span_id", vm.Str(randomHex(8)), "parent_id", parent,
		"name", vm.Str(name), "attributes", attrs, "start_ms", now, "end_ms", now, "duration_ms", vm.IntOf(0)))
	st.finished = append(st.finished, span)
	return span
}

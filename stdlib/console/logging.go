package console

// Structured logging, timers, circuit breakers and stderr capture
// (docs/spec/builtins.md §4.9). All of them read the VM's clock, so clock mocking
// makes their output deterministic.

import (
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

var scriptLogLevels = map[string]int{"debug": 0, "info": 1, "warn": 2, "error": 3}

type logKey struct{}

type logState struct {
	mu    sync.Mutex
	level int
}

func logStateOf(th *vm.Thread) *logState {
	return th.VM().Local(logKey{}, func() any { return &logState{level: scriptLogLevels["info"]} }).(*logState)
}

func init() {
	for _, level := range []string{"debug", "info", "warn", "error"} {
		level := level
		name := "log_" + level
		lib.Def(name, name+"(msg, fields?)", "write one JSON log line at level "+level, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			st := logStateOf(th)
			st.mu.Lock()
			min := st.level
			st.mu.Unlock()
			if scriptLogLevels[level] < min {
				return vm.Nil, nil
			}
			var sb strings.Builder
			sb.WriteString(`{"ts":`)
			json.WriteString(&sb, htime.VMNow(th).Format("2006-01-02T15:04:05.000Z"))
			sb.WriteString(`,"level":`)
			json.WriteString(&sb, level)
			sb.WriteString(`,"msg":`)
			json.WriteString(&sb, a.Text(0))
			if traceID, spanID, ok := currentSpan(th); ok {
				sb.WriteString(`,"trace_id":`)
				json.WriteString(&sb, traceID)
				sb.WriteString(`,"span_id":`)
				json.WriteString(&sb, spanID)
			}
			if fields, ok := a.Dict(1); ok {
				fields.Range(func(k string, v vm.Value) bool {
					sb.WriteByte(',')
					json.WriteString(&sb, k)
					sb.WriteByte(':')
					sb.WriteString(logFieldJSON(v))
					return true
				})
			}
			sb.WriteString("}\n")
			io.WriteString(th.VM().Stdout, sb.String())
			return vm.Nil, nil
		})
	}
	lib.Def("log_set_level", "log_set_level(level)", "drop log_* lines below level (debug, info, warn, error)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name := a.Text(0)
		lv, ok := scriptLogLevels[name]
		if !ok {
			return vm.Value{}, vm.Throwf("log_set_level: invalid level '%s'. Expected debug, info, warn, or error", name)
		}
		st := logStateOf(th)
		st.mu.Lock()
		st.level = lv
		st.mu.Unlock()
		return vm.Nil, nil
	})
	lib.Def("log_json", "log_json(key, value)", "write {ts, key, value} as one JSON line", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var sb strings.Builder
		sb.WriteString(`{"ts":`)
		json.WriteString(&sb, htime.VMNow(th).Format("2006-01-02T15:04:05.000Z"))
		sb.WriteString(`,"key":`)
		json.WriteString(&sb, a.Text(0))
		sb.WriteString(`,"value":`)
		sb.WriteString(json.Stringify(a.At(1)))
		sb.WriteString("}\n")
		io.WriteString(th.VM().Stdout, sb.String())
		return vm.Nil, nil
	})
	lib.Def("timer_start", "timer_start(name = \"default\") -> dict", "start a named timer → {name, start_ms}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name := "default"
		if a.Given(0) {
			name = a.Text(0)
		}
		return vm.Of(lib.DictOf("name", vm.Str(name), "start_ms", vm.IntOf(htime.VMNow(th).UnixMilli()))), nil
	})
	lib.Def("timer_end", "timer_end(t) -> int", "write `[timer] NAME: Nms` and return N", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name, start := "default", htime.VMNow(th).UnixMilli()
		if d, ok := a.Dict(0); ok {
			if n, ok := d.Get("name"); ok {
				name = vm.ToDisplay(n)
			}
			if s, ok := d.Get("start_ms"); ok {
				if f, ok := lib.ToFloat(s); ok {
					start = int64(f)
				}
			}
		}
		elapsed := htime.VMNow(th).UnixMilli() - start
		io.WriteString(th.VM().Stdout, "[timer] "+name+": "+strconv.FormatInt(elapsed, 10)+"ms\n")
		return vm.IntOf(elapsed), nil
	})

	lib.Def("circuit_breaker", "circuit_breaker(name, threshold = 5, reset_ms = 30000) -> string", "create or reconfigure a circuit breaker; threshold is an int, reset_ms an int of milliseconds or a duration", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		threshold, resetMs := int64(5), int64(30000)
		if v := a.At(1); a.Given(1) && !v.IsNil() {
			n, ok := v.AsInt()
			if !ok {
				return vm.Value{}, vm.Typef("circuit_breaker: threshold must be an int, got %s", v.Type())
			}
			threshold = int64(n)
		}
		if v := a.At(2); a.Given(2) && !v.IsNil() {
			if d, ok := v.AsDuration(); ok {
				resetMs = int64(d)
			} else if n, ok := v.AsInt(); ok {
				resetMs = int64(n)
			} else {
				return vm.Value{}, vm.Typef("circuit_breaker: reset_ms must be an int (milliseconds) or a duration, got %s", v.Type())
			}
		}
		cs := circuitsOf(th)
		cs.mu.Lock()
		defer cs.mu.Unlock()
		c := cs.get(a.Text(0))
		c.threshold = int(threshold)
		c.resetMs = resetMs
		return vm.Str(a.Text(0)), nil
	})
	lib.Def("circuit_check", "circuit_check(name) -> string", "\"closed\", \"open\" or \"half_open\"", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		cs := circuitsOf(th)
		cs.mu.Lock()
		defer cs.mu.Unlock()
		c, ok := cs.m[a.Text(0)]
		if !ok {
			return vm.Str("closed"), nil
		}
		return vm.Str(c.state(htime.VMNow(th).UnixMilli())), nil
	})
	lib.Def("circuit_record_failure", "circuit_record_failure(name) -> bool", "count a failure; true when it opens the circuit", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		cs := circuitsOf(th)
		cs.mu.Lock()
		defer cs.mu.Unlock()
		c := cs.get(a.Text(0))
		now := htime.VMNow(th).UnixMilli()
		switch c.state(now) {
		case "open":
			return vm.False, nil
		case "half_open":
			c.openedAt = now
			return vm.True, nil
		}
		c.failures++
		if c.failures >= c.threshold {
			c.open = true
			c.openedAt = now
			return vm.True, nil
		}
		return vm.False, nil
	})
	// A success closes the circuit just as a reset does.
	closeCircuit := func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		cs := circuitsOf(th)
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if c, ok := cs.m[a.Text(0)]; ok {
			c.failures, c.open = 0, false
		}
		return vm.Nil, nil
	}
	lib.Def("circuit_record_success", "circuit_record_success(name)", "count a success (closes the circuit)", closeCircuit)
	lib.Def("circuit_reset", "circuit_reset(name)", "close the circuit and forget failures", closeCircuit)

	lib.Def("capture_stderr_start", "capture_stderr_start()", "capture stderr output instead of writing it", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m := th.VM()
		if _, ok := m.Stderr.(*stderrCapture); !ok {
			m.Stderr = &stderrCapture{orig: m.Stderr}
		}
		return vm.Nil, nil
	})
	lib.Def("capture_stderr_take", "capture_stderr_take()", "the captured stderr text; capturing stops", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m := th.VM()
		c, ok := m.Stderr.(*stderrCapture)
		if !ok {
			return vm.Str(""), nil
		}
		m.Stderr = c.orig
		c.mu.Lock()
		defer c.mu.Unlock()
		return vm.Str(c.buf.String()), nil
	})
}

// logFieldJSON renders a log field: JSON scalars as JSON (non-finite
// floats null), every other kind as its quoted display string.
func logFieldJSON(v vm.Value) string {
	switch x := v.Object().(type) {
	case vm.Bool, vm.Int, vm.String:
		return json.Stringify(v)
	case vm.Float:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return "null"
		}
		return json.Stringify(v)
	}
	if v.IsNil() {
		return "null"
	}
	var sb strings.Builder
	json.WriteString(&sb, vm.ToDisplay(v))
	return sb.String()
}

type circuitKey struct{}

type circuit struct {
	threshold int
	resetMs   int64
	failures  int
	open      bool
	openedAt  int64
}

func (c *circuit) state(now int64) string {
	if !c.open {
		return "closed"
	}
	if now-c.openedAt >= c.resetMs {
		return "half_open"
	}
	return "open"
}

type circuits struct {
	mu sync.Mutex
	m  map[string]*circuit
}

func (cs *circuits) get(name string) *circuit {
	c, ok := cs.m[name]
	if !ok {
		c = &circuit{threshold: 5, resetMs: 30000}
		cs.m[name] = c
	}
	return c
}

func circuitsOf(th *vm.Thread) *circuits {
	return th.VM().Local(circuitKey{}, func() any { return &circuits{m: map[string]*circuit{}} }).(*circuits)
}

type stderrCapture struct {
	mu   sync.Mutex
	orig io.Writer
	buf  strings.Builder
}

func (c *stderrCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

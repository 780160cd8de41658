package stdlib_test

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// While a span is open, log lines carry its trace_id and span_id right
// after msg (docs/spec/builtins.md §4.9); outside spans they carry none.
func TestLogLinesCarryTraceIDs(t *testing.T) {
	e := newT2(t)
	e.show(t, "mock_time", iv(1705314600000))
	span, err := e.call(t, "trace_start", sv("req"))
	if err != nil {
		t.Fatal(err)
	}
	d := span.Object().(*vm.Dict)
	traceID, _ := d.Get("trace_id")
	spanID, _ := d.Get("span_id")
	e.show(t, "log_info", sv("inside"))
	e.show(t, "trace_end", span)
	e.show(t, "log_info", sv("outside"))
	want := `{"ts":"2024-01-15T10:30:00.000Z","level":"info","msg":"inside","trace_id":"` + vm.ToDisplay(traceID) +
		`","span_id":"` + vm.ToDisplay(spanID) + `"}` + "\n" +
		`{"ts":"2024-01-15T10:30:00.000Z","level":"info","msg":"outside"}` + "\n"
	if got := e.out.String(); got != want {
		t.Errorf("log output:\n%s\nwant:\n%s", got, want)
	}
}

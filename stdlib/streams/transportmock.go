package streams

import (
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The transport mock record: what scripts did against sse_mock and
// websocket_mock connections, in order, for transport_mock_calls.
// HTTP streams go through http_mock and are recorded by it.

type transportLogKey struct{}

type transportLog struct {
	mu    sync.Mutex
	calls []vm.Value
}

func transportLogOf(th *vm.Thread) *transportLog {
	return th.VM().Local(transportLogKey{}, func() any { return &transportLog{} }).(*transportLog)
}

// recordMockCall appends {transport, op, url, ...extra}; extra is
// alternating keys and values, as lib.DictOf takes them.
func recordMockCall(th *vm.Thread, transport, op, url string, extra ...any) {
	d := lib.DictOf(append([]any{"transport", vm.Str(transport), "op", vm.Str(op), "url", vm.Str(url)}, extra...)...)
	l := transportLogOf(th)
	l.mu.Lock()
	l.calls = append(l.calls, vm.Of(d))
	l.mu.Unlock()
}

func (t *mockTable[T]) clear() {
	t.mu.Lock()
	t.mocks = nil
	t.mu.Unlock()
}

func init() {
	def("transport_mock_calls", "transport_mock_calls()",
		"what the script did against sse_mock and websocket_mock connections, in order: [{transport, op, url, pattern, ...}]",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			l := transportLogOf(th)
			l.mu.Lock()
			defer l.mu.Unlock()
			return vm.Of(lib.List(append([]vm.Value(nil), l.calls...))), nil
		})
	def("transport_mock_clear", "transport_mock_clear()",
		"remove every sse_mock and websocket_mock and the recorded calls",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			sseMocksOf(th).clear()
			wsMocksOf(th).clear()
			l := transportLogOf(th)
			l.mu.Lock()
			l.calls = nil
			l.mu.Unlock()
			return vm.Nil, nil
		})
}

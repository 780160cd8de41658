package concurrency

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// test_sync and test_async (docs/spec/builtins.md §5 names them only; the
// behaviour is this implementation's, docs/concurrency.md): a builtin
// that answers at once and one that first lets the other runnable tasks
// run, as a builtin waiting for I/O does. Both return their first
// argument, so a test can run the same code over both kinds of call.

func init() {
	lib.Def("test_sync", "test_sync(value?)", "value (nil when absent), at once: a builtin that never waits", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return a.At(0), nil
	})
	lib.Def("test_async", "test_async(value?)", "value (nil when absent), after letting the other runnable tasks run: a builtin that waits", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		th.Unlock()
		th.Lock()
		return a.At(0), nil
	})
}

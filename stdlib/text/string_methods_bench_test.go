package text

import (
	"testing"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func stringMethod(tb testing.TB, name string) vm.MethodFunc {
	_, methods, _ := lib.Table()
	for _, m := range methods {
		if m.Recv == "string" && m.Name == name {
			return m.Fn
		}
	}
	tb.Fatalf("no string method %s", name)
	return nil
}

// BenchmarkStringMethod calls s.contains(x), the shape of the common
// short string methods: the receiver is read once per call.
func BenchmarkStringMethod(b *testing.B) {
	fn := stringMethod(b, "contains")
	recv, args := vm.Str("the quick brown fox"), vm.Args{vm.Str("brown")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fn(nil, recv, args); err != nil {
			b.Fatal(err)
		}
	}
}

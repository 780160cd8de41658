package vm_test

import (
	"io"
	"testing"
	"time"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// callLoops are the call paths of the run loop, each exercised 100,000
// times per run: an impl method without arguments (LOCAL_CALL_METHOD) and
// with one (CALL_METHOD), a field read, a call of a global function, a
// universe (native) method, a while loop of fused instructions
// (LOCAL_BINOP_JUMP with two slots, LOCAL_BINOP_STORE), a builtin of a
// local called by name (NAME_CALL_LOCAL and the site's builtin cache),
// `"item" + to_string(i)` (NAME_CALL_LOCAL writing into the sum) and `k
// in d` followed by `d[k]` on an owned dict, and a closure called per
// item by .map and .filter (Callback1), by reduce (two arguments) and
// by lazy iterator stages.
var callLoops = []struct{ name, src string }{
	{"method", `struct R { w: int, h: int }
impl R {
  fn area(self) { return self.w * self.h }
}
fn run() {
  let r = R { w: 3, h: 4 }
  var t = 0
  for i in 0 to 100000 exclusive { t = t + r.area() }
}
run()`},
	{"method-arg", `struct R { w: int, h: int }
impl R {
  fn scaled(self, k) { return self.w * k }
}
fn run() {
  let r = R { w: 3, h: 4 }
  var t = 0
  for i in 0 to 100000 exclusive { t = t + r.scaled(i) }
}
run()`},
	{"field", `struct R { w: int, h: int }
fn run() {
  let r = R { w: 3, h: 4 }
  var t = 0
  for i in 0 to 100000 exclusive { t = t + r.h }
}
run()`},
	{"function", `fn add(a, b) { return a + b }
fn run() {
  var t = 0
  for i in 0 to 100000 exclusive { t = add(t, i) }
}
run()`},
	{"native", `fn run() {
  let xs = [1, 2, 3]
  var t = 0
  for i in 0 to 100000 exclusive { t = t + xs.sum() }
}
run()`},
	{"while", `fn run() {
  let n = 100000
  var i = 0
  var t = 0
  while i < n { t = t + i
    i = i + 1 }
}
run()`},
	{"builtin", `fn run() {
  let xs = [1, 2, 3]
  var t = 0
  for i in 0 to 100000 exclusive { t = t + len(xs) }
}
run()`},
	{"to_string", `fn run() {
  var t = 0
  for i in 0 to 100000 exclusive {
    let k = "item" + to_string(i)
    t = t + len(k)
  }
}
run()`},
	{"dict-in-get", `fn run() {
  var d = {}
  for i in 0 to 1000 exclusive { d["k" + to_string(i)] = i }
  let ks = d.keys()
  var t = 0
  for i in 0 to 100000 exclusive {
    let k = ks[i % 1000]
    if k in d { t = t + d[k] }
  }
}
run()`},
	{"map", `fn run() {
  var xs = []
  for i in 0 to 1000 exclusive { xs = xs.push(i) }
  var t = 0
  for i in 0 to 100 exclusive { t = t + len(xs.map({ x -> x * 2 })) }
}
run()`},
	{"filter", `fn run() {
  var xs = []
  for i in 0 to 1000 exclusive { xs = xs.push(i) }
  var t = 0
  for i in 0 to 100 exclusive { t = t + len(xs.filter({ x -> x % 3 == 0 })) }
}
run()`},
	{"reduce", `fn run() {
  var xs = []
  for i in 0 to 1000 exclusive { xs = xs.push(i) }
  var t = 0
  for i in 0 to 100 exclusive { t = t + xs.reduce(0, { acc, x -> acc + x }) }
}
run()`},
	{"iter-reduce", `fn run() {
  var xs = []
  for i in 0 to 1000 exclusive { xs = xs.push(i) }
  var t = 0
  for i in 0 to 100 exclusive { t = t + iter(xs).reduce(0, { acc, x -> acc + x }) }
}
run()`},
	{"iter-map-filter", `fn run() {
  var xs = []
  for i in 0 to 1000 exclusive { xs = xs.push(i) }
  var t = 0
  for i in 0 to 100 exclusive { t = t + len(iter(xs).map({ x -> x * 2 }).filter({ x -> x % 3 == 0 }).to_list()) }
}
run()`},
}

// BenchmarkCall runs each of callLoops, compiled once, and reports the
// CPU time per run (cpu-ns/op) next to wall time.
//
//	go test ./vm -run '^$' -bench Call -count 5
func BenchmarkCall(b *testing.B) {
	for _, c := range callLoops {
		b.Run(c.name, func(b *testing.B) {
			f, err := syntax.Parse("bench.harn", []byte(c.src))
			if err != nil {
				b.Fatal(err)
			}
			u := stdlib.NewUniverse(stdlib.Config{})
			info := resolve.File(f, resolve.Options{Universe: u})
			prog, err := compiler.Compile(f, info)
			if err != nil {
				b.Fatal(err)
			}
			machine := vm.New(u)
			machine.Stdout = io.Discard
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := cpuTime()
				if _, err := machine.NewThread().RunModule(machine.NewModule(prog)); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

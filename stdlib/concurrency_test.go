package stdlib_test

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/stdlib/concurrency"
	"github.com/harnlang/harn/vm"
)

// runHarn runs src as `harn run` does and returns its stdout.
func runHarn(tb testing.TB, src string) string {
	tb.Helper()
	var errb bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stderr: &errb})
	if r.Err != nil {
		tb.Fatalf("run failed: %v\n%s", r.Err, errb.String())
	}
	return string(r.Stdout)
}

func expectOutput(t *testing.T, src, want string) {
	t.Helper()
	if got := runHarn(t, src); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Go code on other goroutines can use a channel with its own threads.
func TestChannelFromGo(t *testing.T) {
	v := vm.New(stdlib.NewUniverse(stdlib.Config{}))
	ch := concurrency.NewChannel(v, "go", 2)
	const n = 500
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		th := v.NewThread()
		th.Lock()
		defer th.Unlock()
		for i := 0; i < n; i++ {
			if ok, err := ch.Send(th, vm.IntOf(int64(i))); !ok || err != nil {
				t.Errorf("send %d: %v %v", i, ok, err)
				return
			}
		}
		ch.Close()
	}()
	th := v.NewThread()
	th.Lock()
	sum := int64(0)
	count := 0
	for {
		x, ok, err := ch.Receive(th)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		sum += int64(x.Object().(vm.Int))
		count++
	}
	th.Unlock()
	wg.Wait()
	if count != n || sum != n*(n-1)/2 {
		t.Fatalf("received %d values summing to %d", count, sum)
	}
}

// Select over several producers neither loses nor duplicates values.
func TestSelectStress(t *testing.T) {
	expectOutput(t, `
let a = channel("a", 1)
let b = channel("b", 1)
let c = channel("c", 3)
spawn { for i in 0 to 300 exclusive { send(a, 1) } }
spawn { for i in 0 to 300 exclusive { send(b, 10) } }
spawn { for i in 0 to 300 exclusive { send(c, 100) } }
let total = 0
let timeouts = 0
for i in 0 to 900 exclusive {
  select {
    v from a { total = total + v }
    v from b { total = total + v }
    v from c { total = total + v }
    timeout 30s { timeouts = timeouts + 1 }
  }
}
println(total)
println(timeouts)
`, "33300\n0")
}

// Two tasks passing a token back and forth many times.
func TestPingPong(t *testing.T) {
	expectOutput(t, `
let ping = channel("ping", 1)
let pong = channel("pong", 1)
let h = spawn {
  for i in 0 to 2000 exclusive { send(pong, receive(ping) + 1) }
}
let x = 0
for i in 0 to 2000 exclusive {
  send(ping, x)
  x = receive(pong)
}
await(h)
println(x)
`, "2000")
}

// Busy tasks still let each other run (the VM lock is yielded).
func TestBusyTasksAreFair(t *testing.T) {
	expectOutput(t, `
let flag = false
let h = spawn {
  let n = 0
  while !flag { n = n + 1 }
  "saw flag"
}
let g = spawn {
  let n = 0
  while n < 5000 { n = n + 1 }
  flag = true
}
println(deadline 30s { await(h) })
`, "saw flag")
}

// Generators dropped half-way release their goroutines.
func TestAbandonedGeneratorsAreReleased(t *testing.T) {
	before := runtime.NumGoroutine()
	runHarn(t, `
fn nat() {
  let n = 0
  while true {
    yield n
    n = n + 1
  }
}
for i in 0 to 2000 exclusive {
  let g = nat()
  g.next()
  g.next()
}
`)
	var after int
	for i := 0; i < 50; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		after = runtime.NumGoroutine()
		if after < before+100 {
			return
		}
	}
	t.Fatalf("goroutines: %d before, %d after", before, after)
}

// A generator dropped while inside a mutex block gives the lock back
// when the garbage collector releases it (docs/concurrency.md: a mutex is
// released on every exit), as it gives back its sync permits.
func TestAbandonedGeneratorReleasesItsMutex(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.GC()
			}
		}
	}()
	expectOutput(t, `
fn holder() {
  mutex("g") {
    yield 1
    yield 2
  }
}
let g: any = holder()
println(g.next().value)
g = nil
let got = nil
for i in range(200) {
  got = try { deadline 10ms { mutex("g") { "got it" } } } catch (e) { nil }
  if got != nil { break }
}
println(got)
`, "1\ngot it")
}

// Programs using tasks run side by side in one process without sharing
// anything (the mutex is per VM).
func TestConcurrentVMs(t *testing.T) {
	src := `
let total = 0
parallel 20 { i ->
  mutex {
    let t = total
    select { v from channel("q") { } timeout 1ms { } }
    total = t + i
  }
}
println(total)
`
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := strings.TrimSpace(runHarn(t, src)); got != "190" {
				t.Errorf("got %q", got)
			}
		}()
	}
	wg.Wait()
}

// A generator whose body waits cannot be resumed by another task meanwhile.
func TestGeneratorAlreadyRunning(t *testing.T) {
	expectOutput(t, `
let gate = channel("gate")
let ready = channel("ready")
fn slow() {
  send(ready, true)
  receive(gate)
  yield 1
  yield 2
}
let g = slow()
let h = spawn { g.next() }
receive(ready)
println(try { g.next() })
send(gate, true)
println(await(h))
println(g.next())
`, "Result.Err(Runtime error: generator already running)\n{done: false, value: 1}\n{done: false, value: 2}")
}

// exit() in a task ends the whole program with its status.
func TestExitInTask(t *testing.T) {
	r := interp.RunProgram("t.harn", []byte(`
let never = channel("never")
spawn { exit(3) }
receive(never)
`), interp.Options{Stderr: &bytes.Buffer{}})
	if r.Status != 3 {
		t.Fatalf("status %d, err %v", r.Status, r.Err)
	}
}

// A spawned task started from Go (concurrency.Spawn) can be awaited from Go.
func TestSpawnFromGo(t *testing.T) {
	u := stdlib.NewUniverse(stdlib.Config{})
	v := vm.New(u)
	th := v.NewThread()
	th.Lock()
	defer th.Unlock()
	task := concurrency.Spawn(th, vm.Of(u.Builtin("len")), vm.Str("four"))
	got, err := task.Await(th)
	if err != nil || vm.ToDisplay(got) != "4" {
		t.Fatalf("got %v %v", got, err)
	}
	if !strings.HasPrefix(vm.ToDisplay(vm.Of(task)), "<task:") {
		t.Fatalf("display %s", vm.ToDisplay(vm.Of(task)))
	}
}

func TestSpawn100kTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	expectOutput(t, spawn100k, "4999950000")
}

const parallelEach10k = `let xs = range(10000).to_list()
let r = parallel each xs { x -> x + 1 }
`

const spawn100k = `let n = 100000
let ch = channel("bench", 256)
for i in 0 to n exclusive {
  spawn { send(ch, i) }
}
let total = 0
for i in 0 to n exclusive {
  total = total + receive(ch)
}
println(total)
`

// BenchmarkParallelEach10k: `parallel each` over 10,000 trivial items
// (the whole program: compile, build the list, run).
func BenchmarkParallelEach10k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		runHarn(b, parallelEach10k)
	}
}

// BenchmarkSpawn100kChannel: 100,000 tasks each sending one message.
func BenchmarkSpawn100kChannel(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		runHarn(b, spawn100k)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys>>20), "heap-MB")
}

// BenchmarkGeneratorNext: one generator value per iteration.
func BenchmarkGeneratorNext(b *testing.B) {
	src := `fn nat() {
  let n = 0
  while true {
    yield n
    n = n + 1
  }
}
let g = nat()
let s = 0
for i in 0 to 10000 exclusive { s = s + g.next().value }
`
	for i := 0; i < b.N; i++ {
		runHarn(b, src)
	}
}

// TestBracketBlocksTraceEachFrameOnce: a failure that leaves a frame
// through the bracket code of a mutex, deadline or try … finally block
// is taken and re-raised there, but the rendered stack trace names each
// frame once, at the failing line (docs/spec/language.md §12.2: location
// and call-stack lines follow the first line).
func TestBracketBlocksTraceEachFrameOnce(t *testing.T) {
	blocks := map[string][2]string{
		"mutex":    {`mutex("k") {`, `}`},
		"deadline": {`deadline 5s {`, `}`},
		"finally":  {`try {`, `} finally { println("cleanup") }`},
		"defer":    {`defer { println("cleanup") }`, ``},
		"nested":   {`mutex("k") { deadline 5s { try {`, `} finally { println("cleanup") } } }`},
	}
	for name, b := range blocks {
		src := "fn f() {\n  " + b[0] + "\n    let _x = 1 / 0\n  " + b[1] + "\n}\nf()\n"
		var errb bytes.Buffer
		r := interp.RunProgram("t.harn", []byte(src), interp.Options{Stderr: &errb})
		if r.Err == nil {
			t.Fatalf("%s: no error", name)
		}
		out := errb.String()
		if !strings.Contains(out, "error: Runtime error: Division by zero (line 3)") {
			t.Errorf("%s: first line wrong in:\n%s", name, out)
		}
		want := "  at f (t.harn:3)\n  at <top level> (t.harn:6)\n"
		if !strings.HasSuffix(out, want) || strings.Count(out, "  at ") != 2 {
			t.Errorf("%s: trace is not\n%swhole output:\n%s", name, want, out)
		}
	}
}

// TestAwaitedFailureTracesAwaiter: a task failure that crossed a finally
// lists the task's frame once, then the awaiting frames.
func TestAwaitedFailureTracesAwaiter(t *testing.T) {
	src := "fn g() {\n  try {\n    let _x = 1 / 0\n  } finally { }\n}\nfn f() {\n  let h = spawn { g() }\n  return await(h)\n}\nf()\n"
	var errb bytes.Buffer
	r := interp.RunProgram("t.harn", []byte(src), interp.Options{Stderr: &errb})
	if r.Err == nil {
		t.Fatal("no error")
	}
	out := errb.String()
	if strings.Count(out, "  at g (") != 1 || !strings.Contains(out, "  at g (t.harn:3)") || !strings.Contains(out, "  at f (t.harn:8)\n  at <top level> (t.harn:10)\n") {
		t.Errorf("trace wrong:\n%s", out)
	}
}

// Package junkargs_test is a robustness sweep of the whole builtin table:
// every registered builtin and method is called, through a real
// interpreter session, with a matrix of junk arguments (nothing, nil,
// zero, huge and negative numbers, NaN, empty and long strings, empty and
// nil-holding collections, closures, a closure that throws, a 50-deep
// list, sets, structs, enums, bytes, durations, and combinations of one to
// three of them). A call may fail, but only with an ordinary Harn error:
// never a Go panic, never the "internal error" of a recovered panic
// (vm.recoverNative), never Go's own wording, and never a run that does
// not end.
//
// The sweep runs in a sandbox set up once by TestMain: the working
// directory, HOME, TMPDIR and HARN_STATE_DIR are temporary directories, no
// API key or database URL is in the environment, PATH is empty (nothing
// can be spawned by name) and every HTTP client goes through a proxy
// address that refuses connections, so no call reaches the network.
package junkargs_test

import (
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// sandboxRoot is the temporary directory TestMain runs everything in;
// pkgDir is this package's directory (the working directory go test
// started in).
var sandboxRoot, pkgDir string

// pkgDirEnv passes pkgDir on to fuzzing workers.
const pkgDirEnv = "HARN_JUNKARGS_PKG_DIR"

func TestMain(m *testing.M) {
	code := func() int {
		root, err := os.MkdirTemp("", "harn-junkargs-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(root)
		sandboxRoot = root
		// Fuzzing workers start in the coordinator's sandbox: they learn
		// the package directory from the environment it leaves them.
		if pkgDir = os.Getenv(pkgDirEnv); pkgDir == "" {
			if pkgDir, err = os.Getwd(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		for _, d := range []string{"cwd", "home", "state", "tmp", "bin"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		if err := os.Chdir(filepath.Join(root, "cwd")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		// The fuzzing engine reads and writes testdata/fuzz relative to
		// the working directory: reach the package's own.
		flag.Parse()
		testdata := filepath.Join(pkgDir, "testdata")
		if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
			os.MkdirAll(filepath.Join(testdata, "fuzz"), 0o755)
		}
		if _, err := os.Stat(testdata); err == nil {
			if err := os.Symlink(testdata, "testdata"); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		sandboxEnv(root)
		os.Setenv(pkgDirEnv, pkgDir)
		// A junk size may pass the ceiling's check and still be built:
		// keep what a call may take well below what the machine has.
		vm.SetMaxMemory(1 << 30)
		return m.Run()
	}()
	os.Exit(code)
}

// sandboxEnv leaves only a harmless environment: no credentials, no
// database, no way to reach the network or to start a program by name.
func sandboxEnv(root string) {
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "GOCOVERDIR", name == "GOFLAGS", name == "GORACE", name == "GOTRACEBACK":
			continue
		case strings.HasPrefix(name, "GO"):
			continue
		}
		os.Unsetenv(name)
	}
	refuse := "http://127.0.0.1:1"
	for k, v := range map[string]string{
		"HOME":                root + "/home",
		"TMPDIR":              root + "/tmp",
		"HARN_STATE_DIR":      root + "/state",
		"PATH":                root + "/bin",
		"SHELL":               root + "/bin/no-shell",
		"HARN_DEFAULT_SHELL":  root + "/bin/no-shell",
		"HTTP_PROXY":          refuse,
		"HTTPS_PROXY":         refuse,
		"http_proxy":          refuse,
		"https_proxy":         refuse,
		"NO_PROXY":            "",
		"ANTHROPIC_BASE_URL":  refuse,
		"OPENAI_BASE_URL":     refuse,
		"OPENROUTER_BASE_URL": refuse,
		"OLLAMA_BASE_URL":     refuse,
		"NO_COLOR":            "1",
		"TERM":                "dumb",
	} {
		os.Setenv(k, v)
	}
}

// junk is the argument matrix: each entry is a Harn expression that makes
// a fresh value each time it is evaluated (the prelude below defines the
// helpers it uses).
var junk = []struct{ name, expr string }{
	{"nil", "nil"},
	{"zero", "0"},
	{"minus_one", "-1"},
	{"huge_int", "9223372036854775807"},
	{"min_int", "(-9223372036854775807 - 1)"},
	{"nan", "(0.0 / 0.0)"},
	{"inf", "(1.0 / 0.0)"},
	{"float", "2.5"},
	{"true", "true"},
	{"empty_string", `""`},
	{"long_string", "__long"},
	{"word", `"x"`},
	{"url", `"http://junk.invalid/a?b=1"`},
	{"empty_list", "[]"},
	{"nil_list", "[nil]"},
	{"ints", "[3, -1, 2]"},
	{"empty_dict", "{}"},
	{"nil_dict", "{a: nil}"},
	{"tool_dict", `{name: "x", description: "d", type: "string", parameters: {}, handler: { a -> a }}`},
	{"closure", "{ x -> x }"},
	{"thrower", "__thrower"},
	{"deep_list", "__deep"},
	{"set", "set(1, 2)"},
	{"struct", "JunkS {a: 1}"},
	{"enum", "JunkE.B(1)"},
	{"result", "Result.Err(nil)"},
	{"bytes", `bytes_from_string("ab")`},
	{"duration", "5ms"},
	{"neg_duration", "(0ms - 5ms)"},
	{"builtin", "len"},
	{"channel", "channel()"},
	{"iter", "iter([1, 2])"},
	{"range", "(1 to 3)"},
	{"generator", "__gen()"},
	{"stream", "__stream()"},
	{"pair", "pair(1, 2)"},
	{"decimal", `decimal("1.5")`},
	{"atomic", "atomic(0)"},
	{"rng", "rng_seed(1)"},
	{"tool_registry", `tool_define(tool_registry(), "t", "T", {handler: { args -> args }})`},
	{"skill_registry", "skill_registry()"},
	{"http_server", "http_server()"},
	{"pg_pool", "pg_mock_pool([])"},
	{"shared_map", "shared_map()"},
}

// prelude defines what the junk expressions use. Each junk value is made
// by a factory in __F, so that calls see values typed `any` (the static
// checker has nothing to refuse) and stateful ones (channels, iterators)
// fresh.
func prelude() string {
	var b strings.Builder
	b.WriteString(`struct JunkS { a }
enum JunkE { A, B(x) }
fn __thrower(a, b, c) { throw "junk thrown" }
fn __mkdeep(n) {
  var v = [1]
  for i in 0 to n exclusive { v = [v] }
  return v
}
fn __gen() { yield 1
  yield 2 }
gen fn __stream() { emit 1 }
let __long = "ab".repeat(40000)
let __deep = __mkdeep(50)
`)
	b.WriteString("let __F = [\n")
	for _, j := range junk {
		fmt.Fprintf(&b, "  { -> %s },\n", j.expr)
	}
	b.WriteString("]\n")
	for _, r := range receiverKinds() {
		fmt.Fprintf(&b, "let __R_%s = [", r)
		for i, e := range receivers[r] {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{ -> %s }", e)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// receivers are the values a method of each receiver kind is called on.
var receivers = map[string][]string{
	"string":         {`"abc"`, `""`, "__long"},
	"list":           {`[1, "a", nil]`, "[]", "__deep"},
	"dict":           {`{a: 1, b: "x"}`, "{}"},
	"set":            {"set(1, 2)", "set()"},
	"range":          {"(1 to 5)", "(0 to 0 exclusive)"},
	"iter":           {"iter([1, 2, 3])", "iter([])"},
	"generator":      {"__gen()"},
	"stream":         {"__stream()"},
	"channel":        {"channel()"},
	"Harness":        {"harness"},
	"HarnessClock":   {"harness.clock"},
	"HarnessEnv":     {"harness.env"},
	"HarnessFs":      {"harness.fs"},
	"HarnessLlm":     {"harness.llm"},
	"HarnessNet":     {"harness.net"},
	"HarnessProcess": {"harness.process"},
	"HarnessRandom":  {"harness.random"},
	"HarnessStdio":   {"harness.stdio"},
	"HarnessSystem":  {"harness.system"},
	"HarnessTerm":    {"harness.term"},
	"HarnessTools":   {"harness.tools"},
}

func receiverKinds() []string {
	var out []string
	for k := range receivers {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// skipped are the builtins and methods the sweep does not call, with the
// reason: they would leave the sandbox by design.
var skipped = map[string]string{
	"exec":                    "starts a process",
	"exec_at":                 "starts a process",
	"shell":                   "starts a process",
	"shell_at":                "starts a process",
	"HarnessProcess.*":        "starts a process",
	"HarnessProcess.exec":     "starts a process",
	"HarnessProcess.exec_at":  "starts a process",
	"HarnessProcess.shell":    "starts a process",
	"HarnessProcess.shell_at": "starts a process",
}

// mayBlock are the builtins and methods that wait as long as they are
// told to: with a huge duration they run until interrupted.
var mayBlock = map[string]string{
	"sleep":                   "sleeps as long as asked",
	"sleep_ms":                "sleeps as long as asked",
	"HarnessClock.sleep_ms":   "sleeps as long as asked",
	"select":                  "waits as long as its timeout asks",
	"channel_select":          "waits as long as its timeout asks",
	"__select":                "waits as long as its timeout asks",
	"monitor_wait_for_native": "polls until its condition holds or its timeout passes",
	"waitpoint_wait":          "waits as long as its timeout asks",
}

// target is one builtin or method and the call expression that reaches
// it, with %s where the arguments go.
type target struct {
	name string // "NAME" or "Recv.NAME"
	call []string
}

func targets(t testing.TB) []target {
	var out []target
	for _, b := range stdlib.Builtins() {
		out = append(out, target{name: b.Name(), call: []string{b.Name() + "(%s)"}})
	}
	for _, m := range stdlib.Methods() {
		rs, ok := receivers[m.Recv]
		if !ok {
			t.Errorf("method %s.%s: the sweep has no receiver of kind %s; add one to receivers", m.Recv, m.Name, m.Recv)
			continue
		}
		name := m.Name
		if name == "*" {
			name = "junk_no_such_method"
		}
		var calls []string
		for i := range rs {
			calls = append(calls, fmt.Sprintf("__R_%s[%d]().%s(%%s)", m.Recv, i, name))
		}
		out = append(out, target{name: m.Recv + "." + m.Name, call: calls})
	}
	return append(out, memberTargets(t)...)
}

// argLists returns the junk argument combinations a target is called
// with: none, each junk value alone, and a deterministic sample of pairs
// and triples that differs from one target to the next.
func argLists(name string) [][]int {
	n := len(junk)
	h := fnv.New32a()
	h.Write([]byte(name))
	seed := int(h.Sum32() % uint32(n))
	out := [][]int{{}}
	for i := 0; i < n; i++ {
		out = append(out, []int{i})
	}
	// Under the race detector a quarter of the pairs and triples.
	step := 1
	if raceEnabled {
		step = 4
	}
	for i := seed % step; i < n; i += step {
		out = append(out, []int{i, (i*7 + seed + 1) % n})
		out = append(out, []int{(i*3 + seed) % n, i})
	}
	for i := seed % step; i < n; i += step {
		out = append(out, []int{i, (i*5 + seed + 2) % n, (i*11 + seed + 3) % n})
	}
	return out
}

func argText(args []int) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = fmt.Sprintf("__F[%d]()", a)
	}
	return strings.Join(parts, ", ")
}

func argNames(args []int) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = junk[a].name
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// A call runs first in the target's long-lived session, with a short
// budget. That session cannot tell a deadlock from a wait (the threads of
// earlier entries look as if they might come back), so a call that is
// still running when its budget ends is run again alone, as `harn run`
// runs a program, where waits nothing can end fail as deadlocks; only if
// it is still running after confirmBudget is it a hang. grace is how long
// an interrupted call has to stop. The race detector slows the slowest
// legitimate calls (self_review and command_risk_scan on the 80 KB
// string, about 0.15 s plain) to 4 s on an idle machine, so its budget
// is three times longer: a hang never ends, so it is caught either way.
const (
	budget        = 300 * time.Millisecond
	confirmBudget = 10 * time.Second * raceSlowdown
	grace         = 5 * time.Second
)

// sweeper runs calls in one interpreter session.
type sweeper struct {
	in *interp.Interactive
}

func newSweeper(t testing.TB) *sweeper {
	s := interp.NewSession(interp.Options{Stdout: io.Discard, Stderr: io.Discard, Stdin: strings.NewReader("")})
	in := s.NewInteractive(sandboxRoot)
	if err := in.Eval(preludeText); err != nil {
		t.Fatalf("prelude: %v", err)
	}
	return &sweeper{in: in}
}

var preludeText = prelude()

// outcome of one call.
type outcome struct {
	err      error
	panicked any
	stack    []byte
	hung     bool // did not stop within grace after the interrupt
	timedOut bool // needed the interrupt
}

func (sw *sweeper) run(src string) outcome {
	return runBounded(budget, func() { sw.in.Interrupt() }, func() error { return sw.in.Eval(src) })
}

// runAlone runs the call as a program of its own, as `harn run` does
// (deadlocks are detected).
func runAlone(src string, limit time.Duration) outcome {
	var mu sync.Mutex
	var v *vm.VM
	interrupt := func() {
		mu.Lock()
		defer mu.Unlock()
		if v != nil {
			v.Interrupt()
		}
	}
	return runBounded(limit, interrupt, func() error {
		res := interp.RunProgram("junk.harn", []byte(preludeText+"\n"+src+"\n"), interp.Options{
			Stdout:   io.Discard,
			Stderr:   io.Discard,
			Stdin:    strings.NewReader(""),
			Warnings: interp.WarningsOff,
			OnVM: func(x *vm.VM) {
				mu.Lock()
				v = x
				mu.Unlock()
			},
		})
		return res.Err
	})
}

// runBounded runs f, interrupting it after limit.
func runBounded(limit time.Duration, interrupt func(), f func() error) outcome {
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if r := recover(); r != nil {
				o.panicked, o.stack = r, debug.Stack()
			}
			done <- o
		}()
		o.err = f()
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case o := <-done:
		return o
	case <-timer.C:
	}
	interrupt()
	select {
	case o := <-done:
		o.timedOut = true
		return o
	case <-time.After(grace):
		return outcome{hung: true}
	}
}

// badText lists wording no user should see in an error: a recovered Go
// panic, Go runtime and reflection texts, fmt's verb mistakes.
var badText = []string{
	"internal error",
	"runtime error:", // Go's; Harn's own is "Runtime error:"
	"goroutine ",
	"nil pointer",
	"interface conversion",
	"invalid memory address",
	"reflect.",
	"%!",
	"index out of range",
	"slice bounds out of range",
}

// problem says what is wrong with an outcome, or "".
func problem(o outcome) string {
	switch {
	case o.hung:
		return fmt.Sprintf("did not stop within %s of being interrupted", grace)
	case o.panicked != nil:
		return fmt.Sprintf("Go panic escaped: %v\n%s", o.panicked, o.stack)
	case o.timedOut:
		if e, ok := o.err.(*vm.Error); ok && e.Kind != vm.KindCancelled {
			// It ended by itself just as the interrupt came.
			return problemErr(o.err)
		}
		return "still running when interrupted"
	}
	return problemErr(o.err)
}

func problemErr(err error) string {
	if err == nil {
		return ""
	}
	e, ok := err.(*vm.Error)
	if !ok {
		return fmt.Sprintf("not a run-time error (%T): %v", err, err)
	}
	text := e.UncaughtText()
	for _, bad := range badText {
		if strings.Contains(text, bad) {
			return "error shows " + fmt.Sprintf("%q", bad) + ": " + clip(text)
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// sweepTarget calls one target with every argument list and reports what
// went wrong.
func sweepTarget(t *testing.T, tg target) {
	sw := newSweeper(t)
	_, blocks := mayBlock[tg.name]
	failures := 0
	for ci, call := range tg.call {
		for _, args := range argLists(tg.name) {
			if ci > 0 && len(args) > 1 {
				continue // other receivers: no args and single args only
			}
			src := fmt.Sprintf(call, argText(args))
			o := sw.run(src)
			if o.timedOut || o.hung {
				if o.hung {
					t.Errorf("%s%s: %s\n  call: %s", tg.name, argNames(args), problem(o), src)
					return // the session is unusable
				}
				sw = newSweeper(t)
				if blocks {
					continue
				}
				o = runAlone(src, confirmBudget)
			}
			if p := problem(o); p != "" {
				t.Errorf("%s%s: %s\n  call: %s", tg.name, argNames(args), p, src)
				failures++
				if o.hung || failures >= 5 {
					return // the session is unusable, or the point is made
				}
			}
		}
	}
}

func TestBuiltinsWithJunkArgs(t *testing.T) {
	if testing.Short() {
		t.Skip("the full sweep takes about a minute")
	}
	t.Parallel()
	tgs := targets(t)
	known := map[string]bool{}
	for _, tg := range tgs {
		known[tg.name] = true
	}
	for _, list := range []map[string]string{skipped, mayBlock} {
		for name := range list {
			if !known[name] {
				t.Errorf("%s is listed in the sweep's exceptions but is no longer registered: remove it", name)
			}
		}
	}
	for _, tg := range tgs {
		if why, ok := skipped[tg.name]; ok {
			t.Logf("skip %s: %s", tg.name, why)
			continue
		}
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			sweepTarget(t, tg)
		})
	}
}

// TestSweeperSeesFailures makes sure the sweep really runs its calls: a
// failing call is seen as failing and a Go panic in a builtin as the
// internal error the sweep looks for.
func TestSweeperSeesFailures(t *testing.T) {
	sw := newSweeper(t)
	o := sw.run(`throw_error(__F[11]())`)
	if o.err == nil {
		t.Fatalf("throw_error(\"x\") did not fail")
	}
	if problem(o) != "" {
		t.Fatalf("an ordinary failure reported as a problem: %s", problem(o))
	}
	if o := sw.run(`len(__F[21]())`); o.err != nil {
		t.Fatalf("the deep list: %v", o.err)
	}
}

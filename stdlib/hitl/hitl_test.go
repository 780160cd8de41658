package hitl_test

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib/hitl"
	"github.com/harnlang/harn/vm"
)

// run runs src with stdin and returns its stdout and the uncaught error
// text ("" when it succeeded).
func run(t *testing.T, src string, stdin io.Reader, onVM func(*vm.VM)) (string, string) {
	t.Helper()
	var errb bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stdin: stdin, Stderr: &errb, OnVM: onVM})
	if r.Err != nil {
		return strings.TrimSpace(string(r.Stdout)), r.Err.Error()
	}
	return strings.TrimSpace(string(r.Stdout)), ""
}

func mustRun(t *testing.T, src string, stdin io.Reader) string {
	t.Helper()
	out, err := run(t, src, stdin, nil)
	if err != "" {
		t.Fatalf("run failed: %s\nstdout: %s", err, out)
	}
	return out
}

func TestAnswersComeFromRealStdin(t *testing.T) {
	t.Setenv("HARN_AUTO_APPROVE", "")
	out := mustRun(t, `
println(ask_user("name?"))
println(ask_user("pick", ["a", "b"]))
println(request_approval("deploy").approved)
println(read_line())`, strings.NewReader("Ada\nB\ny\nrest\n"))
	want := "Ada\nb\ntrue\nrest"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

func TestNoStdinFailsInsteadOfHanging(t *testing.T) {
	t.Setenv("HARN_AUTO_APPROVE", "")
	for _, src := range []string{`ask_user("q")`, `request_approval("a")`, `dual_control("a", ["x", "y"])`} {
		_, err := run(t, src, nil, nil)
		if !strings.Contains(err, "standard input has no more lines") {
			t.Errorf("%s: got error %q", src, err)
		}
	}
}

func TestAutoApprove(t *testing.T) {
	t.Setenv("HARN_AUTO_APPROVE", "1")
	out := mustRun(t, `
let r = request_approval("deploy")
println("${r.approved} ${r.by} ${r.reason}")
let d = dual_control("wipe", ["alice", "bob"])
println("${d.approved} ${d.by}")`, nil)
	want := "true HARN_AUTO_APPROVE approved by HARN_AUTO_APPROVE\ntrue [alice, bob]"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	t.Setenv("HARN_AUTO_APPROVE", "deny")
	if out := mustRun(t, `println(request_approval("deploy").approved)`, nil); out != "false" {
		t.Fatalf("deny: got %q", out)
	}
	t.Setenv("HARN_AUTO_APPROVE", "maybe")
	if _, err := run(t, `request_approval("deploy")`, nil, nil); !strings.Contains(err, "HARN_AUTO_APPROVE must be") {
		t.Fatalf("bad value: got %q", err)
	}
}

// A stdin that never delivers a line: the timeout ends the wait.
func TestAskTimeout(t *testing.T) {
	t.Setenv("HARN_AUTO_APPROVE", "")
	pr, pw := io.Pipe()
	defer pw.Close()
	out, err := run(t, `
println(ask_user("q", {timeout: 20ms, default: "fallback"}))
try { ask_user("q", {timeout: 20ms}) } catch (e) { println(e.starts_with("Error [timeout]: ask_user: no answer")) }
let r = request_approval("deploy", {timeout: 20, default: false})
println("${r.approved} ${r.by}")`, pr, nil)
	if err != "" {
		t.Fatal(err)
	}
	if out != "fallback\ntrue\nfalse default" && out != "fallback\ntrue\nfalse user" {
		t.Fatalf("got %q", out)
	}
}

// The prompt is shown only when stdin is a terminal.
func TestPromptOnlyWhenInteractive(t *testing.T) {
	t.Setenv("HARN_AUTO_APPROVE", "")
	out := mustRun(t, `
mock_stdin("x\nnope\ny\n")
ask_user("silent?")
mock_tty("stdin", true)
println(request_approval("go"))`, nil)
	want := "Approve go? [y/N] Please answer yes or no (optionally followed by a reason).\nApprove go? [y/N] {approved: true, by: user, reason: nil}"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

// Other tasks run while one waits on a waitpoint, and the host completes
// an external waitpoint from outside the VM.
func TestHostCompletesExternalWaitpoint(t *testing.T) {
	var v *vm.VM
	var once sync.Once
	got := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		<-got
		for {
			// "tick" (waitpoint-1, created first) is completed by another
			// task while the script waits on "hook" (waitpoint-2): only
			// then does the host complete "hook". Creating tick first makes
			// "only waitpoint-2 pending" reachable no other way.
			if ids := hitl.PendingWaitpoints(v); len(ids) == 1 && ids[0] == "waitpoint-2" {
				done <- hitl.CompleteWaitpoint(v, "hook", vm.Str("from host"))
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	out, err := run(t, `
let tick = waitpoint_create("tick")
let wp = waitpoint_create("hook", {external: true})
let ticker = spawn { sleep(2ms); waitpoint_complete(tick, "ticked") }
println(waitpoint_wait(wp))
println(tick.status)`, nil, func(x *vm.VM) { v = x; once.Do(func() { close(got) }) })
	if err != "" {
		t.Fatal(err)
	}
	if e := <-done; e != nil {
		t.Fatal(e)
	}
	if out != "from host\ncompleted" {
		t.Fatalf("got %q", out)
	}
	if e := hitl.CompleteWaitpoint(v, "hook", vm.Nil); e == nil || !strings.Contains(e.Error(), "already completed") {
		t.Fatalf("second completion: %v", e)
	}
	if ok, e := hitl.CancelWaitpoint(v, "hook", "late"); ok || e != nil {
		t.Fatalf("cancel after completion: %v %v", ok, e)
	}
	if _, e := hitl.CancelWaitpoint(v, "nope", ""); e == nil {
		t.Fatal("cancel of an unknown waitpoint succeeded")
	}
}

// Many tasks wait on one waitpoint and many complete/cancel races happen;
// run under -race.
func TestWaitpointManyWaiters(t *testing.T) {
	out := mustRun(t, `
var total = 0
for round in 0 to 20 {
  let wp = waitpoint_create()
  var waiters = []
  for i in 0 to 8 { waiters = waiters.push(spawn { waitpoint_wait(wp) + i }) }
  var racers = []
  for i in 0 to 3 { racers = racers.push(spawn { try { waitpoint_complete(wp, 100); "won" } catch (e) { "lost" } }) }
  let results = racers.map({t -> await(t)})
  assert_eq(results.filter({r -> r == "won"}).count, 1)
  for w in waiters { total = total + await(w) }
  assert(!waitpoint_cancel(wp, "late"))
}
println(total)
`, nil)
	// 21 rounds of 9 waiters each: 21 * (9*100 + 0+1+…+8)
	if out != "19656" {
		t.Fatalf("got %q", out)
	}
}

func TestWaitpointCancelWakesWaiters(t *testing.T) {
	out := mustRun(t, `
let wp = waitpoint_create("job")
var ts = []
for i in 0 to 4 { ts = ts.push(spawn { try { waitpoint_wait(wp) } catch (e) { e } }) }
sleep(5ms)
println(waitpoint_cancel(wp, "shutdown"))
println(await(ts[0]))
println(ts.map({t -> await(t)}).count)`, nil)
	want := "true\nwaitpoint_wait: waitpoint \"job\" was cancelled: shutdown\n5"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

func TestWaitpointDeadlockIsReported(t *testing.T) {
	_, err := run(t, `
let wp = waitpoint_create("never")
waitpoint_wait(wp)`, nil, nil)
	if !strings.Contains(err, "deadlock") {
		t.Fatalf("got %q", err)
	}
}

func TestPendingShowsWaitingQuestion(t *testing.T) {
	t.Setenv("HARN_AUTO_APPROVE", "")
	pr, pw := io.Pipe()
	var v *vm.VM
	started := make(chan struct{})
	go func() {
		// answer only after the script has seen the question in
		// hitl_pending, which it says by creating a waitpoint (a fixed
		// delay let a slow start under -race and load read the answer
		// first, and the script then waited for ever)
		<-started
		for len(hitl.PendingWaitpoints(v)) == 0 {
			time.Sleep(time.Millisecond)
		}
		io.WriteString(pw, "yes\n")
		pw.Close()
	}()
	out, err := run(t, `
let t = spawn { request_approval("ship", {approver: "kim"}) }
var seen = []
while seen.count == 0 { seen = hitl_pending("approval"); sleep(1ms) }
waitpoint_create("seen", {external: true})
println("${seen[0].kind} ${seen[0].action} ${seen[0].approver}")
println(await(t).approved)
println(hitl_pending("approval").count)`, pr, func(x *vm.VM) { v = x; close(started) })
	if err != "" {
		t.Fatal(err)
	}
	if out != "approval ship kim\ntrue\n0" {
		t.Fatalf("got %q", out)
	}
}

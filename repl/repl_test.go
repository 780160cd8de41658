package repl

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
)

func newREPL(t *testing.T) (*REPL, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	s := interp.NewSession(interp.Options{Stdout: &out, Stderr: &out})
	return New(s.NewInteractive(t.TempDir()), &out, &out), &out
}

func TestComplete(t *testing.T) {
	r, _ := newREPL(t)
	if _, exit := r.Eval("let my_value = 1\nfn my_helper() { return 2 }"); exit {
		t.Fatal("unexpected exit")
	}
	tests := []struct {
		line       string
		head, tail string
		want       []string // must be among the completions
		not        []string // must not be
	}{
		{line: "pri", want: []string{"print", "println"}},
		{line: "my_", want: []string{"my_helper", "my_value"}},
		{line: "ret", want: []string{"return"}},
		{line: "let x = [1].so", head: "let x = [1].", want: []string{"sort"}, not: []string{"some_builtin"}},
		{line: "\"s\".up", head: "\"s\".", want: []string{"upper"}},
		{line: ":l", want: []string{":load "}},
		{line: ":", want: []string{":help", ":load ", ":quit", ":type "}},
		{line: "__repl", not: []string{interp.ShowBuiltin}},
		{line: "p", want: []string{"pi"}},
	}
	for _, tt := range tests {
		head, got, tail := r.Complete(tt.line, len(tt.line))
		wantHead := tt.head
		if wantHead == "" && !strings.HasPrefix(tt.line, ":") {
			wantHead = tt.line[:strings.LastIndexAny(tt.line, " .\"")+1]
		}
		if head != wantHead || tail != tt.tail {
			t.Errorf("%q: head %q tail %q", tt.line, head, tail)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: completions %v lack %q", tt.line, got, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("%q: completions include %q", tt.line, n)
			}
		}
	}
	// the cursor in the middle of a line keeps the text after it
	head, got, tail := r.Complete("my_v + 1", 4)
	if head != "" || tail != " + 1" || !slices.Equal(got, []string{"my_value"}) {
		t.Errorf("mid-line: %q %v %q", head, got, tail)
	}
}

func TestCommands(t *testing.T) {
	r, out := newREPL(t)
	if quit := r.Command(":help"); quit || !strings.Contains(out.String(), ":type EXPR") {
		t.Errorf("help: quit=%v out=%q", quit, out.String())
	}
	out.Reset()
	r.Command(":frob")
	if !strings.Contains(out.String(), "unknown command :frob") {
		t.Errorf("unknown command: %q", out.String())
	}
	out.Reset()
	r.Command(":type 1 + 1")
	if out.String() != "int\n" {
		t.Errorf(":type: %q", out.String())
	}
	if !r.Command(":quit") || !r.Command(":q") {
		t.Error(":quit should quit")
	}
}

func TestEvalExit(t *testing.T) {
	r, _ := newREPL(t)
	code, exit := r.Eval("exit(3)")
	if !exit || code != 3 {
		t.Errorf("exit(3): code %d exit %v", code, exit)
	}
}

func TestHistoryPath(t *testing.T) {
	t.Setenv("HARN_REPL_HISTORY", "/tmp/h")
	if p := HistoryPath(); p != "/tmp/h" {
		t.Errorf("override: %q", p)
	}
	t.Setenv("HARN_REPL_HISTORY", "")
	if p := HistoryPath(); p != "" {
		t.Errorf("disabled: %q", p)
	}
}

func TestHelpName(t *testing.T) {
	var out, errb strings.Builder
	r := &REPL{out: &out, errw: &errb}
	r.Command(":help len")
	if !strings.HasPrefix(out.String(), "len(v: string | bytes | list | dict | set | range) -> int\n") {
		t.Fatalf(":help len printed %q (stderr %q)", out.String(), errb.String())
	}
}

// A wait nothing can end fails with the deadlock error instead of hanging
// the prompt (issue 13), and the session goes on afterwards.
func TestDeadlockReported(t *testing.T) {
	r, out := newREPL(t)
	r.Eval("let ch = channel()")
	r.Eval(`let got = try { receive(ch) } catch e { "caught: ${e}" }`)
	r.Eval("got")
	if !strings.Contains(out.String(), "caught: Error [deadlock]: every task is waiting for another task") {
		t.Fatalf("a receive nothing can end was not reported as a deadlock:\n%s", out)
	}
	out.Reset()
	// a task spawned by an entry ends with it, so a later receive is
	// hopeless too (the task waits first: printing the entry's value may
	// let it run, and an unwaited send would fill the buffer before the
	// entry ends)
	r.Eval("spawn { sleep(10s); send(ch, 5) }")
	r.Eval("receive(ch)")
	if !strings.Contains(out.String(), "deadlock") {
		t.Fatalf("receive after the sending entry ended:\n%s", out)
	}
	out.Reset()
	r.Eval("let c2 = channel(1)\nspawn { send(c2, 7) }\nreceive(c2)")
	if got := strings.TrimSpace(out.String()); !strings.HasSuffix(got, "7") {
		t.Fatalf("a wait another task of the entry ends: %q", got)
	}
}

// A listening server can end an entry's wait from outside, so waiting
// longer than the detector's grace for a request is not a deadlock.
func TestNoDeadlockWhileServing(t *testing.T) {
	r, out := newREPL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	go func() {
		time.Sleep(600 * time.Millisecond)
		if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/go", port)); err == nil {
			resp.Body.Close()
		}
	}()
	r.Eval(fmt.Sprintf(`let ch = channel()
let srv = http_server({port: %d})
http_server_route(srv, "GET", "/go", { req -> send(ch, "ping") ; return {status: 200, body: "ok"} })
srv.listen()
println(receive(ch))`, port))
	if got := strings.TrimSpace(out.String()); !strings.HasSuffix(got, "\nping") {
		t.Fatalf("the entry's wait for a request: %q", got)
	}
}

// In a deadlock the entry's own wait fails first, so the prompt comes
// back without first failing the entry's tasks (a script fails the
// oldest wait first: here the task's).
func TestDeadlockFailsEntryFirst(t *testing.T) {
	r, out := newREPL(t)
	r.Eval(`let a = channel()
let b = channel()
let t = spawn { try { receive(a) } catch e { println("in task: ${e}") } }
sleep(5ms)
try { receive(b) } catch e { println("entry: ${e}") }`)
	got := out.String()
	if !strings.Contains(got, "entry: Error [deadlock]") || strings.Contains(got, "in task:") {
		t.Fatalf("deadlock order in the REPL:\n%s", got)
	}
}

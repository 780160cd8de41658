package repl

import (
	"bytes"
	"slices"
	"strings"
	"testing"

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
	if !strings.HasPrefix(out.String(), "len(v: string | bytes | list | dict | set | range)\n") {
		t.Fatalf(":help len printed %q (stderr %q)", out.String(), errb.String())
	}
}

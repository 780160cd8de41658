package vm_test

import (
	"bytes"
	"testing"

	"github.com/harnlang/harn/interp"
)

// A call site that resolved a name to a builtin sees a global of the same
// name that a later REPL entry declares, and a function declared later
// sees the globals declared before it.
func TestCalleeCacheFollowsNewGlobals(t *testing.T) {
	var out bytes.Buffer
	s := interp.NewSession(interp.Options{Stdout: &out, Stderr: &out})
	in := s.NewInteractive(t.TempDir())
	for _, e := range []string{
		"fn show(x) { return to_string(x) + \"!\" }",
		"println(show(1))",
		"println(show(2))",
		"fn to_string(x) { return \"mine\" }",
		"println(show(3))",
		"for i in [1, 2] { println(to_string(i)) }",
	} {
		if err := in.Eval(e); err != nil {
			t.Fatalf("%q: %v", e, err)
		}
	}
	want := "1!\n2!\nmine!\nmine\nmine\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// A builtin read as a value (not called) by a function of an earlier REPL
// entry is the global of the same name once a later entry declares one.
func TestBuiltinValueFollowsNewGlobals(t *testing.T) {
	var out bytes.Buffer
	s := interp.NewSession(interp.Options{Stdout: &out, Stderr: &out})
	in := s.NewInteractive(t.TempDir())
	for _, e := range []string{
		"fn get() { return to_string }",
		"println(get()(5))",
		"println(get()(6))",
		"let to_string = fn(x) { return \"mine\" }",
		"println(get()(7))",
		"println([1].map(to_string))",
	} {
		if err := in.Eval(e); err != nil {
			t.Fatalf("%q: %v", e, err)
		}
	}
	want := "5\n6\nmine\n[mine]\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

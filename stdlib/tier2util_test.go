package stdlib_test

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// t2env is one VM with a thread, for calling builtins directly.
type t2env struct {
	u   *vm.Universe
	th  *vm.Thread
	out *strings.Builder
}

func newT2(t *testing.T) *t2env {
	t.Helper()
	u := stdlib.NewUniverse(stdlib.Config{})
	m := vm.New(u)
	out := &strings.Builder{}
	m.Stdout = out
	return &t2env{u: u, th: m.NewThread(), out: out}
}

// call invokes builtin name with args.
func (e *t2env) call(t *testing.T, name string, args ...vm.Value) (vm.Value, error) {
	t.Helper()
	b := e.u.Builtin(name)
	if b == nil {
		t.Fatalf("builtin %s not registered", name)
	}
	return b.Fn(e.th, vm.Args(args))
}

// show is the display form, or the caught error text prefixed "ERR: ".
func (e *t2env) show(t *testing.T, name string, args ...vm.Value) string {
	t.Helper()
	v, err := e.call(t, name, args...)
	if err != nil {
		return "ERR: " + vm.ToDisplay(vm.AsError(err).Caught())
	}
	return vm.ToDisplay(v)
}

// t2case is one table row: builtin, arguments, expected display or "ERR: …".
type t2case struct {
	name string
	args []vm.Value
	want string
}

func runT2(t *testing.T, cases []t2case) {
	t.Helper()
	e := newT2(t)
	for _, c := range cases {
		if got := e.show(t, c.name, c.args...); got != c.want {
			t.Errorf("%s%v:\n got  %q\n want %q", c.name, c.args, got, c.want)
		}
	}
}

func sv(x string) vm.Value       { return vm.Str(x) }
func iv(x int64) vm.Value        { return vm.IntOf(x) }
func fv(x float64) vm.Value      { return vm.FloatOf(float64(x)) }
func lv(xs ...vm.Value) vm.Value { return vm.Of(vm.NewList(xs)) }

// dv builds a dict from alternating keys and values.
func dv(kv ...any) vm.Value {
	b := vm.NewDictBuilder(len(kv) / 2)
	for j := 0; j+1 < len(kv); j += 2 {
		v, ok := kv[j+1].(vm.Value)
		if !ok {
			v = vm.Of(kv[j+1].(vm.Object))
		}
		b.Set(kv[j].(string), v)
	}
	return vm.Of(b.Build())
}

// mustParse parses JSON text into a value for test inputs.
func mustParse(t *testing.T, text string) vm.Value {
	t.Helper()
	v, err := stdlib.ParseJSON(text)
	if err != nil {
		t.Fatalf("bad test JSON %q: %v", text, err)
	}
	return v
}

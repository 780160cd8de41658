package stdlib_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// Test scaffolding for the core library: every call goes through a fresh
// universe, exactly as the VM makes it.

type coreEnv struct {
	u      *vm.Universe
	vm     *vm.VM
	th     *vm.Thread
	out    *bytes.Buffer
	errOut *bytes.Buffer
}

func newCore() *coreEnv {
	u := stdlib.NewUniverse(stdlib.Config{})
	v := vm.New(u)
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	v.Stdout, v.Stderr, v.Stdin = out, errOut, strings.NewReader("")
	return &coreEnv{u: u, vm: v, th: v.NewThread(), out: out, errOut: errOut}
}

// op is one builtin call (fn) or method call (method on recv).
type op struct {
	fn     string
	recv   vm.Value
	method string
	args   []vm.Value
}

func (e *coreEnv) run(t *testing.T, o op) (vm.Value, error) {
	t.Helper()
	if o.method != "" {
		return e.th.CallMethod(o.recv, o.method, o.args...)
	}
	b := e.u.Builtin(o.fn)
	if b == nil {
		t.Fatalf("no builtin %s", o.fn)
	}
	return b.Fn(e.th, vm.Args(o.args))
}

// coreCase expects the display form of the result (want), its type
// (typ, optional) or the text a catch would bind (err).
type coreCase struct {
	name string
	op
	want string
	typ  string
	err  string
}

func runCore(t *testing.T, cases []coreCase) {
	t.Helper()
	for _, c := range cases {
		e := newCore()
		got, err := e.run(t, c.op)
		label := c.name
		if label == "" {
			label = c.fn + c.method
		}
		if c.err != "" {
			if err == nil {
				t.Errorf("%s: got %s, want error %q", label, show(got), c.err)
				continue
			}
			if txt := caught(err); txt != c.err {
				t.Errorf("%s: error %q, want %q", label, txt, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: unexpected error %q", label, caught(err))
			continue
		}
		if s := show(got); s != c.want {
			t.Errorf("%s: got %q, want %q", label, s, c.want)
		}
		if c.typ != "" && got.Type() != c.typ {
			t.Errorf("%s: type %s, want %s", label, got.Type(), c.typ)
		}
	}
}

func show(v vm.Value) string {
	if !v.IsValid() {
		return "<Go nil>"
	}
	return vm.ToDisplay(v)
}

// caught is the text `catch (e)` binds for err.
func caught(err error) string {
	return vm.ToDisplay(vm.AsError(err).Caught())
}

func s(x string) vm.Value            { return vm.Str(x) }
func i(x int64) vm.Value             { return vm.IntOf(x) }
func f(x float64) vm.Value           { return vm.FloatOf(float64(x)) }
func l(xs ...vm.Value) *vm.List      { return vm.NewList(xs) }
func set(xs ...vm.Value) *vm.Set     { return vm.NewSet(xs) }
func args(xs ...vm.Value) []vm.Value { return xs }

var nilv = vm.Nil

func d(kv ...any) *vm.Dict {
	b := vm.NewDictBuilder(len(kv) / 2)
	for k := 0; k+1 < len(kv); k += 2 {
		v, ok := kv[k+1].(vm.Value)
		if !ok {
			v = vm.Of(kv[k+1].(vm.Object))
		}
		b.Set(kv[k].(string), v)
	}
	return b.Build()
}

// cb makes a Go callback usable wherever Harn expects a callable.
func cb(fn func(a vm.Args) vm.Value) vm.Value {
	return vm.Of(vm.NewBuiltin("cb", "cb", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) { return fn(a), nil }))
}

var (
	isEven = cb(func(a vm.Args) vm.Value { n, _ := a.Int(0); return vm.BoolOf(n%2 == 0) })
	double = cb(func(a vm.Args) vm.Value { n, _ := a.Int(0); return i(2 * n) })
	ident  = cb(func(a vm.Args) vm.Value { return a.At(0) })
	add    = cb(func(a vm.Args) vm.Value { x, _ := a.Int(0); y, _ := a.Int(1); return i(x + y) })
	boom   = vm.NewBuiltin("boom", "boom", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Value{}, vm.Throwf("boom")
	})
)

func fn(name string, a ...vm.Value) op               { return op{fn: name, args: a} }
func m(recv vm.Value, name string, a ...vm.Value) op { return op{recv: recv, method: name, args: a} }

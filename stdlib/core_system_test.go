package stdlib_test

import (
	"math"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib/console"
	"github.com/harnlang/harn/vm"
)

func TestMath(t *testing.T) {
	runCore(t, []coreCase{
		{op: fn("abs", i(-3)), want: "3"},
		{op: fn("abs", f(-2.5)), want: "2.5"},
		{op: fn("abs", i(math.MinInt64)), want: "9223372036854776000", typ: "float"},
		{op: fn("abs", s("x")), want: "nil"},
		{op: fn("round", f(2.5)), want: "3", typ: "int"},
		{op: fn("round", f(-2.5)), want: "-3"},
		{op: fn("floor", f(-1.5)), want: "-2"},
		{op: fn("ceil", f(1.2)), want: "2"},
		{op: fn("round", i(7)), want: "7"},
		{op: fn("floor", nilv), want: "nil"},
		{op: fn("round", f(math.NaN())), err: "Runtime error: cannot convert non-finite float to int"},
		{op: fn("ceil", f(math.Inf(-1))), err: "Runtime error: cannot convert non-finite float to int"},
		{op: fn("floor", f(1e19)), err: "Runtime error: float is outside the representable int range"},
		{op: fn("floor", f(-9223372036854775808)), want: "-9223372036854775808"},
		{op: fn("sqrt", i(4)), want: "2.0"},
		{op: fn("sqrt", i(-4)), want: "NaN"},
		{op: fn("pow", i(2), i(62)), want: "4611686018427387904"},
		{op: fn("pow", i(2), i(63)), want: "9223372036854776000", typ: "float"},
		{op: fn("pow", i(2), i(-1)), want: "0.5"},
		{op: fn("pow", f(10), i(15)), want: "1000000000000000"},
		{op: fn("pow", s("2"), i(2)), want: "nil"},
		{op: fn("max", i(3), f(7.5)), want: "7.5"},
		{op: fn("min", i(2), i(9)), want: "2", typ: "int"},
		{op: fn("max", i(2), i(9), i(100)), want: "9"},
		{op: fn("min", f(3), i(1)), want: "1.0"},
		{op: fn("max", vm.Of(l(i(1), i(2)))), want: "nil"},
		{op: fn("min", f(math.NaN()), i(1)), want: "1.0"},
		{op: fn("sign", i(-5)), want: "-1"},
		{op: fn("sign", f(0)), want: "0"},
		{op: fn("sign", f(2.5)), want: "1"},
		{op: fn("sign", f(math.NaN())), want: "NaN"},
		{op: fn("is_nan", f(math.NaN())), want: "true"},
		{op: fn("is_nan", i(1)), want: "false"},
		{op: fn("is_infinite", f(math.Inf(1))), want: "true"},
		{op: fn("sin", i(0)), want: "0.0"},
		{op: fn("exp", i(0)), want: "1.0"},
		{op: fn("ln", i(1)), want: "0.0"},
		{op: fn("log2", i(8)), want: "3.0"},
		{op: fn("log10", i(1000)), want: "3.0"},
		{op: fn("atan2", i(0), i(1)), want: "0.0"},
		{op: fn("cos", s("x")), want: "nil"},
		{op: fn("mean", vm.Of(l(i(1), i(2)))), want: "1.5"},
		{op: fn("mean", vm.Of(l())), want: "0.0"},
		{op: fn("mean", s("x")), err: "Type error: mean: items must be a list"},
		{op: fn("mean", vm.Of(l(i(1), s("x")))), err: "Type error: mean must be numeric"},
		{op: fn("median", vm.Of(l(i(3), i(1), i(2), i(4)))), want: "2.5"},
		{op: fn("median", vm.Of(l(i(3), i(1), i(2)))), want: "2.0"},
		{op: fn("median", vm.Of(l())), err: "Runtime error: median: items must not be empty"},
		{op: fn("percentile", vm.Of(l(i(15), i(20), i(35), i(40), i(50))), i(40)), want: "29.0"},
		{op: fn("percentile", vm.Of(l(i(1), i(2), i(3), i(4))), i(100)), want: "4.0"},
		{op: fn("percentile", vm.Of(l(i(1), i(2))), i(0)), want: "1.0"},
		{op: fn("percentile", vm.Of(l(i(1))), i(101)), err: "Runtime error: percentile must be between 0 and 100"},
		{op: fn("percentile", vm.Of(l(i(1))), s("50")), err: "Type error: percentile must be numeric"},
		{op: fn("variance", vm.Of(l(i(1), i(2), i(3), i(4)))), want: "1.25"},
		{op: fn("variance", vm.Of(l(i(1), i(2), i(3), i(4))), vm.True), want: "1.6666666666666667"},
		{op: fn("stddev", vm.Of(l(i(2), i(4), i(4), i(4), i(5), i(5), i(7), i(9)))), want: "2.0"},
		{op: fn("variance", vm.Of(l(i(1))), vm.True), err: "Runtime error: sample variance requires at least 2 values"},
		{op: fn("variance", vm.Of(l())), err: "Runtime error: variance: items must not be empty"},
		{op: fn("stddev", vm.Of(l())), err: "Runtime error: stddev: items must not be empty"},
		{op: fn("random_int", i(5), i(1)), want: "nil"},
		{op: fn("random_int", i(5)), want: "nil"},
		{op: fn("random_int", i(3), i(3)), want: "3"},
		{op: fn("random_int", s("1"), i(3)), err: "Type error: random_int: min must be an integer"},
		{op: fn("random_int", i(1), f(3)), err: "Type error: random_int: max must be an integer"},
		{op: fn("random_choice", vm.Of(l())), want: "nil"},
		{op: fn("random_choice", vm.Of(l(i(7)))), want: "7"},
		{op: fn("random_choice", s("abc")), want: "nil"},
		{op: fn("random_shuffle", s("abc")), want: "nil"},
		{op: fn("random_shuffle", vm.Of(l())), want: "[]"},
		{op: fn("rng_seed", f(1)), err: "Type error: rng_seed(seed): seed must be an integer"},
	})

	e := newCore()
	for k := 0; k < 200; k++ {
		v, _ := e.run(t, fn("random"))
		x := float64(v.Object().(vm.Float))
		n, _ := e.run(t, fn("random_int", i(-2), i(2)))
		if x < 0 || x >= 1 || n.Object().(vm.Int) < -2 || n.Object().(vm.Int) > 2 {
			t.Fatalf("random out of range: %v %v", x, n)
		}
	}
	shuffled, _ := e.run(t, fn("random_shuffle", vm.Of(l(i(1), i(2), i(3), i(4)))))
	sorted, _ := e.th.CallMethod(shuffled, "sort")
	if show(sorted) != "[1, 2, 3, 4]" {
		t.Errorf("shuffle lost items: %s", show(shuffled))
	}

	// equal seeds give equal sequences
	seq := func(seed int64) string {
		e := newCore()
		g, _ := e.run(t, fn("rng_seed", i(seed)))
		var parts []string
		for k := 0; k < 5; k++ {
			a, _ := e.run(t, fn("random", g))
			b, _ := e.run(t, fn("random_int", g, i(0), i(1000)))
			c, _ := e.run(t, fn("random_choice", g, vm.Of(l(s("a"), s("b"), s("c")))))
			d, _ := e.run(t, fn("random_shuffle", g, vm.Of(l(i(1), i(2), i(3)))))
			parts = append(parts, show(a), show(b), show(c), show(d))
		}
		return strings.Join(parts, " ")
	}
	if seq(7) != seq(7) || seq(7) == seq(8) {
		t.Error("rng_seed is not deterministic per seed")
	}
}

func TestEnvAndIdentifiers(t *testing.T) {
	t.Setenv("HARN_TEST_SET", "")
	runCore(t, []coreCase{
		{op: fn("env", s("HARN_TEST_SET")), want: ""},
		{op: fn("env", s("HARN_TEST_UNSET_X")), want: "nil"},
		{op: fn("env_or", s("HARN_TEST_SET"), i(1)), want: ""},
		{op: fn("env_or", s("HARN_TEST_UNSET_X"), vm.Of(l(i(1)))), want: "[1]"},
		{op: fn("uuid_nil"), want: "00000000-0000-0000-0000-000000000000"},
		{op: fn("uuid_v5", s("dns"), s("example.com")), want: "cfbff0d1-9375-5685-968c-48ce8b15ae17"},
		{op: fn("uuid_v5", s("NAMESPACE_DNS"), s("example.com")), want: "cfbff0d1-9375-5685-968c-48ce8b15ae17"},
		{op: fn("uuid_v5", s("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), s("example.com")), want: "cfbff0d1-9375-5685-968c-48ce8b15ae17"},
		{op: fn("uuid_v5", s("url"), s("https://example.com")), want: "4fd35a71-71ef-5a55-a9d9-aa75c889a6d0"},
		{op: fn("uuid_v5", s("dns")), err: "Runtime error: uuid_v5(namespace, name): requires namespace and name"},
		{op: fn("uuid_v5", s("web"), s("x")), err: "Runtime error: uuid_v5: namespace must be a UUID or one of dns/url/oid/x500"},
		{op: fn("uuid_parse", s("CFBFF0D1-9375-5685-968C-48CE8B15AE17")), want: "cfbff0d1-9375-5685-968c-48ce8b15ae17"},
		{op: fn("uuid_parse", s("cfbff0d19375568596 8c48ce8b15ae17")), want: "nil"},
		{op: fn("uuid_parse", s("cfbff0d19375568596"+"8c48ce8b15ae17")), want: "cfbff0d1-9375-5685-968c-48ce8b15ae17"},
		{op: fn("uuid_parse", s("{cfbff0d1-9375-5685-968c-48ce8b15ae17}")), want: "cfbff0d1-9375-5685-968c-48ce8b15ae17"},
		{op: fn("uuid_parse", s("urn:uuid:cfbff0d1-9375-5685-968c-48ce8b15ae17")), want: "cfbff0d1-9375-5685-968c-48ce8b15ae17"},
		{op: fn("uuid_parse", s("not-a-uuid")), want: "nil"},
		{op: fn("uuid_parse", i(1)), want: "nil"},
		{op: fn("platform"), want: runtime.GOOS},
	})
	e := newCore()
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	v7 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, _ := e.run(t, fn("uuid"))
	b, _ := e.run(t, fn("uuid"))
	c, _ := e.run(t, fn("uuid_v7"))
	if !v4.MatchString(show(a)) || show(a) == show(b) || !v7.MatchString(show(c)) {
		t.Errorf("uuids: %s %s %s", show(a), show(b), show(c))
	}
	_, err := e.run(t, fn("exit", i(3)))
	if x := vm.AsError(err); x.Kind != vm.KindExit || x.Code != 3 {
		t.Errorf("exit(3): %v", err)
	}
	_, err = e.run(t, fn("exit", s("x")))
	if x := vm.AsError(err); x.Kind != vm.KindExit || x.Code != 0 {
		t.Errorf("exit(\"x\"): %v", err)
	}
	if got, _ := e.run(t, fn("arch")); runtime.GOARCH == "amd64" && show(got) != "x86_64" {
		t.Errorf("arch: %s", show(got))
	}
}

func TestHarnessHandle(t *testing.T) {
	e := newCore()
	h, ok := e.u.Global("harness")
	if !ok || h.Type() != "Harness" || show(h) != "<Harness>" {
		t.Fatalf("harness global: %v", h)
	}
	stdio, err := vm.GetProp(h, "stdio", false)
	if err != nil || stdio.Type() != "HarnessStdio" {
		t.Fatalf("harness.stdio: %v %v", stdio, err)
	}
	for _, c := range []struct {
		recv vm.Value
		prop string
		err  string
	}{
		{h, "secrets", "Type error: `harness.secrets` is not available in this runtime"},
		{h, "agent", "Type error: `harness.agent` is not available in this runtime"},
		{h, "bogus", "Type error: `Harness` has no capability `bogus`"},
		{stdio, "net", "Type error: cannot access property `net` on HarnessStdio"},
	} {
		if _, err := vm.GetProp(c.recv, c.prop, false); err == nil || caught(err) != c.err {
			t.Errorf("%s.%s: %v, want %q", show(c.recv), c.prop, err, c.err)
		}
	}
	if _, err := e.th.CallMethod(stdio, "frobnicate"); err == nil || caught(err) != "Type error: value of type HarnessStdio has no method `frobnicate`" {
		t.Errorf("unknown stdio method: %v", err)
	}
	e.th.CallMethod(stdio, "print", s("a"), s("ignored"))
	e.th.CallMethod(stdio, "println", i(1))
	e.th.CallMethod(stdio, "log", s("hi"))
	e.th.CallMethod(stdio, "eprintln", s("err"))
	e.th.CallMethod(stdio, "progress", s("p"), s("m"), i(1), i(2))
	bound, err := vm.GetProp(stdio, "println", false)
	if err != nil {
		t.Fatal(err)
	}
	e.th.Call(bound, s("bound"))
	if e.out.String() != "a1\n[harn] hi\n[p] m (1/2)\nbound\n" || e.errOut.String() != "err\n" {
		t.Errorf("stdio output %q / %q", e.out, e.errOut)
	}
	for _, name := range []string{"is_stdin_tty", "is_stdout_tty", "is_stderr_tty"} {
		if v, err := e.th.CallMethod(stdio, name); err != nil || show(v) != "false" {
			t.Errorf("%s: %v %v", name, v, err)
		}
	}
}

func TestStdin(t *testing.T) {
	e := newCore()
	e.vm.Stdin = strings.NewReader("one\r\ntwo\n  three  \nrest\nof it")
	stdio, _ := vm.GetProp(mustGlobal(t, e, "harness"), "stdio", false)
	steps := []struct {
		op   func() (vm.Value, error)
		want string
	}{
		{func() (vm.Value, error) { return e.run(t, fn("read_line")) }, "one"},
		{func() (vm.Value, error) { return e.th.CallMethod(stdio, "read_line") }, "two"},
		{func() (vm.Value, error) { return e.run(t, fn("prompt_user", s("? "))) }, "  three"},
		{func() (vm.Value, error) { return e.th.CallMethod(stdio, "read_line", vm.Of(d())) }, "{ok: true, status: ok, value: rest}"},
		{func() (vm.Value, error) { return e.run(t, fn("read_stdin")) }, "of it"},
		{func() (vm.Value, error) { return e.run(t, fn("read_line")) }, "nil"},
		{func() (vm.Value, error) { return e.th.CallMethod(stdio, "read_line", vm.Of(d())) }, "{ok: false, status: eof}"},
		{func() (vm.Value, error) { return e.run(t, fn("mock_stdin", s("mocked\nx"))) }, "nil"},
		{func() (vm.Value, error) { return e.th.CallMethod(stdio, "prompt", s("> ")) }, "mocked"},
		{func() (vm.Value, error) { return e.th.CallMethod(stdio, "read_stdin") }, "x"},
		{func() (vm.Value, error) { return e.run(t, fn("unmock_stdin")) }, "nil"},
		{func() (vm.Value, error) { return e.run(t, fn("read_stdin")) }, ""},
		{func() (vm.Value, error) { return e.run(t, fn("prompt_user")) }, ""},
	}
	for k, st := range steps {
		v, err := st.op()
		if err != nil || show(v) != st.want {
			t.Errorf("step %d: %q %v, want %q", k, show(v), err, st.want)
		}
	}
	if e.out.String() != "? > " {
		t.Errorf("prompts wrote %q", e.out)
	}

	runs := []struct {
		o    op
		want string
	}{
		{fn("is_stdout_tty"), "false"},
		{fn("mock_tty", s("stdout"), vm.True), "nil"},
		{fn("is_stdout_tty"), "true"},
		{fn("is_stdin_tty"), "false"},
		{fn("unmock_tty"), "nil"},
		{fn("is_stdout_tty"), "false"},
	}
	for _, r := range runs {
		if v, _ := e.run(t, r.o); show(v) != r.want {
			t.Errorf("%v: %s, want %s", r.o, show(v), r.want)
		}
	}
	console.SetTerminals(e.vm, true, false, true)
	if v, _ := e.run(t, fn("is_stdin_tty")); show(v) != "true" {
		t.Error("SetTerminals not honoured")
	}
}

func mustGlobal(t *testing.T, e *coreEnv, name string) vm.Value {
	t.Helper()
	v, ok := e.u.Global(name)
	if !ok {
		t.Fatalf("no global %s", name)
	}
	return v
}

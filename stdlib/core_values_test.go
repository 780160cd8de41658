package stdlib_test

import (
	"math"
	"testing"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

func TestOutput(t *testing.T) {
	for _, c := range []struct {
		ops       []op
		out, serr string
	}{
		{[]op{fn("print", s("a")), fn("print", s("b"), s("c")), fn("println")}, "ab\n", ""},
		{[]op{fn("println", vm.Of(l(s("a"), nilv, f(2))))}, "[a, nil, 2.0]\n", ""},
		{[]op{fn("print")}, "", ""},
		{[]op{fn("log", s("")), fn("log", vm.Of(d("b", i(1), "a", i(2))))}, "[harn] \n[harn] {a: 2, b: 1}\n", ""},
		{[]op{fn("eprint", s("x")), fn("eprintln", s("y"), s("z"))}, "", "xy\n"},
		{[]op{
			fn("progress", s("build"), s("compiling"), i(3), i(10)),
			fn("progress", s("build"), s("half"), i(50)),
			fn("progress", s("build"), s("plain")),
			fn("progress", s("dl"), s("file"), vm.Of(d("mode", s("bar"), "current", i(5), "total", i(10)))),
			fn("progress", s("dl"), s("f"), vm.Of(d("mode", s("bar"), "current", i(9), "total", i(0), "width", i(1)))),
			fn("progress", s("wait"), s("spin"), vm.Of(d("mode", s("spinner"), "step", i(7)))),
		}, "[build] compiling (3/10)\n[build] half (50%)\n[build] plain\n[dl] [#####-----] file (5/10)\n[dl] [---] f (9/0)\n[wait] \\ spin\n", ""},
	} {
		e := newCore()
		for _, o := range c.ops {
			if _, err := e.run(t, o); err != nil {
				t.Fatal(err)
			}
		}
		if e.out.String() != c.out || e.errOut.String() != c.serr {
			t.Errorf("%v: stdout %q stderr %q, want %q %q", c.ops, e.out, e.errOut, c.out, c.serr)
		}
	}
}

func TestColor(t *testing.T) {
	t.Setenv("FORCE_COLOR", "")
	runCore(t, []coreCase{
		{op: fn("set_color_mode", s("rainbow")), err: "set_color_mode: invalid mode 'rainbow'. Expected 'auto', 'always', or 'never'."},
		{op: fn("color", s("x"), s("red")), want: "\x1b[31mx\x1b[0m"},
		{op: fn("color", i(5), s("nope")), want: "5"},
		{op: fn("bold", s("b")), want: "\x1b[1mb\x1b[0m"},
		{op: fn("dim", s("d")), want: "\x1b[2md\x1b[0m"},
	})
	e := newCore()
	e.run(t, fn("set_color_mode", s("never")))
	if v, _ := e.run(t, fn("color", s("x"), s("gray"))); show(v) != "x" {
		t.Errorf("never mode colored: %q", show(v))
	}
}

func TestConversions(t *testing.T) {
	runCore(t, []coreCase{
		{op: fn("type_of", f(1)), want: "float"},
		{op: fn("type_of"), want: "nil"},
		{op: fn("type_of", vm.Of(stdlib.NewBytes(nil))), want: "bytes"},
		{op: fn("to_string", nilv), want: "nil"},
		{op: fn("to_string", vm.Of(l(s("a"), f(1)))), want: "[a, 1.0]"},
		{op: fn("to_int", s("42")), want: "42", typ: "int"},
		{op: fn("to_int", s("-7")), want: "-7"},
		{op: fn("to_int", s("+7")), want: "7"},
		{op: fn("to_int", s("4.2")), want: "nil"},
		{op: fn("to_int", s(" 7")), want: "7"}, // docs/spec/newer.md §2.12: trimmed
		{op: fn("to_int", s("1_0")), want: "nil"},
		{op: fn("to_int", s("0x10")), want: "nil"},
		{op: fn("to_int", s("9223372036854775808")), want: "nil"},
		{op: fn("to_int", f(3.99)), want: "3"},
		{op: fn("to_int", f(-3.99)), want: "-3"},
		{op: fn("to_int", f(math.NaN())), want: "nil"}, // docs/spec/newer.md §2.12
		{op: fn("to_int", f(1e300)), want: "nil"},
		{op: fn("to_int", f(-1e300)), want: "nil"},
		{op: fn("to_int", vm.True), want: "1"},
		{op: fn("to_float", s("1e3")), want: "1000.0"},
		{op: fn("to_float", s(".5")), want: "0.5"},
		{op: fn("to_float", s("5.")), want: "5.0"},
		{op: fn("to_float", s("-Infinity")), want: "-inf"},
		{op: fn("to_float", s("nan")), want: "NaN"},
		{op: fn("to_float", s("1e400")), want: "inf"},
		{op: fn("to_float", s("1_0")), want: "nil"},
		{op: fn("to_float", s("0x1p3")), want: "nil"},
		{op: fn("to_float", s(" 1")), want: "1.0"}, // docs/spec/newer.md §2.12: trimmed
		{op: fn("to_float", i(2)), want: "2.0"},
		{op: fn("to_float", vm.True), want: "nil"},
		{op: fn("len", s("héllo")), want: "5"},
		{op: fn("len", vm.Of(stdlib.NewBytes([]byte{1, 2, 3}))), want: "3"},
		{op: fn("len", vm.Of(l(i(1), i(2)))), want: "2"},
		{op: fn("len", vm.Of(d("a", i(1)))), want: "1"},
		{op: fn("len", vm.Of(set(i(1), i(2), i(2)))), want: "2"},
		{op: fn("len", vm.Of(&vm.Range{Start: 1, End: 5, Inclusive: true})), want: "5"},
		{op: fn("len", i(12)), want: "0"},
		{op: fn("len", nilv), want: "0"},
		{op: fn("to_list", vm.Of(set(i(3), i(1)))), want: "[3, 1]"},
		{op: fn("to_list", vm.Of(l(i(1)))), want: "[1]"},
		{op: fn("to_list", vm.Of(&vm.Range{Start: 1, End: 3, Inclusive: true})), want: "[1 to 3]"},
		{op: fn("to_list", nilv), want: "[nil]"},
		{op: fn("is_same", vm.Of(l(i(1))), vm.Of(l(i(1)))), want: "false"},
		{op: fn("is_same", i(1), f(1)), want: "true"},
		{op: fn("addr_of", vm.Of(vm.NewBuiltin("len", "", "", nil))), want: "builtin@len"},
		{op: fn("addr_of", i(3)), want: "int@3"},
		{op: fn("hash_value", i(1)), want: "3092770186382245500"},
		{op: fn("hash_value", s("a")), want: "7692299998510702488"},
		{op: fn("hash_value", nilv), want: "-5808513992200409391"},
		{op: fn("hash_value", vm.Of(l(i(1), i(2)))), want: "4749552980125323689"},
	})
	xs := l(i(1))
	runCore(t, []coreCase{{op: fn("is_same", vm.Of(xs), vm.Of(xs)), want: "true"}})
}

func TestAssertionsAndResults(t *testing.T) {
	runCore(t, []coreCase{
		{op: fn("assert", i(1)), want: "nil"},
		{op: fn("assert", i(0)), err: "Assertion failed"},
		{op: fn("assert", vm.False, vm.Of(l(i(1)))), err: "[1]"},
		{op: fn("assert_eq", i(1), f(1)), want: "nil"},
		{op: fn("assert_eq", i(2), i(3)), err: "Assertion failed: expected 3, got 2"},
		{op: fn("assert_eq", i(2), i(3), s("custom")), err: "custom"},
		{op: fn("assert_eq", i(2)), err: "assert_eq requires at least 2 arguments"},
		{op: fn("assert_ne", i(2), i(3)), want: "nil"},
		{op: fn("assert_ne", s("a"), s("a")), err: "Assertion failed: values should not be equal: a"},
		{op: fn("assert_ne"), err: "assert_ne requires at least 2 arguments"},
		{op: fn("unreachable"), err: "Runtime error: unreachable code was reached"},
		{op: fn("unreachable", vm.Of(l(i(1)))), err: "Runtime error: unreachable code was reached: [1]"},
		{op: fn("throw_error", s("boom"), s("timeout")), err: "{category: timeout, message: boom}"},
		{op: fn("throw_error", i(5), s("weird")), err: "{category: generic, message: 5}"},
		{op: fn("error_category", vm.Of(d("category", s("auth")))), want: "auth"},
		{op: fn("error_category", vm.Of(d("x", i(1)))), want: "generic"},
		{op: fn("error_category", i(429)), want: "generic"},
		{op: fn("is_timeout", vm.Of(d("category", s("timeout")))), want: "true"},
		{op: fn("is_timeout", s("HTTP 504 gateway")), want: "true"},
		{op: fn("is_rate_limited", s("insufficient_quota")), want: "true"},
		{op: fn("is_rate_limited", i(429)), want: "false"},
		{op: fn("Ok", i(1)), want: "Result.Ok(1)"},
		{op: fn("Err"), want: "Result.Err(nil)"},
		{op: fn("is_ok", vm.Of(vm.Ok(i(1)))), want: "true"},
		{op: fn("is_ok", i(1)), want: "false"},
		{op: fn("is_err", vm.Of(vm.Err(i(1)))), want: "true"},
		{op: fn("unwrap", vm.Of(vm.Ok(i(1)))), want: "1"},
		{op: fn("unwrap", i(42)), want: "42"},
		{op: fn("unwrap", vm.Of(vm.Err(s("boom")))), err: "Runtime error: unwrap called on Err: boom"},
		{op: fn("unwrap_or", vm.Of(vm.Err(s("boom"))), i(5)), want: "5"},
		{op: fn("unwrap_or", nilv, i(5)), want: "nil"},
		{op: fn("unwrap_or", vm.Of(vm.Ok(i(2))), i(5)), want: "2"},
		{op: fn("unwrap_err", vm.Of(vm.Err(s("e")))), want: "e"},
		{op: fn("unwrap_err", vm.Of(vm.Ok(s("e")))), err: "Runtime error: unwrap_err called on non-Err"},
	})
}

func TestErrorClassification(t *testing.T) {
	for text, want := range map[string]string{
		"HTTP 429 Too Many Requests":           "rate_limit",
		"error 418 then 401":                   "auth",
		"code 4290 but 503":                    "overloaded",
		"status: 404":                          "not_found",
		"got 410":                              "not_found",
		"524 origin timeout":                   "timeout",
		"500 internal":                         "server_error",
		"Deadline exceeded":                    "timeout",
		"type: overloaded_error":               "overloaded",
		"api_error happened":                   "server_error",
		"billing_hard_limit_reached":           "rate_limit",
		"invalid_api_key":                      "auth",
		"authentication_error":                 "auth",
		"model_not_found":                      "not_found",
		"circuit_open: x":                      "circuit_open",
		"Connection RESET by peer":             "transient_network",
		"write: Broken pipe":                   "transient_network",
		"DNS error: no such host":              "transient_network",
		"Unexpected EOF":                       "transient_network",
		"nothing to see at 12345 or 399":       "generic",
		"":                                     "generic",
		"deadline exceeded (lower case)":       "generic",
		"stream error: reset (but 502 first)":  "server_error",
		"connection closed before 600 arrived": "transient_network",
	} {
		runCore(t, []coreCase{{name: text, op: fn("error_category", s(text)), want: want}})
	}
}

func TestValueKinds(t *testing.T) {
	long := make([]byte, 40)
	for k := range long {
		long[k] = byte(k)
	}
	b := stdlib.NewBytes(long)
	if got := vm.ToDisplay(vm.Of(b)); got != `b"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f...+8"` {
		t.Errorf("bytes display %s", got)
	}
	if vm.ToDisplay(vm.Of(stdlib.NewBytes([]byte{0xab}))) != `b"ab"` || stdlib.NewBytes(nil).Truth() {
		t.Error("short bytes")
	}
	if !vm.Equal(vm.Of(stdlib.NewBytes([]byte("x"))), vm.Of(stdlib.NewBytes([]byte("x")))) || vm.StructuralKey(vm.Of(stdlib.NewBytes([]byte{1}))) != "b01;" {
		t.Error("bytes equality / key")
	}
	e := newCore()
	a, _ := e.run(t, fn("atomic", i(5)))
	if show(a) != "<atomic:5>" || a.Type() != "atomic" {
		t.Errorf("atomic %s", show(a))
	}
	prev, _ := e.run(t, fn("atomic_add", a, i(2)))
	cur, _ := e.run(t, fn("atomic_get", a))
	swapped, _ := e.run(t, fn("atomic_cas", a, i(7), i(1)))
	old, _ := e.run(t, fn("atomic_set", a, i(9)))
	if show(prev) != "5" || show(cur) != "7" || show(swapped) != "true" || show(old) != "1" || show(a) != "<atomic:9>" {
		t.Errorf("atomic ops: %s %s %s %s %s", show(prev), show(cur), show(swapped), show(old), show(a))
	}
	a2, _ := e.run(t, fn("atomic", i(9)))
	if !vm.Equal(a, a2) {
		t.Error("atomics with equal values should be equal")
	}
	if _, err := e.run(t, fn("atomic", s("x"))); err == nil {
		t.Error("atomic of a string")
	}
	r, _ := e.run(t, fn("rng_seed", i(1)))
	if show(r) != "<rng>" || r.Type() != "rng" || vm.Equal(r, r) {
		t.Error("rng display/equality")
	}
}

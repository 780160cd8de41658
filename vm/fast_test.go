package vm_test

import "testing"

// runFast (vm/fast.go) finishes the common case of the hot instructions
// and hands everything else back to run. These cases sit on its edges:
// int results that overflow into floats, division by non-positive ints,
// failures several frames below calls and method calls it entered (each
// frame's position in the trace is the pc runFast saved), a list push
// that must grow, and an impl run again under a warm method cache. The
// expectations were taken with runFast off.
func TestFastPathEdges(t *testing.T) {
	const fns = `struct R { w: int }
impl R {
  fn area(self) {
    return self.w * self.w
  }
  fn bad(self) {
    return self.w / 0
  }
}
fn down(n) {
  if n == 0 {
    return 1 / n
  }
  return down(n - 1) + 1
}
fn arith(a, b) {
  var m = a * b
  let d = a / b
  let r = a % b
  return [m, d, r, a + b, a - b]
}
fn sum_area(rs) {
  var t = 0
  for r in rs {
    t = t + r.area()
  }
  return t
}
fn bad_area(rs) {
  var t = 0
  for r in rs {
    t = t + r.bad()
  }
  return t
}
fn pushes(n) {
  var xs = []
  for i in 0 to n exclusive {
    xs = xs.push(i * 3)
  }
  return xs
}
`
	cases := []errorCase{
		{"overflow", `println(arith(4611686018427387904, 2))
println(arith(-4611686018427387904, 2))
println(arith(-3037000500, -3037000500))
println(arith(7, -2))
println(arith(-7, 2))`, "[9223372036854776000, 2305843009213693952, 0, 4611686018427387906, 4611686018427387902]\n" +
			"[-9223372036854775808, -2305843009213693952, 0, -4611686018427387902, -4611686018427387906]\n" +
			"[9223372037000250000, 1, 0, -6074001000, 0]\n" +
			"[-14, -3, 1, 5, 9]\n" +
			"[-14, -3, -1, -5, -9]\n", ""},
		{"deep failure", "down(3)", "", "Runtime error: Division by zero (line 12) @12:14 | down t.harn:12:14 | down t.harn:14:10 | down t.harn:14:10 | down t.harn:14:10 |  t.harn:43:1"},
		{"methods", `println(sum_area([R { w: 2 }, R { w: 3 }]))
if true {
  impl R {
    fn area(self) {
      return self.w
    }
  }
  println(R { w: 2 }.area())
}
println(sum_area([R { w: 2 }, R { w: 3 }]))
fn scaled_area(k, rs) {
  impl R {
    fn area(self) {
      return self.w * k
    }
  }
  var t = 0
  for r in rs {
    t = t + r.area()
  }
  return t
}
println(scaled_area(1, [R { w: 2 }, R { w: 3 }]))
println(scaled_area(10, [R { w: 2 }, R { w: 3 }]))`, "13\n2\n13\n5\n50\n", ""},
		{"method failure", "bad_area([R { w: 2 }])", "", "Runtime error: Division by zero (line 7) (line 32) @32:13 | bad t.harn:7:19 | bad_area t.harn:32:13 |  t.harn:43:1"},
		{"push", `let xs = pushes(100)
println("${xs.count} ${xs[0]} ${xs[99]}")`, "100 0 297\n", ""},
	}
	runErrorCases(t, fns, cases)
}

// Method calls reach runFast (LOCAL_CALL_METHOD, LOCALS_CALL_METHOD) and
// run's enterSimple (CALL_METHOD) only for a compiler.Func.Simple method
// called with exactly its parameters; every other call binds in pushFrame.
// These loops warm each site's cache with one method and argument count and
// then change them: a default must still be filled, a missing argument
// bound to nil, extras dropped, and a method's ...name must bind the single
// argument at its position (docs/spec/language.md §9.2), also at sites that see
// an impl block run in the loop with other parameters (only the sites in
// its scope do, docs/spec/language.md §10.3).
func TestFastPathMethodParameters(t *testing.T) {
	const fns = `struct R { w: int }
impl R {
  fn area(self) {
    return self.w * self.w
  }
  fn dflt(self, k = self.w + 1) {
    return k
  }
  fn rest(self, ...xs) {
    return xs
  }
  fn two(self, a, b) {
    return [a, b]
  }
}
fn zero_args(rs) {
  var out = []
  var t = 0
  for r in rs {
    t = t + r.dflt()
    out = out.push(r.dflt())
    out = out.push(r.rest())
    out = out.push(r.two())
  }
  return [t, out]
}
fn some_args(rs) {
  var out = []
  for r in rs {
    out = out.push(r.dflt(0))
    out = out.push(r.rest(r.w, 7, 8))
    out = out.push(r.two(r.w))
    out = out.push(r.two(1, 2, 3))
    out = out.push(r.area(9))
  }
  return out
}
fn swapped(rs) {
  var out = []
  var t = 0
  for r in rs {
    t = t + r.area()
    out = out.push(r.area())
    if r.w == 2 {
      impl R {
        fn area(self, k = 100, ...more) {
          return k + self.w + (more ?? 0)
        }
      }
      out = out.push(r.area())
      out = out.push(r.area(1, 2))
    }
  }
  return [t, out]
}
`
	cases := []errorCase{
		{"zero args", `println(zero_args([R { w: 1 }, R { w: 2 }, R { w: 3 }]))`,
			"[9, [2, nil, [nil, nil], 3, nil, [nil, nil], 4, nil, [nil, nil]]]\n", ""},
		{"some args", `println(some_args([R { w: 1 }, R { w: 2 }]))`,
			"[0, 1, [1, nil], [1, 2], 1, 0, 2, [2, nil], [1, 2], 4]\n", ""},
		{"swapped", `println(swapped([R { w: 1 }, R { w: 2 }, R { w: 3 }]))
println(R { w: 4 }.area(5, 6))
println(R { w: 4 }.area())`, "[14, [1, 4, 102, 5, 9]]\n16\n16\n", ""},
	}
	runErrorCases(t, fns, cases)
}

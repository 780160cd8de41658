package vm_test

import "testing"

// Superinstructions (compiler/peephole.go) compute what the sequences they
// replace computed and report failures at the same line and column: the
// operator's. The expectations were taken with the peephole pass off.
func TestFusedInstructions(t *testing.T) {
	const fns = `fn sub(a, b) {
  return a - b
}
fn store(a) {
  var r = 0
  r = a % 0
  return r
}
fn branch(a) {
  if a / 0 {
    return 1
  }
  return 2
}
fn cmp(a, b) {
  if a < b {
    return "lt"
  }
  return "ge"
}
fn count(n) {
  var total = 0
  for i in 0 to n exclusive {
    total = total + i * 2
  }
  for i in [10, 20] {
    total = total + i
  }
  return total
}
`
	cases := []errorCase{
		{"values", `println(cmp(1, 2))
println(cmp(2.5, 1))
println(cmp("a", "b"))
println(cmp(nil, 1))
println(sub(9223372036854775807, -1))
println(count(5))
println(count(0))`, "lt\nge\nlt\nge\n9223372036854776000\n50\n30\n", ""},
		{"binop", "sub(1,\n nil)", "", "Type error: Cannot subtract nil from int (line 2) @2:12 | sub t.harn:2:12 |  t.harn:31:1"},
		{"binop store", "store(3)", "", "Runtime error: Division by zero (line 6) @6:9 | store t.harn:6:9 |  t.harn:31:1"},
		{"binop jump", "branch(3)", "", "Runtime error: Division by zero (line 10) @10:8 | branch t.harn:10:8 |  t.harn:31:1"},
		{"binop strings", `sub("a", 1)`, "", "Type error: Cannot subtract int from string (line 2) @2:12 | sub t.harn:2:12 |  t.harn:31:1"},
	}
	runErrorCases(t, fns, cases)
}

// A comparison of the stack top with a literal, fused with its branch,
// fails at the operator as before (expectation taken with the pass off).
func TestFusedCompareWithLiteral(t *testing.T) {
	src := `fn half(xs) {
  if xs.count / 0 {
    return "one"
  }
  return "other"
}
fn parity(n) {
  if n.count % 2 == 0 {
    return "even"
  }
  return "odd"
}
println(parity([1, 2]))
println(parity([1]))
half([1])
`
	out, e := runError(t, src)
	got := ""
	if e != nil {
		got = describe(e)
	}
	want := "Runtime error: Division by zero (line 2) @2:15 | half t.harn:2:15 |  t.harn:15:1"
	if out != "even\nodd\n" || got != want {
		t.Errorf("got %q %q, want %q", out, got, want)
	}
}

// A property read of a local (LOCAL_GET_PROP) reads struct fields and
// dict keys as GET_PROP did, and fails at the property's `.` (expectation taken
// with the pass off).
func TestFusedLocalProperty(t *testing.T) {
	src := `struct P { x: int }
fn get(p) {
  let y = p.x
  return y + p.x
}
println(get(P { x: 2 }))
println(get({x: 3}))
get(nil)
`
	out, e := runError(t, src)
	got := ""
	if e != nil {
		got = describe(e)
	}
	want := "Type error: cannot access property `x` on nil (line 3) @3:12 | get t.harn:3:12 |  t.harn:8:1"
	if out != "4\n6\n" || got != want {
		t.Errorf("got %q %q, want %q", out, got, want)
	}
}

// The int fast paths of LOCAL_BINOP (plus or minus a literal) and
// LOCAL_BINOP_JUMP (compare and branch) agree with the general path, at
// the edges of the int range and on mixed operands (expectations taken
// with the fast paths off).
func TestFusedIntFastPaths(t *testing.T) {
	src := `fn inc(a) { return a + 1 }
fn dec(a) { return a - 1 }
fn lt(a) {
  if a < 2 {
    return "lt"
  }
  return "ge"
}
fn le(a, b) {
  if a <= b {
    return "le"
  }
  return "gt"
}
println(inc(9223372036854775807))
println(dec(-9223372036854775807 - 1))
println("${inc(1)} ${dec(1)} ${inc(1.5)} ${dec(-1)}")
println("${lt(1)} ${lt(2)} ${lt(1.5)} ${lt(-9223372036854775807)}")
println("${le(1, 1)} ${le(2, 1)} ${le(1, 1.5)} ${le("a", "b")}")`
	out, e := runError(t, src)
	want := "9223372036854776000\n-9223372036854776000\n2 0 2.5 -2\nlt ge lt lt\nle gt le le\n"
	if e != nil || out != want {
		t.Errorf("got %q %v, want %q", out, e, want)
	}
}

// The int fast paths of ADD, SUB and MUL on two stacked ints agree with
// intArith at the edges of the int range and of the 32-bit products
// (expectations taken before the fast paths).
func TestIntArithFastPaths(t *testing.T) {
	src := `fn id(x) { return x }
println(id(9223372036854775807) + id(1))
println(id(9223372036854775807) + id(0))
println(id(-9223372036854775807) - id(2))
println(id(-9223372036854775807) - id(1))
println(id(4294967296) * id(4294967296))
println(id(2147483647) * id(-2147483648))
println(id(-2147483648) * id(-2147483648))
println(id(3037000500) * id(3037000500))
println(id(-3) * id(7) + id(5) - id(-2))`
	out, e := runError(t, src)
	want := "9223372036854776000\n9223372036854775807\n-9223372036854776000\n-9223372036854775808\n" +
		"18446744073709552000\n-4611686016279904256\n4611686018427387904\n9223372037000250000\n-14\n"
	if e != nil || out != want {
		t.Errorf("got %q %v, want %q", out, e, want)
	}
}

// BINOP_STORE and BINOP_RETURN (an operator on two stacked values, then a
// store or a return) compute what the plain sequence did and fail at the
// operator's line and column (expectations taken with the pass off).
func TestFusedOperatorStoreReturn(t *testing.T) {
	const fns = `fn id(x) { return x }
fn ratio(a, b) {
  return id(a) /
    id(b)
}
fn acc(xs) {
  var t = 0
  for x in xs {
    t = id(t) + id(x)
  }
  return t
}
`
	cases := []errorCase{
		{"values", `println(ratio(7, 2))
println(acc([1, 2.5, 3]))
println(acc([9223372036854775807, 1]))`, "3\n6.5\n9223372036854776000\n", ""},
		{"return", "ratio(1, 0)", "", "Runtime error: Division by zero (line 3) @3:16 | ratio t.harn:3:16 |  t.harn:13:1"},
		{"store", `acc([1, "a"])`, "", "Type error: Cannot add int and string (line 9) @9:15 | acc t.harn:9:15 |  t.harn:13:1"},
	}
	runErrorCases(t, fns, cases)
}

// JUMP_FOR (a loop's jump back that runs the loop head) steps ranges,
// lists and other iterables, with continue and break, in nested loops.
func TestJumpFor(t *testing.T) {
	src := `var out = ""
for i in 0 to 5 exclusive {
  if i == 1 {
    continue
  }
  for c in ["a", "b", "c"] {
    if c == "b" {
      continue
    }
    if i == 3 && c == "c" {
      break
    }
    out = out + "${i}${c} "
  }
  for k in {x: 1, y: 2} {
    out = out + k.key
  }
  out = out + "|"
}
println(out)`
	out, e := runError(t, src)
	want := "0a 0c xy|2a 2c xy|3a xy|4a 4c xy|\n"
	if e != nil || out != want {
		t.Errorf("got %q %v, want %q", out, e, want)
	}
}

package vm

import "github.com/harnlang/harn/compiler"

// Operators shared by the plain instructions (ADD … GE) and the
// superinstructions the peephole pass makes of them (LOCAL_BINOP and
// friends), so both compute exactly the same thing.

// binary applies op, one of ADD SUB MUL DIV MOD POW EQ NE LT GT LE GE, to
// x and y.
func binary(op compiler.Opcode, x, y Value) (Value, error) {
	if a, ok := x.AsInt(); ok {
		if b, ok := y.AsInt(); ok {
			if v, ok := intBinary(op, int64(a), int64(b)); ok {
				return v, nil
			}
		}
	}
	switch op {
	case compiler.EQ, compiler.NE:
		eq, err := EqualChecked(x, y)
		if err != nil {
			return Value{}, err
		}
		return BoolOf(eq == (op == compiler.EQ)), nil
	case compiler.LT, compiler.GT, compiler.LE, compiler.GE:
		return BoolOf(ordered(op, Compare(x, y), x, y)), nil
	}
	return Arith(op, x, y)
}

// intBinary is binary's fast path for two ints; false when op needs the
// general path (division by a non-positive int, POW).
func intBinary(op compiler.Opcode, a, b int64) (Value, bool) {
	switch op {
	case compiler.ADD, compiler.SUB, compiler.MUL:
		return intArith(op, a, b), true
	case compiler.MOD:
		if b > 0 {
			return IntOf(a % b), true
		}
	case compiler.DIV:
		if b > 0 {
			return IntOf(a / b), true
		}
	case compiler.EQ:
		return BoolOf(a == b), true
	case compiler.NE:
		return BoolOf(a != b), true
	case compiler.LT:
		return BoolOf(a < b), true
	case compiler.GT:
		return BoolOf(a > b), true
	case compiler.LE:
		return BoolOf(a <= b), true
	case compiler.GE:
		return BoolOf(a >= b), true
	}
	return Value{}, false
}

// ordered is the result of comparison op given Compare's c: false for
// NaN and for values with no order between them.
func ordered(op compiler.Opcode, c int, x, y Value) bool {
	var r bool
	switch op {
	case compiler.LT:
		r = c < 0
	case compiler.GT:
		r = c > 0
	case compiler.LE:
		r = c <= 0
	default:
		r = c >= 0
	}
	if c == 0 && (isNaNPair(x, y) || unordered(x, y)) {
		r = false
	}
	return r
}

// localBinop computes a LOCAL_BINOP family instruction whose operands
// start at code[pc]: slot i op (slot x | literal x | constant x).
func localBinop(code []int32, pc int, stack []Value, base int, rt *funcRT) (Value, error) {
	a := stack[base+int(code[pc])]
	op := compiler.Opcode(code[pc+3])
	x := code[pc+1]
	var b Value
	switch code[pc+2] {
	case 0:
		b = stack[base+int(x)]
	case 1:
		if ai, ok := a.AsInt(); ok {
			if v, ok := intBinary(op, int64(ai), int64(x)); ok {
				return v, nil
			}
		}
		b = IntOf(int64(x))
	default:
		b = rt.consts[x]
	}
	return binary(op, a, b)
}

// intCompare is intBinary for the comparisons, without making a Bool:
// small enough to inline into the compare-and-branch superinstructions.
// ok is false when op is not a comparison.
func intCompare(op compiler.Opcode, a, b int64) (r, ok bool) {
	switch op {
	case compiler.LT:
		return a < b, true
	case compiler.GT:
		return a > b, true
	case compiler.LE:
		return a <= b, true
	case compiler.GE:
		return a >= b, true
	case compiler.EQ:
		return a == b, true
	case compiler.NE:
		return a != b, true
	}
	return false, false
}

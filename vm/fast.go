package vm

import (
	"math/bits"

	"github.com/harnlang/harn/compiler"
)

// fastOps are the opcodes at which run hands over to runFast.
var fastOps = [...]bool{
	compiler.LOAD_LOCAL: true, compiler.STORE_LOCAL: true, compiler.CONST: true, compiler.INT: true,
	compiler.POP: true, compiler.LOAD_FREE: true, compiler.LOAD_GLOBAL: true, compiler.CLOSE_ITER: true,
	compiler.JUMP: true, compiler.JUMP_IF_FALSE: true, compiler.JUMP_IF_TRUE: true,
	compiler.FOR_NEXT_STORE: true, compiler.JUMP_FOR: true,
	compiler.LOCAL_BINOP: true, compiler.LOCAL_BINOP_STORE: true, compiler.LOCAL_BINOP_JUMP: true,
	compiler.CONST_BINOP_JUMP: true,
	compiler.ADD:              true, compiler.SUB: true, compiler.MUL: true, compiler.EQ: true, compiler.NE: true,
	compiler.LT: true, compiler.GT: true, compiler.LE: true, compiler.GE: true,
	compiler.BINOP_STORE: true, compiler.BINOP_RETURN: true,
	compiler.RETURN: true, compiler.RETURN_LOCAL: true,
	compiler.MOD: true, compiler.DIV: true,
	compiler.CALLEE_GLOBAL: true, compiler.CALLEE_LOCAL: true,
	compiler.LOCAL_CALL_METHOD: true, compiler.LOCALS_CALL_METHOD: true,
	compiler.LOCAL_GET_PROP: true, compiler.GET_PROP: true, compiler.METHOD_PUSH_LOCAL: true,
	// not CALL: run reaches it after a slow instruction, mostly a
	// builtin's CALLEE_NAME, and a builtin's call is not runFast's
}

// minFastRun is the fewest code words runFast must run to pay for the
// hand-over to it and back (run remembers entry points that ran fewer).
const minFastRun = 6

// runFast runs the common case of the hottest instructions: the ones it
// can finish without calling a Go function. It stops, with the frame's pc
// on the instruction and th.sp saved, at the first instruction it cannot
// finish that way (another opcode, an operand of another kind, a cache
// miss, a call needing a bigger stack, an interrupt check, a return that
// leaves a nested run), which run then executes in full. If the run's
// last frame returns, runFast pops it and returns its result with done
// set, as run would.
//
// Why a second loop: Go keeps a loop variable in a register only if it is
// live across no call anywhere in the loop; otherwise it stores it at the
// loop head, on every instruction. run calls out from almost every case,
// so it stores about nine words per instruction. This loop makes no
// calls, so its state stays in registers. Each case either completes its
// instruction or leaves before changing anything, so run redoes it from
// scratch and every error keeps its message and position. Check with `go
// tool objdump -s 'runFast'` that no CALL crept in (write barriers are
// fine: they keep the registers).
func (th *Thread) runFast(startDepth int) (result Value, done bool) {
	fr := &th.frames[len(th.frames)-1]
	rt := fr.cl.rt
	code := fr.cl.Proto.Code
	pc, base := fr.pc, fr.base
	stack, sp := th.stack, th.sp
	var a, b Int // intOp's operands
	var bop compiler.Opcode
	var ok, ok2 bool
	var callee *Closure // enter's call
	var calleeBase int
	var calleeMethod bool
loop:
	for {
		op := compiler.Opcode(code[pc])
		pc++
		switch op {
		case compiler.LOAD_LOCAL:
			stack[sp] = stack[base+int(code[pc])]
			pc++
			sp++
		case compiler.STORE_LOCAL:
			sp--
			stack[base+int(code[pc])] = stack[sp]
			stack[sp] = Value{}
			pc++
		case compiler.CONST:
			stack[sp] = rt.consts[code[pc]]
			pc++
			sp++
		case compiler.INT:
			stack[sp] = IntOf(int64(code[pc]))
			pc++
			sp++
		case compiler.POP:
			sp--
			stack[sp] = Value{}
		case compiler.CLOSE_ITER:
			if len(th.openIters) != 0 {
				break loop
			}
			pc++
		case compiler.LOAD_FREE:
			v := fr.cl.Upvals[code[pc]].V
			if !v.IsValid() {
				break loop
			}
			stack[sp] = v
			sp++
			pc += 2
		case compiler.LOAD_GLOBAL:
			v := fr.cl.Module.Globals[code[pc]]
			if !v.IsValid() {
				break loop
			}
			stack[sp] = v
			sp++
			pc++

		case compiler.JUMP:
			t := int(code[pc])
			if t < pc {
				if (th.ticks+1)&1023 == 0 {
					break loop
				}
				th.ticks++
			}
			pc = t
		case compiler.JUMP_IF_FALSE, compiler.JUMP_IF_TRUE:
			t, ok := fastTruth(stack[sp-1])
			if !ok {
				break loop
			}
			sp--
			stack[sp] = Value{}
			if t == (op == compiler.JUMP_IF_TRUE) {
				pc = int(code[pc])
			} else {
				pc++
			}
		case compiler.FOR_NEXT_STORE, compiler.JUMP_FOR:
			at := pc // FOR_NEXT_STORE's operands
			if op == compiler.JUMP_FOR {
				// the loop's jump back runs the loop head it lands on
				at = int(code[pc]) + 1
			}
			if (th.ticks+1)&1023 == 0 {
				break loop
			}
			it := (*iterSlot)(stack[base+int(code[at])].p).it
			if r, ok := it.(*rangeIter); ok {
				if r.remaining <= 0 {
					pc = int(code[at+1])
					break
				}
				stack[base+int(code[at+2])] = IntOf(r.next)
				r.next++
				r.remaining--
			} else if s, ok := it.(*sliceIter); ok {
				if s.i >= len(s.items) {
					pc = int(code[at+1])
					break
				}
				stack[base+int(code[at+2])] = s.items[s.i]
				s.i++
			} else {
				break loop
			}
			th.ticks++
			pc = at + 4

		case compiler.LOCAL_BINOP, compiler.LOCAL_BINOP_STORE, compiler.LOCAL_BINOP_JUMP:
			// slot i op (slot x | literal x), both ints
			if a, ok = stack[base+int(code[pc])].AsInt(); !ok {
				break loop
			}
			switch code[pc+2] {
			case 0:
				if b, ok = stack[base+int(code[pc+1])].AsInt(); !ok {
					break loop
				}
			case 1:
				b = Int(code[pc+1])
			default:
				break loop
			}
			bop = compiler.Opcode(code[pc+3])
			if op == compiler.LOCAL_BINOP_JUMP {
				r, ok := intCompare(bop, int64(a), int64(b))
				if !ok {
					break loop
				}
				if r {
					pc += 6
				} else {
					pc = int(code[pc+4])
				}
				break
			}
			goto intOp
		case compiler.CONST_BINOP_JUMP:
			a, ok := stack[sp-1].AsInt()
			if !ok || code[pc+1] != 1 {
				break loop
			}
			r, ok := intCompare(compiler.Opcode(code[pc+2]), int64(a), int64(code[pc]))
			if !ok {
				break loop
			}
			sp--
			stack[sp] = Value{}
			if r {
				pc += 4
			} else {
				pc = int(code[pc+3])
			}
		case compiler.ADD, compiler.SUB, compiler.MUL, compiler.DIV, compiler.MOD, compiler.EQ, compiler.NE, compiler.LT, compiler.GT, compiler.LE, compiler.GE:
			a, ok = stack[sp-2].AsInt()
			b, ok2 = stack[sp-1].AsInt()
			if !ok || !ok2 {
				break loop
			}
			bop = op
			goto intOp
		case compiler.BINOP_STORE, compiler.BINOP_RETURN:
			a, ok = stack[sp-2].AsInt()
			b, ok2 = stack[sp-1].AsInt()
			if !ok || !ok2 {
				break loop
			}
			bop = compiler.Opcode(code[pc])
			goto intOp

		case compiler.RETURN:
			goto doReturn
		case compiler.RETURN_LOCAL:
			stack[sp] = stack[base+int(code[pc])]
			sp++
			goto doReturn

		case compiler.CALLEE_GLOBAL:
			v := fr.cl.Module.Globals[code[pc]]
			if !v.is(KClosure) {
				break loop
			}
			stack[sp] = v
			sp++
			pc += 2
		case compiler.CALLEE_LOCAL:
			v := stack[base+int(code[pc])]
			if !v.is(KClosure) {
				break loop
			}
			stack[sp] = v
			sp++
			pc += 2
		case compiler.CALL:
			n := int(code[pc])
			fnv := stack[sp-n-1]
			if !fnv.is(KClosure) {
				break loop
			}
			c := (*Closure)(fnv.p)
			proto := c.Proto
			k := len(th.frames)
			if !proto.Simple || n != len(proto.Params) || c.rt == nil || k >= MaxFrames || k >= cap(th.frames) ||
				sp+proto.NumLocals+proto.MaxStack+2 > len(stack) || (th.ticks+1)&1023 == 0 {
				break loop
			}
			th.ticks++
			fr.pc = pc + 1
			callee, calleeBase, calleeMethod = c, sp-n, false
			goto enter

		case compiler.LOCAL_CALL_METHOD, compiler.LOCALS_CALL_METHOD:
			// r.area() or t + r.area(): the receiver is local i or j,
			// CALL_METHOD s 0 c follows; an impl method cache hit
			at, recv, pushed := pc+2, stack[base+int(code[pc])], 1 // at: CALL_METHOD's operands
			if op == compiler.LOCALS_CALL_METHOD {
				at, recv, pushed = pc+4, stack[base+int(code[pc+2])], 2
			}
			if !recv.is(KStruct) {
				break loop
			}
			e := rt.caches.methods[code[at+2]].Load()
			if e == nil || e.impl == nil || !sameString(e.strct, (*StructValue)(recv.p).Name) || e.epoch != th.vm.implEpoch.Load() {
				break loop
			}
			m := e.impl
			proto := m.Proto
			k := len(th.frames)
			if !proto.Simple || len(proto.Params) != 1 || m.rt == nil || k >= MaxFrames || k >= cap(th.frames) ||
				sp+pushed+proto.NumLocals+proto.MaxStack+2 > len(stack) || (th.ticks+1)&1023 == 0 {
				break loop
			}
			th.ticks++
			if pushed == 2 {
				stack[sp] = stack[base+int(code[pc])]
				sp++
			}
			stack[sp] = recv
			sp++
			fr.pc = at + 3
			callee, calleeBase, calleeMethod = m, sp-1, true
			goto enter
		case compiler.METHOD_PUSH_LOCAL:
			// x = x.push(v) on the list only x holds, with room
			l, ok := stack[sp-2].AsList()
			if !ok || !l.appendable() {
				break loop
			}
			if held, _ := stack[base+int(code[pc+4])].AsList(); held != l || len(l.items) == cap(l.items) {
				break loop
			}
			n := len(l.items)
			l.items = l.items[:n+1]
			l.items[n] = stack[sp-1]
			stack[sp-2], stack[sp-1] = Value{}, Value{}
			sp -= 2
			pc += 5
		case compiler.LOCAL_GET_PROP:
			x := stack[base+int(code[pc])]
			if !x.is(KStruct) {
				break loop
			}
			sv := (*StructValue)(x.p)
			i := int(rt.caches.fields[code[pc+2]].Load())
			if i >= len(sv.Fields) || !sameString(sv.Fields[i].Name, rt.fn.Names[code[pc+1]]) {
				break loop
			}
			stack[sp] = sv.Fields[i].Value
			sp++
			pc += 4
		case compiler.GET_PROP:
			x := stack[sp-1]
			if !x.is(KStruct) {
				break loop
			}
			sv := (*StructValue)(x.p)
			i := int(rt.caches.fields[code[pc+1]].Load())
			if i >= len(sv.Fields) || !sameString(sv.Fields[i].Name, rt.fn.Names[code[pc]]) {
				break loop
			}
			stack[sp-1] = sv.Fields[i].Value
			pc += 2
		default:
			break loop
		}
		continue

	intOp:
		// a op b on ints where it cannot overflow (intBinary's cases
		// but /, % and overflow), its result stored as op says
		{
			var v Value
			switch bop {
			case compiler.ADD:
				s := a + b
				if (s > a) != (b > 0) {
					break loop
				}
				v = IntOf(int64(s))
			case compiler.SUB:
				s := a - b
				if (s < a) != (b > 0) {
					break loop
				}
				v = IntOf(int64(s))
			case compiler.MUL:
				// the signed high word of the 128-bit product must be
				// the low word's sign
				hi, lo := bits.Mul64(uint64(a), uint64(b))
				h := int64(hi)
				if a < 0 {
					h -= int64(b)
				}
				if b < 0 {
					h -= int64(a)
				}
				if h != int64(lo)>>63 {
					break loop
				}
				v = IntOf(int64(lo))
			case compiler.DIV, compiler.MOD:
				if b <= 0 {
					break loop
				}
				if bop == compiler.DIV {
					v = IntOf(int64(a / b))
				} else {
					v = IntOf(int64(a % b))
				}
			default:
				r, ok := intCompare(bop, int64(a), int64(b))
				if !ok {
					break loop
				}
				v = BoolOf(r)
			}
			switch op {
			case compiler.LOCAL_BINOP:
				stack[sp] = v
				sp++
				pc += 4
			case compiler.LOCAL_BINOP_STORE:
				stack[base+int(code[pc+4])] = v
				pc += 6
			case compiler.BINOP_STORE:
				sp -= 2
				stack[sp], stack[sp+1] = Value{}, Value{}
				stack[base+int(code[pc+1])] = v
				pc += 2
			case compiler.BINOP_RETURN:
				sp -= 2
				stack[sp+1] = Value{}
				stack[sp] = v
				sp++
				goto doReturn
			default: // ADD ... GE
				sp--
				stack[sp] = Value{}
				stack[sp-1] = v
			}
			continue
		}

	enter:
		// run's enterSimple, once the caller checked that there is room
		{
			proto := callee.Proto
			nparams := len(proto.Params)
			for i := calleeBase + nparams; i < calleeBase+proto.NumLocals; i++ {
				stack[i] = Value{}
			}
			sp = calleeBase + proto.NumLocals
			k := len(th.frames)
			th.frames = th.frames[:k+1]
			fr = &th.frames[k]
			fr.cl, fr.pc, fr.base, fr.argc = callee, 0, calleeBase, nparams
			fr.handlers = fr.handlers[:0]
			fr.tails = fr.tails[:0]
			fr.nested, fr.callback, fr.method = false, false, calleeMethod
			rt, code, pc, base = callee.rt, proto.Code, 0, calleeBase
			continue
		}

	doReturn:
		// run's doReturn for a frame that is not the run's last
		v := stack[sp-1]
		ret := fr.result()
		for i := ret; i < sp; i++ {
			stack[i] = Value{}
		}
		nested := fr.nested
		th.frames = th.frames[:len(th.frames)-1]
		sp = ret
		if nested || len(th.frames) < startDepth {
			th.sp = sp
			return v, true
		}
		fr = &th.frames[len(th.frames)-1]
		pc, base = fr.pc, fr.base
		rt, code = fr.cl.rt, fr.cl.Proto.Code
		stack[sp] = v
		sp++
	}
	fr.pc = pc - 1
	th.sp = sp
	return Value{}, false
}

// fastTruth is truth for the kinds whose truth needs no call.
func fastTruth(v Value) (t, ok bool) {
	switch v.p {
	case tag(KBool), tag(KInt):
		return v.n != 0, true
	case tag(KNil):
		return false, true
	}
	return false, false
}

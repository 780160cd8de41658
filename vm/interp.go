package vm

import (
	"fmt"
	"strings"
	"time"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
)

// errBox carries a failure on the operand stack into a catch path.
type errBox struct{ err *Error }

func (*errBox) Type() string { return "error" }
func (*errBox) Truth() bool  { return true }
func (e *errBox) Display(sb *strings.Builder) {
	sb.WriteString(e.err.UncaughtText())
}

// iterSlot holds a for loop's iterator in a frame slot.
type iterSlot struct{ it Iterator }

func (*iterSlot) Type() string { return "iter" }
func (*iterSlot) Truth() bool  { return true }
func (*iterSlot) Display(sb *strings.Builder) {
	sb.WriteString("<iter>")
}

// run executes frames until the frame that started this run returns, and
// yields its result. startDepth is the frame count with that frame on top:
// the top frame when the run starts, except after runFast began the run
// (Callback1) and left in a frame it entered.
//
// Inlining: Go inlines only the smallest helpers (cost 20 or less) into a
// function as large as run, and every call it makes instead spills the
// loop's state around it. So the hot paths spell out what would otherwise
// be a helper call: the field guess of cache.go, the impl method cache
// check, int arithmetic that cannot overflow and entering a simple frame
// (enterSimple, shared by CALL and CALL_METHOD).
func (th *Thread) run(startDepth int) (Value, error) {
	fr := &th.frames[len(th.frames)-1]
	cl := fr.cl
	rt := cl.rt
	code := cl.Proto.Code
	pc := fr.pc
	base := fr.base
	stack := th.stack
	sp := th.sp
	var opPC int
	var err error
	// the call enterSimple makes
	var callee *Closure
	var calleeBase int
	var calleeMethod bool

	// reload refreshes the cached frame state after calls and unwinding.
	reload := func() {
		fr = &th.frames[len(th.frames)-1]
		cl, pc, base = fr.cl, fr.pc, fr.base
		rt, code = cl.rt, cl.Proto.Code
		stack = th.stack
		sp = th.sp
	}
	// save writes the cached state back before anything that may call out.
	save := func() {
		fr.pc = pc
		th.sp = sp
	}

loop:
	for {
		if op := code[pc]; uint32(op) < uint32(len(fastOps)) && fastOps[op] && !rt.slowEntry[pc].Load() {
			entry, entryFr, entryRT := pc, fr, rt
			save()
			if v, done := th.runFast(startDepth); done {
				return v, nil
			}
			reload()
			if fr == entryFr && rt == entryRT && pc >= entry && pc-entry < minFastRun {
				// not worth the hand-over: enter at the next
				// instruction from now on
				rt.slowEntry[entry].Store(true)
			}
		}
		opPC = pc
		op := compiler.Opcode(code[pc])
		pc++
		switch op {
		case compiler.NOP:
		case compiler.POP:
			sp--
			stack[sp] = Value{}
		case compiler.POPN:
			n := int(code[pc])
			pc++
			for i := 0; i < n; i++ {
				sp--
				stack[sp] = Value{}
			}
		case compiler.DUP:
			stack[sp] = stack[sp-1]
			sp++
		case compiler.DUP2:
			stack[sp] = stack[sp-2]
			stack[sp+1] = stack[sp-1]
			sp += 2
		case compiler.CONST:
			stack[sp] = rt.consts[code[pc]]
			pc++
			sp++
		case compiler.NIL:
			stack[sp] = Nil
			sp++
		case compiler.TRUE:
			stack[sp] = True
			sp++
		case compiler.FALSE:
			stack[sp] = False
			sp++
		case compiler.INT:
			stack[sp] = IntOf(int64(code[pc]))
			pc++
			sp++

		case compiler.LOAD_LOCAL:
			stack[sp] = stack[base+int(code[pc])]
			pc++
			sp++
		case compiler.LOAD_LOCAL_CK:
			v := stack[base+int(code[pc])]
			if !v.IsValid() {
				err = th.undefinedVariable(rt.fn.Names[code[pc+1]], cl.Module, rt.fn.LocalNames[int(code[pc+1])]...)
				break loop
			}
			pc += 2
			stack[sp] = v
			sp++
		case compiler.LOAD_LOCAL_SH:
			v := stack[base+int(code[pc])]
			share(v)
			stack[sp] = v
			pc++
			sp++
		case compiler.LOAD_GLOBAL_SH:
			g := int(code[pc])
			v := cl.Module.Globals[g]
			if !v.IsValid() {
				if v, err = th.unboundGlobal(cl.Module, g); err != nil {
					break loop
				}
			}
			share(v)
			stack[sp] = v
			sp++
			pc++
		case compiler.STORE_LOCAL:
			sp--
			stack[base+int(code[pc])] = stack[sp]
			stack[sp] = Value{}
			pc++
		case compiler.MAKE_CELL:
			stack[base+int(code[pc])] = Of(&Cell{})
			pc++
		case compiler.CELLIFY:
			i := base + int(code[pc])
			stack[i] = Of(&Cell{V: stack[i]})
			pc++
		case compiler.LOAD_CELL:
			c, _ := stack[base+int(code[pc])].AsCell()
			if c == nil || !c.V.IsValid() {
				err = th.undefinedVariable(rt.fn.Names[code[pc+1]], cl.Module, rt.fn.LocalNames[int(code[pc+1])]...)
				break loop
			}
			stack[sp] = c.V
			sp++
			pc += 2
		case compiler.STORE_CELL:
			sp--
			i := base + int(code[pc])
			c, _ := stack[i].AsCell()
			if c == nil {
				c = &Cell{}
				stack[i] = Of(c)
			}
			c.V = stack[sp]
			stack[sp] = Value{}
			pc++
		case compiler.LOAD_FREE:
			v := cl.Upvals[code[pc]].V
			if !v.IsValid() {
				err = th.undefinedVariable(rt.fn.Names[code[pc+1]], cl.Module, rt.fn.LocalNames[int(code[pc+1])]...)
				break loop
			}
			stack[sp] = v
			sp++
			pc += 2
		case compiler.STORE_FREE:
			sp--
			cl.Upvals[code[pc]].V = stack[sp]
			stack[sp] = Value{}
			pc++
		case compiler.LOAD_GLOBAL:
			g := int(code[pc])
			v := cl.Module.Globals[g]
			if !v.IsValid() {
				if v, err = th.unboundGlobal(cl.Module, g); err != nil {
					break loop
				}
			}
			stack[sp] = v
			sp++
			pc++
		case compiler.STORE_GLOBAL:
			g := int(code[pc])
			m := cl.Module
			if !m.Globals[g].IsValid() {
				err = th.undefinedVariable(m.Prog.Globals[g].Name, m)
				break loop
			}
			if m.consts[g] != 0 {
				err = Plainf("Cannot assign to immutable binding: %s", m.Prog.Globals[g].Name)
				break loop
			}
			sp--
			m.Globals[g] = stack[sp]
			stack[sp] = Value{}
			pc++
		case compiler.DEF_GLOBAL:
			g, kind := int(code[pc]), uint8(code[pc+1])
			m := cl.Module
			if kind == 1 && m.consts[g] == 1 && m.Globals[g].IsValid() {
				err = Plainf("Cannot redeclare immutable variable '%s' in the same scope (use 'var' for mutable bindings)", m.Prog.Globals[g].Name)
				break loop
			}
			sp--
			m.Globals[g] = stack[sp]
			m.consts[g] = kind
			stack[sp] = Value{}
			pc += 2
		case compiler.LOAD_UNIV:
			s := code[pc]
			v := rt.univ[s]
			if !v.IsValid() {
				v = th.universal(rt.fn.Names[s])
				if !v.IsValid() {
					err = th.undefinedVariable(rt.fn.Names[s], cl.Module)
					break loop
				}
				rt.univ[s] = v
			}
			stack[sp] = v
			sp++
			pc++
		case compiler.LOAD_NAME:
			name := rt.fn.Names[code[pc]]
			v, ok := rt.global(cl.Module, int(code[pc]))
			if !ok {
				v = th.universal(name)
			}
			if !v.IsValid() {
				err = th.undefinedVariable(name, cl.Module, rt.fn.LocalNames[int(code[pc])]...)
				break loop
			}
			stack[sp] = v
			sp++
			pc++

		case compiler.CALLEE_GLOBAL:
			// a call of a module function (fib calling fib): its own
			// case, the closure test first
			v := cl.Module.Globals[code[pc]]
			if !v.is(KClosure) && !isCallee(v) {
				if v, err = th.builtinCallee(rt, int(code[pc+1]), cl.Module); err != nil {
					break loop
				}
			}
			stack[sp] = v
			sp++
			pc += 2
		case compiler.CALLEE_LOCAL, compiler.CALLEE_CELL, compiler.CALLEE_FREE:
			var v Value
			i := code[pc]
			switch op {
			case compiler.CALLEE_LOCAL:
				v = stack[base+int(i)]
			case compiler.CALLEE_CELL:
				if c, ok := stack[base+int(i)].AsCell(); ok {
					v = c.V
				}
			case compiler.CALLEE_FREE:
				v = cl.Upvals[i].V
			}
			if !isCallee(v) {
				if v, err = th.builtinCallee(rt, int(code[pc+1]), cl.Module); err != nil {
					break loop
				}
			}
			stack[sp] = v
			sp++
			pc += 2
		case compiler.CALLEE_UNIV:
			v, cerr := th.builtinCallee(rt, int(code[pc]), cl.Module)
			if cerr != nil {
				err = cerr
				break loop
			}
			stack[sp] = v
			sp++
			pc++
		case compiler.CALLEE_NAME:
			s := int(code[pc])
			v, ok := rt.global(cl.Module, s)
			if !ok || !isCallee(v) {
				if v, err = th.builtinCallee(rt, s, cl.Module); err != nil {
					break loop
				}
			}
			stack[sp] = v
			sp++
			pc++

		case compiler.NAME_CALL_LOCAL, compiler.CALL_ENTRY:
			if op == compiler.NAME_CALL_LOCAL {
				// f(x) by name with x local: a builtin is called with
				// the argument in place of its callee slot; anything
				// else is pushed, and CALL at pc+3 runs
				s := int(code[pc])
				v, ok := rt.global(cl.Module, s)
				if !ok || !isCallee(v) {
					if v, err = th.builtinCallee(rt, s, cl.Module); err != nil {
						break loop
					}
				}
				x := stack[base+int(code[pc+2])]
				opPC = pc + 3
				if v.is(KBuiltin) {
					pc += 5
					if (*Builtin)(v.p).toString && x.p == tag(KInt) {
						// to_string(i): the text is made here, and
						// straight into the string an ADD after it adds
						// it to (the operator cannot fail on two strings)
						switch next := compiler.Opcode(code[pc]); {
						case next == compiler.ADD:
							if r, ok := concatIntText(stack[sp-1], x.int64()); ok {
								stack[sp-1] = r
								pc++
								continue
							}
						case next == compiler.BINOP_STORE && compiler.Opcode(code[pc+1]) == compiler.ADD:
							if r, ok := concatIntText(stack[sp-1], x.int64()); ok {
								sp--
								stack[sp] = Value{}
								stack[base+int(code[pc+2])] = r
								pc += 3
								continue
							}
						}
						stack[sp] = intText(x.int64())
						sp++
						continue
					}
					stack[sp] = x
					fr.pc, th.sp = pc, sp+1
					r, cerr := th.callBuiltin((*Builtin)(v.p), stack[sp:sp+1:sp+1])
					fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
					if cerr != nil {
						stack[sp] = Value{}
						err = cerr
						break loop
					}
					stack[sp] = r
					sp++
					continue
				}
				stack[sp], stack[sp+1] = v, x
				sp += 2
				pc += 4
				op = compiler.CALL
			} else {
				// n arguments holding no value: ARGC_GT counts them as not
				// passed, and reading one is Undefined variable (§5.5)
				n := int(code[pc])
				save()
				th.ensure(n)
				stack = th.stack
				for i := 0; i < n; i++ {
					stack[sp] = Value{}
					sp++
				}
			}
			fallthrough
		case compiler.CALL, compiler.TAILCALL:
			n := int(code[pc])
			pc++
			fnv := stack[sp-n-1]
			if fnv.is(KClosure) && !(*Closure)(fnv.p).Proto.IsGen && !(*Closure)(fnv.p).Proto.IsStream {
				c := (*Closure)(fnv.p)
				if th.ticks++; th.ticks&1023 == 0 {
					// recursion without loops (tail calls included) still
					// sees cancellation, deadlines and Ctrl-C
					if err = th.checkInterrupt(); err != nil {
						break loop
					}
				}
				if op == compiler.TAILCALL && !fr.nested && !fr.method && len(fr.handlers) == 0 {
					// reuse the frame: move callee and arguments down
					dst := fr.base - 1
					copy(stack[dst:], stack[sp-n-1:sp])
					for i := dst + n + 1; i < sp; i++ {
						stack[i] = Value{}
					}
					tails := addTail(fr.tails, rt.fn, opPC)
					fr.tails = nil // the slot is reused: pushFrame must not clear them
					th.frames = th.frames[:len(th.frames)-1]
					// pushFrame may grow the stack, copying it up to th.sp:
					// the moved callee and arguments must be inside.
					th.sp = dst + n + 1
					if err = th.pushFrame(c, n, dst+1); err != nil {
						break loop
					}
					th.frames[len(th.frames)-1].tails = tails
					reload()
					continue
				}
				if len(th.frames) >= MaxFrames {
					err = Plainf("Stack overflow: too many nested calls")
					break loop
				}
				save()
				if c.Proto.Simple && n == len(c.Proto.Params) && c.rt != nil {
					callee, calleeBase, calleeMethod = c, sp-n, false
					goto enterSimple
				}
				if err = th.pushFrame(c, n, sp-n); err != nil {
					break loop
				}
				reload()
				continue
			}
			save()
			v, cerr := th.callValue(fnv, stack[sp-n:sp:sp])
			fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
			if cerr != nil {
				err = cerr
				break loop
			}
			for i := sp - n - 1; i < sp; i++ {
				stack[i] = Value{}
			}
			sp -= n + 1
			stack[sp] = v
			sp++
			if op == compiler.TAILCALL {
				goto doReturn
			}
		case compiler.CALL_SPREAD:
			argl, _ := stack[sp-1].AsList()
			fnv := stack[sp-2]
			sp -= 2
			stack[sp], stack[sp+1] = Value{}, Value{}
			args := argl.Items()
			if c, ok := fnv.AsClosure(); ok && !c.Proto.IsGen && !c.Proto.IsStream {
				if len(th.frames) >= MaxFrames {
					err = Plainf("Stack overflow: too many nested calls")
					break loop
				}
				th.sp = sp
				th.ensure(len(args) + 1 + c.Proto.NumLocals + c.Proto.MaxStack)
				fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
				stack[sp] = fnv
				sp++
				copy(stack[sp:], args)
				sp += len(args)
				save()
				if err = th.pushFrame(c, len(args), sp-len(args)); err != nil {
					break loop
				}
				reload()
				continue
			}
			save()
			v, cerr := th.callValue(fnv, append([]Value(nil), args...))
			fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
			if cerr != nil {
				err = cerr
				break loop
			}
			stack[sp] = v
			sp++
		case compiler.LOCAL_CALL_METHOD, compiler.LOCALS_CALL_METHOD, compiler.METHOD_PUSH_LOCAL, compiler.METHOD_PUSH_GLOBAL:
			if op == compiler.LOCALS_CALL_METHOD {
				// push both locals, then CALL_METHOD at pc+3
				stack[sp] = stack[base+int(code[pc])]
				stack[sp+1] = stack[base+int(code[pc+2])]
				sp += 2
				opPC = pc + 3
				pc += 4
				op = compiler.CALL_METHOD
			} else if op == compiler.LOCAL_CALL_METHOD {
				// push the receiver, then CALL_METHOD at pc+1, operands
				// and all
				stack[sp] = stack[base+int(code[pc])]
				sp++
				opPC = pc + 1
				pc += 2
				op = compiler.CALL_METHOD
			} else if l, ok := stack[sp-2].AsList(); ok {
				// x = x.push(v); the store follows at pc+3 (see own.go)
				var x *Value
				if op == compiler.METHOD_PUSH_LOCAL {
					x = &stack[base+int(code[pc+4])]
				} else {
					x = &cl.Module.Globals[code[pc+4]]
				}
				if held, _ := x.AsList(); held == l && l.appendable() {
					l.appendOwned(stack[sp-1])
					stack[sp-2], stack[sp-1] = Value{}, Value{}
					sp -= 2
					pc += 5
					continue
				}
				stack[sp-2], stack[sp-1] = Of(l.pushOwned(stack[sp-1])), Value{}
				sp--
				pc += 3
				continue
			}
			fallthrough
		case compiler.CALL_METHOD, compiler.CALL_METHOD_OPT:
			s, n, c := int(code[pc]), int(code[pc+1]), int(code[pc+2])
			pc += 3
			recv := stack[sp-n-1]
			var m *Closure
			hidden := false
			if recv.is(KStruct) {
				// the impl method cache check (implMethod's first
				// test), by hand
				sv := (*StructValue)(recv.p)
				if e := rt.caches.methods[c].Load(); e != nil && e.impl != nil && sameString(e.strct, sv.Name) && e.epoch == th.vm.implEpoch.Load() {
					m = e.impl
				} else {
					m, hidden = th.implMethod(rt, c, sv, rt.fn.Names[s])
				}
			}
			var v Value
			if hidden {
				v = Nil // no impl in scope (docs/spec/language.md §10.3)
			} else if m != nil {
				// An impl method runs as an ordinary frame whose window
				// starts at the receiver (its first parameter): there is
				// no callee slot, and the result replaces the receiver.
				if len(th.frames) >= MaxFrames {
					err = Plainf("Stack overflow: too many nested calls")
					break loop
				}
				if th.ticks++; th.ticks&1023 == 0 {
					if err = th.checkInterrupt(); err != nil {
						break loop
					}
				}
				save()
				if m.Proto.Simple && n+1 == len(m.Proto.Params) && m.rt != nil {
					callee, calleeBase, calleeMethod = m, sp-n-1, true
					goto enterSimple
				}
				th.pushFrame(m, n+1, sp-n-1)
				reload()
				fr.method = true
				continue
			} else if op == compiler.CALL_METHOD_OPT && recv.IsNil() {
				v = Nil
			} else if nm := th.nativeMethod(rt, c, recv, rt.fn.Names[s]); nm != nil {
				save()
				v, err = th.callNative(nm, recv, stack[sp-n:sp:sp])
				fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
				if err != nil {
					break loop
				}
			} else {
				save()
				v, err = th.callMethodAt(rt, c, recv, rt.fn.Names[s], stack[sp-n:sp:sp])
				fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
				if err != nil {
					break loop
				}
			}
			for i := sp - n - 1; i < sp; i++ {
				stack[i] = Value{}
			}
			sp -= n + 1
			stack[sp] = v
			sp++
		case compiler.CALL_METHOD_SP:
			s, opt, c := int(code[pc]), code[pc+1], int(code[pc+2])
			pc += 3
			argl, _ := stack[sp-1].AsList()
			recv := stack[sp-2]
			var v Value
			if opt == 1 && recv.IsNil() {
				v = Nil
			} else {
				save()
				v, err = th.callMethodAt(rt, c, recv, rt.fn.Names[s], append([]Value(nil), argl.Items()...))
				fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
				if err != nil {
					break loop
				}
			}
			sp -= 2
			stack[sp+1] = Value{}
			stack[sp] = v
			sp++
		case compiler.PIPE:
			fnv := stack[sp-1]
			x := stack[sp-2]
			save()
			v, perr := th.pipe(cl.Module, x, fnv)
			fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
			if perr != nil {
				err = perr
				break loop
			}
			sp -= 2
			stack[sp+1] = Value{}
			stack[sp] = v
			sp++
		case compiler.PIPE_CALLEE:
			fnv, perr := th.pipeCallee(cl.Module, stack[sp-1])
			if perr != nil {
				err = perr
				break loop
			}
			stack[sp-2], stack[sp-1] = fnv, stack[sp-2]
		case compiler.MAKE_CLOSURE:
			child := rt.children[code[pc]]
			pc++
			nc := &Closure{Proto: child.fn, Module: cl.Module, rt: child}
			if nf := len(child.fn.FreeVars); nf > 0 {
				nc.Upvals = make([]*Cell, nf)
				for i, fv := range child.fn.FreeVars {
					if fv.FromLocal {
						c, ok := stack[base+fv.Index].AsCell()
						if !ok {
							// a captured slot not yet turned into a cell
							c = &Cell{V: stack[base+fv.Index]}
							stack[base+fv.Index] = Of(c)
						}
						nc.Upvals[i] = c
					} else {
						nc.Upvals[i] = cl.Upvals[fv.Index]
					}
				}
			}
			stack[sp] = Of(nc)
			sp++

		case compiler.RETURN:
			goto doReturn
		case compiler.CONST_BINOP_JUMP:
			x, bop := code[pc], compiler.Opcode(code[pc+2])
			a := stack[sp-1]
			var v Value
			var berr error
			if code[pc+1] == 2 {
				v, berr = binary(bop, a, rt.consts[x])
			} else if ai, ok := a.AsInt(); ok {
				var fast bool
				if v, fast = intBinary(bop, int64(ai), int64(x)); !fast {
					v, berr = binary(bop, a, IntOf(int64(x)))
				}
			} else {
				v, berr = binary(bop, a, IntOf(int64(x)))
			}
			if berr != nil {
				opPC = pc + 1 // the operator of the fused sequence
				err = berr
				break loop
			}
			sp--
			stack[sp] = Value{}
			if truth(v) {
				pc += 4
			} else {
				pc = int(code[pc+3])
			}
		case compiler.RETURN_LOCAL:
			stack[sp] = stack[base+int(code[pc])]
			sp++
			goto doReturn
		case compiler.LOCAL_BINOP:
			if a, ok := stack[base+int(code[pc])].AsInt(); ok && code[pc+2] == 1 {
				// int plus or minus a literal (n - 1), inline; on
				// overflow the general path makes the float
				if bop := compiler.Opcode(code[pc+3]); bop == compiler.ADD || bop == compiler.SUB {
					x := int64(code[pc+1])
					if bop == compiler.SUB {
						x = -x
					}
					if s := int64(a) + x; (s > int64(a)) == (x > 0) {
						stack[sp] = IntOf(s)
						sp++
						pc += 4
						break
					}
				}
			}
			v, berr := localBinop(code, pc, stack, base, rt)
			if berr != nil {
				opPC = pc + 3 // the operator of the fused sequence
				err = berr
				break loop
			}
			stack[sp] = v
			sp++
			pc += 4
		case compiler.LOCAL_BINOP_STORE:
			v, berr := localBinop(code, pc, stack, base, rt)
			if berr != nil {
				opPC = pc + 3
				err = berr
				break loop
			}
			stack[base+int(code[pc+4])] = v
			pc += 6
		case compiler.LOCAL_BINOP_JUMP:
			if a, ok := stack[base+int(code[pc])].AsInt(); ok {
				// compare ints and branch without making a Bool
				b, bok := Int(code[pc+1]), code[pc+2] == 1
				if code[pc+2] == 0 {
					b, bok = stack[base+int(code[pc+1])].AsInt()
				}
				if bok {
					if r, ok := intCompare(compiler.Opcode(code[pc+3]), int64(a), int64(b)); ok {
						if r {
							pc += 6
						} else {
							pc = int(code[pc+4])
						}
						break
					}
				}
			}
			v, berr := localBinop(code, pc, stack, base, rt)
			if berr != nil {
				opPC = pc + 3
				err = berr
				break loop
			}
			if truth(v) {
				pc += 6
			} else {
				pc = int(code[pc+4])
			}

		case compiler.BINOP_STORE, compiler.BINOP_RETURN:
			x, y := stack[sp-2], stack[sp-1]
			bop := compiler.Opcode(code[pc])
			var v Value
			if a, ok := x.AsInt(); ok {
				if b, ok := y.AsInt(); ok {
					// a sum or difference that keeps the sign rule, a product of
					// two 32-bit values: no overflow (binary does the rest)
					switch bop {
					case compiler.ADD:
						if r := a + b; (r > a) == (b > 0) {
							v = IntOf(int64(r))
						}
					case compiler.SUB:
						if r := a - b; (r < a) == (b > 0) {
							v = IntOf(int64(r))
						}
					case compiler.MUL:
						if a == Int(int32(a)) && b == Int(int32(b)) {
							v = IntOf(int64(a * b))
						}
					}
				}
			}
			if !v.IsValid() {
				var berr error
				if v, berr = binary(bop, x, y); berr != nil {
					err = berr
					break loop
				}
			}
			sp -= 2
			stack[sp+1] = Value{}
			if op == compiler.BINOP_RETURN {
				stack[sp] = v
				sp++
				goto doReturn
			}
			stack[sp] = Value{}
			stack[base+int(code[pc+1])] = v
			pc += 2

		case compiler.JUMP:
			t := int(code[pc])
			if t < pc {
				if th.ticks++; th.ticks&1023 == 0 {
					if err = th.checkInterrupt(); err != nil {
						break loop
					}
				}
			}
			pc = t
		case compiler.JUMP_IF_FALSE:
			sp--
			v := stack[sp]
			stack[sp] = Value{}
			if !truth(v) {
				pc = int(code[pc])
			} else {
				pc++
			}
		case compiler.JUMP_IF_TRUE:
			sp--
			v := stack[sp]
			stack[sp] = Value{}
			if truth(v) {
				pc = int(code[pc])
			} else {
				pc++
			}
		case compiler.JUMP_IF_NOT_NIL:
			if !stack[sp-1].IsNil() {
				pc = int(code[pc])
			} else {
				sp--
				stack[sp] = Value{}
				pc++
			}
		case compiler.JUMP_IF_NIL:
			if stack[sp-1].IsNil() {
				pc = int(code[pc])
			} else {
				pc++
			}
		case compiler.ARGC_GT:
			// An argument slot holding no value (a tool handler's
			// left-out parameter, stdlib/tools) counts as not passed.
			if i := int(code[pc]); fr.argc > i && stack[base+i].IsValid() {
				pc = int(code[pc+1])
			} else {
				pc += 2
			}

		case compiler.ADD, compiler.SUB, compiler.MUL, compiler.DIV, compiler.MOD, compiler.POW:
			x, y := stack[sp-2], stack[sp-1]
			var v Value
			if a, ok := x.AsInt(); ok {
				if b, ok := y.AsInt(); ok {
					// a sum or difference that keeps the sign rule, a product of
					// two 32-bit values: no overflow (intArith does the rest)
					switch op {
					case compiler.ADD:
						if r := a + b; (r > a) == (b > 0) {
							v = IntOf(int64(r))
							goto arithDone
						}
						v = intArith(op, int64(a), int64(b))
						goto arithDone
					case compiler.SUB:
						if r := a - b; (r < a) == (b > 0) {
							v = IntOf(int64(r))
							goto arithDone
						}
						v = intArith(op, int64(a), int64(b))
						goto arithDone
					case compiler.MUL:
						if a == Int(int32(a)) && b == Int(int32(b)) {
							v = IntOf(int64(a * b))
							goto arithDone
						}
						v = intArith(op, int64(a), int64(b))
						goto arithDone
					case compiler.MOD:
						if b > 0 {
							v = IntOf(int64(a) % int64(b))
							goto arithDone
						}
					case compiler.DIV:
						if b > 0 {
							v = IntOf(int64(a) / int64(b))
							goto arithDone
						}
					}
				}
			}
			v, err = Arith(op, x, y)
			if err != nil {
				break loop
			}
		arithDone:
			sp--
			stack[sp] = Value{}
			stack[sp-1] = v
		case compiler.EQ, compiler.NE:
			if a, ok := stack[sp-2].AsInt(); ok {
				if b, ok := stack[sp-1].AsInt(); ok {
					sp--
					stack[sp-1] = BoolOf((a == b) == (op == compiler.EQ))
					stack[sp] = Value{}
					break
				}
			}
			eq, eerr := EqualChecked(stack[sp-2], stack[sp-1])
			if eerr != nil {
				err = eerr
				break loop
			}
			sp--
			stack[sp-1] = BoolOf(eq == (op == compiler.EQ))
			stack[sp] = Value{}
		case compiler.LT, compiler.GT, compiler.LE, compiler.GE:
			x, y := stack[sp-2], stack[sp-1]
			var c int
			if a, ok := x.AsInt(); ok {
				if b, ok := y.AsInt(); ok {
					c = cmpInt(int64(a), int64(b))
					goto cmpDone
				}
			}
			c = Compare(x, y)
		cmpDone:
			r := ordered(op, c, x, y)
			sp--
			stack[sp] = Value{}
			stack[sp-1] = BoolOf(r)
		case compiler.IN, compiler.NOT_IN:
			var r bool
			if d, ok := stack[sp-1].AsDict(); ok && stack[sp-2].isStr() {
				r = th.dictHas(d, stack[sp-2].str())
			} else if isNested(stack[sp-2]) {
				c, x := stack[sp-1], stack[sp-2]
				if err = catchDeep(func() { r = Contains(c, x) }); err != nil {
					break loop
				}
			} else {
				r = Contains(stack[sp-1], stack[sp-2])
			}
			if op == compiler.NOT_IN {
				r = !r
			}
			sp--
			stack[sp] = Value{}
			stack[sp-1] = BoolOf(r)
		case compiler.NOT:
			stack[sp-1] = BoolOf(!truth(stack[sp-1]))
		case compiler.TRUTH:
			stack[sp-1] = BoolOf(truth(stack[sp-1]))
		case compiler.NEG:
			v, nerr := Negate(stack[sp-1])
			if nerr != nil {
				err = nerr
				break loop
			}
			stack[sp-1] = v

		case compiler.MAKE_LIST:
			n := int(code[pc])
			pc++
			var l *List
			if n == 0 {
				l = &List{} // a fresh value: is_same([], []) is false
			} else {
				items := make([]Value, n)
				copy(items, stack[sp-n:sp])
				for i := sp - n; i < sp; i++ {
					stack[i] = Value{}
				}
				l = NewList(items)
			}
			sp -= n
			stack[sp] = Of(l)
			sp++
		case compiler.LIST_PUSH:
			l := stack[sp-2].Object().(*List)
			stack[sp-2] = Of(l.Push(stack[sp-1]))
			sp--
			stack[sp] = Value{}
		case compiler.LIST_EXTEND:
			l := stack[sp-2].Object().(*List)
			save()
			items, ok, serr := spreadItems(th, stack[sp-1])
			fr, stack = &th.frames[len(th.frames)-1], th.stack // an iterator's callbacks may have moved frames and stack
			if serr != nil {
				err = serr
				break loop
			}
			if !ok {
				err = Typef("cannot spread %s into a list", stack[sp-1].Type())
				break loop
			}
			if err = checkJoin("spreading into a list", int64(len(l.items))+int64(len(items)), valueSize); err != nil {
				break loop
			}
			stack[sp-2] = Of(l.Concat(items))
			sp--
			stack[sp] = Value{}
		case compiler.MAKE_DICT:
			n := int(code[pc])
			pc++
			if n == 0 {
				stack[sp] = Of(&Dict{})
				sp++
				break
			}
			d, derr := dictFromPairs(stack, sp, n)
			if derr != nil {
				err = derr
				break loop
			}
			sp -= 2 * n
			stack[sp] = Of(d)
			sp++
		case compiler.DICT_SET:
			d := stack[sp-3].Object().(*Dict)
			k, kerr := keyStringChecked(stack[sp-2])
			if kerr != nil {
				err = kerr
				break loop
			}
			stack[sp-3] = Of(d.Set(k, stack[sp-1]))
			sp -= 2
			stack[sp], stack[sp+1] = Value{}, Value{}
		case compiler.DICT_MERGE:
			d := stack[sp-2].Object().(*Dict)
			switch o := stack[sp-1].Object().(type) {
			case *Dict:
				stack[sp-2] = Of(d.Merge(o))
			case *StructValue:
				for _, f := range o.Fields {
					d = d.Set(f.Name, f.Value)
				}
				stack[sp-2] = Of(d)
			case nilValue:
			default:
				err = Typef("cannot spread %s into a dict", o.Type())
				break loop
			}
			sp--
			stack[sp] = Value{}
		case compiler.MAKE_RANGE:
			incl := code[pc] == 1
			pc++
			a, _ := stack[sp-2].AsInt()
			b, _ := stack[sp-1].AsInt()
			sp--
			stack[sp] = Value{}
			stack[sp-1] = Of(&Range{Start: int64(a), End: int64(b), Inclusive: incl})
		case compiler.MAKE_STRUCT:
			name := rt.fn.Names[code[pc]]
			n := int(code[pc+1])
			k := int(code[pc+2])
			pc += 3
			var sd *compiler.StructDef
			if k >= 0 {
				sd = constStructDef(rt, k)
			}
			var d *Dict
			if n < 0 {
				d, _ = stack[sp-1].AsDict()
				sp--
				stack[sp] = Value{}
			} else {
				var derr error
				if d, derr = dictFromPairs(stack, sp, n); derr != nil {
					err = derr
					break loop
				}
				sp -= 2 * n
			}
			if d == nil {
				d = EmptyDict
			}
			stack[sp] = Of(buildStruct(name, sd, d))
			sp++
		case compiler.MAKE_VARIANT:
			enum, variant, n := rt.fn.Names[code[pc]], rt.fn.Names[code[pc+1]], int(code[pc+2])
			pc += 3
			fields := make([]Value, n)
			copy(fields, stack[sp-n:sp])
			for i := sp - n; i < sp; i++ {
				stack[i] = Value{}
			}
			sp -= n
			if enum == "Result" && n == 0 {
				fields = []Value{Nil}
			}
			stack[sp] = Of(&EnumValue{Enum: enum, Variant: variant, Fields: fields})
			sp++
		case compiler.INTERP:
			n := int(code[pc])
			pc++
			var sb strings.Builder
			for i := sp - n; i < sp; i++ {
				if s, ok := stack[i].AsString(); ok {
					sb.WriteString(s.s)
				} else if isNested(stack[i]) {
					if err = catchDeep(func() { stack[i].Display(&sb) }); err != nil {
						break loop
					}
				} else {
					stack[i].Display(&sb)
				}
				stack[i] = Value{}
			}
			sp -= n
			stack[sp] = Str(sb.String())
			sp++

		case compiler.GET_PROP, compiler.GET_PROP_OPT:
			name := rt.fn.Names[code[pc]]
			c := int(code[pc+1])
			pc += 2
			if x := stack[sp-1]; x.is(KStruct) {
				// cache.go's field guess, by hand (see inlining)
				sv := (*StructValue)(x.p)
				if i := int(rt.caches.fields[c].Load()); i < len(sv.Fields) && sameString(sv.Fields[i].Name, name) {
					stack[sp-1] = sv.Fields[i].Value
				} else {
					stack[sp-1] = structFieldMiss(rt, c, sv, name)
				}
				break
			}
			v, gerr := GetProp(stack[sp-1], name, op == compiler.GET_PROP_OPT)
			if gerr != nil {
				err = gerr
				break loop
			}
			stack[sp-1] = v
		case compiler.LOCAL_GET_PROP:
			x := stack[base+int(code[pc])]
			name := rt.fn.Names[code[pc+1]]
			if x.is(KStruct) {
				sv, c := (*StructValue)(x.p), int(code[pc+2])
				if i := int(rt.caches.fields[c].Load()); i < len(sv.Fields) && sameString(sv.Fields[i].Name, name) {
					stack[sp] = sv.Fields[i].Value
				} else {
					stack[sp] = structFieldMiss(rt, c, sv, name)
				}
			} else {
				v, gerr := GetProp(x, name, false)
				if gerr != nil {
					opPC = pc + 1 // the GET_PROP of the fused sequence
					err = gerr
					break loop
				}
				stack[sp] = v
			}
			sp++
			pc += 4
		case compiler.GET_INDEX, compiler.GET_INDEX_OPT:
			x, i := stack[sp-2], stack[sp-1]
			var v Value
			if op == compiler.GET_INDEX_OPT && x.IsNil() {
				v = Nil
			} else if d, ok := x.AsDict(); ok && i.isStr() {
				v = th.dictIndex(d, i.str())
			} else if v, err = Index(x, i); err != nil {
				break loop
			}
			sp--
			stack[sp] = Value{}
			stack[sp-1] = v
		case compiler.SLICE:
			v, serr := Slice(stack[sp-3], stack[sp-2], stack[sp-1])
			if serr != nil {
				err = serr
				break loop
			}
			sp -= 2
			stack[sp], stack[sp+1] = Value{}, Value{}
			stack[sp-1] = v
		case compiler.SET_PATH:
			desc := rt.consts[code[pc]].Object().(*Opaque).X.(*compiler.PathDesc)
			bop := compiler.Opcode(code[pc+1])
			own := code[pc+2] == 1
			pc += 3
			m := 0
			for _, st := range desc.Steps {
				if st.IsIndex {
					m++
				}
			}
			root := stack[sp-m-2]
			keys := stack[sp-m-1 : sp-1]
			val := stack[sp-1]
			var nv Value
			var perr error
			if own {
				nv, perr = setPathOwned(root, desc.Steps, keys, val, bop)
			} else {
				nv, perr = SetPath(root, desc.Steps, keys, val, bop)
			}
			if perr != nil {
				err = perr
				break loop
			}
			for i := sp - m - 1; i < sp; i++ {
				stack[i] = Value{}
			}
			sp -= m + 1
			stack[sp-1] = nv

		case compiler.ITER:
			slot := &iterSlot{it: iterate(stack[sp-1])}
			stack[sp-1] = Of(slot)
			if _, ok := slot.it.(IterCloser); ok {
				save()
				th.trackIter(slot, len(fr.handlers))
				fr, stack = &th.frames[len(th.frames)-1], th.stack
			}
		case compiler.CLOSE_ITER:
			v := stack[base+int(code[pc])]
			pc++
			if len(th.openIters) > 0 {
				save()
				cerr := th.closeIter(v)
				fr, stack = &th.frames[len(th.frames)-1], th.stack
				if cerr != nil {
					err = cerr
					break loop
				}
			}
		case compiler.FOR_NEXT_STORE, compiler.JUMP_FOR:
			if op == compiler.JUMP_FOR {
				// the loop's jump back runs the loop head it lands on
				opPC = int(code[pc])
				pc = opPC + 1
			}
			it := (*iterSlot)(stack[base+int(code[pc])].p).it
			if r, ok := it.(*rangeIter); ok {
				// a range steps inline: its counter is a plain int64
				if r.remaining <= 0 {
					pc = int(code[pc+1])
					break
				}
				stack[base+int(code[pc+2])] = IntOf(r.next)
				r.next++
				r.remaining--
				pc += 4
				if th.ticks++; th.ticks&1023 == 0 {
					if err = th.checkInterrupt(); err != nil {
						break loop
					}
				}
				break
			}
			if s, ok := it.(*sliceIter); ok {
				// so does a list: no interface call, no ThreadIterator check
				if s.i >= len(s.items) {
					pc = int(code[pc+1])
					break
				}
				stack[base+int(code[pc+2])] = s.items[s.i]
				s.i++
				pc += 4
				if th.ticks++; th.ticks&1023 == 0 {
					if err = th.checkInterrupt(); err != nil {
						break loop
					}
				}
				break
			}
			fallthrough
		case compiler.FOR_NEXT:
			slot := (*iterSlot)(stack[base+int(code[pc])].p)
			save()
			var v Value
			var ok bool
			var ierr error
			if ti, isTI := slot.it.(ThreadIterator); isTI {
				v, ok, ierr = ti.NextOn(th)
			} else {
				v, ok, ierr = slot.it.Next()
			}
			fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
			if ierr != nil {
				err = ierr
				break loop
			}
			if !ok {
				if len(th.openIters) > 0 {
					th.untrackIter(slot)
				}
				pc = int(code[pc+1])
				break
			}
			if op != compiler.FOR_NEXT {
				stack[base+int(code[pc+2])] = v
				pc += 4
			} else {
				stack[sp] = v
				sp++
				pc += 2
			}
			if th.ticks++; th.ticks&1023 == 0 {
				if err = th.checkInterrupt(); err != nil {
					break loop
				}
			}
		case compiler.PAIR_SPLIT:
			p := stack[sp-1]
			var a, b Value
			if pr, ok := p.AsPair(); ok {
				a, b = pr.First, pr.Second
			} else {
				if a, err = GetProp(p, "first", false); err != nil {
					break loop
				}
				if b, err = GetProp(p, "second", false); err != nil {
					break loop
				}
			}
			stack[sp-1] = a
			stack[sp] = b
			sp++
		case compiler.PAT_DICT:
			if _, ok := stack[sp-1].AsDict(); !ok {
				err = Typef("cannot destructure %s with {...} pattern — expected dict", stack[sp-1].Type())
				break loop
			}
		case compiler.PAT_LIST:
			if _, ok := stack[sp-1].AsList(); !ok {
				err = Typef("cannot destructure %s with [...] pattern — expected list", stack[sp-1].Type())
				break loop
			}
		case compiler.DICT_KEY:
			v := Value(Nil)
			if d, ok := stack[sp-1].AsDict(); ok {
				if x, ok := d.Get(rt.fn.Names[code[pc]]); ok {
					v = x
				}
			}
			stack[sp-1] = v
			pc++
		case compiler.DICT_REST:
			named := rt.consts[code[pc]].Object().(*Opaque).X.([]string)
			pc++
			d, _ := stack[sp-1].AsDict()
			if d == nil {
				d = EmptyDict
			}
			for _, k := range named {
				d = d.Delete(k)
			}
			stack[sp-1] = Of(d)
		case compiler.LIST_AT:
			i := int(code[pc])
			pc++
			v := Value(Nil)
			if l, ok := stack[sp-1].AsList(); ok && i < l.Len() {
				v = l.At(i)
			}
			stack[sp-1] = v
		case compiler.LIST_FROM:
			i := int(code[pc])
			pc++
			v := Of(EmptyList)
			if l, ok := stack[sp-1].AsList(); ok && i < l.Len() {
				items := make([]Value, l.Len()-i)
				copy(items, l.Items()[i:])
				v = Of(NewList(items))
			}
			stack[sp-1] = v
		case compiler.IS_VARIANT:
			e, ok := stack[sp-1].AsEnum()
			stack[sp-1] = BoolOf(ok && e.Enum == rt.fn.Names[code[pc]] && e.Variant == rt.fn.Names[code[pc+1]])
			pc += 2
		case compiler.VARIANT_FIELD:
			i := int(code[pc])
			pc++
			v := Value(Nil)
			if e, ok := stack[sp-1].AsEnum(); ok && i < len(e.Fields) {
				v = e.Fields[i]
			}
			stack[sp-1] = v
		case compiler.LIST_LEN_IS:
			n, atLeast := int(code[pc]), code[pc+1] == 1
			pc += 2
			l, ok := stack[sp-1].AsList()
			stack[sp-1] = BoolOf(ok && (l.Len() == n || atLeast && l.Len() >= n))
		case compiler.IS_DICT:
			_, ok := stack[sp-1].AsDict()
			stack[sp-1] = BoolOf(ok)

		case compiler.SETUP_TRY:
			fr.handlers = append(fr.handlers, handler{pc: int(code[pc]), sp: sp})
			pc++
		case compiler.POP_TRY:
			fr.handlers = fr.handlers[:len(fr.handlers)-1]
		case compiler.THROW:
			sp--
			err = Throw(stack[sp])
			stack[sp] = Value{}
			break loop
		case compiler.RERAISE:
			sp--
			err = stack[sp].Object().(*errBox).err
			stack[sp] = Value{}
			break loop
		case compiler.RETRY_COUNT:
			// a count of attempts is an int (docs/spec/language.md §7.5)
			if v := stack[sp-1]; v.Kind() != KInt {
				err = Typef("retry: expected an int count, got %s", v.Type())
				break loop
			}
		case compiler.RETRY_RERAISE:
			sp--
			e := stack[sp].Object().(*errBox).err
			stack[sp] = Value{}
			if e.Kind == KindThrown {
				err = e
			} else {
				err = &Error{Kind: KindThrown, Value: e.Caught(), Rethrown: true}
			}
			break loop
		case compiler.CAUGHT:
			stack[sp-1] = stack[sp-1].Object().(*errBox).err.Caught()
		case compiler.CATCH_IS:
			e := stack[sp-1].Object().(*errBox).err
			ev, ok := e.Value.AsEnum()
			if e.Kind == KindThrown && ok && ev.Enum == rt.fn.Names[code[pc]] {
				pc += 2
			} else {
				pc = int(code[pc+1])
			}
		case compiler.CATCHABLE:
			e := stack[sp-1].Object().(*errBox).err
			if e.Kind == KindExit || e.Kind == KindCancelled {
				pc = int(code[pc])
			} else {
				pc++
			}
		case compiler.WRAP_OK:
			if _, isRes := IsResult(stack[sp-1]); !isRes {
				stack[sp-1] = Of(Ok(stack[sp-1]))
			}
		case compiler.ERR_RESULT:
			stack[sp-1] = Of(Err(stack[sp-1].Object().(*errBox).err.Caught()))
		case compiler.PROPAGATE:
			v := stack[sp-1]
			ok, isRes := IsResult(v)
			if !isRes {
				err = Typef("? operator requires a Result value, got %s", v.Type())
				break loop
			}
			if ok {
				stack[sp-1] = v.Object().(*EnumValue).Fields[0]
				pc = int(code[pc])
			} else {
				pc++
			}
		case compiler.NON_NIL:
			if stack[sp-1].IsNil() {
				err = Categorized("unwrap_nil", "non-null assertion failed: the value is nil")
				break loop
			}
		case compiler.RAISE:
			msg := rt.consts[code[pc]].Object().(String).s
			switch code[pc+1] {
			case compiler.RaiseThrown:
				err = Throw(Str(msg))
			case compiler.RaiseRuntime:
				err = &Error{Kind: KindRuntime, Msg: msg}
			case compiler.RaiseType:
				err = &Error{Kind: KindType, Msg: msg}
			case compiler.RaiseUndefined:
				err = th.undefinedVariable(msg, cl.Module, rt.fn.LocalNamesOf(msg)...)
			default:
				err = &Error{Kind: KindPlain, Msg: msg}
			}
			break loop
		case compiler.MATCH_FAIL:
			err = Throw(Str("No match arm matched the value"))
			break loop

		case compiler.CHECK_PARAM:
			i, k := int(code[pc]), int(code[pc+1])
			pc += 2
			v := stack[base+i]
			if c, ok := v.AsCell(); ok {
				v = c.V
			}
			if !v.IsValid() {
				break // an unbound pipeline parameter (§5.5): nothing to check
			}
			rtype := rt.consts[k].Object().(*Opaque).X.(*compiler.RType)
			if cerr := th.checkParam(rt.fn.Params[i].Name, rtype, v); cerr != nil {
				err = cerr
				break loop
			}
		case compiler.IMPL:
			n, k := int(code[pc+1]), int(code[pc+2]) // code[pc]: the struct's name
			pc += 3
			site := rt.consts[k].Object().(*Opaque).X.(*compiler.ImplSite)
			methods := make(map[string]*Closure, n)
			for i, name := range site.Methods {
				methods[name] = stack[sp-n+i].Object().(*Closure)
				stack[sp-n+i] = Value{}
			}
			sp -= n
			th.vm.setImpl(site, methods)
		case compiler.YIELD, compiler.EMIT:
			save()
			v, yerr := th.yield(op == compiler.EMIT, stack[sp-1])
			fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
			if yerr == ErrClosing {
				th.closing, v, yerr = true, Nil, nil
			}
			if yerr != nil {
				err = yerr
				break loop
			}
			if op == compiler.EMIT {
				sp--
				stack[sp] = Value{}
			} else {
				stack[sp-1] = v
			}
		case compiler.JUMP_OPEN:
			if th.closing {
				pc++
			} else {
				pc = int(code[pc])
			}
		case compiler.CALL_INTERNAL:
			s, n := int(code[pc]), int(code[pc+1])
			pc += 2
			hook := th.vm.Universe.Builtin(rt.fn.Names[s])
			if hook == nil {
				err = Runtimef("%s is not available in this runtime", rt.fn.Names[s])
				break loop
			}
			save()
			args := make([]Value, n)
			copy(args, stack[sp-n:sp])
			v, herr := hook.Fn(th, args)
			fr, stack = &th.frames[len(th.frames)-1], th.stack // nested calls may have moved frames and stack
			if herr != nil {
				err = herr
				break loop
			}
			for i := sp - n; i < sp; i++ {
				stack[i] = Value{}
			}
			sp -= n
			stack[sp] = v
			sp++
		default:
			err = fmt.Errorf("vm: unknown opcode %d", op)
			break loop
		}
		continue

	doReturn:
		{
			// popFrame and reload, inline: this is half of every call
			v := stack[sp-1]
			ret := fr.result()
			if sp-ret <= 8 {
				// a small window: stores beat clear's two calls
				for i := ret; i < sp; i++ {
					stack[i] = Value{}
				}
			} else {
				clear(stack[ret:sp])
			}
			nested := fr.nested
			th.frames = th.frames[:len(th.frames)-1]
			sp = ret
			th.sp = sp
			if nested || len(th.frames) < startDepth {
				return v, nil
			}
			fr = &th.frames[len(th.frames)-1]
			cl, pc, base = fr.cl, fr.pc, fr.base
			rt, code = cl.rt, cl.Proto.Code
			stack[sp] = v
			sp++
			th.sp = sp
			continue
		}

	enterSimple:
		{
			// pushFrame and enterFrame, by hand, for a call of a
			// compiler.Func.Simple function with exactly its parameters,
			// which start at calleeBase: nothing to bind, only the other
			// locals to clear. A method frame (calleeMethod) has no
			// callee slot.
			proto := callee.Proto
			nparams := len(proto.Params)
			if need := proto.NumLocals + proto.MaxStack + 2; sp+need > len(stack) {
				th.ensure(need)
				stack = th.stack
			}
			if proto.NumLocals > nparams {
				clear(stack[calleeBase+nparams : calleeBase+proto.NumLocals])
			}
			sp = calleeBase + proto.NumLocals
			th.sp = sp
			if k := len(th.frames); k < cap(th.frames) {
				th.frames = th.frames[:k+1]
				fr = &th.frames[k]
				fr.cl, fr.pc, fr.base, fr.argc = callee, 0, calleeBase, nparams
				fr.handlers = fr.handlers[:0]
				fr.tails = fr.tails[:0]
				fr.nested, fr.callback, fr.method = false, false, calleeMethod
			} else {
				th.frames = append(th.frames, frame{cl: callee, base: calleeBase, argc: nparams, method: calleeMethod})
				fr = &th.frames[k]
			}
			cl, rt, code, pc, base = callee, callee.rt, proto.Code, 0, calleeBase
			continue
		}
	}

	// A failure: find a handler in this run's frames, else return it.
	for {
		e := AsError(err)
		line, col := rt.fn.PosAt(opPC)
		// The line of a failure is the failing operation's, except inside
		// the embedded std/* modules: their lines mean nothing to the
		// script, so the first caller outside them is named instead.
		if e.Line == 0 && e.Kind != KindThrown && e.Kind != KindCategorized && !IsStdFile(rt.fn.File) {
			e.Line, e.Col = line, col
		}
		if e.tracedBy != th || e.tracedDepth != len(th.frames) {
			e.Trace = append(e.Trace, TraceFrame{Func: traceName(rt.fn), File: rt.fn.File, Line: line, Col: col})
			e.Trace = appendTails(e.Trace, fr.tails)
			e.tracedBy, e.tracedDepth = th, len(th.frames)
		}
		if len(th.openIters) > 0 {
			// the for loops over generators that the failure leaves
			h := -1 // (the frame's: none of its handlers takes it)
			if e.Kind != KindExit {
				h = len(fr.handlers) - 1
			}
			if e.Kind == KindCancelled {
				th.maskCancel() // closing them is cleanup: their waits wait
			}
			th.abandonIters(len(th.frames), h, e.Kind != KindExit)
			fr, stack = &th.frames[len(th.frames)-1], th.stack
		}
		if e.Kind != KindExit && len(fr.handlers) > 0 {
			if e.Kind == KindCancelled {
				th.maskCancel()
			}
			h := fr.handlers[len(fr.handlers)-1]
			fr.handlers = fr.handlers[:len(fr.handlers)-1]
			for i := h.sp; i < sp; i++ {
				stack[i] = Value{}
			}
			sp = h.sp
			stack[sp] = Of(&errBox{err: e})
			sp++
			pc = h.pc
			err = nil
			goto loop
		}
		method := fr.method
		if th.popFrame(sp, startDepth) {
			return Value{}, e
		}
		if method {
			e = e.Relabel()
		}
		reload()
		opPC = fr.pc - 1
		err = e
	}
}

// popFrame discards the top frame and its window of the value stack (its
// callee slot through sp). It reports whether that frame ends the current
// run: the first frame of a nested execution, or the one run started with.
func (th *Thread) popFrame(sp, startDepth int) bool {
	fr := &th.frames[len(th.frames)-1]
	nested, ret := fr.nested, fr.result()
	clear(th.stack[ret:sp])
	th.frames = th.frames[:len(th.frames)-1]
	th.sp = ret
	return nested || len(th.frames) < startDepth
}

func truth(v Value) bool {
	switch v.Kind() {
	case KBool, KInt:
		return v.n != 0
	case KNil:
		return false
	}
	return v.Truth()
}

func isCallee(v Value) bool {
	switch v.Kind() {
	case KClosure, KBuiltin, KBound:
		return true
	}
	return false
}

// checkInterrupt stops the thread when it was cancelled, interrupted, or
// ran past a deadline; otherwise it lets waiting threads run for a while
// (sched.yield), so a busy loop cannot starve other tasks.
func (th *Thread) checkInterrupt() error {
	if err := th.stopErr(); err != nil {
		return err
	}
	if th.held {
		th.vm.sched.yield(th)
		return th.stopErr()
	}
	return nil
}

// CheckInterrupt lets long-running builtins honour cancellation.
func (th *Thread) CheckInterrupt() error { return th.checkInterrupt() }

type deadlineScope struct {
	at   int64 // effective real-time deadline: the earliest of this and the enclosing ones (0: none)
	mat  int64 // the same on the mocked clock (0: none)
	own  int64 // the deadline this block asked for, on the real clock
	mown int64 // the same on the mocked clock (0: the block began with a real clock)
	mark int64 // ChildMark at entry: the tasks started inside the block follow it
	note int64 // the caller's mark at entry (the sync permits taken so far)
}

// PushDeadline and PopDeadline bracket a `deadline` block; atMs is in ms
// since the epoch, on the real clock. note is kept for the caller and
// returned by PopDeadline, so that it can undo at the block's end what
// the block started (stdlib/concurrency gives back the permits taken
// inside).

func (th *Thread) PushDeadline(atMs, note int64) { th.pushDeadline(atMs, 0, note) }

// PushDeadlineIn is PushDeadline for a deadline d from now. While
// mock_time holds the clock the deadline also counts mocked time, and
// passes at whichever comes first: d of mocked time (a sleep that would
// pass it advances the clock to it and fails; advance_time past it makes
// it pass at the next check) or d of real time (so a busy loop that never
// moves the mocked clock still stops).
func (th *Thread) PushDeadlineIn(d time.Duration, note int64) {
	var mocked int64
	if now, on := th.vm.mockedNow(); on {
		mocked = now + d.Milliseconds()
	}
	th.pushDeadline(time.Now().Add(d).UnixMilli(), mocked, note)
}

func (th *Thread) pushDeadline(atMs, mockedMs int64, note int64) {
	sc := deadlineScope{own: atMs, mown: mockedMs, mark: th.ChildMark(), note: note}
	if n := len(th.deadlines); n > 0 {
		sc.at, sc.mat = th.deadlines[n-1].at, th.deadlines[n-1].mat
	}
	sc.at = earliest(sc.at, atMs)
	sc.mat = earliest(sc.mat, mockedMs)
	th.deadlines = append(th.deadlines, sc)
}

// earliest is the earlier of two deadlines, 0 standing for none.
func earliest(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// PopDeadline ends the innermost deadline block and returns the deadline
// it asked for, the ChildMark taken when it began and its note.
func (th *Thread) PopDeadline() (own, mark, note int64) {
	if n := len(th.deadlines); n > 0 {
		d := th.deadlines[n-1]
		th.deadlines = th.deadlines[:n-1]
		return d.own, d.mark, d.note
	}
	return 0, 0, 0
}

// OwnDeadlinePassed reports whether the innermost deadline block's own
// deadline has passed, on the real clock or (for a block begun under
// mock_time) on the mocked one.
func (th *Thread) OwnDeadlinePassed() bool {
	n := len(th.deadlines)
	if n == 0 {
		return false
	}
	d := th.deadlines[n-1]
	if d.mown != 0 {
		if now, on := th.vm.mockedNow(); on && now >= d.mown {
			return true
		}
	}
	return time.Now().UnixMilli() >= d.own
}

// Deadline returns the innermost real-time deadline in ms since the epoch
// (0: none), including that of the consumer a generator thread runs for.
func (th *Thread) Deadline() int64 {
	var at int64
	if n := len(th.deadlines); n > 0 {
		at = th.deadlines[n-1].at
	}
	// A cancelled thread's cleanup ends with its grace: waits wake then.
	at = earliest(at, th.cleanupUntil.Load())
	if th.lender != nil {
		at = earliest(at, th.lender.Deadline())
	}
	return at
}

// MockDeadline is Deadline for the deadlines set while the clock was
// mocked: ms since the epoch on the mocked clock (0: none).
func (th *Thread) MockDeadline() int64 {
	var at int64
	if n := len(th.deadlines); n > 0 {
		at = th.deadlines[n-1].mat
	}
	if th.lender != nil {
		at = earliest(at, th.lender.MockDeadline())
	}
	return at
}

// mockDeadlinePassed reports whether the mocked clock has reached th's
// mocked deadline.
func (th *Thread) mockDeadlinePassed() bool {
	at := th.MockDeadline()
	if at == 0 {
		return false
	}
	now, on := th.vm.mockedNow()
	return on && now >= at
}

func (th *Thread) universal(name string) Value {
	if b := th.vm.Universe.Builtin(name); b != nil {
		return Of(b)
	}
	if v, ok := th.vm.Universe.Global(name); ok {
		return v
	}
	return Value{}
}

// builtinCallee is the builtin named by name index s, or the "Undefined builtin"
// error; resolved once per function and name (a universe does not change once built).
func (th *Thread) builtinCallee(rt *funcRT, s int, m *Module) (Value, error) {
	if b := rt.builtins[s].Load(); b != nil {
		return Of(b), nil
	}
	if b := th.vm.Universe.Builtin(rt.fn.Names[s]); b != nil {
		rt.builtins[s].Store(b)
		return Of(b), nil
	}
	return Value{}, th.undefinedBuiltin(rt.fn.Names[s], m)
}

// unboundGlobal reads module global g before its binding has run: a
// builtin or host global of that name until then (the lookup order of
// docs/spec/language.md §3.2 — `["a"].map(uppercase)` above a later
// `let uppercase = …`), else the "Undefined variable" error.
func (th *Thread) unboundGlobal(m *Module, g int) (Value, error) {
	name := m.Prog.Globals[g].Name
	if v := th.universal(name); v.IsValid() {
		return v, nil
	}
	return Value{}, th.undefinedVariable(name, m)
}

// undefinedVariable is the error of reading name, unbound; locals are
// the local variables visible where it is read, which the "did you mean"
// may offer beside the module's bound globals and the builtins.
func (th *Thread) undefinedVariable(name string, m *Module, locals ...string) *Error {
	msg := "Undefined variable: " + name
	if s := diag.Suggest(name, append(th.knownNames(m), locals...)); s != "" {
		return Runtimef("%s (did you mean `%s`?)", msg, s)
	}
	return Plainf("%s", msg)
}

func (th *Thread) undefinedBuiltin(name string, m *Module) *Error {
	if holdsToolRegistry(name, m) {
		// docs/spec/language.md §9.3: a `tool` declaration binds a registry
		return Plainf("`%s` is a tool declaration, which binds a tool registry, not a function: call its handler with `tool_find(%s, %q).handler({…})`", name, name, name)
	}
	msg := "Undefined builtin: " + name
	if s := diag.Suggest(name, th.vm.Universe.BuiltinNames()); s != "" {
		return Runtimef("%s (did you mean `%s`?)", msg, s)
	}
	return Plainf("%s", msg)
}

// holdsToolRegistry reports whether module global name of m holds a tool
// registry (what a `tool` declaration binds).
func holdsToolRegistry(name string, m *Module) bool {
	if m == nil {
		return false
	}
	for i, g := range m.Prog.Globals {
		if g.Name != name || g.Superseded {
			continue
		}
		d, ok := m.Globals[i].AsDict()
		if !ok {
			return false
		}
		t, _ := d.Get("_type")
		s, ok := t.AsString()
		return ok && s.Go() == "tool_registry"
	}
	return false
}

// knownNames lists the names an undefined variable's "did you mean" may
// offer (docs/spec/language.md §3.2).
func (th *Thread) knownNames(m *Module) []string {
	var names []string
	if m != nil {
		for i, g := range m.Prog.Globals {
			if m.Globals[i].IsValid() {
				names = append(names, g.Name)
			}
		}
	}
	names = append(names, th.vm.Universe.GlobalNames()...)
	for _, n := range th.vm.Universe.BuiltinNames() {
		// a reserved word cannot be read as a name (`select` is a builtin
		// only where a call names it)
		if syntax.SuggestableName(n, false) {
			names = append(names, n)
		}
	}
	return names
}

func constStructDef(rt *funcRT, k int) *compiler.StructDef {
	if sd, ok := rt.fn.Consts[k].(*compiler.StructDef); ok {
		return sd
	}
	return nil
}

func isNaNPair(x, y Value) bool {
	f, ok := x.AsFloat()
	if ok && f != f {
		return true
	}
	g, ok := y.AsFloat()
	return ok && g != g
}

// appendTails adds to a trace the callers a frame replaced by tail
// calls, innermost first, each as often as it was replaced, up to
// MaxFrames in all (the most a trace without tail calls could show).
func appendTails(trace []TraceFrame, tails []tailCaller) []TraceFrame {
	room := MaxFrames
	for i := len(tails) - 1; i >= 0 && room > 0; i-- {
		t := tails[i]
		line, col := t.fn.PosAt(t.pc)
		f := TraceFrame{Func: traceName(t.fn), File: t.fn.File, Line: line, Col: col}
		for k := 0; k < t.n && room > 0; k++ {
			trace = append(trace, f)
			room--
		}
	}
	return trace
}

// traceName is how a stack trace names fn's frame: anonymous closures
// read `<closure>` so that a callback's frame is not taken for the top
// level (which has no name either).
func traceName(fn *compiler.Func) string {
	if fn.Name == "" && fn.Kind == compiler.FuncClosure {
		return "<closure>"
	}
	return fn.Name
}

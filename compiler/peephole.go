package compiler

// The peephole pass fuses common instruction sequences into the
// superinstructions at the end of the opcode table: one dispatch instead
// of three or four, and the operands of arithmetic read straight from the
// frame's slots. A fused instruction occupies exactly the code words of
// the sequence it replaces, so no jump target or line table entry moves;
// a sequence is fused only when no jump lands inside it, so every path
// through the code still starts at an instruction boundary.

// targetOperand is the index of the jump target among op's operands, or
// -1 when op does not jump.
func targetOperand(op Opcode) int {
	switch op {
	case JUMP, JUMP_IF_FALSE, JUMP_IF_TRUE, JUMP_IF_NOT_NIL, JUMP_IF_NIL, SETUP_TRY, CATCHABLE, PROPAGATE, JUMP_FOR, JUMP_OPEN:
		return 0
	case ARGC_GT, FOR_NEXT, CATCH_IS, FOR_NEXT_STORE:
		return 1
	case LOCAL_BINOP_JUMP:
		return 4
	case CONST_BINOP_JUMP:
		return 3
	}
	return -1
}

// fusable lists the operators LOCAL_BINOP and friends compute.
func fusable(op Opcode) bool {
	switch op {
	case ADD, SUB, MUL, DIV, MOD, EQ, NE, LT, GT, LE, GE:
		return true
	}
	return false
}

// fuse rewrites fn.Code in place.
func fuse(fn *Func) {
	code := fn.Code
	// starts[pc] marks instruction boundaries; targets[pc] jump targets.
	starts := make([]bool, len(code)+1)
	targets := make([]bool, len(code)+1)
	for pc := 0; pc < len(code); pc += 1 + Info[code[pc]].Operands {
		starts[pc] = true
		if k := targetOperand(Opcode(code[pc])); k >= 0 {
			targets[code[pc+1+k]] = true
		}
	}
	// at returns the opcode starting at pc when pc is an instruction
	// boundary no jump lands on (so it can be the inside of a fused
	// sequence), else NOP.
	at := func(pc int) Opcode {
		if pc >= len(code) || !starts[pc] || targets[pc] {
			return NOP
		}
		return Opcode(code[pc])
	}
	fusePush(fn, starts, targets)
	for pc := 0; pc < len(code); pc += 1 + Info[code[pc]].Operands {
		switch Opcode(code[pc]) {
		case LOAD_LOCAL:
			if at(pc+2) == RETURN {
				code[pc], code[pc+2] = int32(RETURN_LOCAL), 0
				continue
			}
			if at(pc+2) == GET_PROP {
				i, s, c := code[pc+1], code[pc+3], code[pc+4]
				copy(code[pc:pc+5], []int32{int32(LOCAL_GET_PROP), i, s, c, 0})
				continue
			}
			if at(pc+2) == LOAD_LOCAL && at(pc+4) == CALL_METHOD && code[pc+6] == 0 {
				// v + x.m(): both loads and the call, operands in place
				code[pc], code[pc+2], code[pc+4] = int32(LOCALS_CALL_METHOD), 0, 0
				continue
			}
			if at(pc+2) == CALL_METHOD && code[pc+4] == 0 {
				// CALL_METHOD's operands stay where they were
				code[pc+2] = 0
				code[pc] = int32(LOCAL_CALL_METHOD)
				continue
			}
			m := int32(-1)
			switch at(pc + 2) {
			case LOAD_LOCAL:
				m = 0
			case INT:
				m = 1
			case CONST:
				m = 2
			}
			op := at(pc + 4)
			if m < 0 || !fusable(op) {
				continue
			}
			i, x := code[pc+1], code[pc+3]
			switch at(pc + 5) {
			case STORE_LOCAL:
				j := code[pc+6]
				copy(code[pc:pc+7], []int32{int32(LOCAL_BINOP_STORE), i, x, m, int32(op), j, 0})
			case JUMP_IF_FALSE:
				t := code[pc+6]
				copy(code[pc:pc+7], []int32{int32(LOCAL_BINOP_JUMP), i, x, m, int32(op), t, 0})
			default:
				copy(code[pc:pc+5], []int32{int32(LOCAL_BINOP), i, x, m, int32(op)})
			}
		case CALLEE_NAME:
			if at(pc+2) == LOAD_LOCAL && at(pc+4) == CALL && code[pc+5] == 1 {
				// a builtin of one local, by name: CALL's operand stays
				// where it was
				code[pc], code[pc+2], code[pc+4] = int32(NAME_CALL_LOCAL), 0, 0
			}
		case INT, CONST:
			m := int32(1)
			if Opcode(code[pc]) == CONST {
				m = 2
			}
			if op := at(pc + 2); fusable(op) && at(pc+3) == JUMP_IF_FALSE {
				x, t := code[pc+1], code[pc+4]
				copy(code[pc:pc+5], []int32{int32(CONST_BINOP_JUMP), x, m, int32(op), t})
			}
		case ADD, SUB, MUL, DIV, MOD:
			switch at(pc + 1) {
			case STORE_LOCAL:
				code[pc], code[pc+1] = int32(BINOP_STORE), code[pc]
			case RETURN:
				code[pc], code[pc+1] = int32(BINOP_RETURN), code[pc]
			}
		case JUMP:
			// a loop's jump back to its head (fused above: the head
			// comes first) runs the head in the same dispatch
			if t := code[pc+1]; int(t) < pc && Opcode(code[t]) == FOR_NEXT_STORE {
				code[pc] = int32(JUMP_FOR)
			}
		case FOR_NEXT:
			if at(pc+3) == STORE_LOCAL {
				code[pc], code[pc+3], code[pc+4] = int32(FOR_NEXT_STORE), code[pc+4], 0
			}
		}
	}
}

// fusePush rewrites `x = x.push(v)` on an ownable variable,
//
//	LOAD_LOCAL_SH i; <v>; CALL_METHOD "push" 1 c; STORE_LOCAL i
//
// (or the global form), into LOAD_LOCAL i; <v>; METHOD_PUSH_LOCAL "push" 1
// c; STORE_LOCAL i, so that the list the variable owns is appended to in
// place rather than shared and copied. <v> must be straight-line code
// whose stack use is known (stackUse); for a global it may only load
// values, since a call (or an operator on a struct) could reach the global
// while its list is on the stack. An _SH load of i proves the variable ownable (the compiler emits
// it for no other variable), and the store writes the same variable.
func fusePush(fn *Func, starts, targets []bool) {
	code := fn.Code
	var pcs []int
	for pc := range code {
		if starts[pc] {
			pcs = append(pcs, pc)
		}
	}
	for k := 0; k+1 < len(pcs); k++ {
		pc, st := pcs[k], pcs[k+1]
		if Opcode(code[pc]) != CALL_METHOD || code[pc+2] != 1 || int(code[pc+1]) >= len(fn.Names) || fn.Names[code[pc+1]] != "push" || targets[pc] || targets[st] {
			continue
		}
		var load, plain, fused Opcode
		switch Opcode(code[st]) {
		case STORE_LOCAL:
			load, plain, fused = LOAD_LOCAL_SH, LOAD_LOCAL, METHOD_PUSH_LOCAL
		case STORE_GLOBAL:
			load, plain, fused = LOAD_GLOBAL_SH, LOAD_GLOBAL, METHOD_PUSH_GLOBAL
		default:
			continue
		}
		need, computes := 2, false // need: values CALL_METHOD takes that are still to be found
		for j := k - 1; j >= 0; j-- {
			p := pcs[j]
			pops, pushes, ok := stackUse(code, p)
			if !ok {
				break
			}
			if need += pops - pushes; need == 0 {
				// p pushed the receiver
				if Opcode(code[p]) == load && code[p+1] == code[st+1] && !(computes && fused == METHOD_PUSH_GLOBAL) {
					code[p], code[pc] = int32(plain), int32(fused)
				}
				break
			}
			if targets[p] {
				break
			}
			computes = computes || pops > 0
		}
	}
}

// stackUse is how many values the instruction at pc pops and pushes, for
// the instructions that may appear in fusePush's argument code; ok is
// false for any other (jumps, stores, DUP, which reads below its operands).
func stackUse(code []int32, pc int) (pops, pushes int, ok bool) {
	switch op := Opcode(code[pc]); op {
	case CONST, NIL, TRUE, FALSE, INT, LOAD_LOCAL, LOAD_LOCAL_CK, LOAD_LOCAL_SH, LOAD_CELL, LOAD_FREE, LOAD_GLOBAL,
		LOAD_GLOBAL_SH, LOAD_UNIV, LOAD_NAME, CALLEE_LOCAL, CALLEE_CELL, CALLEE_FREE, CALLEE_GLOBAL, CALLEE_NAME, CALLEE_UNIV:
		return 0, 1, true
	case ADD, SUB, MUL, DIV, MOD, POW, EQ, NE, LT, GT, LE, GE, IN, NOT_IN, GET_INDEX:
		return 2, 1, true
	case NOT, NEG, TRUTH, GET_PROP:
		return 1, 1, true
	case CALL, CALL_METHOD:
		n := int(code[pc+1])
		if op == CALL_METHOD {
			n = int(code[pc+2])
		}
		return n + 1, 1, true
	case INTERP, MAKE_LIST:
		return int(code[pc+1]), 1, true
	}
	return 0, 0, false
}

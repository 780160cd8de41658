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
	case JUMP, JUMP_IF_FALSE, JUMP_IF_TRUE, JUMP_IF_NOT_NIL, JUMP_IF_NIL, SETUP_TRY, CATCHABLE, PROPAGATE, JUMP_FOR:
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

package compiler

import (
	"slices"
	"testing"
)

func TestFuse(t *testing.T) {
	cases := []struct {
		name    string
		code    []int32
		want    []int32
		unfused bool
	}{
		{"local op literal, store",
			[]int32{int32(LOAD_LOCAL), 0, int32(INT), 1, int32(ADD), int32(STORE_LOCAL), 2, int32(RETURN)},
			[]int32{int32(LOCAL_BINOP_STORE), 0, 1, 1, int32(ADD), 2, 0, int32(RETURN)}, false},
		{"compare locals and branch",
			[]int32{int32(LOAD_LOCAL), 0, int32(LOAD_LOCAL), 1, int32(LT), int32(JUMP_IF_FALSE), 9, int32(NIL), int32(POP), int32(NIL), int32(RETURN)},
			[]int32{int32(LOCAL_BINOP_JUMP), 0, 1, 0, int32(LT), 9, 0, int32(NIL), int32(POP), int32(NIL), int32(RETURN)}, false},
		{"local op constant",
			[]int32{int32(LOAD_LOCAL), 0, int32(CONST), 3, int32(MUL), int32(RETURN)},
			[]int32{int32(LOCAL_BINOP), 0, 3, 2, int32(MUL), int32(RETURN)}, false},
		{"compare with a literal and branch",
			[]int32{int32(LOAD_LOCAL), 0, int32(INT), 3, int32(MOD), int32(INT), 0, int32(EQ), int32(JUMP_IF_FALSE), 12, int32(NIL), int32(POP), int32(NIL), int32(RETURN)},
			[]int32{int32(LOCAL_BINOP), 0, 3, 1, int32(MOD), int32(CONST_BINOP_JUMP), 0, 1, int32(EQ), 12, int32(NIL), int32(POP), int32(NIL), int32(RETURN)}, false},
		{"return local",
			[]int32{int32(LOAD_LOCAL), 4, int32(RETURN)},
			[]int32{int32(RETURN_LOCAL), 4, 0}, false},
		{"loop step",
			[]int32{int32(FOR_NEXT), 0, 7, int32(STORE_LOCAL), 1, int32(JUMP), 9, int32(NIL), int32(RETURN)},
			[]int32{int32(FOR_NEXT_STORE), 0, 7, 1, 0, int32(JUMP), 9, int32(NIL), int32(RETURN)}, false},
		{"loop back",
			[]int32{int32(FOR_NEXT), 0, 7, int32(STORE_LOCAL), 1, int32(JUMP), 0, int32(NIL), int32(RETURN)},
			[]int32{int32(FOR_NEXT_STORE), 0, 7, 1, 0, int32(JUMP_FOR), 0, int32(NIL), int32(RETURN)}, false},
		{"field of a local",
			[]int32{int32(LOAD_LOCAL), 0, int32(GET_PROP), 3, 1, int32(RETURN)},
			[]int32{int32(LOCAL_GET_PROP), 0, 3, 1, 0, int32(RETURN)}, false},
		{"method of a local, no arguments",
			[]int32{int32(LOAD_LOCAL), 2, int32(CALL_METHOD), 1, 0, 4, int32(RETURN)},
			[]int32{int32(LOCAL_CALL_METHOD), 2, 0, 1, 0, 4, int32(RETURN)}, false},
		{"a local, then a method of a local",
			[]int32{int32(LOAD_LOCAL), 3, int32(LOAD_LOCAL), 2, int32(CALL_METHOD), 1, 0, 4, int32(ADD), int32(RETURN)},
			[]int32{int32(LOCALS_CALL_METHOD), 3, 0, 2, 0, 1, 0, 4, int32(BINOP_RETURN), int32(ADD)}, false},
		{"a local, then a method of a local at a jump target",
			[]int32{int32(LOAD_LOCAL), 3, int32(LOAD_LOCAL), 2, int32(CALL_METHOD), 1, 0, 4, int32(RETURN), int32(JUMP), 2},
			[]int32{int32(LOAD_LOCAL), 3, int32(LOCAL_CALL_METHOD), 2, 0, 1, 0, 4, int32(RETURN), int32(JUMP), 2}, false},
		{"method of a local with an argument",
			[]int32{int32(LOAD_LOCAL), 2, int32(LOAD_LOCAL), 0, int32(CALL_METHOD), 1, 1, 4, int32(RETURN)}, nil, true},
		{"method of a local at a jump target",
			[]int32{int32(LOAD_LOCAL), 2, int32(CALL_METHOD), 1, 0, 4, int32(JUMP), 2}, nil, true},
		{"operator, store",
			[]int32{int32(CALL), 0, int32(LOAD_LOCAL), 1, int32(ADD), int32(STORE_LOCAL), 1, int32(NIL), int32(RETURN)},
			[]int32{int32(CALL), 0, int32(LOAD_LOCAL), 1, int32(BINOP_STORE), int32(ADD), 1, int32(NIL), int32(RETURN)}, false},
		{"operator, return",
			[]int32{int32(CALL), 0, int32(CALL), 0, int32(MUL), int32(RETURN)},
			[]int32{int32(CALL), 0, int32(CALL), 0, int32(BINOP_RETURN), int32(MUL)}, false},
		{"operator, store at a jump target",
			[]int32{int32(CALL), 0, int32(CALL), 0, int32(ADD), int32(STORE_LOCAL), 1, int32(JUMP), 5}, nil, true},
		// A jump into the sequence (to the INT at 2) keeps it unfused, so
		// the path through the jump still starts at an instruction (the
		// ADD; RETURN after the target still fuses).
		{"jump target inside",
			[]int32{int32(LOAD_LOCAL), 0, int32(INT), 1, int32(ADD), int32(RETURN), int32(JUMP), 2},
			[]int32{int32(LOAD_LOCAL), 0, int32(INT), 1, int32(BINOP_RETURN), int32(ADD), int32(JUMP), 2}, false},
		// x = x.push(v): names[0] is "push"
		{"push onto a local",
			[]int32{int32(LOAD_LOCAL_SH), 0, int32(CONST), 1, int32(CALLEE_UNIV), 2, int32(LOAD_LOCAL), 1, int32(CALL), 1, int32(ADD), int32(CALL_METHOD), 0, 1, 0, int32(STORE_LOCAL), 0, int32(NIL), int32(RETURN)},
			[]int32{int32(LOAD_LOCAL), 0, int32(CONST), 1, int32(CALLEE_UNIV), 2, int32(LOAD_LOCAL), 1, int32(CALL), 1, int32(ADD), int32(METHOD_PUSH_LOCAL), 0, 1, 0, int32(STORE_LOCAL), 0, int32(NIL), int32(RETURN)}, false},
		{"push onto a global",
			[]int32{int32(LOAD_GLOBAL_SH), 3, int32(LOAD_LOCAL), 1, int32(CALL_METHOD), 0, 1, 0, int32(STORE_GLOBAL), 3, int32(NIL), int32(RETURN)},
			[]int32{int32(LOAD_GLOBAL), 3, int32(LOAD_LOCAL), 1, int32(METHOD_PUSH_GLOBAL), 0, 1, 0, int32(STORE_GLOBAL), 3, int32(NIL), int32(RETURN)}, false},
		// a call in the argument could reach the global's list
		{"push onto a global, argument calls",
			[]int32{int32(LOAD_GLOBAL_SH), 3, int32(CALLEE_UNIV), 2, int32(CALL), 0, int32(CALL_METHOD), 0, 1, 0, int32(STORE_GLOBAL), 3, int32(NIL), int32(RETURN)}, nil, true},
		{"push stored elsewhere",
			[]int32{int32(LOAD_LOCAL_SH), 0, int32(INT), 1, int32(CALL_METHOD), 0, 1, 0, int32(STORE_LOCAL), 1, int32(NIL), int32(RETURN)}, nil, true},
		{"another method",
			[]int32{int32(LOAD_LOCAL_SH), 0, int32(INT), 1, int32(CALL_METHOD), 1, 1, 0, int32(STORE_LOCAL), 0, int32(NIL), int32(RETURN)}, nil, true},
		// not ownable: the variable is loaded with LOAD_LOCAL
		{"push onto an unowned local",
			[]int32{int32(LOAD_LOCAL), 0, int32(INT), 1, int32(CALL_METHOD), 0, 1, 0, int32(STORE_LOCAL), 0, int32(NIL), int32(RETURN)}, nil, true},
		{"push with a jump into the argument",
			[]int32{int32(LOAD_LOCAL_SH), 0, int32(INT), 1, int32(CALL_METHOD), 0, 1, 0, int32(STORE_LOCAL), 0, int32(JUMP), 2}, nil, true},
		{"builtin of a local by name",
			[]int32{int32(CONST), 0, int32(CALLEE_NAME), 1, int32(LOAD_LOCAL), 2, int32(CALL), 1, int32(ADD), int32(RETURN)},
			[]int32{int32(CONST), 0, int32(NAME_CALL_LOCAL), 1, 0, 2, 0, 1, int32(BINOP_RETURN), int32(ADD)}, false},
		{"builtin of two locals by name",
			[]int32{int32(CALLEE_NAME), 1, int32(LOAD_LOCAL), 2, int32(LOAD_LOCAL), 3, int32(CALL), 2, int32(RETURN)}, nil, true},
		{"builtin of a local by name, call at a jump target",
			[]int32{int32(CALLEE_NAME), 1, int32(LOAD_LOCAL), 2, int32(CALL), 1, int32(RETURN), int32(JUMP), 4}, nil, true},
		{"not an operator",
			[]int32{int32(LOAD_LOCAL), 0, int32(INT), 1, int32(POW), int32(RETURN)}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := &Func{Code: slices.Clone(c.code), Names: []string{"push", "pop"}}
			fuse(fn)
			want := c.want
			if c.unfused {
				want = c.code
			}
			if !slices.Equal(fn.Code, want) {
				t.Errorf("got\n%s\nwant\n%s", Disassemble(fn), Disassemble(&Func{Code: want}))
			}
		})
	}
}

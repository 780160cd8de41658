package compiler

// Opcode is one VM instruction. Code is a flat []int32: each opcode is
// followed by its fixed number of operands (OpInfo.Operands).
//
// Stack pictures read "before OP after"; `-` is an empty stack effect.
// Operand names: k = constant index, n = count, i = frame slot,
// u = upvalue index, g = global slot, s = name (string table) index,
// t = jump target (absolute code index), f = nested function index,
// c = inline cache slot (Func.NumCaches; the VM remembers there what the
// site found last time, see vm/cache.go).
type Opcode int32

const (
	NOP Opcode = iota //  - NOP -

	// stack
	POP  //          x POP -
	POPN //  x1 .. xn POPN<n> -
	DUP  //          x DUP x x
	DUP2 //        x y DUP2 x y x y

	// constants
	CONST // - CONST<k> consts[k]
	NIL   // - NIL nil
	TRUE  // - TRUE true
	FALSE // - FALSE false
	INT   // - INT<n> n  (small int literal)

	// variables
	LOAD_LOCAL     // - LOAD_LOCAL<i> v
	LOAD_LOCAL_CK  // - LOAD_LOCAL_CK<i s> v      (Undefined variable if unassigned)
	STORE_LOCAL    // v STORE_LOCAL<i> -
	MAKE_CELL      // - MAKE_CELL<i> -           (fresh unassigned cell in slot i)
	CELLIFY        // - CELLIFY<i> -             (move slot i's value into a fresh cell: captured parameters)
	LOAD_CELL      // - LOAD_CELL<i s> v
	STORE_CELL     // v STORE_CELL<i> -
	LOAD_FREE      // - LOAD_FREE<u s> v
	STORE_FREE     // v STORE_FREE<u> -
	LOAD_GLOBAL    // - LOAD_GLOBAL<g> v         (Undefined variable if unset)
	LOAD_LOCAL_SH  // - LOAD_LOCAL_SH<i> v      (and end in-place ownership of v, vm/own.go)
	LOAD_GLOBAL_SH // - LOAD_GLOBAL_SH<g> v
	STORE_GLOBAL   // v STORE_GLOBAL<g> -        (assignment: immutable check)
	DEF_GLOBAL     // v DEF_GLOBAL<g n> -        (declaration; n: 0 let/var, 1 const, 2 fn/other immutable)
	LOAD_UNIV      // - LOAD_UNIV<s> v           (builtin or host global by name)
	LOAD_NAME      // - LOAD_NAME<s> v           (dynamic: globals by name, then universe)

	// callee lookup with builtin fallback (docs/spec/language.md §9.2)
	CALLEE_LOCAL  // - CALLEE_LOCAL<i s> f
	CALLEE_CELL   // - CALLEE_CELL<i s> f
	CALLEE_FREE   // - CALLEE_FREE<u s> f
	CALLEE_GLOBAL // - CALLEE_GLOBAL<g s> f
	CALLEE_NAME   // - CALLEE_NAME<s> f
	CALLEE_UNIV   // - CALLEE_UNIV<s> f            (the builtin only: the global is not visible here)

	// calls
	CALL            //  f a1 .. an CALL<n> r
	CALL_SPREAD     //      f args CALL_SPREAD r         (args: a list)
	TAILCALL        //  f a1 .. an TAILCALL<n> r            (always followed by RETURN: a frame that cannot be replaced — the first frame of a nested run — calls, then returns r)
	CALL_ENTRY      //           f CALL_ENTRY<n> r          (CALL<n> with n arguments holding no value: the entry pipeline's parameters stay unbound)
	CALL_METHOD     //  x a1 .. an CALL_METHOD<s n c> r
	CALL_METHOD_OPT //  x a1 .. an CALL_METHOD_OPT<s n c> r (nil when x is nil)
	CALL_METHOD_SP  //      x args CALL_METHOD_SP<s o c> r (o: 1 when optional; c: the site's slot, for its impl scope)
	RETURN          //           v RETURN
	MAKE_CLOSURE    //           - MAKE_CLOSURE<f> closure
	PIPE            //         x f PIPE r
	PIPE_CALLEE     //         x f PIPE_CALLEE f' x     (f resolved as PIPE would; feeds TAILCALL<1>)

	// jumps
	JUMP            //            - JUMP<t> -
	JUMP_IF_FALSE   //            v JUMP_IF_FALSE<t> -
	JUMP_IF_TRUE    //            v JUMP_IF_TRUE<t> -
	JUMP_IF_NOT_NIL //            v JUMP_IF_NOT_NIL<t> v   (jumps keeping v) | -  (falls through popping v)
	JUMP_IF_NIL     //            v JUMP_IF_NIL<t> v       (jumps keeping nil) | v (falls through keeping v)
	ARGC_GT         //            - ARGC_GT<i t> -         (jump when argument i was passed: more than i arguments, slot i holding a value)

	// operators
	ADD    // x y ADD z
	SUB    // x y SUB z
	MUL    // x y MUL z
	DIV    // x y DIV z
	MOD    // x y MOD z
	POW    // x y POW z
	EQ     // x y EQ bool
	NE     // x y NE bool
	LT     // x y LT bool
	GT     // x y GT bool
	LE     // x y LE bool
	GE     // x y GE bool
	IN     // x y IN bool
	NOT_IN // x y NOT_IN bool
	NOT    //   x NOT bool
	NEG    //   x NEG y
	TRUTH  //   x TRUTH bool

	// construction
	MAKE_LIST    //   a1 .. an MAKE_LIST<n> list
	LIST_PUSH    //     list x LIST_PUSH list'
	LIST_EXTEND  //     list x LIST_EXTEND list'          (spread: x must be iterable)
	MAKE_DICT    // k1 v1 .. kn vn MAKE_DICT<n> dict      (keys by display form)
	DICT_SET     //     dict k v DICT_SET dict'
	DICT_MERGE   //       dict x DICT_MERGE dict'         (spread: x must be a dict)
	MAKE_RANGE   //          a b MAKE_RANGE<n> range      (n: 1 inclusive)
	MAKE_STRUCT  // k1 v1 .. kn vn MAKE_STRUCT<s n k> struct (k: constant field filter list or -1)
	MAKE_VARIANT //   a1 .. an MAKE_VARIANT<s s n> variant (enum name, variant name)
	INTERP       //   p1 .. pn INTERP<n> string           (display forms concatenated)

	// access
	GET_PROP      //          x GET_PROP<s c> v
	GET_PROP_OPT  //          x GET_PROP_OPT<s c> v
	GET_INDEX     //        x i GET_INDEX v
	GET_INDEX_OPT //        x i GET_INDEX_OPT v
	SLICE         //    x lo hi SLICE v                    (absent bounds are nil)
	SET_PATH      // root k1 .. km v SET_PATH<k o w> root' (k: path descriptor constant; o: 0 for =, else operator opcode; w: 1 may update an owned root in place)

	// iteration and destructuring
	ITER          //   x ITER it
	FOR_NEXT      //   - FOR_NEXT<i t> v                   (slot i holds the iterator; jumps to t when exhausted)
	PAIR_SPLIT    //   p PAIR_SPLIT first second
	PAT_DICT      //   x PAT_DICT x                        (Type error unless a dict)
	PAT_LIST      //   x PAT_LIST x                        (Type error unless a list)
	DICT_KEY      //   d DICT_KEY<s> v                     (value or nil)
	DICT_REST     //   d DICT_REST<k> rest                 (k: constant list of named keys)
	LIST_AT       //   l LIST_AT<n> v                      (element or nil)
	LIST_FROM     //   l LIST_FROM<n> rest
	IS_VARIANT    //   x IS_VARIANT<s s> bool
	VARIANT_FIELD //   x VARIANT_FIELD<n> v
	LIST_LEN_IS   //   x LIST_LEN_IS<n m> bool             (m: 0 exactly n, 1 at least n; false unless a list)
	IS_DICT       //   x IS_DICT bool
	CLOSE_ITER    //   - CLOSE_ITER<i> -                   (a for loop over slot i's iterator ends: close a generator it left unfinished)

	// errors
	SETUP_TRY     //     - SETUP_TRY<t> -                    (on failure: stack cut back, error pushed, jump t)
	POP_TRY       //     - POP_TRY -
	THROW         //     v THROW
	RERAISE       //   err RERAISE
	CAUGHT        //   err CAUGHT v                          (the value `catch (e)` binds)
	CATCH_IS      //   err CATCH_IS<s t> err                 (jump t unless a thrown variant of enum s)
	CATCHABLE     //   err CATCHABLE<t> err                  (jump t when the failure is never caught: exit, cancellation)
	WRAP_OK       //     v WRAP_OK result
	ERR_RESULT    //   err ERR_RESULT result
	PROPAGATE     //     v PROPAGATE<t> x | err              (Ok(x): push x, jump t; Err: keep it, fall through to the early return; else Type error)
	RAISE         //     - RAISE<k n> -                      (raise constant message k with kind n)
	MATCH_FAIL    //     - MATCH_FAIL -
	RETRY_RERAISE //  err RETRY_RERAISE                     (exhausted retry: re-throw as a thrown value)
	NON_NIL       //     v NON_NIL v                         (`v!`: error [unwrap_nil] when v is nil)
	RETRY_COUNT   //     n RETRY_COUNT n                     (`retry n`: Type error unless n is an int)

	// declarations and misc
	CHECK_PARAM   //              - CHECK_PARAM<i k> -      (runtime parameter type check, k: RType constant)
	IMPL          // c1 .. cn IMPL<s n k> -                 (register impl methods; k: the block's *ImplSite)
	YIELD         //              v YIELD nil
	EMIT          //              v EMIT -
	JUMP_OPEN     //              - JUMP_OPEN<t> -          (after YIELD/EMIT: jump t unless the consumer is closing the generator)
	CALL_INTERNAL // a1 .. an CALL_INTERNAL<s n> r        (runtime hook by name: parallel, spawn, select, tool …)

	// superinstructions, made by the peephole pass (peephole.go) from the
	// plain sequence in parentheses. Each is exactly as long as the
	// sequence it replaces (unused operands are written _), so jump
	// targets and the line table stay valid; a failure is reported at the
	// position of the operator in the sequence. x is the right operand:
	// slot x (m 0), the literal x (m 1) or constant x (m 2); op is one of
	// ADD SUB MUL DIV MOD EQ NE LT GT LE GE.
	LOCAL_BINOP        // - LOCAL_BINOP<i x m op> v             (LOAD_LOCAL i; LOAD_LOCAL x | INT x | CONST x; op)
	LOCAL_BINOP_STORE  // - LOCAL_BINOP_STORE<i x m op j _> -   (… ; STORE_LOCAL j)
	LOCAL_BINOP_JUMP   // - LOCAL_BINOP_JUMP<i x m op t _> -    (… ; JUMP_IF_FALSE t)
	CONST_BINOP_JUMP   // v CONST_BINOP_JUMP<x m op t> -        (INT x | CONST x; op; JUMP_IF_FALSE t)
	RETURN_LOCAL       // - RETURN_LOCAL<i _>                   (LOAD_LOCAL i; RETURN)
	FOR_NEXT_STORE     // - FOR_NEXT_STORE<i t j _> -           (FOR_NEXT i t; STORE_LOCAL j)
	LOCAL_GET_PROP     // - LOCAL_GET_PROP<i s c _> v           (LOAD_LOCAL i; GET_PROP s c: self.field)
	BINOP_STORE        // x y BINOP_STORE<op j> -               (op; STORE_LOCAL j; op is ADD SUB MUL DIV MOD)
	BINOP_RETURN       // x y BINOP_RETURN<op>                  (op; RETURN; op is ADD SUB MUL DIV MOD)
	JUMP_FOR           // - JUMP_FOR<t> -                       (JUMP t to a FOR_NEXT_STORE: runs it)
	LOCAL_CALL_METHOD  // - LOCAL_CALL_METHOD<i _ s n c> r      (LOAD_LOCAL i; CALL_METHOD s n c with n 0: x.m())
	LOCALS_CALL_METHOD // - LOCALS_CALL_METHOD<i _ j _ s n c> v r (LOAD_LOCAL i; LOAD_LOCAL j; CALL_METHOD s n c with n 0: v + x.m())
	NAME_CALL_LOCAL    // - NAME_CALL_LOCAL<s _ i _ n> r         (CALLEE_NAME s; LOAD_LOCAL i; CALL n with n 1: to_string(i))

	// `x = x.push(v)` on an ownable variable (vm/own.go): the receiver is
	// loaded without sharing (LOAD_LOCAL i, not LOAD_LOCAL_SH i) and the
	// call becomes one of these, still followed by its STORE_LOCAL i or
	// STORE_GLOBAL g. When l is the list the variable holds and owns, v is
	// appended in place and the store is skipped; for another list the
	// result is a list the store makes owned; any other receiver runs
	// CALL_METHOD. Operands are CALL_METHOD's (n is 1).
	METHOD_PUSH_LOCAL  // l v METHOD_PUSH_LOCAL<s n c> l'     (CALL_METHOD "push" 1 c; before STORE_LOCAL)
	METHOD_PUSH_GLOBAL // l v METHOD_PUSH_GLOBAL<s n c> l'    (CALL_METHOD "push" 1 c; before STORE_GLOBAL)

	numOpcodes
)

// OpInfo describes an opcode: its name, operand count and stack effect
// (Push-Pop; Variable when it depends on operands).
type OpInfo struct {
	Name     string
	Operands int
}

// Info is the one opcode table: name and operand count of every opcode.
var Info = [numOpcodes]OpInfo{
	NOP: {"NOP", 0}, POP: {"POP", 0}, POPN: {"POPN", 1}, DUP: {"DUP", 0}, DUP2: {"DUP2", 0},
	CONST: {"CONST", 1}, NIL: {"NIL", 0}, TRUE: {"TRUE", 0}, FALSE: {"FALSE", 0}, INT: {"INT", 1},
	LOAD_LOCAL: {"LOAD_LOCAL", 1}, LOAD_LOCAL_CK: {"LOAD_LOCAL_CK", 2}, STORE_LOCAL: {"STORE_LOCAL", 1},
	MAKE_CELL: {"MAKE_CELL", 1}, CELLIFY: {"CELLIFY", 1}, LOAD_CELL: {"LOAD_CELL", 2}, STORE_CELL: {"STORE_CELL", 1},
	LOAD_FREE: {"LOAD_FREE", 2}, STORE_FREE: {"STORE_FREE", 1},
	LOAD_GLOBAL: {"LOAD_GLOBAL", 1}, LOAD_LOCAL_SH: {"LOAD_LOCAL_SH", 1}, LOAD_GLOBAL_SH: {"LOAD_GLOBAL_SH", 1}, STORE_GLOBAL: {"STORE_GLOBAL", 1}, DEF_GLOBAL: {"DEF_GLOBAL", 2},
	LOAD_UNIV: {"LOAD_UNIV", 1}, LOAD_NAME: {"LOAD_NAME", 1},
	CALLEE_LOCAL: {"CALLEE_LOCAL", 2}, CALLEE_CELL: {"CALLEE_CELL", 2}, CALLEE_FREE: {"CALLEE_FREE", 2},
	CALLEE_GLOBAL: {"CALLEE_GLOBAL", 2}, CALLEE_NAME: {"CALLEE_NAME", 1}, CALLEE_UNIV: {"CALLEE_UNIV", 1},
	CALL: {"CALL", 1}, CALL_SPREAD: {"CALL_SPREAD", 0}, TAILCALL: {"TAILCALL", 1}, CALL_ENTRY: {"CALL_ENTRY", 1},
	CALL_METHOD: {"CALL_METHOD", 3}, CALL_METHOD_OPT: {"CALL_METHOD_OPT", 3}, CALL_METHOD_SP: {"CALL_METHOD_SP", 3},
	RETURN: {"RETURN", 0}, MAKE_CLOSURE: {"MAKE_CLOSURE", 1}, PIPE: {"PIPE", 0}, PIPE_CALLEE: {"PIPE_CALLEE", 0},
	JUMP: {"JUMP", 1}, JUMP_IF_FALSE: {"JUMP_IF_FALSE", 1}, JUMP_IF_TRUE: {"JUMP_IF_TRUE", 1},
	JUMP_IF_NOT_NIL: {"JUMP_IF_NOT_NIL", 1}, JUMP_IF_NIL: {"JUMP_IF_NIL", 1}, ARGC_GT: {"ARGC_GT", 2},
	ADD: {"ADD", 0}, SUB: {"SUB", 0}, MUL: {"MUL", 0}, DIV: {"DIV", 0}, MOD: {"MOD", 0}, POW: {"POW", 0},
	EQ: {"EQ", 0}, NE: {"NE", 0}, LT: {"LT", 0}, GT: {"GT", 0}, LE: {"LE", 0}, GE: {"GE", 0},
	IN: {"IN", 0}, NOT_IN: {"NOT_IN", 0}, NOT: {"NOT", 0}, NEG: {"NEG", 0}, TRUTH: {"TRUTH", 0},
	MAKE_LIST: {"MAKE_LIST", 1}, LIST_PUSH: {"LIST_PUSH", 0}, LIST_EXTEND: {"LIST_EXTEND", 0},
	MAKE_DICT: {"MAKE_DICT", 1}, DICT_SET: {"DICT_SET", 0}, DICT_MERGE: {"DICT_MERGE", 0},
	MAKE_RANGE: {"MAKE_RANGE", 1}, MAKE_STRUCT: {"MAKE_STRUCT", 3}, MAKE_VARIANT: {"MAKE_VARIANT", 3},
	INTERP:   {"INTERP", 1},
	GET_PROP: {"GET_PROP", 2}, GET_PROP_OPT: {"GET_PROP_OPT", 2}, GET_INDEX: {"GET_INDEX", 0},
	GET_INDEX_OPT: {"GET_INDEX_OPT", 0}, SLICE: {"SLICE", 0}, SET_PATH: {"SET_PATH", 3},
	ITER: {"ITER", 0}, FOR_NEXT: {"FOR_NEXT", 2}, PAIR_SPLIT: {"PAIR_SPLIT", 0},
	PAT_DICT: {"PAT_DICT", 0}, PAT_LIST: {"PAT_LIST", 0}, DICT_KEY: {"DICT_KEY", 1}, DICT_REST: {"DICT_REST", 1},
	LIST_AT: {"LIST_AT", 1}, LIST_FROM: {"LIST_FROM", 1}, IS_VARIANT: {"IS_VARIANT", 2},
	VARIANT_FIELD: {"VARIANT_FIELD", 1}, LIST_LEN_IS: {"LIST_LEN_IS", 2}, IS_DICT: {"IS_DICT", 0}, CLOSE_ITER: {"CLOSE_ITER", 1},
	SETUP_TRY: {"SETUP_TRY", 1}, POP_TRY: {"POP_TRY", 0}, THROW: {"THROW", 0}, RERAISE: {"RERAISE", 0},
	CAUGHT: {"CAUGHT", 0}, CATCH_IS: {"CATCH_IS", 2}, CATCHABLE: {"CATCHABLE", 1}, WRAP_OK: {"WRAP_OK", 0},
	ERR_RESULT: {"ERR_RESULT", 0}, PROPAGATE: {"PROPAGATE", 1}, RAISE: {"RAISE", 2}, MATCH_FAIL: {"MATCH_FAIL", 0},
	RETRY_RERAISE: {"RETRY_RERAISE", 0}, NON_NIL: {"NON_NIL", 0}, RETRY_COUNT: {"RETRY_COUNT", 0},
	CHECK_PARAM: {"CHECK_PARAM", 2}, IMPL: {"IMPL", 3}, YIELD: {"YIELD", 0}, EMIT: {"EMIT", 0}, JUMP_OPEN: {"JUMP_OPEN", 1},
	CALL_INTERNAL: {"CALL_INTERNAL", 2},
	LOCAL_BINOP:   {"LOCAL_BINOP", 4}, LOCAL_BINOP_STORE: {"LOCAL_BINOP_STORE", 6}, LOCAL_BINOP_JUMP: {"LOCAL_BINOP_JUMP", 6},
	CONST_BINOP_JUMP: {"CONST_BINOP_JUMP", 4}, RETURN_LOCAL: {"RETURN_LOCAL", 2}, FOR_NEXT_STORE: {"FOR_NEXT_STORE", 4},
	LOCAL_GET_PROP: {"LOCAL_GET_PROP", 4}, BINOP_STORE: {"BINOP_STORE", 2}, BINOP_RETURN: {"BINOP_RETURN", 1},
	JUMP_FOR: {"JUMP_FOR", 1}, LOCAL_CALL_METHOD: {"LOCAL_CALL_METHOD", 5}, LOCALS_CALL_METHOD: {"LOCALS_CALL_METHOD", 7}, NAME_CALL_LOCAL: {"NAME_CALL_LOCAL", 5}, METHOD_PUSH_LOCAL: {"METHOD_PUSH_LOCAL", 3}, METHOD_PUSH_GLOBAL: {"METHOD_PUSH_GLOBAL", 3},
}

func (op Opcode) String() string {
	if op >= 0 && op < numOpcodes && Info[op].Name != "" {
		return Info[op].Name
	}
	return "OP?"
}

// Error kinds for RAISE (mirrors vm.ErrorKind's first values).
const (
	RaiseThrown  = 0
	RaiseRuntime = 1
	RaiseType    = 2
	RaisePlain   = 3
	// RaiseUndefined: the constant is a name; the error is "Undefined
	// variable: name" with the did-you-mean of docs/spec/language.md §3.2
	// over the bound globals, the builtins and Func.LocalNamesOf(name).
	RaiseUndefined = 4
)

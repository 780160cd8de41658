package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib"
)

// TestCodeIsWellFormed compiles every conformance program and checks the
// code of each function: known opcodes with their operand counts, jump
// targets on instruction boundaries (superinstructions never swallow
// one), and slot operands inside the frame.
func TestCodeIsWellFormed(t *testing.T) {
	u := stdlib.NewUniverse(stdlib.Config{})
	var files []string
	filepath.WalkDir("../conformance", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".harn") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skip("no conformance programs")
	}
	compiled := 0
	for _, path := range files {
		src, _ := os.ReadFile(path)
		f, err := syntax.Parse(path, src)
		if err != nil {
			continue
		}
		info := resolve.File(f, resolve.Options{Universe: u, OpaqueImports: true})
		if len(info.Errors) > 0 {
			continue
		}
		prog, err := compiler.Compile(f, info)
		if err != nil {
			continue
		}
		compiled++
		checkFunc(t, path, prog.Main)
	}
	if compiled < len(files)/2 {
		t.Fatalf("only %d of %d programs compiled", compiled, len(files))
	}
}

var jumpOperand = map[compiler.Opcode]int{
	compiler.JUMP: 0, compiler.JUMP_IF_FALSE: 0, compiler.JUMP_IF_TRUE: 0, compiler.JUMP_IF_NOT_NIL: 0,
	compiler.JUMP_IF_NIL: 0, compiler.ARGC_GT: 1, compiler.FOR_NEXT: 1, compiler.SETUP_TRY: 0,
	compiler.CATCH_IS: 1, compiler.CATCHABLE: 0, compiler.PROPAGATE: 0,
	compiler.FOR_NEXT_STORE: 1, compiler.LOCAL_BINOP_JUMP: 4, compiler.CONST_BINOP_JUMP: 3, compiler.JUMP_FOR: 0,
}

var slotOperand = map[compiler.Opcode]bool{
	compiler.LOAD_LOCAL: true, compiler.LOAD_LOCAL_CK: true, compiler.STORE_LOCAL: true, compiler.MAKE_CELL: true,
	compiler.CELLIFY: true, compiler.LOAD_CELL: true, compiler.STORE_CELL: true, compiler.CALLEE_LOCAL: true,
	compiler.CALLEE_CELL: true, compiler.LOAD_LOCAL_SH: true, compiler.FOR_NEXT: true, compiler.CHECK_PARAM: true,
	compiler.LOCAL_BINOP: true, compiler.LOCAL_BINOP_STORE: true, compiler.LOCAL_BINOP_JUMP: true,
	compiler.RETURN_LOCAL: true, compiler.FOR_NEXT_STORE: true, compiler.LOCAL_GET_PROP: true, compiler.LOCAL_CALL_METHOD: true,
	compiler.LOCALS_CALL_METHOD: true,
}

// moreSlots lists the other operands of fused instructions that name a
// slot (the first is in slotOperand): the store's j, the second local's j.
var moreSlots = map[compiler.Opcode][]int{
	compiler.LOCAL_BINOP_STORE: {4}, compiler.FOR_NEXT_STORE: {2}, compiler.LOCALS_CALL_METHOD: {2},
}

func checkFunc(t *testing.T, path string, f *compiler.Func) {
	t.Helper()
	starts := map[int]bool{len(f.Code): true}
	for pc := 0; pc < len(f.Code); pc += 1 + compiler.Info[f.Code[pc]].Operands {
		starts[pc] = true
	}
	for pc := 0; pc < len(f.Code); {
		op := compiler.Opcode(f.Code[pc])
		if op.String() == "OP?" {
			t.Fatalf("%s: %s: unknown opcode %d at %d", path, f.Name, op, pc)
		}
		n := compiler.Info[op].Operands
		if pc+n >= len(f.Code) {
			t.Fatalf("%s: %s: truncated %s at %d", path, f.Name, op, pc)
		}
		if k, ok := jumpOperand[op]; ok {
			if target := int(f.Code[pc+1+k]); target < 0 || target > len(f.Code) {
				t.Fatalf("%s: %s: %s at %d jumps to %d (code length %d)", path, f.Name, op, pc, target, len(f.Code))
			} else if !starts[target] {
				t.Fatalf("%s: %s: %s at %d jumps into the middle of an instruction (%d)", path, f.Name, op, pc, target)
			}
		}
		if slotOperand[op] {
			if slot := int(f.Code[pc+1]); slot < 0 || slot >= f.NumLocals {
				t.Fatalf("%s: %s: %s at %d uses slot %d of %d", path, f.Name, op, pc, slot, f.NumLocals)
			}
		}
		for _, k := range moreSlots[op] {
			if slot := int(f.Code[pc+1+k]); slot < 0 || slot >= f.NumLocals {
				t.Fatalf("%s: %s: %s at %d uses slot %d of %d (operand %d)", path, f.Name, op, pc, slot, f.NumLocals, k)
			}
		}
		pc += 1 + n
	}
	for _, child := range f.Funcs {
		checkFunc(t, path, child)
	}
}

// TestSimple checks which functions the VM may enter by its fast path
// (compiler.Func.Simple): ordinary functions, methods and closures, and
// rest parameters that bind one argument; not generators, pipelines or a
// rest parameter that collects surplus arguments.
func TestSimple(t *testing.T) {
	src := `
fn plain(a, b = 1) { return a + b }
fn gen() { yield 1 }
fn many(...xs) { return xs }
struct P { x: int }
impl P {
  fn get(self, ...more) { return self.x }
}
pipeline main(task) {
  let f = { x -> x }
  println(plain(1), f(2))
}
`
	prog := compileSource(t, "simple.harn", src)
	got := map[string]bool{}
	var walk func(fn *compiler.Func)
	walk = func(fn *compiler.Func) {
		name := fn.Name
		if name == "" {
			name = "<anon>"
		}
		got[name] = fn.Simple
		for _, c := range fn.Funcs {
			walk(c)
		}
	}
	walk(prog.Main)
	want := map[string]bool{"plain": true, "gen": false, "many": false, "get": true, "main": false}
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("%s: Simple = %v (found %v), want %v", name, g, ok, w)
		}
	}
}

// TestNamesInterned checks that a program holds one copy of each name and
// string constant: the VM's property cache matches a struct's field name
// against a read's name by address (vm/cache.go).
func TestNamesInterned(t *testing.T) {
	src := `struct R { w: int }
fn make() { return R { w: 1 } }
fn read(r) { return r.w }
println(read(make()))
`
	prog := compileSource(t, "interned.harn", src)
	var ws []string
	var walk func(fn *compiler.Func)
	walk = func(fn *compiler.Func) {
		for _, n := range fn.Names {
			if n == "w" {
				ws = append(ws, n)
			}
		}
		for _, c := range fn.Consts {
			if s, ok := c.(string); ok && s == "w" {
				ws = append(ws, s)
			}
		}
		for _, c := range fn.Funcs {
			walk(c)
		}
	}
	walk(prog.Main)
	if len(ws) < 2 {
		t.Fatalf("found %d copies of the field name, want the literal's and the read's", len(ws))
	}
	for _, w := range ws[1:] {
		if unsafe.StringData(w) != unsafe.StringData(ws[0]) {
			t.Fatalf("the field name %q is stored twice", w)
		}
	}
}

// compileSource parses, resolves (with the standard library's names) and
// compiles src.
func compileSource(t *testing.T, path, src string) *compiler.Program {
	t.Helper()
	f, err := syntax.Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info := resolve.File(f, resolve.Options{Universe: stdlib.NewUniverse(stdlib.Config{})})
	prog, err := compiler.Compile(f, info)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// TestSelfPushFused: `x = x.push(v)` on a plain local or a module global
// compiles to the in-place push (the resolver makes x ownable); a push
// stored elsewhere or onto a captured variable stays a method call.
func TestSelfPushFused(t *testing.T) {
	src := `var g = []
fn f(n) {
  var xs = []
  var ys = []
  var zs = []
  let get = { -> zs }
  for i in 0 to n exclusive {
    xs = xs.push("x" + to_string(i))
    ys = xs.push(i)
    zs = zs.push(i)
  }
  g = g.push(n)
  return [xs, ys, get()]
}
`
	prog := compileSource(t, "push.harn", src)
	count := map[compiler.Opcode]int{}
	fn := prog.Main.Funcs[0]
	for pc := 0; pc < len(fn.Code); pc += 1 + compiler.Info[fn.Code[pc]].Operands {
		count[compiler.Opcode(fn.Code[pc])]++
	}
	if count[compiler.METHOD_PUSH_LOCAL] != 1 || count[compiler.METHOD_PUSH_GLOBAL] != 1 || count[compiler.CALL_METHOD] != 2 {
		t.Errorf("METHOD_PUSH_LOCAL %d, METHOD_PUSH_GLOBAL %d, CALL_METHOD %d; want 1, 1, 2\n%s",
			count[compiler.METHOD_PUSH_LOCAL], count[compiler.METHOD_PUSH_GLOBAL], count[compiler.CALL_METHOD], compiler.Disassemble(fn))
	}
}

// TestBreakInDeferReportedOnce: a defer block is copied to every exit
// point of its function, a copy at a return inside a loop included, and
// a break in it leaves no loop from any of them; the error is reported
// once, with a help saying why.
func TestBreakInDeferReportedOnce(t *testing.T) {
	src := "fn f(xs) {\n  for x in xs {\n    defer {\n      break\n    }\n    if x {\n      return 1\n    }\n  }\n  return 2\n}\nprintln(f([true]))\n"
	f, err := syntax.Parse("d.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info := resolve.File(f, resolve.Options{Universe: stdlib.NewUniverse(stdlib.Config{}), OpaqueImports: true})
	_, err = compiler.Compile(f, info)
	ds, ok := err.(diag.List)
	if !ok || len(ds) != 1 {
		t.Fatalf("got %v, want one compile error", err)
	}
	if ds[0].Msg != "break outside of loop" || ds[0].Line != 4 || !strings.Contains(ds[0].Help, "`defer` block runs when") {
		t.Errorf("got %q at line %d, help %q", ds[0].Msg, ds[0].Line, ds[0].Help)
	}
}

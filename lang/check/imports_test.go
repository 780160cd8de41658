package check

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// fakeImports serves the functions of one module file to the checker, as
// the module loader does: typed in the module's own environment.
type fakeImports struct {
	ns  string // the namespace import's name
	env *types.Env
	fns map[string]*syntax.FnDecl
}

func newFakeImports(t *testing.T, ns, module string) *fakeImports {
	t.Helper()
	f, err := syntax.Parse("lib.harn", []byte(module))
	if err != nil {
		t.Fatal(err)
	}
	env := types.NewEnv()
	env.AddFile(f)
	fi := &fakeImports{ns: ns, env: env, fns: map[string]*syntax.FnDecl{}}
	for _, it := range f.Items {
		if fn, ok := it.(*syntax.FnDecl); ok && fn.Pub {
			fi.fns[fn.Name] = fn
		}
	}
	return fi
}

func (fi *fakeImports) ImportedFunc(ns, name string) (*syntax.FnDecl, *types.Func, bool) {
	if ns != fi.ns {
		return nil, nil, false
	}
	fn := fi.fns[name]
	if fn == nil {
		return nil, nil, false
	}
	return fn, fi.env.FnType(fn), true
}

const importsLib = `struct Point { x: int }
pub fn add(a: int, b: int = 10) -> int { return a + b }
pub fn pair(a, b) { return [a, b] }
pub fn first(head, ...rest: int) { return head }
pub fn ident<T>(x: T) -> T { return x }
pub fn getx(p: Point) { return p.x }
@deprecated(use: "add")
pub fn old() { return 1 }
pub fn maybe(n: int) -> int? { return n > 0 ? n : nil }
pub fn found() -> Point? { return nil }
`

// TestImportedCallees: functions bound by imports are checked like the
// file's own (docs/spec/language.md §9.2), namespace members included,
// each diagnostic with a passing twin.
func TestImportedCallees(t *testing.T) {
	cases := []struct {
		name, ns, src string
		want          []string
	}{
		{"arity", "", "pair(1, 2, 3)", []string{"warning: Function 'pair' expects 2 arguments, got 3"}},
		{"arity twin", "", "pair(1, 2)", nil},
		{"defaults", "", "add()\nadd(1, 2, 3)", []string{
			"warning: Function 'add' expects 1-2 arguments, got 0",
			"warning: Function 'add' expects 1-2 arguments, got 3"}},
		{"defaults twin", "", "add(1)\nadd(1, 2)", nil},
		{"argument type", "", `add("x")`, []string{"error: argument 1 `a`: expected int, found string"}},
		{"result type", "", `let s: string = add(1)`, []string{"error: let binding `s`: expected string, found int"}},
		{"rest is plain, no upper bound", "", "first(1, 2, 3, 4)", nil},
		{"rest still needs its head", "", "first()", []string{"warning: Function 'first' expects at least 1 argument, got 0"}},
		{"rest argument type", "", `first(1, "x")`, []string{"error: argument 2 `rest`: expected int, found string"}},
		{"generic", "", `let s: string = ident("a")`, nil},
		{"generic result", "", `let s: string = ident(1)`, []string{"error: let binding `s`: expected string, found int"}},
		{"private struct of the module", "", "struct Point { x: int }\ngetx(Point { x: 1 })", nil},
		{"deprecated", "", "old()", []string{"warning: `old` is deprecated"}},
		{"namespace arity", "m", "m.pair(1)", []string{"warning: Function 'm.pair' expects at least 2 arguments, got 1"}},
		{"namespace argument", "m", `m.add("x")`, []string{"error: argument 1 `a`: expected int, found string"}},
		{"namespace twin", "m", "m.add(1)\nm.first(1, 2, 3)\nm.pair(1, 2)", nil},
		{"declared T? result", "", "let n: int = maybe(1)", []string{"error: let binding `n`: expected int, found int?"}},
		{"declared T? result twin", "", "let n: int = maybe(1) ?? 0\nlet m: int? = maybe(2)\nadd(maybe(3)!)", nil},
		{"declared T? result of a namespace member", "m", "m.add(m.maybe(1))", []string{"error: argument 1 `a`: expected int, found int?"}},
		{"unseen struct result may be nil", "", "println(found().x)",
			[]string{"error: cannot access property `x` on nilable type `Point?`; the value may be nil at runtime"}},
		{"unseen struct result twin", "", "println(found()?.x)\nprintln(found()!.x)\nlet p = found()\nif p != nil {\n  println(p.x)\n}", nil},
		{"namespace shadowed", "m", "fn f() {\n  let m = {pair: { a -> a }}\n  return m.pair(1, 2, 3)\n}\nf()", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			imports := newFakeImports(t, tc.ns, importsLib)
			head := `import { add, pair, first, ident, getx, old, maybe, found } from "./lib"`
			names := []string{"add", "pair", "first", "ident", "getx", "old", "maybe", "found"}
			if tc.ns != "" {
				head, names = `import * as m from "./lib"`, []string{"m"}
			}
			src := head + "\n" + tc.src + "\n"
			f, err := syntax.Parse("test.harn", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			info := resolve.File(f, resolve.Options{Universe: testUniverse, ImportedNames: names})
			if len(info.Errors) > 0 {
				t.Fatalf("resolve: %v", info.Errors)
			}
			got := File(f, info, Options{Imports: imports})
			var lines []string
			for _, l := range strings.Split(strings.TrimRight(format(got), "\n"), "\n") {
				if l != "" && !strings.Contains(l, "never used") {
					lines = append(lines, l)
				}
			}
			if len(lines) != len(tc.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(lines), len(tc.want), format(got))
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("diagnostic %d = %q, want it to contain %q", i, lines[i], w)
				}
			}
		})
	}
}

package resolve_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

type universe map[string]bool

func (u universe) IsPredeclared(n string) bool { return u[n] }
func (u universe) PredeclaredNames() []string {
	var out []string
	for n := range u {
		out = append(out, n)
	}
	return out
}

func resolveSrc(t *testing.T, src string) (*syntax.File, *resolve.Info) {
	t.Helper()
	f, err := syntax.Parse("t.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f, resolve.File(f, resolve.Options{Universe: universe{"println": true}})
}

// scopesOf returns the scope of every reference to name, in source order.
func scopesOf(info *resolve.Info, name string) []resolve.Scope {
	type at struct {
		pos   syntax.Pos
		scope resolve.Scope
	}
	var refs []at
	for id, ref := range info.Refs {
		if id.Name == name {
			refs = append(refs, at{id.At, ref.Scope})
		}
	}
	for i := range refs {
		for j := i + 1; j < len(refs); j++ {
			if refs[j].pos.Line < refs[i].pos.Line || refs[j].pos.Line == refs[i].pos.Line && refs[j].pos.Col < refs[i].pos.Col {
				refs[i], refs[j] = refs[j], refs[i]
			}
		}
	}
	out := make([]resolve.Scope, len(refs))
	for i, r := range refs {
		out[i] = r.scope
	}
	return out
}

func TestScopes(t *testing.T) {
	cases := []struct {
		name, src, ident string
		want             []resolve.Scope
	}{
		{"top-level is global", "let x = 1\nprintln(x)", "x", []resolve.Scope{resolve.Global}},
		{"block local", "if true {\n let y = 1\n println(y)\n}", "y", []resolve.Scope{resolve.Local}},
		{"captured local is a cell", "fn f() {\n let n = 0\n let g = { -> n }\n return n\n}", "n", []resolve.Scope{resolve.Free, resolve.Cell}},
		{"builtin", "println(1)", "println", []resolve.Scope{resolve.Universal}},
		{"undefined read is a run-time lookup", "println(nope)", "nope", []resolve.Scope{resolve.Undefined}},
		{"variable declared after a function is hidden", "fn f() { return later }\nlet later = 1", "later", []resolve.Scope{resolve.Hidden}},
		{"function declared later is visible", "fn f() { return g() }\nfn g() { return 1 }", "g", []resolve.Scope{resolve.Global}},
		{"a local closure named like a builtin calls itself", "fn o() {\n let println = { n -> println(n) }\n return println(1)\n}", "println", []resolve.Scope{resolve.Free, resolve.Cell}},
		{"local fns see each other", "fn o() {\n fn a() { return b() }\n fn b() { return 1 }\n return a()\n}", "b", []resolve.Scope{resolve.Free}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, info := resolveSrc(t, c.src)
			got := scopesOf(info, c.ident)
			if len(got) != len(c.want) {
				t.Fatalf("%s: scopes %v, want %v", c.ident, got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s ref %d: %v, want %v", c.ident, i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestUnknownCallIsStaticError(t *testing.T) {
	_, info := resolveSrc(t, "let count = 1\nprintn(count)")
	if len(info.Errors) != 1 {
		t.Fatalf("errors: %v", info.Errors)
	}
	if got, want := info.Errors[0].Msg, "call target `printn` is not defined or imported — did you mean `println`?"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestConstRedeclarationInLocalScope(t *testing.T) {
	f, info := resolveSrc(t, "fn f() {\n const a = 1\n const a = 2\n}")
	body := f.Items[0].(*syntax.FnDecl).Body.Stmts
	second := body[1].(*syntax.LetStmt).Pattern
	if !info.ConstRedeclared[second] {
		t.Error("second const not marked as a redeclaration")
	}
}

func TestPipelineMode(t *testing.T) {
	_, info := resolveSrc(t, "pipeline other() {}\npipeline default() {}")
	if !info.Pipeline || info.Entry == nil || info.Entry.Name != "default" {
		t.Fatalf("pipeline=%v entry=%v", info.Pipeline, info.Entry)
	}
}

// A pipeline's bad `extends` is reported once, however many pipelines
// extend into its chain (docs/spec/language.md §5.5).
func TestExtendsErrorReportedOnce(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"pipeline a() extends b {}\npipeline b() extends a {}\npipeline default() extends a {}",
			"1:1 pipeline `a` extends itself through `b`; 2:1 pipeline `b` extends itself through `a`"},
		{"pipeline a() extends zz {}\npipeline c() extends a {}\npipeline default() extends a {}",
			"1:1 pipeline `a` extends unknown pipeline `zz`"},
	} {
		_, info := resolveSrc(t, c.src)
		var got []string
		for _, e := range info.Errors {
			got = append(got, fmt.Sprintf("%d:%d %s", e.Line, e.Col, e.Msg))
		}
		if s := strings.Join(got, "; "); s != c.want {
			t.Errorf("%q: errors %q, want %q", c.src, s, c.want)
		}
	}
}

// An ambiguous bare variant is one error; its bindings still bind, so no
// undefined-name or call-target errors follow (docs/spec/newer.md §1.12).
func TestAmbiguousBareVariantIsOneError(t *testing.T) {
	_, info := resolveSrc(t, "enum A { Same(x: int) }\nenum B { Same(x: int) }\nfn f(a: A) {\n  return match a {\n    Same(x) -> { x }\n    _ -> { 0 }\n  }\n}")
	if len(info.Errors) != 1 {
		t.Fatalf("errors: %v", info.Errors)
	}
	if got, want := info.Errors[0].Msg, "variant `Same` is declared by more than one enum (A, B); qualify it, e.g. `A.Same`"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if s := scopesOf(info, "x"); len(s) != 1 || s[0] != resolve.Local {
		t.Errorf("x scopes %v, want one local reference", s)
	}
}

// A REPL entry resolved after earlier ones (Options.PriorGlobals): a prior
// global that is also imported keeps the import kind, so `Shape.Circle`
// of an earlier entry's imported enum is a variant, and the variants of
// an earlier entry's enum match bare.
func TestPriorImportsAndEnums(t *testing.T) {
	prior, err := syntax.Parse("p.harn", []byte("enum Light { Red, Amber(secs) }"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := syntax.Parse("t.harn", []byte("let a = Shape.Circle(1)\nlet b = match a { Amber(s) -> { s }, _ -> { 0 } }\nlet c = Light.Red\n"))
	if err != nil {
		t.Fatal(err)
	}
	info := resolve.File(f, resolve.Options{
		Universe:      universe{},
		PriorGlobals:  []string{"Shape", "n"},
		ImportedNames: []string{"Shape"},
		ImportedEnums: []string{"Shape"},
		PriorEnums:    []*syntax.EnumDecl{prior.Items[0].(*syntax.EnumDecl)},
	})
	if len(info.Errors) > 0 {
		t.Fatal(info.Errors)
	}
	if b := info.Globals[info.GlobalIndex["Shape"]]; b.Kind != resolve.KImport {
		t.Errorf("Shape: kind %v, want the import kind", b.Kind)
	}
	if b := info.Globals[info.GlobalIndex["n"]]; b.Kind != resolve.KLet {
		t.Errorf("n: kind %v", b.Kind)
	}
	if got := scopesOf(info, "Shape"); len(got) != 0 {
		t.Errorf("Shape.Circle read Shape as a value: %v", got)
	}
	if got := scopesOf(info, "s"); len(got) != 1 || got[0] != resolve.Local {
		t.Errorf("the bare pattern Amber(s) did not bind s: %v", got)
	}
	if !info.IsEnum("Light") {
		t.Error("Light is not an enum")
	}
}

// A bare variant of an imported enum is an error (it would bind anything
// as a catch-all); the file's own variants stay bare, other capitalised
// names still bind, and a bare call-shaped one is an undefined call target
// whose help says how to qualify it (docs/spec/newer.md §1.12).
func TestImportedBareVariant(t *testing.T) {
	opts := resolve.Options{
		Universe:         universe{"println": true},
		ImportedNames:    []string{"Color"},
		ImportedEnums:    []string{"Color"},
		ImportedVariants: map[string][]string{"Red": {"Color"}, "Green": {"Color"}, "Circle": {"geo.Shape"}, "Mine": {"Color"}},
	}
	cases := []struct {
		name, src string
		want      []string // error messages, then helps after "help: "
	}{
		{"bare imported variant", "fn f(c) {\n  return match c {\n    Red -> { 1 }\n    _ -> { 0 }\n  }\n}",
			[]string{"variant `Red` of the imported enum `Color` must be qualified, e.g. `Color.Red`"}},
		{"qualified imported variant", "fn f(c) {\n  return match c {\n    Color.Red -> { 1 }\n    _ -> { 0 }\n  }\n}", nil},
		{"the file's own variant wins", "enum Mine { Mine }\nfn f(c) {\n  return match c {\n    Mine -> { 1 }\n    _ -> { 0 }\n  }\n}", nil},
		{"a capitalised binding", "fn f(c) {\n  return match c {\n    Purple -> { Purple }\n  }\n}", nil},
		{"a variable of that name", "fn f(c, Red) {\n  return match c {\n    Red -> { 1 }\n    _ -> { 0 }\n  }\n}", nil},
		{"call-shaped", "fn f(c) {\n  return match c {\n    Circle(r) -> { 1 }\n    _ -> { 0 }\n  }\n}",
			[]string{"call target `Circle` is not defined or imported", "help: `Circle` is a variant of the imported enum `geo.Shape`: write `geo.Shape.Circle`"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := syntax.Parse("t.harn", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			info := resolve.File(f, opts)
			var got []string
			for _, e := range info.Errors {
				got = append(got, e.Msg)
				if e.Help != "" {
					got = append(got, "help: "+e.Help)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("errors %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("error %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// A second impl of one struct in one scope is warned about at the second
// impl, naming the first one's line (docs/spec/language.md §10.3: it fails
// when it runs); impls in nested scopes are not redeclarations.
func TestSecondImplWarns(t *testing.T) {
	src := "struct P {\n  x: int\n}\nimpl P {\n  fn a(self) { return 1 }\n}\nif true {\n  impl P {\n    fn b(self) { return 2 }\n  }\n}\nimpl P {\n  fn c(self) { return 3 }\n}\n"
	_, info := resolveSrc(t, src)
	if len(info.Errors) != 0 || len(info.Warnings) != 1 {
		t.Fatalf("errors: %v, warnings: %v", info.Errors, info.Warnings)
	}
	e := info.Warnings[0]
	if e.Line != 12 || e.Col != 1 {
		t.Errorf("at %d:%d, want 12:1", e.Line, e.Col)
	}
	if want := "struct `P` already has an impl in this scope, at line 4: this second one is a redeclaration error when it runs"; e.Msg != want {
		t.Errorf("message %q, want %q", e.Msg, want)
	}
	if len(e.Notes) != 1 || e.Notes[0].Line != 4 {
		t.Errorf("notes %v, want the first impl at line 4", e.Notes)
	}
}

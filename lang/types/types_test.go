package types

import (
	"testing"

	"github.com/harnlang/harn/lang/syntax"
)

// parseType parses the annotation of `let x: T = nil`.
func parseType(t *testing.T, src string) syntax.TypeExpr {
	t.Helper()
	f, err := syntax.Parse("t.harn", []byte("let x: "+src+" = nil"))
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return f.Items[0].(*syntax.LetStmt).Type
}

func envFor(t *testing.T, path, src string) (*Env, []*Decl) {
	t.Helper()
	f, err := syntax.Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEnv()
	return e, e.AddFile(f)
}

func TestPrinting(t *testing.T) {
	e, _ := envFor(t, "a.harn", "struct Box<T> { v: T }\nenum Shape { Dot }")
	for src, want := range map[string]string{
		"int":                             "int",
		"[int]":                           "list<int>",
		"list":                            "list",
		"list<string>":                    "list<string>",
		"dict":                            "dict",
		"dict<string, int>":               "dict<string, int>",
		"int?":                            "int?",
		"int | nil":                       "int?",
		"int | nil | string":              "int | string | nil",
		`"a" | "b"`:                       `"a" | "b"`,
		"0 | 1 | -1":                      "0 | 1 | -1",
		"{name: string, age?: int}":       "{name: string, age?: int}",
		"fn(int, string) -> bool":         "fn(int, string) -> bool",
		"Result<int, string>":             "Result<int, string>",
		"Box<int>":                        "Box<int>",
		"Shape?":                          "Shape?",
		"int | string | nil":              "int | string | nil",
		"{a: int} & {b: int}":             "{a: int} & {b: int}",
		"iter<int>":                       "iter<int>",
		"Generator<string>":               "Generator<string>",
		"Stream<int>":                     "Stream<int>",
		"set<int>":                        "set<int>",
		"HarnessFs":                       "HarnessFs",
		"Harness":                         "Harness",
		"ToolRegistry":                    "ToolRegistry",
		"true":                            "bool",
		"(fn(int) -> int)?":               "(fn(int) -> int)?",
		"int | int":                       "int",
		"any | int":                       "any",
		"never | string":                  "string",
		"list<{id: int, tags: [string]}>": "list<{id: int, tags: list<string>}>",
		"{id: string, ...rest}":           "{id: string, ...rest}",
		"{...rest}":                       "{...rest}",
		"{n: int, ...dict<string, int>}":  "{n: int, ...dict<string, int>}",
	} {
		if got := e.FromSyntax(parseType(t, src), nil).String(); got != want {
			t.Errorf("%s prints %q, want %q", src, got, want)
		}
	}
}

func TestAssignable(t *testing.T) {
	e, _ := envFor(t, "a.harn", `
struct Point { x: int, y: int, label?: string }
struct Other { x: int }
enum Shape { Dot, Circle(r: float) }
enum Color { Red }
interface Area { fn area(self) -> float }
struct Sq { side: int }
impl Sq { fn area(self) { return 1.0 } }
struct Bad { n: int }
impl Bad { fn other(self) { return 1 } }
type Status = "pass" | "fail"
type Pair<T> = {first: T, second: T}
`)
	ty := func(src string) Type { return e.FromSyntax(parseType(t, src), nil) }
	cases := []struct {
		src, dst string
		want     bool
	}{
		{"int", "float", true},
		{"float", "int", false},
		{"Generator<int>", "Generator<int>", true},
		{"Generator<int>", "Stream<int>", false},
		{"Stream<int>", "Generator<int>", false},
		{"list<int>", "Stream<int>", false},
		{"iter<int>", "Generator<int>", true},
		{"Generator<int>", "iter<int>", true},
		{"Stream<int>", "iter<int>", true},
		{"list<int>", "iter<int>", true},
		{"int", "int?", true},
		{"nil", "int", false},
		{"nil", "int?", true},
		{"int?", "int", false},
		{"any", "int", true},
		{"int", "any", true},
		{"unknown", "string", true},
		{"never", "string", true},
		{"string", "never", false},
		{`"a"`, "string", true},
		{"string", `"a" | "b"`, true},
		{`"c"`, `"a" | "b"`, false},
		{`"pass"`, "Status", true},
		{`"other"`, "Status", false},
		{"int", "string | int", true},
		{"int | string", "int", false},
		{"list<int>", "list<float>", true},
		{"list<string>", "list<int>", false},
		{"list", "list<int>", true},
		{"{x: int, y: int}", "Point", false},
		{"dict", "Point", false},
		{"{x: int}", "Point", false},
		{"{x: string, y: int}", "Point", false},
		{"Point", "{x: int}", true},
		{"Point", "{z: int}", false},
		{"Point", "Other", false},
		{"Point", "Point?", true},
		{"{a: int, b: string}", "{a: int}", true},
		{"{a: int}", "{a: int, b?: string}", true},
		{"{a: int, b: nil}", "{a: int, b?: string}", true},
		{"{a: int}", "dict<string, int>", true},
		{"{a: string}", "dict<string, int>", false},
		{"dict", "{a: int}", true},
		{"Shape", "Shape", true},
		{"Color", "Shape", false},
		{"Sq", "Area", true},
		{"Bad", "Area", false},
		{"Point", "Area", true}, // no impl visible: not rejected
		{"int", "Area", false},
		{"Result<int, string>", "Result<float, string>", true},
		{"Result<string, string>", "Result<int, string>", false},
		{"fn(int) -> int", "closure", true},
		{"closure", "fn(int) -> int", true},
		{"int", "closure", false},
		{"fn(float) -> int", "fn(int) -> float", true},
		{"fn(int) -> int", "fn(float) -> int", false},
		{"fn(int) -> int", "fn(int) -> string", false},
		{"fn(any) -> int | string", "fn(int) -> string", true},
		{"fn(int, int) -> int", "fn(int) -> int", false},
		{"Harness", "Harness", true},
		{"HarnessFs", "Harness", false},
		{"{first: int, second: int}", "Pair<int>", true},
		{"{first: int, second: string}", "Pair<int>", false},
		{"{a: int} & {b: int}", "{a: int, b: int}", true},
		{"{a: int, b: int}", "{a: int} & {b: int}", true},
		{"Unknown", "int", true},
		{"list<int>", "iter<int>", true},
	}
	for _, c := range cases {
		if got := AssignableTo(ty(c.src), ty(c.dst)); got != c.want {
			t.Errorf("AssignableTo(%s, %s) = %v, want %v", c.src, c.dst, got, c.want)
		}
	}
}

// FuncFitsExactly holds unions in parameter and result types in full,
// where AssignableTo lets one fitting member through.
func TestFuncFitsExactly(t *testing.T) {
	ty := func(src string) Type { return NewEnv().FromSyntax(parseType(t, src), nil) }
	cases := []struct {
		src, dst     string
		exact, loose bool
	}{
		{"fn(int) -> int", "fn(int?) -> int", false, true},
		{"fn(int) -> int", "fn(int | string) -> int", false, true},
		{"fn() -> int?", "fn() -> int", false, true},
		{"fn(int?) -> int", "fn(int) -> int", true, true},
		{"fn(int | string) -> int", "fn(int) -> int | string", true, true},
		{"fn(int) -> int?", "fn(int) -> nil", true, true},
		{"fn(any) -> any", "fn(int?) -> int", true, true},
		{"fn(int) -> string", "fn(int) -> int", false, false},
		{"int", "fn(int) -> int", true, false}, // not a function: not this test's
	}
	for _, c := range cases {
		if got := FuncFitsExactly(ty(c.src), ty(c.dst)); got != c.exact {
			t.Errorf("FuncFitsExactly(%s, %s) = %v, want %v", c.src, c.dst, got, c.exact)
		}
		if got := AssignableTo(ty(c.src), ty(c.dst)); got != c.loose {
			t.Errorf("AssignableTo(%s, %s) = %v, want %v", c.src, c.dst, got, c.loose)
		}
	}
}

func TestEnvDeclarations(t *testing.T) {
	lib, libDecls := envFor(t, "lib.harn", `
pub struct User { name: string, age?: int }
pub enum Kind { A, B(x: int, y) }
struct Private { v: int }
pub type Id = string | int
`)
	_ = lib
	if len(libDecls) != 4 {
		t.Fatalf("decls = %d", len(libDecls))
	}
	user := libDecls[0]
	if user.Origin != "lib.harn" || !user.Pub || user.Kind != StructDecl {
		t.Errorf("user decl = %+v", user)
	}
	if len(user.Fields) != 2 || user.Fields[0].Name != "name" || !user.Fields[1].Optional || user.Fields[1].Type != Int {
		t.Errorf("fields = %+v", user.Fields)
	}
	kind := libDecls[1]
	if v, ok := kind.Variant("B"); !ok || len(v.Fields) != 2 || v.Fields[0].Type != Int || v.Fields[1].Type != Any {
		t.Errorf("variant B = %+v", v)
	}
	if v, _ := kind.Variant("A"); v.Fields != nil {
		t.Errorf("variant A has payload %+v", v.Fields)
	}
	if libDecls[3].Target.String() != "string | int" {
		t.Errorf("alias = %s", libDecls[3].Target)
	}

	// An importer sees the pub declarations with their origin, and its own
	// declaration of the same name hides the imported one.
	f, err := syntax.Parse("main.harn", []byte("struct User { id: int }\nstruct Box { u: User, k: Kind }"))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEnv()
	for _, d := range libDecls {
		if d.Pub {
			e.Import(d)
		}
	}
	e.AddFile(f)
	if d := e.Lookup("User"); d.Origin != "main.harn" {
		t.Errorf("User from %s", d.Origin)
	}
	if d := e.Lookup("Kind"); d == nil || d.Origin != "lib.harn" {
		t.Errorf("Kind = %+v", d)
	}
	if e.Lookup("Private") != nil {
		t.Error("Private is visible")
	}
	box := e.Lookup("Box")
	if k := box.Fields[1].Type.(*Named); k.Decl != kind {
		t.Errorf("Box.k refers to %+v", k.Decl)
	}
	var names []string
	for _, d := range e.Decls() {
		names = append(names, d.Origin+":"+d.Name)
	}
	want := "[lib.harn:Kind lib.harn:Id main.harn:User main.harn:Box]"
	if got := sprint(names); got != want {
		t.Errorf("Decls = %s, want %s", got, want)
	}
}

func sprint(xs []string) string {
	s := "["
	for i, x := range xs {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s + "]"
}

func TestGenericsAndSubst(t *testing.T) {
	e, decls := envFor(t, "g.harn", "struct Box<T> { v: T, all: list<T> }\nfn first<T>(xs: list<T>) -> T { return xs[0] }")
	box := &Named{Decl: decls[0], Args: []Type{Int}}
	fs := StructFields(box)
	if fs[0].Type != Int || fs[1].Type.String() != "list<int>" {
		t.Errorf("fields = %v %v", fs[0].Type, fs[1].Type)
	}
	f, _ := syntax.Parse("g.harn", []byte("fn first<T>(xs: list<T>, n = 1, ...rest) -> T throws string { return xs[0] }"))
	sig := e.FnType(f.Items[0].(*syntax.FnDecl))
	if len(sig.TypeParams) != 1 || sig.Params[0].Type.String() != "list<T>" || sig.Throws != String {
		t.Errorf("sig = %s", sig)
	}
	if min, max := sig.Arity(); min != 1 || max != -1 {
		t.Errorf("arity = %d, %d", min, max)
	}
	inst := Subst(sig.Return, map[*TypeParam]Type{sig.TypeParams[0]: String})
	if inst != String {
		t.Errorf("subst = %s", inst)
	}
}

func TestHandles(t *testing.T) {
	if HandleName("fs_watch") != "HarnessFsWatch" || HandleName("stdio") != "HarnessStdio" {
		t.Error("HandleName")
	}
	if h, ok := Capability("code_index"); !ok || h.Name != "HarnessCodeIndex" {
		t.Error("Capability(code_index)")
	}
	if _, ok := Capability("banana"); ok {
		t.Error("banana is a capability")
	}
	if !IsHandleName("HarnessPostgres") || IsHandleName("HarnessBanana") {
		t.Error("IsHandleName")
	}
}

func TestKindName(t *testing.T) {
	e, _ := envFor(t, "k.harn", "struct P { x: int }\nenum E { A }")
	for src, want := range map[string]string{
		"int": "int", `"a"`: "string", "{a: int}": "dict", "list<int>": "list",
		"P": "struct", "E": "enum", "int?": "", "any": "", "Result<int, int>": "enum",
		"HarnessFs": "HarnessFs", "fn() -> int": "closure", `"a" | "b"`: "string",
	} {
		if got := KindName(e.FromSyntax(parseType(t, src), nil)); got != want {
			t.Errorf("KindName(%s) = %q, want %q", src, got, want)
		}
	}
}

func TestAssociatedTypes(t *testing.T) {
	_, decls := envFor(t, "a.harn", `
interface Container<K> {
  type Item
  type Size = int
  fn get(self, k: K) -> Item
  fn put(self, x: Self.Item) -> Self.Size
}
struct Box { v: string }
impl Box {
  type Item = string
  fn get(self, k: int) -> Item { return self.v }
  fn put(self, x: Self.Item) -> list<Item> { return [x] }
  fn other(self) -> Self.Nope { return nil }
}
`)
	iface, box := decls[0], decls[1]
	item, ok := iface.AssocType("Item")
	if !ok || item.Param == nil || item.Type != nil {
		t.Fatalf("Item = %+v", item)
	}
	if size, _ := iface.AssocType("Size"); size.Type != Int {
		t.Errorf("Size fixed to %v", size.Type)
	}
	get, _ := iface.Method("get")
	if get.Type.Params[1].Type != iface.TypeParams[0] || get.Type.Return != item.Param {
		t.Errorf("interface get = %s", get.Type)
	}
	put, _ := iface.Method("put")
	if put.Type.Params[1].Type != item.Param || put.Type.Return.String() != "Size" {
		t.Errorf("interface put = %s", put.Type)
	}
	if len(iface.TypeParams) != 1 {
		t.Errorf("associated types leaked into the type parameters: %v", iface.TypeParams)
	}

	if a, ok := box.AssocType("Item"); !ok || a.Type != String || a.Param != nil {
		t.Errorf("Box provides %+v", a)
	}
	for name, want := range map[string]string{
		"get":   "fn(any, int) -> string",
		"put":   "fn(any, string) -> list<string>",
		"other": "fn(any) -> Self.Nope",
	} {
		m, _ := box.Method(name)
		if got := m.Type.String(); got != want {
			t.Errorf("Box.%s = %s, want %s", name, got, want)
		}
	}
}

// RemoveNil sees through an alias whose body can be nil, also a generic
// one and one that is a member of a union; other aliases keep their name.
func TestRemoveNilThroughAliases(t *testing.T) {
	e, _ := envFor(t, "a.harn", "type User = {name: string}\ntype MaybeUser = User?\ntype Maybe<T> = T | nil\ntype Id = int\ntype Nothing = nil")
	for _, tc := range []struct{ src, want string }{
		{"MaybeUser", "User"},
		{"Maybe<int>", "int"},
		{"Maybe<MaybeUser>", "User"},
		{"MaybeUser | int", "User | int"},
		{"Id", "Id"},
		{"Id?", "Id"},
		{"Nothing", "never"},
		{"string?", "string"},
	} {
		if got := RemoveNil(e.FromSyntax(parseType(t, tc.src), nil)).String(); got != tc.want {
			t.Errorf("RemoveNil(%s) = %s, want %s", tc.src, got, tc.want)
		}
	}
}

// TestWidensInvariantly: int → float widening is refused wherever it
// happens inside an invariant container, also when the container sits in
// a covariant or contravariant position (docs/spec/newer.md §1.5).
func TestWidensInvariantly(t *testing.T) {
	e := NewEnv()
	ty := func(src string) Type { return e.FromSyntax(parseType(t, src), nil) }
	for _, c := range []struct {
		src, dst string
		want     bool
	}{
		{"list<int>", "list<float>", true},
		{"int", "float", false},
		{"fn() -> list<int>", "fn() -> list<float>", true},
		{"fn() -> int", "fn() -> float", false},
		{"fn(list<float>) -> nil", "fn(list<int>) -> nil", true},
		{"fn(float) -> nil", "fn(int) -> nil", false},
		{"Result<list<int>, string>", "Result<list<float>, string>", true},
		{"Result<int, string>", "Result<float, string>", false},
		{"Generator<list<int>>", "Generator<list<float>>", true},
		{"{xs: list<int>}", "{xs: list<float>}", true},
		{"{a: int}", "{a: float}", false},
	} {
		if got := WidensInvariantly(ty(c.src), ty(c.dst)); got != c.want {
			t.Errorf("WidensInvariantly(%s, %s) = %v, want %v", c.src, c.dst, got, c.want)
		}
	}
}

// An alias that expands to itself with no container between is marked
// cyclic and stands for any, so expanding it ends; one through a
// container is a recursive type and keeps its target.
func TestCyclicAliases(t *testing.T) {
	env, _ := envFor(t, "c.harn", "type T = T | int\ntype A = B\ntype B = A?\ntype Json = int | list<Json>\ntype Ok = {next: Ok?}")
	for _, name := range []string{"T", "A", "B"} {
		d := env.Lookup(name)
		if !d.Cyclic || d.Target != Any {
			t.Errorf("%s: cyclic %v, target %v; want a cyclic alias of any", name, d.Cyclic, d.Target)
		}
	}
	for _, name := range []string{"Json", "Ok"} {
		if d := env.Lookup(name); d.Cyclic || d.Target == Any {
			t.Errorf("%s: marked cyclic (target %v)", name, d.Target)
		}
	}
	if got := Underlying(&Named{Decl: env.Lookup("T")}); got != Any {
		t.Errorf("Underlying(T) = %v, want any", got)
	}
}

func TestBuiltinTypeArgs(t *testing.T) {
	cases := []struct {
		name string
		n    int
		fits bool
	}{
		{"list", 1, true}, {"list", 2, false}, {"set", 2, false}, {"iter", 1, true},
		{"Generator", 2, false}, {"Stream", 1, true}, {"owned", 2, false},
		{"dict", 2, true}, {"dict", 1, true}, {"dict", 3, false},
		{"Result", 2, true}, {"Result", 1, false},
		{"int", 0, true}, {"int", 1, false}, {"number", 1, false}, {"Harness", 1, false},
		{"tuple", 5, true}, {"Point", 3, true},
	}
	for _, c := range cases {
		if _, fits := BuiltinTypeArgs(c.name, c.n); fits != c.fits {
			t.Errorf("BuiltinTypeArgs(%q, %d) fits = %v, want %v", c.name, c.n, fits, c.fits)
		}
	}
}

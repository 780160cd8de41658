package types

import (
	"slices"
	"sort"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// DeclKind tells the kinds of type declaration apart.
type DeclKind uint8

const (
	StructDecl DeclKind = iota
	EnumDecl
	InterfaceDecl
	AliasDecl
)

func (k DeclKind) String() string {
	return [...]string{"struct", "enum", "interface", "type"}[k]
}

// Variant is one enum variant with its payload fields in order.
type Variant struct {
	Name   string
	Fields []Field // nil for a variant without payload
}

// Method is an interface method signature or an impl method of a struct.
// Its Func includes the `self` parameter when the source names one.
type Method struct {
	Name string
	Type *Func
}

// Arity is the number of parameters other than a leading `self`.
func (m Method) Arity() int {
	n := len(m.Type.Params)
	if n > 0 && m.Type.Params[0].Name == "self" {
		n--
	}
	return n
}

// AssocType is an associated type (docs/spec/language.md §10.4). An
// interface declares it: Param stands for it in the interface's method
// signatures (as `Item` or `Self.Item`) and Type, when not nil, is the type
// every implementation must resolve it to. A struct's impl block provides
// it (`type Item = int`): Type is the provided type and Param is nil.
type AssocType struct {
	Name  string
	Pos   syntax.Pos
	Param *TypeParam
	Type  Type
}

// Decl is one struct, enum, interface or type alias declaration.
type Decl struct {
	Kind       DeclKind
	Name       string
	Origin     string // path of the declaring file
	Pub        bool
	Pos        syntax.Pos
	Doc        string
	Attrs      []*syntax.Attribute
	TypeParams []*TypeParam
	Fields     []Field     // struct fields, declaration order
	Variants   []Variant   // enum variants, declaration order
	Methods    []Method    // interface methods; for a struct, the methods of its impl blocks
	AssocTypes []AssocType // declared by an interface, or provided by a struct's impl blocks
	Target     Type        // alias: the aliased type
	// Cyclic is true for an alias that expands to itself with no type
	// holding it between (`type A = B`, `type B = A`; `type T = T |
	// int`): it names no type, and its Target is any so that nothing
	// expanding it loops. The checker reports it.
	Cyclic bool
	// HasImpl is true when the declaring file has an impl block for the
	// struct (so Methods is its complete method list).
	HasImpl bool
	Node    syntax.Node
}

// Field returns the struct field named name.
func (d *Decl) Field(name string) (Field, bool) {
	for _, f := range d.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Variant returns the enum variant named name.
func (d *Decl) Variant(name string) (Variant, bool) {
	for _, v := range d.Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// AssocType returns the associated type named name.
func (d *Decl) AssocType(name string) (AssocType, bool) {
	for _, a := range d.AssocTypes {
		if a.Name == name {
			return a, true
		}
	}
	return AssocType{}, false
}

// Method returns the method named name.
func (d *Decl) Method(name string) (Method, bool) {
	for _, m := range d.Methods {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// Instance is the substitution that instantiates d with args (missing
// arguments become any).
func (d *Decl) Instance(args []Type) map[*TypeParam]Type {
	if len(d.TypeParams) == 0 {
		return nil
	}
	m := make(map[*TypeParam]Type, len(d.TypeParams))
	for i, p := range d.TypeParams {
		if i < len(args) {
			m[p] = args[i]
		} else {
			m[p] = Any
		}
	}
	return m
}

// Env holds the type declarations visible to one file: its own (added with
// AddFile) and those made visible with Import. A name declared by the file
// hides an imported one.
type Env struct {
	byName map[string]*Decl
	order  []*Decl
}

// NewEnv returns an empty environment.
func NewEnv() *Env { return &Env{byName: map[string]*Decl{}} }

// Lookup returns the declaration visible under name, or nil.
func (e *Env) Lookup(name string) *Decl { return e.byName[name] }

// Decls returns every declaration added or imported, in the order they
// were added (a file's own declarations in source order).
func (e *Env) Decls() []*Decl { return e.order }

// Import makes an already resolved declaration of another file visible
// under its name, unless a declaration of that name is already visible.
func (e *Env) Import(d *Decl) {
	if _, ok := e.byName[d.Name]; ok {
		return
	}
	e.byName[d.Name] = d
	e.order = append(e.order, d)
}

// ImportAs makes an already resolved declaration of another file visible
// under a qualified name such as `ns.Shape` (a namespace import's member,
// docs/spec/newer.md §1.3).
func (e *Env) ImportAs(name string, d *Decl) {
	if _, ok := e.byName[name]; ok {
		return
	}
	e.byName[name] = d
}

// Qualified returns the names that ImportAs made visible as `ns.Name`,
// without the `ns.` prefix, sorted.
func (e *Env) Qualified(ns string) []string {
	var out []string
	for name := range e.byName {
		if rest, ok := strings.CutPrefix(name, ns+"."); ok {
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out
}

// AddFile declares f's struct, enum, type and interface declarations (top
// level and in nested blocks, syntax.NestedStmts), resolves their field,
// variant, method and alias types, records impl methods on their structs,
// and returns the new declarations in source order. The first declaration
// of a name in f wins, as in the resolver; file declarations hide imported
// ones.
func (e *Env) AddFile(f *syntax.File) []*Decl {
	var added []*Decl
	own := map[string]bool{}
	var impls []*syntax.ImplBlock
	var collect func(stmts []syntax.Stmt)
	collect = func(stmts []syntax.Stmt) {
		for _, s := range stmts {
			var d *Decl
			switch n := s.(type) {
			case *syntax.StructDecl:
				d = &Decl{Kind: StructDecl, Name: n.Name, Pub: n.Pub, Pos: n.At, Doc: n.Doc, Attrs: n.Attrs, TypeParams: typeParams(n.TypeParams, nil)}
			case *syntax.EnumDecl:
				d = &Decl{Kind: EnumDecl, Name: n.Name, Pub: n.Pub, Pos: n.At, Doc: n.Doc, Attrs: n.Attrs, TypeParams: typeParams(n.TypeParams, nil)}
			case *syntax.TypeDecl:
				d = &Decl{Kind: AliasDecl, Name: n.Name, Pub: n.Pub, Pos: n.At, Doc: n.Doc, Attrs: n.Attrs, TypeParams: typeParams(n.TypeParams, nil)}
			case *syntax.InterfaceDecl:
				d = &Decl{Kind: InterfaceDecl, Name: n.Name, Pub: n.Pub, Pos: n.At, Doc: n.Doc, Attrs: n.Attrs, TypeParams: typeParams(n.TypeParams, nil)}
			case *syntax.ImplBlock:
				impls = append(impls, n)
			}
			if d == nil {
				for _, inner := range syntax.NestedStmts(s) {
					collect(inner) // method bodies and nested blocks
				}
			}
			if d == nil || own[d.Name] {
				continue
			}
			d.Origin, d.Node = f.Path, s
			own[d.Name] = true
			if old, ok := e.byName[d.Name]; ok {
				e.removeOrder(old)
			}
			e.byName[d.Name] = d
			e.order = append(e.order, d)
			added = append(added, d)
		}
	}
	collect(f.Items)
	for _, d := range added {
		e.resolveDecl(d)
	}
	markCyclic(added)
	for _, im := range impls {
		d := e.byName[im.Name]
		if d == nil || (d.Kind != StructDecl && d.Kind != EnumDecl) || d.Origin != f.Path {
			continue
		}
		d.HasImpl = true
		for _, a := range im.Types {
			d.AssocTypes = append(d.AssocTypes, AssocType{Name: a.Name, Pos: a.At, Type: e.fromSyntax(a.Type, nil)})
		}
		for _, m := range im.Methods {
			d.Methods = append(d.Methods, Method{Name: m.Name, Type: e.MethodType(im, m)})
		}
	}
	return added
}

func (e *Env) removeOrder(d *Decl) {
	for i, o := range e.order {
		if o == d {
			e.order = append(e.order[:i], e.order[i+1:]...)
			return
		}
	}
}

func typeParams(ps []*syntax.TypeParam, where []*syntax.WhereClause) []*TypeParam {
	if len(ps) == 0 {
		return nil
	}
	out := make([]*TypeParam, len(ps))
	for i, p := range ps {
		tp := &TypeParam{Name: p.Name, Variance: p.Variance}
		for _, w := range where {
			if w.Param == p.Name {
				for j := range w.Bounds {
					var args []syntax.TypeExpr
					if j < len(w.BoundArgs) {
						args = w.BoundArgs[j]
					}
					tp.boundSyntax = append(tp.boundSyntax, args)
				}
				tp.Bounds = append(tp.Bounds, w.Bounds...)
			}
		}
		out[i] = tp
	}
	return out
}

func (e *Env) resolveDecl(d *Decl) {
	scope := d.TypeParams
	switch n := d.Node.(type) {
	case *syntax.StructDecl:
		for _, fd := range n.Fields {
			d.Fields = append(d.Fields, Field{Name: fd.Name, Type: e.fromSyntax(fd.Type, scope), Optional: fd.Optional})
		}
	case *syntax.EnumDecl:
		for _, v := range n.Variants {
			vr := Variant{Name: v.Name}
			if v.Params != nil {
				vr.Fields = []Field{}
				for _, p := range v.Params {
					vr.Fields = append(vr.Fields, Field{Name: p.Name, Type: e.fromSyntax(p.Type, scope), Optional: p.Default != nil})
				}
			}
			d.Variants = append(d.Variants, vr)
		}
	case *syntax.TypeDecl:
		d.Target = e.fromSyntax(n.Type, scope)
	case *syntax.InterfaceDecl:
		scope = scope[:len(scope):len(scope)] // appending must not touch d.TypeParams
		for _, at := range n.Types {
			scope = append(scope, &TypeParam{Name: at.Name})
		}
		for i, at := range n.Types {
			a := AssocType{Name: at.Name, Pos: at.At, Param: scope[len(d.TypeParams)+i]}
			if at.Type != nil {
				a.Type = e.fromSyntax(at.Type, scope)
			}
			d.AssocTypes = append(d.AssocTypes, a)
		}
		for _, m := range n.Methods {
			own := typeParams(m.TypeParams, nil)
			tps := append(append([]*TypeParam(nil), scope...), own...)
			d.Methods = append(d.Methods, Method{Name: m.Name, Type: e.signature(m.Params, tps, own, m.Return, nil)})
		}
	}
}

// markCyclic marks the aliases among ds that expand to themselves (see
// Decl.Cyclic), all of them before any Target changes.
func markCyclic(ds []*Decl) {
	var cyclic []*Decl
	for _, d := range ds {
		if d.Kind == AliasDecl && expandsTo(d.Target, d, map[expansion]bool{}) {
			cyclic = append(cyclic, d)
		}
	}
	for _, d := range cyclic {
		d.Cyclic, d.Target = true, Any
	}
}

// expansion is an alias applied to its arguments (spelled), which
// expandsTo expands once.
type expansion struct {
	decl *Decl
	args string
}

// maxExpansions bounds the expansions expandsTo makes, for generic
// aliases whose arguments grow at each step (`type G<T> = G<list<T>>`:
// never the same expansion twice).
const maxExpansions = 256

// expandsTo reports whether expanding t reaches alias d through aliases
// (a generic one with its arguments substituted: `type Id<T> = T`, `type
// A = Id<A>`), unions and intersections only.
func expandsTo(t Type, d *Decl, seen map[expansion]bool) bool {
	switch t := t.(type) {
	case *Named:
		if t.Decl == d {
			return true
		}
		key := expansion{t.Decl, argsString(t.Args)}
		if t.Decl.Kind != AliasDecl || seen[key] || len(seen) >= maxExpansions {
			return false
		}
		seen[key] = true
		return expandsTo(Subst(t.Decl.Target, t.Decl.Instance(t.Args)), d, seen)
	case *Union:
		for _, m := range t.Types {
			if expandsTo(m, d, seen) {
				return true
			}
		}
	case *Intersection:
		for _, m := range t.Types {
			if expandsTo(m, d, seen) {
				return true
			}
		}
	}
	return false
}

// FromSyntax converts a type annotation. typeParams are the generic
// parameters in scope (those of the enclosing declaration or function).
// A nil annotation is any.
func (e *Env) FromSyntax(t syntax.TypeExpr, typeParams []*TypeParam) Type {
	return e.fromSyntax(t, typeParams)
}

// FnType is the signature of a function (or impl method) declaration.
func (e *Env) FnType(fn *syntax.FnDecl) *Func {
	tps := typeParams(fn.TypeParams, fn.Where)
	e.boundInterfaces(tps, tps)
	return e.signature(fn.Params, tps, tps, fn.Return, fn.Throws)
}

// boundInterfaces fills TypeParam.Interfaces as e sees the bounds, and
// BoundArgs with their type arguments read in scope (the function's
// type parameters: `where C: Container<T>`).
func (e *Env) boundInterfaces(tps, scope []*TypeParam) {
	for _, tp := range tps {
		for i, b := range tp.Bounds {
			d := e.Lookup(b)
			if d != nil && d.Kind != InterfaceDecl {
				d = nil
			}
			tp.Interfaces = append(tp.Interfaces, d)
			if i < len(tp.boundSyntax) && tp.boundSyntax[i] != nil {
				if tp.BoundArgs == nil {
					tp.BoundArgs = make([][]Type, len(tp.Bounds))
				}
				for _, a := range tp.boundSyntax[i] {
					tp.BoundArgs[i] = append(tp.BoundArgs[i], e.fromSyntax(a, scope))
				}
			}
		}
	}
}

// MethodType is the signature of a method of impl block im: the associated
// types im provides stand for themselves in it, by their own name or as
// `Self.Name`.
func (e *Env) MethodType(im *syntax.ImplBlock, fn *syntax.FnDecl) *Func {
	// the type parameters of a generic struct or enum are in scope in its
	// impl (`impl Box { fn get(self) -> T }`), shadowed by the method's own
	var outer []*TypeParam
	if d := e.byName[im.Name]; d != nil && (d.Kind == StructDecl || d.Kind == EnumDecl) {
		outer = d.TypeParams
	}
	if len(im.Types) == 0 && len(outer) == 0 {
		return e.FnType(fn)
	}
	scope := make([]*TypeParam, len(outer), len(outer)+len(im.Types))
	copy(scope, outer)
	bind := make(map[*TypeParam]Type, len(im.Types))
	for _, a := range im.Types {
		tp := &TypeParam{Name: a.Name}
		scope = append(scope, tp)
		bind[tp] = e.fromSyntax(a.Type, nil)
	}
	tps := typeParams(fn.TypeParams, fn.Where)
	scope = append(scope, tps...)
	e.boundInterfaces(tps, scope)
	f := e.signature(fn.Params, scope, tps, fn.Return, fn.Throws)
	return Subst(f, bind).(*Func)
}

// Signature is the type of a parameter list with result and throws
// annotations (for closures, tools and pipelines; ret and throws may be nil).
func (e *Env) Signature(params []*syntax.Param, ret, throws syntax.TypeExpr, scope []*TypeParam) *Func {
	return e.signature(params, scope, nil, ret, throws)
}

func (e *Env) signature(params []*syntax.Param, scope, own []*TypeParam, ret, throws syntax.TypeExpr) *Func {
	f := &Func{TypeParams: own, Return: e.fromSyntax(ret, scope)}
	for _, p := range params {
		f.Params = append(f.Params, Param{Name: p.Name, Type: e.fromSyntax(p.Type, scope), Optional: p.Default != nil, Rest: p.Rest})
	}
	if throws != nil {
		f.Throws = e.fromSyntax(throws, scope)
	}
	return f
}

func (e *Env) fromSyntax(t syntax.TypeExpr, scope []*TypeParam) Type {
	switch t := t.(type) {
	case nil:
		return Any
	case *syntax.NilType:
		return Nil
	case *syntax.LiteralType:
		return &Literal{Value: t.Value}
	case *syntax.OptionalType:
		return Optional(e.fromSyntax(t.Elem, scope))
	case *syntax.ListType:
		return &List{Elem: e.fromSyntax(t.Elem, scope)}
	case *syntax.UnionType:
		ms := make([]Type, len(t.Types))
		for i, m := range t.Types {
			ms[i] = e.fromSyntax(m, scope)
		}
		return NewUnion(ms...)
	case *syntax.InterType:
		ms := make([]Type, len(t.Types))
		for i, m := range t.Types {
			ms[i] = e.fromSyntax(m, scope)
		}
		return NewIntersection(ms...)
	case *syntax.ShapeType:
		s := &Shape{Fields: make([]Field, len(t.Fields)), Open: t.Rest != nil}
		for i, f := range t.Fields {
			s.Fields[i] = Field{Name: f.Name, Type: e.fromSyntax(f.Type, scope), Optional: f.Optional}
		}
		if t.Rest != nil {
			switch r := e.fromSyntax(t.Rest, scope).(type) {
			case *Dict:
				s.Tail = r.Value
			case *TypeParam:
				s.Row, s.RowName = r, r.Name
			case *Unresolved:
				s.RowName = r.Name
			}
		}
		return s
	case *syntax.FnType:
		f := &Func{Return: e.fromSyntax(t.Return, scope)}
		for _, p := range t.Params {
			f.Params = append(f.Params, Param{Type: e.fromSyntax(p, scope)})
		}
		return f
	case *syntax.NamedType:
		return e.named(t, scope)
	}
	return Any
}

var basicByName = map[string]*Basic{
	"any": Any, "unknown": Unknown, "never": Never, "nil": Nil,
	"int": Int, "float": Float, "string": String, "bool": Bool,
	"bytes": Bytes, "duration": Duration, "range": Range, "closure": Closure,
	"decimal": Decimal,
}

func (e *Env) named(t *syntax.NamedType, scope []*TypeParam) Type {
	name := strings.TrimPrefix(t.Name, "Self.")
	for i := len(scope) - 1; i >= 0; i-- {
		if scope[i].Name == name {
			return scope[i]
		}
	}
	args := make([]Type, len(t.Args))
	for i, a := range t.Args {
		args[i] = e.fromSyntax(a, scope)
	}
	if d := e.byName[t.Name]; d != nil {
		return &Named{Decl: d, Args: args}
	}
	if b, ok := basicByName[t.Name]; ok && len(args) == 0 {
		return b
	}
	if t.Name == "number" && len(args) == 0 { // docs/spec/newer.md §2.4: not decimal
		return NewUnion(Int, Float)
	}
	if build := builtinGenerics[t.Name]; build != nil {
		if r := build(args); r != nil {
			return r
		}
	}
	if len(args) == 0 && IsHandleName(t.Name) {
		return &Handle{Name: t.Name}
	}
	switch t.Name { // the runtime kinds of a generator and a stream
	case "generator":
		return &Iter{Kind: IterGenerator, Elem: Any}
	case "stream":
		return &Iter{Kind: IterStream, Elem: Any}
	}
	// a runtime kind with no static type of its own (`channel`) stays
	// dynamic here; the run-time parameter check tells the kinds apart
	return &Unresolved{Name: t.Name, Args: args}
}

func argOr(args []Type, i int, def Type) Type {
	if i < len(args) {
		return args[i]
	}
	return def
}

// Underlying expands type aliases (with their type arguments) until t is
// not an alias. A cyclic alias expands to any.
func Underlying(t Type) Type {
	for range 32 {
		n, ok := t.(*Named)
		if !ok || n.Decl.Kind != AliasDecl {
			return t
		}
		if n.Decl.Target == nil {
			return Any
		}
		t = Subst(n.Decl.Target, n.Decl.Instance(n.Args))
	}
	return Any
}

// StructFields returns the fields of a struct type with its type arguments
// substituted (nil when t is not a struct).
func StructFields(t Type) []Field {
	n, ok := Underlying(t).(*Named)
	if !ok || n.Decl.Kind != StructDecl {
		return nil
	}
	m := n.Decl.Instance(n.Args)
	if m == nil {
		return n.Decl.Fields
	}
	out := make([]Field, len(n.Decl.Fields))
	for i, f := range n.Decl.Fields {
		f.Type = Subst(f.Type, m)
		out[i] = f
	}
	return out
}

// builtinGenerics build the builtin types an annotation names without a
// declaration besides the basic ones and the harness handles, from their
// type arguments (missing ones are any); nil when the arguments do not
// make one.
var builtinGenerics = map[string]func(args []Type) Type{
	"list": func(args []Type) Type { return &List{Elem: argOr(args, 0, Any)} },
	"tuple": func(args []Type) Type {
		if len(args) > 0 {
			return &Tuple{Elems: args}
		}
		return &List{Elem: Any}
	},
	"dict": func(args []Type) Type {
		if len(args) == 1 {
			return &Dict{Key: String, Value: args[0]}
		}
		return &Dict{Key: argOr(args, 0, String), Value: argOr(args, 1, Any)}
	},
	"set":       func(args []Type) Type { return &Set{Elem: argOr(args, 0, Any)} },
	"iter":      func(args []Type) Type { return &Iter{Kind: IterPlain, Elem: argOr(args, 0, Any)} },
	"Generator": func(args []Type) Type { return &Iter{Kind: IterGenerator, Elem: argOr(args, 0, Any)} },
	"Stream":    func(args []Type) Type { return &Iter{Kind: IterStream, Elem: argOr(args, 0, Any)} },
	"Result":    func(args []Type) Type { return &Result{Ok: argOr(args, 0, Any), Err: argOr(args, 1, Any)} },
	"owned": func(args []Type) Type {
		// ownership changes when the value is released, not what it is
		// (docs/spec/newer.md §2.25)
		if len(args) == 1 {
			return args[0]
		}
		return nil
	},
}

// BuiltinTypeArgs reports whether the builtin type name may be applied to
// n type arguments, and the number it takes (docs/spec/language.md §2.4:
// `list<T>`, `dict<K, V>`, `Result<T, E>`…; a basic type, `number` or a
// harness handle none). A name that is no builtin type, or takes any number
// (`tuple<A, B, …>`, docs/spec/newer.md §2.3), fits every count; so does
// `dict<V>`, the shorthand for `dict<string, V>` builtinGenerics builds
// (accepted since the April checker; docs/check.md).
func BuiltinTypeArgs(name string, n int) (want int, fits bool) {
	switch name {
	case "tuple":
		return 0, true
	case "dict":
		return 2, n == 1 || n == 2
	case "Result":
		return 2, n == 2
	}
	if builtinGenerics[name] != nil {
		return 1, n == 1
	}
	if IsBuiltinTypeName(name) {
		return 0, n == 0
	}
	return 0, true
}

// IsBuiltinTypeName reports whether name is a type an annotation may use
// without declaring it: a basic type, a builtin generic or a harness
// handle.
func IsBuiltinTypeName(name string) bool {
	_, basic := basicByName[name]
	return basic || name == "number" || name == "Self" || builtinGenerics[name] != nil || IsHandleName(name) || IsRuntimeKindName(name)
}

// runtimeKindNames are the names `type_of` returns for library values
// (docs/spec/builtins.md §1.3) that are no basic type or builtin generic:
// every name a library value's Type() gives (TestRuntimeKindsAnnotate
// holds it to the sources), except the VM's internal objects (`cell`,
// `opaque`, `error`), which no program sees. Each is a valid annotation,
// checked at run time by the value's kind (docs/check.md).
var runtimeKindNames = []string{
	"atomic", "builtin", "channel", "generator", "http_server", "http_server_tls", "http_session",
	"http_stream", "mailbox", "mcp_client", "pair", "pg_connection", "pg_pool", "pg_tx", "rng",
	"shared_cell", "shared_map", "sse_connection", "sse_server", "stream", "supervisor",
	"sync_permit", "task_handle", "waitpoint", "websocket", "websocket_server",
}

// IsRuntimeKindName reports whether name is one of the runtime kinds
// `type_of` returns that an annotation may name.
func IsRuntimeKindName(name string) bool { return slices.Contains(runtimeKindNames, name) }

// BuiltinTypeNames lists the names IsBuiltinTypeName accepts, for a
// "did you mean" (`Strng` → `string`, `Harnes` → `Harness`).
func BuiltinTypeNames() []string {
	var out []string
	for n := range basicByName {
		out = append(out, n)
	}
	for n := range builtinGenerics {
		out = append(out, n)
	}
	for n := range handleNames() {
		out = append(out, n)
	}
	out = append(out, "number", "Self")
	out = append(out, runtimeKindNames...)
	sort.Strings(out)
	return out
}

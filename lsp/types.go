package lsp

import (
	"slices"
	"strings"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/format"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// This file answers hover and definition for the names the resolver does
// not bind: types (structs, enums, interfaces, aliases) where they are
// used, enum variants, and the methods of a struct's impl blocks. The
// places a type is named come from the tree (typerefs.go); variants,
// methods and names qualified by a namespace import are found from the
// tokens around the cursor (namedAt). Either way the name is looked up
// among the declarations of the file and of the modules it imports.

// named is a declaration a token names that no binding stands for.
type named struct {
	mod  *interp.Module // the module declaring it; nil for the file itself
	decl syntax.Node    // *StructDecl, *EnumDecl, *InterfaceDecl, *TypeDecl, *FnDecl (a method)
	// variant is set for an enum variant (decl is its enum); field for a
	// struct's field (decl is the struct); recv for an impl method (the
	// struct's name).
	variant *syntax.Variant
	field   *syntax.FieldDecl
	recv    string
	from    string // the import path it came through ("" when declared here)
}

// name is the declared name.
func (n named) name() string {
	switch {
	case n.variant != nil:
		return n.variant.Name
	case n.field != nil:
		return n.field.Name
	}
	return declName(n.decl)
}

// namePos is where the name is written in the declaring file.
func (n named) namePos() syntax.Pos {
	if n.variant != nil {
		return n.variant.At
	}
	if n.field != nil {
		return n.field.At
	}
	return declNamePos(n.decl, n.name())
}

// location is where the declaration's name is written; path is the
// analysed file's, for a declaration of its own.
func (n named) location(path string) location {
	if n.mod != nil {
		path = n.mod.Path
	}
	return location{path: path, pos: n.namePos(), name: n.name()}
}

func declName(n syntax.Node) string {
	switch d := n.(type) {
	case *syntax.StructDecl:
		return d.Name
	case *syntax.EnumDecl:
		return d.Name
	case *syntax.InterfaceDecl:
		return d.Name
	case *syntax.TypeDecl:
		return d.Name
	case *syntax.FnDecl:
		return d.Name
	}
	return ""
}

func isTypeDecl(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.StructDecl, *syntax.EnumDecl, *syntax.InterfaceDecl, *syntax.TypeDecl:
		return true
	}
	return false
}

// doc is the hover text of the declaration.
func (n named) doc() string {
	var md string
	switch {
	case n.variant != nil:
		e := n.decl.(*syntax.EnumDecl)
		sig := e.Name + "." + n.variant.Name
		if n.variant.Params != nil {
			sig += params(n.variant.Params)
		}
		md = code(sig) + "\n\n*variant of* `enum " + e.Name + "`"
	case n.field != nil:
		md = code("(field) " + declName(n.decl) + "." + n.field.Name + fieldType(n.field))
	case n.recv != "":
		fd := n.decl.(*syntax.FnDecl)
		md = withDoc(code("impl "+n.recv+"\n"+Signature(fd)), fd.Doc)
	default:
		md = describe(n.decl, nil)
	}
	if n.from != "" {
		md += "\n\n*imported from* `" + n.from + "`"
	}
	return md
}

// declaredTypes lists the type declarations of a file, nested ones too.
func declaredTypes(f *syntax.File) []syntax.Node {
	var out []syntax.Node
	var visit func([]syntax.Stmt)
	visit = func(stmts []syntax.Stmt) {
		for _, s := range stmts {
			if isTypeDecl(s) {
				out = append(out, s)
			}
			for _, inner := range syntax.NestedStmts(s) {
				visit(inner)
			}
		}
	}
	if f != nil {
		visit(f.Items)
	}
	return out
}

// declaredTypes lists the analysed file's type declarations.
func (a *analysis) declaredTypes() []syntax.Node {
	a.typesOnce.Do(func() { a.typeDecls = declaredTypes(a.file) })
	return a.typeDecls
}

// typeNamed finds the type declaration a name stands for: one of the
// file's, or one an import brings (ns qualifies it with a namespace
// import: `ns.Shape`).
func (a *analysis) typeNamed(name, ns string) (named, bool) {
	if ns == "" {
		for _, d := range a.declaredTypes() {
			if declName(d) == name {
				return named{decl: d}, true
			}
		}
	}
	if a.mod == nil {
		return named{}, false
	}
	for i := len(a.mod.Imports) - 1; i >= 0; i-- {
		imp := a.mod.Imports[i]
		nsName := ""
		if imp.Decl.Namespace != nil {
			nsName = imp.Decl.Namespace.Name
		}
		if nsName != ns || imp.Module == nil {
			continue
		}
		if ns == "" && !slices.Contains(imp.Names, name) {
			continue
		}
		if def, d, ok := imp.Module.Exported(name); ok && d != nil && isTypeDecl(d) {
			return named{mod: def, decl: d, from: imp.Decl.Path}, true
		}
	}
	return named{}, false
}

// namedAt finds what the identifier token i names when no binding does:
// `Point` in `Point { … }` or `p: Point`, `Color` and `Red` in `Color.Red`
// (also `ns.Color.Red`), an enum's name or a variant in its declaration, or `sum` in
// `q.sum()` when q's static type is a struct with an impl method `sum`.
func (a *analysis) namedAt(toks []syntax.Token, i int) (named, bool) {
	t := toks[i]
	if recv, ok := a.receiver(toks, i); ok {
		if e, ok := a.qualifiedEnum(toks, recv); ok {
			for _, v := range e.decl.(*syntax.EnumDecl).Variants {
				if v.Name == t.Text {
					e.variant = v
					return e, true
				}
			}
			return named{}, false
		}
		if ns := toks[recv]; ns.Kind == syntax.TokIdent && a.isNamespace(ns.Text) {
			return a.typeNamed(t.Text, ns.Text)
		}
		if st, _ := a.receiverType(toks, recv); st != "" {
			if m, ok := a.implMethod(st, t.Text); ok {
				return m, true
			}
			return a.structField(st, t.Text)
		}
		return named{}, false
	}
	for _, d := range a.declaredTypes() {
		if e, ok := d.(*syntax.EnumDecl); ok {
			for _, v := range e.Variants {
				if v.At == t.Pos && v.Name == t.Text {
					return named{decl: e, variant: v}, true // a variant where it is declared
				}
			}
		}
	}
	return a.typeNamed(t.Text, "")
}

// structField is the field name of the struct named st.
func (a *analysis) structField(st, name string) (named, bool) {
	n, ok := a.typeNamed(st, "")
	if d, isStruct := n.decl.(*syntax.StructDecl); ok && isStruct {
		for _, f := range d.Fields {
			if f.Name == name {
				n.field = f
				return n, true
			}
		}
	}
	return named{}, false
}

// fieldType is ": T" for a field declared with a type, else "".
func fieldType(f *syntax.FieldDecl) string {
	if f.Type == nil {
		return ""
	}
	return ": " + format.TypeString(f.Type)
}

// receiver is the index of the token before the `.` or `?.` that precedes
// token i, if any, across a non-null assertion (`q!.x`: the token of q).
func (a *analysis) receiver(toks []syntax.Token, i int) (int, bool) {
	dot := prevSig(toks, i)
	if dot < 0 || toks[dot].Kind != syntax.TokPunct || toks[dot].Text != "." && toks[dot].Text != "?." {
		return 0, false
	}
	r := prevSig(toks, dot)
	if r >= 0 && toks[r].Kind == syntax.TokPunct && toks[r].Text == "!" {
		r = prevSig(toks, r) // a `!` before `.` is always the postfix assertion
	}
	return r, r >= 0
}

// qualifiedEnum reports whether token r names an enum (`Color`, or
// `ns.Color` through a namespace import).
func (a *analysis) qualifiedEnum(toks []syntax.Token, r int) (named, bool) {
	if toks[r].Kind != syntax.TokIdent {
		return named{}, false
	}
	ns := ""
	if q, ok := a.receiver(toks, r); ok && toks[q].Kind == syntax.TokIdent && a.isNamespace(toks[q].Text) {
		ns = toks[q].Text
	}
	n, ok := a.typeNamed(toks[r].Text, ns)
	if _, enum := n.decl.(*syntax.EnumDecl); !ok || !enum {
		return named{}, false
	}
	return n, true
}

func (a *analysis) isNamespace(name string) bool {
	if a.file == nil {
		return false
	}
	for _, it := range a.file.Items {
		if d, ok := it.(*syntax.ImportDecl); ok && d.Namespace != nil && d.Namespace.Name == name {
			return true
		}
	}
	return false
}

func prevSig(toks []syntax.Token, i int) int {
	for j := i - 1; j >= 0; j-- {
		switch toks[j].Kind {
		case syntax.TokComment, syntax.TokDoc, syntax.TokNewline:
			continue
		}
		return j
	}
	return -1
}

// receiverKinds are the receiver kinds of builtin methods, as the
// method tables name them.
var receiverKinds = []string{"string", "list", "dict", "set", "range", "iter", "int", "float", "bool", "channel", "bytes"}

// receiverType is the static type of the receiver token r when the source
// says it: a literal, or a variable or parameter whose annotation or
// initial value gives it. st is a struct's name; kind a builtin receiver
// kind. Both are empty when the type is not known. The token must come
// from the analysed text (identifiers are looked up by position).
func (a *analysis) receiverType(toks []syntax.Token, r int) (st, kind string) {
	t := toks[r]
	switch t.Kind {
	case syntax.TokString, syntax.TokRaw, syntax.TokInterp:
		return "", "string"
	case syntax.TokInt:
		return "", "int"
	case syntax.TokFloat:
		return "", "float"
	case syntax.TokIdent:
	default:
		return "", ""
	}
	id := a.identAt[t.Pos]
	if id == nil || a.info == nil {
		return "", ""
	}
	ref := a.info.Refs[id]
	if ref == nil || ref.Binding == nil {
		return "", ""
	}
	return a.bindingType(ref.Binding)
}

// bindingType is the static type of binding b when the source says it
// (an annotation, or the initial value of a variable never reassigned)
// or the checker inferred it: st is a struct's name, kind a builtin
// receiver kind; both empty when the type is not known.
func (a *analysis) bindingType(b *resolve.Binding) (st, kind string) {
	switch d := b.Decl.(type) {
	case *syntax.Param:
		if d.Type != nil {
			return a.typeKind(d.Type)
		}
	case *syntax.IdentPattern:
		if let := a.letOf(d); let != nil && b.Kind != resolve.KFor {
			if let.Type != nil {
				return a.typeKind(let.Type)
			}
			if !b.Reassign {
				if st, kind = a.exprKind(let.Value); st != "" || kind != "" {
					return st, kind
				}
			}
		}
	}
	if d := a.inferredStruct(b); d != nil {
		return d.Name, ""
	}
	return "", a.inferredKind(b)
}

// checkedType is the type the checker gave b, nil when unknown.
func (a *analysis) checkedType(b *resolve.Binding) types.Type {
	if a.mod == nil || b == nil {
		return nil
	}
	t, ok := a.mod.BindingType(b)
	if !ok || t == types.Unknown || t == types.Any {
		return nil
	}
	return types.RemoveNil(t) // `q?.` and `q!.` reach the value
}

// inferredStruct is the struct the checker says b holds (`let p =
// make()` with `fn make() -> Point`), nil when it holds no struct. A
// reassigned variable without annotation may hold a dict of the same
// fields later, so it has none.
func (a *analysis) inferredStruct(b *resolve.Binding) *types.Decl {
	if b != nil && b.Reassign {
		return nil
	}
	if n, ok := a.checkedType(b).(*types.Named); ok && n.Decl.Kind == types.StructDecl {
		return n.Decl
	}
	return nil
}

// inferredKind is the builtin receiver kind of the type the checker gave
// b ("string", "list", …), "" when it has none.
func (a *analysis) inferredKind(b *resolve.Binding) string {
	t := a.checkedType(b)
	if t == nil {
		return ""
	}
	if k := types.KindName(t); slices.Contains(receiverKinds, k) {
		return k
	}
	return ""
}

// typeKind reads a type annotation. An optional type (`Point?`,
// `Point | nil`) is read as its other member: a member access on it goes
// through `?.` or `!`.
func (a *analysis) typeKind(t syntax.TypeExpr) (st, kind string) {
	switch t := t.(type) {
	case *syntax.OptionalType:
		return a.typeKind(t.Elem)
	case *syntax.UnionType:
		var other []syntax.TypeExpr
		for _, m := range t.Types {
			if _, isNil := m.(*syntax.NilType); !isNil {
				other = append(other, m)
			}
		}
		if len(other) == 1 {
			return a.typeKind(other[0])
		}
	case *syntax.NamedType:
		if slices.Contains(receiverKinds, t.Name) {
			return "", t.Name
		}
		if n, ok := a.typeNamed(t.Name, ""); ok {
			if _, isStruct := n.decl.(*syntax.StructDecl); isStruct {
				return t.Name, ""
			}
		}
	case *syntax.ListType:
		return "", "list"
	case *syntax.ShapeType:
		return "", "dict"
	}
	return "", ""
}

// exprKind reads the type of an initial value.
func (a *analysis) exprKind(x syntax.Expr) (st, kind string) {
	switch x := x.(type) {
	case *syntax.StringLit, *syntax.InterpString:
		return "", "string"
	case *syntax.ListLit:
		return "", "list"
	case *syntax.DictLit:
		return "", "dict"
	case *syntax.IntLit:
		return "", "int"
	case *syntax.FloatLit:
		return "", "float"
	case *syntax.BoolLit:
		return "", "bool"
	case *syntax.RangeExpr:
		return "", "range"
	case *syntax.StructLit:
		if x.NS == nil {
			return x.Name, ""
		}
	}
	return "", ""
}

// letOf is the let statement declaring a pattern.
func (a *analysis) letOf(p syntax.Node) *syntax.LetStmt {
	var found *syntax.LetStmt
	syntax.Walk(a.file, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		if found != nil {
			return false
		}
		if let, ok := n.(*syntax.LetStmt); ok && let.Pattern == p {
			found = let
		}
		return true
	})
	return found
}

// implMethod finds method name in the impl blocks for struct st: of this
// file, or of the module that declares the struct.
func (a *analysis) implMethod(st, name string) (named, bool) {
	n, ok := a.typeNamed(st, "")
	if !ok {
		return named{}, false
	}
	f := a.file
	if n.mod != nil {
		f = n.mod.Syntax
	}
	var found *syntax.FnDecl
	syntax.Walk(f, func(x, _ syntax.Node, _ func(syntax.Node)) bool {
		if b, ok := x.(*syntax.ImplBlock); ok && b.Name == st && found == nil {
			for _, m := range b.Methods {
				if m.Name == name {
					found = m
				}
			}
		}
		return found == nil
	})
	if found == nil {
		return named{}, false
	}
	return named{mod: n.mod, decl: found, recv: st, from: n.from}, true
}

// methodSignature is the signature help of a method call whose name is
// token i: the impl method of a struct receiver, else the builtin method
// of the receiver's kind (of any kind when it is not known).
func (a *analysis) methodSignature(toks []syntax.Token, i int, exact bool) (string, []string, string) {
	name := toks[i].Text
	st, kind := "", ""
	r, hasRecv := a.receiver(toks, i)
	if hasRecv && toks[r].Kind == syntax.TokIdent && a.isNamespace(toks[r].Text) {
		// `m.clampx(` through a namespace import
		if m, _ := a.namespaceModule(toks[r].Text); m != nil {
			if _, d, ok := m.Exported(name); ok {
				if fd, ok := d.(*syntax.FnDecl); ok {
					return Signature(fd), paramList(fd.Params), fd.Doc
				}
			}
		}
	}
	if hasRecv && exact {
		st, kind = a.receiverType(toks, r)
	}
	if st != "" {
		if n, ok := a.implMethod(st, name); ok {
			fd := n.decl.(*syntax.FnDecl)
			ps := fd.Params
			if len(ps) > 0 && ps[0].Name == "self" {
				ps = ps[1:]
			}
			return Signature(fd), paramList(ps), fd.Doc
		}
	}
	if a.sess == nil {
		return "", nil, ""
	}
	kinds := receiverKinds
	if kind != "" {
		kinds = []string{kind}
	}
	for _, recv := range kinds {
		if m := a.sess.Universe.Method(recv, name); m != nil {
			return m.Sig, sigParams(m.Sig), m.Doc
		}
	}
	return "", nil, ""
}

// letLine is a binding's declaration line: `let a: int`, `const N`;
// typ (": T" or "") is the type the checker inferred, shown for a name
// the source does not annotate.
func letLine(d *syntax.LetStmt, name, typ string) string {
	s := d.Kind.String() + " " + name
	_, simple := d.Pattern.(*syntax.IdentPattern)
	switch v := d.Value.(type) {
	case *syntax.StructLit:
		// the literal fixes the variable's type (reassignments must fit it)
		if simple && d.Type == nil {
			s += ": " + v.Name
			if v.NS != nil {
				s = strings.TrimSuffix(s, v.Name) + v.NS.Name + "." + v.Name
			}
			return s
		}
	case *syntax.ClosureLit:
		if simple && d.Type == nil && v.Kind == syntax.ClosureFn && (typ == "" || annotated(v)) {
			return strings.TrimSpace(s) + " = fn" + params(v.Params) + ret(v.Return)
		}
	}
	if d.Type != nil && simple {
		return s + ": " + format.TypeString(d.Type)
	}
	return s + typ
}

// annotated reports whether a closure's source gives every parameter's
// type and its result's: its signature says all a hover can.
func annotated(cl *syntax.ClosureLit) bool {
	for _, p := range cl.Params {
		if p.Type == nil {
			return false
		}
	}
	return cl.Return != nil
}

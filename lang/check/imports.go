package check

import (
	"slices"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// Imports describes the functions a file's imports bind, so that their
// calls get the arity and argument checks of the file's own functions
// (docs/spec/language.md §9.2, §11.2).
type Imports interface {
	// ImportedFunc returns the declaration of the function that an import
	// binds to name — for ns != "", the member name of the namespace
	// import ns — and its signature, typed in the module that declares it.
	ImportedFunc(ns, name string) (fn *syntax.FnDecl, sig *types.Func, ok bool)
}

// NamespaceImports is an Imports that also knows what the module of a
// namespace import (`import * as ns`) exports, so that a member it does
// not export is reported before the run (docs/modules.md).
type NamespaceImports interface {
	// NamespaceExports lists the export surface of the module the
	// namespace import ns binds; ok is false when it is not known (the
	// module could not be loaded, or its surface is still incomplete).
	NamespaceExports(ns string) (names []string, ok bool)
}

// NamespacePrivates is a NamespaceImports that also knows the private
// names of a namespace import's module, so that the report of a member
// it does not export says it is declared there but not `pub`.
type NamespacePrivates interface {
	// NamespacePrivate reports whether the module the namespace import
	// ns binds declares name without exporting it, and that module's
	// path as the import writes it.
	NamespacePrivate(ns, name string) (path string, ok bool)
}

// ImportedConsts is an Imports that also knows the constants imports
// bind, so that a call of one (`K()`, `ns.K()`) is reported before the
// run like the call of any value that is not callable.
type ImportedConsts interface {
	// ImportedConstType returns the type of the `pub const` an import
	// binds to name (for ns != "", the member name of the namespace
	// import ns), when its annotation or its literal initialiser states
	// it; ok is false otherwise.
	ImportedConstType(ns, name string) (t types.Type, ok bool)
	// ImportedConstDeclared reports whether the type of the `pub const`
	// / `pub let` an import binds to name was written down in its module
	// (an annotation, or a copy of a declared `T?` result): nil safety
	// then watches it in the importing file as there (docs/spec/newer.md §3.5).
	ImportedConstDeclared(ns, name string) bool
}

// LibraryImports is an Imports that also knows which imported functions
// an embedded std/* module declares. Their declared result reads as a
// builtin descriptor's does (docs/spec/builtins.md §4.10: the std modules
// are library, not the program): std/math's `sum(xs) -> int | float` is
// the kind its items give, so a call's union result fits where one of its
// members does (`let n: int = sum([1, 2])`), as `abs(-3)`'s does, and a
// `T?` result is not nil-checked, as `llm_model_tier(m)`'s is not; a value
// no member fits is still an error.
type LibraryImports interface {
	// ImportedFromLibrary reports whether the function an import binds
	// to name (for ns != "", the member name of the namespace import ns)
	// is declared in an embedded std/* module.
	ImportedFromLibrary(ns, name string) bool
}

// LiteralType is the type a literal initialiser gives a binding whatever
// its elements: int, float, string, bool, nil, list or dict (nil for any
// other expression).
func LiteralType(x syntax.Expr) types.Type {
	switch x := x.(type) {
	case *syntax.IntLit:
		return types.Int
	case *syntax.FloatLit:
		return types.Float
	case *syntax.StringLit, *syntax.InterpString:
		return types.String
	case *syntax.BoolLit:
		return types.Bool
	case *syntax.NilLit:
		return types.Nil
	case *syntax.ListLit:
		return &types.List{Elem: types.Any}
	case *syntax.DictLit:
		return &types.Dict{Key: types.String, Value: types.Any}
	case *syntax.UnaryExpr:
		if t := LiteralType(x.X); x.Op == "-" && (t == types.Int || t == types.Float) {
			return t
		}
	}
	return nil
}

// importedConstCall reports `K(…)` and `ns.K(…)` (for ns != "") where K
// is an imported constant whose value is not callable: the call fails at
// run time. It reports whether it reported.
func (c *checker) importedConstCall(ns, name string, pos syntax.Pos) bool {
	ic, ok := c.imports.(ImportedConsts)
	if !ok {
		return false
	}
	t, ok := ic.ImportedConstType(ns, name)
	if !ok {
		return false
	}
	kind := notCallable(t)
	if kind == "" {
		return false
	}
	what := "`" + name + "` is an imported constant"
	if ns != "" {
		what = "`" + ns + "." + name + "` is a constant its module exports"
	}
	c.report(sevError, pos, "", what+", not a function", "cannot call "+kind+": a value of type `"+t.String()+"` is not callable")
	return true
}

// unknownNamespaceMember reports `ns.name` where ns is a namespace import
// whose module exports no name: an error for a call (which would fail at
// run time, like a call of an undefined name: HARN-NAM-002), a warning for
// a read (which reads nil). It reports whether it reported.
func (c *checker) unknownNamespaceMember(id *syntax.Ident, name string, pos syntax.Pos, call bool) bool {
	ni, ok := c.imports.(NamespaceImports)
	if !ok || c.multiDecl[id.Name] || !c.importRef(c.info.Refs[id], true) {
		return false
	}
	exports, ok := ni.NamespaceExports(id.Name)
	if !ok || slices.Contains(exports, name) {
		return false
	}
	msg := "namespace `" + id.Name + "` has no member `" + name + "`"
	help := "its module exports nothing under that name"
	if len(exports) > 0 {
		shown := exports[:min(len(exports), 8)]
		help = "its module exports " + strings.Join(shown, ", ")
		if len(shown) < len(exports) {
			help += ", …"
		}
	}
	if s := diag.Suggest(name, exports); s != "" {
		help = "did you mean `" + id.Name + "." + s + "`?"
	}
	if np, ok := c.imports.(NamespacePrivates); ok {
		if path, ok := np.NamespacePrivate(id.Name, name); ok {
			// the words of HARN-IMP-002 (docs/spec/language.md §11.2)
			help = "`" + name + "` is defined in `" + path + "` but not `pub`: mark it `pub` there to export it"
			if strings.HasPrefix(path, "std/") {
				// nobody edits an embedded module: name what it offers instead
				help = "`" + name + "` is internal to the standard module `" + path + "`"
				if s := diag.Suggest(name, exports); s != "" {
					help += "; did you mean `" + id.Name + "." + s + "`?"
				} else {
					help += ", which exports " + strings.Join(exports[:min(len(exports), 8)], ", ")
					if len(exports) > 8 {
						help += ", …"
					}
				}
			}
		}
	}
	if call {
		c.report(sevError, pos, "HARN-NAM-002", help, msg)
	} else {
		c.report(sevWarning, pos, "", help, msg+" (it reads nil)")
	}
	return true
}

// importedFn is an imported function as its calls are checked.
type importedFn struct {
	decl *syntax.FnDecl
	sig  *types.Func
	// foreignNil is the module's declared `T?` result when T is a type the
	// file does not see, so sig returns any: the call may still be nil.
	foreignNil types.Type
	// library marks a function of an embedded std/* module
	// (LibraryImports): its declared result is held as a builtin's.
	library bool
}

// importedCall returns the imported function that call x calls by its
// bound name (`find(…)`) or as a namespace member (`lib.find(…)`), or nil.
func (c *checker) importedCall(x syntax.Expr) *importedFn {
	switch x := x.(type) {
	case *syntax.CallExpr:
		if !c.multiDecl[x.Fn.Name] && c.importRef(c.info.Refs[x.Fn], false) {
			return c.imported("", x.Fn.Name)
		}
	case *syntax.MethodCall:
		if id, ok := x.X.(*syntax.Ident); ok && !x.Optional && !c.multiDecl[id.Name] && c.importRef(c.info.Refs[id], true) {
			return c.imported(id.Name, x.Name)
		}
	}
	return nil
}

// imported returns the function an import binds to name (member name of
// namespace ns when ns != ""), or nil.
//
// Its signature is adapted to the importing file. A `...rest` parameter of a
// module function is a plain parameter (docs/spec/language.md §9.2): it
// checks the one argument at its position (knownCall sets no upper arity
// bound). And a struct or enum the file cannot see under its name (a
// private type of the module) is left unchecked: the run time compares
// struct types by name, so an instance of the file's own same-named
// struct is accepted. An interface is checked wherever it is declared:
// satisfaction is structural (docs/spec/language.md §10.4).
func (c *checker) imported(ns, name string) *importedFn {
	if c.imports == nil {
		return nil
	}
	key := name
	if ns != "" {
		key = ns + "." + name
	}
	if f, ok := c.importedFns[key]; ok {
		return f
	}
	var f *importedFn
	if decl, sig, ok := c.imports.ImportedFunc(ns, name); ok && decl != nil && sig != nil {
		params := append([]types.Param(nil), plainRest(sig.Params)...) // ours to change
		local := &types.Func{TypeParams: sig.TypeParams, Params: params, Return: sig.Return, Throws: sig.Throws}
		for i := range local.Params {
			if c.foreign(local.Params[i].Type, ns) {
				local.Params[i].Type = types.Any
			}
		}
		f = &importedFn{decl: decl, sig: local}
		if li, ok := c.imports.(LibraryImports); ok {
			f.library = li.ImportedFromLibrary(ns, name)
		}
		if c.foreign(local.Return, ns) {
			local.Return = types.Any
			if len(sig.TypeParams) == 0 && nilable(sig.Return) {
				f.foreignNil = sig.Return
			}
		}
	}
	c.importedFns[key] = f
	return f
}

// importRef reports whether ref is to a name an import binds: a namespace
// import's (`import * as ns`) when namespace is set, else a function's.
func (c *checker) importRef(ref *resolve.Ref, namespace bool) bool {
	if ref == nil || ref.Binding == nil || ref.Scope != resolve.Global || ref.Binding.Kind != resolve.KImport {
		return false
	}
	if c.namespaces == nil {
		c.namespaces = map[string]bool{}
		for _, it := range c.file.Items {
			if d, ok := it.(*syntax.ImportDecl); ok && d.Namespace != nil {
				c.namespaces[d.Namespace.Name] = true
			}
		}
	}
	is, known := c.namespaces[ref.Name]
	if !known {
		// a name another import binds may be a namespace its module
		// re-exports (`pub import * as ns from …` there, docs/modules.md)
		if ni, ok := c.imports.(NamespaceImports); ok {
			_, is = ni.NamespaceExports(ref.Name)
		}
		c.namespaces[ref.Name] = is
	}
	return is == namespace
}

// foreign reports whether t names a struct or enum that the file does
// not see as the same declaration, by its name or (for a
// namespace import ns) as `ns.Name`. Aliases are looked through, at
// most 16 deep (an alias may mention itself).
func (c *checker) foreign(t types.Type, ns string) bool {
	aliases := 0
	var unseen func(t types.Type) bool
	unseen = func(t types.Type) bool {
		n, ok := t.(*types.Named)
		if !ok {
			return false
		}
		if n.Decl.Kind == types.AliasDecl {
			if aliases >= 16 {
				return false
			}
			aliases++
			defer func() { aliases-- }()
			return anyPart(n.Decl.Target, unseen)
		}
		if n.Decl.Kind == types.InterfaceDecl {
			return false // satisfied structurally, wherever it is declared
		}
		seen := func(d *types.Decl) bool {
			return d != nil && (d == n.Decl || d.Name == n.Decl.Name && d.Origin == n.Decl.Origin && d.Kind == n.Decl.Kind)
		}
		return !seen(c.env.Lookup(n.Decl.Name)) && (ns == "" || !seen(c.env.Lookup(ns+"."+n.Decl.Name)))
	}
	return anyPart(t, unseen)
}

// exported hands each top-level `pub const` / `pub let` of one name with a
// type worth stating to out (Options.Exported). A `let` first bound to
// nil (its type is fixed later) and a name declared more than once are
// left out.
func (c *checker) exported(items []syntax.Stmt, out func(string, types.Type, bool)) {
	for _, it := range items {
		s, ok := it.(*syntax.LetStmt)
		if !ok || !s.Pub || s.Kind == syntax.BindVar {
			continue
		}
		p, ok := s.Pattern.(*syntax.IdentPattern)
		if !ok || c.multiDecl[p.Name] {
			continue
		}
		v := c.vars[c.binding(p, p.Name)]
		if v == nil || v.nilInit || v.t == nil || v.t == types.Any {
			continue
		}
		out(p.Name, types.Widen(v.t), v.annotated)
	}
}

// importedValue returns the type of the `pub const` / `pub let` an import
// binds to name (for ns != "", the member name of the namespace import
// ns): the value the module computed when it loaded, typed as the module
// typed it (docs/spec/language.md §11.2). A struct or enum the file does
// not see under that name is left unchecked, as for imported functions.
func (c *checker) importedValue(ns, name string) (types.Type, bool) {
	ic, ok := c.imports.(ImportedConsts)
	if !ok {
		return nil, false
	}
	t, ok := ic.ImportedConstType(ns, name)
	if !ok || t == nil {
		return nil, false
	}
	if c.foreign(t, ns) {
		return types.Any, true
	}
	return t, true
}

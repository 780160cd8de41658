package interp

import (
	"errors"
	"maps"
	"os"
	"slices"

	"github.com/harnlang/harn/lang/check"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/vm"
)

// checkFile runs the static checker (lang/check) on module m's file and
// returns errors and warnings (Severity tells them apart). env holds the
// type declarations the file's imports make visible (nil: none); the
// checker adds the file's own.
func checkFile(m *Module, info *resolve.Info, env *types.Env, u *vm.Universe, strict, keepTypes bool) diag.List {
	exported := func(name string, t types.Type, declared bool) {
		if m.constTypes == nil {
			m.constTypes = map[string]constType{}
		}
		m.constTypes[name] = constType{t, declared}
	}
	opts := check.Options{Env: env, Library: library{u}, Imports: importedFuncs{m}, StrictTypes: strict, Exported: exported}
	if keepTypes {
		m.bindingTypes = map[*resolve.Binding]types.Type{}
		m.closureTypes = map[*syntax.ClosureLit]types.Type{}
		opts.Bindings = func(b *resolve.Binding, t types.Type) { m.bindingTypes[b] = t }
		opts.Closures = func(cl *syntax.ClosureLit, t types.Type) { m.closureTypes[cl] = t }
	}
	return stdQuiet(m.Syntax.Path, check.File(m.Syntax, info, opts))
}

// BindingType is the type the checker gave binding b of the module's
// file, when the session keeps them (Options.BindingTypes).
func (m *Module) BindingType(b *resolve.Binding) (types.Type, bool) {
	t, ok := m.bindingTypes[b]
	return t, ok
}

// ClosureType is the type the checker gave closure literal cl of the
// module's file, when the session keeps types (Options.BindingTypes).
func (m *Module) ClosureType(cl *syntax.ClosureLit) (types.Type, bool) {
	t, ok := m.closureTypes[cl]
	return t, ok
}

// importedFuncs shows the checker the functions a module's imports bind,
// with the signatures `harn tool schema --surface exports` gives them:
// typed in the module that declares them.
type importedFuncs struct{ m *Module }

func (i importedFuncs) ImportedFunc(ns, name string) (*syntax.FnDecl, *types.Func, bool) {
	def, decl := i.importedDecl(ns, name)
	fn, ok := decl.(*syntax.FnDecl)
	if p, isPipe := decl.(*syntax.PipelineDecl); isPipe {
		// a pipeline is called like a function (docs/spec/newer.md §1.13)
		fn, ok = &syntax.FnDecl{At: p.At, Attrs: p.Attrs, Name: p.Name, NamePos: p.NamePos,
			Params: p.Params, Return: p.Return, Throws: p.Throws, Body: p.Body}, true
	}
	if !ok || def.env == nil {
		return nil, nil, false
	}
	return fn, def.Types().FnType(fn), true
}

// ImportedFromLibrary implements check.LibraryImports: whether the
// function an import binds to name comes from an embedded std/* module.
func (i importedFuncs) ImportedFromLibrary(ns, name string) bool {
	def, _ := i.importedDecl(ns, name)
	return def != nil && isStd(def.Syntax.Path)
}

// importedDecl returns the module and declaration of what an import binds
// to name (for ns != "", the member name of the namespace import ns); decl
// is nil when it is not known.
func (i importedFuncs) importedDecl(ns, name string) (def *Module, decl syntax.Node) {
	for _, imp := range i.m.Imports {
		if imp.Module == nil {
			continue // not loaded
		}
		switch n := imp.Decl.Namespace; {
		case ns != "" && n != nil && n.Name == ns:
			def, decl, _ = imp.Module.Exported(name)
		case ns != "" && n == nil && slices.Contains(imp.Names, ns):
			def, decl = nil, nil
			if m, _ := reexportedNamespace(imp.Module, ns); m != nil {
				def, decl, _ = m.Exported(name)
			}
		case ns == "" && n == nil && slices.Contains(imp.Names, name):
			// a later import of the name rebinds it at run time
			def, decl = imp.Module, nil
			if d, dd, ok := imp.Module.Exported(name); ok {
				def, decl = d, dd
			} else if dd := imp.Module.declOf(name); dd != nil && imp.Module.sibling[name] {
				decl = dd
			}
		}
	}
	return def, decl
}

// NamespaceExports implements check.NamespaceImports: the export surface
// of the module the namespace ns is, once it is complete.
func (i importedFuncs) NamespaceExports(ns string) ([]string, bool) {
	m, _ := i.namespace(ns)
	if m == nil || m.state < stImports {
		return nil, false
	}
	return m.Exports(), true
}

// NamespacePrivate implements check.NamespacePrivates: whether the module
// the namespace ns is declares name without exporting it, and the
// module's path as its import writes it.
func (i importedFuncs) NamespacePrivate(ns, name string) (string, bool) {
	m, path := i.namespace(ns)
	if m != nil && m.private[name] != nil && m.exports[name] == nil {
		return path, true
	}
	return "", false
}

// namespace is the module that the namespace an import binds to ns is,
// and the path its import writes: that of a namespace import (`import *
// as ns from "p"`), or of the one a module re-exports (`pub import * as
// ns from "p"` there, docs/modules.md) when an import binds ns from that
// module. The first import binding ns decides, as for NamespaceExports
// before re-exports were seen.
func (i importedFuncs) namespace(ns string) (*Module, string) {
	for _, imp := range i.m.Imports {
		if imp.Module == nil {
			continue
		}
		if n := imp.Decl.Namespace; n != nil && n.Name == ns {
			return imp.Module, imp.Decl.Path
		}
		if imp.Decl.Namespace == nil && slices.Contains(imp.Names, ns) {
			return reexportedNamespace(imp.Module, ns)
		}
	}
	return nil, ""
}

// reexportedNamespace is the module and import path of the namespace that
// m exports as name through a `pub import * as name`, following
// re-exports of the name; nil when m exports no such namespace.
func reexportedNamespace(m *Module, name string) (*Module, string) {
	o := m.exports[name]
	if o == nil {
		return nil, ""
	}
	for _, imp := range o.mod.Imports {
		if n := imp.Decl.Namespace; n != nil && n.Name == o.name && imp.Decl.Pub && imp.Module != nil {
			return imp.Module, imp.Decl.Path
		}
	}
	return nil, ""
}

// ImportedConstType implements check.ImportedConsts: the type of the
// `pub const` or `pub let` an import binds to name (for ns != "", the
// member name of the namespace import ns), as the module's checker gave
// it, else from its annotation or literal initialiser.
func (i importedFuncs) ImportedConstType(ns, name string) (types.Type, bool) {
	def, let, p := i.importedValue(ns, name)
	if p == nil {
		return nil, false
	}
	if ct, ok := def.constTypes[p.Name]; ok {
		return ct.t, true
	}
	if let.Kind != syntax.BindConst {
		return nil, false
	}
	if let.Type != nil {
		return def.Types().FromSyntax(let.Type, nil), true
	}
	t := check.LiteralType(let.Value)
	return t, t != nil
}

// ImportedConstDeclared implements check.ImportedConsts: whether the
// module wrote the type of the value an import binds to name down.
func (i importedFuncs) ImportedConstDeclared(ns, name string) bool {
	def, _, p := i.importedValue(ns, name)
	return p != nil && def.constTypes[p.Name].declared
}

// importedValue finds the `pub const` / `pub let` of one name that an
// import binds to name in a module that has been checked; p is nil when
// it is no such binding.
func (i importedFuncs) importedValue(ns, name string) (def *Module, let *syntax.LetStmt, p *syntax.IdentPattern) {
	def, decl := i.importedDecl(ns, name)
	let, ok := decl.(*syntax.LetStmt)
	if !ok || let.Kind == syntax.BindVar || def.env == nil {
		return nil, nil, nil
	}
	p, _ = let.Pattern.(*syntax.IdentPattern)
	return def, let, p
}

// constType is the type the checker gave a module's `pub const` / `pub
// let`, and whether the module wrote it down.
type constType struct {
	t        types.Type
	declared bool
}

// library shows the checker the builtins' signatures, from the one
// descriptor table the universe was built from.
type library struct{ u *vm.Universe }

func (l library) BuiltinSig(name string) (string, bool) {
	if b := l.u.Builtin(name); b != nil {
		return b.Sig, true
	}
	return "", false
}

func (l library) MethodSig(recv, name string) (string, bool) {
	if m := l.u.Method(recv, name); m != nil {
		return m.Sig, true
	}
	if l.u.Method(recv, "*") != nil {
		return "", true
	}
	return "", false
}

func (l library) MethodNames(recv string) []string {
	var out []string
	for _, m := range l.u.Methods(recv) {
		out = append(out, m.Name)
	}
	return out
}

// NamespaceMembers implements check.NamespaceLibrary.
func (l library) NamespaceMembers(name string) ([]string, bool) {
	d := l.namespace(name)
	if d == nil {
		return nil, false
	}
	return d.Keys(), true
}

// NamespaceMemberSig implements check.NamespaceLibrary.
func (l library) NamespaceMemberSig(ns, member string) (string, bool) {
	d := l.namespace(ns)
	if d == nil {
		return "", false
	}
	f, _ := d.Get(member)
	b, ok := f.Object().(*vm.Builtin)
	if !ok {
		return "", false
	}
	return b.Sig, true
}

// namespace is the library namespace global name (`stream`), or nil.
func (l library) namespace(name string) *vm.Dict {
	v, ok := l.u.Global(name)
	if !ok || !v.IsValid() {
		return nil
	}
	if d, ok := v.AsDict(); ok && d.LibraryNamespace() != "" {
		return d
	}
	return nil
}

// stdQuiet drops the warnings of embedded std/* modules: they are the
// library's business, not the script author's.
func stdQuiet(path string, l diag.List) diag.List {
	if !isStd(path) {
		return l
	}
	var out diag.List
	for _, d := range l {
		if d.Severity != diag.SevWarning {
			out = append(out, d)
		}
	}
	return out
}

// importTypes makes the pub struct, enum and type declarations an import
// names visible to the importing file's checker (following re-exports).
// A namespace — of a namespace import, or one the module re-exports
// (`pub import * as ns` there) that the import names — makes its
// module's exported enums visible, which `ns.Enum.Variant` names, and
// records their names in nsEnums under the namespace's; every type it
// exports is visible as `ns.Name` in annotations.
func importTypes(env *types.Env, imp *Import, nsEnums map[string][]string) {
	addNamespace := func(ns string, m *Module) {
		enums := []string{}
		for _, d := range namespaceTypes(m) {
			env.ImportAs(ns+"."+d.Name, d)
			if d.Kind == types.EnumDecl {
				env.Import(d)
				enums = append(enums, d.Name)
			}
		}
		nsEnums[ns] = enums
	}
	if ns := imp.Decl.Namespace; ns != nil {
		addNamespace(ns.Name, imp.Module)
		return
	}
	for _, n := range imp.Names {
		if m, _ := reexportedNamespace(imp.Module, n); m != nil {
			addNamespace(n, m)
			continue
		}
		def, _, ok := imp.Module.Exported(n)
		if !ok || def.env == nil {
			continue
		}
		if d := def.env.Lookup(n); d != nil && d.Origin == def.Syntax.Path {
			env.Import(d)
		}
	}
}

// namespaceTypes lists the type declarations the module of a namespace
// exports (declared there or re-exported).
func namespaceTypes(m *Module) []*types.Decl {
	var out []*types.Decl
	for _, n := range m.Exports() {
		def, _, ok := m.Exported(n)
		if !ok || def.env == nil {
			continue
		}
		if d := def.env.Lookup(n); d != nil && d.Origin == def.Syntax.Path {
			out = append(out, d)
		}
	}
	return out
}

// importOptions is what imports show a file before anything runs: the
// resolver options for the names they bind (and which of those are
// enums or schema aliases), and the type declarations they make visible.
func importOptions(imports []*Import) (resolve.Options, *types.Env) {
	var imported []string
	pipelines := map[string]int{}
	env := types.NewEnv()
	nsEnums := map[string][]string{}
	for _, imp := range imports {
		imported = append(imported, imp.Names...)
		if imp.Decl.Namespace == nil {
			for _, n := range imp.Names {
				if _, decl, ok := imp.Module.Exported(n); ok {
					if p, ok := decl.(*syntax.PipelineDecl); ok {
						pipelines[n] = requiredParams(p.Params)
					}
				}
			}
		}
		importTypes(env, imp, nsEnums)
		if ns := imp.Decl.Namespace; ns != nil {
			imported = append(imported, ns.Name)
		}
	}
	enums := importedEnums(env, imported)
	return resolve.Options{ImportedNames: imported, ImportedPipelines: pipelines, ImportedAliases: schemaAliases(env),
		ImportedEnums: enums, NamespaceEnums: nsEnums, ImportedVariants: importedVariants(env, enums, nsEnums)}, env
}

// requiredParams counts the parameters before the first with a default.
func requiredParams(ps []*syntax.Param) int {
	for i, p := range ps {
		if p.Default != nil || p.Rest {
			return i
		}
	}
	return len(ps)
}

// importedEnums lists the enums among the names imported by name.
func importedEnums(env *types.Env, imported []string) []string {
	var out []string
	for _, n := range imported {
		if d := env.Lookup(n); d != nil && d.Kind == types.EnumDecl {
			out = append(out, n)
		}
	}
	return out
}

// importedVariants maps each variant of an imported enum to the enums
// declaring it, spelled as the importing file writes them: `Color` for
// one imported by name, `ns.Color` for one of a namespace import.
func importedVariants(env *types.Env, enums []string, nsEnums map[string][]string) map[string][]string {
	out := map[string][]string{}
	add := func(spelled string) {
		d := env.Lookup(spelled)
		if d == nil || d.Kind != types.EnumDecl {
			return
		}
		for _, v := range d.Variants {
			if !slices.Contains(out[v.Name], spelled) {
				out[v.Name] = append(out[v.Name], spelled)
			}
		}
	}
	for _, e := range enums {
		add(e)
	}
	nss := slices.Sorted(maps.Keys(nsEnums))
	for _, ns := range nss {
		for _, e := range nsEnums[ns] {
			add(ns + "." + e)
		}
	}
	return out
}

// schemaAliases lists the imported type aliases a file may use as schema
// values (the non-generic ones).
func schemaAliases(env *types.Env) []string {
	var out []string
	for _, d := range env.Decls() {
		if d.Kind == types.AliasDecl && len(d.TypeParams) == 0 {
			out = append(out, d.Name)
		}
	}
	return out
}

// CheckFile is `harn check`: it parses, resolves, type-checks and
// compiles the file at path and every module it imports, without running
// anything, and returns every diagnostic (errors and warnings, Severity
// tells them apart) in load order, modules before their importers. The
// error is for an unreadable entry file.
func (s *Session) CheckFile(path string) (diag.List, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return s.checkSource(path, src), nil
}

// CheckSource is CheckFile for source text that has no file of its own
// (`harn check -` reads it from standard input); path names it in
// diagnostics, and relative imports resolve from the working directory.
func (s *Session) CheckSource(path string, src []byte) diag.List {
	return s.checkSource(path, src)
}

// checkSource is CheckFile for source text named path.
func (s *Session) checkSource(path string, src []byte) diag.List {
	s.collect = &diag.List{}
	defer func() { s.collect = nil }()
	if _, err := s.Compile(path, src); err != nil {
		s.report(err)
	}
	return *s.collect
}

// report adds a failure to the diagnostics CheckFile collects: load
// failures (run-time errors under `harn run`) become diagnostics at their
// import site.
func (s *Session) report(err error) {
	var dl diag.List
	var de *diag.Error
	var ve *vm.Error
	switch {
	case errors.As(err, &dl):
		*s.collect = append(*s.collect, dl...)
	case errors.As(err, &de):
		*s.collect = append(*s.collect, de)
	case errors.As(err, &ve):
		d := &diag.Error{Msg: ve.Msg, Phase: diag.PhaseStatic, Help: ve.Help}
		if len(ve.Trace) > 0 {
			d.File, d.Line, d.Col = ve.Trace[0].File, ve.Trace[0].Line, ve.Trace[0].Col
		}
		*s.collect = append(*s.collect, d)
	default:
		*s.collect = append(*s.collect, &diag.Error{Msg: err.Error(), Phase: diag.PhaseStatic})
	}
}

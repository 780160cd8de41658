package interp

// The module loader (docs/spec/language.md §11).
//
// Loading has two phases. The static phase (Compile) walks the import
// graph depth-first from the entry file: each module file is read, parsed,
// resolved, checked and compiled once per session (std/* modules once per
// process), and every selective import is checked against the export
// surface of its module (HARN-IMP-002) before anything runs. The run phase
// (Run) initialises the modules an entry needs, in import order: a
// module's own imports are bound into its globals, then its init code runs
// (top-level bindings and function declarations only, §11.2).
//
// Export surfaces. A module's exports are its `pub` items plus the names
// its `pub import`s re-export. A module's own `pub` items are known as soon
// as it is parsed, so the loader processes a module's `pub import`s before
// its plain imports: once a module moves on to its plain imports its export
// surface is complete, and a plain import that reaches it while it is still
// loading (an import cycle) can be checked and bound late. An import
// cycle with a `pub import` among its edges — the closing import is one,
// or a module on the loading stack is still following one — re-exports
// across the cycle and is a load error.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/stdlib/std"
	"github.com/harnlang/harn/vm"
)

// Module is a compiled file: the entry program, an imported module, or one
// REPL entry.
type Module struct {
	// Path is the module's identity: the absolute file path, "std/NAME"
	// for an embedded module, or the name given to Compile for the entry.
	Path string
	// Name is how diagnostics and stack traces name the file: the entry's
	// path as given, an imported file's path joined to its importer's
	// directory, or "std/NAME".
	Name    string
	Syntax  *syntax.File
	Info    *resolve.Info
	Program *compiler.Program
	// VM is the module's run-time instance (its global slots).
	VM *vm.Module
	// Imports lists the file's import declarations in source order.
	Imports []*Import
	// ImportDiags holds, when diagnostics are collected (Session.Analyze),
	// the diagnostics of other files that loading each import reported:
	// the errors and warnings of the modules it loaded, directly or not,
	// so that a tool can show them at the import. A module loaded by an
	// earlier import is not reported again.
	ImportDiags map[*syntax.ImportDecl]diag.List

	env     *types.Env         // type declarations visible to the checker (own and imported)
	dir     string             // directory relative imports resolve against ("" for std)
	exports map[string]*origin // export surface: name → where the value is defined
	private map[string]syntax.Node
	sibling map[string]bool // private functions marked @sibling
	state   loadState
	init    initState
	bound   bool // imports bound into VM (the entry and REPL entries)
	// interactive marks a REPL entry, which may run again an import an
	// earlier entry ran (bind, rebinding).
	interactive bool
	// constTypes holds the types the checker gave the module's `pub
	// const` / `pub let` bindings, for its importers' checkers.
	constTypes map[string]constType
	// bindingTypes holds the types the checker gave the file's bindings,
	// when the session keeps them (Options.BindingTypes).
	bindingTypes map[*resolve.Binding]types.Type
	closureTypes map[*syntax.ClosureLit]types.Type
}

// Import is one import declaration and what it binds.
type Import struct {
	Decl   *syntax.ImportDecl
	Module *Module
	// Names are the names the import binds: the listed ones, or the
	// module's whole export surface (sorted) for `import "path"`.
	Names []string
}

// Exports returns the module's export surface, sorted.
func (m *Module) Exports() []string {
	names := make([]string, 0, len(m.exports))
	for n := range m.exports {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Exported reports whether name is part of the module's export surface and,
// if so, the module and declaration that define it (following re-exports).
// The declaration is nil for names the module got from an import.
func (m *Module) Exported(name string) (def *Module, decl syntax.Node, ok bool) {
	o := m.exports[name]
	if o == nil {
		return nil, nil, false
	}
	return o.mod, o.mod.declOf(o.name), true
}

// ImportedDecl reports where a name that an import of m binds comes from:
// the defining module and its declaration (following re-exports). The
// static checker uses it to type calls of imported functions.
func (m *Module) ImportedDecl(name string) (def *Module, decl syntax.Node, ok bool) {
	for i := len(m.Imports) - 1; i >= 0; i-- {
		imp := m.Imports[i]
		for _, n := range imp.Names {
			if n == name {
				if def, decl, ok := imp.Module.Exported(name); ok {
					return def, decl, true
				}
				if decl := imp.Module.declOf(name); decl != nil {
					return imp.Module, decl, true // a @sibling function
				}
			}
		}
	}
	return nil, nil, false
}

// origin is the defining module of an exported name.
type origin struct {
	mod  *Module
	name string
	via  string // the import path that re-exports it ("" for an own item)
}

type loadState uint8

const (
	stNew       loadState = iota
	stReexports           // resolving its `pub import`s: export surface incomplete
	stImports             // resolving its plain imports: export surface complete
	stReady               // compiled
)

type initState uint8

const (
	initNone initState = iota
	initRunning
	initDone
)

// declOf returns the top-level declaration of name in the module's file.
func (m *Module) declOf(name string) syntax.Node {
	if m.Syntax == nil {
		return nil
	}
	var found syntax.Node
	for _, it := range m.Syntax.Items {
		forTopLevelNames(it, func(n string, node syntax.Node) {
			if n == name && found == nil {
				found = node
			}
		})
	}
	return found
}

// forTopLevelNames calls fn for each name a top-level item declares.
func forTopLevelNames(it syntax.Stmt, fn func(name string, node syntax.Node)) {
	switch d := it.(type) {
	case *syntax.FnDecl:
		fn(d.Name, d)
	case *syntax.ToolDecl:
		fn(d.Name, d)
	case *syntax.PipelineDecl:
		fn(d.Name, d)
	case *syntax.StructDecl:
		fn(d.Name, d)
	case *syntax.EnumDecl:
		fn(d.Name, d)
	case *syntax.TypeDecl:
		fn(d.Name, d)
	case *syntax.InterfaceDecl:
		fn(d.Name, d)
	case *syntax.SkillDecl:
		fn(d.Name, d)
	case *syntax.EvalPackDecl:
		fn(d.Name, d)
	case *syntax.LetStmt:
		syntax.PatternNames(d.Pattern, func(name string, _ syntax.Node) { fn(name, d) })
	}
}

// isPub reports whether a top-level item is marked pub.
func isPub(it syntax.Stmt) bool {
	switch d := it.(type) {
	case *syntax.FnDecl:
		return d.Pub
	case *syntax.ToolDecl:
		return d.Pub
	case *syntax.PipelineDecl:
		return d.Pub
	case *syntax.StructDecl:
		return d.Pub
	case *syntax.EnumDecl:
		return d.Pub
	case *syntax.TypeDecl:
		return d.Pub
	case *syntax.InterfaceDecl:
		return d.Pub
	case *syntax.SkillDecl:
		return d.Pub
	case *syntax.EvalPackDecl:
		return d.Pub
	case *syntax.LetStmt:
		return d.Pub
	}
	return false
}

// declareOwn records the module's own export surface and private names.
func (m *Module) declareOwn() {
	m.exports = map[string]*origin{}
	m.private = map[string]syntax.Node{}
	m.sibling = map[string]bool{}
	for _, it := range m.Syntax.Items {
		pub := isPub(it)
		forTopLevelNames(it, func(name string, node syntax.Node) {
			if pub {
				m.exports[name] = &origin{mod: m, name: name}
				delete(m.private, name)
			} else if m.exports[name] == nil && m.private[name] == nil {
				m.private[name] = node
			}
		})
		if fn, ok := it.(*syntax.FnDecl); ok && !fn.Pub && hasAttr(fn.Attrs, "sibling") {
			m.sibling[fn.Name] = true
		}
		if imp, ok := it.(*syntax.ImportDecl); ok && !imp.Pub {
			if ns := imp.Namespace; ns != nil && m.exports[ns.Name] == nil && m.private[ns.Name] == nil {
				m.private[ns.Name] = ns
			}
			for _, id := range imp.Names {
				if m.exports[id.Name] == nil && m.private[id.Name] == nil {
					m.private[id.Name] = id
				}
			}
		}
	}
}

func hasAttr(attrs []*syntax.Attribute, name string) bool {
	for _, a := range attrs {
		if a.Name == name {
			return true
		}
	}
	return false
}

// buildEntry builds an entry (a program or a REPL entry). When that fails
// it forgets the modules the attempt registered, some of which may be
// half built, so a later attempt — the next REPL entry — starts clean.
func (s *Session) buildEntry(m *Module, kind unitKind) error {
	mark := len(s.order)
	err := s.build(m, kind)
	if err != nil {
		for _, key := range s.order[mark:] {
			delete(s.modules, key)
		}
		s.order = s.order[:mark]
	}
	return err
}

// build loads a parsed module's imports, then resolves, checks and
// compiles it; kind selects module init code (§11.2) or a program.
func (s *Session) build(m *Module, kind unitKind) error {
	m.declareOwn()
	m.state = stReexports
	s.stack = append(s.stack, m)
	defer func() { s.stack = s.stack[:len(s.stack)-1] }()

	s.prefetch(m)
	var imports []*Import
	var static diag.List
	opaque := false
	pos := map[*syntax.ImportDecl]int{}
	// `pub import`s first: they complete the export surface.
	for pass := 0; pass < 2; pass++ {
		for i, it := range m.Syntax.Items {
			d, ok := it.(*syntax.ImportDecl)
			if !ok || d.Pub != (pass == 0) {
				continue
			}
			mark := s.collected()
			t, err := s.importModule(m, d)
			if err != nil {
				if s.collect == nil {
					return err
				}
				s.report(err)
				m.noteImportDiags(d, s.collectedSince(mark))
				opaque = true
				continue
			}
			m.noteImportDiags(d, s.collectedSince(mark))
			names, errs := importNames(m, d, t)
			static = append(static, errs...)
			imp := &Import{Decl: d, Module: t, Names: names}
			imports = append(imports, imp)
			pos[d] = i
			if d.Pub {
				if err := m.reexport(imp); err != nil {
					if s.collect == nil {
						return err
					}
					s.report(err)
				}
			}
		}
		m.state = stImports
	}
	if len(static) > 0 {
		if s.collect == nil {
			return static
		}
		s.report(static)
	}
	sort.Slice(imports, func(i, j int) bool { return pos[imports[i].Decl] < pos[imports[j].Decl] })
	m.Imports = imports
	return s.compileUnit(m, kind, opaque)
}

// collected is how many diagnostics have been collected (0 when they
// are not).
func (s *Session) collected() int {
	if s.collect == nil {
		return 0
	}
	return len(*s.collect)
}

// collectedSince returns the diagnostics collected after mark.
func (s *Session) collectedSince(mark int) diag.List {
	if s.collect == nil {
		return nil
	}
	return (*s.collect)[mark:]
}

// noteImportDiags records the diagnostics of other files among those
// loading import d reported.
func (m *Module) noteImportDiags(d *syntax.ImportDecl, l diag.List) {
	for _, e := range l {
		if e.File == "" || e.File == m.Name {
			continue
		}
		if m.ImportDiags == nil {
			m.ImportDiags = map[*syntax.ImportDecl]diag.List{}
		}
		m.ImportDiags[d] = append(m.ImportDiags[d], e)
	}
}

// reexport adds the names a `pub import` binds to m's export surface:
// the listed or exported names, or for `pub import * as ns` the namespace
// ns, whose value lives in m's own globals.
func (m *Module) reexport(imp *Import) error {
	names := imp.Names
	if ns := imp.Decl.Namespace; ns != nil {
		names = []string{ns.Name}
	}
	for _, n := range names {
		o := imp.Module.exports[n]
		switch {
		case imp.Decl.Namespace != nil:
			o = &origin{mod: m, name: n}
		case o == nil:
			o = &origin{mod: imp.Module, name: n} // a @sibling function
		}
		o = &origin{mod: o.mod, name: o.name, via: imp.Decl.Path}
		if prev := m.exports[n]; prev != nil && (prev.mod != o.mod || prev.name != o.name) {
			if prev.via != "" {
				// Two pub imports binding one name collide as imports
				// do: the second binding is refused first.
				return importFailure(m, imp.Decl, "%s", importCollision(n, imp.Decl.Path, false))
			}
			return importFailure(m, imp.Decl, "Re-export collision: '%s' is exported by both this module and %q", n, imp.Decl.Path)
		}
		m.exports[n] = o
	}
	return nil
}

type unitKind uint8

const (
	unitProgram unitKind = iota // the entry: a whole program
	unitModule                  // an imported module: init code only
	unitEntry                   // a REPL entry: a program over persistent globals
)

// compileUnit resolves, checks and compiles a module whose imports are
// loaded. opaque says that some import failed to load (harn check goes
// on): names the file does not declare are then not reported.
func (s *Session) compileUnit(m *Module, kind unitKind, opaque bool) error {
	if cached := stdCached(m); cached != nil {
		m.Info, m.Program, m.env = cached.info, cached.prog, cached.env
		m.state = stReady
		return nil
	}
	var entryChecked diag.List
	entry := kind == unitEntry && s.repl != nil
	var opts resolve.Options
	var env *types.Env
	if entry {
		opts, env = s.repl.options(m.Imports)
	} else {
		opts, env = importOptions(m.Imports)
	}
	opts.Universe = s.Universe
	if s.stdPredeclared != nil && isStd(m.Path) {
		opts.Universe = stdUniverse{s.Universe, s.stdPredeclared}
	}
	opts.OpaqueImports, opts.Module = opaque, kind == unitModule
	if entry {
		entryChecked = s.repl.check(m.Syntax, opts, m.Imports, nil)
	}
	info := resolve.File(m.Syntax, opts)
	var warnings, errs diag.List
	split := func(l diag.List) {
		for _, d := range l {
			if d.Severity == diag.SevWarning {
				warnings = append(warnings, d)
			} else {
				errs = append(errs, d)
			}
		}
	}
	split(info.Errors)
	if !isStd(m.Path) {
		split(info.Warnings)
	}
	// The type errors of a file whose names do not all resolve are
	// reported too: one unknown call must not hide the rest, and the
	// first error in source order comes first.
	if entry {
		// checked behind the earlier entries' declarations; the compiler
		// still wants the entry's own types
		env.AddFile(m.Syntax)
		split(entryChecked)
	} else {
		split(checkFile(m, info, env, s.Universe, s.strictTypes && !isStd(m.Path), s.bindingTypes))
	}
	foreign := kind == unitModule && !isStd(m.Path) && !isHarnSource(m.Path)
	if foreign {
		withhold(warnings)
		withhold(errs)
	}
	if len(info.Errors) > 0 {
		errs.SortByPosition()
	}
	m.Info, m.env = info, env
	m.state = stReady
	if s.collect != nil {
		all := append(append(diag.List(nil), errs...), warnings...)
		all.SortByPosition()
		*s.collect = append(*s.collect, all...)
		if len(errs) > 0 {
			return nil // reported; importers are still checked
		}
	} else {
		s.Warnings = append(s.Warnings, warnings...)
		if len(errs) > 0 {
			return errs
		}
	}
	var prog *compiler.Program
	var err error
	if kind == unitModule {
		prog, err = compiler.CompileModule(m.Syntax, info, compiler.Types(env))
	} else {
		opts := []compiler.Option{compiler.Types(env)}
		if s.repl != nil {
			opts = append(opts, compiler.Interactive())
		}
		prog, err = compiler.Compile(m.Syntax, info, opts...)
	}
	if err != nil && foreign {
		withholdErr(err)
	}
	if err != nil {
		if s.collect != nil {
			s.report(err)
			return nil
		}
		return err
	}
	m.Program = prog
	if isStd(m.Path) && s.stdPredeclared == nil {
		stdStore(m)
	}
	return nil
}

// importModule finds, parses and builds the module an import names (once
// per session), or returns it when it is already loaded or loading.
func (s *Session) importModule(from *Module, d *syntax.ImportDecl) (*Module, error) {
	key, name, dir, err := s.locate(from, d.Path)
	if err != nil {
		e := importFailure(from, d, "%s", err.Error())
		var le *locateError
		if errors.As(err, &le) {
			e.Help = le.help
		}
		return nil, e
	}
	if key == fileKey(from) {
		return nil, importFailure(from, d, "Import error: module imports itself ('%s' is %s)", d.Path, from.Name)
	}
	if t := s.modules[key]; t != nil {
		if t.state == stReady {
			return t, nil
		}
		// An import cycle: bound late (§11.3), unless one of its edges is
		// a `pub import` (a module on the stack still resolving its pub
		// imports is following one).
		if !d.Pub && !s.reexportInCycle(t) {
			return t, nil
		}
		return nil, importFailure(from, d, "Import cycle: `pub import` cannot re-export across the cycle %s", s.cycle(t, from))
	}
	f, perr := s.parseModule(key, name)
	if perr != nil {
		return nil, perr.withSite(from, d)
	}
	t := &Module{Path: key, Name: name, Syntax: f, dir: dir}
	s.modules[key] = t
	s.order = append(s.order, key)
	if err := s.build(t, unitModule); err != nil {
		return nil, addSite(err, from, d)
	}
	return t, nil
}

// fileKey is the identity an import of module m's own file would have:
// its Path, made absolute for the entry (whose Path is as given).
func fileKey(m *Module) string {
	if isStd(m.Path) || filepath.IsAbs(m.Path) {
		return m.Path
	}
	abs, err := filepath.Abs(m.Path)
	if err != nil {
		return m.Path
	}
	return abs
}

// reexportInCycle reports whether a module on the loading stack from t
// on is following one of its `pub import`s.
func (s *Session) reexportInCycle(t *Module) bool {
	on := false
	for _, m := range s.stack {
		on = on || m == t
		if on && m.state == stReexports {
			return true
		}
	}
	return false
}

// cycle describes the import cycle that leads from t back to it through
// the modules now loading, ending with from.
func (s *Session) cycle(t, from *Module) string {
	var names []string
	for i, m := range s.stack {
		if m == t {
			for _, c := range s.stack[i:] {
				names = append(names, c.Name)
			}
			break
		}
	}
	if len(names) == 0 || names[len(names)-1] != from.Name {
		names = append(names, from.Name)
	}
	return strings.Join(append(names, t.Name), " -> ")
}

// locate maps an import path to the module's identity (absolute path or
// std/NAME), its display name and its directory.
func (s *Session) locate(from *Module, path string) (key, name, dir string, err error) {
	if rest, ok := strings.CutPrefix(path, "std/"); ok {
		if _, ok := stdSource(rest); !ok {
			return "", "", "", &locateError{msg: "Unknown stdlib module: " + path, help: stdHelp(rest)}
		}
		return path, path, "", nil
	}
	p := path
	if filepath.Ext(p) == "" {
		p += ".harn"
	}
	if filepath.IsAbs(p) {
		name = filepath.Clean(p)
	} else {
		base := "."
		if from.Name != "" && !isStd(from.Path) {
			base = filepath.Dir(from.Name)
		}
		name = filepath.Join(base, p)
		if from.dir != "" {
			p = filepath.Join(from.dir, p)
		}
	}
	abs, aerr := filepath.Abs(p)
	if aerr != nil {
		abs = filepath.Clean(p)
	}
	if s.modules[abs] == nil {
		info, serr := os.Stat(abs)
		if serr == nil && info.IsDir() {
			serr = &os.PathError{Op: "read", Path: abs, Err: syscall.EISDIR}
		}
		if serr != nil {
			return "", "", "", &locateError{
				msg:  fmt.Sprintf("Import error: cannot read '%s': %s", name, stdlib.OSErrorText(serr)),
				help: missingFileHelp(path, abs),
			}
		}
	}
	return abs, name, filepath.Dir(abs), nil
}

// locateError is an import path that names no module, with advice for
// the report (the `= help:` line; catch does not see it).
type locateError struct{ msg, help string }

func (e *locateError) Error() string { return e.msg }

// stdHelp advises on an unknown std module name: the closest embedded
// module (docs/spec/language.md §3.2 rule), else the list of them.
func stdHelp(name string) string {
	if stem, ok := strings.CutSuffix(name, ".harn"); ok {
		if _, ok := stdSource(stem); ok {
			return "did you mean `std/" + stem + "`? (standard modules are named without .harn)"
		}
	}
	names := std.Names()
	if s := diag.Suggest(name, names); s != "" {
		return "did you mean `std/" + s + "`?"
	}
	list := "the standard modules are std/" + strings.Join(names, ", std/")
	switch name {
	case "time", "date", "datetime", "clock":
		// no std module holds them (docs/spec/builtins.md §3.14, §4.10)
		return "time and dates are builtins, called without an import (`timestamp()`, `date_now()`, `date_format(t)`); " + list
	}
	return list
}

// missingFileHelp advises on an import path whose file does not exist
// (abs is where it was looked for): a standard module of that name
// (`import "json"`), else a close spelling among the .harn files of the
// directory the path leads to, written as the import would name it.
func missingFileHelp(path, abs string) string {
	if !strings.ContainsAny(path, `/\\`) && filepath.Ext(path) == "" {
		if path == "std" {
			return "standard modules are imported as std/NAME"
		}
		if _, ok := stdSource(path); ok {
			return "did you mean `std/" + path + "`? (standard modules are imported as std/NAME)"
		}
	}
	slash := strings.LastIndexAny(path, `/\\`)
	dir, base := path[:slash+1], path[slash+1:]
	if base == "" || base == "." || base == ".." {
		return ""
	}
	ext := filepath.Ext(base)
	if info, err := os.Stat(strings.TrimSuffix(abs, ".harn")); ext == "" && err == nil && info.IsDir() {
		return "`" + path + "` is a directory: import one of its files (`" + path + "/NAME`)"
	}
	entries, err := os.ReadDir(filepath.Dir(abs))
	if err != nil {
		return ""
	}
	// With no extension written, compare names without their .harn;
	// with one, the whole file names (`a.harm` finds `a.harn`).
	var names []string
	for _, e := range entries {
		if stem, ok := strings.CutSuffix(e.Name(), ".harn"); ok && !e.IsDir() && stem != "" {
			if ext == "" {
				names = append(names, stem)
			} else {
				names = append(names, e.Name())
			}
		}
	}
	s := diag.Suggest(base, names)
	if s == "" {
		return ""
	}
	return "did you mean `" + dir + s + "`?"
}

// loadFailure is a failure to read or parse a module, before its import
// site is known.
type loadFailure struct {
	msg  string
	file string
	line int
	col  int
}

func (f *loadFailure) withSite(from *Module, d *syntax.ImportDecl) *vm.Error {
	e := importFailure(from, d, "%s", f.msg)
	if f.line > 0 {
		e.Trace = append([]vm.TraceFrame{{Func: "<module>", File: f.file, Line: f.line, Col: f.col}}, e.Trace...)
	}
	return e
}

// parseJob is a module file being read and parsed in the background.
type parseJob struct {
	done chan struct{}
	src  []byte
	file *syntax.File
	fail *loadFailure
}

// prefetch starts reading and parsing, in parallel, the module files m
// imports that are not loaded yet; parseModule collects the results.
func (s *Session) prefetch(m *Module) {
	for _, it := range m.Syntax.Items {
		d, ok := it.(*syntax.ImportDecl)
		if !ok || isStd(d.Path) {
			continue
		}
		key, name, _, err := s.locate(m, d.Path)
		if err != nil || s.modules[key] != nil || s.jobs[key] != nil {
			continue
		}
		if s.jobs == nil {
			s.jobs = map[string]*parseJob{}
		}
		job := &parseJob{done: make(chan struct{})}
		s.jobs[key] = job
		go func() {
			defer close(job.done)
			job.src, job.file, job.fail = parseFile(key, name)
		}()
	}
}

// parseModule reads and parses a module file (or embedded std module).
func (s *Session) parseModule(key, name string) (*syntax.File, *loadFailure) {
	if isStd(key) {
		if c := stdCachedSyntax(key); c != nil {
			s.Sources[name] = c.src
			return c.file, nil
		}
		src, _ := stdSource(strings.TrimPrefix(key, "std/"))
		s.Sources[name] = src
		return parseSource(name, src)
	}
	if job := s.jobs[key]; job != nil {
		<-job.done
		delete(s.jobs, key)
		if job.src != nil && isHarnSource(key) {
			s.Sources[name] = job.src
		}
		return job.file, job.fail
	}
	src, f, fail := parseFile(key, name)
	if src != nil && isHarnSource(key) {
		s.Sources[name] = src
	}
	return f, fail
}

// isHarnSource reports whether diagnostics may quote lines of an imported
// file: only *.harn files. `import "../secret/.env"` still fails with a
// position, but its lines (possibly secrets) are never printed.
func isHarnSource(path string) bool { return strings.HasSuffix(path, ".harn") }

// withhold rewrites diagnostics located in an imported file that is not
// Harn source (isHarnSource) to the kind of problem and its position: the
// message, help and notes would quote the file's tokens and names, which
// may be secrets (`API_KEY=...`; docs/limits.md). The code is kept.
func withhold(l diag.List) {
	for _, d := range l {
		what := "an error"
		if d.Severity == diag.SevWarning {
			what = "a warning"
		}
		d.Msg = what + " in an imported file that is not Harn source (its text is not shown)"
		d.Help, d.Golden, d.Notes = "", "", nil
	}
}

// withholdErr is withhold for a compile error of such a file.
func withholdErr(err error) {
	var dl diag.List
	var de *diag.Error
	switch {
	case errors.As(err, &dl):
		withhold(dl)
	case errors.As(err, &de):
		withhold(diag.List{de})
	}
}

// parseFile reads and parses the module file at path (its absolute path),
// naming it name in diagnostics. It touches no session state.
func parseFile(path, name string) ([]byte, *syntax.File, *loadFailure) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, &loadFailure{msg: fmt.Sprintf("Import error: cannot read '%s': %s", name, stdlib.OSErrorText(err))}
	}
	f, fail := parseSource(name, src)
	if fail != nil && !isHarnSource(path) {
		// the parser's message quotes the token it met (docs/limits.md)
		fail.msg = "Import parse error: " + name + " is not Harn source and does not parse (its text is not shown)"
	}
	return src, f, fail
}

func parseSource(name string, src []byte) (*syntax.File, *loadFailure) {
	f, err := syntax.Parse(name, src)
	if err != nil {
		lf := &loadFailure{msg: "Import parse error: " + err.Error(), file: name}
		var de *diag.Error
		if errors.As(err, &de) {
			lf.msg = "Import parse error: " + de.GoldenText()
			lf.line, lf.col = de.Line, de.Col
		}
		return nil, lf
	}
	return f, nil
}

// importFailure is a load failure at an import site: a run-time error
// (docs/spec/language.md §11.3) located at the import's path.
func importFailure(from *Module, d *syntax.ImportDecl, format string, args ...any) *vm.Error {
	e := vm.Runtimef(format, args...)
	e.Line, e.Col = d.PathPos.Line, d.PathPos.Col
	e.Trace = []vm.TraceFrame{{File: from.Name, Line: d.PathPos.Line, Col: d.PathPos.Col}}
	return e
}

// addSite appends an outer import site to the trace of a load failure
// that happened inside an imported module.
func addSite(err error, from *Module, d *syntax.ImportDecl) error {
	if e, ok := err.(*vm.Error); ok {
		e.Trace = append(e.Trace, vm.TraceFrame{File: from.Name, Line: d.PathPos.Line, Col: d.PathPos.Col})
	}
	return err
}

// importNames lists the names an import binds and reports selective
// imports of names the module does not export (HARN-IMP-002).
func importNames(from *Module, d *syntax.ImportDecl, t *Module) ([]string, diag.List) {
	if d.Names == nil {
		return t.Exports(), nil
	}
	var names []string
	var errs diag.List
	for i := 0; i < len(d.Names); i++ {
		id := d.Names[i]
		if t.exports[id.Name] != nil || (t.sibling[id.Name] && t.dir != "" && t.dir == from.dir) {
			names = append(names, id.Name)
			continue
		}
		e := &diag.Error{File: from.Name, Line: id.At.Line, Col: id.At.Col, Phase: diag.PhaseStatic, Code: "HARN-IMP-002"}
		if id.Name == "as" && i > 0 && i+1 < len(d.Names) {
			// `import { a as b }`: the names of a selective import are
			// only names (docs/spec/language.md §2.2, §11.1), so this
			// imports a, as and b; one error says what was meant
			orig, alias := d.Names[i-1].Name, d.Names[i+1].Name
			e.Msg = fmt.Sprintf("a selective import cannot rename `%s` to `%s`", orig, alias)
			e.Help = fmt.Sprintf("import `%s` and bind `let %s = %s` after it, or import the module as a namespace (`import * as m from \"%s\"`, then `m.%s`)", orig, alias, orig, d.Path, orig)
			errs = append(errs, e)
			i++ // the alias is no name of the module either
			continue
		}
		if decl := t.private[id.Name]; decl != nil {
			e.Msg = fmt.Sprintf("imported symbol `%s` is not exported by `%s` — it is defined there but not `pub`", id.Name, d.Path)
			e.Help = fmt.Sprintf("mark `%s` as `pub` in `%s` to export it", id.Name, d.Path)
			if strings.HasPrefix(t.Path, "std/") {
				// nobody edits an embedded module: name what it offers instead
				e.Help = stdPrivateHelp(id.Name, d.Path, t.Exports())
			}
			pos := declPos(decl)
			e.Notes = append(e.Notes, &diag.Error{File: t.Name, Line: pos.Line, Col: pos.Col,
				Msg: fmt.Sprintf("`%s` is defined here, in %s", id.Name, t.Name)})
		} else {
			e.Msg = fmt.Sprintf("imported symbol `%s` does not exist in `%s`", id.Name, d.Path)
			e.Help = fmt.Sprintf("update the import to a symbol exported by `%s`", d.Path)
			if s := diag.Suggest(id.Name, t.Exports()); s != "" {
				e.Help = fmt.Sprintf("did you mean `%s`?", s)
			}
			// `./lib` is lib.harn, but `std/math` is just std/math
			note := fmt.Sprintf("`%s` is %s, which exports %s", d.Path, t.Name, describeExports(t))
			if d.Path == t.Name {
				note = fmt.Sprintf("`%s` exports %s", d.Path, describeExports(t))
			}
			e.Notes = append(e.Notes, &diag.Error{File: t.Name, Msg: note})
		}
		errs = append(errs, e)
	}
	return names, errs
}

// stdPrivateHelp is the help for a name an embedded std module declares
// without exporting it: a close export, else what the module exports.
func stdPrivateHelp(name, path string, exports []string) string {
	if s := diag.Suggest(name, exports); s != "" {
		return fmt.Sprintf("`%s` is internal to the standard module `%s`; did you mean `%s`?", name, path, s)
	}
	shown := strings.Join(exports[:min(len(exports), 8)], ", ")
	if len(exports) > 8 {
		shown += ", …"
	}
	return fmt.Sprintf("`%s` is internal to the standard module `%s`, which exports %s", name, path, shown)
}

func describeExports(t *Module) string {
	names := t.Exports()
	if len(names) == 0 {
		return "nothing"
	}
	const max = 8
	quoted := make([]string, 0, max+1)
	for i, n := range names {
		if i == max {
			quoted = append(quoted, fmt.Sprintf("and %d more", len(names)-max))
			break
		}
		quoted = append(quoted, "`"+n+"`")
	}
	return strings.Join(quoted, ", ")
}

// declPos is the position of a declaration's name.
func declPos(n syntax.Node) syntax.Pos {
	switch d := n.(type) {
	case *syntax.FnDecl:
		return d.NamePos
	case *syntax.ToolDecl:
		return d.NamePos
	case *syntax.PipelineDecl:
		return d.NamePos
	case *syntax.LetStmt:
		return d.Pattern.Position()
	}
	return n.Position()
}

// ---- embedded std modules, prepared once per process ----

func isStd(key string) bool { return vm.IsStdFile(key) }

// stdSource returns an embedded module's text (a variable for tests).
var stdSource = stdlib.StdModule

type stdUnit struct {
	src  []byte
	file *syntax.File
	info *resolve.Info
	prog *compiler.Program
	env  *types.Env
}

// stdUniverse is the resolver's universe for a std module in a build
// that leaves out some of the builtins it calls (Options.StdPredeclared).
type stdUniverse struct {
	resolve.Universe
	extra func(string) bool
}

func (u stdUniverse) IsPredeclared(name string) bool {
	return u.Universe.IsPredeclared(name) || u.extra(name)
}

var stdCache struct {
	sync.Mutex
	units map[string]*stdUnit
}

func stdCachedSyntax(key string) *stdUnit {
	stdCache.Lock()
	defer stdCache.Unlock()
	return stdCache.units[key]
}

func stdCached(m *Module) *stdUnit {
	if !isStd(m.Path) {
		return nil
	}
	u := stdCachedSyntax(m.Path)
	if u == nil || u.file != m.Syntax {
		return nil
	}
	return u
}

func stdStore(m *Module) {
	stdCache.Lock()
	defer stdCache.Unlock()
	if stdCache.units == nil {
		stdCache.units = map[string]*stdUnit{}
	}
	if _, ok := stdCache.units[m.Path]; !ok {
		src, _ := stdSource(strings.TrimPrefix(m.Path, "std/"))
		stdCache.units[m.Path] = &stdUnit{src: src, file: m.Syntax, info: m.Info, prog: m.Program, env: m.env}
	}
}

package interp

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"sync"

	"github.com/harnlang/harn/lang/check"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// Interactive evaluates REPL entries in one persistent top-level
// environment: the bindings, functions and imports an entry makes are
// globals of one vm.Module that every later entry is compiled against
// (resolve.Options.PriorGlobals keeps their slots), so a function defined
// in one entry sees assignments made in the next. What the earlier
// entries' imports make visible — the names they bind, their enums and
// types, the signatures of their functions — stays visible too, as in one
// script. For type checking, an entry is put behind the earlier imports
// and the latest declaration of each earlier global (check.Options.Prior),
// so those keep their types.
type Interactive struct {
	s       *Session
	dir     string     // relative imports of typed entries resolve here
	mod     *vm.Module // the shared globals
	globals []string   // global names in slot order
	structs []*syntax.StructDecl
	decls   []syntax.Stmt // latest declaration of each name, to check later entries after
	// imports are the earlier entries' imports that still bind a name,
	// each listing only the names no later entry bound again
	imports []*Import
	n       int // entries evaluated

	mu      sync.Mutex
	current *vm.Thread // the thread running an entry, for Interrupt
	last    *vm.Thread // the thread of the previous entry (see eval)
}

// ShowBuiltin is the hidden builtin a REPL entry's expression statements
// are wrapped in: it prints each non-nil value the way println does.
const ShowBuiltin = "__repl_show"

// NewInteractive prepares the session for REPL entries; dir is the
// directory relative imports resolve against.
func (s *Session) NewInteractive(dir string) *Interactive {
	in := &Interactive{s: s, dir: dir}
	s.repl = in
	// A wait nothing can end fails with the deadlock error instead of
	// hanging the prompt. Between entries the last entry's thread counts
	// as one that may still act (it stands for the person typing), so
	// tasks waiting for a later entry are not reported.
	s.VM.DetectDeadlocks()
	s.Universe.AddBuiltin(vm.NewBuiltin(ShowBuiltin, ShowBuiltin+"(v)", "REPL: print a value", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() > 0 && !a.At(0).IsNil() {
			io.WriteString(th.VM().Stdout, vm.ToDisplay(a.At(0))+"\n")
		}
		return vm.Nil, nil
	}))
	return in
}

// Session returns the underlying session.
func (in *Interactive) Session() *Session { return in.s }

// Eval compiles and runs one entry typed at the prompt. The value of each
// top-level expression statement is printed (nil is not). Static errors
// change nothing; a run-time error keeps what ran before it.
func (in *Interactive) Eval(src string) error {
	in.n++
	name := fmt.Sprintf("<repl:%d>", in.n)
	return in.eval(name, in.dir, []byte(src), true)
}

// EvalFile runs a file in the session (`:load`): its bindings, functions
// and imports become part of the environment; its imports resolve against
// its own directory.
func (in *Interactive) EvalFile(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot read %s: %s", path, stdlib.OSErrorText(err))
	}
	return in.eval(path, absDir(path), src, false)
}

func (in *Interactive) eval(name, dir string, src []byte, show bool) error {
	s := in.s
	s.Sources[name] = src
	f, err := syntax.Parse(name, src)
	if err != nil {
		return err
	}
	if show {
		wrapExprStmts(f)
	}
	m := &Module{Path: name, Name: name, Syntax: f, dir: dir, interactive: true}
	if err := s.buildEntry(m, unitEntry); err != nil {
		return err
	}
	th := s.VM.NewThread()
	th.Lock()
	if in.last != nil {
		s.VM.Forget(in.last)
	}
	in.last = th
	if in.mod == nil {
		in.mod = s.VM.NewModule(m.Program)
	} else {
		in.mod.Extend(m.Program)
	}
	th.Unlock()
	m.VM = in.mod
	in.globals = in.globals[:0]
	for _, g := range m.Program.Globals {
		in.globals = append(in.globals, g.Name)
	}
	in.remember(f, m.Imports)

	if err := s.link(m); err != nil {
		return err
	}
	in.mu.Lock()
	in.current = th
	in.mu.Unlock()
	s.VM.SetForeground(th)
	defer func() {
		s.VM.SetForeground(nil)
		in.mu.Lock()
		in.current = nil
		in.mu.Unlock()
	}()
	_, err = th.RunModule(m.VM)
	return err
}

// Interrupt stops the entry now running, if any (Ctrl-C), and reports
// whether there was one.
func (in *Interactive) Interrupt() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.current == nil {
		return false
	}
	in.current.Cancel()
	return true
}

// wrapExprStmts makes every top-level expression statement print its value.
func wrapExprStmts(f *syntax.File) {
	for _, it := range f.Items {
		if es, ok := it.(*syntax.ExprStmt); ok {
			pos := es.X.Position()
			es.X = &syntax.CallExpr{At: pos, Fn: &syntax.Ident{At: pos, Name: ShowBuiltin}, Args: []syntax.Expr{es.X}}
		}
	}
}

// remember records an entry's imports and declarations, for compiling
// and checking later entries and TypeOf. The imports are bound before the
// entry's code runs, so its declarations replace what it imports.
func (in *Interactive) remember(f *syntax.File, imports []*Import) {
	rebound := importBinds(imports)
	in.decls = without(in.decls, rebound)
	in.imports = append(pruneImports(in.imports, rebound), imports...)
	for _, it := range f.Items {
		if _, ok := it.(*syntax.ImportDecl); ok {
			continue
		}
		names := boundNames(it)
		if len(names) == 0 {
			continue
		}
		if d, ok := it.(*syntax.StructDecl); ok {
			in.structs = append(in.structs, d)
		}
		in.decls = append(without(in.decls, names), it)
		in.imports = pruneImports(in.imports, names)
	}
}

// importBinds lists the names imports bind at run time: a namespace
// import's namespace, else the imported names.
func importBinds(imports []*Import) map[string]bool {
	names := map[string]bool{}
	for _, imp := range imports {
		if ns := imp.Decl.Namespace; ns != nil {
			names[ns.Name] = true
			continue
		}
		for _, n := range imp.Names {
			names[n] = true
		}
	}
	return names
}

// pruneImports returns, in a new slice, the imports less the names in
// names: an import left binding nothing is dropped.
func pruneImports(imports []*Import, names map[string]bool) []*Import {
	var kept []*Import
	for _, imp := range imports {
		if ns := imp.Decl.Namespace; ns != nil && names[ns.Name] {
			continue
		}
		var left []string
		for _, n := range imp.Names {
			if !names[n] {
				left = append(left, n)
			}
		}
		switch {
		case len(left) == len(imp.Names):
			kept = append(kept, imp)
		case len(left) > 0 || imp.Decl.Namespace != nil:
			kept = append(kept, &Import{Decl: imp.Decl, Module: imp.Module, Names: left})
		}
	}
	return kept
}

// declaration is an import declaration that binds what imp still binds,
// for checking a later entry behind it.
func (imp *Import) declaration() *syntax.ImportDecl {
	d := *imp.Decl
	if d.Names != nil {
		d.Names = nil
		for _, id := range imp.Decl.Names {
			if slices.Contains(imp.Names, id.Name) {
				d.Names = append(d.Names, id)
			}
		}
	}
	return &d
}

// enums lists the enums the earlier entries declared that are still
// in effect.
func (in *Interactive) enums() []*syntax.EnumDecl {
	var out []*syntax.EnumDecl
	for _, d := range in.decls {
		if e, ok := d.(*syntax.EnumDecl); ok {
			out = append(out, e)
		}
	}
	return out
}

// options returns the resolver options and the type environment of an
// entry whose own imports are own: the globals, enums, structs and
// imports of the earlier entries come first, as in one script.
func (in *Interactive) options(own []*Import) (resolve.Options, *types.Env) {
	opts, env := importOptions(in.visible(own))
	opts.PriorGlobals = in.globals
	opts.PriorEnums = in.enums()
	opts.PriorStructs = in.structs
	return opts, env
}

// visible lists the imports an entry sees: the earlier entries', less
// the names its own imports bind again, then its own.
func (in *Interactive) visible(own []*Import) []*Import {
	return append(pruneImports(in.imports, importBinds(own)), own...)
}

// boundNames lists the top-level names an item binds, imported ones
// included.
func boundNames(it syntax.Stmt) map[string]bool {
	names := map[string]bool{}
	forTopLevelNames(it, func(name string, _ syntax.Node) { names[name] = true })
	if imp, ok := it.(*syntax.ImportDecl); ok {
		for _, id := range imp.Names {
			names[id.Name] = true
		}
		if imp.Namespace != nil {
			names[imp.Namespace.Name] = true
		}
	}
	return names
}

// without returns the declarations of decls that bind none of names (a
// new declaration of a name replaces the old one), in a new slice.
func without(decls []syntax.Stmt, names map[string]bool) []syntax.Stmt {
	var kept []syntax.Stmt
	for _, d := range decls {
		clash := false
		forTopLevelNames(d, func(name string, _ syntax.Node) { clash = clash || names[name] })
		if !clash {
			kept = append(kept, d)
		}
	}
	return kept
}

// check type-checks an entry's file f as if it followed the imports and
// declarations of the earlier entries (minus the names f binds again), so
// that their bindings and functions keep the types they were checked
// with (docs/repl.md: a static error changes nothing) and calls of
// functions they imported are checked. Only f's own diagnostics come
// back, and only the checker's: the resolution of f alone (compileUnit)
// reports name errors. opts are f's (Interactive.options); imports are
// f's own; each, when set, receives the type of every expression
// statement of f.
func (in *Interactive) check(f *syntax.File, opts resolve.Options, imports []*Import, each func(*syntax.ExprStmt, types.Type)) diag.List {
	names := importBinds(imports)
	for _, it := range f.Items {
		maps.Copy(names, boundNames(it))
	}
	var prior []syntax.Stmt
	earlier := pruneImports(in.imports, names)
	for _, imp := range earlier {
		prior = append(prior, imp.declaration())
	}
	prior = append(prior, without(in.decls, names)...)
	all := &syntax.File{Path: f.Path, Items: append(prior, f.Items...)}
	info := resolve.File(all, opts)
	// The entry is resolved again for compiling: give it back as written.
	defer info.RestoreSpelling()
	visible := append(earlier, imports...)
	_, env := importOptions(visible)
	return check.File(all, info, check.Options{
		Env:      env,
		Library:  library{in.s.Universe},
		Imports:  importedFuncs{&Module{Imports: visible}},
		ExprStmt: each,
		Prior:    len(prior),
	})
}

// Names lists the names bound in the environment (for completion), sorted.
func (in *Interactive) Names() []string {
	var out []string
	if in.mod != nil {
		for _, n := range in.globals {
			if _, ok := in.mod.Global(n); ok {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TypeOf returns the static type of an expression in the current
// environment, as the checker sees it; nothing runs.
func (in *Interactive) TypeOf(src string) (string, error) {
	in.s.Sources["<type>"] = []byte(src)
	x, err := syntax.ParseExpr(src)
	if err != nil {
		// located in <type>, as the checker's errors are, for the caret
		var de *diag.Error
		if errors.As(err, &de) && de.File == "" {
			located := *de
			located.File = "<type>"
			return "", &located
		}
		return "", err
	}
	stmt := &syntax.ExprStmt{X: x}
	f := &syntax.File{Path: "<type>", Items: []syntax.Stmt{stmt}}
	opts, _ := in.options(nil)
	opts.Universe = in.s.Universe
	// Undefined names in the expression are errors here.
	alone := resolve.File(f, opts)
	for _, w := range alone.Warnings {
		if w.Code == "HARN-NAM-001" {
			e := *w
			e.Severity = diag.SevError
			alone.Errors = append(alone.Errors, &e)
		}
	}
	if len(alone.Errors) > 0 {
		return "", alone.Errors
	}
	var t types.Type
	diags := in.check(f, opts, nil, func(s *syntax.ExprStmt, typ types.Type) {
		if s == stmt {
			t = typ
		}
	})
	for _, d := range diags {
		if d.Severity == diag.SevError {
			return "", d
		}
	}
	if t == nil {
		return "any", nil
	}
	return t.String(), nil
}

// Warnings returns the checker warnings produced since the last call.
func (in *Interactive) Warnings() diag.List {
	w := in.s.Warnings
	in.s.Warnings = nil
	return w
}

package resolve

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
)

// File resolves a parsed file.
func File(f *syntax.File, opts Options) *Info {
	r := &resolver{
		file: f,
		opts: opts,
		info: &Info{
			Refs:            map[*syntax.Ident]*Ref{},
			Funcs:           map[syntax.Node]*Function{},
			decls:           map[declKey]*Binding{},
			GlobalIndex:     map[string]int{},
			ConstRedeclared: map[syntax.Node]bool{},
			PipelineBodies:  map[*syntax.PipelineDecl][]syntax.Stmt{},
			InterpToString:  map[*syntax.InterpString]*Ref{},
			LocalNames:      map[*syntax.Ident][]string{},
		},
		enums:     map[string]bool{"Result": true},
		variants:  map[string][]string{"Ok": {"Result"}, "Err": {"Result"}},
		structs:   map[string]*syntax.StructDecl{},
		enumDecls: map[string]*syntax.EnumDecl{},
	}
	r.run()
	return r.info
}

type scope struct {
	names map[string]*Binding
	fns   map[string]bool // names hoisted as local fns in this scope
	// later holds the names a `let`/`var`/`const` of this block declares
	// further down (the first such declaration of each), and forward the
	// bindings a call above its declaration already refers to (forwardCall)
	later   map[string]syntax.Node
	forward map[string]*Binding
	impls   map[string]*syntax.ImplBlock // impl blocks of this scope, by struct name (impls.go)
}

type funcState struct {
	fn     *Function
	scopes []*scope
}

type resolver struct {
	file     *syntax.File
	opts     Options
	info     *Info
	stack    []*funcState
	enums    map[string]bool
	variants map[string][]string // variant name → the enums declaring it (bare patterns)
	structs  map[string]*syntax.StructDecl
	// enumDecls are the enums declared in the file (or earlier REPL
	// input), by name: the first declaration of each
	enumDecls map[string]*syntax.EnumDecl
	aliases   map[string]*syntax.TypeDecl // the file's type aliases (syntax.TypeAliases)
	// baseNames caches global and predeclared names for suggestions.
	baseNames []string
	impls     implSites
	// badExtends holds the pipelines whose `extends` was reported: a
	// chain is walked again for every pipeline extending into it.
	badExtends map[*syntax.PipelineDecl]bool
	// topLets holds, per name, the declaring nodes of the file's
	// top-level `let`/`var`/`const` statements in source order, and
	// topCur the binding the latest of them resolved so far made
	// (redeclare.go).
	topLets map[string][]syntax.Node
	topCur  map[string]*Binding
	// unknownCalls holds the calls of names nothing visible declares
	// (keepUnknownCalls).
	unknownCalls []unknownCall
}

// IsEnum reports whether name is an enum declared in the file (or Result).
func (in *Info) IsEnum(name string) bool { return in.enums[name] }

// EnumDecl returns the enum declaration named name in the file, or nil
// (an imported enum, or none).
func (in *Info) EnumDecl(name string) *syntax.EnumDecl { return in.enumDecls[name] }

// Struct returns the struct declaration named name anywhere in the file.
func (in *Info) Struct(name string) *syntax.StructDecl { return in.structs[name] }

func (r *resolver) cur() *funcState { return r.stack[len(r.stack)-1] }

func (r *resolver) errorf(pos syntax.Pos, format string, args ...any) {
	r.info.Errors = append(r.info.Errors, &diag.Error{
		File: r.file.Path, Line: pos.Line, Col: pos.Col,
		Msg: fmt.Sprintf(format, args...), Phase: diag.PhaseStatic,
	})
}

func (r *resolver) warnf(pos syntax.Pos, code, format string, args ...any) {
	r.info.Warnings = append(r.info.Warnings, &diag.Error{
		File: r.file.Path, Line: pos.Line, Col: pos.Col, Code: code,
		Msg: fmt.Sprintf(format, args...), Phase: diag.PhaseStatic, Severity: diag.SevWarning,
	})
}

func (r *resolver) run() {
	r.collectTypes(r.file.Items)
	r.info.Module = r.opts.Module
	r.info.enums = r.enums
	r.info.enumDecls = r.enumDecls
	r.info.structs = r.structs

	for _, it := range r.file.Items {
		if p, ok := it.(*syntax.PipelineDecl); ok {
			r.info.Pipeline = true
			if r.info.Entry == nil || p.Name == "default" {
				if r.info.Entry == nil || r.info.Entry.Name != "default" {
					r.info.Entry = p
				}
			}
		}
	}

	main := &Function{Node: r.file}
	r.info.Main = main
	r.info.Funcs[r.file] = main
	r.stack = []*funcState{{fn: main, scopes: []*scope{newScope()}}}

	imported := map[string]bool{}
	for _, name := range r.opts.ImportedNames {
		imported[name] = true
	}
	for _, name := range r.opts.PriorGlobals {
		kind := KLet
		if imported[name] {
			kind = KImport
		}
		r.priorGlobal(name, kind)
	}
	for _, d := range r.opts.PriorEnums {
		if r.enums[d.Name] {
			continue // declared again by the file
		}
		r.enums[d.Name] = true
		r.enumDecls[d.Name] = d
		for _, v := range d.Variants {
			r.variants[v.Name] = append(r.variants[v.Name], d.Name)
		}
	}
	for _, d := range r.opts.PriorStructs {
		if r.structs[d.Name] == nil {
			r.structs[d.Name] = d
		}
	}
	for _, name := range r.opts.ImportedNames {
		r.global(name, KImport, syntax.Pos{}, nil)
	}
	for _, name := range r.opts.ImportedEnums {
		r.enums[name] = true
	}
	for _, names := range r.opts.NamespaceEnums {
		for _, name := range names {
			r.enums[name] = true
		}
	}
	r.aliases = syntax.TypeAliases(r.file.Items)
	// Pass 1: every top-level declaration is a global, so functions may
	// refer to globals declared after them (late binding).
	for _, it := range r.file.Items {
		r.declareTopLevel(it)
	}
	// Pass 2: resolve bodies in source order.
	r.collectTopImpls()
	r.impls.allTop = r.opts.Module
	for _, it := range r.file.Items {
		r.topItem(it)
	}
	r.finish()
	r.finishImpls()
	r.keepUnknownCalls()
}

// unknownCall is a HARN-NAM-002 error and the name it is about.
type unknownCall struct {
	err  *diag.Error
	name string
}

// keepUnknownCalls withdraws the HARN-NAM-002 errors of names some scope
// of the file declares (docs/spec/language.md §9.2: the static error is
// for a name that is no function or variable of the file). Such a call
// is out of the declaration's scope, and fails when it runs, with
// `Undefined builtin: name`, unless its target exists by then.
func (r *resolver) keepUnknownCalls() {
	if len(r.unknownCalls) == 0 {
		return
	}
	declared := map[string]bool{}
	for _, fn := range r.info.Funcs {
		for _, b := range fn.Locals {
			if b.Kind != KHidden {
				declared[b.Name] = true
			}
		}
	}
	drop := map[*diag.Error]bool{}
	for _, c := range r.unknownCalls {
		if declared[c.name] {
			drop[c.err] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	kept := r.info.Errors[:0]
	for _, e := range r.info.Errors {
		if !drop[e] {
			kept = append(kept, e)
		}
	}
	r.info.Errors = kept
}

func newScope() *scope { return &scope{names: map[string]*Binding{}} }

// collectTypes records every enum and struct declared anywhere in the file.
func (r *resolver) collectTypes(stmts []syntax.Stmt) {
	for _, s := range stmts {
		switch d := s.(type) {
		case *syntax.EnumDecl:
			r.enums[d.Name] = true
			if r.enumDecls[d.Name] == nil {
				r.enumDecls[d.Name] = d
			}
			for _, v := range d.Variants {
				r.variants[v.Name] = append(r.variants[v.Name], d.Name)
			}
		case *syntax.StructDecl:
			if _, dup := r.structs[d.Name]; !dup {
				r.structs[d.Name] = d
			}
		default:
			for _, inner := range syntax.NestedStmts(s) {
				r.collectTypes(inner)
			}
		}
	}
}

// global declares (or re-declares) a module global.
func (r *resolver) global(name string, kind Kind, pos syntax.Pos, decl syntax.Node) *Binding {
	if i, ok := r.info.GlobalIndex[name]; ok {
		b := r.info.Globals[i]
		if kind != KImport {
			b.Kind, b.Pos, b.Decl = kind, pos, decl
		}
		if decl != nil {
			r.info.decls[declKey{decl, name}] = b
		}
		return b
	}
	b := &Binding{Name: name, Kind: kind, Pos: pos, Decl: decl, Scope: Global, Index: len(r.info.Globals), FirstPos: pos}
	r.info.GlobalIndex[name] = b.Index
	r.info.Globals = append(r.info.Globals, b)
	if decl != nil {
		r.info.decls[declKey{decl, name}] = b
	}
	return b
}

func (r *resolver) declareTopLevel(it syntax.Stmt) {
	switch d := it.(type) {
	case *syntax.LetStmt:
		kind := letKind(d.Kind)
		syntax.PatternNames(d.Pattern, func(name string, node syntax.Node) {
			r.global(name, kind, node.Position(), node)
			r.noteTopLet(name, node)
		})
	case *syntax.FnDecl:
		r.global(d.Name, KFn, d.NamePos, d)
	case *syntax.StructDecl:
		r.global(d.Name, KStruct, d.At, d)
	case *syntax.ToolDecl:
		r.global(d.Name, KTool, d.NamePos, d)
	case *syntax.SkillDecl:
		r.global(d.Name, KSkill, d.At, d)
	case *syntax.PipelineDecl:
		r.global(d.Name, KPipeline, d.NamePos, d)
	case *syntax.ImportDecl:
		for _, n := range d.Names {
			r.global(n.Name, KImport, n.At, d)
		}
		if n := d.Namespace; n != nil {
			r.global(n.Name, KImport, n.At, d)
		}
	}
}

func letKind(k syntax.BindingKind) Kind {
	switch k {
	case syntax.BindVar:
		return KVar
	case syntax.BindConst:
		return KConst
	}
	return KLet
}

// ---- scopes ----

func (r *resolver) push() { fs := r.cur(); fs.scopes = append(fs.scopes, newScope()) }
func (r *resolver) pop()  { fs := r.cur(); fs.scopes = fs.scopes[:len(fs.scopes)-1] }

// atTopLevel reports whether declarations here are module globals.
func (r *resolver) atTopLevel() bool {
	return len(r.stack) == 1 && len(r.cur().scopes) == 1
}

// declare introduces a local (or, at top level, updates the global).
func (r *resolver) declare(name string, kind Kind, pos syntax.Pos, node syntax.Node) *Binding {
	if r.atTopLevel() {
		b := r.global(name, kind, pos, node)
		r.info.decls[declKey{node, name}] = b
		return b
	}
	fs := r.cur()
	sc := fs.scopes[len(fs.scopes)-1]
	if kind == KFn && sc.fns[name] {
		if b := sc.names[name]; b != nil && b.Hoisted {
			b.Pos, b.Decl = pos, node
			r.info.decls[declKey{node, name}] = b
			return b
		}
	}
	if b := sc.forward[name]; b != nil && b.Decl == node {
		// a call above this declaration already refers to the binding
		delete(sc.forward, name)
		b.Kind, b.Pos = kind, pos
		sc.names[name] = b
		r.info.decls[declKey{node, name}] = b
		return b
	}
	if sc.later[name] == node {
		delete(sc.later, name)
	}
	b := &Binding{Name: name, Kind: kind, Pos: pos, Decl: node, Scope: Local, Index: len(fs.fn.Locals), Func: fs.fn}
	b.Shadows = r.outerLocal(name)
	fs.fn.Locals = append(fs.fn.Locals, b)
	sc.names[name] = b
	r.info.decls[declKey{node, name}] = b
	return b
}

// outerLocal is the local of an enclosing block or function that a new
// declaration of name in the current block hides, if any (for lint).
func (r *resolver) outerLocal(name string) *Binding {
	for depth := len(r.stack) - 1; depth >= 0; depth-- {
		fs := r.stack[depth]
		last := len(fs.scopes) - 1
		if depth == len(r.stack)-1 {
			last-- // the current block: a redeclaration, not shadowing
		}
		for i := last; i >= 0; i-- {
			if depth == 0 && i == 0 {
				continue // globals
			}
			if b := fs.scopes[i].names[name]; b != nil {
				return b
			}
		}
	}
	return nil
}

// hoistFns pre-declares the local fn declarations of a block so that
// functions declared in one block may call each other in any order.
func (r *resolver) hoistFns(stmts []syntax.Stmt) {
	if r.atTopLevel() {
		return
	}
	fs := r.cur()
	sc := fs.scopes[len(fs.scopes)-1]
	for _, s := range stmts {
		if l, ok := s.(*syntax.LetStmt); ok {
			if p, ok := l.Pattern.(*syntax.IdentPattern); ok && p.Name != "_" {
				if sc.later == nil {
					sc.later = map[string]syntax.Node{}
				}
				if _, dup := sc.later[p.Name]; !dup {
					sc.later[p.Name] = p
				}
			}
		}
		if d, ok := s.(*syntax.FnDecl); ok {
			if sc.fns == nil {
				sc.fns = map[string]bool{}
			}
			if sc.fns[d.Name] {
				continue
			}
			sc.fns[d.Name] = true
			b := &Binding{Name: d.Name, Kind: KFn, Pos: d.NamePos, Decl: d, Scope: Local, Index: len(fs.fn.Locals), Func: fs.fn, Hoisted: true}
			fs.fn.Locals = append(fs.fn.Locals, b)
			sc.names[d.Name] = b
		}
	}
}

// lookup resolves name from the current position.
func (r *resolver) lookup(name string) *Ref {
	for depth := len(r.stack) - 1; depth >= 0; depth-- {
		fs := r.stack[depth]
		for i := len(fs.scopes) - 1; i >= 0; i-- {
			// The top-level scope of the main chunk holds globals, not locals.
			if depth == 0 && i == 0 {
				continue
			}
			if b := fs.scopes[i].names[name]; b != nil {
				if depth == len(r.stack)-1 {
					return &Ref{Binding: b, Scope: Local, Index: b.Index, Name: name}
				}
				b.Captured = true
				idx := r.addFree(r.cur().fn, b)
				return &Ref{Binding: b, Scope: Free, Index: idx, Name: name}
			}
		}
	}
	if i, ok := r.info.GlobalIndex[name]; ok {
		b := r.currentGlobal(name, r.info.Globals[i])
		i = b.Index
		if r.hiddenGlobal(b) {
			// The function cannot see the variable: the name goes on to
			// the builtins (docs/spec/language.md §3.2).
			if r.opts.Universe != nil && r.opts.Universe.IsPredeclared(name) {
				return &Ref{Scope: Universal, Name: name}
			}
			return &Ref{Binding: b, Scope: Hidden, Index: i, Name: name}
		}
		return &Ref{Binding: b, Scope: Global, Index: i, Name: name}
	}
	if r.opts.Universe != nil && r.opts.Universe.IsPredeclared(name) {
		return &Ref{Scope: Universal, Name: name}
	}
	if r.opts.OpaqueImports {
		return &Ref{Scope: Import, Name: name}
	}
	return &Ref{Scope: Undefined, Name: name}
}

// hiddenGlobal implements the script-mode rule that a function does not
// see a top-level variable declared after it (docs/spec/language.md §3.4): the
// reference sits in a function that starts before the variable's first
// declaration.
func (r *resolver) hiddenGlobal(b *Binding) bool {
	if r.info.Pipeline || len(r.stack) < 2 || !b.FirstPos.IsValid() {
		return false
	}
	switch b.Kind {
	case KLet, KVar, KConst:
	default:
		return false
	}
	start := r.stack[1].fn.Node.Position()
	return start.Line < b.FirstPos.Line || start.Line == b.FirstPos.Line && start.Col < b.FirstPos.Col
}

// addFree makes b an upvalue of fn (and of every function between fn and
// b's owner) and returns its upvalue index in fn.
func (r *resolver) addFree(fn *Function, b *Binding) int {
	if fn.freeIdx == nil {
		fn.freeIdx = map[*Binding]int{}
	}
	if i, ok := fn.freeIdx[b]; ok {
		return i
	}
	if fn.Parent != nil && fn.Parent != b.Func {
		r.addFree(fn.Parent, b)
	}
	i := len(fn.FreeVars)
	fn.freeIdx[b] = i
	fn.FreeVars = append(fn.FreeVars, b)
	return i
}

// FreeIndex returns the upvalue index of b in fn's parent chain source:
// used by the compiler when building a closure of fn inside fn.Parent.
func (fn *Function) FreeIndex(b *Binding) (int, bool) {
	i, ok := fn.freeIdx[b]
	return i, ok
}

// ---- references ----

// record resolves an identifier occurrence and marks its binding used.
func (r *resolver) record(id *syntax.Ident) *Ref {
	ref := r.lookup(id.Name)
	r.info.Refs[id] = ref
	if ref.Binding != nil {
		ref.Binding.Used = true
		if mayBeUnbound(ref.Binding) {
			// reading it before it holds a value is "Undefined variable"
			// with the did-you-mean over the names visible here (§3.2)
			if locals := r.localNames(); len(locals) > 1 {
				r.info.LocalNames[id] = locals
			}
		}
	}
	return ref
}

// mayBeUnbound reports whether a local may be read before it holds a
// value: a local fn above its declaration, a local variable a call
// above its declaration refers to, an entry pipeline's parameter.
func mayBeUnbound(b *Binding) bool {
	if b.Hoisted || b.Forward {
		return true
	}
	if b.Kind != KParam || b.Func == nil {
		return false
	}
	_, pipe := b.Func.Node.(*syntax.PipelineDecl)
	return pipe
}

func (r *resolver) use(id *syntax.Ident) { r.useSuggesting(id, nil) }

// memberHead resolves the head of `X.Y` or `X.m(...)`. An undefined
// capitalised head is most likely a misspelt enum or struct (`Colr.Red`),
// so its "did you mean" offers a declared type before any value.
func (r *resolver) memberHead(x syntax.Expr) {
	id, ok := x.(*syntax.Ident)
	if !ok || !startsUpper(id.Name) {
		r.expr(x)
		return
	}
	r.useSuggesting(id, r.typeNames())
}

// typeNames lists the enums and structs known to the file, sorted.
func (r *resolver) typeNames() []string {
	var names []string
	for n := range r.enums {
		names = append(names, n)
	}
	for n := range r.structs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// foreignLiterals are other languages' spellings of nil, true and false,
// read as undefined variables in Harn (docs/spec/language.md §1.4, §3.2).
var foreignLiterals = map[string]string{
	"null":      "Harn writes the missing value as `nil`",
	"NULL":      "Harn writes the missing value as `nil`",
	"None":      "Harn writes the missing value as `nil`",
	"none":      "Harn writes the missing value as `nil`",
	"undefined": "Harn writes the missing value as `nil`",
	"nullptr":   "Harn writes the missing value as `nil`",
	"Nil":       "Harn writes the missing value as `nil`",
	"True":      "Harn's booleans are `true` and `false`",
	"False":     "Harn's booleans are `true` and `false`",
	"TRUE":      "Harn's booleans are `true` and `false`",
	"FALSE":     "Harn's booleans are `true` and `false`",
}

func startsUpper(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

// useSuggesting resolves a read of id; when it is undefined the warning's
// "did you mean" tries the preferred names first, then every visible one.
func (r *resolver) useSuggesting(id *syntax.Ident, preferred []string) {
	ref := r.record(id)
	if ref.Scope == Hidden {
		// reading it fails when it runs, with the "did you mean" of an
		// undefined name over the names the reader sees
		if locals := r.localNames(); len(locals) > 0 {
			r.info.LocalNames[id] = locals
		}
	}
	if ref.Scope == Undefined {
		// Reading an undefined name is a run-time error (docs/spec/language.md §3.2)
		// that a script may catch; report it now as a warning too.
		msg := "undefined variable `" + id.Name + "`"
		help, foreign := foreignLiterals[id.Name]
		s := ""
		if !foreign {
			// another language's literal is explained by the help
			// instead of a look-alike name (`None` is not `clone`)
			if s = diag.Suggest(id.Name, preferred); s == "" {
				s = diag.Suggest(id.Name, r.visibleNames(false))
			}
		}
		if s != "" {
			msg += " (did you mean `" + s + "`?)"
		}
		r.warnf(id.At, "HARN-NAM-001", "%s", msg)
		if foreign {
			r.info.Warnings[len(r.info.Warnings)-1].Help = help
		}
		if locals := r.localNames(); len(locals) > 0 {
			r.info.LocalNames[id] = locals
		}
	}
}

// forwardCall resolves a call of name to a local `let`/`var`/`const` of an
// enclosing block that is declared further down. Function names are
// late-bound (docs/spec/language.md §3.4): a closure made before the
// declaration calls the variable's closure once it holds one, else the
// builtin of that name, as a function calls a top-level variable declared
// after it. The binding lives in a cell made when its block starts, so the
// calling closure shares it (a Forward binding).
func (r *resolver) forwardCall(name string) *Ref {
	for depth := len(r.stack) - 1; depth >= 0; depth-- {
		fs := r.stack[depth]
		for i := len(fs.scopes) - 1; i >= 0; i-- {
			if depth == 0 && i == 0 {
				return nil
			}
			sc := fs.scopes[i]
			b := sc.forward[name]
			if b == nil {
				node, ok := sc.later[name]
				if !ok {
					continue
				}
				b = &Binding{Name: name, Kind: KLet, Pos: node.Position(), Decl: node, Scope: Local,
					Index: len(fs.fn.Locals), Func: fs.fn, Captured: true, Forward: true}
				fs.fn.Locals = append(fs.fn.Locals, b)
				if sc.forward == nil {
					sc.forward = map[string]*Binding{}
				}
				sc.forward[name] = b
				delete(sc.later, name)
			}
			if depth == len(r.stack)-1 {
				return &Ref{Binding: b, Scope: Local, Index: b.Index, Name: name}
			}
			return &Ref{Binding: b, Scope: Free, Index: r.addFree(r.cur().fn, b), Name: name}
		}
	}
	return nil
}

// localPipeName turns the target of `x |> "name"` into the identifier
// name when name is a function declared in a local scope: piping into a
// string calls the function of that name (docs/spec/language.md §2.8),
// which the run time looks for among the module's globals and the
// builtins, where a local function is not.
func (r *resolver) localPipeName(f syntax.Expr) syntax.Expr {
	s, ok := f.(*syntax.StringLit)
	if !ok {
		return f
	}
	for depth := len(r.stack) - 1; depth >= 0; depth-- {
		scopes := r.stack[depth].scopes
		for i := len(scopes) - 1; i >= 0; i-- {
			if depth == 0 && i == 0 {
				return f
			}
			if b := scopes[i].names[s.Value]; b != nil {
				if b.Kind != KFn {
					return f
				}
				return &syntax.Ident{At: s.At, Name: s.Value}
			}
		}
	}
	return f
}

// pipeFns records, for `x |> v` with v a variable, the local functions
// declared above the pipe (innermost first for each name), which a string
// in v may name.
func (r *resolver) pipeFns(e *syntax.PipeExpr) {
	id, ok := e.F.(*syntax.Ident)
	if !ok {
		return
	}
	if ref := r.info.Refs[id]; ref == nil || ref.Binding == nil || ref.Binding.Kind == KFn {
		return
	}
	seen := map[string]bool{}
	var refs []*Ref
	for depth := len(r.stack) - 1; depth >= 0; depth-- {
		scopes := r.stack[depth].scopes
		for i := len(scopes) - 1; i >= 0; i-- {
			if depth == 0 && i == 0 {
				continue
			}
			for name, b := range scopes[i].names {
				if seen[name] {
					continue
				}
				seen[name] = true
				if b.Kind == KFn && b.Pos.Before(e.At) {
					refs = append(refs, r.lookup(name))
				}
			}
		}
	}
	if len(refs) == 0 {
		return
	}
	slices.SortFunc(refs, func(a, b *Ref) int { return strings.Compare(a.Name, b.Name) })
	if r.info.PipeFns == nil {
		r.info.PipeFns = map[*syntax.PipeExpr][]*Ref{}
	}
	r.info.PipeFns[e] = refs
}

// localNames lists the local variables visible from the current position,
// in every enclosing function (the top-level scope of the main chunk holds
// globals, which the run time lists itself once they are bound).
func (r *resolver) localNames() []string {
	var names []string
	for depth, fs := range r.stack {
		for i, sc := range fs.scopes {
			if depth == 0 && i == 0 {
				continue
			}
			for n := range sc.names {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// interpToString records the binding an interpolated string's holes are
// converted by when the name to_string is bound in the program (a
// function, closure or import of that name; docs/spec/language.md §1.7).
// A script that binds no to_string leaves the builtin to INTERP.
func (r *resolver) interpToString(e *syntax.InterpString) {
	ref := r.lookup("to_string")
	switch ref.Scope {
	case Local, Free, Global:
		ref.Binding.Used = true
		r.info.InterpToString[e] = ref
	}
}

// useCall resolves the callee of a call; unknown callees are the static
// error of docs/spec/language.md §9.2.
func (r *resolver) useCall(id *syntax.Ident) {
	ref := r.record(id)
	if ref.Scope == Universal {
		// Function names are late-bound (docs/spec/language.md §3.4): a
		// call of a top-level variable the function cannot see yet finds
		// the variable's closure once it holds one, else the builtin.
		if i, ok := r.info.GlobalIndex[id.Name]; ok && r.hiddenGlobal(r.info.Globals[i]) {
			b := r.info.Globals[i]
			b.Used = true
			r.info.Refs[id] = &Ref{Binding: b, Scope: Hidden, Index: i, Name: id.Name}
		}
	}
	if b := ref.Binding; b != nil && b.Kind == KTool && !r.isBuiltin(id.Name) {
		// docs/spec/language.md §9.3: a `tool` declaration binds a registry
		r.info.Errors = append(r.info.Errors, &diag.Error{
			File: r.file.Path, Line: id.At.Line, Col: id.At.Col, Phase: diag.PhaseStatic,
			Msg:  "`" + id.Name + "` is a tool declaration, which binds a tool registry, not a function",
			Help: "call its handler: `tool_find(" + id.Name + ", \"" + id.Name + "\").handler({…})`",
		})
	}
	if ref.Scope == Undefined || ref.Scope == Universal {
		if fwd := r.forwardCall(id.Name); fwd != nil {
			fwd.Binding.Used = true
			r.info.Refs[id] = fwd
			return
		}
	}
	if ref.Scope == Undefined {
		if strings.HasPrefix(id.Name, "__") || strings.HasPrefix(id.Name, "hostlib_") {
			return // host bridges, bound by the embedding (docs/spec/newer.md §3.4)
		}
		msg := "call target `" + id.Name + "` is not defined or imported"
		help := ""
		if enums := r.opts.ImportedVariants[id.Name]; len(enums) > 0 {
			// variants of imported enums are always written qualified
			// (docs/spec/newer.md §1.12)
			help = "`" + id.Name + "` is a variant of the imported enum `" + enums[0] + "`: write `" + enums[0] + "." + id.Name + "`"
		} else if s := suggestCall(id.Name, r.visibleNames(true)); s != "" {
			msg += " — did you mean `" + s + "`?"
			help = "did you mean `" + s + "`?"
		}
		err := &diag.Error{
			File: r.file.Path, Line: id.At.Line, Col: id.At.Col, Code: "HARN-NAM-002",
			Msg: msg, Help: help, Phase: diag.PhaseStatic,
		}
		r.info.Errors = append(r.info.Errors, err)
		r.unknownCalls = append(r.unknownCalls, unknownCall{err, id.Name})
	}
}

// isBuiltin reports whether name is predeclared: a call of a non-callable
// global of that name falls back to it at run time.
func (r *resolver) isBuiltin(name string) bool {
	return r.opts.Universe != nil && r.opts.Universe.IsPredeclared(name)
}

// renamedCalls maps names other languages (and older Harn) give some
// builtins to the names Harn uses.
var renamedCalls = map[string]string{
	"json_encode": "json_stringify", "json_decode": "json_parse", "to_json": "json_stringify",
	"from_json": "json_parse", "print_line": "println", "str": "to_string", "int": "to_int",
	"float": "to_float", "length": "len", "size": "len",
}

// suggestCall finds the name a misspelt call target probably meant: the
// Harn name of a renamed builtin (`str` → `to_string`, before a close
// spelling such as `Err`), a close spelling, the same words in another
// order (`parse_json` → `json_parse`), or the Harn name of a close
// spelling of a renamed one (`lenght` → `len`).
func suggestCall(name string, names []string) string {
	if to, ok := renamedCalls[name]; ok && slices.Contains(names, to) {
		return to
	}
	if s := diag.Suggest(name, names); s != "" {
		return s
	}
	if k := diag.Suggest(name, slices.Collect(maps.Keys(renamedCalls))); k != "" && slices.Contains(names, renamedCalls[k]) {
		return renamedCalls[k]
	}
	words := strings.Split(name, "_")
	if len(words) < 2 {
		return ""
	}
	slices.Sort(words)
	best := ""
	for _, n := range names {
		w := strings.Split(n, "_")
		if len(w) != len(words) || n == name {
			continue
		}
		slices.Sort(w)
		if slices.Equal(w, words) && (best == "" || n < best) {
			best = n
		}
	}
	return best
}

// valueGlobals is the part of a Universe that names its host globals,
// values rather than callables.
type valueGlobals interface{ GlobalNames() []string }

// visibleNames lists the names visible from the current position that a
// "did you mean" may offer at a read (call false) or a call site: reserved
// words are left out (syntax.SuggestableName), and so, at a call site, are
// the host's value globals (`e`, `pi`, `argv`, `harness`), which are never
// callable.
func (r *resolver) visibleNames(call bool) []string {
	if r.baseNames == nil {
		// Globals are all declared before bodies are resolved, so the
		// global and predeclared part is computed once per file.
		for _, b := range r.info.Globals {
			r.baseNames = append(r.baseNames, b.Name)
		}
		if r.opts.Universe != nil {
			r.baseNames = append(r.baseNames, r.opts.Universe.PredeclaredNames()...)
		}
	}
	values := map[string]bool{}
	if g, ok := r.opts.Universe.(valueGlobals); ok && call {
		for _, n := range g.GlobalNames() {
			values[n] = true
		}
	}
	var names []string
	for _, n := range r.baseNames {
		if syntax.SuggestableName(n, call) && !values[n] {
			names = append(names, n)
		}
	}
	for _, fs := range r.stack {
		for _, sc := range fs.scopes {
			for n := range sc.names {
				names = append(names, n)
			}
		}
	}
	return names
}

// ---- functions ----

func (r *resolver) enterFunc(node syntax.Node) *Function {
	fn := &Function{Node: node, Parent: r.cur().fn}
	if d, ok := node.(*syntax.FnDecl); ok && d.Gen {
		// a `gen fn` makes a stream even when its body has no `emit`
		// (docs/spec/newer.md §3.11): calling it gives an empty <stream>, not nil
		fn.HasEmit = true
	}
	r.info.Funcs[node] = fn
	r.stack = append(r.stack, &funcState{fn: fn, scopes: []*scope{newScope()}})
	return fn
}

func (r *resolver) leaveFunc() { r.stack = r.stack[:len(r.stack)-1] }

func (r *resolver) params(ps []*syntax.Param) {
	for _, p := range ps {
		r.declare(p.Name, KParam, p.At, p)
	}
	// Defaults run in the callee and may use earlier parameters; resolving
	// them after all params are declared is close enough and keeps the
	// frame layout simple.
	for _, p := range ps {
		if p.Default != nil {
			r.expr(p.Default)
		}
	}
}

func (r *resolver) funcBody(node syntax.Node, ps []*syntax.Param, body *syntax.Block) {
	r.enterFunc(node)
	r.params(ps)
	if body != nil {
		r.hoistFns(body.Stmts)
		r.stmts(body.Stmts)
	}
	r.leaveFunc()
}

// ---- top level ----

func (r *resolver) topItem(it syntax.Stmt) {
	switch d := it.(type) {
	case *syntax.ImportDecl:
		for _, n := range d.Names {
			r.info.decls[declKey{d, n.Name}] = r.info.Globals[r.info.GlobalIndex[n.Name]]
		}
		if n := d.Namespace; n != nil {
			r.info.decls[declKey{d, n.Name}] = r.info.Globals[r.info.GlobalIndex[n.Name]]
		}
	case *syntax.PipelineDecl:
		body := r.pipelineBody(d, map[string]bool{})
		r.info.PipelineBodies[d] = body
		r.enterFunc(d)
		r.params(d.Params)
		r.hoistFns(body)
		all := r.impls.allTop
		r.impls.allTop = true
		r.stmts(body)
		r.impls.allTop = all
		r.leaveFunc()
	default:
		r.stmt(it)
	}
}

// pipelineBody is a pipeline's body with the bodies of the pipelines it
// extends in front (parents first, each a fresh copy).
func (r *resolver) pipelineBody(d *syntax.PipelineDecl, seen map[string]bool) []syntax.Stmt {
	if d.Extends == "" {
		return d.Body.Stmts
	}
	if seen[d.Name] {
		r.extendsErrorf(d, "pipeline `%s` extends itself through `%s`", d.Name, d.Extends)
		return d.Body.Stmts
	}
	seen[d.Name] = true
	for _, o := range r.file.Items {
		if p, ok := o.(*syntax.PipelineDecl); ok && p.Name == d.Extends {
			parent := cloneStmts(r.pipelineBody(p, seen))
			return append(parent, d.Body.Stmts...)
		}
	}
	if n, ok := r.opts.ImportedPipelines[d.Extends]; ok {
		// An imported parent's body belongs to its module (its private
		// helpers, its module state), so it cannot be spliced in: the
		// child calls it first, as a pipeline is called like a function,
		// with nil for its parameters (docs/language.md "Pipelines").
		call := &syntax.CallExpr{At: d.At, Fn: &syntax.Ident{At: d.At, Name: d.Extends}}
		for range n {
			call.Args = append(call.Args, &syntax.NilLit{At: d.At})
		}
		return append([]syntax.Stmt{&syntax.ExprStmt{X: call}}, d.Body.Stmts...)
	}
	r.extendsErrorf(d, "pipeline `%s` extends unknown pipeline `%s`", d.Name, d.Extends)
	return d.Body.Stmts
}

// extendsErrorf reports what is wrong with d's `extends`, once.
func (r *resolver) extendsErrorf(d *syntax.PipelineDecl, format string, args ...any) {
	if r.badExtends[d] {
		return
	}
	if r.badExtends == nil {
		r.badExtends = map[*syntax.PipelineDecl]bool{}
	}
	r.badExtends[d] = true
	r.errorf(d.At, format, args...)
}

// ---- statements ----

func (r *resolver) stmts(list []syntax.Stmt) {
	for _, s := range list {
		r.stmt(s)
	}
}

func (r *resolver) block(b *syntax.Block) {
	if b == nil {
		return
	}
	r.push()
	r.hoistFns(b.Stmts)
	r.stmts(b.Stmts)
	r.pop()
}

func (r *resolver) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.LetStmt:
		kind := letKind(s.Kind)
		if p, ok := s.Pattern.(*syntax.IdentPattern); ok && r.selfRecursiveLet(p.Name, s.Value) {
			// `let walk = { n -> … walk(child) … }` in a function: the closure
			// refers to the binding it initialises, which exists when it is
			// called (docs/spec/language.md §3.4: closures capture variables).
			b := r.declareChecked(p.Name, kind, p.Position(), p)
			b.EarlyCell = true
			r.expr(s.Value)
			break
		}
		r.expr(s.Value)
		r.declarePattern(s.Pattern, func(name string, node syntax.Node) {
			r.declareChecked(name, kind, node.Position(), node)
		})
	case *syntax.AssignStmt:
		r.expr(s.Value)
		r.assignTarget(s.Target, s.Op)
		if isSelfPush(s) {
			r.markPathRoot(s.Target)
		}
	case *syntax.ExprStmt:
		r.expr(s.X)
	case *syntax.FnDecl:
		r.declare(s.Name, KFn, s.NamePos, s)
		r.funcBody(s, s.Params, s.Body)
	case *syntax.ToolDecl:
		r.declare(s.Name, KTool, s.NamePos, s)
		r.funcBody(s, s.Params, s.Body)
	case *syntax.StructDecl:
		r.declare(s.Name, KStruct, s.At, s)
	case *syntax.EnumDecl, *syntax.TypeDecl, *syntax.InterfaceDecl:
		// types only
	case *syntax.ImplBlock:
		r.declareImpl(s)
		for _, m := range s.Methods {
			r.funcBody(m, m.Params, m.Body)
		}
	case *syntax.SkillDecl:
		for _, f := range s.Fields {
			r.expr(f.Value)
		}
		r.declare(s.Name, KSkill, s.At, s)
	case *syntax.EvalPackDecl:
		r.push()
		for _, it := range s.Items {
			if it.Value != nil {
				r.expr(it.Value)
			}
			if it.Summarize != nil {
				r.block(it.Summarize)
			}
			if it.Stmt != nil {
				r.stmt(it.Stmt)
			}
		}
		r.pop()
	case *syntax.OverrideDecl:
		// accepted and ignored at run time
	case *syntax.PipelineDecl:
		r.errorf(s.At, "pipeline declarations are only allowed at top level")
	case *syntax.ImportDecl:
		r.errorf(s.At, "import declarations are only allowed at top level")
	case *syntax.ForStmt:
		r.expr(s.Iter)
		r.push()
		r.declarePattern(s.Pattern, func(name string, node syntax.Node) {
			r.declare(name, KFor, node.Position(), node)
		})
		r.blockInline(s.Body)
		r.pop()
	case *syntax.WhileStmt:
		r.expr(s.Cond)
		r.block(s.Body)
	case *syntax.DeferStmt:
		r.block(s.Body)
	case *syntax.ReturnStmt:
		if s.Value != nil {
			r.expr(s.Value)
		}
	case *syntax.ThrowStmt:
		r.expr(s.Value)
	case *syntax.GuardStmt:
		r.expr(s.Cond)
		r.block(s.Else)
	case *syntax.RequireStmt:
		r.expr(s.Cond)
		if s.Message != nil {
			r.expr(s.Message)
		}
	case *syntax.MutexStmt:
		if s.Key != nil {
			r.expr(s.Key)
		}
		if s.Timeout != nil {
			r.expr(s.Timeout)
		}
		r.block(s.Body)
	case *syntax.ScopeStmt:
		r.block(s.Body)
	case *syntax.CostRouteStmt:
		for _, o := range s.Options {
			r.expr(o.Value)
		}
		r.block(s.Body)
	case *syntax.BreakStmt, *syntax.ContinueStmt:
		// checked by the compiler (a compile error, docs/spec/language.md §7.3)
	case *syntax.YieldStmt:
		if _, pipe := r.cur().fn.Node.(*syntax.PipelineDecl); pipe || r.cur().fn == r.info.Main {
			// the top level and a pipeline are no generators: without
			// this the whole file, or the entry pipeline, would compile to
			// one that never runs and the program would print nothing
			r.errorf(s.At, "`yield` can only be used inside a `fn`")
		}
		switch r.cur().fn.Node.(type) {
		case *syntax.SpawnExpr:
			// a task's body is no generator either: the task would
			// give a generator nobody reads instead of running it
			r.errorf(s.At, "`yield` cannot be used inside a `spawn` body: a task is not a generator")
		case *syntax.ParallelExpr:
			r.errorf(s.At, "`yield` cannot be used inside a `parallel` body: a task is not a generator")
		}
		r.cur().fn.HasYield = true
		if s.Value != nil {
			r.expr(s.Value)
		}
	case *syntax.EmitStmt:
		r.cur().fn.HasEmit = true
		r.expr(s.Value)
	default:
		panic(fmt.Sprintf("resolve: unexpected statement %T", s))
	}
}

// blockInline resolves a block's statements in the current scope.
func (r *resolver) blockInline(b *syntax.Block) {
	if b == nil {
		return
	}
	r.hoistFns(b.Stmts)
	r.stmts(b.Stmts)
}

// selfRecursiveLet reports whether a local `let name = <closure literal>`
// should declare name before its initializer: when no binding of the file
// has that name yet (an outer binding of the name still wins, so every
// program that resolved before keeps its meaning). A builtin's name does
// not count: the user's binding shadows the builtin in its closure as
// it does at top level, where the closure calls the global
// (docs/spec/language.md §3.2, §9.2: a visible closure binding first, then a
// builtin).
func (r *resolver) selfRecursiveLet(name string, value syntax.Expr) bool {
	if _, ok := value.(*syntax.ClosureLit); !ok || name == "_" || r.atTopLevel() {
		return false
	}
	for depth := len(r.stack) - 1; depth >= 0; depth-- {
		for i, sc := range r.stack[depth].scopes {
			if depth == 0 && i == 0 {
				continue // globals, checked below
			}
			if sc.names[name] != nil {
				return false
			}
		}
	}
	if _, ok := r.info.GlobalIndex[name]; ok {
		return false
	}
	return !r.opts.OpaqueImports
}

// declareChecked declares a let/var/const binding and records a const
// redeclaration in the same scope (a run-time error, docs/spec/language.md §3.2).
func (r *resolver) declareChecked(name string, kind Kind, pos syntax.Pos, node syntax.Node) *Binding {
	var prev *Binding
	if r.atTopLevel() {
		prev = r.topCur[name]
	} else {
		fs := r.cur()
		prev = fs.scopes[len(fs.scopes)-1].names[name]
	}
	if prev != nil && prev.Kind == KConst && kind == KConst {
		r.info.ConstRedeclared[node] = true
	}
	if r.atTopLevel() {
		return r.declareTopLet(name, kind, pos, node)
	}
	return r.declare(name, kind, pos, node)
}

// declarePattern declares a pattern's names item by item, resolving each
// default just before its own item's name: the pattern binds its items
// in order, so a default sees the names bound before it (`[a, b = a]`)
// and, for its own name, the outer variable (`{x = x + 1}`)
// (docs/spec/language.md §4).
func (r *resolver) declarePattern(p syntax.Pattern, declare func(name string, node syntax.Node)) {
	switch p := p.(type) {
	case *syntax.DictPattern:
		for _, it := range p.Items {
			if it.Default != nil {
				r.expr(it.Default)
			}
			syntax.PatternNames(&syntax.DictPattern{At: p.At, Items: []*syntax.DictPatItem{it}}, declare)
		}
	case *syntax.ListPattern:
		for _, it := range p.Items {
			if it.Default != nil {
				r.expr(it.Default)
			}
			syntax.PatternNames(&syntax.ListPattern{At: p.At, Items: []*syntax.ListPatItem{it}}, declare)
		}
	default:
		syntax.PatternNames(p, declare)
	}
}

// assignTarget resolves the root of an assignment target and the index
// expressions along its path.
func (r *resolver) assignTarget(t syntax.Expr, op string) {
	switch t := t.(type) {
	case *syntax.Ident:
		ref := r.lookup(t.Name)
		r.info.Refs[t] = ref
		if ref.Binding != nil {
			ref.Binding.Reassign = true
			if op != "=" {
				ref.Binding.Used = true
			}
		}
		if ref.Scope == Undefined {
			msg := "assignment to undefined variable `" + t.Name + "`"
			if s := diag.Suggest(t.Name, r.visibleNames(false)); s != "" {
				msg += " (did you mean `" + s + "`?)"
			}
			r.warnf(t.At, "HARN-NAM-001", "%s", msg)
		}
	case *syntax.MemberExpr:
		r.assignTarget(t.X, "+=")
		r.markPathRoot(t.X)
	case *syntax.IndexExpr:
		r.assignTarget(t.X, "+=")
		r.markPathRoot(t.X)
		r.expr(t.Index)
	default:
		r.expr(t)
	}
}

// markPathRoot records that a variable is the root of a path assignment
// (`d[k] = v`), which lets the compiler update its collection in place
// while no other reference to it exists.
func (r *resolver) markPathRoot(x syntax.Expr) {
	if id, ok := x.(*syntax.Ident); ok {
		if ref := r.info.Refs[id]; ref != nil && ref.Binding != nil {
			ref.Binding.PathRoot = true
		}
	}
}

// isSelfPush reports whether s is `x = x.push(v)`, which the compiler
// turns into an in-place append when x owns its list (so x is ownable, as
// a path root is).
func isSelfPush(s *syntax.AssignStmt) bool {
	t, ok := s.Target.(*syntax.Ident)
	m, ok2 := s.Value.(*syntax.MethodCall)
	if !ok || !ok2 || s.Op != "=" || m.Name != "push" || m.Optional || len(m.Args) != 1 {
		return false
	}
	x, ok := m.X.(*syntax.Ident)
	return ok && x.Name == t.Name
}

// ---- expressions ----

func (r *resolver) exprs(list []syntax.Expr) {
	for _, e := range list {
		r.expr(e)
	}
}

func (r *resolver) expr(e syntax.Expr) {
	switch e := e.(type) {
	case nil:
	case *syntax.Ident:
		r.use(e)
	case *syntax.IntLit, *syntax.FloatLit, *syntax.DurationLit, *syntax.StringLit, *syntax.BoolLit, *syntax.NilLit:
	case *syntax.InterpString:
		holes := false
		for _, p := range e.Parts {
			if p.Expr != nil {
				n := len(r.info.Warnings)
				r.expr(p.Expr)
				holes = true
				if id, ok := p.Expr.(*syntax.Ident); ok && len(r.info.Warnings) == n+1 {
					// `"${m}/${y}"` meant as text (a regex replacement, a
					// template): say how to keep a hole literal
					// (docs/spec/language.md §1.7)
					if w := r.info.Warnings[n]; w.Code == "HARN-NAM-001" && w.Help == "" {
						w.Help = "a string's `${…}` reads a variable; to keep the text `${" + id.Name + "}`, write `\\${" + id.Name + "}` or use a raw string `r\"…\"`"
					}
				}
			}
		}
		if holes {
			r.interpToString(e)
		}
	case *syntax.SpreadExpr:
		r.expr(e.X)
	case *syntax.ListLit:
		r.exprs(e.Elems)
	case *syntax.DictLit:
		r.dictEntries(e.Entries)
	case *syntax.StructLit:
		if e.NS != nil {
			r.expr(e.NS)
		}
		r.dictEntries(e.Fields)
	case *syntax.ClosureLit:
		r.funcBody(e, e.Params, e.Body)
	case *syntax.BinaryExpr:
		r.expr(e.X)
		r.expr(e.Y)
	case *syntax.UnaryExpr:
		r.expr(e.X)
	case *syntax.TernaryExpr:
		r.expr(e.Cond)
		r.expr(e.Then)
		r.expr(e.Else)
	case *syntax.RangeExpr:
		r.expr(e.Start)
		r.expr(e.End)
	case *syntax.PipeExpr:
		r.expr(e.X)
		if HasPlaceholder(e.F) {
			r.enterFunc(e)
			r.declare("_", KHidden, e.At, e)
			r.expr(e.F)
			r.leaveFunc()
		} else {
			r.replace(&e.F, r.localPipeName(e.F))
			r.expr(e.F)
			r.pipeFns(e)
		}
	case *syntax.MemberExpr:
		r.replace(&e.X, r.nsEnum(e.X))
		if id, ok := e.X.(*syntax.Ident); ok && r.isEnumRef(id.Name) {
			return // Enum.Variant
		}
		r.memberHead(e.X)
	case *syntax.IndexExpr:
		r.expr(e.X)
		r.expr(e.Index)
	case *syntax.SliceExpr:
		r.expr(e.X)
		r.expr(e.Lo)
		r.expr(e.Hi)
	case *syntax.CallExpr:
		r.useCall(e.Fn)
		r.callArgs(e)
	case *syntax.MethodCall:
		r.replace(&e.X, r.nsEnum(e.X))
		if id, ok := e.X.(*syntax.Ident); !ok || !r.isEnumRef(id.Name) {
			r.memberHead(e.X)
			r.methodSite(e)
		}
		r.exprs(e.Args)
	case *syntax.ValueCall:
		r.expr(e.Fn)
		r.exprs(e.Args)
	case *syntax.PropagateExpr:
		r.expr(e.X)
	case *syntax.NonNilExpr:
		r.expr(e.X)
	case *syntax.IfExpr:
		r.expr(e.Cond)
		r.block(e.Then)
		switch el := e.Else.(type) {
		case *syntax.Block:
			r.block(el)
		case *syntax.IfExpr:
			r.expr(el)
		}
	case *syntax.MatchExpr:
		r.expr(e.X)
		for _, arm := range e.Arms {
			r.push()
			for i, p := range arm.Patterns {
				r.replace(&arm.Patterns[i], r.qualify(r.nsVariant(p)))
				r.pattern(arm.Patterns[i], len(arm.Patterns) > 1)
			}
			if arm.Guard != nil {
				r.expr(arm.Guard)
			}
			r.blockInline(arm.Body)
			r.pop()
		}
	case *syntax.TryExpr:
		r.block(e.Body)
		if e.Catch != nil {
			r.push()
			if e.CatchVar != "" && e.CatchVar != "_" {
				r.declare(e.CatchVar, KCatch, e.CatchPos, e)
			}
			r.blockInline(e.Catch)
			r.pop()
		}
		r.block(e.Finally)
	case *syntax.RetryExpr:
		r.expr(e.Count)
		r.block(e.Body)
	case *syntax.ParallelExpr:
		r.expr(e.Arg)
		r.expr(e.MaxConcurrent)
		r.enterFunc(e)
		if e.Param != "" {
			r.declare(e.Param, KParam, e.At, e)
		}
		r.hoistFns(e.Body.Stmts)
		r.stmts(e.Body.Stmts)
		r.leaveFunc()
	case *syntax.SpawnExpr:
		r.funcBody(e, nil, e.Body)
	case *syntax.DeadlineExpr:
		r.expr(e.Duration)
		r.block(e.Body)
	case *syntax.MutexExpr:
		if e.Key != nil {
			r.expr(e.Key)
		}
		if e.Timeout != nil {
			r.expr(e.Timeout)
		}
		r.block(e.Body)
	case *syntax.SelectExpr:
		for _, c := range e.Cases {
			r.expr(c.Channel)
			r.push()
			if c.Name != "" && c.Name != "_" {
				r.declare(c.Name, KConst, c.At, c)
			}
			r.blockInline(c.Body)
			r.pop()
		}
		r.expr(e.Timeout)
		r.block(e.TimeoutBody)
		r.block(e.Default)
	default:
		panic(fmt.Sprintf("resolve: unexpected expression %T", e))
	}
}

func (r *resolver) dictEntries(entries []*syntax.DictEntry) {
	for _, en := range entries {
		if en.KeyExpr != nil {
			r.expr(en.KeyExpr)
		}
		if en.Spread != nil {
			r.expr(en.Spread)
		}
		if en.Value != nil && !(en.KeyName == "output_schema" && r.schemaType(en.Value)) {
			r.expr(en.Value)
		}
	}
}

// isEnumRef reports whether name, used as `name.Variant`, names an enum
// rather than a variable in scope.
func (r *resolver) isEnumRef(name string) bool {
	if !r.enums[name] {
		return false
	}
	ref := r.lookup(name)
	if ref.Scope == Global && ref.Binding.Kind == KImport {
		return slices.Contains(r.opts.ImportedEnums, name)
	}
	return ref.Scope == Undefined || ref.Scope == Universal || ref.Scope == Import
}

// nsEnum rewrites `ns.Shape`, an enum exported by the module a namespace
// import binds to ns, into the enum's name `Shape`, so that `ns.Shape.Circle`
// is read as `Shape.Circle` from here on (docs/spec/newer.md §1.3);
// anything else is returned unchanged.
func (r *resolver) nsEnum(x syntax.Expr) syntax.Expr {
	m, ok := x.(*syntax.MemberExpr)
	if !ok || m.Optional {
		return x
	}
	ns, ok := m.X.(*syntax.Ident)
	if !ok || !slices.Contains(r.opts.NamespaceEnums[ns.Name], m.Name) {
		return x
	}
	if ref := r.lookup(ns.Name); ref.Scope != Global || ref.Binding.Kind != KImport {
		return x // a local variable shadows the namespace
	}
	return &syntax.Ident{At: m.At, Name: m.Name}
}

// nsVariant rewrites the enum of a `ns.Shape.Circle(r)` pattern (nsEnum).
func (r *resolver) nsVariant(p syntax.Expr) syntax.Expr {
	switch x := p.(type) {
	case *syntax.MemberExpr:
		r.replace(&x.X, r.nsEnum(x.X))
	case *syntax.MethodCall:
		r.replace(&x.X, r.nsEnum(x.X))
	}
	return p
}

// replace stores x in *slot, remembering the node it replaces for
// Info.RestoreSpelling.
func (r *resolver) replace(slot *syntax.Expr, x syntax.Expr) {
	if old := *slot; old != x {
		r.info.undo = append(r.info.undo, func() { *slot = old })
		*slot = x
	}
}

// qualify rewrites a bare variant pattern — `Circle(r)`, `Dot`, `Ok(x)` —
// into its qualified form `Shape.Circle(r)` when the name is a variant of
// exactly one enum declared in the file (or of Result) and no variable of
// that name is in scope (docs/spec/newer.md §1.12). A bare `Dot` must start with an
// upper-case letter, so ordinary bindings stay bindings. A variant only
// imported enums declare must be written qualified: a bare `Dot` is
// reported (it would otherwise bind anything, as a catch-all), a bare
// `Circle(r)` stays an expression pattern whose call target is undefined
// (useCall says how to qualify it), and a variant the file's own enums
// declare is theirs.
func (r *resolver) qualify(p syntax.Expr) syntax.Expr {
	var name string
	var at syntax.Pos
	call, isCall := p.(*syntax.CallExpr)
	switch x := p.(type) {
	case *syntax.CallExpr:
		if len(x.TypeArgs) > 0 {
			return p
		}
		name, at = x.Fn.Name, x.Fn.At
	case *syntax.Ident:
		if x.Name == "" || x.Name[0] < 'A' || x.Name[0] > 'Z' {
			return p
		}
		name, at = x.Name, x.At
	default:
		return p
	}
	enums := r.variants[name]
	imported := r.opts.ImportedVariants[name]
	if len(enums) == 0 && (len(imported) == 0 || isCall) {
		return p
	}
	if ref := r.lookup(name); ref.Scope != Undefined && ref.Scope != Universal {
		return p // a variable or function of that name owns it
	}
	if len(enums) == 0 {
		// reported; the pattern goes on qualified, so that its bindings
		// and the match's coverage do not cascade into more errors
		r.errorf(at, "variant `%s` of the imported enum %s must be qualified, e.g. `%s.%s`",
			name, "`"+strings.Join(imported, "`, `")+"`", imported[0], name)
		spelled := imported[0]
		enums = []string{spelled[strings.LastIndexByte(spelled, '.')+1:]}
	} else if len(enums) > 1 {
		// reported once; the pattern goes on as the first enum's variant
		// so that its bindings do not cascade into undefined names
		r.errorf(at, "variant `%s` is declared by more than one enum (%s); qualify it, e.g. `%s.%s`",
			name, strings.Join(enums, ", "), enums[0], name)
	}
	enum := &syntax.Ident{At: at, Name: enums[0]}
	if isCall {
		return &syntax.MethodCall{At: at, X: enum, Name: name, Args: call.Args}
	}
	return &syntax.MemberExpr{At: at, X: enum, Name: name}
}

// pattern resolves one match-arm pattern, declaring its bindings in the
// arm's scope. alt is true when the arm lists alternatives (which never bind).
func (r *resolver) pattern(p syntax.Expr, alt bool) {
	switch k := ClassifyPattern(p, r.isEnumRef); k {
	case PatWildcard:
	case PatBind:
		if alt {
			r.expr(p)
			return
		}
		id := p.(*syntax.Ident)
		r.declare(id.Name, KMatch, id.At, id)
	case PatVariant:
		if alt {
			return
		}
		for _, a := range variantArgs(p) {
			if id, ok := a.(*syntax.Ident); ok && id.Name != "_" {
				r.declare(id.Name, KMatch, id.At, id)
			}
		}
	case PatList:
		if alt {
			r.expr(p)
			return
		}
		elems := p.(*syntax.ListLit).Elems
		for i, el := range elems {
			switch el := el.(type) {
			case *syntax.Ident:
				if el.Name != "_" {
					r.declare(el.Name, KMatch, el.At, el)
				}
			case *syntax.SpreadExpr:
				if i < len(elems)-1 { // docs/spec/language.md §7.4 rule 4: one rest element, last
					r.errorf(el.Position(), "a rest element must be the last element of a list pattern")
				}
				if id, ok := el.X.(*syntax.Ident); ok && id.Name != "_" {
					r.declare(id.Name, KMatch, id.At, id)
				}
			default:
				r.expr(el)
			}
		}
	case PatDict:
		if alt {
			r.expr(p)
			return
		}
		entries := p.(*syntax.DictLit).Entries
		for i, en := range entries {
			if rest, ok := en.Spread.(*syntax.Ident); ok {
				if i < len(entries)-1 { // like a list pattern's rest: one, last
					r.errorf(en.At, "a rest entry must be the last entry of a dict pattern")
				}
				if rest.Name != "_" {
					r.declare(rest.Name, KMatch, rest.At, rest)
				}
				continue
			}
			if id, ok := en.Value.(*syntax.Ident); ok {
				if id.Name != "_" {
					r.declare(id.Name, KMatch, id.At, id)
				}
			} else {
				r.expr(en.Value)
			}
		}
	default:
		r.expr(p)
	}
}

func variantArgs(p syntax.Expr) []syntax.Expr {
	if mc, ok := p.(*syntax.MethodCall); ok {
		return mc.Args
	}
	return nil
}

func (r *resolver) finish() {
	// A captured local lives in a cell.
	for _, fn := range r.info.Funcs {
		for _, b := range fn.Locals {
			if b.Captured {
				b.Scope = Cell
			}
		}
	}
	for _, ref := range r.info.Refs {
		if ref.Scope == Local && ref.Binding != nil && ref.Binding.Scope == Cell {
			ref.Scope = Cell
		}
	}
	for _, ref := range r.info.InterpToString {
		if ref.Scope == Local && ref.Binding.Scope == Cell {
			ref.Scope = Cell
		}
	}
}

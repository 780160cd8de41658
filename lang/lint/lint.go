// Package lint is `harn lint`: rules that find code which runs but is
// probably not what its author meant, or not written the way Harn is
// usually written.
//
// The model. A rule reads a parsed file and its resolution (lang/resolve:
// every binding with whether it is read, what it shadows). Each finding
// names its rule, a position and a message, and may carry a fix: an edit of
// the syntax tree that keeps the program's meaning. Fixes never patch text;
// `harn lint --fix` applies them to the tree and prints the result with
// lang/format, so a fixed file is also formatted. Rules are listed once, in
// Rules, with the explanation `harn lint --explain` prints.
package lint

import (
	"fmt"
	"github.com/harnlang/harn/lang/diag"
	"sort"
	"strings"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// Rule describes one lint rule.
type Rule struct {
	ID      string // kebab-case, as shown in brackets after a finding
	Summary string // one line
	Explain string // what --explain prints after the summary
}

// Finding is one report of a rule.
type Finding struct {
	Rule *Rule
	Pos  syntax.Pos
	Len  int // characters from Pos the finding covers (at least 1)
	// Spans is set when the finding covers whole statements, from Pos up
	// to Until (exclusive: the start of what follows them, or the zero
	// Pos for the end of the file) rather than Len characters.
	Spans bool
	Until syntax.Pos
	Msg   string
	// Fix describes the fix ("" when the rule offers none); apply performs
	// it on the tree the finding was made on.
	Fix   string
	apply func()
}

// HasFix reports whether the finding can be fixed automatically.
func (f *Finding) HasFix() bool { return f.apply != nil }

// Apply performs the finding's fix on its tree.
func (f *Finding) Apply() {
	if f.apply != nil {
		f.apply()
	}
}

// Lookup returns the rule with the given id, or with the given
// diagnostic code (HARN-LNT-063).
func Lookup(id string) *Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	return codes[id]
}

// codes maps the diagnostic codes the checker reports lint warnings under
// to their rules.
var codes = map[string]*Rule{"HARN-LNT-063": UnnecessaryNonNull}

// checked turns the checker's warnings that carry a rule's code into
// findings of that rule. Only those in the linted file itself count (the
// checker also reports on imported modules).
func (l *linter) checked(ds diag.List) {
	path := ""
	if l.file != nil {
		path = l.file.Path
	}
	for _, d := range ds {
		r := codes[d.Code]
		if r == nil || d.Severity != diag.SevWarning || (d.File != "" && path != "" && d.File != path) {
			continue
		}
		l.report(r, syntax.Pos{Line: d.Line, Col: d.Col}, 1, "", nil, "%s", d.Msg)
	}
}

// Options tune a run.
type Options struct {
	// Disable lists rule ids not to run.
	Disable []string
	// Checked holds the diagnostics the checker gave the file (harn
	// check's analysis); the warnings among them that carry the code of
	// a rule (HARN-LNT-063) become findings of that rule.
	Checked diag.List
}

// File runs every rule on a parsed and resolved file. info may be nil
// (the file did not resolve); then only the syntactic rules run.
func File(f *syntax.File, info *resolve.Info, opts Options) []*Finding {
	l := &linter{file: f, info: info, off: map[string]bool{}}
	for _, id := range opts.Disable {
		l.off[id] = true
	}
	l.collect()
	if info != nil {
		l.bindings()
	}
	l.syntactic()
	l.checked(opts.Checked)
	sort.SliceStable(l.out, func(i, j int) bool { return l.out[i].Pos.Before(l.out[j].Pos) })
	return l.out
}

type linter struct {
	file *syntax.File
	info *resolve.Info
	off  map[string]bool
	out  []*Finding
	// owners of declaring nodes, filled by collect
	letOf   map[syntax.Node]*syntax.LetStmt // pattern (or pattern item) → its let
	forOf   map[syntax.Node]*syntax.ForStmt // pattern (or item) → its for loop
	paramFn map[*syntax.Param]syntax.Node   // parameter → its function
	pairs   map[*syntax.PairPattern]bool
	imports []*syntax.ImportDecl
	implFns map[*syntax.FnDecl]bool
	// inExtended holds the declaring nodes inside pipelines that another
	// pipeline extends (their bodies run in the child too).
	inExtended map[syntax.Node]bool
	matchIDs   map[*syntax.Ident]bool // identifiers that bind in match patterns
	// taskAssigned holds the assignment targets task-assigns-captured
	// reported (a nested task body is walked once for each task around it).
	taskAssigned map[*syntax.Ident]bool
}

// report adds a finding and returns it (nil when the rule is off).
func (l *linter) report(r *Rule, pos syntax.Pos, n int, fix string, apply func(), format string, args ...any) *Finding {
	if l.off[r.ID] {
		return nil
	}
	if n < 1 {
		n = 1
	}
	f := &Finding{Rule: r, Pos: pos, Len: n, Msg: fmt.Sprintf(format, args...)}
	if apply != nil {
		f.Fix, f.apply = fix, apply
	}
	l.out = append(l.out, f)
	return f
}

// collect records which statement or function owns each declaring node.
func (l *linter) collect() {
	l.letOf = map[syntax.Node]*syntax.LetStmt{}
	l.forOf = map[syntax.Node]*syntax.ForStmt{}
	l.paramFn = map[*syntax.Param]syntax.Node{}
	l.pairs = map[*syntax.PairPattern]bool{}
	l.implFns = map[*syntax.FnDecl]bool{}
	l.matchIDs = map[*syntax.Ident]bool{}
	l.taskAssigned = map[*syntax.Ident]bool{}
	l.inExtended = map[syntax.Node]bool{}
	extended := map[string]bool{}
	for _, it := range l.file.Items {
		if p, ok := it.(*syntax.PipelineDecl); ok && p.Extends != "" {
			extended[p.Extends] = true
		}
	}
	for _, it := range l.file.Items {
		if p, ok := it.(*syntax.PipelineDecl); ok && extended[p.Name] {
			syntax.Walk(p, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
				l.inExtended[n] = true
				return true
			})
		}
	}
	syntax.Walk(l.file, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		switch n := n.(type) {
		case *syntax.LetStmt:
			l.ownPattern(n.Pattern, func(p syntax.Node) { l.letOf[p] = n })
		case *syntax.ForStmt:
			l.ownPattern(n.Pattern, func(p syntax.Node) { l.forOf[p] = n })
		case *syntax.FnDecl:
			for _, p := range n.Params {
				l.paramFn[p] = n
			}
		case *syntax.ClosureLit:
			for _, p := range n.Params {
				l.paramFn[p] = n
			}
		case *syntax.PipelineDecl:
			for _, p := range n.Params {
				l.paramFn[p] = n
			}
		case *syntax.ToolDecl:
			for _, p := range n.Params {
				l.paramFn[p] = n
			}
		case *syntax.ImplBlock:
			for _, m := range n.Methods {
				l.implFns[m] = true
			}
		case *syntax.ImportDecl:
			l.imports = append(l.imports, n)
		}
		return true
	})
}

func (l *linter) ownPattern(p syntax.Pattern, own func(syntax.Node)) {
	own(p)
	switch p := p.(type) {
	case *syntax.DictPattern:
		for _, it := range p.Items {
			own(it)
		}
	case *syntax.ListPattern:
		for _, it := range p.Items {
			own(it)
		}
	case *syntax.PairPattern:
		l.pairs[p] = true
	}
}

// ---- rules on bindings ----

func (l *linter) bindings() {
	var all []*resolve.Binding
	all = append(all, l.info.Globals...)
	seen := map[*resolve.Binding]bool{}
	var funcs []*resolve.Function
	for _, fn := range l.info.Funcs {
		funcs = append(funcs, fn)
	}
	for _, fn := range funcs {
		all = append(all, fn.Locals...)
	}
	for _, b := range all {
		if seen[b] || b.Decl == nil {
			continue
		}
		seen[b] = true
		l.shadowing(b)
		if !b.Used && !strings.HasPrefix(b.Name, "_") {
			l.unused(b)
		}
		l.naming(b)
	}
	l.unusedImports()
}

func (l *linter) unused(b *resolve.Binding) {
	name := b.Name
	if l.inExtended[b.Decl] {
		return // a pipeline that another extends: its child reads these
	}
	switch d := b.Decl.(type) {
	case *syntax.IdentPattern:
		if let := l.letOf[d]; let != nil {
			if let.Pub {
				return // part of the module's interface
			}
			fix := func() { d.Name = "_" }
			if b.Reassign || b.PathRoot {
				fix = nil // later assignments name it
			}
			l.report(UnusedVariable, d.At, len(name), "replace the name with `_` (the value is still computed)",
				fix, "`%s` is assigned but never used", name)
			return
		}
		if l.forOf[d] != nil {
			fix := func() { d.Name = "_" }
			if b.Reassign || b.PathRoot {
				fix = nil
			}
			l.report(UnusedVariable, d.At, len(name), "replace the loop variable with `_`",
				fix, "loop variable `%s` is never used", name)
		}
	case *syntax.DictPatItem:
		if d.Rest {
			l.report(UnusedPatternBinding, d.At, len(name)+3, "collect them into `..._`",
				func() { d.Key, d.Alias = "_", "_" }, "`...%s` collects the other keys but is never used", name)
			return
		}
		l.report(UnusedPatternBinding, d.At, len(d.Key), "bind the key to `_`",
			func() { d.Alias = "_" }, "`%s` is bound by the pattern but never used", name)
	case *syntax.ListPatItem:
		if d.Rest {
			// `..._`, not `_`: one item would change the pattern's length rule
			l.report(UnusedPatternBinding, d.At, len(name)+3, "collect them into `..._`",
				func() { d.Name = "_" }, "`...%s` collects the other elements but is never used", name)
			return
		}
		l.report(UnusedPatternBinding, d.At, len(name), "replace the name with `_`",
			func() { d.Name = "_" }, "`%s` is bound by the pattern but never used", name)
	case *syntax.PairPattern:
		l.report(UnusedPatternBinding, d.At, len(d.First)+len(d.Second)+4, "replace the name with `_`", func() {
			if d.First == name {
				d.First = "_"
			} else {
				d.Second = "_"
			}
		}, "`%s` is bound by the loop but never used", name)
	case *syntax.Ident:
		// a binding in a match pattern
		l.report(UnusedPatternBinding, d.At, len(name), "replace the name with `_`",
			func() { d.Name = "_" }, "`%s` is bound by the match arm but never used", name)
	case *syntax.TryExpr:
		fix := func() { d.CatchVar = "" }
		if d.CatchType != nil || b.Reassign || b.PathRoot {
			fix = nil // a typed catch only catches errors of its type
		}
		l.report(UnusedVariable, d.CatchPos, len(name), "drop the catch variable",
			fix, "caught error `%s` is never used", name)
	case *syntax.Param:
		l.unusedParam(b, d)
	}
}

// unusedParam reports a parameter the body never reads, without a fix:
// a function value prints its parameter names ("<fn(x, y)>"), so renaming
// one to _x could change the program's output.
func (l *linter) unusedParam(b *resolve.Binding, p *syntax.Param) {
	switch fn := l.paramFn[p].(type) {
	case *syntax.FnDecl:
		if fn.Name == "main" || l.implFns[fn] || fn.Body == nil || len(fn.Body.Stmts) == 0 {
			return // an entry point, a method (self, interface shape) or a stub
		}
	case *syntax.ToolDecl, *syntax.PipelineDecl:
		return // parameters are the declaration's published interface
	}
	l.report(UnusedParameter, p.At, len(p.Name), "", nil, "parameter `%s` is never used", b.Name)
}

func (l *linter) unusedImports() {
	var types map[string]bool
	for _, d := range l.imports {
		if d.Namespace != nil && !d.Pub {
			if types == nil {
				types = l.typeNames()
			}
			l.unusedNamespace(d, types)
		}
		if d.Pub || len(d.Names) == 0 {
			continue // re-exports are used by importers; wildcard imports name nothing
		}
		var unused []*syntax.Ident
		for _, n := range d.Names {
			b := l.info.Decl(d, n.Name)
			if b == nil || b.Used {
				continue
			}
			if types == nil {
				types = l.typeNames()
			}
			if !types[n.Name] {
				unused = append(unused, n)
			}
		}
		for _, n := range unused {
			n := n
			d := d
			desc, fix := "remove it from the import", func() { l.dropImport(d, n) }
			if len(unused) == len(d.Names) && !l.loadKept(d) {
				desc, fix = "", nil // removing the import would skip the module's top-level code
			}
			l.report(UnusedImport, n.At, len(n.Name), desc, fix,
				"`%s` is imported from %q but never used", n.Name, d.Path)
		}
	}
}

// unusedNamespace reports `import * as ns from "path"` when ns is never
// used, neither as a value (`ns.f()`) nor in a type (`ns.Point`). The fix
// deletes the import when that keeps the module's load (loadKept).
func (l *linter) unusedNamespace(d *syntax.ImportDecl, types map[string]bool) {
	ns := d.Namespace
	if b := l.info.Decl(d, ns.Name); b == nil || b.Used || types[ns.Name] || strings.HasPrefix(ns.Name, "_") {
		return
	}
	desc, fix := "delete the import", func() { l.dropImport(d, nil) }
	if !l.loadKept(d) {
		desc, fix = "", nil // deleting the import would skip the module's top-level code
	}
	l.report(UnusedImport, ns.At, len(ns.Name), desc, fix,
		"namespace `%s` is imported from %q but never used", ns.Name, d.Path)
}

// loadKept reports whether the file still loads d's module once d is
// removed. Loading runs the module's top-level let and const initialisers
// (docs/spec/language.md §11.2), which may print or set state. Loading a
// std/ module has no visible effect; any other module must be loaded by an
// earlier import of the same path, which stays: the first import of a
// path is never removed.
func (l *linter) loadKept(d *syntax.ImportDecl) bool {
	if strings.HasPrefix(d.Path, "std/") {
		return true
	}
	for _, e := range l.imports {
		if e == d {
			return false
		}
		if e.Path == d.Path {
			return true
		}
	}
	return false
}

// typeNames collects the names the file uses as types, which the resolver
// does not record as reads: struct literals (`Point {x: 1}`), impl blocks,
// annotations and type arguments (`p: Point`, `f<Point>()`), bounds, and
// the enum of `Color.Red` and of variant patterns (an enum has no run-time
// value, so `Color` there resolves to nothing), and aliases named as
// schemas; and the function names a pipe calls through a string
// (`x |> "shout"`), which the resolver does not see either.
func (l *linter) typeNames() map[string]bool {
	names := map[string]bool{}
	enumOf := func(x syntax.Expr) {
		if id, ok := x.(*syntax.Ident); ok && l.info.Refs[id] == nil {
			names[id.Name] = true
		}
	}
	syntax.Walk(l.file, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		switch n := n.(type) {
		case *syntax.NamedType:
			names[n.Name] = true
			if ns, _, qualified := strings.Cut(n.Name, "."); qualified {
				names[ns] = true // `m.Point` uses the namespace m
			}
		case *syntax.StructLit:
			if n.NS == nil {
				names[n.Name] = true
			}
		case *syntax.ImplBlock:
			names[n.Name] = true
		case *syntax.FnDecl:
			for _, w := range n.Where {
				for _, b := range w.Bounds {
					names[b] = true
				}
			}
		case *syntax.MemberExpr:
			enumOf(n.X)
		case *syntax.MethodCall:
			enumOf(n.X)
		case *syntax.PipeExpr:
			// `x |> "shout"` calls the function named by the string
			// (docs/spec/language.md §2.8): the name is used
			if s, ok := n.F.(*syntax.StringLit); ok {
				names[s.Value] = true
			}
		}
		return true
	})
	for id := range l.info.SchemaTypes {
		names[id.Name] = true // `schema_of(Alias)`
	}
	return names
}

// dropImport removes one name from an import, and the import when no name
// is left (n nil: a namespace import, removed whole).
func (l *linter) dropImport(d *syntax.ImportDecl, n *syntax.Ident) {
	names := d.Names[:0:0]
	for _, m := range d.Names {
		if m != n {
			names = append(names, m)
		}
	}
	d.Names = names
	if len(names) > 0 {
		return
	}
	items := l.file.Items[:0:0]
	for _, it := range l.file.Items {
		if it != d {
			items = append(items, it)
		}
	}
	l.file.Items = items
}

func (l *linter) shadowing(b *resolve.Binding) {
	o := b.Shadows
	if o == nil || strings.HasPrefix(b.Name, "_") || o.Kind == resolve.KFn || b.Kind == resolve.KFn {
		return
	}
	l.report(Shadowing, b.Pos, len(b.Name), "", nil, "`%s` shadows the %s declared at %d:%d", b.Name, kindName(o.Kind), o.Pos.Line, o.Pos.Col)
}

func kindName(k resolve.Kind) string {
	switch k {
	case resolve.KParam:
		return "parameter"
	case resolve.KFor:
		return "loop variable"
	case resolve.KCatch:
		return "caught error"
	case resolve.KMatch:
		return "match binding"
	case resolve.KConst:
		return "constant"
	}
	return "variable"
}

// ---- naming ----

func (l *linter) naming(b *resolve.Binding) {
	name := b.Name
	if name == "_" || b.Decl == nil {
		return
	}
	switch b.Kind {
	case resolve.KLet, resolve.KVar, resolve.KParam, resolve.KFor, resolve.KCatch, resolve.KMatch, resolve.KFn:
		if !snake(name) {
			what := "variable"
			if b.Kind == resolve.KFn {
				what = "function"
			} else if b.Kind == resolve.KParam {
				what = "parameter"
			}
			l.report(Naming, b.Pos, len(name), "", nil, "%s `%s` should be snake_case (`%s`)", what, name, toSnake(name))
		}
	case resolve.KConst:
		if !snake(name) && !screaming(name) {
			l.report(Naming, b.Pos, len(name), "", nil, "constant `%s` should be snake_case or SCREAMING_SNAKE_CASE", name)
		}
	}
}

// typeNaming checks the names of types and enum variants.
func (l *linter) typeNaming(kind, name string, pos syntax.Pos) {
	if !pascal(name) {
		l.report(Naming, pos, len(name), "", nil, "%s `%s` should be PascalCase (`%s`)", kind, name, toPascal(name))
	}
}

func snake(s string) bool {
	s = strings.TrimLeft(s, "_")
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r > 127 && !isUpper(r)) {
			return false
		}
	}
	return true
}

func screaming(s string) bool {
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

func pascal(s string) bool {
	if s == "" || !(s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return !strings.Contains(s, "_")
}

func isUpper(r rune) bool {
	return strings.ToUpper(string(r)) == string(r) && strings.ToLower(string(r)) != string(r)
}

// toSnake spells a camelCase, PascalCase or SCREAMING name in
// snake_case. A word starts at a capital after a lower-case letter or a
// digit, and at the last capital of a run followed by a lower-case
// letter: `parseHTTPResponse` is `parse_http_response`, `LIMIT` is
// `limit`.
func toSnake(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if upperASCII(r) {
			prev, next := rune(0), rune(0)
			if i > 0 {
				prev = rs[i-1]
			}
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			if lowerOrDigit(prev) || upperASCII(prev) && next >= 'a' && next <= 'z' {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func upperASCII(r rune) bool { return r >= 'A' && r <= 'Z' }

func lowerOrDigit(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' }

func toPascal(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}

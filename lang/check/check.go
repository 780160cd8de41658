// Package check is Harn's static checker (docs/spec/language.md §10.6): it runs
// after name resolution and before compilation, and reports the static
// errors that stop a program before anything runs and the warnings that
// are printed while it runs anyway.
//
// Model. The checker walks a resolved file once, in source order, giving
// every expression a types.Type and every binding a declared type: its
// annotation, else (for `let`/`var`) its initializer's type widened to a
// base type (literal → its base, collections without element types), else
// (for `const`) the initializer's exact type. Nothing is inferred across
// calls except from annotations: an unannotated function returns any.
// Types that are any, unknown, unresolved or generic are never reported.
//
// Callees outside the file are known through two interfaces: Library
// gives the builtins' and capability methods' descriptor signatures
// (builtins.go), Imports the functions the file's imports bind, typed in
// the module that declares them (imports.go). Their calls are checked
// like calls of the file's own functions.
//
// Being wrong costs more than being silent: a false error makes a valid
// program unrunnable. So every error needs a definite mismatch — a union
// value is rejected only when none of its members fits — and uncertain
// cases stay quiet. Warnings (arity, immutable assignments, unknown
// attributes, variants and fields, dubious comparisons, unreachable code,
// unused and shadowing locals) never stop a run.
package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/harnlang/harn/internal/numtext"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// Options configures a check.
type Options struct {
	// Env holds type declarations visible to the file besides its own,
	// typically the public structs, enums and types of imported modules
	// (types.Env.Import). File adds the file's own declarations to it.
	// Nil means a fresh environment.
	Env *types.Env
	// ExprStmt, when set, receives the type of each expression statement
	// checked (the REPL's :type asks for one).
	ExprStmt func(s *syntax.ExprStmt, t types.Type)
	// Library, when set, gives the builtins' signatures, for the arity
	// and argument warnings of builtin calls.
	Library Library
	// Imports, when set, gives the functions the file's imports bind, for
	// the arity and argument checks of their calls.
	Imports Imports
	// StrictTypes turns on strict-types mode (docs/spec/newer.md §3.14,
	// strict.go): a property of a value from `json_parse` or a
	// schema-less `llm_call` may only be read once the program has
	// validated it.
	StrictTypes bool
	// Prior is the number of leading items of the file that stand for
	// code checked before: the declarations of a REPL session's earlier
	// entries, put in front of the entry being checked (docs/repl.md).
	// They are walked for what they declare — binding types, signatures,
	// narrowing — and nothing is reported about them.
	Prior int
	// Exported, when set, receives the type of each top-level `pub
	// const` / `pub let` of a single name once the file is checked: its
	// annotation, else its initialiser's type as the file holds it. An
	// importer sees the value the module computed when it loaded
	// (docs/spec/language.md §11.2), so the importing file's checker
	// gives the name that type (ImportedConsts).
	// declared says the type was written down (an annotation, or a
	// copy of a declared `T?` result), so nil safety watches the name.
	Exported func(name string, t types.Type, declared bool)
	// Bindings, when set, receives the type the checker gives each
	// binding it typed (variables, constants, parameters, loop and
	// match bindings) once the file is checked: the language server's
	// hover shows it for a name without an annotation (docs/lsp.md).
	Bindings func(b *resolve.Binding, t types.Type)
	// Closures, when set, receives the type of each closure literal
	// checked (a closure in a loop or a re-checked body may come more
	// than once; the last type stands).
	Closures func(cl *syntax.ClosureLit, t types.Type)
}

// File checks a resolved file and returns its errors and warnings in
// source order (Severity tells them apart).
func File(f *syntax.File, info *resolve.Info, opts Options) diag.List {
	env := opts.Env
	if env == nil {
		env = types.NewEnv()
	}
	env.AddFile(f)
	c := &checker{
		file:        f,
		info:        info,
		env:         env,
		vars:        map[*resolve.Binding]*variable{},
		sigs:        map[*syntax.FnDecl]*types.Func{},
		pipeFns:     map[*syntax.PipelineDecl]*syntax.FnDecl{},
		multiDecl:   multiDeclared(f),
		seen:        map[string]bool{},
		exprStmt:    opts.ExprStmt,
		lib:         opts.Library,
		imports:     opts.Imports,
		joined:      map[syntax.Expr]bool{},
		branches:    map[syntax.Expr][]types.Type{},
		paramHints:  map[*syntax.ClosureLit]paramHint{},
		tails:       map[*syntax.ClosureLit]types.Type{},
		kindOf:      map[*resolve.Binding]*syntax.CallExpr{},
		condOf:      map[*resolve.Binding]syntax.Expr{},
		libSigs:     map[libKey]signature{},
		complete:    map[*syntax.MatchExpr]bool{},
		broken:      map[*syntax.WhileStmt]bool{},
		narrowed:    map[narrowKey]types.Type{},
		keyLists:    map[*resolve.Binding][]string{},
		importedFns: map[string]*importedFn{},
		strict:      opts.StrictTypes,
		closures:    opts.Closures,
	}
	c.fn = &funcCtx{node: f}
	c.fn.pushScope()
	prior := min(max(opts.Prior, 0), len(f.Items))
	c.checkMain(f.Items[prior:])
	c.duplicateTopLevel(f.Items[prior:])
	if prior > 0 {
		c.prior = map[syntax.Node]bool{}
		c.quiet = true
		c.stmts(f.Items[:prior], true)
		c.quiet = false
	}
	c.stmts(f.Items[prior:], true)
	if opts.Exported != nil {
		c.exported(f.Items[prior:], opts.Exported)
	}
	c.unusedLocals()
	if opts.Bindings != nil {
		for b, v := range c.vars {
			opts.Bindings(b, v.t)
		}
	}
	c.diags.SortByPosition()
	return c.diags
}

type checker struct {
	// tails holds the tail value type of unannotated closures whose
	// body has no `return`: what a call gives back, for inferring a
	// generic function's type parameters from a callback (instantiate).
	tails map[*syntax.ClosureLit]types.Type
	// kindOf holds the `type_of(v)` call a binding no assignment names
	// was initialised with (`let t = type_of(v)`): a test of the binding
	// is a test of the call (kindCall).
	kindOf map[*resolve.Binding]*syntax.CallExpr
	// condOf holds the condition a binding no assignment names was
	// initialised with (`let ok = x != nil`): testing the binding tests
	// the condition (condAlias).
	condOf map[*resolve.Binding]syntax.Expr
	// nilWrites holds, per binding, where the file assigns it `nil`
	// (capturedNil), built on first use.
	nilWrites map[*resolve.Binding][]syntax.Pos
	callbacks map[syntax.Node]bool // closure literals passed straight to a call (capturedNil)
	// letClosures maps the pattern of a `let f = { … }` to its closure
	// literal (calledNil), built with nilWrites.
	letClosures map[syntax.Pattern]*syntax.ClosureLit
	file        *syntax.File
	info        *resolve.Info
	env         *types.Env
	diags       diag.List
	vars        map[*resolve.Binding]*variable
	sigs        map[*syntax.FnDecl]*types.Func
	pipeFns     map[*syntax.PipelineDecl]*syntax.FnDecl // pipelines seen as functions, see pipelineFn
	multiDecl   map[string]bool
	fn          *funcCtx
	seen        map[string]bool // dedupes diagnostics (extended pipelines repeat their parents' bodies)
	exprStmt    func(s *syntax.ExprStmt, t types.Type)
	lib         Library
	// joined marks generic calls whose result is the union of conflicting
	// inferred arguments: every member is a possible value, so the union
	// must fit as a whole (docs/spec/newer.md §3.3).
	joined map[syntax.Expr]bool
	// branches holds the branch types of ternaries, `if` and `match`
	// expressions whose branches differ (branches.go)
	branches map[syntax.Expr][]types.Type
	// paramHints holds what closure literals passed as callbacks are
	// called with (callbacks.go)
	paramHints  map[*syntax.ClosureLit]paramHint
	libSigs     map[libKey]signature          // parsed library signatures
	complete    map[*syntax.MatchExpr]bool    // matches whose arms cover every value
	broken      map[*syntax.WhileStmt]bool    // while loops a `break` leaves
	narrowed    map[narrowKey]types.Type      // paths known not to be nil here (narrow.go)
	keyLists    map[*resolve.Binding][]string // bindings holding a constant key list (pick.go)
	pickBound   int                           // 0 unknown, 1 `pick` is only the builtin, 2 the file binds it
	pipeSrc     *pickSource                   // the left side of `v |> pick(_, keys)` being checked
	imports     Imports
	importedFns map[string]*importedFn // by bound name, `ns.name` for namespace members (imports.go)
	namespaces  map[string]bool        // names of the file's namespace imports, built on first use
	strict      bool                   // Options.StrictTypes
	// quiet is set while the Options.Prior items are walked: nothing is
	// reported, and the functions met are recorded in prior.
	quiet bool
	prior map[syntax.Node]bool
	// closures is Options.Closures.
	closures func(*syntax.ClosureLit, types.Type)
}

// variable is what the checker knows about a binding.
type variable struct {
	t types.Type
	// checked: assignments are checked against t (let/var bindings and
	// annotated ones).
	checked bool
	// nilInit: initialised with nil, the type is fixed by the first non-nil
	// assignment (docs/spec/language.md §3.1).
	nilInit bool
	// annotated: the type was written in the program (a let annotation or
	// a parameter type), so nil safety applies to it.
	annotated bool
	// projected: initialised with a `pick` of constant keys (docs/spec/newer.md
	// §2.2), or with a record read by index from a declared container, and
	// never reassigned, so its shape's fields are as stated as an
	// annotation's (an undeclared field is an error, §3.6).
	projected bool
	// owned: annotated `owned<T>`, dropped at the end of its scope
	// (docs/spec/newer.md §2.25).
	owned bool
	// unvalidated names the builtin the value comes from in strict-types
	// mode (`json_parse`), until it is validated (strict.go).
	unvalidated string
	// branches: initialised with a join of differing branches and never
	// reassigned, the branches' types (branches.go)
	branches []types.Type
}

// funcCtx is the function (or top-level code) being checked.
type funcCtx struct {
	parent  *funcCtx
	node    syntax.Node
	ret     types.Type // declared result type, nil when unannotated
	throws  types.Type // declared throws type, nil without a clause
	throwsT syntax.TypeExpr
	tparams []*types.TypeParam
	tries   []catcher // try bodies being walked, innermost last
	thrown  []thrownValue
	scopes  []map[string]bool // local names per block, for shadowing warnings
	defers  int               // defer bodies being walked
	loops   []syntax.Stmt     // loops being walked, innermost last
	flows   []*loopFlow       // the narrowings their breaks and continues leave with, as loops
	returns bool              // a `return` statement was seen in the body
}

// returnsStream reports whether the function declares a Stream<T> result.
func (fc *funcCtx) returnsStream() bool {
	it, ok := fc.retIter()
	return ok && it.Kind == types.IterStream
}

// retIter is the declared result as a Generator<T> or Stream<T>, seen
// through aliases (`type Ints = Stream<int>`).
func (fc *funcCtx) retIter() (*types.Iter, bool) {
	it, ok := types.Underlying(fc.ret).(*types.Iter)
	return it, ok
}

// genFn reports whether the function is a `gen fn` (a stream producer).
func (fc *funcCtx) genFn() bool {
	d, ok := fc.node.(*syntax.FnDecl)
	return ok && d.Gen
}

// catcher is what a try statement around the current position handles.
type catcher struct {
	all  bool       // untyped catch, or a bare try (Result form)
	enum types.Type // typed catch: values of this enum
}

type thrownValue struct {
	t   types.Type
	pos syntax.Pos
}

// enter makes fc, a function nested in the current one, current. A
// function of the Options.Prior items is recorded, so that unusedLocals
// leaves its locals alone.
func (c *checker) enter(fc *funcCtx) {
	if c.quiet {
		c.prior[fc.node] = true
	}
	c.fn = fc
}

func (fc *funcCtx) pushScope() { fc.scopes = append(fc.scopes, map[string]bool{}) }
func (fc *funcCtx) popScope()  { fc.scopes = fc.scopes[:len(fc.scopes)-1] }

// multiDeclared lists top-level names that share one binding among
// several declarations: their type depends on which declaration ran last,
// so the checker leaves them alone. Each `let`/`var`/`const` of a name
// declared again by one makes a variable of its own (as in a block), so
// those count once together.
func multiDeclared(f *syntax.File) map[string]bool {
	count := map[string]int{}
	let := map[string]bool{}
	for _, it := range f.Items {
		switch d := it.(type) {
		case *syntax.LetStmt:
			syntax.PatternNames(d.Pattern, func(name string, _ syntax.Node) {
				if !let[name] {
					let[name] = true
					count[name]++
				}
			})
		case *syntax.FnDecl:
			count[d.Name]++
		case *syntax.ToolDecl:
			count[d.Name]++
		case *syntax.SkillDecl:
			count[d.Name]++
		case *syntax.StructDecl:
			count[d.Name]++
		case *syntax.ImportDecl:
			for _, n := range d.Names {
				count[n.Name]++
			}
			if d.Namespace != nil {
				count[d.Namespace.Name]++
			}
		}
	}
	out := map[string]bool{}
	for n, c := range count {
		if c > 1 {
			out[n] = true
		}
	}
	return out
}

// ---- diagnostics ----

const (
	sevError   = diag.SevError
	sevWarning = diag.SevWarning
)

func (c *checker) report(sev diag.Severity, pos syntax.Pos, code, help, msg string) {
	if c.quiet {
		return
	}
	key := fmt.Sprintf("%d:%d:%d:%s", sev, pos.Line, pos.Col, msg)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.diags = append(c.diags, &diag.Error{
		File: c.file.Path, Line: pos.Line, Col: pos.Col,
		Msg: msg, Help: help, Code: code,
		Phase: diag.PhaseStatic, Severity: sev,
	})
}

func (c *checker) errorf(pos syntax.Pos, format string, args ...any) {
	c.report(diag.SevError, pos, "", "", fmt.Sprintf(format, args...))
}

func (c *checker) warnf(pos syntax.Pos, format string, args ...any) {
	c.report(diag.SevWarning, pos, "", "", fmt.Sprintf(format, args...))
}

// ---- type helpers ----

// typeOf converts an annotation in the current function's generic scope.
func (c *checker) typeOf(t syntax.TypeExpr) types.Type {
	return c.env.FromSyntax(t, c.typeParams())
}

func (c *checker) typeParams() []*types.TypeParam {
	var out []*types.TypeParam
	for fc := c.fn; fc != nil; fc = fc.parent {
		out = append(out, fc.tparams...)
	}
	return out
}

// compatible is the checker's acceptance test: a value of type src may go
// where dst is expected unless that is definitely wrong. Unions are given
// the benefit of the doubt: one fitting member is enough, since the
// checker does not narrow everywhere the language does.
func compatible(src, dst types.Type) bool {
	if types.AssignableTo(src, dst) {
		return true
	}
	if u, ok := types.Underlying(src).(*types.Union); ok {
		for _, m := range u.Types {
			if types.AssignableTo(m, dst) {
				return true
			}
		}
	}
	return false
}

// fits is compatible plus invariance: a typed value (not a literal, whose
// element types are inferred before the checker knows the target) does
// not fit an invariant position through int → float widening.
func (c *checker) fits(at syntax.Expr, src, dst types.Type) bool {
	if cl, ok := at.(*syntax.ClosureLit); ok {
		src = c.tailResult(cl, src, dst)
	}
	if literalShaped(at) && (containsTuple(dst, 0) || literalElems(dst, false, 0)) {
		return c.literalFits(at, dst)
	}
	if c.fitsValue(at, src, dst) {
		return true
	}
	// A literal built here (`[parts[0]]`, `{name: row[1]}`, `Ok(xs[i])`,
	// `tuple(a[0], 1)`) is typed from its elements, so an element the
	// checker inferred nilable (an index read) makes the whole type miss
	// where the same element alone would fit. Each element gets the
	// benefit of the doubt it gets alone (an index read returned or passed
	// to a typed parameter: docs/check.md), while a declared `T?` element
	// is still held to the target.
	if t, ok := at.(*syntax.TernaryExpr); ok {
		// `c ? [xs[0]] : []`: each branch as it would go alone
		return c.fits(t.Then, c.expr(t.Then), dst) && c.fits(t.Else, c.expr(t.Else), dst)
	}
	if b, ok := at.(*syntax.BinaryExpr); ok && b.Op == "+" && concatTarget(dst) {
		// `out + [xs[i]]`, `d + {[k]: v}`: the concatenation fits a list
		// or dict type when each side does, as `out.appending(xs[i])`
		// would
		return c.fits(b.X, c.expr(b.X), dst) && c.fits(b.Y, c.expr(b.Y), dst)
	}
	if m, ok := at.(*syntax.MethodCall); ok && !m.Optional && len(m.Args) == 1 && !hasSpread(m.Args) {
		// `out.appending(xs[i])`, `seen.add(xs[i])`: the copy with one
		// more element fits a list or set type when the receiver does and
		// the element alone would, as `out + [xs[i]]` does
		var elem types.Type
		switch d := types.Underlying(types.RemoveNil(dst)).(type) {
		case *types.List:
			if m.Name == "appending" || m.Name == "push" {
				elem = d.Elem
			}
		case *types.Set:
			if m.Name == "add" || m.Name == "adding" {
				elem = d.Elem
			}
		}
		if elem != nil {
			return c.fits(m.X, c.expr(m.X), dst) && c.fits(m.Args[0], c.expr(m.Args[0]), elem)
		}
	}
	if c.readsThrough(at) && c.readsOnly(at, 0) {
		// `idn([xs[0]])`, `[xs[0]].filter(…)`: a generic call or an
		// element-keeping method passes the literal's element types on,
		// so the result gets the benefit of the doubt the literal gets
		return c.fitsValue(at, elemsNonNil(src, 0), dst)
	}
	return (literalShaped(at) || c.tupleCall(at)) && c.fitsValue(at, elemsNonNil(src, 0), dst) && c.literalFits(at, dst)
}

// keepsElements lists the list methods whose result is made of the
// receiver's elements (not of what a callback returns): a literal's
// index reads reach the result as they are.
var keepsElements = map[string]bool{
	"filter": true, "reverse": true, "reversed": true, "sort": true, "sorted": true,
	"sort_by": true, "sorted_by": true, "skip": true, "take": true, "slice": true,
	"unique": true, "dropping_last": true, "chunk": true, "window": true,
	"sliding_window": true, "each_slice": true, "each_cons": true, "partition": true,
	"first": true, "last": true, "find": true, "min": true, "max": true,
	"min_by": true, "max_by": true, "compact": true,
}

// readsThrough reports a call whose result type is built from its
// arguments' or receiver's types: a call of a generic function of the
// file, or an element-keeping method (keepsElements).
func (c *checker) readsThrough(at syntax.Expr) bool {
	switch x := at.(type) {
	case *syntax.CallExpr:
		fn := c.fileFnCalled(x)
		return fn != nil && len(fn.TypeParams) > 0 && !hasSpread(x.Args)
	case *syntax.MethodCall:
		if id, ok := x.X.(*syntax.Ident); ok && c.isEnumRef(id) {
			return !hasSpread(x.Args) // a variant built here
		}
		if x.Name == "map" && c.mapTail(x) != nil {
			return !x.Optional // `rows.map({ r -> [r[0]] })`: the closure's tail makes the elements
		}
		return !x.Optional && keepsElements[x.Name]
	case *syntax.StructLit:
		return true
	}
	return false
}

// mapTail is the tail value of the closure literal given to a `.map(…)`
// call, when it has one and no `return`, or nil.
func (c *checker) mapTail(x *syntax.MethodCall) syntax.Expr {
	if len(x.Args) != 1 {
		return nil
	}
	cl, ok := x.Args[0].(*syntax.ClosureLit)
	if !ok || cl.Return != nil {
		return nil
	}
	es := tailStmt(blockStmts(cl.Body))
	if _, tailed := c.tails[cl]; !tailed || es == nil {
		return nil
	}
	return es.X
}

// readsOnly reports an expression whose type is nilable inside (an
// element, a field, a payload) only through index reads, which fits
// gives the benefit of the doubt: a bare index read, a literal whose
// elements fit their non-nil types as they are (a declared `T?` element
// does not), or a call readsThrough passes such values through.
func (c *checker) readsOnly(x syntax.Expr, depth int) bool {
	if depth > 8 {
		return false
	}
	depth++
	switch e := x.(type) {
	case *syntax.IndexExpr:
		return !e.Optional
	case *syntax.ListLit, *syntax.DictLit, *syntax.TernaryExpr:
		return c.literalFits(x, elemsNonNil(c.expr(x), 0))
	case *syntax.CallExpr:
		if literalShaped(e) || c.tupleCall(e) {
			return c.literalFits(x, elemsNonNil(c.expr(x), 0))
		}
		return c.readsThrough(e) && c.argsReadOnly(e.Args, depth)
	case *syntax.MethodCall:
		if !c.readsThrough(e) {
			return false
		}
		if id, ok := e.X.(*syntax.Ident); ok && c.isEnumRef(id) {
			return c.argsReadOnly(e.Args, depth)
		}
		if tail := c.mapTail(e); tail != nil && e.Name == "map" {
			// the tail was checked in the closure's scope and narrowings:
			// its second walk reports nothing
			quiet := c.quiet
			c.quiet = true
			ok := c.readsOnly(tail, depth)
			c.quiet = quiet
			return ok
		}
		return c.argsReadOnly([]syntax.Expr{e.X}, depth)
	case *syntax.StructLit:
		for _, f := range e.Fields {
			if f.Spread != nil || f.Value == nil || !c.argsReadOnly([]syntax.Expr{f.Value}, depth) {
				return false
			}
		}
		return true
	}
	return false
}

// argsReadOnly reports whether each of xs is nil-free as it is or is
// readsOnly: the arguments (or fields) a readsThrough call passes on.
func (c *checker) argsReadOnly(xs []syntax.Expr, depth int) bool {
	for _, x := range xs {
		t := c.expr(x) // (a second walk's diagnostics are deduplicated)
		if !types.Identical(elemsNonNil(types.RemoveNil(t), 0), t) && !c.readsOnly(x, depth) {
			return false
		}
	}
	return true
}

// concatTarget reports a list or dict type (not a shape, whose fields
// `a + b` may take from either side): a value of it concatenated or
// merged with `+` fits it when each operand does.
func concatTarget(t types.Type) bool {
	switch types.Underlying(types.RemoveNil(t)).(type) {
	case *types.List, *types.Dict:
		return true
	}
	return false
}

// elemsNonNil is t with nil taken out of the element, field and payload
// types of the literal kinds fits reads element by element (lists, sets,
// dict values, tuples, shape fields, Result sides), at any depth: what
// the literal's type would be had no element been nilable.
func elemsNonNil(t types.Type, depth int) types.Type {
	if depth > 8 {
		return t
	}
	depth++
	inner := func(t types.Type) types.Type { return elemsNonNil(types.RemoveNil(t), depth) }
	switch t := t.(type) {
	case *types.Union:
		// a ternary's branches (`c ? [xs[0]] : []`)
		ms := make([]types.Type, len(t.Types))
		for i, m := range t.Types {
			ms[i] = elemsNonNil(m, depth)
		}
		return types.NewUnion(ms...)
	case *types.List:
		return &types.List{Elem: inner(t.Elem)}
	case *types.Set:
		return &types.Set{Elem: inner(t.Elem)}
	case *types.Dict:
		return &types.Dict{Key: t.Key, Value: inner(t.Value)}
	case *types.Tuple:
		elems := make([]types.Type, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = inner(e)
		}
		return &types.Tuple{Elems: elems}
	case *types.Result:
		return &types.Result{Ok: inner(t.Ok), Err: inner(t.Err)}
	case *types.Named:
		// a generic struct or enum value built here (`Box {v: xs[0]}`,
		// `Maybe.Some(xs[0])`) is typed by its fields' or payload's types
		if len(t.Args) == 0 || t.Decl.Kind != types.StructDecl && t.Decl.Kind != types.EnumDecl {
			return t
		}
		n := *t
		n.Args = make([]types.Type, len(t.Args))
		for i, a := range t.Args {
			n.Args[i] = inner(a)
		}
		return &n
	case *types.Shape:
		sh := *t
		sh.Fields = make([]types.Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = inner(f.Type)
			sh.Fields[i] = f
		}
		return &sh
	}
	return t
}

// tupleCall reports a call of the builtin `tuple(…)` (not a function of
// the program named tuple) without spread arguments.
func (c *checker) tupleCall(x syntax.Expr) bool {
	call, ok := x.(*syntax.CallExpr)
	if !ok || call.Fn.Name != "tuple" || hasSpread(call.Args) {
		return false
	}
	ref := c.info.Refs[call.Fn]
	return ref != nil && ref.Scope == resolve.Universal
}

// fitsValue is fits for a value whose type says all the checker reads of
// it (no literal to walk element by element).
func (c *checker) fitsValue(at syntax.Expr, src, dst types.Type) bool {
	if c.joined[at] {
		return types.AssignableTo(src, dst)
	}
	if c.rigidParam(src) && concreteValue(dst) {
		return false
	}
	if c.declaredAs(at, dst) {
		return true
	}
	if !compatible(src, dst) || c.bareDict(at, src, dst) || c.ifaceWhy(src, dst) != "" {
		return false
	}
	if c.declaredUnion(at, src) && !types.AssignableTo(src, dst) || c.optionalChainNil(at, src, dst) || c.branchMiss(at, src, dst) || c.declaredBase(at, src, dst) {
		return false
	}
	if c.genericNilResult(at) && nilable(src) && !types.AssignableTo(types.Nil, dst) {
		return false
	}
	if c.declaredFn(at) && !types.FuncFitsExactly(inferredResult(at, src, dst), dst) {
		return false
	}

	switch x := at.(type) {
	case *syntax.ListLit, *syntax.DictLit, *syntax.StructLit:
		return true
	case *syntax.MethodCall:
		// a variant built here is typed by its payload before the checker
		// knows where it goes (`let m: Maybe<float> = Maybe.Some(1)`)
		if id, ok := x.X.(*syntax.Ident); ok && c.isEnumRef(id) {
			return true
		}
	}
	return !types.WidensInvariantly(src, dst)
}

// declaredBase reports a value the program declared `string` or `int`
// (a path rooted at an annotated binding or parameter, a call of a
// function declared to return it), not narrowed, going where only
// literals of that type fit (`"red" | "blue"`, a `type Level = "debug" |
// "info"`): nothing says it holds one of them (docs/spec/language.md
// §10.6 literal types). An inferred string is let through: the checker
// may know less than the program.
func (c *checker) declaredBase(at syntax.Expr, src, dst types.Type) bool {
	b, ok := src.(*types.Basic)
	if !ok || (b != types.String && b != types.Int) || types.ContainsDynamic(dst) {
		return false
	}
	lit, base := literalsOnly(b, dst, 0)
	return lit && !base && (c.declaredPath(at) && !c.literalTested(at) || c.declaredCall(at))
}

// literalsOnly reports whether t has a literal member of the basic type
// b (lit) and whether a member that is no literal admits b (base),
// through unions and aliases.
func literalsOnly(b *types.Basic, t types.Type, depth int) (lit, base bool) {
	if depth > 8 {
		return false, true
	}
	for _, m := range types.Members(types.Underlying(t)) {
		switch m := m.(type) {
		case *types.Literal:
			lit = lit || m.Base() == b
			continue
		case *types.Union, *types.Named:
			if u, ok := types.Underlying(m).(*types.Union); ok {
				l, bs := literalsOnly(b, u, depth+1)
				lit, base = lit || l, base || bs
				continue
			}
		}
		base = base || types.AssignableTo(b, m)
	}
	return lit, base
}

// rigidParam reports a value typed by a type parameter of the function
// being checked (or of the generic struct whose impl method it is): the
// caller chooses that type, so inside the body the value fits no one
// concrete kind (`fn f<T>(x: T) -> int { return x }` is `return value:
// expected int, found T`), as a concrete value does not fit T
// (docs/spec/newer.md §3.3). A `type_of` test narrows it first.
func (c *checker) rigidParam(t types.Type) bool {
	tp, ok := t.(*types.TypeParam)
	return ok && slices.Contains(c.typeParams(), tp)
}

// declaredAs reports a binding declared with the type parameter t that a
// `type_of` test has narrowed (`fn f<T>(x: T) -> T { if type_of(x) ==
// "int" { return x } … }`): the value is still the caller's T.
func (c *checker) declaredAs(at syntax.Expr, t types.Type) bool {
	id, ok := at.(*syntax.Ident)
	if !ok || !c.rigidParam(t) {
		return false
	}
	ref := c.info.Refs[id]
	if ref == nil || ref.Binding == nil {
		return false
	}
	v := c.vars[ref.Binding]
	return v != nil && v.t == t
}

// checkable reports a value type the checker holds to where it goes: a
// known type, or a type parameter of the function being checked
// (rigidParam).
func (c *checker) checkable(t types.Type) bool { return known(t) || c.rigidParam(t) }

// containsTuple reports whether a tuple type occurs in t (through
// unions, containers, Result and shape fields): a literal going there is
// typed by where it goes, not by itself (literalFits).
func containsTuple(t types.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	depth++
	switch t := types.Underlying(t).(type) {
	case *types.Tuple:
		return true
	case *types.Union:
		return slices.ContainsFunc(t.Types, func(m types.Type) bool { return containsTuple(m, depth) })
	case *types.List:
		return containsTuple(t.Elem, depth)
	case *types.Set:
		return containsTuple(t.Elem, depth)
	case *types.Dict:
		return containsTuple(t.Value, depth)
	case *types.Result:
		return containsTuple(t.Ok, depth) || containsTuple(t.Err, depth)
	case *types.Shape:
		return slices.ContainsFunc(t.Fields, func(f types.Field) bool { return containsTuple(f.Type, depth) })
	}
	return false
}

// literalElems reports a literal type in t inside a list or set element
// (through unions, containers, Result and shape fields; inList says t is
// such an element). A list literal's type widens its elements (`["c"]` is
// a list<string>, which a base type's flowing into its literal types
// would let into list<"a" | "b">), so a literal going there is checked
// element by element (literalFits), as a scalar or a dict literal's
// field, which keep their literal types, already are.
func literalElems(t types.Type, inList bool, depth int) bool {
	if depth > 8 {
		return false
	}
	depth++
	switch t := types.Underlying(t).(type) {
	case *types.Literal:
		return inList
	case *types.Union:
		return slices.ContainsFunc(t.Types, func(m types.Type) bool { return literalElems(m, inList, depth) })
	case *types.List:
		return literalElems(t.Elem, true, depth)
	case *types.Set:
		return literalElems(t.Elem, true, depth)
	case *types.Dict:
		return literalElems(t.Value, inList, depth)
	case *types.Result:
		return literalElems(t.Ok, inList, depth) || literalElems(t.Err, inList, depth)
	case *types.Shape:
		return slices.ContainsFunc(t.Fields, func(f types.Field) bool { return literalElems(f.Type, inList, depth) })
	}
	return false
}

// literalShaped reports an expression literalFits reads through: a list
// or dict literal, a ternary, `Ok(…)`/`Err(…)`.
func literalShaped(x syntax.Expr) bool {
	switch x := x.(type) {
	case *syntax.ListLit, *syntax.DictLit, *syntax.TernaryExpr:
		return true
	case *syntax.CallExpr:
		return (x.Fn.Name == "Ok" || x.Fn.Name == "Err") && len(x.Args) == 1
	}
	return false
}

// literalFits checks a literal against the type it goes to, element by
// element, so that a list literal meets a tuple wherever the tuple sits
// (`tuple<int, int>?`, `list<tuple<…>>`, `Result<tuple<…>, E>`, a shape
// field, a ternary's branches: docs/spec/newer.md §2.3). Anything else is
// fits.
func (c *checker) literalFits(x syntax.Expr, dst types.Type) bool {
	if u, ok := types.Underlying(dst).(*types.Union); ok && literalShaped(x) {
		return slices.ContainsFunc(u.Types, func(m types.Type) bool { return c.literalFits(x, m) })
	}
	switch e := x.(type) {
	case *syntax.TernaryExpr:
		return c.literalFits(e.Then, dst) && c.literalFits(e.Else, dst)
	case *syntax.ListLit:
		if hasSpread(e.Elems) {
			d, ok := types.Underlying(dst).(*types.List)
			if !ok {
				break
			}
			// `[head, ...rest]`: each spread list fits the list type,
			// each other element its element type
			for _, el := range e.Elems {
				if sp, ok := el.(*syntax.SpreadExpr); ok {
					if !c.fitsPlain(sp.X, dst) {
						return false
					}
				} else if !c.literalFits(el, d.Elem) {
					return false
				}
			}
			return true
		}
		switch d := types.Underlying(dst).(type) {
		case *types.Tuple:
			if len(e.Elems) != len(d.Elems) {
				return false
			}
			for i, el := range e.Elems {
				if !c.literalFits(el, d.Elems[i]) {
					return false
				}
			}
			return true
		case *types.List:
			for _, el := range e.Elems {
				if !c.literalFits(el, d.Elem) {
					return false
				}
			}
			return true
		}
	case *syntax.DictLit:
		switch d := types.Underlying(dst).(type) {
		case *types.Dict:
			for _, en := range e.Entries {
				if en.Spread != nil {
					// the spread record's own type must fit the dict
					if !c.fitsPlain(en.Spread, dst) {
						return false
					}
					continue
				}
				if !c.literalFits(en.Value, d.Value) {
					return false
				}
			}
			return true
		case *types.Shape:
			given := map[string]bool{}
			for _, en := range e.Entries {
				if en.Spread != nil || en.KeyExpr != nil {
					return c.fitsPlain(x, dst)
				}
				given[en.KeyName] = true
				if f, ok := d.Field(en.KeyName); ok && !c.literalFits(en.Value, f.Type) {
					return false
				}
			}
			for _, f := range d.Fields {
				if !f.Optional && !given[f.Name] {
					return false
				}
			}
			return true
		}
	case *syntax.CallExpr:
		if r, ok := types.Underlying(dst).(*types.Result); ok && literalShaped(e) {
			if e.Fn.Name == "Ok" {
				return c.literalFits(e.Args[0], r.Ok)
			}
			return c.literalFits(e.Args[0], r.Err)
		}
		if d, ok := types.Underlying(dst).(*types.Tuple); ok && c.tupleCall(e) {
			if len(e.Args) != len(d.Elems) {
				return false
			}
			for i, a := range e.Args {
				if !c.literalFits(a, d.Elems[i]) {
					return false
				}
			}
			return true
		}
	}
	return c.fitsPlain(x, dst)
}

// fitsPlain is fits for an expression literalFits does not read through.
func (c *checker) fitsPlain(x syntax.Expr, dst types.Type) bool {
	t := c.expr(x) // (diagnostics of a second walk are deduplicated)
	if !known(t) || !known(dst) {
		return true
	}
	if containsTuple(dst, 0) && literalShaped(x) {
		return false // a literal shape that did not match the tuple's
	}
	return c.fitsValue(x, t, dst)
}

// declaredUnion reports a value whose declared type is a union, still a
// union where it is read: a variable or a field path rooted at a binding
// or parameter the program annotated (the paths nil safety watches), or
// a call of a function declared to return it (declaredCall). The program
// stated that any member may be there, so each must fit where it goes
// (`fn f(x: int?) -> int { return x }`, `let n: int = num()` with
// `fn num() -> int?`: docs/spec/newer.md §3.1, §3.3, §3.5). A union the
// checker inferred is not held to that: it may be coarser than the
// program.
func (c *checker) declaredUnion(at syntax.Expr, src types.Type) bool {
	if _, ok := types.Underlying(src).(*types.Union); !ok || types.ContainsDynamic(src) {
		return false
	}
	switch x := at.(type) {
	case *syntax.Ident:
	case *syntax.MemberExpr:
		if x.Optional {
			return false
		}
		if c.structField(x) {
			// the struct declares the field's union; the nil of a
			// `T?` field is left to the nil rules (declared paths only)
			_, many := types.RemoveNil(src).(*types.Union)
			return many || c.declaredPath(at)
		}
	case *syntax.CallExpr, *syntax.MethodCall:
		return c.declaredCall(at)
	default:
		return false
	}
	return c.declaredPath(at)
}

// structField reports a read of a field a struct declares (`r.v` with r
// a struct value, or a `T?` of one: reading from nil fails).
func (c *checker) structField(x *syntax.MemberExpr) bool {
	n, ok := types.Underlying(types.RemoveNil(c.quietType(x.X))).(*types.Named)
	if !ok || n.Decl.Kind != types.StructDecl {
		return false
	}
	_, ok = n.Decl.Field(x.Name)
	return ok
}

// genericNilResult reports a call of a generic function of the file
// whose declared result admits nil outright (`-> T?`, `-> T | nil`): its
// instantiation is inferred, but the nil is the program's, so the result
// does not go where nil is not accepted (`let m: int = first(xs)`), and a
// binding of it is nil-checked like an annotated `T?` one
// (docs/spec/newer.md §3.5).
func (c *checker) genericNilResult(at syntax.Expr) bool {
	call, ok := at.(*syntax.CallExpr)
	if !ok {
		return false
	}
	fn := c.fileFnCalled(call)
	if fn == nil || fn.Return == nil || len(fn.TypeParams) == 0 {
		return false
	}
	u, ok := types.Underlying(c.sig(fn).Return).(*types.Union)
	return ok && slices.Contains(u.Types, types.Type(types.Nil))
}

// declaredFn reports a function value whose signature the program wrote:
// a closure literal, a function of the file named directly, or a path
// rooted at an annotated binding or parameter. Passing one where a fn
// type is expected holds unions in its parameter and result types in
// full (types.FuncFitsExactly): both signatures are the program's.
func (c *checker) declaredFn(at syntax.Expr) bool {
	switch x := at.(type) {
	case *syntax.ClosureLit:
		return true
	case *syntax.Ident:
		if ref := c.info.Refs[x]; ref != nil && ref.Binding != nil && ref.Binding.Kind == resolve.KFn {
			_, ok := ref.Binding.Decl.(*syntax.FnDecl)
			return ok && !c.multiDecl[x.Name]
		}
	}
	return c.declaredPath(at)
}

// tailResult is src, the type of the closure literal cl going where the
// fn type dst is expected, with the result its tail value gave it
// replaced by dst's when that tail value fits there as a returned value
// would (`{ ys -> [ys[0]] }` for a `fn(list<int>) -> list<int>`: the
// index read gets the benefit of the doubt, docs/check.md). The second
// walk of the tail reports nothing: the closure was checked already.
func (c *checker) tailResult(cl *syntax.ClosureLit, src, dst types.Type) types.Type {
	s, ok := src.(*types.Func)
	d, ok2 := types.Underlying(types.RemoveNil(dst)).(*types.Func)
	_, tailed := c.tails[cl]
	es := tailStmt(blockStmts(cl.Body))
	if !ok || !ok2 || !tailed || cl.Return != nil || es == nil || !known(d.Return) || compatible(s.Return, d.Return) {
		return src
	}
	quiet := c.quiet
	c.quiet = true
	fits := c.fits(es.X, s.Return, d.Return)
	c.quiet = quiet
	if !fits {
		return src
	}
	typed := *s
	typed.Return = d.Return
	return &typed
}

// inferredResult is src, the type of the function value at going where
// the fn type dst is expected, with the result an unannotated closure
// literal's tail gave it replaced by dst's when it fits there as an
// inferred type does (compatible): the program wrote no result, so a
// union the checker inferred for it (`n ** 2` is an int | float) is not
// held in full, while its parameters still are.
func inferredResult(at syntax.Expr, src, dst types.Type) types.Type {
	cl, ok := at.(*syntax.ClosureLit)
	s, ok2 := src.(*types.Func)
	d, ok3 := types.Underlying(dst).(*types.Func)
	if !ok || !ok2 || !ok3 || cl.Return != nil || !compatible(s.Return, d.Return) {
		return src
	}
	typed := *s
	typed.Return = d.Return
	return &typed
}

// nilIndex reports an index read, which may be nil (docs/spec/newer.md
// §3.5), or an optional chain `a?.b` whose receiver may be nil, going
// where nil is not accepted. Only annotated bindings apply it: April
// programs return and pass index reads to typed parameters freely, and a
// false error blocks a valid program.
func (c *checker) nilIndex(at syntax.Expr, src, dst types.Type) bool {
	switch x := at.(type) {
	case *syntax.ListLit, *syntax.DictLit, *syntax.CallExpr:
		return c.nilElement(at, dst)
	case *syntax.IndexExpr:
	case *syntax.MemberExpr:
		if !x.Optional || !nilable(c.quietType(x.X)) {
			return false
		}
	default:
		return false
	}
	return nilable(src) && !types.AssignableTo(types.Nil, dst)
}

// nilElement is nilIndex for the elements of a literal built where the
// annotated binding is (`let names: list<string> = [row[0]]`): the
// annotation holds an element as it holds the bare read (fits gives
// such elements the benefit of the doubt everywhere else).
func (c *checker) nilElement(at syntax.Expr, dst types.Type) bool {
	d := types.Underlying(types.RemoveNil(dst))
	into := func(x syntax.Expr, t types.Type) bool { return c.nilIndex(x, c.expr(x), t) } // (a second walk's diagnostics are deduplicated)
	switch e := at.(type) {
	case *syntax.ListLit:
		if hasSpread(e.Elems) {
			return false
		}
		for i, el := range e.Elems {
			switch d := d.(type) {
			case *types.List:
				if into(el, d.Elem) {
					return true
				}
			case *types.Tuple:
				if i < len(d.Elems) && into(el, d.Elems[i]) {
					return true
				}
			}
		}
	case *syntax.DictLit:
		for _, en := range e.Entries {
			if en.Spread != nil || en.Value == nil {
				continue
			}
			switch d := d.(type) {
			case *types.Dict:
				if into(en.Value, d.Value) {
					return true
				}
			case *types.Shape:
				if f, ok := d.Field(en.KeyName); ok && en.KeyExpr == nil && into(en.Value, f.Type) {
					return true
				}
			}
		}
	case *syntax.CallExpr:
		if r, ok := d.(*types.Result); ok && literalShaped(e) {
			side := r.Ok
			if e.Fn.Name == "Err" {
				side = r.Err
			}
			return into(e.Args[0], side)
		}
		if t, ok := d.(*types.Tuple); ok && c.tupleCall(e) {
			for i, a := range e.Args {
				if i < len(t.Elems) && into(a, t.Elems[i]) {
					return true
				}
			}
		}
	}
	return false
}

// bareDict reports a binding the program annotated as a bare `dict`
// going where a shape with required fields is expected: nothing says the
// keys are there (docs/spec/newer.md §3.13). Narrow it first (`schema_is`), or
// annotate the shape. Dicts the checker inferred are not reported, since
// it reduces every dict literal's binding to `dict`.
func (c *checker) bareDict(at syntax.Expr, src, dst types.Type) bool {
	d, ok := src.(*types.Dict)
	if !ok || d.Key != types.String || d.Value != types.Any {
		return false
	}
	sh, ok := types.Underlying(dst).(*types.Shape)
	if !ok || !slices.ContainsFunc(sh.Fields, func(f types.Field) bool { return !f.Optional }) {
		return false
	}
	id, ok := at.(*syntax.Ident)
	if !ok {
		return false
	}
	if ref := c.info.Refs[id]; ref != nil && ref.Binding != nil {
		if _, narrowed := c.narrowed[narrowKey{ref.Binding, id.Name}]; narrowed {
			return false
		}
		v := c.vars[ref.Binding]
		return v != nil && v.annotated
	}
	return false
}

// known reports whether t says enough to report a mismatch.
func known(t types.Type) bool {
	return t != nil && !types.ContainsDynamic(t) && t != types.Never
}

// show prints a value's type in a message: literals as their base type
// unless the expected type mentions literals.
func show(t, expected types.Type) string {
	if r, ok := t.(*types.Result); ok && halfResult(r) {
		// a bare Ok(v) / Err(e) says nothing of the other side
		side := func(t types.Type) string {
			if t == types.Any {
				return "_"
			}
			return show(t, nil)
		}
		return "Result<" + side(r.Ok) + ", " + side(r.Err) + ">"
	}
	if u, ok := t.(*types.Union); ok && slices.ContainsFunc(u.Types, halfResult) {
		// `Result<int, _> | Result<_, int>`, each member as it prints alone
		var parts []string
		hasNil := false
		for _, m := range u.Types {
			if m == types.Nil {
				hasNil = true
				continue
			}
			parts = append(parts, show(m, expected))
		}
		switch {
		case hasNil && len(parts) == 1:
			return parts[0] + "?"
		case hasNil:
			parts = append(parts, "nil")
		}
		return strings.Join(parts, " | ")
	}
	return types.WithHoles(shown(t, expected)).String()
}

// halfResult reports a Result one side of which is unknown (a bare
// `Ok(v)` or `Err(e)`), printed with `_` there (docs/spec/newer.md §3.1).
func halfResult(t types.Type) bool {
	r, ok := t.(*types.Result)
	return ok && (r.Ok == types.Any) != (r.Err == types.Any)
}

// shown is the type show prints: t as it is where expected is a literal
// type, else widened, field by field against an expected shape, so that
// `{l: "warn"}` found for `{l: Level}` prints as `{l: "warn"}`, as the
// field's note does.
func shown(t, expected types.Type) types.Type {
	if expected == nil {
		return types.Widen(t)
	}
	if hasLiteral(expected) {
		return t
	}
	s, ok := t.(*types.Shape)
	w, ok2 := types.Underlying(expected).(*types.Shape)
	if !ok || !ok2 {
		return types.Widen(t)
	}
	out := *s
	out.Fields = make([]types.Field, len(s.Fields))
	for i, f := range s.Fields {
		wf, listed := w.Field(f.Name)
		if listed {
			f.Type = shown(f.Type, wf.Type)
		} else {
			f.Type = types.Widen(f.Type)
		}
		out.Fields[i] = f
	}
	return &out
}

func hasLiteral(t types.Type) bool {
	for _, m := range types.Members(types.Underlying(t)) {
		if _, ok := m.(*types.Literal); ok {
			return true
		}
	}
	return false
}

// inferredType is the type of an unannotated let/var binding while it
// keeps its initial value: bindingType, except that a Result keeps what
// its initializer says of each side (`let t = Ok(1)` is a Result<int, _>),
// since a Result is read far more often than it is reassigned.
func inferredType(t types.Type) types.Type {
	if r, ok := t.(*types.Result); ok {
		side := func(t types.Type) types.Type {
			if t == types.Any {
				return t
			}
			return bindingType(t)
		}
		return &types.Result{Ok: side(r.Ok), Err: side(r.Err)}
	}
	return bindingType(t)
}

// bindingType is the declared type of an unannotated let/var binding:
// literals widened and collections reduced to their kind, so that later
// assignments of the same kind of value are accepted.
func bindingType(t types.Type) types.Type {
	switch t := t.(type) {
	case *types.Literal:
		return t.Base()
	case *types.List:
		return &types.List{Elem: types.Any}
	case *types.Dict, *types.Shape:
		return &types.Dict{Key: types.String, Value: types.Any}
	case *types.Set:
		return &types.Set{Elem: types.Any}
	case *types.Iter:
		return &types.Iter{Kind: t.Kind, Elem: types.Any}
	case *types.Result:
		return &types.Result{Ok: types.Any, Err: types.Any}
	case *types.Func:
		return types.Closure
	case *types.Union:
		ms := make([]types.Type, len(t.Types))
		for i, m := range t.Types {
			ms[i] = bindingType(m)
		}
		return types.NewUnion(ms...)
	case *types.Named:
		if t.Decl.Kind == types.AliasDecl {
			return bindingType(types.Underlying(t))
		}
		if len(t.Args) > 0 {
			return &types.Named{Decl: t.Decl}
		}
	case *types.Basic:
		if t == types.Never {
			return types.Any
		}
	}
	return t
}

// unusedLocals warns about local let/var/const bindings of a plain name
// that are never read (names starting with `_` are exempt).
func (c *checker) unusedLocals() {
	extended := map[string]bool{}
	for _, it := range c.file.Items {
		if p, ok := it.(*syntax.PipelineDecl); ok && p.Extends != "" {
			extended[p.Extends] = true
		}
	}
	for _, fn := range c.info.Funcs {
		if p, ok := fn.Node.(*syntax.PipelineDecl); ok && extended[p.Name] {
			continue // its body also runs in the pipelines extending it
		}
		if c.prior[fn.Node] {
			continue
		}
		for _, b := range fn.Locals {
			if b.Used || b.Name == "" || b.Name[0] == '_' {
				continue
			}
			switch b.Kind {
			case resolve.KLet, resolve.KVar, resolve.KConst:
			default:
				continue
			}
			if _, ok := b.Decl.(*syntax.IdentPattern); !ok {
				continue
			}
			c.report(diag.SevWarning, b.Pos, "", "if this is intentional, prefix it with an underscore: `_"+b.Name+"`",
				"unused variable `"+b.Name+"`")
		}
	}
}

// valueInto reports a value x of type vt going where want is expected
// (context names the place) that does not fit it: a declared `unknown`
// not narrowed (unknownInto), or a value whose type the checker holds to
// where it goes (checkable) and that fits no value of want (mismatch).
func (c *checker) valueInto(x syntax.Expr, vt, want types.Type, context string) {
	if c.unknownInto(x, vt, want, context) || !c.checkable(vt) || !known(want) || c.fits(x, vt, want) {
		return
	}
	c.mismatch(x, context, want, vt)
}

// mismatch reports a value of type found where want is expected, in the
// one format every context shares (docs/spec/newer.md §3.1):
// "<context>: expected <want>, found <found>".
func (c *checker) mismatch(at syntax.Expr, context string, want, found types.Type) {
	if tp, ok := types.Underlying(want).(*types.Tuple); ok {
		if lit, ok := at.(*syntax.ListLit); ok && !hasSpread(lit.Elems) {
			c.tupleLitMismatch(lit, want, tp, context)
			return
		}
	}
	c.report(sevError, at.Position(), "HARN-TYP-007", conversionHelp(at, want, found),
		fmt.Sprintf("%s: expected %s, found %s%s%s", context, want, show(found, want), fieldDetail(want, found), c.ifaceDetail(want, found)))
}

// ifaceWhy explains why a struct value does not satisfy the interface dst
// (or the interface in a `list<I>`, `set<I>`, `dict<K, I>`, shape field,
// `Result<I, E>`, `I?` or union dst) structurally
// (method names, arity, parameter and return types, associated types:
// docs/spec/newer.md §3.9); "" when it does, or when
// either side is not such a pair. A struct of another file without a
// visible impl is given the benefit of the doubt; one of this file without
// impl blocks has no methods.
func (c *checker) ifaceWhy(src, dst types.Type) string {
	return c.ifaceWhyAt(src, dst, 0)
}

// ifaceWhyAt is ifaceWhy at a nesting depth, which ends the walk of a
// recursive alias (`type Json = … | list<Json>`).
func (c *checker) ifaceWhyAt(src, dst types.Type, depth int) string {
	if depth > 8 {
		return ""
	}
	depth++
	switch d := types.Underlying(dst).(type) {
	case *types.List:
		if s, ok := types.Underlying(src).(*types.List); ok {
			return c.ifaceWhyAt(s.Elem, d.Elem, depth)
		}
		return ""
	case *types.Set:
		if s, ok := types.Underlying(src).(*types.Set); ok {
			return c.ifaceWhyAt(s.Elem, d.Elem, depth)
		}
		return ""
	case *types.Dict:
		// `dict<string, I>`: each value, of a dict or of a dict literal
		// (a record of its keys)
		switch s := types.Underlying(src).(type) {
		case *types.Dict:
			return c.ifaceWhyAt(s.Value, d.Value, depth)
		case *types.Shape:
			for _, f := range s.Fields {
				if why := c.ifaceWhyAt(f.Type, d.Value, depth); why != "" {
					return why
				}
			}
		}
		return ""
	case *types.Shape:
		if s, ok := types.Underlying(src).(*types.Shape); ok {
			for _, wf := range d.Fields {
				if f, ok := s.Field(wf.Name); ok {
					if why := c.ifaceWhyAt(types.RemoveNil(f.Type), wf.Type, depth); why != "" {
						return why
					}
				}
			}
		}
		return ""
	case *types.Result:
		if s, ok := types.Underlying(src).(*types.Result); ok {
			if why := c.ifaceWhyAt(s.Ok, d.Ok, depth); why != "" {
				return why
			}
			return c.ifaceWhyAt(s.Err, d.Err, depth)
		}
		return ""
	}
	if u, ok := types.Underlying(src).(*types.Union); ok && isInterface(dst) {
		// `[Trim {}, Upper {}]` is a list<Trim | Upper>: the first
		// member that does not fit explains the mismatch
		for _, m := range u.Types {
			if why := c.ifaceWhyAt(m, dst, depth); why != "" {
				return why
			}
		}
		return ""
	}
	switch d := types.Underlying(dst).(type) {
	case *types.Union:
		// `I?`, `I | string`: one member accepting the value is enough
		why := ""
		for _, m := range d.Types {
			w := c.ifaceWhyAt(src, m, depth)
			if w == "" && types.AssignableTo(src, m) {
				return ""
			}
			if why == "" {
				why = w
			}
		}
		return why
	}
	d, ok := types.Underlying(dst).(*types.Named)
	if !ok {
		return ""
	}
	if s, ok := types.Underlying(src).(*types.Named); ok && d.Decl.Kind != types.InterfaceDecl && s.Decl == d.Decl {
		// `Holder<Sized>`: the type arguments of one generic struct or
		// enum, by position (an `in` one goes the other way, where no
		// struct stands for an interface)
		for i := range d.Args {
			if i < len(s.Args) && (i >= len(d.Decl.TypeParams) || d.Decl.TypeParams[i].Variance != "in") {
				if why := c.ifaceWhyAt(s.Args[i], d.Args[i], depth); why != "" {
					return why
				}
			}
		}
		return ""
	}
	if d.Decl.Kind != types.InterfaceDecl {
		return ""
	}
	s, ok := types.Underlying(src).(*types.Named)
	if !ok || !hasMethodsDecl(s.Decl) || !s.Decl.HasImpl && s.Decl.Origin != c.file.Path {
		return ""
	}
	if why := unsatisfied(s.Decl, s.Args, d.Decl, d.Args); why != "" {
		return fmt.Sprintf("Type '%s' does not satisfy interface '%s': %s", s.Decl.Name, d.Decl.Name, why)
	}
	return ""
}

// isInterface reports whether t is an interface type.
func isInterface(t types.Type) bool {
	n, ok := types.Underlying(t).(*types.Named)
	return ok && n.Decl.Kind == types.InterfaceDecl
}

// ifaceDetail appends the reason a struct does not satisfy an interface
// to a mismatch, in the frame of the `where` bound check:
// " (Type 'Box' does not satisfy interface 'Sized': missing method 'size')".
func (c *checker) ifaceDetail(want, found types.Type) string {
	why := c.ifaceWhy(found, want)
	if why == "" {
		return ""
	}
	return " (" + why + ")"
}

// fieldDetail names the first shape field whose type does not fit:
// " (field 'name' has type int, expected string)".
func fieldDetail(want, found types.Type) string {
	w, ok1 := types.Underlying(want).(*types.Shape)
	f, ok2 := types.Underlying(found).(*types.Shape)
	if !ok1 || !ok2 {
		return ""
	}
	for _, wf := range w.Fields {
		ff, ok := f.Field(wf.Name)
		if ok && known(ff.Type) && known(wf.Type) && !compatible(ff.Type, wf.Type) {
			return fmt.Sprintf(" (field '%s' has type %s, expected %s)", wf.Name, show(ff.Type, wf.Type), wf.Type)
		}
	}
	return ""
}

// bindingContext names an annotated binding in a mismatch.
func bindingContext(k syntax.BindingKind, name string) string {
	return k.String() + " binding `" + name + "`"
}

// conversionHelp suggests the obvious conversion of a literal or a name.
func conversionHelp(at syntax.Expr, want, found types.Type) string {
	for _, m := range types.Members(types.Underlying(want)) {
		if _, ok := m.(*types.Literal); ok {
			// a literal union (`"a" | "b"`) takes only its listed
			// values: no conversion gives one
			return ""
		}
	}
	if it, ok := types.Underlying(found).(*types.Iter); ok && it.Kind == types.IterPlain {
		if _, ok := types.Underlying(types.RemoveNil(want)).(*types.List); ok {
			// `.map` on a range stays lazy (docs/spec/builtins.md §3.10),
			// worded as the run-time parameter check words it
			return "an iterator is lazy: collect it into a list with `.to_list()`"
		}
	}
	var fn string
	switch types.Widen(want) {
	case types.String:
		fn = "to_string"
	case types.Int:
		if types.Widen(found) == types.String {
			fn = "to_int"
		}
	case types.Float:
		if types.Widen(found) == types.String {
			fn = "to_float"
		}
	}
	if fn == "" {
		return ""
	}
	var arg string
	switch x := at.(type) {
	case *syntax.IntLit:
		arg = strconv.FormatInt(x.Value, 10)
	case *syntax.FloatLit:
		arg = strconv.FormatFloat(x.Value, 'f', -1, 64)
		if !strings.ContainsAny(arg, ".eE") {
			arg += ".0"
		}
	case *syntax.BoolLit:
		arg = strconv.FormatBool(x.Value)
	case *syntax.StringLit:
		if x.Raw || strings.ContainsAny(x.Value, "\n\t\"\\$") {
			return "" // a text the program wrote with escapes, not rebuilt here
		}
		// only a text the conversion reads: `to_int("big")` or
		// `to_int("1.5")` would give nil
		if _, isInt := numtext.Int(x.Value); fn == "to_int" && !isInt {
			return ""
		}
		if _, isNum := numtext.Float(x.Value); fn == "to_float" && !isNum {
			return ""
		}
		arg = strconv.Quote(x.Value)
	case *syntax.Ident:
		arg = x.Name
	default:
		return ""
	}
	return fmt.Sprintf("did you mean `%s(%s)`?", fn, arg)
}

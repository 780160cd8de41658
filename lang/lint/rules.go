package lint

import (
	"reflect"
	"strings"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// The rules, in the order `harn lint --explain` lists them.
var (
	UnusedVariable = &Rule{"unused-variable", "a variable, loop variable or caught error is never read",
		`A binding that is assigned but never read is usually a leftover or a typo
(the value was meant to be used under another name). The fix replaces the
name with _, which still evaluates the right-hand side, so side effects
are kept: "let x = f()" becomes "let _ = f()", "for x in xs" becomes
"for _ in xs", "catch (e)" becomes "catch". Names starting with _ are never
reported; pub top-level bindings are part of the module's interface and
are not reported either.`}
	UnusedParameter = &Rule{"unused-parameter", "a function or closure parameter is never read",
		`A parameter the body never reads usually means the body computes
something else than the caller thinks. There is no automatic fix:
renaming the parameter changes what printing the function shows
("<fn(x, y)>"), so the program's output could change; use the parameter,
remove it, or prefix its name with _ yourself (not in a pub function,
whose parameter names are part of its interface). fn main, impl methods,
functions with an empty body, tools and pipelines (their parameters are
their published interface) are not reported.`}
	UnusedImport = &Rule{"unused-import", "a name imported with import { … } or import * as is never used",
		`Importing a name that is never used loads a module for nothing and
misleads readers about the file's dependencies. The fix removes the name
from the import. Loading a module runs its top-level let and const
initialisers, so the import itself is removed with its last name only
when that keeps the load: for a std/ module (whose loading has no visible
effect), or when an earlier import in the file loads the same path.
Otherwise the last name is reported without a fix: delete the import
yourself, or write import "path" if the module's loading matters (that
form also binds every name the module exports). A struct,
enum, interface or type alias is used when the file names it as a type,
builds a literal of it ("Point { x: 1 }") or names one of its variants
("Color.Red", also in match arms). A function is used when a pipe names
it in a string (x |> "shout"). A namespace (import * as ns from "path")
is used when the file names it, in code (ns.f()) or in a type
(ns.Point); the fix deletes an unused one under the same condition.
pub import (a re-export) and wildcard imports are not reported.`}
	UnusedPatternBinding = &Rule{"unused-pattern-binding", "a name bound by a destructuring or match pattern is never read",
		`A destructuring pattern or match arm binds a name that is never read.
The fix binds _ instead: "let {a, b} = d" becomes "let {a, b: _} = d"
(the key is still required, and a ...rest item still leaves it out),
"[x, y]" becomes "[x, _]", "Ok(v) ->" becomes "Ok(_) ->". An unused
...rest item of a dict or list pattern becomes ..._ (the pattern means
the same: the other keys or elements are still allowed).`}
	Shadowing = &Rule{"shadowing", "a declaration hides a variable of an enclosing block or function",
		`Declaring a name that an enclosing block, loop or function already
declares hides the outer variable for the rest of the block; assignments
meant for the outer variable then silently go to the new one. Rename one
of them. Redeclaring a name in the same block, and names starting with _,
are not reported; shadowing a top-level name or a builtin is not
reported either.`}
	UnreachableCode = &Rule{"unreachable-code", "statements after return, throw, break or continue never run",
		`Statements that follow return, throw, break or continue in the same block
can never run. The fix deletes them (fn, struct, enum, interface, type and
impl declarations are kept: a local fn is bound when its block starts, and
the file's types are known everywhere in it). The top level of a file in
pipeline mode is not checked: a return or exit there is ignored.`}
	PointlessComparison = &Rule{"pointless-comparison", "a comparison whose result is known, or a comparison with true or false",
		`"x == x" is always true and "x != x" always false when x is known to be
an int, string, bool or nil (a literal, or a let bound to one) and has no
calls; the author usually meant another operand. Floats (NaN: "z != z" is
the NaN test), durations ("==" between durations is always false) and
operands of unknown type are not reported. "b == true" is "b" and
"b == false" is "!b" when b is a bool; the fix rewrites them when the
operand is certainly a bool (a comparison, a logical operator, !, a bool
literal). For other operands == true also tests the type, so there is no
automatic fix.`}
	PreferLet = &Rule{"prefer-let", "var is the old spelling of let",
		`In the current language let declares a reassignable variable and var is
kept only as a synonym for old scripts (docs/spec/language.md §3.1). The fix writes
let.`}
	UnnecessaryConversion = &Rule{"unnecessary-conversion", "a conversion of a literal that already has the target type",
		`to_string("hi"), to_int(3) and to_float(1.5) return their argument
unchanged. The fix replaces the call with the argument. Not reported when
the name is a user function rather than the builtin.`}
	MissingDoc = &Rule{"missing-doc", "a pub fn has no doc comment",
		`Public functions are a module's interface: importers, harn lsp hovers and
the exports surface (docs/exports.md, where the doc comment becomes the
tool description) read their doc comment. Write one with /// or /** */
directly above the declaration.`}
	Naming = &Rule{"naming", "a name does not follow Harn's naming conventions",
		`Functions, variables and parameters are snake_case; constants are
snake_case or SCREAMING_SNAKE_CASE; structs, enums, enum variants,
interfaces and type aliases are PascalCase. A leading _ is allowed. There
is no automatic fix: a rename may reach other modules.`}
	TaskAssignsCaptured = &Rule{"task-assigns-captured", "a spawn or parallel body reassigns a variable declared outside it",
		`Task bodies capture variables like closures (docs/spec/language.md §13):
an assignment a task makes to a variable declared outside its body is seen
by the enclosing code and by every other task, in whatever order the tasks
happen to run, so "n = n + 1" from several tasks can lose updates. Return
the value from the task (await it, or collect the results of parallel),
or use an atomic, shared_cell or a channel. Assignments to variables
declared inside the body, and assignments inside a mutex block (where
the tasks take turns), are not reported. There is no automatic fix.`}
	UnnecessaryNonNull = &Rule{"unnecessary-non-null", "a non-null assertion x! on a value that cannot be nil",
		`"x!" asserts that x is not nil: it throws when x is nil and, for the
checker, narrows a "T | nil" to T (docs/spec/newer.md §1.4). When the
checker knows x's type cannot be nil the "!" does nothing; it may hide a
mistake (the value was meant to be another, nilable one) and misleads
readers. The checker reports it (harn run, harn check and harn lint show
the warning under code HARN-LNT-063, which --explain and --disable also
accept). There is no automatic fix: remove the "!".`}
	CatchHandlesNothing = &Rule{"catch-handles-nothing", "a typed catch naming a type that is not an enum",
		`"catch (e: Name)" handles only the variants of the enum Name; every other
failure passes it by as if the catch were absent (docs/spec/language.md
§8.3). A catch naming a built-in type (catch (e: string)), a struct, an
interface or a type alias, even an alias of an enum, therefore handles
nothing, which is rarely what its author meant. Write "catch (e)" and
test the value (type_of(e) == "string"), or name the enum itself. There
is no automatic fix: removing the annotation would change which failures
the catch takes.`}
	PreferPick = &Rule{"prefer-pick", "a dict literal copies fields of one value one by one",
		`A literal such as {name: user.name, email: user.email} copies the named
fields of one value; pick(user, ["name", "email"]) says the same in one
call, and the checker types its result as exactly those fields
(docs/spec/newer.md §2.2). There is no automatic fix. Not reported
when the file binds the name pick, or when a comment sits among the
entries (blank lines between them do not matter). pick omits a key the source lacks where the
literal would hold nil.`}
)

// Rules lists every rule.
var Rules = []*Rule{UnusedVariable, UnusedParameter, UnusedImport, UnusedPatternBinding, Shadowing,
	UnreachableCode, PointlessComparison, PreferLet, UnnecessaryConversion, MissingDoc, Naming, PreferPick,
	TaskAssignsCaptured, UnnecessaryNonNull, CatchHandlesNothing}

// syntactic runs the rules that need only the tree.
func (l *linter) syntactic() {
	syntax.Walk(l.file, func(n, _ syntax.Node, replace func(syntax.Node)) bool {
		switch n := n.(type) {
		case *syntax.Block:
			l.unreachable(&n.Stmts, n.End)
		case *syntax.LetStmt:
			if n.Kind == syntax.BindVar {
				l.report(PreferLet, n.At, 3, "write let", func() { n.Kind = syntax.BindLet }, "use `let` instead of `var`")
			}
		case *syntax.BinaryExpr:
			l.comparison(n, replace)
		case *syntax.CallExpr:
			l.conversion(n, replace)
		case *syntax.DictLit:
			l.preferPick(n)
		case *syntax.TryExpr:
			l.catchHandlesNothing(n)
		case *syntax.SpawnExpr:
			l.taskAssigns(n, n.Body, "spawn")
		case *syntax.ParallelExpr:
			l.taskAssigns(n, n.Body, "parallel")
		case *syntax.FnDecl:
			if n.Pub && n.Doc == "" {
				l.report(MissingDoc, n.NamePos, len(n.Name), "", nil, "public function `%s` has no doc comment", n.Name)
			}
		case *syntax.StructDecl:
			l.typeNaming("struct", n.Name, n.At)
		case *syntax.EnumDecl:
			l.typeNaming("enum", n.Name, n.At)
			for _, v := range n.Variants {
				l.typeNaming("variant", v.Name, v.At)
			}
		case *syntax.InterfaceDecl:
			l.typeNaming("interface", n.Name, n.At)
		case *syntax.TypeDecl:
			l.typeNaming("type", n.Name, n.At)
		}
		return true
	})
	// The statements of a file's top level are a block too, except in
	// pipeline mode, where top-level return, throw and exit are ignored
	// and nothing after them is unreachable (docs/spec/language.md §5.3;
	// the checker's rule, resolve.Info.Pipeline).
	if l.info == nil || !l.info.Pipeline {
		l.unreachable(&l.file.Items, syntax.Pos{})
	}
}

// unreachable reports the statements after the first one that always
// leaves the block; end is where the block's statements stop (its
// closing brace, or the zero Pos for the file's end).
func (l *linter) unreachable(stmts *[]syntax.Stmt, end syntax.Pos) {
	list := *stmts
	for i, s := range list {
		switch s.(type) {
		case *syntax.ReturnStmt, *syntax.ThrowStmt, *syntax.BreakStmt, *syntax.ContinueStmt:
		default:
			continue
		}
		var dead []syntax.Stmt
		until := end // the start of what follows the last dead statement
		for j, d := range list[i+1:] {
			if !declaration(d) {
				dead = append(dead, d)
				until = end
				if k := i + 1 + j + 1; k < len(list) {
					until = list[k].Position()
				}
			}
		}
		if len(dead) == 0 {
			return
		}
		keep := i + 1
		f := l.report(UnreachableCode, startOf(dead[0]), 1, "delete the unreachable statements", func() {
			out := append([]syntax.Stmt(nil), list[:keep]...)
			for _, d := range list[keep:] {
				if declaration(d) {
					out = append(out, d)
				}
			}
			*stmts = out
		}, "unreachable code: the statement before always leaves the block")
		if f != nil {
			f.Spans, f.Until = true, until
		}
		return
	}
}

// declaration reports whether s declares a function or a type, which
// unreachable-code keeps: a local fn is bound when its block starts, and
// a struct, enum, interface or type is known to the whole file (the
// checker would reject the file without it).
func declaration(s syntax.Stmt) bool {
	switch s.(type) {
	case *syntax.FnDecl, *syntax.StructDecl, *syntax.EnumDecl, *syntax.InterfaceDecl, *syntax.TypeDecl, *syntax.ImplBlock:
		return true
	}
	return false
}

func startOf(s syntax.Stmt) syntax.Pos {
	switch s := s.(type) {
	case *syntax.ExprStmt:
		return syntax.ExprStart(s.X)
	case *syntax.AssignStmt:
		return syntax.ExprStart(s.Target)
	}
	return s.Position()
}

// comparison reports x == x and comparisons with a bool literal.
func (l *linter) comparison(b *syntax.BinaryExpr, replace func(syntax.Node)) {
	if b.Op != "==" && b.Op != "!=" {
		return
	}
	if pure(b.X) && sameExpr(b.X, b.Y) && l.selfEqual(b.X, 0) {
		result := b.Op == "=="
		l.report(PointlessComparison, syntax.ExprStart(b.X), 1, "", nil, "comparing a value with itself is always %v", result)
		return
	}
	lit, other := b.Y, b.X
	if _, ok := b.X.(*syntax.BoolLit); ok {
		lit, other = b.X, b.Y
	}
	bl, ok := lit.(*syntax.BoolLit)
	if !ok {
		return
	}
	// b == true and b != false are b; b == false and b != true are !b.
	negate := bl.Value != (b.Op == "==")
	form := "b"
	if negate {
		form = "!b"
	}
	var fix func()
	if certainlyBool(other) && replace != nil {
		fix = func() {
			if negate {
				replace(&syntax.UnaryExpr{At: other.Position(), Op: "!", X: other})
			} else {
				replace(other)
			}
		}
	}
	desc := ""
	if fix != nil {
		desc = "write the operand alone"
	}
	l.report(PointlessComparison, syntax.ExprStart(b.X), 1, desc, fix, "comparison with `%v`: for a bool `b` this is `%s`", bl.Value, form)
}

// selfEqual reports whether x is known to be an int, string, bool or nil,
// the types for which x == x always holds. A float may be NaN (`z != z` is
// the NaN test), `==` between durations is always false
// (docs/spec/language.md §1.6), and of an operand of unknown type nothing
// is claimed. depth bounds the walk through let bindings.
func (l *linter) selfEqual(x syntax.Expr, depth int) bool {
	if certainlyBool(x) {
		return true
	}
	switch x := x.(type) {
	case *syntax.IntLit, *syntax.StringLit, *syntax.NilLit:
		return true
	case *syntax.UnaryExpr:
		_, isInt := x.X.(*syntax.IntLit)
		return x.Op == "-" && isInt
	case *syntax.Ident:
		if l.info == nil || depth > 8 {
			return false
		}
		ref := l.info.Refs[x]
		if ref == nil || ref.Binding == nil || ref.Binding.Reassign {
			return false
		}
		b := ref.Binding
		if b.Kind != resolve.KLet && b.Kind != resolve.KConst {
			return false
		}
		let, ok := b.Decl.(*syntax.LetStmt)
		if !ok {
			let = l.letOf[b.Decl]
		}
		if let == nil || let.Kind == syntax.BindVar || let.Value == nil {
			return false
		}
		if _, single := let.Pattern.(*syntax.IdentPattern); !single {
			return false
		}
		return l.selfEqual(let.Value, depth+1)
	}
	return false
}

// certainlyBool reports whether an expression always yields a bool.
func certainlyBool(x syntax.Expr) bool {
	switch x := x.(type) {
	case *syntax.BoolLit:
		return true
	case *syntax.UnaryExpr:
		return x.Op == "!"
	case *syntax.BinaryExpr:
		switch x.Op {
		case "==", "!=", "<", ">", "<=", ">=", "&&", "||", "in", "not in":
			return true
		}
	}
	return false
}

// pure reports whether evaluating x twice has no effect and gives the
// same value (no calls).
func pure(x syntax.Expr) bool {
	ok := true
	syntax.Walk(x, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		switch n.(type) {
		case *syntax.CallExpr, *syntax.MethodCall, *syntax.ValueCall, *syntax.ClosureLit, *syntax.PipeExpr, *syntax.IfExpr,
			*syntax.MatchExpr, *syntax.TryExpr, *syntax.SpawnExpr, *syntax.ParallelExpr, *syntax.SelectExpr,
			*syntax.RetryExpr, *syntax.DeadlineExpr, *syntax.MutexExpr, *syntax.PropagateExpr, *syntax.InterpString:
			ok = false
		}
		return ok
	})
	return ok
}

var posType = reflect.TypeOf(syntax.Pos{})

// sameExpr compares two expressions without positions.
func sameExpr(a, b syntax.Expr) bool {
	return same(reflect.ValueOf(a), reflect.ValueOf(b))
}

func same(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return same(a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type() == posType {
			return true
		}
		for i := 0; i < a.NumField(); i++ {
			if !same(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return a.Interface() == b.Interface()
}

// conversion reports to_string("…"), to_int(3) and to_float(1.5).
func (l *linter) conversion(c *syntax.CallExpr, replace func(syntax.Node)) {
	if len(c.Args) != 1 || len(c.TypeArgs) > 0 {
		return
	}
	arg := c.Args[0]
	var same bool
	switch c.Fn.Name {
	case "to_string":
		switch arg.(type) {
		case *syntax.StringLit, *syntax.InterpString:
			same = true
		}
	case "to_int":
		_, same = arg.(*syntax.IntLit)
	case "to_float":
		_, same = arg.(*syntax.FloatLit)
	}
	if !same {
		return
	}
	if l.info != nil {
		if ref := l.info.Refs[c.Fn]; ref == nil || ref.Scope != resolve.Universal {
			return // a user function of that name
		}
	}
	var fix func()
	if replace != nil {
		fix = func() { replace(arg) }
	}
	l.report(UnnecessaryConversion, c.At, len(c.Fn.Name), "replace the call with its argument", fix,
		"`%s` of a literal that already has that type returns it unchanged", c.Fn.Name)
}

// taskAssigns reports the assignments in a task body (the body of task,
// a spawn or parallel form) to variables declared outside it.
func (l *linter) taskAssigns(task syntax.Node, body *syntax.Block, form string) {
	fn := l.info.Funcs[task]
	if fn == nil || body == nil {
		return
	}
	syntax.Walk(body, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		var a *syntax.AssignStmt
		switch n := n.(type) {
		case *syntax.MutexStmt, *syntax.MutexExpr:
			// the tasks take turns in a mutex block: no update is lost
			return false
		case *syntax.AssignStmt:
			a = n
		default:
			return true
		}
		id, _ := syntax.TargetRoot(a.Target)
		if id == nil || l.taskAssigned[id] {
			return true
		}
		ref := l.info.Refs[id]
		if ref == nil || ref.Binding == nil || within(ref.Binding.Func, fn) {
			return true
		}
		l.taskAssigned[id] = true
		l.report(TaskAssignsCaptured, id.At, len(id.Name), "", nil,
			"`%s` body reassigns `%s`, declared outside it: the change is shared with the enclosing code and the other tasks", form, id.Name)
		return true
	})
}

// within reports whether f is fn or a function nested in it.
func within(f, fn *resolve.Function) bool {
	for ; f != nil; f = f.Parent {
		if f == fn {
			return true
		}
	}
	return false
}

// notEnumTypes are the built-in type names a typed catch may name: none
// is an enum (Result is, and stays out).
var notEnumTypes = map[string]bool{
	"int": true, "float": true, "string": true, "bool": true, "list": true, "dict": true,
	"set": true, "bytes": true, "duration": true, "any": true, "never": true,
	"unknown": true, "closure": true, "decimal": true, "nil": true,
}

// catchHandlesNothing reports a typed catch whose name is a built-in type
// or a struct, interface or type alias the file declares: no failure is a
// variant of it (docs/spec/language.md §8.3).
func (l *linter) catchHandlesNothing(e *syntax.TryExpr) {
	n, ok := e.CatchType.(*syntax.NamedType)
	if !ok || len(n.Args) > 0 || strings.Contains(n.Name, ".") {
		return
	}
	what := ""
	if notEnumTypes[n.Name] {
		what = "a built-in type"
	}
	for _, it := range l.file.Items {
		switch d := it.(type) {
		case *syntax.EnumDecl:
			if d.Name == n.Name {
				return
			}
		case *syntax.StructDecl:
			if d.Name == n.Name {
				what = "a struct"
			}
		case *syntax.InterfaceDecl:
			if d.Name == n.Name {
				what = "an interface"
			}
		case *syntax.TypeDecl:
			if d.Name == n.Name {
				what = "a type alias"
			}
		}
	}
	if what == "" {
		return
	}
	l.report(CatchHandlesNothing, n.At, len(n.Name), "", nil,
		"`catch (%s: %s)` handles no failure: a typed catch takes only the variants of the enum it names, and `%s` is %s",
		e.CatchVar, n.Name, n.Name, what)
}

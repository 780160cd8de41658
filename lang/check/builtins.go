package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// Library describes the standard library to the checker through the one
// builtin descriptor table: each entry's documented signature, such as
// `split(s, sep?)`, `round(n: int | float)` or `xs.sort()`.
type Library interface {
	// BuiltinSig returns the signature of the builtin function name.
	BuiltinSig(name string) (sig string, ok bool)
	// MethodSig returns the signature of the method name of the value
	// kind recv (a type_of name). A kind whose unknown names go to a
	// kind-wide fallback answers ok with an empty signature.
	MethodSig(recv, name string) (sig string, ok bool)
	// MethodNames lists the methods of the value kind recv.
	MethodNames(recv string) []string
}

// NamespaceLibrary is a Library that also knows the namespace globals
// (`stream`, `event_log`, `workflow`): their member names and signatures.
type NamespaceLibrary interface {
	// NamespaceMembers lists the members of the global name; ok is false
	// when name is not a namespace global.
	NamespaceMembers(name string) (members []string, ok bool)
	// NamespaceMemberSig returns the signature of member of namespace ns.
	NamespaceMemberSig(ns, member string) (sig string, ok bool)
}

// namespaceCall checks `ns.member(args)` on a namespace global: an
// unknown member is the static form of the run-time error, a known one
// gets the builtin arity and argument warnings. ok is false when x is
// not a namespace global, or when the name is a dict method the
// namespace has no member for (a namespace is a dict of its members).
// The result is the type the member's signature declares (`-> T`), else
// any.
func (c *checker) namespaceCall(e *syntax.MethodCall, args []types.Type) (types.Type, bool) {
	id, isIdent := e.X.(*syntax.Ident)
	nl, isNL := c.lib.(NamespaceLibrary)
	if !isIdent || !isNL || e.Optional || hasSpread(e.Args) {
		return nil, false
	}
	if ref := c.info.Refs[id]; ref == nil || ref.Scope != resolve.Universal {
		return nil, false
	}
	members, ok := nl.NamespaceMembers(id.Name)
	if !ok {
		return nil, false
	}
	text, known := nl.NamespaceMemberSig(id.Name, e.Name)
	if !known {
		if _, isDictMethod := c.lib.MethodSig("dict", e.Name); isDictMethod {
			return nil, false // a namespace is a dict: `stream.keys()`
		}
		help := ""
		if s := diag.Suggest(e.Name, members); s != "" {
			help = "did you mean `" + s + "`?"
		}
		c.report(sevError, e.At, "", help, "`"+id.Name+"` has no member `"+e.Name+"`")
		return types.Any, true
	}
	key := libKey{id.Name + ".", e.Name}
	sig, cached := c.libSigs[key]
	if !cached {
		var parsed bool
		if sig, parsed = parseSig(text); !parsed {
			sig = signature{min: -1}
		}
		c.libSigs[key] = sig
	}
	if sig.min >= 0 {
		c.libraryArgs(id.Name+"."+e.Name, sig, e.At, e.Args, args, "", sevWarning)
	}
	if sig.result != nil {
		return sig.result, true
	}
	return types.Any, true
}

// namespaceRead warns of `ns.name` on a namespace global that has no
// member name: a namespace is a dict of its members, so the read gives
// nil. It reports whether it warned.
func (c *checker) namespaceRead(e *syntax.MemberExpr) bool {
	id, isIdent := e.X.(*syntax.Ident)
	nl, isNL := c.lib.(NamespaceLibrary)
	if !isIdent || !isNL || e.Optional {
		return false
	}
	if ref := c.info.Refs[id]; ref == nil || ref.Scope != resolve.Universal {
		return false
	}
	members, ok := nl.NamespaceMembers(id.Name)
	if !ok || slices.Contains(members, e.Name) {
		return false
	}
	help := ""
	if s := diag.Suggest(e.Name, members); s != "" {
		help = "did you mean `" + s + "`?"
	}
	c.report(sevWarning, e.At, "", help, "`"+id.Name+"` has no member `"+e.Name+"` (it reads nil)")
	return true
}

// signature is a parsed descriptor signature. Its grammar is small:
// parameters separated by commas, each `name`, `name?` or `name = default`
// (optional), `...name` or `...` (a rest), optionally typed `name: T` with
// T in Harn type syntax; a `{…}` parameter is one option dict; an optional
// `-> T` after the parameters is the result type; and `f(a) / f(a, b)`
// lists alternative forms.
type signature struct {
	params   []sigParam // nil when the forms differ
	min, max int        // max < 0: no upper bound
	result   types.Type // nil when the signature does not say (or the forms differ)
}

type sigParam struct {
	name     string
	t        types.Type // nil when the signature does not say
	optional bool
	rest     bool
}

// parseSig reads a descriptor signature; ok is false for a text outside
// the grammar, which the checker then leaves alone.
func parseSig(sig string) (s signature, ok bool) {
	forms := strings.Split(sig, " / ")
	for i, form := range forms {
		ps, result, ok := parseForm(form)
		if !ok {
			return signature{}, false
		}
		min, max := 0, len(ps)
		for _, p := range ps {
			if p.rest {
				max = -1
			} else if !p.optional {
				min++
			}
		}
		if i == 0 {
			s = signature{params: ps, min: min, max: max, result: result}
			continue
		}
		if s.result != nil && (result == nil || !types.Identical(s.result, result)) {
			s.result = nil
		}
		s.params = nil
		s.min = minInt(s.min, min)
		if s.max >= 0 && (max < 0 || max > s.max) {
			s.max = max
		}
	}
	return s, true
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// parseForm reads one form, `name(params)` or `name(params) -> T`.
func parseForm(form string) (params []sigParam, result types.Type, ok bool) {
	form = strings.TrimSpace(form)
	open := strings.Index(form, "(")
	if open < 0 {
		return nil, nil, false
	}
	close := closingParen(form, open)
	if close < 0 {
		return nil, nil, false
	}
	if tail := strings.TrimSpace(form[close+1:]); tail != "" {
		text, arrow := strings.CutPrefix(tail, "->")
		if !arrow {
			return nil, nil, false
		}
		if result, ok = parseType(strings.TrimSpace(text)); !ok {
			return nil, nil, false
		}
	}
	for _, part := range SplitTop(form[open+1:close], ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, ok := parseParam(part)
		if !ok {
			return nil, nil, false
		}
		params = append(params, p)
	}
	return params, result, true
}

// closingParen is the index of the `)` closing the `(` at open, or -1.
func closingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// SplitTop splits the type or signature text s at each sep outside
// brackets (`(…)`, `[…]`, `{…}`, `<…>`; the `>` of an arrow `fn(T) -> U`
// closes none): a parameter list at its commas, a union type at its
// `|`s.
func SplitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			if i > 0 && s[i-1] == '-' { // the arrow of fn(T) -> U
				continue
			}
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func parseParam(part string) (sigParam, bool) {
	var p sigParam
	if strings.HasPrefix(part, "{") {
		return sigParam{name: "options"}, strings.HasSuffix(part, "}")
	}
	if rest, ok := strings.CutPrefix(part, "..."); ok {
		p.rest = true
		part = rest
		if part == "" {
			return p, true
		}
	}
	if name, _, ok := strings.Cut(part, "="); ok {
		p.optional = true
		part = strings.TrimSpace(name)
	}
	name, typ, typed := strings.Cut(part, ":")
	name = strings.TrimSpace(name)
	if n, ok := strings.CutSuffix(name, "?"); ok {
		p.optional = true
		name = n
	}
	if !isIdent(name) {
		return p, false
	}
	p.name = name
	if typed {
		t, ok := parseType(strings.TrimSpace(typ))
		if !ok {
			return p, false
		}
		p.t = t
	}
	return p, true
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// parseType reads a type in Harn syntax, through the parser.
func parseType(text string) (types.Type, bool) {
	f, err := syntax.Parse("", []byte("fn f(p: "+text+") {}"))
	if err != nil || len(f.Items) != 1 {
		return nil, false
	}
	fn, ok := f.Items[0].(*syntax.FnDecl)
	if !ok || len(fn.Params) != 1 || fn.Params[0].Type == nil {
		return nil, false
	}
	return types.NewEnv().FromSyntax(fn.Params[0].Type, nil), true
}

// libKey names a builtin (recv "") or a method in the checker's cache of
// parsed library signatures.
type libKey struct{ recv, name string }

// librarySig is the parsed signature of a builtin (recv "") or a method,
// cached per checker.
func (c *checker) librarySig(recv, name string) (signature, bool) {
	if c.lib == nil {
		return signature{}, false
	}
	key := libKey{recv, name}
	if s, ok := c.libSigs[key]; ok {
		return s, s.min >= 0
	}
	var text string
	var ok bool
	if recv == "" {
		text, ok = c.lib.BuiltinSig(name)
	} else {
		text, ok = c.lib.MethodSig(recv, name)
	}
	s, parsed := parseSig(text)
	if !ok || !parsed {
		s = signature{min: -1}
	}
	c.libSigs[key] = s
	return s, s.min >= 0
}

// capabilityMethod reports whether the capability handle type recv (a
// HarnessNAME) has a method name: its `*` fallback, which rejects every
// other name at run time, does not count.
func (c *checker) capabilityMethod(recv, name string) bool {
	if c.lib == nil || name == "*" {
		return false
	}
	for _, m := range c.lib.MethodNames(recv) {
		if m == name {
			return true
		}
	}
	return false
}

// libraryFunc is the function type of the builtin or method name of recv
// ("" for builtins) taken as a value, from its descriptor signature; any
// when the signature does not give one parameter list.
func (c *checker) libraryFunc(recv, name string) types.Type {
	sig, ok := c.librarySig(recv, name)
	if !ok || sig.params == nil && sig.max != 0 {
		return types.Any
	}
	fn := &types.Func{Return: sig.result}
	if fn.Return == nil {
		fn.Return = types.Any
	}
	for _, p := range sig.params {
		t := p.t
		if t == nil {
			t = types.Any
		}
		fn.Params = append(fn.Params, types.Param{Name: p.name, Type: t, Optional: p.optional, Rest: p.rest})
	}
	return fn
}

// builtinCall warns about a builtin called with the wrong number of
// arguments or with an argument of a kind its signature excludes
// (docs/spec/newer.md §3.4). Builtins are lenient at run time (a missing argument
// reads as nil, an extra one is ignored), which is why these are warnings
// and why they matter: the call runs, but not as written.
func (c *checker) builtinCall(e *syntax.CallExpr, args []types.Type) {
	if hasSpread(e.Args) {
		return
	}
	sig, ok := c.librarySig("", e.Fn.Name)
	if ok {
		c.libraryArgs(e.Fn.Name, sig, e.At, e.Args, args, "", sevWarning)
	}
	c.llmOptions(e)
}

// libraryArgs checks the arguments of a call of the builtin or method
// title against its signature; argument types are reported with severity
// typeSev (arity is always a warning, docs/spec/newer.md §3.4).
func (c *checker) libraryArgs(title string, sig signature, pos syntax.Pos, argx []syntax.Expr, args []types.Type, help string, typeSev diag.Severity) {
	if n := len(argx); n < sig.min || sig.max >= 0 && n > sig.max {
		c.report(sevWarning, pos, "", help,
			fmt.Sprintf("Builtin function '%s' expects %s, got %d", title, builtinArity(sig.min, sig.max), n))
		return
	}
	for i, p := range sig.params {
		if p.rest || i >= len(args) {
			break
		}
		if p.t != nil && known(args[i]) && !compatible(args[i], p.t) {
			c.report(typeSev, argx[i].Position(), "HARN-TYP-007", conversionHelp(argx[i], p.t, args[i]),
				fmt.Sprintf("argument %d `%s`: expected %s, found %s", i+1, p.name, p.t, show(args[i], p.t)))
		}
	}
}

// builtinArity words a builtin's arity as upstream does: "1 argument",
// "0 arguments", "1-2 arguments", "at least 1 argument".
func builtinArity(min, max int) string {
	plural := func(k int) string {
		if k == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", k)
	}
	switch {
	case max < 0:
		return "at least " + plural(min)
	case min == max:
		return plural(min)
	}
	return fmt.Sprintf("%d-%d arguments", min, max)
}

// valueMethod checks `x.name(args)` on a receiver whose kind is known
// statically. An unknown name is the static form of the run-time error
// (docs/spec/newer.md §2.11, §3.6); a known one gets the builtin arity and argument
// warnings. Kinds with a dynamic side stay unchecked: dicts (a key may
// hold a callable), numbers (their unknown methods still yield nil at run
// time), ranges and handles (kind-wide fallbacks).
func (c *checker) valueMethod(e *syntax.MethodCall, recv types.Type, args []types.Type) {
	if tp, ok := recv.(*types.TypeParam); ok {
		c.boundMethod(e, tp)
		return
	}
	if n, ok := types.Underlying(recv).(*types.Named); ok && n.Decl.Kind == types.InterfaceDecl {
		c.interfaceMethod(e, n.Decl)
		return
	}
	if c.lib == nil || hasSpread(e.Args) {
		return
	}
	if d := c.localImplType(recv); d != nil {
		c.implMethod(e, d)
		return
	}
	if u, ok := types.Underlying(recv).(*types.Union); ok && c.unionImplMethod(e, u) {
		return
	}
	if h, ok := types.Underlying(recv).(*types.Handle); ok && !h.IsRoot() {
		// Capability methods. Their typed parameters are guarded at run
		// time (``HarnessFs.read_text expects string argument 1, got
		// int``), so a definite mismatch is an error (docs/spec/newer.md
		// §2.15, §3.1), not a builtin's lenient-call warning.
		if sig, ok := c.librarySig(h.Name, e.Name); ok {
			c.libraryArgs(pathText(e.X, h.Name)+"."+e.Name, sig, e.At, e.Args, args, "", sevError)
			return
		}
		// A name the handle's method table lacks fails at run time with
		// these words (its `*` fallback rejects it, docs/spec/newer.md
		// §2.15). A warning: the references make only string, list and set
		// methods static (§3.6), and a program may catch the error.
		if names := c.lib.MethodNames(h.Name); len(names) > 0 && !c.capabilityMethod(h.Name, e.Name) {
			names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "*" })
			help := ""
			if s := diag.Suggest(e.Name, names); s != "" {
				help = "did you mean `" + s + "`?"
			}
			c.report(sevWarning, e.At, "", help, "value of type "+h.Name+" has no method `"+e.Name+"` (the call fails when it runs)")
		}
		return
	}
	if sh, ok := types.Underlying(recv).(*types.Shape); ok {
		c.hiddenCallable(e, sh)
	}
	if _, ok := types.Underlying(recv).(*types.Result); ok {
		c.resultMethod(e)
		return
	}
	// nil has no methods, so a `T?` receiver fails without T's method too
	kind := methodKind(types.RemoveNil(recv))
	if kind == "" {
		return
	}
	if _, ok := c.lib.MethodSig(kind, e.Name); !ok {
		c.noMethod(e, kind, c.lib.MethodNames(kind))
		return
	}
	sig, ok := c.librarySig(kind, e.Name)
	if !ok {
		return
	}
	help := ""
	if kind == "list" && len(e.Args) == 1 && (e.Name == "sort" || e.Name == "sorted") {
		help = "`." + e.Name + "()` takes no comparator; sort by a key with `." + e.Name + "_by(f)`"
	}
	c.libraryArgs(kind+"."+e.Name, sig, e.At, e.Args, args, help, sevWarning)
}

// resultHelpers are the free functions that take a Result
// (docs/spec/builtins.md §3.3).
var resultHelpers = []string{"is_ok", "is_err", "unwrap", "unwrap_or", "unwrap_err"}

// resultMethod warns about a method called on a Result: an enum variant
// has no methods, so the call fails at run time (docs/spec/newer.md
// §2.11); the Result helpers are free functions. A warning, not an error:
// the program may never reach the call.
func (c *checker) resultMethod(e *syntax.MethodCall) {
	help := "the Result helpers are free functions: `is_ok(r)`, `unwrap(r)`, `unwrap_or(r, d)`"
	if slices.Contains(resultHelpers, e.Name) {
		args := pathText(e.X, "r")
		if e.Name == "unwrap_or" { // the default follows the Result
			d := "d"
			if len(e.Args) > 0 {
				if t := argText(e.Args[0]); t != "" {
					d = t
				}
			}
			args += ", " + d
		}
		help = "call the free function: `" + e.Name + "(" + args + ")`"
	}
	c.report(sevWarning, e.At, "", help, "value of type enum has no method `"+e.Name+"`")
}

// hiddenCallable warns about `d.name(…)` where the record d holds a
// callable under name and name is also a built-in dict method: the
// method wins, and the stored callable is not called
// (docs/spec/builtins.md §2 rule 4), as with `{get: { -> 4 }}.get()`.
func (c *checker) hiddenCallable(e *syntax.MethodCall, sh *types.Shape) {
	f, ok := sh.Field(e.Name)
	if !ok {
		return
	}
	if _, isFn := types.Underlying(f.Type).(*types.Func); !isFn {
		return
	}
	if _, isDictMethod := c.lib.MethodSig("dict", e.Name); !isDictMethod {
		return
	}
	recv := pathText(e.X, "d")
	c.report(sevWarning, e.At, "", "call the stored value itself: `("+recv+"."+e.Name+")(…)`",
		"`"+e.Name+"` is a dict method: `."+e.Name+"(…)` calls it, not the callable stored under the key `"+e.Name+"`")
}

// boundMethod checks a method called on a value of a generic type: the
// interfaces bounding the parameter are all the program knows it has
// (docs/spec/newer.md §3.6). A bound that is not a visible interface
// leaves the call unchecked.
func (c *checker) boundMethod(e *syntax.MethodCall, tp *types.TypeParam) {
	if len(tp.Bounds) == 0 {
		return
	}
	methods := 0
	for _, b := range tp.Bounds {
		d := c.env.Lookup(b)
		if d == nil || d.Kind != types.InterfaceDecl {
			return
		}
		if _, ok := d.Method(e.Name); ok {
			return
		}
		methods += len(d.Methods)
	}
	if methods == 0 {
		return // bounds that only declare associated types say nothing of methods
	}
	if len(tp.Bounds) == 1 {
		c.errorf(e.At, "Method '%s' not found in interface '%s' (constraint on '%s')", e.Name, tp.Bounds[0], tp.Name)
		return
	}
	c.errorf(e.At, "Method '%s' not found in constraint interfaces %s (constraint on '%s')", e.Name, strings.Join(tp.Bounds, " + "), tp.Name)
}

// interfaceMethod reports a method called on a value of interface type
// that the interface does not declare: the interface is all the program
// knows the value has (docs/spec/newer.md §3.6, in the wording of the
// bounded generic parameter without its constraint tail). The methods
// the library gives every struct stay callable; an interface declaring
// no methods (associated types only) says nothing of them.
func (c *checker) interfaceMethod(e *syntax.MethodCall, d *types.Decl) {
	if len(d.Methods) == 0 || c.multiDecl[d.Name] {
		return
	}
	if _, ok := d.Method(e.Name); ok {
		return
	}
	if c.lib != nil {
		if _, ok := c.lib.MethodSig("struct", e.Name); ok {
			return
		}
	}
	names := make([]string, 0, len(d.Methods))
	for _, m := range d.Methods {
		names = append(names, m.Name)
	}
	help := "declared methods: " + strings.Join(names, ", ")
	if s := diag.Suggest(e.Name, names); s != "" {
		help = "did you mean `" + s + "`?"
	}
	c.report(sevError, e.At, "", help, fmt.Sprintf("Method '%s' not found in interface '%s'", e.Name, d.Name))
}

// implMethod reports a method that the struct or enum d of this file has
// nowhere: at a call site that sees one of the file's impl blocks for d,
// a name no impl block of d declares (nor the library gives every struct)
// is the run-time error "value of type struct has no method `m`"
// ("… enum …" for an enum's impl) (docs/spec/newer.md §2.11); a field holding a closure is not called
// this way either (docs/spec/builtins.md §2). A site that sees no impl
// yields nil instead (docs/spec/language.md §10.3), and a struct without
// an impl block in the file may get its methods from another module's
// impl of the same name, so both are left alone.
func (c *checker) implMethod(e *syntax.MethodCall, d *types.Decl) {
	names, missing := c.implMissing(e, d)
	if !missing {
		return
	}
	if _, ok := d.Field(e.Name); ok {
		c.report(sevError, e.At, "", "`"+e.Name+"` is a field; call the value it holds with `("+pathText(e.X, "value")+"."+e.Name+")(…)`",
			"value of type struct has no method `"+e.Name+"`")
		return
	}
	kind := "struct"
	if d.Kind == types.EnumDecl {
		kind = "enum"
	}
	c.noMethod(e, kind, names)
}

// implMissing reports whether call e names a method d has nowhere, as
// implMethod tells it, and the method names a suggestion may offer.
func (c *checker) implMissing(e *syntax.MethodCall, d *types.Decl) (names []string, missing bool) {
	if !d.HasImpl || c.multiDecl[d.Name] || d.Node == nil {
		return nil, false
	}
	if _, ok := d.Method(e.Name); ok {
		return nil, false
	}
	kind := "struct"
	if d.Kind == types.EnumDecl {
		kind = "enum"
	}
	if _, ok := c.lib.MethodSig(kind, e.Name); ok {
		return nil, false
	}
	block := c.seenImpl(e, d.Name) // (an inner block's methods may be missing from d)
	if block == nil {
		return nil, false
	}
	for _, m := range block.Methods {
		if m.Name == e.Name {
			return nil, false
		}
		names = append(names, m.Name)
	}
	return append(names, c.lib.MethodNames(kind)...), true
}

// unionImplMethod is implMethod for a union of the file's structs (`a:
// Cat | Dog`): a method no member has is the run-time error whichever
// member the value is. A member holding a field of that name leaves the
// call alone. It reports whether u is such a union (other unions, `T?`
// among them, are valueMethod's to check).
func (c *checker) unionImplMethod(e *syntax.MethodCall, u *types.Union) bool {
	var names []string
	missing := true
	for _, m := range u.Types {
		d := c.localImplType(m)
		if d == nil || d.Kind != types.StructDecl {
			return false
		}
		if _, ok := d.Field(e.Name); ok {
			missing = false
			continue
		}
		more, ok := c.implMissing(e, d)
		missing = missing && ok
		for _, n := range more {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if missing {
		c.noMethod(e, "struct", names)
	}
	return true
}

func (c *checker) noMethod(e *syntax.MethodCall, typeName string, names []string) {
	msg := "value of type " + typeName + " has no method `" + e.Name + "`"
	help := ""
	s := diag.Suggest(e.Name, names)
	switch {
	case (typeName == "string" || typeName == "list") && s != "len" &&
		(lengthName(e.Name) || s == "" && lengthSlip(e.Name)):
		help = lengthHelp // `xs.len()`, `xs.size()`, `s.lenght()`: not `min` or `slice`
	case s != "":
		help = "did you mean `" + s + "`?"
	}
	c.report(sevError, e.At, "", help, msg)
}

// lengthHelp points a program asking a string or list for its length
// by another language's name at Harn's ways (docs/spec/builtins.md §2).
const lengthHelp = "the length is `len(…)` or the `count` property"

// lengthName reports whether name is one other languages give the
// length: `len`, `length`, `size`.
func lengthName(name string) bool {
	return name == "len" || name == "length" || name == "size"
}

// lengthSlip reports whether name is a slip for such a name (`lenght`).
func lengthSlip(name string) bool {
	return diag.Suggest(name, []string{"length", "size"}) != ""
}

// methodKind is the run-time kind (a type_of name) of every value of type
// t whose methods the checker knows, or "".
func methodKind(t types.Type) string {
	switch t := types.Underlying(t).(type) {
	case *types.Basic:
		switch t {
		case types.String:
			return "string"
		case types.Bool:
			return "bool"
		case types.Int:
			return "int"
		case types.Float:
			return "float"
		}
	case *types.Literal:
		switch t.Base() {
		case types.String:
			return "string"
		case types.Int:
			return "int"
		}
	case *types.List, *types.Tuple:
		return "list" // a tuple is a list at run time (docs/spec/newer.md §2.3)
	case *types.Set:
		return "set"
	}
	return ""
}

// localImplType is the struct or enum declaration of t when this file declares it
// (so its impl blocks, the only methods its values have, are known).
func (c *checker) localImplType(t types.Type) *types.Decl {
	n, ok := t.(*types.Named)
	if !ok || !hasMethodsDecl(n.Decl) || n.Decl.Origin != c.file.Path {
		return nil
	}
	return n.Decl
}

// pathText spells a receiver written as a dotted path of names
// (`harness.llm`), else fallback.
func pathText(x syntax.Expr, fallback string) string {
	switch x := x.(type) {
	case *syntax.Ident:
		return x.Name
	case *syntax.MemberExpr:
		if p := pathText(x.X, ""); p != "" && !x.Optional {
			return p + "." + x.Name
		}
	}
	return fallback
}

// argText is an argument as the source wrote it when it is a name path
// or a string or int literal, else "".
func argText(x syntax.Expr) string {
	if t := literalText(x); t != "" {
		return t
	}
	return pathText(x, "")
}

// decimalMath types a call of a math builtin given a decimal argument
// (docs/language.md §2): its descriptor signature keeps upstream's
// `int | float` wording, so the decimal forms are typed here, without the
// argument warning. ok is false for other calls. abs of a decimal is a
// decimal, round, floor, ceil and sign give an int, pow of a decimal base
// is a decimal, and min/max of a decimal and a decimal or an int the
// operand they pick. DecimalResults lists the kinds beyond the
// descriptor's result this gives.
func decimalMath(name string, args []types.Type) (t types.Type, ok bool) {
	only := func(i int, kind string) bool {
		if i >= len(args) {
			return false
		}
		ks := kinds(args[i])
		return len(ks) == 1 && ks[0] == kind
	}
	isDec := func(i int) bool { return only(i, "decimal") }
	switch name {
	case "abs":
		if isDec(0) && len(args) == 1 {
			return types.Decimal, true
		}
	case "round", "floor", "ceil", "sign":
		if isDec(0) && len(args) == 1 {
			return types.Int, true
		}
	case "pow":
		if isDec(0) && len(args) == 2 && only(1, "int") {
			return types.Decimal, true
		}
	case "min", "max":
		if len(args) != 2 || !isDec(0) && !isDec(1) {
			return nil, false
		}
		exact := func(i int) types.Type {
			if isDec(i) {
				return types.Decimal
			}
			if only(i, "int") {
				return types.Int
			}
			return nil
		}
		if a, b := exact(0), exact(1); a != nil && b != nil {
			return types.NewUnion(a, b), true
		}
	}
	return nil, false
}

// DecimalResults lists, for a math builtin given a decimal argument,
// the value kinds it may return beyond its descriptor signature's result
// (decimalMath types those calls); nil for other builtins.
func DecimalResults(name string) []string {
	switch name {
	case "abs", "pow", "min", "max":
		return []string{"decimal"}
	}
	return nil
}

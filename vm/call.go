package vm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/diag"
)

// callValue calls a non-closure callable (or a generator function) from
// the interpreter loop.
func (th *Thread) callValue(fn Value, args []Value) (v Value, err error) {
	switch f := fn.Object().(type) {
	case *Builtin:
		return th.callBuiltin(f, args)
	case *BoundMethod:
		defer th.recoverNative(f.Method, len(th.frames), &v, &err)
		v, err = f.Fn(th, f.Recv, Args(args))
		return v, th.endingRun(err)
	case *Closure:
		if f.Proto.IsGen || f.Proto.IsStream {
			return th.makeGenerator(f, append([]Value(nil), args...))
		}
		return th.call(Of(f), append([]Value(nil), args...), false)
	}
	return th.call(fn, args, false)
}

// callBuiltin calls b with args, a Go panic in it becoming an error.
func (th *Thread) callBuiltin(b *Builtin, args []Value) (v Value, err error) {
	defer th.recoverNative(b.name, len(th.frames), &v, &err)
	v, err = b.Fn(th, Args(args))
	return v, th.endingRun(err)
}

// endingRun is err, or, when the run is ending (exit() in another task,
// Ctrl-C), the error that ends it: a call that waited (receive, await,
// sleep) and was woken as another task exited does not let its thread
// run on, printing or taking more work, as it would until its next
// check; the program stops there, as one whose process exited would.
func (th *Thread) endingRun(err error) error {
	if err == nil && th.vm.interrupt.Load() {
		return th.stopErr()
	}
	return err
}

// recoverNative is deferred around every call from the interpreter loop
// into Go code (builtins and methods). A Go panic there — an allocation
// size the runtime refuses, an index a builtin got wrong — becomes a
// catchable run-time error instead of ending the process, so one bad call
// never takes down a script, `harn tool run` or an MCP server. Frames that
// a nested call into Harn code pushed before the panic are dropped.
func (th *Thread) recoverNative(name string, depth int, v *Value, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if len(th.frames) > depth {
		th.frames = th.frames[:depth]
	}
	if e, ok := r.(*Error); ok {
		*v, *err = Nil, e
		return
	}
	*v, *err = Nil, Runtimef("%s failed: %s", name, nativePanicText(r))
}

// nativePanicText says what went wrong in a native function without the
// Go runtime's internal wording where a plainer one exists.
func nativePanicText(r any) string {
	msg := fmt.Sprint(r)
	switch {
	case strings.Contains(msg, "length overflow"), strings.Contains(msg, "len out of range"),
		strings.Contains(msg, "cap out of range"), strings.Contains(msg, "makeslice"):
		return "result too large"
	}
	return "internal error: " + msg
}

// makeGenerator creates the value returned by calling a function that
// contains yield (or a gen fn with emit). The concurrency runtime installs
// the factory.
// A VM without a factory uses the runtime hook `__generator(f, args)`.
func (th *Thread) makeGenerator(f *Closure, args []Value) (Value, error) {
	if th.vm.GeneratorFactory != nil {
		return th.vm.GeneratorFactory(th, f, args)
	}
	if hook := th.vm.Universe.Builtin("__generator"); hook != nil {
		return hook.Fn(th, Args{Of(f), Of(NewList(args))})
	}
	return Value{}, Runtimef("generators are not available in this runtime")
}

// yield hands a value to the generator's consumer (YIELD/EMIT).
func (th *Thread) yield(emit bool, v Value) (Value, error) {
	y, ok := th.Task.(Yielder)
	if !ok {
		if emit {
			return Value{}, Runtimef("emit outside a gen fn")
		}
		return Value{}, Runtimef("yield outside a generator")
	}
	return y.Yield(th, v)
}

// Yielder is implemented by the task state of a thread running a generator.
type Yielder interface {
	Yield(th *Thread, v Value) (Value, error)
}

// callMethodAt is callMethod for the method call site with cache slot c
// of rt: a struct's impl methods are those of the impl the site sees
// (VM.siteImpl), generators included; a site that sees none of the
// program's impls of the struct yields nil (docs/spec/language.md §10.3).
func (th *Thread) callMethodAt(rt *funcRT, c int, recv Value, name string, args []Value) (Value, error) {
	if sv, ok := recv.Object().(*StructValue); ok {
		methods, hidden := th.vm.siteImpl(rt.fn, c, sv.Name)
		if hidden {
			return Nil, nil
		}
		if methods != nil {
			if m := methods[name]; m != nil {
				full := make([]Value, 0, len(args)+1)
				full = append(full, recv)
				full = append(full, args...)
				return th.Call(Of(m), full...)
			}
			return Value{}, noMethod(recv, name)
		}
	}
	return th.callMethod(recv, name, args)
}

// callMethod dispatches `recv.name(args)` (docs/spec/builtins.md §2). A method
// nothing answers is a run-time error (docs/spec/newer.md §2.11): April returned nil,
// which let a typo run on silently.
func (th *Thread) callMethod(recv Value, name string, args []Value) (v Value, err error) {
	u := th.vm.Universe
	t := recv.Type()
	if d, ok := recv.AsDict(); ok {
		if f, ok := namespaceMember(d, name); ok {
			if b, ok := f.Object().(*Builtin); ok {
				return b.Fn(th, Args(args)) // a library member, as callNative calls
			}
			return th.Call(f, append([]Value(nil), args...)...)
		}
	}
	if m := u.Method(t, name); m != nil {
		return th.callNative(m, recv, args)
	}
	switch r := recv.Object().(type) {
	case *StructValue:
		if c := th.vm.impl(r.Name, name); c != nil {
			full := make([]Value, 0, len(args)+1)
			full = append(full, recv)
			full = append(full, args...)
			return th.Call(Of(c), full...)
		}
		return Value{}, noMethod(recv, name)
	case *EnumValue:
		// an impl block for an enum gives its values methods, as one for
		// a struct does (docs/language.md: a choice where the reference
		// says impl on a non-struct has no effect)
		if c := th.vm.impl(r.Enum, name); c != nil {
			full := make([]Value, 0, len(args)+1)
			full = append(full, recv)
			full = append(full, args...)
			return th.Call(Of(c), full...)
		}
	case *Dict:
		if f, ok := r.Get(name); ok && IsCallable(f) {
			return th.Call(f, append([]Value(nil), args...)...)
		}
		if lib := r.LibraryNamespace(); lib != "" {
			return Value{}, Typef("`%s` has no member `%s`", lib, name)
		}
		if r.namespace != nil {
			// an `import * as ns` value (docs/spec/newer.md §1.3); a
			// member that is not a function fails as calling any value
			// that is not callable does (`cannot call int`)
			if v, ok := r.Get(name); ok {
				return Value{}, Typef("cannot call %s: module namespace member `%s` is not callable", v.Type(), name)
			}
			return Value{}, Runtimef("module namespace has no member `%s`", name)
		}
		e := Runtimef("dict has no method `%s`", name)
		e.Help = dictMethodHelp(u, name)
		return Value{}, e
	}
	if m := u.Method(t, "*"); m != nil {
		// a kind-wide fallback (ranges lift themselves into iterators)
		return m.Fn(th, recv, append(Args{Str(name)}, args...))
	}
	if o, ok := recv.Object().(interface {
		CallMethod(th *Thread, name string, args Args) (Value, bool, error)
	}); ok {
		v, found, err := o.CallMethod(th, name, Args(args))
		if found || err != nil {
			return v, err
		}
	}
	// every other kind, ints and floats included, raises (docs/spec/newer.md
	// §2.11: the newest dispatcher's wording for "other kinds"; the checker
	// already rejects any method on a known int or float)
	e := noMethod(recv, name)
	if b, ok := recv.Object().(*Builtin); ok && b.structType {
		e.Help = th.typeCallHelp(b.name, name)
	} else if e.Help == "" {
		e.Help = u.methodHelp(name, t)
	}
	return Value{}, e
}

// NoMethod is the error for a call of the method name on a value of kind
// (docs/spec/newer.md §2.11) that answers the methods of its own table and
// of the kinds in also (a range lifts itself into an iterator).
func (u *Universe) NoMethod(kind, name string, also ...string) *Error {
	e := Runtimef("value of type %s has no method `%s`", kind, name)
	e.Help = u.methodHelp(name, kind, also...)
	return e
}

// dictLookalikes are other languages' dict methods and the Harn method
// that does their work (docs/spec/builtins.md §3.8).
var dictLookalikes = map[string]string{
	"has_key": "has", "contains": "has", "contains_key": "has", "includes": "has",
	"hasOwnProperty": "has", "items": "entries", "update": "merge", "pop": "remove",
	"delete": "remove", "length": "count", "size": "count", "len": "count",
}

// dictMethodHelp is the help of a failed method call on a dict: the dict
// method another language's name stands for, else the close spelling and
// the list of dict methods, and that a callable stored under the key is
// what `d.name(…)` calls (docs/spec/language.md §2.9).
func dictMethodHelp(u *Universe, name string) string {
	stored := "`d." + name + "(…)` calls a function stored under the key `" + name + "`"
	if m, ok := dictLookalikes[name]; ok {
		return "did you mean `" + m + "`?; " + stored
	}
	if h := u.methodHelp(name, "dict"); h != "" {
		return h + "; " + stored
	}
	return stored
}

// maxListedMethods is the most method names a help line lists.
const maxListedMethods = 40

// methodHelp is the advice for a method name the kinds do not have: the
// closest of their method names, then the names themselves when they are
// few enough to read ("" when the kinds have no methods at all).
func (u *Universe) methodHelp(name, kind string, also ...string) string {
	var names []string
	seen := map[string]bool{"*": true}
	for _, k := range append([]string{kind}, also...) {
		for _, m := range u.Methods(k) {
			if !seen[m.Name] && !strings.HasPrefix(m.Name, "__") {
				seen[m.Name] = true
				names = append(names, m.Name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	var help []string
	if s := diag.Suggest(name, names); s != "" {
		help = append(help, "did you mean `"+s+"`?")
	}
	if len(names) <= maxListedMethods {
		slices.Sort(names)
		what := kind + " methods: "
		if len(also) > 0 {
			what = kind + " methods, with those of " + strings.Join(also, " and ") + " it lifts itself into: "
		}
		help = append(help, what+strings.Join(names, ", "))
	}
	return strings.Join(help, "; ")
}

// typeCallHelp explains `Point.m()` on a struct type: impl methods are
// called on instances only (docs/spec/language.md §10.3).
func (th *Thread) typeCallHelp(structName, name string) string {
	if th.vm.impl(structName, name) != nil {
		return "`" + name + "` is a method of `impl " + structName + "`: methods are called on a " + structName +
			" value (`value." + name + "(…)`); a function without `self` belongs outside the impl block"
	}
	return "`" + structName + "` is a struct type: build a value with `" + structName + " {…}` and call methods on it"
}

// callNative calls universe method m on recv.
func (th *Thread) callNative(m *Method, recv Value, args []Value) (v Value, err error) {
	defer th.recoverNative(m.Name, len(th.frames), &v, &err)
	return m.Fn(th, recv, Args(args))
}

// noMethod is the error for a method no receiver of this kind has. A
// struct field holding a function is not a method (docs/spec/builtins.md
// §2); the error says how to call it.
func noMethod(recv Value, name string) *Error {
	if sv, ok := recv.Object().(*StructValue); ok {
		if f, ok := sv.Get(name); ok && IsCallable(f) {
			e := Runtimef("value of type %s has no method `%s`", recv.Type(), name)
			e.Help = "`" + name + "` is a field holding a function: call it as `(value." + name + ")(…)`"
			return e
		}
	}
	return Runtimef("value of type %s has no method `%s`", recv.Type(), name)
}

// CallMethod is the public form of method dispatch, for builtins.
func (th *Thread) CallMethod(recv Value, name string, args ...Value) (Value, error) {
	return th.callMethod(recv, name, args)
}

// pipe is `x |> f` (docs/spec/language.md §2.8).
func (th *Thread) pipe(m *Module, x, f Value) (Value, error) {
	fn, err := th.pipeCallee(m, f)
	if err != nil {
		return Value{}, err
	}
	return th.callValue(fn, []Value{x})
}

// pipeCallee is what `x |> f` calls: f itself when callable, or the
// function or builtin a string names.
func (th *Thread) pipeCallee(m *Module, f Value) (Value, error) {
	if fn, ok := f.AsString(); ok {
		if v, ok := m.Global(fn.s); ok && isCallee(v) {
			return v, nil
		}
		if b := th.vm.Universe.Builtin(fn.s); b != nil {
			return Of(b), nil
		}
		return Value{}, th.undefinedBuiltin(fn.s, m)
	}
	switch fn := f.Object().(type) {
	case *Closure, *Builtin, *BoundMethod:
		return Of(fn), nil
	}
	return Value{}, Typef("cannot pipe into %s", f.Type())
}

// checkParam is the run-time check of an annotated parameter
// (docs/spec/language.md §10.6).
func (th *Thread) checkParam(name string, t *compiler.RType, v Value) error {
	if t.Kind == "rest" {
		return th.checkRest(name, t, v)
	}
	if msg := typeMismatch(th, t, v); msg != "" {
		e := Typef("parameter '%s'%s", name, msg)
		e.Help = collectHelp(t, v)
		return e
	}
	return nil
}

// collectHelp is the advice for a lazy value (a range, an iterator, a
// generator) passed where a list is declared: `.map` on a range or an
// iterator stays lazy (docs/spec/builtins.md §3.10).
func collectHelp(t *compiler.RType, v Value) string {
	if !strings.HasPrefix(t.Name, "list") {
		return ""
	}
	what := map[string]string{"range": "a range", "iter": "an iterator", "generator": "a generator"}[v.Type()]
	if what == "" {
		return ""
	}
	return what + " is lazy: collect it into a list with `.to_list()`"
}

// checkRest checks each argument collected into rest parameter name
// against the element type, naming the first argument that does not fit
// by its position in the call.
func (th *Thread) checkRest(name string, t *compiler.RType, v Value) error {
	l, ok := v.AsList()
	if !ok {
		return nil
	}
	for i, arg := range l.items {
		if msg := typeMismatch(th, t.Elems[0], arg); msg != "" {
			return Typef("parameter '%s' (argument %d)%s", name, t.First+i, msg)
		}
	}
	return nil
}

// typeMismatch returns "" when v satisfies t, else the message tail.
func typeMismatch(th *Thread, t *compiler.RType, v Value) string {
	if matchesRType(th, t, v) {
		return ""
	}
	switch t.Kind {
	case "shape":
		d, ok := v.AsDict()
		if !ok {
			if s, ok := v.AsStruct(); ok {
				d = structAsDict(s)
			}
		}
		if d != nil {
			for _, f := range t.Fields {
				fv, present := d.Get(f.Name)
				if present && nilField(th, f, fv) {
					continue
				}
				if !present || fv.IsNil() {
					if !f.Optional {
						return fmt.Sprintf(": missing field '%s' (%s)", f.Name, f.Type.Name)
					}
					continue
				}
				if !matchesRType(th, f.Type, fv) {
					return fmt.Sprintf(": field '%s' expected %s, got %s", f.Name, f.Type.Name, fv.Type())
				}
			}
		}
	case "interface":
		return fmt.Sprintf(": expected value satisfying interface '%s', got %s", t.Name, v.Type())
	case "union":
		// `Pt?` given a value that is not nil explains itself as `Pt`
		// does (a missing or mistyped field)
		if m := nonNilMember(t); m != nil && !v.IsNil() {
			if msg := typeMismatch(th, m, v); strings.HasPrefix(msg, ":") {
				return msg
			}
		}
	case "all":
		// the first member that fails explains itself when it can name
		// a field; otherwise the whole intersection is named
		for _, e := range t.Elems {
			if !matchesRType(th, e, v) {
				if msg := typeMismatch(th, e, v); strings.HasPrefix(msg, ":") {
					return msg
				}
				break
			}
		}
	}
	return fmt.Sprintf(" expected %s, got %s (%s)", t.Name, typeNameOf(v), ToDisplay(v))
}

// nonNilMember is the one member of a union besides nil (`T` of `T?`),
// or nil when there are several.
func nonNilMember(t *compiler.RType) *compiler.RType {
	var m *compiler.RType
	for _, e := range t.Elems {
		if e.Kind == "nil" {
			continue
		}
		if m != nil {
			return nil
		}
		m = e
	}
	return m
}

func typeNameOf(v Value) string {
	if s, ok := v.AsStruct(); ok {
		return s.Name
	}
	return v.Type()
}

func structAsDict(s *StructValue) *Dict {
	b := NewDictBuilder(len(s.Fields))
	for _, f := range s.Fields {
		b.Set(f.Name, f.Value)
	}
	return b.Build()
}

// nilField reports whether v is a nil that shape field f accepts as its
// value: a field written `name: T?` must be present, but may hold nil
// (docs/spec/newer.md §2.22).
func nilField(th *Thread, f compiler.RField, v Value) bool {
	return v.IsNil() && matchesRType(th, f.Type, Nil)
}

// matchesLiteral reports whether v is the value of a literal type. An int
// literal also admits the float of the same value, as an int parameter
// admits floats (docs/spec/newer.md §2.22).
func matchesLiteral(lit any, v Value) bool {
	switch lit := lit.(type) {
	case string:
		s, ok := v.AsString()
		return ok && s.s == lit
	case int64:
		switch n := v.Object().(type) {
		case Int:
			return int64(n) == lit
		case Float:
			f := float64(n)
			return f == float64(lit) && f >= -(1<<63) && f < 1<<63 && int64(f) == lit
		}
	}
	return false
}

// fieldsMatch reports whether dict d has the fields of a shape or struct
// type: each one present with a value of its type, or absent (or nil)
// when it is optional.
func fieldsMatch(th *Thread, fields []compiler.RField, d *Dict) bool {
	for _, f := range fields {
		fv, present := d.Get(f.Name)
		if present && nilField(th, f, fv) {
			continue
		}
		if !present || fv.IsNil() {
			if !f.Optional {
				return false
			}
			continue
		}
		if !matchesRType(th, f.Type, fv) {
			return false
		}
	}
	return true
}

func matchesRType(th *Thread, t *compiler.RType, v Value) bool {
	switch t.Kind {
	case "any":
		return true
	case "int", "float":
		switch v.Object().(type) {
		case Int, Float:
			return true
		}
		return false
	case "string", "bool", "nil", "list", "dict", "set", "bytes", "decimal":
		return v.Type() == t.Kind
	case "closure":
		return isCallee(v)
	case "kind":
		return v.Type() == t.Name
	case "literal":
		return matchesLiteral(t.Lit, v)
	case "union":
		for _, e := range t.Elems {
			if matchesRType(th, e, v) {
				return true
			}
		}
		return false
	case "all":
		for _, e := range t.Elems {
			if !matchesRType(th, e, v) {
				return false
			}
		}
		return true
	case "listof":
		l, ok := v.AsList()
		if !ok {
			return false
		}
		for _, e := range l.items {
			if !matchesRType(th, t.Elems[0], e) {
				return false
			}
		}
		return true
	case "tupleof":
		l, ok := v.AsList()
		if !ok || len(l.items) != len(t.Elems) {
			return false
		}
		for i, e := range l.items {
			if !matchesRType(th, t.Elems[i], e) {
				return false
			}
		}
		return true
	case "dictof":
		d, ok := v.AsDict()
		if !ok {
			return false
		}
		good := true
		d.Range(func(_ string, e Value) bool {
			good = matchesRType(th, t.Elems[0], e)
			return good
		})
		return good
	case "shape":
		d, ok := v.AsDict()
		if !ok {
			s, isStruct := v.AsStruct()
			if !isStruct {
				return false
			}
			d = structAsDict(s)
		}
		return fieldsMatch(th, t.Fields, d)
	case "struct":
		if s, ok := v.AsStruct(); ok {
			if t.Decl != "" {
				return s.Name == t.Decl
			}
			return s.Name == t.Name
		}
		d, ok := v.AsDict()
		if !ok {
			return false
		}
		return fieldsMatch(th, t.Fields, d)
	case "interface":
		if _, ok := v.AsStruct(); ok {
			return true
		}
		// an enum value whose enum has an impl block (docs/language.md §4)
		e, ok := v.Object().(*EnumValue)
		return ok && th.vm.hasImplFor(e.Enum)
	}
	return true
}

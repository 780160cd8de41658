package vm

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// BuiltinFunc implements a builtin function. Builtins are lenient by
// contract (docs/spec/builtins.md §0): bad argument types usually produce a fallback
// value, not an error; read arguments through Args.
type BuiltinFunc func(th *Thread, args Args) (Value, error)

// Builtin is a builtin function value (`len`, `println`, …). Its bare name
// is a first-class value that displays as `<builtin NAME>`.
type Builtin struct {
	name string
	Sig  string // e.g. "split(s, sep?)"
	Doc  string // one line
	Fn   BuiltinFunc
	// structType is set on the constructor a struct declaration binds:
	// the value of the struct's name, whose errors call it a struct type.
	structType bool
	// toString is set on to_string (MarkToString).
	toString bool
	// Host is what the package that made the builtin attaches to it for
	// its own use (a tool value's handler carries the form of it that a
	// tool call runs, package tool); the VM never reads it.
	Host any
}

// NewBuiltin makes a builtin value.
func NewBuiltin(name, sig, doc string, fn BuiltinFunc) *Builtin {
	return &Builtin{name: name, Sig: sig, Doc: doc, Fn: fn}
}

// MakeBuiltin is NewBuiltin for a table that stores builtins by value
// (the standard library's slabs); use it through a pointer into the
// table, which must then never move: a builtin's identity is its address.
func MakeBuiltin(name, sig, doc string, fn BuiltinFunc) Builtin {
	return Builtin{name: name, Sig: sig, Doc: doc, Fn: fn}
}

// MarkToString declares b to be to_string: called with one int, it
// returns the int's decimal text (ToDisplay). The VM then writes that text
// itself, straight into a concatenation that follows (`"item" +
// to_string(i)` makes one string, not two). Call it before b is used.
func (b *Builtin) MarkToString() { b.toString = true }

func (b *Builtin) Name() string { return b.name }
func (*Builtin) Type() string   { return "builtin" }
func (*Builtin) Truth() bool    { return true }
func (b *Builtin) Display(sb *strings.Builder) {
	sb.WriteString("<builtin ")
	sb.WriteString(b.name)
	sb.WriteByte('>')
}

// MethodFunc implements a method on a receiver kind.
type MethodFunc func(th *Thread, recv Value, args Args) (Value, error)

// Method is one entry of a receiver kind's method table (docs/spec/builtins.md §2-3).
type Method struct {
	Recv string // receiver type_of name: "string", "list", "dict", "set", "range", "iter", …
	Name string
	Sig  string
	Doc  string
	Fn   MethodFunc
}

// Universe is the predeclared environment shared by the compiler (which
// resolves names against it) and the VM (which calls through it): the
// builtin table, the per-kind method tables and the host globals.
// It is built once (stdlib.Universe) and read-only afterwards.
//
// A universe made by Over holds only what was added to it and reads
// through to its base for the rest, so every run's universe shares the
// standard library's tables instead of copying them.
type Universe struct {
	base     *Universe // nil, or a universe never modified again
	builtins map[string]*Builtin
	methods  map[string]*methodTable
	globals  map[string]Value
	order    []string // builtin names in registration order (this layer's)
}

// NewUniverse returns an empty universe.
func NewUniverse() *Universe {
	return &Universe{
		builtins: map[string]*Builtin{},
		methods:  map[string]*methodTable{},
		globals:  map[string]Value{},
	}
}

// methodTable is one receiver kind's methods. The standard library's
// tables are filled in registration order and indexed by name on their
// first lookup: most runs call methods of a few kinds, and every process
// would otherwise hash all of them at start-up. Once indexed (always, for
// a table that AddMethod extended), the list is not read again.
type methodTable struct {
	once   sync.Once
	list   []*Method // registration order; a later one of a name wins
	byName map[string]*Method
}

func (t *methodTable) index() map[string]*Method {
	t.once.Do(func() {
		t.byName = make(map[string]*Method, len(t.list))
		for _, m := range t.list {
			t.byName[m.Name] = m
		}
		t.list = nil
	})
	return t.byName
}

// NewUniverseOf returns a universe of builtins and methods, registered in
// order as AddBuiltin and AddMethod would, with its tables allocated at
// their final size (growing them entry by entry was a third of building
// the standard library's universe, once in every process).
func NewUniverseOf(builtins []*Builtin, methods []*Method) *Universe {
	u := &Universe{
		builtins: make(map[string]*Builtin, len(builtins)),
		methods:  make(map[string]*methodTable, 32),
		globals:  map[string]Value{},
		order:    make([]string, 0, len(builtins)),
	}
	for _, b := range builtins {
		u.AddBuiltin(b)
	}
	var t *methodTable // the areas register a kind's methods together
	for _, m := range methods {
		if t == nil || t.list[0].Recv != m.Recv {
			if t = u.methods[m.Recv]; t == nil {
				t = &methodTable{}
				u.methods[m.Recv] = t
			}
		}
		t.list = append(t.list, m)
	}
	return u
}

// Over returns an empty universe on top of base: it sees every entry of
// base, and what is added to it shadows base's entries of the same name
// without changing base. base must not be modified afterwards (sessions
// on different goroutines may share it). Unlike Clone it copies nothing.
func Over(base *Universe) *Universe {
	return &Universe{base: base, globals: make(map[string]Value, 8)}
}

// Clone returns a copy of u that can be extended without changing u.
func (u *Universe) Clone() *Universe {
	c := &Universe{
		base:     u.base,
		builtins: maps.Clone(u.builtins),
		methods:  make(map[string]*methodTable, len(u.methods)),
		globals:  maps.Clone(u.globals),
		order:    slices.Clone(u.order),
	}
	if c.builtins == nil {
		c.builtins = map[string]*Builtin{}
	}
	if c.globals == nil {
		c.globals = map[string]Value{}
	}
	for recv, t := range u.methods {
		c.methods[recv] = &methodTable{byName: maps.Clone(t.index())}
		c.methods[recv].once.Do(func() {})
	}
	return c
}

// AddBuiltin registers b; a later registration of the same name replaces it.
func (u *Universe) AddBuiltin(b *Builtin) {
	if u.builtins == nil {
		u.builtins = map[string]*Builtin{}
	}
	// A name is new when the map grew (one hashing of it, not two: the
	// standard library's 400 builtins are added in every process).
	n := len(u.builtins)
	u.builtins[b.name] = b
	if len(u.builtins) > n && (u.base == nil || u.base.Builtin(b.name) == nil) {
		u.order = append(u.order, b.name)
	}
}

// AddMethod registers m for its receiver kind.
func (u *Universe) AddMethod(m *Method) {
	t := u.methods[m.Recv]
	if t == nil {
		t = &methodTable{}
		if u.methods == nil {
			u.methods = map[string]*methodTable{}
		}
		u.methods[m.Recv] = t
	}
	t.index()[m.Name] = m
}

// AddGlobal defines a host global such as `pi`.
func (u *Universe) AddGlobal(name string, v Value) { u.globals[name] = v }

// Builtin returns the builtin named name, or nil.
func (u *Universe) Builtin(name string) *Builtin {
	if b := u.builtins[name]; b != nil || u.base == nil {
		return b
	}
	return u.base.Builtin(name)
}

// Method returns the method of receiver kind recv named name, or nil.
func (u *Universe) Method(recv, name string) *Method {
	if t := u.methods[recv]; t != nil {
		if m := t.index()[name]; m != nil {
			return m
		}
	}
	if u.base != nil {
		return u.base.Method(recv, name)
	}
	return nil
}

// Global returns a host global.
func (u *Universe) Global(name string) (Value, bool) {
	if v, ok := u.globals[name]; ok || u.base == nil {
		return v, ok
	}
	return u.base.Global(name)
}

// BuiltinNames returns every builtin name, sorted.
func (u *Universe) BuiltinNames() []string {
	var names []string
	if u.base != nil {
		names = u.base.BuiltinNames()
	}
	names = append(names, u.order...)
	sort.Strings(names)
	return names
}

// GlobalNames returns every host global name, sorted.
func (u *Universe) GlobalNames() []string {
	var names []string
	if u.base != nil {
		for _, n := range u.base.GlobalNames() {
			if _, shadowed := u.globals[n]; !shadowed {
				names = append(names, n)
			}
		}
	}
	for n := range u.globals {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Methods returns the method table of a receiver kind, sorted by name.
func (u *Universe) Methods(recv string) []*Method {
	var out []*Method
	var local map[string]*Method
	if t := u.methods[recv]; t != nil {
		local = t.index()
	}
	if u.base != nil {
		for _, m := range u.base.Methods(recv) {
			if local[m.Name] == nil {
				out = append(out, m)
			}
		}
	}
	for _, m := range local {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// MethodNames returns every method name of every kind, sorted and unique
// (for REPL completion).
func (u *Universe) MethodNames() []string {
	seen := map[string]bool{}
	var names []string
	if u.base != nil {
		for _, n := range u.base.MethodNames() {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, t := range u.methods {
		for n := range t.index() {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// IsPredeclared reports whether name is a builtin or a host global (the
// resolver's view of the universe).
func (u *Universe) IsPredeclared(name string) bool {
	if u.Builtin(name) != nil {
		return true
	}
	_, ok := u.Global(name)
	return ok
}

// PredeclaredNames lists builtins and host globals (for suggestions).
func (u *Universe) PredeclaredNames() []string {
	return append(u.GlobalNames(), u.BuiltinNames()...)
}

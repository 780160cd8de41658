package compiler

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// compileMain compiles the file's top-level code (docs/spec/language.md §5).
func (c *compiler) compileMain() *Func {
	f := c.newFunc("", FuncMain, c.info.Main, 1)
	items := c.file.Items
	if c.info.Pipeline {
		// 1. top-level bindings and assignments to them (newer: the
		// pipeline reads a module variable's current value), 2.
		// declarations, 3. the entry pipeline.
		for _, it := range items {
			switch it.(type) {
			case *syntax.LetStmt, *syntax.ImportDecl, *syntax.AssignStmt:
				f.stmt(it)
			}
		}
		for _, it := range items {
			switch it.(type) {
			case *syntax.FnDecl, *syntax.ToolDecl, *syntax.StructDecl, *syntax.EnumDecl, *syntax.ImplBlock,
				*syntax.InterfaceDecl, *syntax.TypeDecl, *syntax.SkillDecl, *syntax.EvalPackDecl, *syntax.PipelineDecl:
				f.stmt(it)
			}
		}
		// The entry's parameters are not bound (docs/spec/language.md
		// §5.5); a pipeline called like a function binds them as a
		// function does (docs/spec/newer.md §1.13).
		entry := c.info.Entry
		f.emit(CALLEE_GLOBAL, c.info.GlobalIndex[entry.Name], f.name(entry.Name))
		f.emit(CALL_ENTRY, len(entry.Params))
		f.emitDefers()
		f.emit(RETURN)
		return f.finish()
	}
	for _, it := range items {
		f.stmt(it)
	}
	if c.prog.HasMain {
		f.emit(CALLEE_GLOBAL, c.info.GlobalIndex["main"], f.name("main"))
		f.emit(LOAD_UNIV, f.name("harness"))
		f.emit(CALL, 1)
	} else {
		f.emit(NIL)
	}
	f.emitDefers()
	f.emit(RETURN)
	return f.finish()
}

// compileModuleInit compiles what loading a module runs (docs/spec/language.md
// §11.2): its top-level bindings and function declarations, nothing else.
func (c *compiler) compileModuleInit() *Func {
	f := c.newFunc("", FuncMain, c.info.Main, 1)
	for _, it := range c.file.Items {
		switch it.(type) {
		case *syntax.LetStmt, *syntax.FnDecl, *syntax.ToolDecl, *syntax.SkillDecl, *syntax.StructDecl, *syntax.PipelineDecl, *syntax.ImplBlock:
			f.stmt(it)
		default:
			c.checkAcpAttrs(it)
		}
	}
	f.emit(NIL)
	f.emit(RETURN)
	return f.finish()
}

// function compiles a function body into a nested prototype of f and
// returns its index in f.fn.Funcs.
func (f *fcomp) function(node syntax.Node, name string, kind FuncKind, params []*syntax.Param, body *syntax.Block, line int) int {
	res := f.c.info.Funcs[node]
	g := f.c.newFunc(name, kind, res, line)
	g.fn.RestPlain = kind != FuncNamed || f.c.module
	if d, ok := node.(*syntax.FnDecl); ok {
		defer f.c.withTypeParams(d.TypeParams)()
		g.ownsReturn = isOwnedType(d.Return)
	}
	for i, p := range params {
		check := f.c.rtype(p.Type, nil)
		if p.Rest {
			check = f.c.restCheck(p.Type, i+1, g.fn.RestPlain)
		}
		g.fn.Params = append(g.fn.Params, Param{Name: p.Name, HasDefault: p.Default != nil, Rest: p.Rest,
			Check: check})
	}
	g.line(node.Position())
	g.prologue(params)
	switch kind {
	case FuncNamed, FuncMethod:
		if body != nil {
			g.hoistCells(body.Stmts)
			g.stmts(body.Stmts)
		}
		if kind == FuncNamed && !f.c.module {
			g.emitDefers()
		}
		g.emit(NIL)
		g.emit(RETURN)
	default:
		if body != nil {
			g.hoistCells(body.Stmts)
			g.blockValue(body.Stmts)
		} else {
			g.emit(NIL)
		}
		g.emitDefers()
		g.emit(RETURN)
	}
	proto := g.finish()
	f.fn.Funcs = append(f.fn.Funcs, proto)
	return len(f.fn.Funcs) - 1
}

// prologue evaluates defaults, moves captured parameters into cells and
// emits runtime parameter checks.
func (f *fcomp) prologue(params []*syntax.Param) {
	for i, p := range params {
		if p.Default == nil {
			continue
		}
		b := f.c.info.Decl(p, p.Name)
		skip := f.emit(ARGC_GT, i, 0)
		f.expr(p.Default)
		f.emit(STORE_LOCAL, b.Index)
		f.patchHere(skip)
	}
	for _, p := range params {
		b := f.c.info.Decl(p, p.Name)
		if b != nil && b.Scope == resolve.Cell {
			f.emit(CELLIFY, b.Index)
		}
	}
	for i, p := range params {
		if rt := f.fn.Params[i].Check; rt != nil {
			b := f.c.info.Decl(p, p.Name)
			f.emit(CHECK_PARAM, b.Index, f.constant(rt))
			f.fn.HasCheck = true
		}
	}
}

// hoistCells creates, at block entry, the cells of local fns declared in
// the block that nested functions capture, so closures made earlier in the
// block (or the fn itself, recursively) share them.
func (f *fcomp) hoistCells(stmts []syntax.Stmt) {
	for _, s := range stmts {
		switch d := s.(type) {
		case *syntax.FnDecl:
			if b := f.c.info.Decl(d, d.Name); b != nil && b.Hoisted && b.Scope == resolve.Cell {
				f.emit(MAKE_CELL, b.Index)
			}
		case *syntax.LetStmt:
			if p, ok := d.Pattern.(*syntax.IdentPattern); ok {
				if b := f.c.info.Decl(p, p.Name); b != nil && b.Forward && b.Scope == resolve.Cell {
					f.emit(MAKE_CELL, b.Index)
				}
			}
		}
	}
}

// markThrown records, for the typed catches around a throw statement or
// try* re-raise being compiled, that the failure is this function's own
// (f.thrownHere).
func (f *fcomp) markThrown() {
	for _, local := range f.thrownHere {
		f.emit(TRUE)
		f.emit(STORE_LOCAL, local)
	}
}

// emitDefers copies the registered defer blocks, newest first. A defer
// block runs when its function ends, so a break or continue in it leaves
// no loop, even where the copy lands inside one (at a return in a loop).
func (f *fcomp) emitDefers() {
	loops := f.loops
	f.loops = nil
	f.inDefer++
	for i := len(f.defers) - 1; i >= 0; i-- {
		saved := f.defers
		f.defers = f.defers[:i] // a return inside a defer runs only older defers
		f.blockStmts(saved[i])
		f.defers = saved
	}
	f.inDefer--
	f.loops = loops
}

// ---- runtime type checks ----

// restCheck is the runtime check of a rest parameter annotated t at
// argument position pos. As in the static checker, the annotation is the
// type of each rest argument, written `...xs: T` or `...xs: list<T>`
// (docs/spec/newer.md §3.4). A plain rest parameter binds one argument, so
// that argument is checked as is; otherwise the check walks the list of
// collected arguments.
func (c *compiler) restCheck(t syntax.TypeExpr, pos int, plain bool) *RType {
	switch l := t.(type) {
	case *syntax.ListType:
		t = l.Elem
	case *syntax.NamedType:
		if l.Name == "list" {
			if len(l.Args) != 1 {
				return nil // bare `list`: rest arguments of any type
			}
			t = l.Args[0]
		}
	}
	elem := c.rtype(t, nil)
	if elem == nil || plain {
		return elem
	}
	return &RType{Kind: "rest", Name: elem.Name, Elems: []*RType{elem}, First: pos}
}

// rtype converts a parameter annotation into a runtime check, or nil when
// the annotation is not checked at run time (docs/spec/language.md §10.6).
func (c *compiler) rtype(t syntax.TypeExpr, seen map[string]bool) *RType {
	switch t := t.(type) {
	case nil:
		return nil
	case *syntax.NilType:
		return &RType{Kind: "nil", Name: "nil"}
	case *syntax.OptionalType:
		inner := c.rtype(t.Elem, seen)
		if inner == nil {
			return nil
		}
		return &RType{Kind: "union", Name: parenName(inner) + "?", Elems: []*RType{inner, {Kind: "nil", Name: "nil"}}}
	case *syntax.UnionType:
		u := &RType{Kind: "union"}
		for i, m := range t.Types {
			r := c.rtype(m, seen)
			if r == nil {
				return nil
			}
			if i > 0 {
				u.Name += " | "
			}
			u.Name += r.Name
			u.Elems = append(u.Elems, r)
		}
		return u
	case *syntax.InterType:
		return intersection(c, t, seen)
	case *syntax.ListType:
		elem := c.rtype(t.Elem, seen)
		if elem == nil {
			return &RType{Kind: "list", Name: "list"}
		}
		return &RType{Kind: "listof", Name: "list<" + elem.Name + ">", Elems: []*RType{elem}}
	case *syntax.ShapeType:
		s := &RType{Kind: "shape"}
		names := make([]string, len(t.Fields))
		for i, fd := range t.Fields {
			ft := c.rtype(fd.Type, seen)
			names[i] = TypeText(fd.Type)
			if ft == nil {
				ft = &RType{Kind: "any", Name: "any"}
			} else {
				names[i] = ft.Name
			}
			s.Fields = append(s.Fields, RField{Name: fd.Name, Optional: fd.Optional, Type: ft})
		}
		s.Name = shapeName(s.Fields, names)
		return s
	case *syntax.LiteralType:
		// a literal type admits its one value (docs/spec/newer.md §2.22:
		// literal unions are enums)
		switch v := t.Value.(type) {
		case string:
			return &RType{Kind: "literal", Name: strconv.Quote(v), Lit: v}
		case int64:
			return &RType{Kind: "literal", Name: strconv.FormatInt(v, 10), Lit: v}
		}
		return nil
	case *syntax.NamedType:
		if len(t.Args) == 0 && c.isTypeParam(t.Name) {
			return nil
		}
		switch t.Name {
		case "int", "float", "string", "bool", "set", "bytes", "closure", "nil":
			return &RType{Kind: t.Name, Name: t.Name}
		case "list":
			if len(t.Args) == 1 {
				if elem := c.rtype(t.Args[0], seen); elem != nil {
					return &RType{Kind: "listof", Name: "list<" + elem.Name + ">", Elems: []*RType{elem}}
				}
			}
			return &RType{Kind: "list", Name: "list"}
		case "dict":
			if len(t.Args) == 2 {
				if k, ok := t.Args[0].(*syntax.NamedType); ok && k.Name == "string" {
					if v := c.rtype(t.Args[1], seen); v != nil {
						return &RType{Kind: "dictof", Name: "dict<string, " + v.Name + ">", Elems: []*RType{v}}
					}
				}
			}
			return &RType{Kind: "dict", Name: "dict"}
		case "tuple":
			// a list of exactly len(Args) items, each fitting its slot
			// (docs/spec/newer.md §2.3); an unchecked slot takes any value
			if len(t.Args) > 0 {
				r := &RType{Kind: "tupleof"}
				names := make([]string, len(t.Args))
				for i, a := range t.Args {
					e := c.rtype(a, seen)
					if e == nil {
						e = &RType{Kind: "any", Name: TypeText(a)}
					}
					names[i] = e.Name
					r.Elems = append(r.Elems, e)
				}
				r.Name = "tuple<" + strings.Join(names, ", ") + ">"
				return r
			}
		case "owned":
			// an owned value is checked as the value it owns
			// (docs/spec/newer.md §2.25)
			if len(t.Args) == 1 && c.info.Struct(t.Name) == nil {
				return c.rtype(t.Args[0], seen)
			}
		}
		if sd := c.info.Struct(t.Name); sd != nil && len(t.Args) > 0 {
			// `Box<int>`: an instance of the struct (or a dict with its
			// required fields), checked as the bare struct is; the type
			// arguments are static only (docs/spec/language.md §9.2)
			r := c.rtype(&syntax.NamedType{Name: t.Name}, seen)
			if r == nil || r.Kind != "struct" {
				return r
			}
			return &RType{Kind: "struct", Name: TypeText(t), Decl: t.Name, Fields: r.Fields}
		}
		if sd := c.info.Struct(t.Name); sd != nil && len(t.Args) == 0 {
			// A struct parameter accepts an instance of the struct, or a
			// dict with the struct's required fields (structs validate as
			// dicts, docs/spec/builtins.md §4.7). One RType per struct, shared by
			// every use and by recursive fields, keeps this linear.
			if r, ok := c.structRT[t.Name]; ok {
				return r
			}
			return c.structCheck(&RType{Kind: "struct", Name: t.Name}, sd, func(ft syntax.TypeExpr) *RType {
				return c.rtype(ft, seen)
			})
		}
		if sd := c.importedStruct(t.Name); sd != nil && c.info.Struct(t.Name) == nil {
			r := c.importedStructCheck(t.Name, sd)
			if len(t.Args) > 0 { // `Box<int>`: type arguments are static only
				return &RType{Kind: "struct", Name: TypeText(t), Decl: r.Decl, Fields: r.Fields}
			}
			return r
		}
		if a, ok := c.aliases[t.Name]; ok && len(a.TypeParams) > 0 && len(a.TypeParams) == len(t.Args) {
			// a generic alias is checked as its body with the type
			// arguments put in for its parameters (`Box<int>` with
			// `type Box<T> = {value: T}` checks `{value: int}`); an
			// application met again inside itself is left unchecked (a
			// recursive alias, `Tree<int>`), not another one of the same
			// alias (`Box<Box<int>>` checks the inner `Box<int>` too)
			if seen == nil {
				seen = map[string]bool{}
			}
			key := aliasKey(t)
			if seen[key] || len(seen) > maxAliasDepth || aliasNesting(seen, t.Name) >= maxSameAlias {
				return nil
			}
			sub := map[string]syntax.TypeExpr{}
			for i, p := range a.TypeParams {
				sub[p.Name] = t.Args[i]
			}
			seen[key] = true
			r := c.rtype(substType(a.Type, sub), seen)
			delete(seen, key)
			return r
		}
		if a, ok := c.aliases[t.Name]; ok && len(a.TypeParams) == 0 {
			if seen == nil {
				seen = map[string]bool{}
			}
			if seen[t.Name] {
				return nil
			}
			seen[t.Name] = true
			r := c.rtype(a.Type, seen)
			delete(seen, t.Name)
			return r
		}
		if a := c.importedAlias(t.Name); a != nil && len(t.Args) == 0 && c.aliases[t.Name] == nil {
			// an alias an import makes visible: checked as its body
			// when that names only built-in types (its other names
			// were written in the module)
			if len(a.TypeParams) > 0 || !builtinOnly(a.Type) {
				return nil
			}
			return c.rtype(a.Type, seen)
		}
		if t.Name == "number" && len(t.Args) == 0 { // int | float, not decimal (docs/spec/newer.md §2.4)
			return &RType{Kind: "union", Name: "number", Elems: []*RType{{Kind: "int", Name: "int"}, {Kind: "float", Name: "float"}}}
		}
		if t.Name == "decimal" && len(t.Args) == 0 { // a value kind of its own (docs/spec/newer.md §2.4)
			return &RType{Kind: "decimal", Name: "decimal"}
		}
		if c.isInterface(t.Name) || c.importedInterface(t.Name) {
			return &RType{Kind: "interface", Name: t.Name}
		}
		if len(t.Args) == 0 && types.IsRuntimeKindName(t.Name) && !c.info.IsEnum(t.Name) {
			// `channel`, `task_handle`, …: the value's type_of must be
			// the name (docs/check.md)
			return &RType{Kind: "kind", Name: t.Name}
		}
	}
	return nil
}

// importedStructCheck is the check of a struct an import makes visible
// under name (`Point`, `ns.Point`): an instance of that struct, or a dict
// with its required fields, as for the file's own structs. The fields'
// types were written in the module, so only those naming no declared
// type (int, string, list<int>, …) are checked here; the others accept
// any value.
func (c *compiler) importedStructCheck(name string, sd *syntax.StructDecl) *RType {
	if r, ok := c.structRT[name]; ok {
		return r
	}
	return c.structCheck(&RType{Kind: "struct", Name: name, Decl: sd.Name}, sd, func(ft syntax.TypeExpr) *RType {
		if builtinOnly(ft) {
			return c.rtype(ft, nil)
		}
		return nil
	})
}

// structCheck completes r, the check of struct sd, registered under
// r.Name before its fields are read so recursive fields share it: one
// field check per field, fieldType's (nil accepts any value). The fields
// read their types where the struct is declared, with its own type
// parameters in scope only.
func (c *compiler) structCheck(r *RType, sd *syntax.StructDecl, fieldType func(syntax.TypeExpr) *RType) *RType {
	c.structRT[r.Name] = r
	outer := c.typeParams
	c.typeParams = nil
	restore := c.withTypeParams(sd.TypeParams)
	for _, fd := range sd.Fields {
		ft := fieldType(fd.Type)
		if ft == nil {
			ft = &RType{Kind: "any", Name: "any"}
		}
		r.Fields = append(r.Fields, RField{Name: fd.Name, Optional: fd.Optional, Type: ft})
	}
	restore()
	c.typeParams = outer
	return r
}

// builtinOnly reports whether type expression t names only built-in
// types, so that it means the same in every file.
func builtinOnly(t syntax.TypeExpr) bool {
	switch t := t.(type) {
	case nil, *syntax.NilType, *syntax.LiteralType:
		return true
	case *syntax.OptionalType:
		return builtinOnly(t.Elem)
	case *syntax.ListType:
		return builtinOnly(t.Elem)
	case *syntax.UnionType:
		for _, m := range t.Types {
			if !builtinOnly(m) {
				return false
			}
		}
		return true
	case *syntax.ShapeType:
		for _, f := range t.Fields {
			if !builtinOnly(f.Type) {
				return false
			}
		}
		return true
	case *syntax.NamedType:
		switch t.Name {
		case "int", "float", "string", "bool", "set", "bytes", "closure", "nil", "list", "dict", "any":
		default:
			return false
		}
		for _, a := range t.Args {
			if !builtinOnly(a) {
				return false
			}
		}
		return true
	}
	return false
}

// intersection is the check of `A & B & …`: a value must pass every
// member (docs/spec/newer.md §2.22: intersections are all_of schemas).
// Members that are all shapes merge into one shape, so a dict is walked
// once; a field two members declare must fit both types. A member not
// checked at run time is left out: the others still hold.
func intersection(c *compiler, t *syntax.InterType, seen map[string]bool) *RType {
	var ms []*RType
	shapes := true
	for _, m := range t.Types {
		r := c.rtype(m, seen)
		if r == nil {
			continue
		}
		ms = append(ms, r)
		shapes = shapes && r.Kind == "shape"
	}
	switch {
	case len(ms) == 0:
		return nil
	case len(ms) == 1:
		return ms[0]
	case shapes:
		s := &RType{Kind: "shape"}
		at := map[string]int{}
		for _, m := range ms {
			for _, f := range m.Fields {
				i, ok := at[f.Name]
				if !ok {
					at[f.Name] = len(s.Fields)
					s.Fields = append(s.Fields, f)
					continue
				}
				prev := &s.Fields[i]
				if prev.Type.Kind != "any" && f.Type.Kind != "any" {
					prev.Type = &RType{Kind: "all", Name: parenName(prev.Type) + " & " + parenName(f.Type), Elems: []*RType{prev.Type, f.Type}}
				} else if prev.Type.Kind == "any" {
					prev.Type = f.Type
				}
				prev.Optional = prev.Optional && f.Optional
			}
		}
		names := make([]string, len(s.Fields))
		for i, f := range s.Fields {
			names[i] = f.Type.Name
		}
		s.Name = shapeName(s.Fields, names)
		return s
	}
	all := &RType{Kind: "all", Elems: ms}
	for i, m := range ms {
		if i > 0 {
			all.Name += " & "
		}
		all.Name += parenName(m)
	}
	return all
}

// parenName is the written name of r as an operand of `&` or `?`: a
// union or intersection spelled out with operators is parenthesised.
// TypeText is a type annotation as messages print it, on one line in the
// checker's canonical form (docs/spec/newer.md §3.1): `T?`, `A | B`,
// `fn(A) -> R`, `{a: int, b?: string}`, `Box<int>`.
func TypeText(t syntax.TypeExpr) string {
	join := func(ts []syntax.TypeExpr, sep string, paren bool) string {
		parts := make([]string, len(ts))
		for i, m := range ts {
			parts[i] = TypeText(m)
			switch m.(type) {
			case *syntax.UnionType, *syntax.InterType, *syntax.FnType:
				if paren {
					parts[i] = "(" + parts[i] + ")"
				}
			}
		}
		return strings.Join(parts, sep)
	}
	switch t := t.(type) {
	case *syntax.NamedType:
		if len(t.Args) == 0 {
			return t.Name
		}
		return t.Name + "<" + join(t.Args, ", ", false) + ">"
	case *syntax.ListType:
		return "list<" + TypeText(t.Elem) + ">"
	case *syntax.OptionalType:
		return join([]syntax.TypeExpr{t.Elem}, "", true) + "?"
	case *syntax.UnionType:
		return join(t.Types, " | ", false)
	case *syntax.InterType:
		return join(t.Types, " & ", true)
	case *syntax.FnType:
		r := "nil"
		if t.Return != nil {
			r = TypeText(t.Return)
		}
		return "fn(" + join(t.Params, ", ", false) + ") -> " + r
	case *syntax.LiteralType:
		if v, ok := t.Value.(string); ok {
			return strconv.Quote(v)
		}
		return fmt.Sprint(t.Value)
	case *syntax.NilType:
		return "nil"
	case *syntax.ShapeType:
		parts := make([]string, 0, len(t.Fields)+1)
		for _, f := range t.Fields {
			opt := ""
			if f.Optional {
				opt = "?"
			}
			parts = append(parts, f.Name+opt+": "+TypeText(f.Type))
		}
		if t.Rest != nil {
			parts = append(parts, "..."+TypeText(t.Rest))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "any"
}

// shapeName is a shape type as messages print it, in the checker's
// canonical form (docs/spec/newer.md §3.1): `{name: string, age?: int}`,
// each field's type as written (names[i]).
func shapeName(fields []RField, names []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name)
		if f.Optional {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		b.WriteString(names[i])
	}
	b.WriteByte('}')
	return b.String()
}

func parenName(r *RType) string {
	if (r.Kind == "union" || r.Kind == "all") && strings.ContainsAny(r.Name, "|&") {
		return "(" + r.Name + ")"
	}
	return r.Name
}

// structDef builds the StructDef constant of a declaration.
func structDef(d *syntax.StructDecl) *StructDef {
	sd := &StructDef{Name: d.Name}
	for _, fd := range d.Fields {
		sd.Fields = append(sd.Fields, fd.Name)
	}
	sort.Strings(sd.Fields)
	return sd
}

// maxAliasDepth bounds the nesting of alias expansions, for a generic
// alias whose body applies it to a growing argument (`type G<T> = {v:
// G<list<T>>}`), which no seen set stops.
const maxAliasDepth = 32

// maxSameAlias bounds how many applications of one generic alias may be
// expanded inside each other: `Box<Box<Box<int>>>` is checked to the
// third, and a body that applies its alias twice to a growing argument
// (`{a: G<list<T>>?, b: G<list<T>>?}`) expands 1 + 2 + 4 times, not 2^32
// (the depth bound alone let such an alias hang the compiler). A deeper
// application is left unchecked.
const maxSameAlias = 3

// aliasNesting counts the applications of the generic alias name among
// the expansions in progress (seen's keys, see aliasKey).
func aliasNesting(seen map[string]bool, name string) int {
	n := 0
	for k := range seen {
		if strings.HasPrefix(k, name+"<") {
			n++
		}
	}
	return n
}

// aliasKey names an alias application for the seen set of rtype: a
// plain alias by its name, a generic one with its type arguments, so
// that `Box<Box<int>>` expands the inner `Box<int>` while `Tree<int>`
// inside `Tree<int>` stops.
func aliasKey(t *syntax.NamedType) string {
	if len(t.Args) == 0 {
		return t.Name
	}
	return TypeText(t)
}

// substType is t with each named type of sub replaced by its argument:
// the body of a generic alias instantiated. Forms a run-time check does
// not read are returned as they are.
func substType(t syntax.TypeExpr, sub map[string]syntax.TypeExpr) syntax.TypeExpr {
	switch t := t.(type) {
	case *syntax.NamedType:
		if r, ok := sub[t.Name]; ok && len(t.Args) == 0 {
			return r
		}
		if len(t.Args) == 0 {
			return t
		}
		n := &syntax.NamedType{At: t.At, Name: t.Name}
		for _, a := range t.Args {
			n.Args = append(n.Args, substType(a, sub))
		}
		return n
	case *syntax.ListType:
		return &syntax.ListType{At: t.At, Elem: substType(t.Elem, sub)}
	case *syntax.OptionalType:
		return &syntax.OptionalType{At: t.At, Elem: substType(t.Elem, sub)}
	case *syntax.UnionType:
		u := &syntax.UnionType{At: t.At}
		for _, m := range t.Types {
			u.Types = append(u.Types, substType(m, sub))
		}
		return u
	case *syntax.InterType:
		in := &syntax.InterType{At: t.At}
		for _, m := range t.Types {
			in.Types = append(in.Types, substType(m, sub))
		}
		return in
	case *syntax.ShapeType:
		sh := &syntax.ShapeType{At: t.At, Rest: t.Rest}
		for _, f := range t.Fields {
			sh.Fields = append(sh.Fields, &syntax.ShapeField{At: f.At, Name: f.Name, Optional: f.Optional, Type: substType(f.Type, sub)})
		}
		return sh
	}
	return t
}

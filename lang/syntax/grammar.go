package syntax

import (
	"fmt"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/harnlang/harn/lang/diag"
)

// This file is the participle grammar of statements and declarations
// (docs/spec/language.md §2.2–§2.3), one tagged struct per production, each with the
// conversion to its AST node. Newlines are elided from participle's view;
// the statement list (parser.go) enforces separators.

// productions holds one parser per production. Each is built the first
// time it is needed: building a participle parser reflects over its whole
// grammar, and a short script uses only a few productions, so building
// them all up front would dominate the start-up of every harn command.
type productions struct {
	let       lazy[letG]
	forStmt   lazy[forG]
	while     lazy[whileG]
	deferStmt lazy[bodyStmtG]
	ret       lazy[returnG]
	throw     lazy[throwG]
	guard     lazy[guardG]
	require   lazy[requireG]
	jump      lazy[jumpG]
	override  lazy[overrideG]
	decl      lazy[declG]
	// declBy parses a declaration without attributes or pub by its
	// keyword, skipping the trial of every member of declU.
	declBy map[string]func(*lexer.PeekingLexer) declU

	ifExpr    lazy[ifG]
	match     lazy[matchG]
	try       lazy[tryG]
	retry     lazy[retryG]
	parallel  lazy[parallelG]
	deadline  lazy[deadlineG]
	spawn     lazy[spawnG]
	selectExp lazy[selectG]
	fnLit     lazy[fnLitG]
}

// lazy is a participle parser built on first use.
type lazy[G any] struct {
	once sync.Once
	opts func() []participle.Option
	p    *participle.Parser[G]
}

func (l *lazy[G]) get() *participle.Parser[G] {
	l.once.Do(func() {
		var opts []participle.Option
		if l.opts != nil {
			opts = l.opts()
		}
		l.p = build[G](opts...)
	})
	return l.p
}

var (
	prodsOnce sync.Once
	prodsVal  productions
)

func prods() *productions {
	prodsOnce.Do(func() {
		p := &prodsVal
		p.decl.opts = func() []participle.Option {
			return []participle.Option{participle.Union[declU](
				&fnDeclG{}, &pipelineG{}, &toolG{}, &structG{}, &enumG{}, &typeDeclG{},
				&interfaceG{}, &implG{}, &skillG{}, &evalPackG{}, &letG{}, &importG{})}
		}
		p.declBy = map[string]func(*lexer.PeekingLexer) declU{
			"fn":        fnDecl,
			"gen":       fnDecl,
			"tool":      declParser[toolG](),
			"struct":    declParser[structG](),
			"enum":      declParser[enumG](),
			"type":      declParser[typeDeclG](),
			"interface": declParser[interfaceG](),
			"impl":      declParser[implG](),
			"skill":     declParser[skillG](),
			"eval_pack": declParser[evalPackG](),
			"import":    declParser[importG](),
			"pipeline":  declParser[pipelineG](),
		}
		// after `pub` only: `pub let` / `pub const` (and `pub var`, refused
		// by finishDecl) reuse the statement production.
		letDecl := func(lex *lexer.PeekingLexer) declU { return parse(prodsVal.let.get(), lex) }
		p.declBy["let"], p.declBy["const"], p.declBy["var"] = letDecl, letDecl, letDecl
	})
	return &prodsVal
}

func build[G any](opts ...participle.Option) *participle.Parser[G] {
	opts = append(opts, participle.Lexer(lexDef), participle.Elide("Newline", "Doc"))
	return participle.MustBuild[G](opts...)
}

// declParser parses one kind of declaration (its parser built on first use).
func declParser[G any, PG interface {
	*G
	declU
}]() func(*lexer.PeekingLexer) declU {
	var l lazy[G]
	return func(lex *lexer.PeekingLexer) declU { return PG(parse(l.get(), lex)) }
}

func optType(h *typ) TypeExpr {
	if h == nil {
		return nil
	}
	return h.T
}

func optThrown(h *thrown) TypeExpr {
	if h == nil {
		return nil
	}
	return h.T
}

func optResult(h *result) TypeExpr {
	if h == nil {
		return nil
	}
	return h.T
}

func optExpr(h *expr) Expr {
	if h == nil {
		return nil
	}
	return h.X
}

// ---- statements ----

type letG struct {
	Pos     lexer.Position
	Kind    string       `parser:"@( 'let' | 'var' | 'const' )"`
	Pattern pattern      `parser:"@@"`
	Colon   *opt[sColon] `parser:"( @@"`
	Type    *typ         `parser:"  @@ )?"`
	Value   expr         `parser:"'=' @@"`
}

func (letG) decl() {}

func (g *letG) ast() *LetStmt {
	s := &LetStmt{At: at(g.Pos), Pattern: g.Pattern.P, Value: g.Value.X}
	switch g.Kind {
	case "var":
		s.Kind = BindVar
	case "const":
		s.Kind = BindConst
	}
	if g.Colon != nil {
		if _, ok := s.Pattern.(*IdentPattern); !ok {
			fail(g.Colon.token(), "=")
		}
		s.Type = g.Type.T
	}
	return s
}

type forG struct {
	Pos     lexer.Position
	Pattern forPattern `parser:"'for' @@"`
	Iter    expr       `parser:"'in' @@"`
	Body    block      `parser:"@@"`
}

func (g *forG) ast() Stmt {
	return &ForStmt{At: at(g.Pos), Pattern: g.Pattern.P, Iter: g.Iter.X, Body: g.Body.B}
}

type whileG struct {
	Pos  lexer.Position
	Cond expr  `parser:"'while' @@"`
	Body block `parser:"@@"`
}

func (g *whileG) ast() Stmt { return &WhileStmt{At: at(g.Pos), Cond: g.Cond.X, Body: g.Body.B} }

// bodyStmtG is `defer { … }`, `mutex { … }`, `mutex(key) { … }` or
// `mutex(key, timeout) { … }`.
type bodyStmtG struct {
	Pos     lexer.Position
	Keyword string        `parser:"@( 'defer' | 'mutex' )"`
	Key     *expr         `parser:"( '(' @@"`
	Timeout *mutexTimeout `parser:"  ( ',' @@? )? ')' )?"`
	Body    block         `parser:"@@"`
}

func (g *bodyStmtG) ast() Stmt {
	if g.Keyword == "mutex" {
		m := &MutexStmt{At: at(g.Pos), Body: g.Body.B}
		if g.Key != nil {
			m.Key = g.Key.X
		}
		if g.Timeout != nil {
			m.Timeout, m.TimeoutNamed = g.Timeout.X, g.Timeout.named
		}
		return m
	}
	return &DeferStmt{At: at(g.Pos), Body: g.Body.B}
}

// returnG is `return [value]` or `yield [value]`.
type returnG struct {
	Pos     lexer.Position
	Keyword string    `parser:"@( 'return' | 'yield' )"`
	Value   *retValue `parser:"@@?"`
}

func (g *returnG) ast() Stmt {
	var x Expr
	if g.Value != nil {
		x = g.Value.X
	}
	if g.Keyword == "yield" {
		return &YieldStmt{At: at(g.Pos), Value: x}
	}
	return &ReturnStmt{At: at(g.Pos), Value: x}
}

// throwG is `throw value` or `emit value`.
type throwG struct {
	Pos     lexer.Position
	Keyword string `parser:"@( 'throw' | 'emit' )"`
	Value   expr   `parser:"@@"`
}

func (g *throwG) ast() Stmt {
	if g.Keyword == "emit" {
		return &EmitStmt{At: at(g.Pos), Value: g.Value.X}
	}
	return &ThrowStmt{At: at(g.Pos), Value: g.Value.X}
}

type guardG struct {
	Pos  lexer.Position
	Cond expr  `parser:"'guard' @@"`
	Body block `parser:"'else' @@"`
}

func (g *guardG) ast() Stmt { return &GuardStmt{At: at(g.Pos), Cond: g.Cond.X, Else: g.Body.B} }

type requireG struct {
	Pos     lexer.Position
	Cond    expr  `parser:"'require' @@"`
	Message *expr `parser:"( ',' @@ )?"`
}

func (g *requireG) ast() Stmt {
	return &RequireStmt{At: at(g.Pos), Cond: g.Cond.X, Message: optExpr(g.Message)}
}

type jumpG struct {
	Pos     lexer.Position
	Keyword string `parser:"@( 'break' | 'continue' )"`
}

func (g *jumpG) ast() Stmt {
	if g.Keyword == "continue" {
		return &ContinueStmt{At: at(g.Pos)}
	}
	return &BreakStmt{At: at(g.Pos)}
}

type overrideG struct {
	Pos    lexer.Position
	Name   name[rFn] `parser:"'override' @@"`
	Params names     `parser:"@@"`
	Body   block     `parser:"@@"`
}

func (g *overrideG) ast() Stmt {
	return &OverrideDecl{At: at(g.Pos), Name: g.Name.Name, Params: g.Params.List, Body: g.Body.B}
}

// assignable reports whether x is an identifier followed by a chain of
// `.name` and `[expr]` accessors.
func assignable(x Expr) bool {
	for {
		switch n := x.(type) {
		case *Ident:
			return true
		case *MemberExpr:
			if n.Optional {
				return false
			}
			x = n.X
		case *IndexExpr:
			if n.Optional {
				return false
			}
			x = n.X
		default:
			return false
		}
	}
}

// ---- declarations ----

// declU is any production that may follow attributes or `pub`.
type declU interface{ decl() }

// declG is a declaration with optional attributes and `pub`.
type declG struct {
	Pos   lexer.Position
	Attrs []*attrG   `parser:"@@*"`
	Pub   *opt[sPub] `parser:"@@?"`
	Decl  declU      `parser:"@@"`
}

type attrG struct {
	Pos  lexer.Position
	Name attrName  `parser:"'@' @@"`
	Args *attrArgs `parser:"@@?"`
}

func (g *declG) ast(top bool, doc string) Stmt {
	return finishDecl(g.Decl, g.Attrs, g.Pub, top, doc)
}

// finishDecl converts a declaration and applies what precedes it.
func finishDecl(decl declU, attrGs []*attrG, pubTok *opt[sPub], top bool, doc string) Stmt {
	var attrs []*Attribute
	for _, a := range attrGs {
		attr := &Attribute{At: at(a.Pos), Name: a.Name.Name}
		if a.Args != nil {
			attr.Args = a.Args.List
		}
		attrs = append(attrs, attr)
	}
	pub := pubTok != nil
	startAt := func(p lexer.Position) Pos {
		if pub {
			return at(pubTok.Pos)
		}
		return at(p)
	}
	switch d := decl.(type) {
	case *letG:
		if len(attrs) > 0 || !pub || !top || d.Kind == "var" {
			t := lexer.Token{Type: tKeyword, Value: d.Kind, Pos: d.Pos}
			fail(&t, "declaration")
		}
		s := d.ast()
		s.At, s.Doc, s.Pub = startAt(d.Pos), doc, true
		return s
	case *importG:
		if len(attrs) > 0 || !top {
			t := lexer.Token{Type: tKeyword, Value: "import", Pos: d.Pos}
			fail(&t, "declaration")
		}
		s := d.ast()
		s.At, s.Pub = startAt(d.Pos), pub
		return s
	case *fnDeclG:
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *pipelineG:
		if !top {
			t := lexer.Token{Type: tKeyword, Value: "pipeline", Pos: d.Pos}
			fail(&t, "declaration")
		}
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *toolG:
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *structG:
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *enumG:
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *typeDeclG:
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *skillG:
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *evalPackG:
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *interfaceG:
		// exported for the importers' `where` bounds and annotations
		s := d.ast()
		s.At, s.Doc, s.Attrs, s.Pub = startAt(d.Pos), doc, attrs, pub
		return s
	case *implG:
		if pub {
			fail(pubTok.token(), "declaration")
		}
		s := d.ast()
		s.Doc, s.Attrs = doc, attrs
		return s
	}
	panic("unreachable")
}

type importG struct {
	Pos      lexer.Position
	NS       *starImport          `parser:"'import' ( @@"`
	Names    []*listName[rImport] `parser:"        | ( '{' ( @@ ( ','? @@ )* ','? )?"`
	Close    *tok[sRBrace]        `parser:"              @@"`
	From     *tok[sFrom]          `parser:"              @@"`
	FromPath *importPath          `parser:"              @@ )"`
	Scoped   *scopedPath          `parser:"          | ( @@"`
	Open     *tok[sLBrace]        `parser:"              @@"`
	SNames   []*listName[rImport] `parser:"              @@ ( ',' @@ )* ','?"`
	SClose   *tok[sRBrace]        `parser:"              @@ )"`
	Path     *importPath          `parser:"          | @@ )"`
}

func (importG) decl() {}

func (g *importG) ast() *ImportDecl {
	d := &ImportDecl{At: at(g.Pos)}
	switch {
	case g.NS != nil:
		d.Path, d.PathPos = g.NS.Path.Value, at(g.NS.Path.Pos)
		d.Names, d.Namespace = []*Ident{}, &Ident{At: at(g.NS.Name.Pos), Name: g.NS.Name.Name}
	case g.Path != nil:
		d.Path, d.PathPos = g.Path.Value, at(g.Path.Pos)
	case g.FromPath != nil:
		d.Path, d.PathPos = g.FromPath.Value, at(g.FromPath.Pos)
		d.Names = []*Ident{}
		for _, n := range g.Names {
			d.Names = append(d.Names, n.ast())
		}
	default:
		d.Path, d.PathPos = g.Scoped.Path, at(g.Scoped.Pos)
		for _, n := range g.SNames {
			d.Names = append(d.Names, n.ast())
		}
	}
	return d
}

// fnDeclG is a function declaration. Only its head is participle
// grammar, so that where it is one alternative among others (after
// attributes or pub, in an impl) participle decides as before whether it
// matched; the rest is one hand-written hook (fnRest), which spares
// building a participle parser for it on the first parse of nearly every
// program (`fn main`).
type fnDeclG struct {
	Pos  lexer.Position
	Gen  bool   `parser:"@'gen'?"`
	Rest fnRest `parser:"'fn' @@"`
}

// fnRest is a function declaration after `fn`:
//
//	NAME TypeParams? Params ( '->' Type )? ( 'throws' Type )?
//	( 'where' Where ( ',' Where )* )? Block
//
// with Where = NAME ':' Bound ( '+' Bound )* and Bound = NAME ( '.' NAME )?
// (an interface of a namespace import). Every part reports its own
// error, so the hook never declines once it started.
type fnRest struct {
	Name       name[rFn]
	TypeParams *typeParams
	Params     params
	Return     *result
	Throws     *thrown
	Where      []*whereG
	Body       block
}

type whereG struct {
	Pos       lexer.Position
	Param     name[rType]
	Colon     tok[sColon]
	Bounds    []name[rBound]
	BoundArgs [][]TypeExpr
}

// fnDecl parses a function declaration whose head the statement list has
// already seen (`fn`, or `gen` then `fn`), as the participle production
// would, without building it.
func fnDecl(lex *lexer.PeekingLexer) declU {
	g := &fnDeclG{Pos: lex.Peek().Pos}
	if lex.Next().Value == "gen" {
		g.Gen = true
		lex.Next() // fn
	}
	g.Rest.Parse(lex)
	return g
}

func (h *fnRest) Parse(lex *lexer.PeekingLexer) error {
	h.Name.Parse(lex)
	if tp := new(typeParams); tp.parse(lex, true) == nil {
		h.TypeParams = tp
	}
	h.Params.Parse(lex)
	// Participle matched its literals by value alone; so do these.
	if lex.Peek().Value == "->" {
		lex.Next()
		h.Return = new(result)
		h.Return.Parse(lex)
	}
	if lex.Peek().Value == "throws" {
		lex.Next()
		h.Throws = new(thrown)
		h.Throws.Parse(lex)
	}
	if lex.Peek().Value == "where" {
		lex.Next()
		for {
			w := &whereG{Pos: lex.Peek().Pos}
			w.Param.Parse(lex)
			w.Colon.Parse(lex)
			for {
				var b name[rBound]
				b.Parse(lex)
				if lex.Peek().Value == "." {
					// `ns.Iface`: an interface of a namespace import
					lex.Next()
					var m name[rBound]
					m.Parse(lex)
					b.Name += "." + m.Name
				}
				w.Bounds = append(w.Bounds, b)
				w.BoundArgs = append(w.BoundArgs, cursorFor(lex).boundArgs())
				if lex.Peek().Value != "+" {
					break
				}
				lex.Next()
			}
			h.Where = append(h.Where, w)
			if lex.Peek().Value != "," {
				break
			}
			lex.Next()
		}
	}
	h.Body.Parse(lex)
	return nil
}

func (fnDeclG) decl() {}

func (g *fnDeclG) ast() *FnDecl {
	r := &g.Rest
	d := &FnDecl{At: at(g.Pos), Gen: g.Gen, Name: r.Name.Name, NamePos: at(r.Name.Pos),
		Params: r.Params.List, Return: optResult(r.Return), Throws: optThrown(r.Throws), Body: r.Body.B}
	if r.TypeParams != nil {
		d.TypeParams = r.TypeParams.List
		for _, tp := range d.TypeParams {
			if len(tp.Bounds) > 0 {
				d.Where = append(d.Where, &WhereClause{At: tp.At, Param: tp.Name, Bounds: tp.Bounds, BoundsAt: tp.BoundsAt, BoundArgs: tp.boundArgs})
			}
		}
	}
	for _, w := range r.Where {
		wc := &WhereClause{At: at(w.Pos), Param: w.Param.Name}
		for i, b := range w.Bounds {
			wc.Bounds = append(wc.Bounds, b.Name)
			wc.BoundsAt = append(wc.BoundsAt, at(b.Pos))
			if w.BoundArgs[i] != nil {
				wc.BoundArgs = make([][]TypeExpr, len(w.Bounds))
			}
		}
		if wc.BoundArgs != nil {
			copy(wc.BoundArgs, w.BoundArgs)
		}
		d.Where = append(d.Where, wc)
	}
	return d
}

type pipelineG struct {
	Pos     lexer.Position
	Name    name[rFn]  `parser:"'pipeline' @@"`
	Params  pipeParams `parser:"@@"`
	Return  *result    `parser:"( '->' @@ )?"`
	Throws  *thrown    `parser:"( 'throws' @@ )?"`
	Extends *name[rFn] `parser:"( 'extends' @@ )?"`
	Body    block      `parser:"@@"`
}

func (pipelineG) decl() {}

func (g *pipelineG) ast() *PipelineDecl {
	d := &PipelineDecl{At: at(g.Pos), Name: g.Name.Name, NamePos: at(g.Name.Pos), Params: g.Params.List,
		Return: optResult(g.Return), Throws: optThrown(g.Throws), Body: g.Body.B}
	if g.Extends != nil {
		d.Extends = g.Extends.Name
	}
	return d
}

type toolG struct {
	Pos    lexer.Position
	Name   name[rFn] `parser:"'tool' @@"`
	Params params    `parser:"@@"`
	Return *result   `parser:"( '->' @@ )?"`
	Throws *thrown   `parser:"( 'throws' @@ )?"`
	Body   toolBody  `parser:"@@"`
}

func (toolG) decl() {}

func (g *toolG) ast() *ToolDecl {
	return &ToolDecl{At: at(g.Pos), Name: g.Name.Name, NamePos: at(g.Name.Pos), Params: g.Params.List,
		Return: optResult(g.Return), Throws: optThrown(g.Throws), Description: g.Body.Description, Body: g.Body.Body}
}

type structG struct {
	Pos        lexer.Position
	Name       name[rType] `parser:"'struct' @@"`
	TypeParams *typeParams `parser:"@@?"`
	Fields     []*fieldG   `parser:"'{' @@* '}'"`
}

type fieldG struct {
	Pos      lexer.Position
	Name     fieldName `parser:"@@"`
	Optional bool      `parser:"@'?'?"`
	Type     *typ      `parser:"( ':' @@ )?"`
	Comma    bool      `parser:"@','?"`
}

func (structG) decl() {}

func (g *structG) ast() *StructDecl {
	d := &StructDecl{At: at(g.Pos), Name: g.Name.Name, NamePos: at(g.Name.Pos)}
	if g.TypeParams != nil {
		d.TypeParams = g.TypeParams.List
	}
	for i, f := range g.Fields {
		if i > 0 && !g.Fields[i-1].Comma && g.Fields[i-1].Pos.Line == f.Pos.Line {
			unseparatedField(f)
		}
		d.Fields = append(d.Fields, &FieldDecl{At: at(f.Pos), Name: f.Name.Name, Optional: f.Optional, Type: optType(f.Type)})
	}
	return d
}

// unseparatedField reports field f, which starts on the line of the field
// before it with no comma between: fields are separated by newlines or
// commas (docs/spec/language.md §10), so `a: int b: string` is a slip, and
// `a: int throws string` would be a field `a` and fields named `throws`
// and `string`.
func unseparatedField(f *fieldG) {
	help := "separate the fields with `,` or put each on its own line"
	if f.Name.Name == "throws" {
		help = "a field's type has no `throws` clause; a function declares what it throws (`fn f() -> int throws string`)"
	}
	panic(bailout{&diag.Error{Line: f.Pos.Line, Col: f.Pos.Column, Phase: diag.PhaseParse,
		Msg:    fmt.Sprintf("expected `,` or a newline before struct field `%s`", f.Name.Name),
		Help:   help,
		Golden: fmt.Sprintf("Expected , or newline, got %s at %d:%d", f.Name.Name, f.Pos.Line, f.Pos.Column)}})
}

type enumG struct {
	Pos        lexer.Position
	Name       name[rType] `parser:"'enum' @@"`
	TypeParams *typeParams `parser:"@@?"`
	Variants   []*variantG `parser:"'{' ( @@ ','? )* '}'"`
}

type variantG struct {
	Pos    lexer.Position
	Name   listName[rVariant] `parser:"@@"`
	Params *optParams         `parser:"@@?"`
}

func (enumG) decl() {}

func (g *enumG) ast() *EnumDecl {
	d := &EnumDecl{At: at(g.Pos), Name: g.Name.Name, NamePos: at(g.Name.Pos)}
	if g.TypeParams != nil {
		d.TypeParams = g.TypeParams.List
	}
	for _, v := range g.Variants {
		vd := &Variant{At: at(v.Pos), Name: v.Name.Name}
		if v.Params != nil {
			vd.Params = v.Params.List
			if vd.Params == nil {
				vd.Params = []*Param{}
			}
			for _, p := range vd.Params {
				if p.Rest {
					// a variant has a fixed number of fields, each a value
					// of its payload (docs/language.md, Enums)
					failAt(p.At, "An enum variant field cannot be a rest parameter `..."+p.Name+"`: a variant has a fixed number of fields (use a list field, `"+p.Name+": list`)")
				}
				if p.Default != nil && !literalDefault(p.Default) {
					failAt(ExprStart(p.Default), "An enum variant field's default must be a literal (a number, string, bool, duration or nil)")
				}
			}
		}
		d.Variants = append(d.Variants, vd)
	}
	return d
}

// literalDefault reports whether e may default an enum variant field:
// a literal, built where the variant is, so it means the same there
// (docs/language.md, Enums).
func literalDefault(e Expr) bool {
	switch x := e.(type) {
	case *IntLit, *FloatLit, *DurationLit, *StringLit, *BoolLit, *NilLit:
		return true
	case *UnaryExpr:
		switch x.X.(type) {
		case *IntLit, *FloatLit:
			return x.Op == "-"
		}
	}
	return false
}

type typeDeclG struct {
	Pos        lexer.Position
	Name       name[rType] `parser:"'type' @@"`
	TypeParams *typeParams `parser:"@@?"`
	Type       typ         `parser:"'=' @@"`
}

func (typeDeclG) decl() {}

func (g *typeDeclG) ast() *TypeDecl {
	d := &TypeDecl{At: at(g.Pos), Name: g.Name.Name, NamePos: at(g.Name.Pos), Type: g.Type.T}
	if g.TypeParams != nil {
		d.TypeParams = g.TypeParams.List
	}
	return d
}

type interfaceG struct {
	Pos        lexer.Position
	Name       name[rType]            `parser:"'interface' @@"`
	TypeParams *typeParams            `parser:"@@?"`
	Members    []*memberG             `parser:"'{' ( @@ ( ',' | ';' )? )*"`
	End        membersEnd[kInterface] `parser:"@@"`
}

type memberG struct {
	Assoc  *assocG     `parser:"  @@"`
	Method *methodSigG `parser:"| @@"`
}

type assocG struct {
	Pos  lexer.Position
	Name name[rType] `parser:"'type' @@"`
	Type *typ        `parser:"( '=' @@ )?"`
}

func (a *assocG) ast() *AssocType {
	return &AssocType{At: at(a.Pos), Name: a.Name.Name, Type: optType(a.Type)}
}

type methodSigG struct {
	Pos        lexer.Position
	Name       name[rFn]   `parser:"'fn' @@"`
	TypeParams *typeParams `parser:"@@?"`
	Params     params      `parser:"@@"`
	Return     *typ        `parser:"( '->' @@ )?"`
}

func (interfaceG) decl() {}

func (g *interfaceG) ast() *InterfaceDecl {
	d := &InterfaceDecl{At: at(g.Pos), Name: g.Name.Name, NamePos: at(g.Name.Pos)}
	if g.TypeParams != nil {
		d.TypeParams = g.TypeParams.List
	}
	for _, m := range g.Members {
		if a := m.Assoc; a != nil {
			d.Types = append(d.Types, a.ast())
			continue
		}
		s := m.Method
		sig := &MethodSig{At: at(s.Pos), Name: s.Name.Name, Params: s.Params.List, Return: optType(s.Return)}
		if s.TypeParams != nil {
			sig.TypeParams = s.TypeParams.List
		}
		d.Methods = append(d.Methods, sig)
	}
	return d
}

type implG struct {
	Pos     lexer.Position
	Name    name[rType]       `parser:"'impl' @@"`
	Members []*implMemberG    `parser:"'{' ( @@ ';'? )*"`
	End     membersEnd[kImpl] `parser:"@@"`
}

// implMemberG is an impl method or an associated type the impl provides
// (`type Item = int`).
type implMemberG struct {
	Assoc  *implAssocG `parser:"  @@"`
	Method *methodG    `parser:"| @@"`
}

type implAssocG struct {
	Pos  lexer.Position
	Name name[rType] `parser:"'type' @@"`
	Type typ         `parser:"'=' @@"`
}

type methodG struct {
	Doc docComment `parser:"@@"`
	// Attrs are parsed only to be refused with a message of their own:
	// the impl grammar has none (docs/spec/language.md §10.5).
	Attrs []*attrG `parser:"@@*"`
	Pub   *pubFn   `parser:"@@?"`
	Fn    *fnDeclG `parser:"@@"`
}

func (implG) decl() {}

func (g *implG) ast() *ImplBlock {
	d := &ImplBlock{At: at(g.Pos), Name: g.Name.Name, NamePos: at(g.Name.Pos)}
	for _, mb := range g.Members {
		if a := mb.Assoc; a != nil {
			d.Types = append(d.Types, &AssocType{At: at(a.Pos), Name: a.Name.Name, Type: a.Type.T})
			continue
		}
		m := mb.Method
		if len(m.Attrs) > 0 {
			a := m.Attrs[0]
			panic(bailout{&diag.Error{Line: a.Pos.Line, Col: a.Pos.Column, Phase: diag.PhaseParse,
				Msg:    "attributes are not allowed on impl methods",
				Help:   "`@" + a.Name.Name + "` may stand before a declaration (`fn`, `struct`, `impl`, …), not before a method inside an impl",
				Golden: fmt.Sprintf("Expected fn, got @ at %d:%d", a.Pos.Line, a.Pos.Column)}})
		}
		fn := m.Fn.ast()
		fn.Doc = m.Doc.Text
		if m.Pub != nil {
			fn.At, fn.Pub = at(m.Pub.Pos), true
		}
		d.Methods = append(d.Methods, fn)
	}
	return d
}

type skillG struct {
	Pos  lexer.Position
	Name name[rSkill] `parser:"'skill' @@"`
	Body skillBody    `parser:"@@"`
}

func (skillG) decl() {}

func (g *skillG) ast() *SkillDecl {
	return &SkillDecl{At: at(g.Pos), Name: g.Name.Name, Fields: g.Body.Fields}
}

type evalPackG struct {
	Pos      lexer.Position
	Name     *ident     `parser:"'eval_pack' ( @@"`
	Title    *optStr    `parser:"             @@?"`
	OnlyName *packTitle `parser:"           | @@ )"`
	Body     evalBody   `parser:"@@"`
}

func (evalPackG) decl() {}

func (g *evalPackG) ast() *EvalPackDecl {
	d := &EvalPackDecl{At: at(g.Pos), Items: g.Body.Items}
	switch {
	case g.Name != nil:
		d.Name = g.Name.Name
		if g.Title != nil {
			d.Title = g.Title.Value
		}
	default:
		d.Title = g.OnlyName.Value
	}
	return d
}

// ---- statement-like expressions ----

type ifG struct {
	Pos  lexer.Position
	Cond expr   `parser:"'if' @@"`
	Then block  `parser:"@@"`
	Else *elseG `parser:"( 'else' @@ )?"`
}

type elseG struct {
	If    *elseIf `parser:"  @@"`
	Block *block  `parser:"| @@"`
}

func (g *ifG) ast() *IfExpr {
	x := &IfExpr{At: at(g.Pos), Cond: g.Cond.X, Then: g.Then.B}
	switch {
	case g.Else == nil:
	case g.Else.If != nil:
		x.Else = g.Else.If.X
	default:
		x.Else = g.Else.Block.B
	}
	return x
}

type matchG struct {
	Pos  lexer.Position
	X    expr    `parser:"'match' @@"`
	Arms []*armG `parser:"'{' ( @@ ','? )* '}'"`
}

type armG struct {
	Pos   lexer.Position
	First armPattern   `parser:"@@"`
	Alts  []altPattern `parser:"( '|' @@ )*"`
	Guard *expr        `parser:"( 'if' @@ )?"`
	Arrow tok[sArrow]  `parser:"@@"`
	Body  block        `parser:"@@"`
}

func (g *matchG) ast() *MatchExpr {
	x := &MatchExpr{At: at(g.Pos), X: g.X.X}
	for _, a := range g.Arms {
		arm := &MatchArm{At: at(a.Pos), Guard: optExpr(a.Guard), Body: a.Body.B}
		arm.Patterns = append(arm.Patterns, a.First.X)
		for _, p := range a.Alts {
			arm.Patterns = append(arm.Patterns, p.X)
		}
		x.Arms = append(x.Arms, arm)
	}
	return x
}

type tryG struct {
	Pos     lexer.Position
	Body    block   `parser:"'try' @@"`
	Catch   *catchG `parser:"( 'catch' @@ )?"`
	Finally *block  `parser:"( 'finally' @@ )?"`
}

type catchG struct {
	Pos   lexer.Position
	Paren *catchParenG `parser:"( @@"`
	Name  *ident       `parser:"| @@ )?"`
	Body  block        `parser:"@@"`
}

type catchParenG struct {
	Name  name[rVar]   `parser:"'(' @@"`
	Type  *typ         `parser:"( ':' @@ )?"`
	Close tok[sRParen] `parser:"@@"`
}

func (g *tryG) ast() *TryExpr {
	x := &TryExpr{At: at(g.Pos), Body: g.Body.B}
	if c := g.Catch; c != nil {
		x.HasCatch, x.Catch = true, c.Body.B
		switch {
		case c.Paren != nil:
			x.CatchVar, x.CatchPos, x.CatchType = c.Paren.Name.Name, at(c.Paren.Name.Pos), optType(c.Paren.Type)
		case c.Name != nil:
			x.CatchVar, x.CatchPos = c.Name.Name, at(c.Name.Pos)
		}
	}
	if g.Finally != nil {
		x.Finally = g.Finally.B
	}
	return x
}

type retryG struct {
	Pos   lexer.Position
	Count operand[kRetry] `parser:"'retry' @@"`
	Body  block           `parser:"@@"`
}

func (g *retryG) ast() *RetryExpr { return &RetryExpr{At: at(g.Pos), Count: g.Count.X, Body: g.Body.B} }

type parallelG struct {
	Pos    lexer.Position
	Mode   string    `parser:"'parallel' @( 'each' | 'settle' )?"`
	Arg    expr      `parser:"@@"`
	With   *withG    `parser:"( 'with' @@ )?"`
	Body   taskBody  `parser:"@@"`
	Stream *asStream `parser:"@@?"`
}

type withG struct {
	Open  tok[sLBrace]  `parser:"@@"`
	Key   tok[sMaxConc] `parser:"@@"`
	Colon tok[sColon]   `parser:"@@"`
	Max   expr          `parser:"@@ ','?"`
	Close tok[sRBrace]  `parser:"@@"`
}

func (g *parallelG) ast() *ParallelExpr {
	x := &ParallelExpr{At: at(g.Pos), Arg: g.Arg.X, Param: g.Body.Param, Body: g.Body.Body, Stream: g.Stream != nil}
	switch g.Mode {
	case "each":
		x.Mode = ParallelEach
	case "settle":
		x.Mode = ParallelSettle
	}
	if g.With != nil {
		x.MaxConcurrent = g.With.Max.X
	}
	return x
}

type deadlineG struct {
	Pos      lexer.Position
	Duration operand[kDeadline] `parser:"'deadline' @@"`
	Body     block              `parser:"@@"`
}

func (g *deadlineG) ast() *DeadlineExpr {
	return &DeadlineExpr{At: at(g.Pos), Duration: g.Duration.X, Body: g.Body.B}
}

type spawnG struct {
	Pos  lexer.Position
	Body block `parser:"'spawn' @@"`
}

func (g *spawnG) ast() *SpawnExpr { return &SpawnExpr{At: at(g.Pos), Body: g.Body.B} }

type selectG struct {
	Pos   lexer.Position
	Cases []*caseG `parser:"'select' '{' ( @@ ','? )* '}'"`
}

type caseG struct {
	Pos     lexer.Position
	Timeout *timeoutCaseG `parser:"  @@"`
	Default *block        `parser:"| 'default' @@"`
	Receive *receiveCaseG `parser:"| @@"`
}

type timeoutCaseG struct {
	After expr  `parser:"'timeout' @@"`
	Body  block `parser:"@@"`
}

type receiveCaseG struct {
	Pos     lexer.Position
	Name    listName[rVar] `parser:"@@"`
	From    tok[sFrom]     `parser:"@@"`
	Channel expr           `parser:"@@"`
	Body    block          `parser:"@@"`
}

func (g *selectG) ast() *SelectExpr {
	x := &SelectExpr{At: at(g.Pos)}
	for _, c := range g.Cases {
		switch {
		case c.Timeout != nil:
			if x.TimeoutBody != nil {
				failAt(at(c.Pos), "select cannot have more than one timeout case")
			}
			x.Timeout, x.TimeoutBody = c.Timeout.After.X, c.Timeout.Body.B
		case c.Default != nil:
			if x.Default != nil {
				failAt(at(c.Pos), "select cannot have more than one default case")
			}
			x.Default = c.Default.B
		default:
			r := c.Receive
			x.Cases = append(x.Cases, &SelectCase{At: at(r.Pos), Name: r.Name.Name, Channel: r.Channel.X, Body: r.Body.B})
		}
	}
	return x
}

// fnLitG is an anonymous `fn(params) { … }`.
type fnLitG struct {
	Pos    lexer.Position
	Params params  `parser:"'fn' @@"`
	Return *result `parser:"( '->' @@ )?"`
	Throws *thrown `parser:"( 'throws' @@ )?"`
	Body   block   `parser:"@@"`
}

func (g *fnLitG) ast() *ClosureLit {
	return &ClosureLit{At: at(g.Pos), Kind: ClosureFn, Params: g.Params.List,
		Return: optResult(g.Return), Throws: optThrown(g.Throws), Body: g.Body.B}
}

// bodyNotShape reports that the next token is a `{` that cannot open a
// shape type ({}, {name: T}, {name?: T}, {...R}, {"key": T}), so it
// opens a body.
func bodyNotShape(lex *lexer.PeekingLexer) bool {
	if lex.Peek().Value != "{" {
		return false
	}
	cp := lex.MakeCheckpoint()
	defer lex.LoadCheckpoint(cp)
	lex.Next()
	first := lex.Next()
	if first.Value == "}" || first.Value == "." { // `{}`, `{...R}`
		return false
	}
	second := lex.Peek().Value
	return second != ":" && second != "?" && second != "?:"
}

package format

import (
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// stmt prints a statement or declaration (without surrounding comments;
// the statement list places those).
func (p *printer) stmt(s syntax.Stmt) doc {
	checkKnown(s)
	switch s := s.(type) {
	case *syntax.ExprStmt:
		switch x := s.X.(type) {
		case *syntax.IfExpr:
			return concat{p.inline(x.At), p.ifExpr(x, true)}
		case *syntax.TryExpr:
			return concat{p.inline(x.At), p.try(x, true)}
		}
		p.guardStart(s.X, true)
		return p.expr(s.X)
	case *syntax.AssignStmt:
		p.guardStart(s.Target, false)
		target := p.expr(s.Target)
		return concat{target, p.opValue(p.tokenBeforeIs(syntax.ExprStart(s.Value), s.Op), s.Op, s.Value)}
	case *syntax.LetStmt:
		d := concat{}
		if s.Pub {
			d = append(d, text("pub "))
		}
		d = append(d, text(s.Kind.String()+" "), p.pattern(s.Pattern))
		if s.Type != nil {
			d = append(d, p.punct(p.tokenBeforeIs(s.Type.Position(), ":"), ": "), p.typ(s.Type))
		}
		return append(d, p.opValue(p.tokenBeforeIs(syntax.ExprStart(s.Value), "="), "=", s.Value))
	case *syntax.ForStmt:
		pat := p.pattern(s.Pattern)
		return concat{text("for "), pat, p.opValue(p.tokenBeforeIs(syntax.ExprStart(s.Iter), "in"), "in", s.Iter), text(" "), p.body(s.Body)}
	case *syntax.WhileStmt:
		return concat{text("while "), p.expr(s.Cond), text(" "), p.body(s.Body)}
	case *syntax.DeferStmt:
		return concat{text("defer "), p.block(s.Body)}
	case *syntax.MutexStmt:
		if s.Key != nil {
			return concat{text("mutex"), p.mutexArgs(s.At, s.Key, s.Timeout, s.TimeoutNamed), text(" "), p.body(s.Body)}
		}
		return concat{text("mutex "), p.body(s.Body)}
	case *syntax.ScopeStmt:
		return concat{text("scope "), p.body(s.Body)}
	case *syntax.CostRouteStmt:
		return concat{text("cost_route "), p.costRouteBody(s)}
	case *syntax.ReturnStmt:
		if s.Value == nil {
			return text("return")
		}
		return concat{text("return "), p.expr(s.Value)}
	case *syntax.YieldStmt:
		if s.Value == nil {
			return text("yield")
		}
		return concat{text("yield "), p.expr(s.Value)}
	case *syntax.ThrowStmt:
		return concat{text("throw "), p.expr(s.Value)}
	case *syntax.EmitStmt:
		return concat{text("emit "), p.expr(s.Value)}
	case *syntax.GuardStmt:
		return concat{text("guard "), p.expr(s.Cond), text(" else "), p.block(s.Else)}
	case *syntax.RequireStmt:
		d := concat{text("require "), p.expr(s.Cond)}
		if s.Message != nil {
			d = append(d, text(", "), p.expr(s.Message))
		}
		return d
	case *syntax.BreakStmt:
		return text("break")
	case *syntax.ContinueStmt:
		return text("continue")
	case *syntax.ImportDecl:
		return p.importDecl(s)
	case *syntax.FnDecl:
		return p.fnDecl(s)
	case *syntax.PipelineDecl:
		d := p.declHead(s.Attrs, s.Pub, "pipeline "+s.Name)
		d = append(d, p.params(s.Params, p.nextPunct(s.NamePos, "(")), p.returnThrows(s.Return, s.Throws))
		if s.Extends != "" {
			d = append(d, text(" extends "+s.Extends))
		}
		return append(d, text(" "), p.body(s.Body))
	case *syntax.ToolDecl:
		return p.toolDecl(s)
	case *syntax.StructDecl:
		return p.structDecl(s)
	case *syntax.EnumDecl:
		return p.enumDecl(s)
	case *syntax.TypeDecl:
		d := p.declHead(s.Attrs, s.Pub, "type "+s.Name)
		return append(d, p.typeParams(s.TypeParams), text(" = "), p.typ(s.Type))
	case *syntax.InterfaceDecl:
		return p.interfaceDecl(s)
	case *syntax.ImplBlock:
		return p.implBlock(s)
	case *syntax.SkillDecl:
		return p.skillDecl(s)
	case *syntax.EvalPackDecl:
		return p.evalPack(s)
	case *syntax.OverrideDecl:
		return concat{text("override " + s.Name + "(" + strings.Join(s.Params, ", ") + ") "), p.body(s.Body)}
	}
	panic(unsupported("a statement of kind " + typeName(s)))
}

// guardStart marks the keyword form an expression statement starts with
// for parentheses when, printed bare, the statement would be parsed as
// that form alone (the parser reads `if`, `match`, `try`, `retry`,
// `parallel`, `deadline` and `select` at the start of a statement as the
// whole statement, and `mutex` as the mutex statement). whole reports
// whether x is the entire statement, where only `mutex` differs.
func (p *printer) guardStart(x syntax.Expr, whole bool) {
	first := syntax.Leftmost(x)
	switch first.(type) {
	case *syntax.MutexExpr:
	case *syntax.IfExpr, *syntax.MatchExpr, *syntax.TryExpr, *syntax.RetryExpr, *syntax.ParallelExpr,
		*syntax.DeadlineExpr, *syntax.SelectExpr:
		if whole && first == x {
			return
		}
	default:
		return
	}
	p.parens[first] = true
}

// declHead prints attributes (one per line), `pub` and the keyword and
// name of a declaration.
func (p *printer) declHead(attrs []*syntax.Attribute, pub bool, head string) concat {
	var d concat
	for _, a := range attrs {
		d = append(d, p.inline(a.At), p.attribute(a))
		// Comments after the attribute stay there, before the next
		// attribute or the declaration (docs/fmt.md "Comments"): left to
		// the declaration, they would land in its parameter list.
		if next := p.afterAttribute(a); next.IsValid() {
			d = append(d, p.trailingComments(next))
			d = append(d, p.commentLines(next))
		}
		d = append(d, hardline)
	}
	if pub {
		head = "pub " + head
	}
	return append(d, text(head))
}

// afterAttribute is the position of the first token after an attribute
// (the next attribute or the declaration), or the zero position.
func (p *printer) afterAttribute(a *syntax.Attribute) syntax.Pos {
	i := p.tokenAt(a.At)
	if i < 0 {
		return syntax.Pos{}
	}
	for i < len(p.toks) && !(p.toks[i].Kind == syntax.TokIdent && p.toks[i].Text == a.Name) {
		i++
	}
	j := p.nextSignificant(i + 1)
	if j < len(p.toks) && p.toks[j].Kind == syntax.TokPunct && p.toks[j].Text == "(" {
		if c, ok := p.closer[j]; ok {
			j = p.nextSignificant(c + 1)
		}
	}
	if j >= len(p.toks) {
		return syntax.Pos{}
	}
	return p.toks[j].Pos
}

// commentLines emits the comments before pos, each on a line of its own
// after a line break.
func (p *printer) commentLines(pos syntax.Pos) doc {
	var out concat
	for p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(pos) {
		c := p.comments[p.next]
		p.next++
		out = append(out, hardline, commentDoc(c.tok))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (p *printer) attribute(a *syntax.Attribute) doc {
	d := concat{text("@" + a.Name)}
	if len(a.Args) == 0 {
		return d
	}
	elems := make([]elem, len(a.Args))
	for i, arg := range a.Args {
		arg := arg
		start := syntax.ExprStart(arg.Value)
		elems[i] = elem{start, func() doc {
			if arg.Name != "" {
				return concat{text(arg.Name + ": "), p.expr(arg.Value)}
			}
			return p.expr(arg.Value)
		}}
	}
	paren := p.nextPunct(a.At, "(")
	return append(d, p.seq("(", elems, ")", p.closing(paren), false))
}

func (p *printer) importDecl(s *syntax.ImportDecl) doc {
	d := concat{}
	if s.Pub {
		d = append(d, text("pub "))
	}
	d = append(d, text("import "))
	if s.Namespace != nil {
		return append(d, text("* as "+s.Namespace.Name+" from "+p.textAt(s.PathPos)))
	}
	if i := p.tokenAt(s.PathPos); i >= 0 && p.toks[i].Kind == syntax.TokIdent {
		// import a::b::{x, y}
		d = append(d, text(strings.ReplaceAll(s.Path, "/", "::")+"::{"))
		for i, n := range s.Names {
			if i > 0 {
				d = append(d, p.punct(p.tokenBeforeIs(n.At, ","), ", "))
			}
			d = append(d, p.inline(n.At), text(n.Name))
		}
		if len(s.Names) > 0 {
			d = append(d, p.closeBracket(p.tokenBeforeIs(s.Names[0].At, "{")))
		}
		return append(d, text("}"))
	}
	if s.Names != nil {
		if len(s.Names) == 0 {
			d = append(d, text("{} from "))
		} else {
			elems := make([]elem, len(s.Names))
			for i, n := range s.Names {
				n := n
				elems[i] = elem{n.At, func() doc { return text(n.Name) }}
			}
			inner := p.seq("{", elems, "}", p.closing(p.nextPunct(s.At, "{")), false)
			// `{ a, b }`: spaces inside the braces when flat
			if g, ok := inner.(*group); ok {
				g.docs[1] = indent{sp, g.docs[1].(indent)[1]}
				g.docs[2] = sp
			}
			d = append(d, inner, text(" from "))
		}
	}
	return append(d, text(p.textAt(s.PathPos)))
}

func (p *printer) fnDecl(s *syntax.FnDecl) doc {
	head := "fn " + s.Name
	if s.Gen {
		head = "gen " + head
	}
	d := p.declHead(s.Attrs, s.Pub, head)
	d = append(d, p.typeParams(s.TypeParams), p.params(s.Params, p.paramsParen(s.NamePos)), p.returnThrows(s.Return, s.Throws))
	if where := writtenWhere(s); len(where) > 0 {
		d = append(d, text(" where "))
		for i, w := range where {
			if i > 0 {
				d = append(d, text(", "))
			}
			d = append(d, text(w.Param+": "), p.bounds(w.Bounds, w.BoundArgs))
		}
	}
	return append(d, text(" "), p.body(s.Body))
}

// writtenWhere is the where clause as written: without the clauses the
// parser added for inline bounds (`<T: A>`), which typeParams prints.
func writtenWhere(s *syntax.FnDecl) []*syntax.WhereClause {
	inline := map[syntax.Pos]bool{}
	for _, tp := range s.TypeParams {
		if len(tp.Bounds) > 0 {
			inline[tp.At] = true
		}
	}
	var out []*syntax.WhereClause
	for _, w := range s.Where {
		if !inline[w.At] {
			out = append(out, w)
		}
	}
	return out
}

// paramsParen is the `(` of a parameter list after a name and optional
// type parameters.
func (p *printer) paramsParen(name syntax.Pos) syntax.Pos {
	i := p.tokenAt(name)
	if i < 0 {
		return syntax.Pos{}
	}
	j := p.nextSignificant(i + 1)
	if j < len(p.toks) && p.toks[j].Text == "<" {
		return p.afterTypeArgs(name)
	}
	return p.nextPunct(name, "(")
}

func (p *printer) typeParams(tps []*syntax.TypeParam) doc {
	if len(tps) == 0 {
		return nil
	}
	d := concat{text("<")}
	for i, tp := range tps {
		if i > 0 {
			d = append(d, p.punct(p.tokenBeforeIs(tp.At, ","), ", "))
		}
		d = append(d, p.inline(tp.At))
		if tp.Variance != "" {
			d = append(d, text(tp.Variance+" "))
		}
		d = append(d, text(tp.Name))
		if len(tp.Bounds) > 0 {
			d = append(d, text(": "), p.bounds(tp.Bounds, tp.BoundArgs()))
		}
	}
	return append(d, text(">"))
}

// bounds prints `A + B<T, U>`: interface bounds, a generic one with its
// type arguments (args[i] is nil for a bare name; args may be nil).
func (p *printer) bounds(names []string, args [][]syntax.TypeExpr) doc {
	var d concat
	for i, b := range names {
		if i > 0 {
			d = append(d, text(" + "))
		}
		d = append(d, text(b))
		if i < len(args) && args[i] != nil {
			d = append(d, text("<"))
			for j, a := range args[i] {
				if j > 0 {
					d = append(d, text(", "))
				}
				d = append(d, p.typ(a))
			}
			d = append(d, text(">"))
		}
	}
	return d
}

// params prints `(a: T = d, ...rest)`; paren is the `(`.
func (p *printer) params(ps []*syntax.Param, paren syntax.Pos) doc {
	elems := make([]elem, len(ps))
	for i, prm := range ps {
		prm := prm
		elems[i] = elem{prm.At, func() doc { return p.param(prm) }}
	}
	closeAt := p.closing(paren)
	if closeAt == paren {
		closeAt = syntax.Pos{}
	}
	return p.seq("(", elems, ")", closeAt, false)
}

func (p *printer) param(prm *syntax.Param) doc {
	checkKnown(prm)
	d := concat{}
	if prm.Rest {
		d = append(d, text("..."))
	}
	d = append(d, text(prm.Name))
	if prm.Type != nil {
		d = append(d, p.punct(p.tokenBeforeIs(prm.Type.Position(), ":"), ": "), p.typ(prm.Type))
	}
	if prm.Default != nil {
		d = append(d, p.punct(p.tokenBeforeIs(syntax.ExprStart(prm.Default), "="), " = "), p.expr(prm.Default))
	}
	return d
}

func (p *printer) toolDecl(s *syntax.ToolDecl) doc {
	d := p.declHead(s.Attrs, s.Pub, "tool "+s.Name)
	d = append(d, p.params(s.Params, p.nextPunct(s.NamePos, "(")), p.returnThrows(s.Return, s.Throws), text(" "))
	b := s.Body
	desc := p.description(b.At)
	if desc == "" {
		return append(d, p.body(b))
	}
	// `description "…"` is the body's first line, printed as one more item.
	descAt := p.nextWord(b.At, "description")
	first := item{start: descAt, print: func() doc { return text("description " + desc) }}
	items := append([]item{first}, p.stmtItems(b.Stmts, b.End, false)...)
	next := b.End
	if len(items) > 1 {
		next = items[1].start
	}
	items[0].end = p.endBefore(next)
	return append(d, text("{"), indent{hardline, p.list(items, b.End)}, hardline, text("}"))
}

// description returns the text of the `description "…"` string that opens
// the tool body at open, or "".
func (p *printer) description(open syntax.Pos) string {
	i := p.tokenAt(open)
	if i < 0 {
		return ""
	}
	var sig []syntax.Token
	for j := i + 1; j < len(p.toks) && len(sig) < 2; j++ {
		if significant(p.toks[j]) {
			sig = append(sig, p.toks[j])
		}
	}
	if len(sig) == 2 && sig[0].Kind == syntax.TokIdent && sig[0].Text == "description" &&
		(sig[1].Kind == syntax.TokString || sig[1].Kind == syntax.TokRaw) {
		return sig[1].Text
	}
	return ""
}

// commentPendingBefore reports whether a comment written before pos is
// not yet printed: one before a declaration's `{` (`struct P /* c */{ x:
// int }`) is printed inside the braces, which the next run keeps broken.
func (p *printer) commentPendingBefore(pos syntax.Pos) bool {
	return p.next < len(p.comments) && p.comments[p.next].tok.Pos.Before(pos)
}

// members prints `{ members }`: one per line when written on several lines
// or too long, else `{ a, b }`. A one-line body that does not fit breaks
// into the layout of one written on several lines, without commas, so that
// formatting the result again changes nothing.
func (p *printer) members(openAt syntax.Pos, items []item) doc {
	end := p.closing(openAt)
	if len(items) == 0 {
		if p.hasComments(openAt, end) {
			return concat{text("{"), p.afterOpen(openAt, end), indent{hardline, p.list(nil, end)}, hardline, text("}")}
		}
		return text("{}")
	}
	p.setEnds(items, end)
	if items[0].start.Line == openAt.Line && end.Line == openAt.Line && !p.hasComments(openAt, end) && !p.commentPendingBefore(openAt) {
		var flatDoc concat
		for i, it := range items {
			if i > 0 {
				flatDoc = append(flatDoc, ifBreak{flat: text(",")}, sp)
			}
			flatDoc = append(flatDoc, it.print())
		}
		return grp(text("{"), indent{sp, flatDoc}, sp, text("}"))
	}
	return concat{text("{"), p.afterOpen(openAt, items[0].start), indent{hardline, p.list(items, end)}, hardline, text("}")}
}

func (p *printer) structDecl(s *syntax.StructDecl) doc {
	d := p.declHead(s.Attrs, s.Pub, "struct "+s.Name)
	d = append(d, p.typeParams(s.TypeParams), text(" "))
	items := make([]item, len(s.Fields))
	for i, f := range s.Fields {
		f := f
		items[i] = item{start: f.At, print: func() doc {
			fd := concat{text(f.Name)}
			if f.Optional {
				fd = append(fd, text("?"))
			}
			if f.Type != nil {
				fd = append(fd, p.punct(p.tokenBeforeIs(f.Type.Position(), ":"), ": "), p.typ(f.Type))
			}
			return fd
		}}
	}
	return append(d, p.members(p.bodyBrace(s.At, s.TypeParams != nil), items))
}

// bodyBrace is the `{` after a declaration's name and type parameters.
func (p *printer) bodyBrace(at syntax.Pos, generic bool) syntax.Pos {
	i := p.tokenAt(at)
	depth := 0
	for j := i; j >= 0 && j < len(p.toks); j++ {
		t := p.toks[j]
		if t.Kind != syntax.TokPunct {
			continue
		}
		switch t.Text {
		case "<":
			depth++
		case ">":
			depth--
		case "{":
			if depth <= 0 || !generic {
				return t.Pos
			}
		}
	}
	return at
}

func (p *printer) enumDecl(s *syntax.EnumDecl) doc {
	d := p.declHead(s.Attrs, s.Pub, "enum "+s.Name)
	d = append(d, p.typeParams(s.TypeParams), text(" "))
	items := make([]item, len(s.Variants))
	for i, v := range s.Variants {
		v := v
		items[i] = item{start: v.At, print: func() doc {
			if v.Params == nil {
				return text(v.Name)
			}
			return concat{text(v.Name), p.params(v.Params, p.nextPunct(v.At, "("))}
		}}
	}
	return append(d, p.members(p.bodyBrace(s.At, s.TypeParams != nil), items))
}

func (p *printer) interfaceDecl(s *syntax.InterfaceDecl) doc {
	d := p.declHead(s.Attrs, s.Pub, "interface "+s.Name)
	d = append(d, p.typeParams(s.TypeParams), text(" "))
	var items []item
	for _, t := range s.Types {
		items = append(items, p.assocType(t))
	}
	for _, m := range s.Methods {
		m := m
		items = append(items, item{start: m.At, print: func() doc {
			name := p.nextWord(m.At, m.Name)
			return concat{text("fn " + m.Name), p.typeParams(m.TypeParams), p.params(m.Params, p.paramsParen(name)),
				p.returnThrows(m.Return, nil)}
		}})
	}
	sortItems(items)
	open := p.bodyBrace(s.At, s.TypeParams != nil)
	end := p.closing(open)
	return append(d, p.braced(items, open, end)...)
}

// nextWord is the position of the first token spelled w at or after pos.
func (p *printer) nextWord(pos syntax.Pos, w string) syntax.Pos {
	i := p.tokenAt(pos)
	if i < 0 {
		return pos
	}
	for ; i < len(p.toks); i++ {
		if p.toks[i].Text == w && p.toks[i].Kind == syntax.TokIdent {
			return p.toks[i].Pos
		}
	}
	return pos
}

// assocType prints `type Name [= Type]`, a member of an interface or impl.
func (p *printer) assocType(t *syntax.AssocType) item {
	return item{start: t.At, print: func() doc {
		if t.Type == nil {
			return text("type " + t.Name)
		}
		return concat{text("type " + t.Name + " = "), p.typ(t.Type)}
	}}
}

func (p *printer) implBlock(s *syntax.ImplBlock) doc {
	d := p.declHead(s.Attrs, false, "impl "+s.Name)
	d = append(d, text(" "))
	open := p.nextPunct(s.At, "{")
	end := p.closing(open)
	var items []item
	for _, t := range s.Types {
		items = append(items, p.assocType(t))
	}
	for _, m := range s.Methods {
		m := m
		items = append(items, item{start: p.stmtStart(m), blockDecl: true, print: func() doc { return p.fnDecl(m) }})
	}
	sortItems(items)
	return append(d, p.braced(items, open, end)...)
}

func (p *printer) skillDecl(s *syntax.SkillDecl) doc {
	d := p.declHead(s.Attrs, s.Pub, "skill "+s.Name)
	d = append(d, text(" "))
	open := p.nextPunct(s.At, "{")
	end := p.closing(open)
	items := make([]item, len(s.Fields))
	for i, f := range s.Fields {
		f := f
		items[i] = item{start: f.At, print: func() doc { return concat{text(f.Name + " "), p.expr(f.Value)} }}
	}
	return append(d, p.braced(items, open, end)...)
}

func (p *printer) evalPack(s *syntax.EvalPackDecl) doc {
	head := "eval_pack"
	if s.Name != "" {
		head += " " + s.Name
	}
	d := p.declHead(s.Attrs, s.Pub, head)
	open := p.nextPunct(s.At, "{")
	// the title as written: the string token before the `{`
	if i := p.tokenAt(open); i > 0 {
		for j := i - 1; j >= 0 && p.toks[j].Pos != s.At; j-- {
			if k := p.toks[j].Kind; k == syntax.TokString || k == syntax.TokRaw {
				d = append(d, text(" "+p.toks[j].Text))
				break
			}
			if significant(p.toks[j]) && p.toks[j].Kind != syntax.TokIdent {
				break
			}
		}
	}
	d = append(d, text(" "))
	end := p.closing(open)
	items := make([]item, len(s.Items))
	for i, it := range s.Items {
		it := it
		start := it.At
		if it.Stmt != nil {
			start = p.stmtStart(it.Stmt)
		}
		items[i] = item{start: start, print: func() doc {
			switch {
			case it.Stmt != nil:
				return p.stmt(it.Stmt)
			case it.Summarize != nil:
				return concat{text("summarize "), p.block(it.Summarize)}
			}
			return concat{text(it.Key + ": "), p.expr(it.Value)}
		}}
	}
	return append(d, p.braced(items, open, end)...)
}

// ---- patterns ----

func (p *printer) pattern(pt syntax.Pattern) doc {
	checkKnown(pt)
	lead := p.inline(pt.Position())
	var d doc
	switch pt := pt.(type) {
	case *syntax.IdentPattern:
		d = text(pt.Name)
	case *syntax.PairPattern:
		d = text("(" + pt.First + ", " + pt.Second + ")")
	case *syntax.DictPattern:
		elems := make([]elem, len(pt.Items))
		for i, it := range pt.Items {
			it := it
			elems[i] = elem{it.At, func() doc {
				if it.Rest {
					return text("..." + it.Key)
				}
				id := concat{text(it.Key)}
				if it.Alias != it.Key {
					id = append(id, text(": "+it.Alias))
				}
				if it.Default != nil {
					id = append(id, text(" = "), p.expr(it.Default))
				}
				return id
			}}
		}
		d = p.seq("{", elems, "}", p.closing(pt.At), false)
	case *syntax.ListPattern:
		elems := make([]elem, len(pt.Items))
		for i, it := range pt.Items {
			it := it
			elems[i] = elem{it.At, func() doc {
				if it.Rest {
					return text("..." + it.Name)
				}
				if it.Default != nil {
					return concat{text(it.Name + " = "), p.expr(it.Default)}
				}
				return text(it.Name)
			}}
		}
		d = p.seq("[", elems, "]", p.closing(pt.At), false)
	default:
		panic(unsupported("a pattern of kind " + typeName(pt)))
	}
	if lead == nil {
		return d
	}
	return concat{lead, d}
}

// ---- types ----

// Type contexts: where a type appears decides which forms need
// parentheses.
const (
	tyTop = iota
	tyUnion
	tyInter
	tyOptional
)

func (p *printer) typ(t syntax.TypeExpr) doc {
	return p.typeIn(t, tyTop)
}

// typeTerms prints the members of a union (op "|") or intersection ("&")
// type, each in ctx.
func (p *printer) typeTerms(types []syntax.TypeExpr, op string, ctx int) doc {
	var d concat
	for i, m := range types {
		if i > 0 {
			d = append(d, p.punct(p.tokenBeforeIs(m.Position(), op), " "+op+" "))
		}
		d = append(d, p.typeIn(m, ctx))
	}
	return d
}

func (p *printer) typeIn(t syntax.TypeExpr, ctx int) doc {
	// a comment before the type stays there (`x: /* c */ int`)
	lead := p.inline(t.Position())
	paren := false
	switch t.(type) {
	case *syntax.UnionType:
		paren = ctx == tyInter || ctx == tyOptional
	case *syntax.InterType:
		paren = ctx == tyOptional
	case *syntax.FnType:
		paren = ctx != tyTop
	}
	d := p.type1(t)
	if paren {
		d = concat{text("("), d, text(")")}
	}
	if lead == nil {
		return d
	}
	return concat{lead, d}
}

func (p *printer) type1(t syntax.TypeExpr) doc {
	checkKnown(t)
	switch t := t.(type) {
	case *syntax.NamedType:
		if len(t.Args) == 0 {
			return text(t.Name)
		}
		d := concat{text(t.Name + "<")}
		for i, a := range t.Args {
			if i > 0 {
				d = append(d, p.punct(p.tokenBeforeIs(a.Position(), ","), ", "))
			}
			d = append(d, p.typ(a))
		}
		if close := p.typeArgsClose(t.At); close.IsValid() {
			before, _ := p.commentsBefore(close, false)
			d = append(d, before)
		}
		return append(d, text(">"))
	case *syntax.ListType:
		return concat{text("["), p.typ(t.Elem), text("]")}
	case *syntax.ShapeType:
		elems := make([]elem, len(t.Fields))
		for i, f := range t.Fields {
			f := f
			elems[i] = elem{f.At, func() doc {
				name := f.Name
				if f.Optional {
					name += "?"
				}
				return concat{text(name), p.punct(p.tokenBeforeIs(f.Type.Position(), ":"), ": "), p.typ(f.Type)}
			}}
		}
		if t.Rest != nil {
			// an open record: `...rest` or `...dict<string, V>` (printed last)
			rest := t.Rest
			elems = append(elems, elem{rest.Position(), func() doc { return concat{text("..."), p.typ(rest)} }})
		}
		return p.seq("{", elems, "}", p.closing(t.At), false)
	case *syntax.FnType:
		d := concat{text("fn(")}
		for i, a := range t.Params {
			if i > 0 {
				d = append(d, p.punct(p.tokenBeforeIs(a.Position(), ","), ", "))
			}
			d = append(d, p.typ(a))
		}
		d = append(d, p.closeBracket(p.nextPunct(t.At, "(")), text(")"))
		return append(d, p.punct(p.tokenBeforeIs(t.Return.Position(), "->"), " -> "), p.typ(t.Return))
	case *syntax.UnionType:
		return p.typeTerms(t.Types, "|", tyUnion)
	case *syntax.InterType:
		return p.typeTerms(t.Types, "&", tyInter)
	case *syntax.OptionalType:
		return concat{p.typeIn(t.Elem, tyOptional), text("?")}
	case *syntax.LiteralType:
		switch v := t.Value.(type) {
		case string:
			if p.tokenAt(t.At) < 0 {
				return text(strconv.Quote(v))
			}
			return text(p.textAt(t.At))
		case int64:
			return text(strconv.FormatInt(v, 10))
		}
	case *syntax.NilType:
		return text("nil")
	}
	panic(unsupported("a type of kind " + typeName(t)))
}

// typeArgsClose is the `>` that ends the type arguments of the named
// type at at (types hold no comparison, so it is the first one at depth
// 0), or the zero position.
func (p *printer) typeArgsClose(at syntax.Pos) syntax.Pos {
	i := p.tokenAt(at)
	if i < 0 {
		return syntax.Pos{}
	}
	depth := 0
	for ; i < len(p.toks); i++ {
		t := p.toks[i]
		if t.Kind != syntax.TokPunct {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			if c, ok := p.closer[i]; ok {
				i = c
			}
		case "<":
			depth++
		case ">":
			if depth--; depth == 0 {
				return t.Pos
			}
		}
	}
	return syntax.Pos{}
}

// mutexArgs prints `(key)` or `(key, timeout)` of the `mutex` at at, the
// timeout as it was written (`timeout: d` or a plain value), as an
// argument list: comments inside the parentheses keep their side of the
// comma and a line comment after the `(` breaks the list.
func (p *printer) mutexArgs(at syntax.Pos, key, timeout syntax.Expr, named bool) doc {
	elems := p.exprElems([]syntax.Expr{key})
	if timeout != nil {
		start := syntax.ExprStart(timeout)
		print := func() doc { return p.expr(timeout) }
		if named {
			if i := p.tokenBefore(p.tokenBeforeIs(start, ":")); i >= 0 {
				start = p.toks[i].Pos
			}
			print = func() doc { return concat{text("timeout"), p.colonValue(timeout)} }
		}
		elems = append(elems, elem{start, print})
	}
	return p.seq("(", elems, ")", p.closing(p.nextPunct(at, "(")), false)
}

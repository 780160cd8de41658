package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// sx prints a node as an S-expression so tests can state tree shapes
// compactly. Positions are left out.
func sx(n any) string {
	var b strings.Builder
	w := sxWriter{&b}
	w.node(n)
	return b.String()
}

type sxWriter struct{ b *strings.Builder }

func (w sxWriter) s(parts ...string) {
	for _, p := range parts {
		w.b.WriteString(p)
	}
}

// list writes "(head x y …)".
func (w sxWriter) list(head string, xs ...any) {
	w.s("(", head)
	for _, x := range xs {
		w.s(" ")
		w.node(x)
	}
	w.s(")")
}

func (w sxWriter) opt(x any) any {
	if x == nil {
		return "_"
	}
	return x
}

func (w sxWriter) exprs(xs []Expr) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func (w sxWriter) node(n any) {
	switch n := n.(type) {
	case nil:
		w.s("_")
	case string:
		w.s(n)
	case *File:
		for i, it := range n.Items {
			if i > 0 {
				w.s("\n")
			}
			w.node(it)
		}
	case *Block:
		w.s("{")
		for i, st := range n.Stmts {
			if i > 0 {
				w.s("; ")
			}
			w.node(st)
		}
		w.s("}")
	case *ExprStmt:
		w.node(n.X)
	case *LetStmt:
		head := n.Kind.String()
		if n.Pub {
			head = "pub " + head
		}
		if n.Type != nil {
			w.list(head, n.Pattern, n.Type, n.Value)
		} else {
			w.list(head, n.Pattern, n.Value)
		}
	case *AssignStmt:
		w.list(n.Op, n.Target, n.Value)
	case *ForStmt:
		w.list("for", n.Pattern, n.Iter, n.Body)
	case *WhileStmt:
		w.list("while", n.Cond, n.Body)
	case *DeferStmt:
		w.list("defer", n.Body)
	case *MutexStmt:
		w.list("mutex", n.Body)
	case *ScopeStmt:
		w.list("scope", n.Body)
	case *CostRouteStmt:
		w.list("cost_route", n.Body)
	case *MutexExpr:
		if n.Timeout != nil {
			w.list("mutex-expr", w.opt(n.Key), n.Timeout, n.Body)
			break
		}
		w.list("mutex-expr", w.opt(n.Key), n.Body)
	case *ReturnStmt:
		if n.Value == nil {
			w.s("(return)")
		} else {
			w.list("return", n.Value)
		}
	case *YieldStmt:
		if n.Value == nil {
			w.s("(yield)")
		} else {
			w.list("yield", n.Value)
		}
	case *ThrowStmt:
		w.list("throw", n.Value)
	case *EmitStmt:
		w.list("emit", n.Value)
	case *GuardStmt:
		w.list("guard", n.Cond, n.Else)
	case *RequireStmt:
		w.list("require", n.Cond, w.opt(n.Message))
	case *BreakStmt:
		w.s("(break)")
	case *ContinueStmt:
		w.s("(continue)")
	case *OverrideDecl:
		w.list("override", n.Name, "("+strings.Join(n.Params, " ")+")", n.Body)
	case *ImportDecl:
		head := "import"
		if n.Pub {
			head = "pub import"
		}
		if n.Names == nil {
			w.list(head, strconv.Quote(n.Path))
		} else {
			var names []string
			for _, id := range n.Names {
				names = append(names, id.Name)
			}
			w.list(head, strconv.Quote(n.Path), "("+strings.Join(names, " ")+")")
		}
	case *FnDecl:
		head := "fn"
		if n.Gen {
			head = "gen fn"
		}
		if n.Pub {
			head = "pub " + head
		}
		w.s("(", head, " ", n.Name)
		w.attrs(n.Attrs)
		w.typeParams(n.TypeParams)
		w.s(" ")
		w.params(n.Params)
		if n.Return != nil {
			w.s(" -> ")
			w.node(n.Return)
		}
		if n.Throws != nil {
			w.s(" throws ")
			w.node(n.Throws)
		}
		for _, wc := range n.Where {
			w.s(" where ", wc.Param, ":")
			for i, b := range wc.Bounds {
				if i > 0 {
					w.s("+")
				}
				w.s(b)
				if i < len(wc.BoundArgs) && wc.BoundArgs[i] != nil {
					w.s("<")
					for j, a := range wc.BoundArgs[i] {
						if j > 0 {
							w.s(" ")
						}
						w.node(a)
					}
					w.s(">")
				}
			}
		}
		w.s(" ")
		w.node(n.Body)
		w.s(")")
	case *PipelineDecl:
		w.s("(pipeline ", n.Name)
		w.attrs(n.Attrs)
		w.s(" ")
		w.params(n.Params)
		if n.Return != nil {
			w.s(" -> ")
			w.node(n.Return)
		}
		if n.Extends != "" {
			w.s(" extends ", n.Extends)
		}
		w.s(" ")
		w.node(n.Body)
		w.s(")")
	case *ToolDecl:
		w.s("(tool ", n.Name, " ")
		w.params(n.Params)
		if n.Return != nil {
			w.s(" -> ")
			w.node(n.Return)
		}
		if n.Description != "" {
			w.s(" ", strconv.Quote(n.Description))
		}
		w.s(" ")
		w.node(n.Body)
		w.s(")")
	case *StructDecl:
		w.s("(struct ", n.Name)
		w.typeParams(n.TypeParams)
		for _, f := range n.Fields {
			w.s(" ", f.Name)
			if f.Optional {
				w.s("?")
			}
			if f.Type != nil {
				w.s(":")
				w.node(f.Type)
			}
		}
		w.s(")")
	case *EnumDecl:
		w.s("(enum ", n.Name)
		w.typeParams(n.TypeParams)
		for _, v := range n.Variants {
			w.s(" ", v.Name)
			if v.Params != nil {
				w.params(v.Params)
			}
		}
		w.s(")")
	case *TypeDecl:
		w.s("(type ", n.Name)
		w.typeParams(n.TypeParams)
		w.s(" ")
		w.node(n.Type)
		w.s(")")
	case *InterfaceDecl:
		w.s("(interface ", n.Name)
		w.typeParams(n.TypeParams)
		for _, m := range n.Methods {
			w.s(" (fn ", m.Name)
			w.typeParams(m.TypeParams)
			w.s(" ")
			w.params(m.Params)
			if m.Return != nil {
				w.s(" -> ")
				w.node(m.Return)
			}
			w.s(")")
		}
		for _, a := range n.Types {
			w.s(" (type ", a.Name)
			if a.Type != nil {
				w.s(" ")
				w.node(a.Type)
			}
			w.s(")")
		}
		w.s(")")
	case *ImplBlock:
		w.s("(impl ", n.Name)
		for _, a := range n.Types {
			w.s(" (type ", a.Name, " ")
			w.node(a.Type)
			w.s(")")
		}
		for _, m := range n.Methods {
			w.s(" ")
			w.node(m)
		}
		w.s(")")
	case *SkillDecl:
		w.s("(skill ", n.Name)
		for _, f := range n.Fields {
			w.s(" (", f.Name, " ")
			w.node(f.Value)
			w.s(")")
		}
		w.s(")")
	case *EvalPackDecl:
		w.s("(eval_pack ", n.Name, " ", strconv.Quote(n.Title))
		for _, it := range n.Items {
			w.s(" ")
			switch {
			case it.Summarize != nil:
				w.list("summarize", it.Summarize)
			case it.Stmt != nil:
				w.node(it.Stmt)
			default:
				w.list(it.Key+":", it.Value)
			}
		}
		w.s(")")

	case *IdentPattern:
		w.s(n.Name)
	case *PairPattern:
		w.s("(", n.First, ", ", n.Second, ")")
	case *DictPattern:
		w.s("{")
		for i, it := range n.Items {
			if i > 0 {
				w.s(" ")
			}
			if it.Rest {
				w.s("...")
			}
			w.s(it.Key)
			if it.Alias != it.Key {
				w.s(":", it.Alias)
			}
			if it.Default != nil {
				w.s("=")
				w.node(it.Default)
			}
		}
		w.s("}")
	case *ListPattern:
		w.s("[")
		for i, it := range n.Items {
			if i > 0 {
				w.s(" ")
			}
			if it.Rest {
				w.s("...")
			}
			w.s(it.Name)
			if it.Default != nil {
				w.s("=")
				w.node(it.Default)
			}
		}
		w.s("]")

	case *Ident:
		w.s(n.Name)
	case *IntLit:
		w.s(strconv.FormatInt(n.Value, 10))
	case *FloatLit:
		w.s(strconv.FormatFloat(n.Value, 'g', -1, 64), "f")
	case *DurationLit:
		w.s(strconv.FormatInt(n.Ms, 10), "ms")
	case *StringLit:
		if n.Raw {
			w.s("r")
		}
		w.s(strconv.Quote(n.Value))
	case *InterpString:
		w.s("(istr")
		for _, p := range n.Parts {
			w.s(" ")
			switch {
			case p.Expr != nil:
				w.node(p.Expr)
			default:
				w.s(strconv.Quote(p.Lit))
			}
		}
		w.s(")")
	case *BoolLit:
		w.s(strconv.FormatBool(n.Value))
	case *NilLit:
		w.s("nil")
	case *SpreadExpr:
		w.list("...", n.X)
	case *ListLit:
		w.s("[")
		for i, x := range n.Elems {
			if i > 0 {
				w.s(" ")
			}
			w.node(x)
		}
		w.s("]")
	case *DictLit:
		w.s("(dict")
		w.entries(n.Entries)
		w.s(")")
	case *StructLit:
		if n.NS != nil {
			w.s("(struct-lit ", n.NS.Name, ".", n.Name)
		} else {
			w.s("(struct-lit ", n.Name)
		}
		w.entries(n.Fields)
		w.s(")")
	case *ClosureLit:
		head := "closure"
		if n.Kind == ClosureFn {
			head = "fn-lit"
		}
		w.s("(", head, " ")
		w.params(n.Params)
		if n.Return != nil {
			w.s(" -> ")
			w.node(n.Return)
		}
		w.s(" ")
		w.node(n.Body)
		w.s(")")
	case *BinaryExpr:
		w.list(n.Op, n.X, n.Y)
	case *UnaryExpr:
		w.list(n.Op, n.X)
	case *TernaryExpr:
		w.list("?:", n.Cond, n.Then, n.Else)
	case *RangeExpr:
		head := "to"
		if n.Exclusive {
			head = "to-excl"
		}
		w.list(head, n.Start, n.End)
	case *PipeExpr:
		w.list("|>", n.X, n.F)
	case *MemberExpr:
		head := "."
		if n.Optional {
			head = "?."
		}
		w.list(head, n.X, n.Name)
	case *NonNilExpr:
		w.list("!!", n.X)
	case *IndexExpr:
		head := "idx"
		if n.Optional {
			head = "?idx"
		}
		w.list(head, n.X, n.Index)
	case *SliceExpr:
		head := "slice"
		if n.Optional {
			head = "?slice"
		}
		w.list(head, n.X, w.opt(n.Lo), w.opt(n.Hi))
	case *CallExpr:
		w.s("(call ", n.Fn.Name)
		if n.TypeArgs != nil {
			w.s("<")
			for i, t := range n.TypeArgs {
				if i > 0 {
					w.s(" ")
				}
				w.node(t)
			}
			w.s(">")
		}
		for _, a := range n.Args {
			w.s(" ")
			w.node(a)
		}
		w.s(")")
	case *MethodCall:
		head := "mcall"
		if n.Optional {
			head = "?mcall"
		}
		w.list(head, append([]any{n.X, n.Name}, w.exprs(n.Args)...)...)
	case *ValueCall:
		w.list("vcall", append([]any{n.Fn}, w.exprs(n.Args)...)...)
	case *PropagateExpr:
		w.list("prop", n.X)
	case *IfExpr:
		if n.Else == nil {
			w.list("if", n.Cond, n.Then)
		} else {
			w.list("if", n.Cond, n.Then, n.Else)
		}
	case *MatchExpr:
		w.s("(match ")
		w.node(n.X)
		for _, a := range n.Arms {
			w.s(" (")
			for i, p := range a.Patterns {
				if i > 0 {
					w.s(" | ")
				}
				w.node(p)
			}
			if a.Guard != nil {
				w.s(" if ")
				w.node(a.Guard)
			}
			w.s(" -> ")
			w.node(a.Body)
			w.s(")")
		}
		w.s(")")
	case *TryExpr:
		w.s("(try ")
		w.node(n.Body)
		if n.HasCatch {
			w.s(" catch")
			if n.CatchVar != "" {
				w.s(" ", n.CatchVar)
			}
			if n.CatchType != nil {
				w.s(":")
				w.node(n.CatchType)
			}
			w.s(" ")
			w.node(n.Catch)
		}
		if n.Finally != nil {
			w.s(" finally ")
			w.node(n.Finally)
		}
		w.s(")")
	case *RetryExpr:
		w.list("retry", n.Count, n.Body)
	case *ParallelExpr:
		head := [...]string{"parallel", "parallel-each", "parallel-settle"}[n.Mode]
		w.s("(", head, " ")
		w.node(n.Arg)
		if n.MaxConcurrent != nil {
			w.s(" max=")
			w.node(n.MaxConcurrent)
		}
		if n.Param != "" {
			w.s(" ", n.Param, " ->")
		}
		w.s(" ")
		w.node(n.Body)
		if n.Stream {
			w.s(" stream")
		}
		w.s(")")
	case *DeadlineExpr:
		w.list("deadline", n.Duration, n.Body)
	case *SpawnExpr:
		w.list("spawn", n.Body)
	case *SelectExpr:
		w.s("(select")
		for _, c := range n.Cases {
			w.s(" (", c.Name, " from ")
			w.node(c.Channel)
			w.s(" ")
			w.node(c.Body)
			w.s(")")
		}
		if n.Timeout != nil {
			w.s(" ")
			w.list("timeout", n.Timeout, n.TimeoutBody)
		}
		if n.Default != nil {
			w.s(" ")
			w.list("default", n.Default)
		}
		w.s(")")

	case *NamedType:
		w.s(n.Name)
		if n.Args != nil {
			w.s("<")
			for i, a := range n.Args {
				if i > 0 {
					w.s(" ")
				}
				w.node(a)
			}
			w.s(">")
		}
	case *ListType:
		w.s("[")
		w.node(n.Elem)
		w.s("]")
	case *ShapeType:
		w.s("{")
		for i, f := range n.Fields {
			if i > 0 {
				w.s(" ")
			}
			w.s(f.Name)
			if f.Optional {
				w.s("?")
			}
			w.s(":")
			w.node(f.Type)
		}
		w.s("}")
	case *FnType:
		w.s("(fn-type")
		for _, p := range n.Params {
			w.s(" ")
			w.node(p)
		}
		w.s(" -> ")
		w.node(n.Return)
		w.s(")")
	case *UnionType:
		w.s("(|")
		for _, t := range n.Types {
			w.s(" ")
			w.node(t)
		}
		w.s(")")
	case *InterType:
		w.s("(&")
		for _, t := range n.Types {
			w.s(" ")
			w.node(t)
		}
		w.s(")")
	case *OptionalType:
		w.node(n.Elem)
		w.s("?")
	case *LiteralType:
		if s, ok := n.Value.(string); ok {
			w.s(strconv.Quote(s))
		} else {
			w.s(fmt.Sprint(n.Value))
		}
	case *NilType:
		w.s("nil")
	default:
		w.s(fmt.Sprintf("<%T>", n))
	}
}

func (w sxWriter) entries(es []*DictEntry) {
	for _, e := range es {
		w.s(" ")
		switch {
		case e.Spread != nil:
			w.list("...", e.Spread)
		case e.KeyExpr != nil:
			w.s("([")
			w.node(e.KeyExpr)
			w.s("] ")
			w.node(e.Value)
			w.s(")")
		case e.KeyIsString:
			w.list(strconv.Quote(e.KeyName), e.Value)
		default:
			w.list(e.KeyName, e.Value)
		}
	}
}

func (w sxWriter) params(ps []*Param) {
	w.s("(")
	for i, p := range ps {
		if i > 0 {
			w.s(" ")
		}
		if p.Rest {
			w.s("...")
		}
		w.s(p.Name)
		if p.Type != nil {
			w.s(":")
			w.node(p.Type)
		}
		if p.Default != nil {
			w.s("=")
			w.node(p.Default)
		}
	}
	w.s(")")
}

func (w sxWriter) typeParams(tps []*TypeParam) {
	if tps == nil {
		return
	}
	w.s("<")
	for i, tp := range tps {
		if i > 0 {
			w.s(" ")
		}
		if tp.Variance != "" {
			w.s(tp.Variance, " ")
		}
		w.s(tp.Name)
	}
	w.s(">")
}

func (w sxWriter) attrs(as []*Attribute) {
	for _, a := range as {
		w.s(" @", a.Name)
		if a.Args != nil {
			w.s("(")
			for i, arg := range a.Args {
				if i > 0 {
					w.s(" ")
				}
				if arg.Name != "" {
					w.s(arg.Name, ":")
				}
				w.node(arg.Value)
			}
			w.s(")")
		}
	}
}

package syntax

// NestedStmts returns the statement lists written directly inside s, in
// source order: every block of s that no other block of s encloses. These
// are the bodies of fn and pipeline declarations and of impl methods, of
// loops, guard's else, defer, mutex, scope and cost-route blocks, of the
// block forms (if/else chains, try, catch and finally, match arms, retry,
// deadline, select cases), and of closures, `spawn` and `parallel`
// bodies, wherever in s's expressions they are written (a closure passed
// as a call argument included). Passes that collect the declarations
// written anywhere in a file (structs, enums, type aliases) walk a file
// with it, so a `struct` declared inside an `if` block or a closure is
// found like one at the top level.
func NestedStmts(s Stmt) [][]Stmt {
	var out stmtLists
	switch n := s.(type) {
	case *FnDecl:
		out.params(n.Params)
		out.add(n.Body)
	case *PipelineDecl:
		out.params(n.Params)
		out.add(n.Body)
	case *ImplBlock:
		for _, m := range n.Methods {
			out.params(m.Params)
			out.add(m.Body)
		}
	case *ForStmt:
		out.inExpr(n.Iter)
		out.add(n.Body)
	case *WhileStmt:
		out.inExpr(n.Cond)
		out.add(n.Body)
	case *ExprStmt:
		out.inExpr(n.X)
	case *LetStmt:
		if _, plain := n.Pattern.(*IdentPattern); !plain {
			out.walk(n.Pattern) // defaults of destructured names
		}
		out.inExpr(n.Value)
	case *AssignStmt:
		out.inExpr(n.Target)
		out.inExpr(n.Value)
	case *ReturnStmt:
		out.inExpr(n.Value)
	case *ThrowStmt:
		out.inExpr(n.Value)
	case *GuardStmt:
		out.inExpr(n.Cond)
		out.add(n.Else)
	case *BreakStmt, *ContinueStmt, *ImportDecl:
	default:
		out.walk(s)
	}
	return out
}

// stmtLists collects the statement lists of NestedStmts. The common
// statement and expression kinds are taken apart by hand (the checker,
// resolver and type environment each walk a whole file with it); the rest
// are walked by reflection, so kinds added later are not missed.
type stmtLists [][]Stmt

func (l *stmtLists) add(b *Block) {
	if b != nil {
		*l = append(*l, b.Stmts)
	}
}

func (l *stmtLists) params(ps []*Param) {
	for _, p := range ps {
		if p.Default != nil {
			l.inExpr(p.Default)
		}
	}
}

// walk adds every block under n that no other block under n encloses.
func (l *stmtLists) walk(n Node) {
	Walk(n, func(n, _ Node, _ func(Node)) bool {
		b, ok := n.(*Block)
		if !ok {
			return true
		}
		l.add(b)
		return false // its own nested blocks are the caller's next step
	})
}

// inExpr adds the blocks written in the expression e.
func (l *stmtLists) inExpr(e Expr) {
	switch n := e.(type) {
	case nil, *Ident, *IntLit, *FloatLit, *DurationLit, *StringLit, *BoolLit, *NilLit:
	case *ClosureLit:
		l.params(n.Params)
		l.add(n.Body)
	case *BinaryExpr:
		l.inExpr(n.X)
		l.inExpr(n.Y)
	case *UnaryExpr:
		l.inExpr(n.X)
	case *MemberExpr:
		l.inExpr(n.X)
	case *IndexExpr:
		l.inExpr(n.X)
		l.inExpr(n.Index)
	case *TernaryExpr:
		l.inExpr(n.Cond)
		l.inExpr(n.Then)
		l.inExpr(n.Else)
	case *PipeExpr:
		l.inExpr(n.X)
		l.inExpr(n.F)
	case *CallExpr:
		l.exprs(n.Args)
	case *MethodCall:
		l.inExpr(n.X)
		l.exprs(n.Args)
	case *ValueCall:
		l.inExpr(n.Fn)
		l.exprs(n.Args)
	case *ListLit:
		l.exprs(n.Elems)
	case *DictLit:
		l.entries(n.Entries)
	case *StructLit:
		l.entries(n.Fields)
	case *InterpString:
		for _, p := range n.Parts {
			l.inExpr(p.Expr)
		}
	case *SpreadExpr:
		l.inExpr(n.X)
	case *NonNilExpr:
		l.inExpr(n.X)
	case *PropagateExpr:
		l.inExpr(n.X)
	case *RangeExpr:
		l.inExpr(n.Start)
		l.inExpr(n.End)
	case *SliceExpr:
		l.inExpr(n.X)
		l.inExpr(n.Lo)
		l.inExpr(n.Hi)
	case *IfExpr:
		l.inExpr(n.Cond)
		l.add(n.Then)
		switch els := n.Else.(type) {
		case *Block:
			l.add(els)
		case Expr:
			l.inExpr(els)
		}
	case *MatchExpr:
		l.inExpr(n.X)
		for _, a := range n.Arms {
			l.exprs(a.Patterns)
			l.inExpr(a.Guard)
			l.add(a.Body)
		}
	case *TryExpr:
		l.add(n.Body)
		l.add(n.Catch)
		l.add(n.Finally)
	case *SpawnExpr:
		l.add(n.Body)
	default:
		l.walk(e)
	}
}

func (l *stmtLists) entries(es []*DictEntry) {
	for _, en := range es {
		l.inExpr(en.KeyExpr)
		l.inExpr(en.Spread)
		l.inExpr(en.Value)
	}
}

func (l *stmtLists) exprs(es []Expr) {
	for _, e := range es {
		l.inExpr(e)
	}
}

// TypeAliases maps the name of each type alias a file declares to its
// declaration: the top-level one of that name, else the first declared
// inside a function, pipeline or block body (in source order), which
// serves where no top-level alias has its name.
func TypeAliases(items []Stmt) map[string]*TypeDecl {
	aliases := map[string]*TypeDecl{}
	var inner []*TypeDecl
	var walk func([]Stmt, bool)
	walk = func(stmts []Stmt, top bool) {
		for _, s := range stmts {
			if t, ok := s.(*TypeDecl); ok {
				if top {
					aliases[t.Name] = t
				} else {
					inner = append(inner, t)
				}
				continue
			}
			for _, list := range NestedStmts(s) {
				walk(list, false)
			}
		}
	}
	walk(items, true)
	for _, t := range inner {
		if _, dup := aliases[t.Name]; !dup {
			aliases[t.Name] = t
		}
	}
	return aliases
}

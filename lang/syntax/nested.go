package syntax

// NestedStmts returns the statement lists written directly inside s, in
// source order: the bodies of fn and pipeline declarations and of impl
// methods, of loops, guard's else, defer, mutex, scope and cost-route
// blocks, and of the
// block forms (if/else chains, try, catch and finally, match arms,
// retry, deadline, select cases) that an expression statement, a
// binding's or assignment's value or a return value is, and the bodies
// of a closure, `spawn` or `parallel` that is such a value. Closure
// bodies inside other expressions are not included. Passes that collect
// the declarations written anywhere in a file (structs, enums, type
// aliases) walk a file with it, so a `struct` declared inside an `if`
// block is found like one at the top level.
func NestedStmts(s Stmt) [][]Stmt {
	var out stmtLists
	add := out.add
	switch n := s.(type) {
	case *FnDecl:
		add(n.Body)
	case *PipelineDecl:
		add(n.Body)
	case *ImplBlock:
		for _, m := range n.Methods {
			add(m.Body)
		}
	case *ForStmt:
		add(n.Body)
	case *WhileStmt:
		add(n.Body)
	case *DeferStmt:
		add(n.Body)
	case *GuardStmt:
		add(n.Else)
	case *MutexStmt:
		add(n.Body)
	case *ScopeStmt:
		add(n.Body)
	case *CostRouteStmt:
		add(n.Body)
	case *ExprStmt:
		out.inExpr(n.X)
	case *LetStmt:
		out.inExpr(n.Value)
	case *AssignStmt:
		out.inExpr(n.Value)
	case *ReturnStmt:
		out.inExpr(n.Value)
	}
	return out
}

// stmtLists collects the statement lists of NestedStmts.
type stmtLists [][]Stmt

func (l *stmtLists) add(b *Block) {
	if b != nil {
		*l = append(*l, b.Stmts)
	}
}

// inExpr adds the blocks of a block-form expression e.
func (l *stmtLists) inExpr(e Node) {
	add := l.add
	switch n := e.(type) {
	case *IfExpr:
		add(n.Then)
		switch els := n.Else.(type) {
		case *Block:
			add(els)
		case *IfExpr:
			l.inExpr(els)
		}
	case *TryExpr:
		add(n.Body)
		add(n.Catch)
		add(n.Finally)
	case *MatchExpr:
		for _, a := range n.Arms {
			add(a.Body)
		}
	case *RetryExpr:
		add(n.Body)
	case *DeadlineExpr:
		add(n.Body)
	case *MutexExpr:
		add(n.Body)
	case *SelectExpr:
		for _, c := range n.Cases {
			add(c.Body)
		}
		add(n.TimeoutBody)
		add(n.Default)
	case *ClosureLit:
		add(n.Body)
	case *SpawnExpr:
		add(n.Body)
	case *ParallelExpr:
		add(n.Body)
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

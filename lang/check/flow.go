package check

import (
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// This file decides whether control can run off the end of a function
// body (docs/spec/newer.md §3.3): a function with a declared result type that does
// not accept nil must end every path with `return` or `throw`.

// fallThrough reports `function can fall through without returning T` at
// the declaration of a function whose body can reach its end. Generators,
// streams and result types that accept nil are exempt. A `-> never`
// function is held to it too: reaching its end returns nil.
func (c *checker) fallThrough(node syntax.Node, pos syntax.Pos, ret types.Type, body []syntax.Stmt) {
	if !declaredResult(ret) && !c.rigidParam(ret) || c.acceptsNil(ret) {
		return
	}
	if fn := c.info.Funcs[node]; fn != nil && fn.HasYield {
		return
	}
	if d, ok := node.(*syntax.FnDecl); ok && d.Gen {
		return
	}
	if c.exits(body) {
		return
	}
	c.report(sevError, pos, "", "", "function can fall through without returning "+ret.String())
}

// exits reports whether running the statements never reaches their end.
func (c *checker) exits(list []syntax.Stmt) bool {
	for _, s := range list {
		if c.stmtExits(s) {
			return true
		}
	}
	return false
}

func (c *checker) blockExits(b *syntax.Block) bool { return b != nil && c.exits(b.Stmts) }

func (c *checker) stmtExits(s syntax.Stmt) bool {
	switch s := s.(type) {
	case *syntax.ReturnStmt, *syntax.ThrowStmt:
		return true
	case *syntax.ExprStmt:
		return c.exprExits(s.X)
	case *syntax.LetStmt:
		// `let r = match x { … }` whose every arm returns: the binding is
		// never made (a statement of type never, docs/spec/newer.md §3.3)
		return s.Value != nil && c.exprExits(s.Value)
	case *syntax.MutexStmt:
		return c.blockExits(s.Body)
	case *syntax.ScopeStmt:
		return c.blockExits(s.Body)
	case *syntax.CostRouteStmt:
		return c.blockExits(s.Body)
	case *syntax.WhileStmt:
		return isTrue(s.Cond) && !c.broken[s]
	}
	return false
}

func (c *checker) exprExits(x syntax.Expr) bool {
	switch e := x.(type) {
	case *syntax.IfExpr:
		if !c.blockExits(e.Then) {
			return false
		}
		switch el := e.Else.(type) {
		case *syntax.Block:
			return c.blockExits(el)
		case *syntax.IfExpr:
			return c.exprExits(el)
		}
		return false
	case *syntax.MatchExpr:
		if !c.complete[e] || len(e.Arms) == 0 {
			return false
		}
		for _, arm := range e.Arms {
			if !c.blockExits(arm.Body) {
				return false
			}
		}
		return true
	case *syntax.TryExpr:
		if c.blockExits(e.Finally) {
			return true
		}
		// without a catch, a body that fails passes the error on (a bare
		// `try`, with neither catch nor finally, is a Result instead)
		if !e.HasCatch {
			return e.Finally != nil && c.blockExits(e.Body)
		}
		return c.blockExits(e.Body) && c.blockExits(e.Catch)
	case *syntax.RetryExpr:
		return c.blockExits(e.Body)
	case *syntax.DeadlineExpr:
		return c.blockExits(e.Body)
	case *syntax.MutexExpr:
		return c.blockExits(e.Body)
	case *syntax.SelectExpr:
		// a select runs exactly one of its cases (a closed channel's case
		// too, with nil), so it exits when each case, the timeout and the
		// default do
		if len(e.Cases) == 0 && e.TimeoutBody == nil && e.Default == nil {
			return false
		}
		for _, cs := range e.Cases {
			if !c.blockExits(cs.Body) {
				return false
			}
		}
		return (e.TimeoutBody == nil || c.blockExits(e.TimeoutBody)) && (e.Default == nil || c.blockExits(e.Default))
	case *syntax.CallExpr:
		// a builtin typed never, or a call of a function declared to return
		// never: the file's own or an imported one
		ref := c.info.Refs[e.Fn]
		if ref != nil && ref.Scope == resolve.Universal {
			switch e.Fn.Name {
			case "unreachable", "exit", "throw_error": // docs/spec/builtins.md types them never
				return true
			}
		}
		if ref == nil || ref.Binding == nil {
			return false
		}
		if fn, ok := ref.Binding.Decl.(*syntax.FnDecl); ok && ref.Binding.Kind == resolve.KFn {
			return c.sig(fn).Return == types.Never
		}
		if c.importRef(ref, false) {
			f := c.imported("", e.Fn.Name)
			return f != nil && f.sig.Return == types.Never
		}
	case *syntax.MethodCall:
		// `ns.fail()` of a namespace import, `self.fail()` of an impl
		// method, declared to return never
		if e.Optional {
			return false
		}
		if id, ok := e.X.(*syntax.Ident); ok && c.importRef(c.info.Refs[id], true) && !c.multiDecl[id.Name] {
			f := c.imported(id.Name, e.Name)
			return f != nil && f.sig.Return == types.Never
		}
		if n, ok := types.Underlying(c.quietType(e.X)).(*types.Named); ok && n.Decl.Kind == types.StructDecl {
			m, ok := n.Decl.Method(e.Name)
			return ok && m.Type.Return == types.Never && c.implVisible(e, n.Decl.Name)
		}
	}
	return false
}

// acceptsNil reports whether a function declared to return t may end
// without a value: t admits nil (`int?`, `any`, `nil`). A bare type
// parameter of the function does not, since the caller chooses it, as a
// `return nil` there is `return value: expected T, found nil`
// (docs/spec/newer.md §3.3).
func (c *checker) acceptsNil(t types.Type) bool {
	return !c.rigidParam(t) && types.AssignableTo(types.Nil, t)
}

// declaredResult reports a result type the checker holds a body to: a
// known type, or never (which known leaves out, since a never value fits
// anywhere, but which no returned value fits).
func declaredResult(t types.Type) bool {
	return t != nil && (known(t) || t == types.Never)
}

func isTrue(x syntax.Expr) bool {
	b, ok := x.(*syntax.BoolLit)
	return ok && b.Value
}

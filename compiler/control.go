package compiler

import (
	"strings"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// match compiles `match x { arms }` (docs/spec/language.md §7.4). The scrutinee is
// kept in a temporary slot; each arm tests its patterns, binds, checks its
// guard and yields its block value.
func (f *fcomp) match(e *syntax.MatchExpr) {
	f.expr(e.X)
	tmp := f.temp()
	f.emit(STORE_LOCAL, tmp)
	var ends []int
	for _, arm := range e.Arms {
		f.line(arm.At)
		var fails []int
		if len(arm.Patterns) == 1 {
			fails = f.testPattern(arm.Patterns[0], tmp)
			f.bindMatch(arm.Patterns[0], tmp)
		} else {
			var hits []int
			for _, p := range arm.Patterns {
				if id, ok := p.(*syntax.Ident); ok && id.Name == "_" {
					hits = append(hits, f.emit(JUMP, 0))
					continue
				}
				f.emit(LOAD_LOCAL, tmp)
				if _, isName := p.(*syntax.MemberExpr); isName && resolve.ClassifyPattern(p, f.enumPattern) == resolve.PatVariant {
					// `Shape.Circle | Shape.Dot`: an alternative matches as
					// the pattern alone would, whatever the payload
					// (docs/spec/newer.md §1.12), which is also how the
					// checker counts it toward coverage
					enum, variant, _ := resolve.VariantOf(p)
					f.emit(IS_VARIANT, f.name(enum), f.name(variant))
					hits = append(hits, f.emit(JUMP_IF_TRUE, 0))
					continue
				}
				f.expr(p)
				f.emit(EQ)
				hits = append(hits, f.emit(JUMP_IF_TRUE, 0))
			}
			fails = append(fails, f.emit(JUMP, 0))
			for _, h := range hits {
				f.patchHere(h)
			}
		}
		if arm.Guard != nil {
			f.expr(arm.Guard)
			fails = append(fails, f.emit(JUMP_IF_FALSE, 0))
		}
		f.blockValueOf(arm.Body)
		ends = append(ends, f.emit(JUMP, 0))
		f.depth--
		for _, j := range fails {
			f.patchHere(j)
		}
	}
	f.line(e.At)
	f.emit(MATCH_FAIL)
	f.depth++
	for _, j := range ends {
		f.patchHere(j)
	}
}

// testPattern emits tests that jump away (to the returned jumps) when the
// value in slot tmp does not match p.
func (f *fcomp) testPattern(p syntax.Expr, tmp int) []int {
	var fails []int
	switch resolve.ClassifyPattern(p, f.enumPattern) {
	case resolve.PatWildcard, resolve.PatBind:
	case resolve.PatVariant:
		enum, variant, _ := resolve.VariantOf(p)
		f.emit(LOAD_LOCAL, tmp)
		f.emit(IS_VARIANT, f.name(enum), f.name(variant))
		fails = append(fails, f.emit(JUMP_IF_FALSE, 0))
	case resolve.PatList:
		elems := p.(*syntax.ListLit).Elems
		n, atLeast := len(elems), 0
		if n > 0 {
			if _, ok := elems[n-1].(*syntax.SpreadExpr); ok {
				n--
				atLeast = 1
			}
		}
		f.emit(LOAD_LOCAL, tmp)
		f.emit(LIST_LEN_IS, n, atLeast)
		fails = append(fails, f.emit(JUMP_IF_FALSE, 0))
		for i, el := range elems[:n] {
			if _, ok := el.(*syntax.Ident); ok {
				continue
			}
			f.emit(LOAD_LOCAL, tmp)
			f.emit(LIST_AT, i)
			f.expr(el)
			f.emit(EQ)
			fails = append(fails, f.emit(JUMP_IF_FALSE, 0))
		}
	case resolve.PatDict:
		f.emit(LOAD_LOCAL, tmp)
		f.emit(IS_DICT)
		fails = append(fails, f.emit(JUMP_IF_FALSE, 0))
		for _, en := range p.(*syntax.DictLit).Entries {
			if _, ok := en.Value.(*syntax.Ident); ok || en.Spread != nil {
				continue
			}
			f.emit(LOAD_LOCAL, tmp)
			f.emit(DICT_KEY, f.name(en.KeyName))
			f.expr(en.Value)
			f.emit(EQ)
			fails = append(fails, f.emit(JUMP_IF_FALSE, 0))
		}
	default:
		f.emit(LOAD_LOCAL, tmp)
		f.expr(p)
		f.emit(EQ)
		fails = append(fails, f.emit(JUMP_IF_FALSE, 0))
	}
	return fails
}

// enumPattern mirrors the resolver's view: an identifier names an enum in
// a pattern when no variable of that name was resolved there.
func (f *fcomp) enumPattern(name string) bool { return f.c.info.IsEnum(name) }

// bindMatch binds the pattern's names from the value in slot tmp.
func (f *fcomp) bindMatch(p syntax.Expr, tmp int) {
	info := f.c.info
	store := func(id *syntax.Ident) {
		if id.Name == "_" {
			f.emit(POP)
			return
		}
		f.storeDecl(info.Decl(id, id.Name), 2)
	}
	switch resolve.ClassifyPattern(p, f.enumPattern) {
	case resolve.PatBind:
		f.emit(LOAD_LOCAL, tmp)
		store(p.(*syntax.Ident))
	case resolve.PatVariant:
		_, _, args := resolve.VariantOf(p)
		for i, a := range args {
			if id, ok := a.(*syntax.Ident); ok && id.Name != "_" {
				f.emit(LOAD_LOCAL, tmp)
				f.emit(VARIANT_FIELD, i)
				store(id)
			}
		}
	case resolve.PatList:
		for i, el := range p.(*syntax.ListLit).Elems {
			switch el := el.(type) {
			case *syntax.Ident:
				if el.Name != "_" {
					f.emit(LOAD_LOCAL, tmp)
					f.emit(LIST_AT, i)
					store(el)
				}
			case *syntax.SpreadExpr:
				if id, ok := el.X.(*syntax.Ident); ok && id.Name != "_" {
					f.emit(LOAD_LOCAL, tmp)
					f.emit(LIST_FROM, i)
					store(id)
				}
			}
		}
	case resolve.PatDict:
		entries := p.(*syntax.DictLit).Entries
		for _, en := range entries {
			if rest, ok := en.Spread.(*syntax.Ident); ok {
				if rest.Name == "_" {
					continue
				}
				// the entries the pattern does not name (docs/language.md §5)
				var named []string
				for _, other := range entries {
					if other.Spread == nil {
						named = append(named, other.KeyName)
					}
				}
				f.emit(LOAD_LOCAL, tmp)
				f.emit(DICT_REST, f.constant(named))
				store(rest)
				continue
			}
			if id, ok := en.Value.(*syntax.Ident); ok && id.Name != "_" {
				f.emit(LOAD_LOCAL, tmp)
				f.emit(DICT_KEY, f.name(en.KeyName))
				store(id)
			}
		}
	}
}

// try compiles the try forms (docs/spec/language.md §8.1-8.6).
func (f *fcomp) try(e *syntax.TryExpr) {
	f.line(e.At)
	if !e.HasCatch && e.Finally == nil {
		// bare try: Result
		h := f.emit(SETUP_TRY, 0)
		f.regions = append(f.regions, region{active: true})
		f.blockValueOf(e.Body)
		f.regions = f.regions[:len(f.regions)-1]
		f.emit(POP_TRY)
		f.emit(WRAP_OK)
		jEnd := f.emit(JUMP, 0)
		f.patchHere(h) // failure replaces the value slot
		f.emit(CATCHABLE, 0)
		jRe := f.pc() - 2
		f.emit(ERR_RESULT)
		jEnd2 := f.emit(JUMP, 0)
		f.patch(jRe, 0, f.pc())
		f.emit(RERAISE)
		f.depth++
		f.patchHere(jEnd)
		f.patchHere(jEnd2)
		return
	}

	thrown := -1
	if e.HasCatch && catchTypeName(e.CatchType) != "" {
		thrown = f.temp()
		f.emit(FALSE)
		f.emit(STORE_LOCAL, thrown)
		f.thrownHere = append(f.thrownHere, thrown)
	}
	h := f.emit(SETUP_TRY, 0)
	f.regions = append(f.regions, region{finally: e.Finally, active: true})
	if e.HasCatch {
		f.catching++
	}
	f.blockValueOf(e.Body)
	if e.HasCatch {
		f.catching--
	}
	if thrown >= 0 {
		f.thrownHere = f.thrownHere[:len(f.thrownHere)-1]
	}
	f.regions = f.regions[:len(f.regions)-1]
	f.emit(POP_TRY)
	f.blockStmts(e.Finally)
	jEnd := f.emit(JUMP, 0)

	// failure path: the error replaces the value slot
	f.patchHere(h)
	jNever := f.emit(CATCHABLE, 0)
	var jNoMatch int = -1
	if e.HasCatch {
		if name := catchTypeName(e.CatchType); name != "" {
			jNoMatch = f.emit(CATCH_IS, f.name(name), 0)
		}
		f.blockStmts(e.Finally)
		f.emit(CAUGHT)
		if e.CatchVar != "" && e.CatchVar != "_" {
			f.storeDecl(f.c.info.Decl(e, e.CatchVar), 2)
		} else {
			f.emit(POP)
		}
		f.blockValueOf(e.Catch)
		jEnd2 := f.emit(JUMP, 0)
		if jNoMatch >= 0 {
			// a typed catch that does not match: the failure leaves the
			// try as if the catch were absent, so when it came from a
			// throw statement (or try* re-raise) of this function and no
			// enclosing catch of the function handles it, the defers run
			// as at an unhandled throw (docs/spec/language.md §8.6)
			f.patchHere(jNoMatch)
			f.blockStmts(e.Finally)
			if f.catching == 0 && len(f.defers) > 0 {
				f.emit(LOAD_LOCAL, thrown)
				skip := f.emit(JUMP_IF_FALSE, 0)
				f.emitDefers()
				f.patchHere(skip)
			}
			f.emit(RERAISE)
			f.depth++
		}
		// cancellation (a stopped task, a passed deadline) skips the catch
		// body but still runs finally
		f.patch(jNever, 0, f.pc())
		f.blockStmts(e.Finally)
		f.emit(RERAISE)
		f.depth++
		f.patchHere(jEnd)
		f.patchHere(jEnd2)
		return
	}
	// try … finally without catch: run finally, re-raise unchanged
	f.patch(jNever, 0, f.pc())
	f.blockStmts(e.Finally)
	f.emit(RERAISE)
	f.depth++
	f.patchHere(jEnd)
}

// catchTypeName returns the enum name of a typed catch, or "" when the
// annotation is not a plain name (then the catch is untyped, §8.3). A
// name qualified by a namespace import (`ns.E`, docs/spec/newer.md §1.3)
// names the module's enum `E`, whose variants carry the bare name.
func catchTypeName(t syntax.TypeExpr) string {
	if n, ok := t.(*syntax.NamedType); ok && len(n.Args) == 0 {
		if i := strings.LastIndexByte(n.Name, '.'); i >= 0 {
			return n.Name[i+1:]
		}
		return n.Name
	}
	return ""
}

// retry compiles `retry N { body }` (docs/spec/language.md §7.5); its value is the
// body's value.
func (f *fcomp) retry(e *syntax.RetryExpr) {
	f.expr(e.Count)
	f.line(e.Count.Position())
	f.emit(RETRY_COUNT)
	limit := f.temp()
	f.emit(STORE_LOCAL, limit)
	count := f.temp()
	f.emit(INT, 0)
	f.emit(STORE_LOCAL, count)
	top := f.pc()
	f.emit(LOAD_LOCAL, count)
	f.emit(INT, 1)
	f.emit(ADD)
	f.emit(STORE_LOCAL, count)
	h := f.emit(SETUP_TRY, 0)
	f.regions = append(f.regions, region{active: true})
	f.blockValueOf(e.Body) // the successful attempt's value (docs/spec/newer.md §1.10)
	f.regions = f.regions[:len(f.regions)-1]
	f.emit(POP_TRY)
	jEnd := f.emit(JUMP, 0)
	f.depth--
	f.patchHere(h)
	f.depth++ // the failure
	jNever := f.emit(CATCHABLE, 0)
	f.emit(LOAD_LOCAL, count)
	f.emit(LOAD_LOCAL, limit)
	f.emit(LT)
	jLast := f.emit(JUMP_IF_FALSE, 0)
	f.emit(POP)
	f.emit(JUMP, top)
	f.depth++
	f.patchHere(jLast)
	f.line(e.At)
	f.emit(RETRY_RERAISE)
	f.depth++
	f.patch(jNever, 0, f.pc())
	f.emit(RERAISE)
	f.patchHere(jEnd)
	f.depth++
}

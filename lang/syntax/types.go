package syntax

import "strconv"

// This file parses the smaller hand-written pieces shared by productions
// and expressions: type expressions (§2.4), parameter lists, destructuring
// patterns and attribute arguments.

// typeExpr parses `Inter { "|" Inter }`.
func (c cursor) typeExpr() TypeExpr {
	c.enter()
	defer c.leave()
	first := c.interType()
	if !isPunct(c.peek(), "|") {
		return first
	}
	u := &UnionType{At: first.Position(), Types: []TypeExpr{first}}
	for c.accept("|") {
		u.Types = append(u.Types, c.interType())
	}
	return u
}

func (c cursor) interType() TypeExpr {
	first := c.typeAtom()
	if !isPunct(c.peek(), "&") {
		return first
	}
	in := &InterType{At: first.Position(), Types: []TypeExpr{first}}
	for c.accept("&") {
		in.Types = append(in.Types, c.typeAtom())
	}
	return in
}

func (c cursor) typeAtom() TypeExpr {
	t := c.peek()
	var x TypeExpr
	switch {
	case isPunct(t, "{"):
		x = c.shapeType()
	case isPunct(t, "["):
		c.next()
		x = &ListType{At: at(t.Pos), Elem: c.typeExpr()}
		c.expect("]")
	case isPunct(t, "("):
		c.next()
		x = c.typeExpr()
		c.expect(")")
	case isKw(t, "fn"):
		c.next()
		c.expect("(")
		fn := &FnType{At: at(t.Pos)}
		for !c.accept(")") {
			fn.Params = append(fn.Params, c.typeExpr())
			if !c.accept(",") {
				c.expect(")")
				break
			}
		}
		c.expect("->")
		fn.Return = c.typeExpr()
		x = fn
	case isKw(t, "nil"):
		c.next()
		x = &NilType{At: at(t.Pos)}
	case isKw(t, "true"), isKw(t, "false"):
		c.next()
		x = &NamedType{At: at(t.Pos), Name: "bool"}
	case t.Type == tString:
		c.next()
		x = &LiteralType{At: at(t.Pos), Value: stringValue(t)}
	case t.Type == tInt:
		x = &LiteralType{At: at(t.Pos), Value: c.intType(1)}
	case isPunct(t, "-") && c.peekAt(1).Type == tInt:
		c.next()
		x = &LiteralType{At: at(t.Pos), Value: c.intType(-1)}
	case t.Type == tIdent:
		c.next()
		n := &NamedType{At: at(t.Pos), Name: t.Value}
		if isPunct(c.peek(), ".") && c.peekAt(1).Type == tIdent {
			// `Self.Item`, an associated type of the interface or impl
			// being declared, or `ns.Shape`, a type a namespace import
			// exports (docs/spec/newer.md §1.3)
			c.next()
			n.Name += "." + c.next().Value
		}
		if c.accept("<") {
			for {
				n.Args = append(n.Args, c.typeExpr())
				if !c.accept(",") {
					break
				}
			}
			c.expect(">")
		}
		x = n
	default:
		fail(t, "type")
	}
	for isPunct(c.peek(), "?") {
		c.next()
		x = &OptionalType{At: x.Position(), Elem: x}
	}
	return x
}

func (c cursor) intType(sign int64) int64 {
	t := c.peek()
	n, err := strconv.ParseInt(t.Value, 10, 64)
	if err != nil {
		fail(t, "type")
	}
	c.next()
	return sign * n
}

func (c cursor) shapeType() TypeExpr {
	open := c.next()
	s := &ShapeType{At: at(open.Pos)}
	for !c.accept("}") {
		if c.atSpread() {
			// `...rest` or `...dict<string, V>`: an open record's row
			// tail (docs/spec/newer.md §1.6), written anywhere among the
			// fields but only once: a second `...` is no field name
			if s.Rest != nil {
				err := expectedError(c.peek(), "field name", ".")
				err.Help = "an open record has one row tail (`{id: string, ...R}`)"
				panic(bailout{err})
			}
			c.skipSpread()
			s.Rest = c.typeExpr()
			c.accept(",")
			continue
		}
		t := c.peek()
		if t.Type == tEOF {
			fail(t, "}") // as for struct bodies and dict literals
		}
		if !isName(t) {
			failName(t, "field name")
		}
		c.next()
		f := &ShapeField{At: at(t.Pos), Name: t.Value, Optional: c.accept("?")}
		c.expect(":")
		f.Type = c.typeExpr()
		s.Fields = append(s.Fields, f)
		c.accept(",")
	}
	return s
}

// params parses a parameter list after its opening token, through closing
// (`)`, or `->` for a closure). Pipeline parameters take no rest.
func (c cursor) params(closing string, pipeline bool) []*Param {
	var out []*Param
	var sawDefault bool
	var rest *Param
	for !c.accept(closing) {
		t := c.peek()
		p := &Param{At: at(t.Pos)}
		if !pipeline && c.atSpread() {
			c.skipSpread()
			p.Rest = true
			t = c.peek()
		}
		if t.Type != tIdent {
			failName(t, "parameter name")
		}
		p.Name = c.next().Value
		if c.accept(":") {
			p.Type = c.typeExpr()
		}
		if c.accept("=") {
			p.Default = c.expr()
		}
		switch {
		case rest != nil:
			failAt(rest.At, "Rest parameter must be the last parameter")
		case p.Default != nil:
			sawDefault = true
		case sawDefault && !p.Rest:
			failAt(p.At, "Required parameter cannot follow a parameter with a default value")
		}
		if p.Rest {
			rest = p
		}
		out = append(out, p)
		if !c.accept(",") {
			c.expect(closing)
			break
		}
	}
	return out
}

// pattern parses a binding pattern; in a for loop `(a, b)` is also one.
func (c cursor) pattern(forLoop bool) Pattern {
	t := c.peek()
	switch {
	case t.Type == tIdent:
		c.next()
		return &IdentPattern{At: at(t.Pos), Name: t.Value}
	case isPunct(t, "{"):
		return c.dictPattern()
	case isPunct(t, "["):
		return c.listPattern()
	case forLoop && isPunct(t, "("):
		c.next()
		p := &PairPattern{At: at(t.Pos), First: c.bindName()}
		c.expect(",")
		p.Second = c.bindName()
		c.expect(")")
		return p
	}
	failName(t, "variable name or destructuring pattern")
	return nil
}

func (c cursor) bindName() string {
	t := c.peek()
	if t.Type != tIdent {
		failName(t, "variable name")
	}
	return c.next().Value
}

func (c cursor) dictPattern() Pattern {
	open := c.next()
	p := &DictPattern{At: at(open.Pos)}
	for !c.accept("}") {
		t := c.peek()
		it := &DictPatItem{At: at(t.Pos)}
		switch {
		case c.atSpread():
			c.skipSpread()
			it.Key, it.Rest = c.bindName(), true
			it.Alias = it.Key
		case isName(t) && t.Type != tIdent && isPunct(c.peekAt(1), ":"):
			it.Key = c.next().Value
		default:
			it.Key = c.bindName()
		}
		if !it.Rest {
			it.Alias = it.Key
			if c.accept(":") {
				it.Alias = c.bindName()
			}
			if c.accept("=") {
				it.Default = c.expr()
			}
		}
		p.Items = append(p.Items, it)
		if it.Rest { // the rest entry must be last (docs/spec/language.md §4.1)
			c.accept(",")
			c.expect("}")
			break
		}
		if !c.accept(",") {
			c.expect("}")
			break
		}
	}
	return p
}

func (c cursor) listPattern() Pattern {
	open := c.next()
	p := &ListPattern{At: at(open.Pos)}
	for !c.accept("]") {
		t := c.peek()
		it := &ListPatItem{At: at(t.Pos)}
		if c.atSpread() {
			c.skipSpread()
			it.Rest = true
		}
		it.Name = c.bindName()
		if !it.Rest && c.accept("=") {
			it.Default = c.expr()
		}
		p.Items = append(p.Items, it)
		if it.Rest { // the rest element must be last (docs/spec/language.md §4.2)
			c.accept(",")
			c.expect("]")
			break
		}
		if !c.accept(",") {
			c.expect("]")
			break
		}
	}
	return p
}

// attrValue parses an attribute argument value: a literal, a negative
// number, a dotted name optionally called, a list or a dict (§2.2).
func (c cursor) attrValue() Expr {
	c.enter()
	defer c.leave()
	t := c.peek()
	switch {
	case t.Type == tString || t.Type == tRaw || t.Type == tInt || t.Type == tFloat || t.Type == tDuration,
		isKw(t, "true"), isKw(t, "false"), isKw(t, "nil"):
		x, _ := c.primary()
		return x
	case isPunct(t, "-") && (c.peekAt(1).Type == tInt || c.peekAt(1).Type == tFloat):
		c.next()
		x, _ := c.primary()
		return &UnaryExpr{At: at(t.Pos), Op: "-", X: x}
	case isPunct(t, "["):
		c.next()
		l := &ListLit{At: at(t.Pos)}
		for !c.accept("]") {
			l.Elems = append(l.Elems, c.attrValue())
			if !c.accept(",") {
				c.expect("]")
				break
			}
		}
		return l
	case isPunct(t, "{"):
		c.next()
		d := &DictLit{At: at(t.Pos)}
		for !c.accept("}") {
			k := c.peek()
			e := &DictEntry{At: at(k.Pos)}
			switch {
			case isName(k):
				e.KeyName = c.next().Value
			case k.Type == tString || k.Type == tRaw:
				e.KeyName, e.KeyIsString = stringValue(c.next()), true
			default:
				fail(k, "dict key")
			}
			c.expect(":")
			e.Value = c.attrValue()
			d.Entries = append(d.Entries, e)
			if !c.accept(",") {
				c.expect("}")
				break
			}
		}
		return d
	case t.Type == tIdent:
		c.next()
		id := &Ident{At: at(t.Pos), Name: t.Value}
		var x Expr = id
		for isPunct(c.peek(), ".") {
			c.next()
			x = &MemberExpr{At: id.At, X: x, Name: c.memberName()}
		}
		if !isPunct(c.peek(), "(") || c.nl() {
			return x
		}
		c.next()
		var args []Expr
		for !c.accept(")") {
			args = append(args, c.attrValue())
			if !c.accept(",") {
				c.expect(")")
				break
			}
		}
		if m, ok := x.(*MemberExpr); ok {
			return &MethodCall{At: id.At, X: m.X, Name: m.Name, Args: args}
		}
		return &CallExpr{At: id.At, Fn: id, Args: args}
	}
	fail(t, "attribute value (literal or identifier)")
	return nil
}

// boundArgs parses the `<T, …>` type arguments of a generic interface
// named as a bound (`where C: Container<T>`, `<C: Container<T>>`), or
// returns nil when none follow.
func (c cursor) boundArgs() []TypeExpr {
	if !isPunct(c.peek(), "<") {
		return nil
	}
	c.next()
	var args []TypeExpr
	for {
		args = append(args, c.typeExpr())
		if !c.accept(",") {
			break
		}
	}
	c.expect(">")
	return args
}

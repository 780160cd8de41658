package compiler

import "github.com/harnlang/harn/lang/syntax"

// schemaOf builds the schema of a type as a dict literal, for a type alias
// used as a schema value (docs/spec/language.md §10.6, resolve.Info.SchemaTypes).
// It uses JSON-Schema spellings, which the validator maps to Harn's
// types (strictly: an int is not a "number"). Types with no run-time
// meaning (type parameters, enums, interfaces, generic aliases) accept
// anything. seen holds the aliases and structs being expanded, so a
// recursive type stops at its first repetition.
func (c *compiler) schemaOf(t syntax.TypeExpr, seen map[string]bool) syntax.Expr {
	switch t := t.(type) {
	case *syntax.NilType:
		return schemaDict("type", str("null"))
	case *syntax.OptionalType:
		return schemaDict("anyOf", list(c.schemaOf(t.Elem, seen), schemaDict("type", str("null"))))
	case *syntax.UnionType:
		var lits, all []syntax.Expr
		for _, m := range t.Types {
			if l, ok := m.(*syntax.LiteralType); ok {
				lits = append(lits, literal(l))
			}
			all = append(all, c.schemaOf(m, seen))
		}
		if len(lits) == len(t.Types) {
			return schemaDict("enum", list(lits...))
		}
		return schemaDict("anyOf", list(all...))
	case *syntax.InterType:
		var all []syntax.Expr
		for _, m := range t.Types {
			all = append(all, c.schemaOf(m, seen))
		}
		return schemaDict("allOf", list(all...))
	case *syntax.LiteralType:
		return schemaDict("const", literal(t))
	case *syntax.ListType:
		return schemaDict("type", str("array"), "items", c.schemaOf(t.Elem, seen))
	case *syntax.FnType:
		return schemaDict("type", str("closure"))
	case *syntax.ShapeType:
		var fields []field
		for _, f := range t.Fields {
			fields = append(fields, field{f.Name, f.Optional, f.Type})
		}
		return c.objectSchema(fields, seen)
	case *syntax.NamedType:
		return c.namedSchema(t, seen)
	}
	return schemaDict()
}

func (c *compiler) namedSchema(t *syntax.NamedType, seen map[string]bool) syntax.Expr {
	switch t.Name {
	case "int":
		return schemaDict("type", str("integer"))
	case "float":
		return schemaDict("type", str("number"))
	case "number":
		return schemaDict("type", list(str("integer"), str("number")))
	case "bool":
		return schemaDict("type", str("boolean"))
	case "string", "set", "bytes", "closure", "duration":
		return schemaDict("type", str(t.Name))
	case "list":
		if len(t.Args) == 1 {
			return schemaDict("type", str("array"), "items", c.schemaOf(t.Args[0], seen))
		}
		return schemaDict("type", str("array"))
	case "dict":
		if len(t.Args) == 2 {
			return schemaDict("type", str("object"), "additionalProperties", c.schemaOf(t.Args[1], seen))
		}
		return schemaDict("type", str("object"))
	}
	if seen[t.Name] {
		return schemaDict()
	}
	if sd := c.info.Struct(t.Name); sd != nil && len(sd.TypeParams) == 0 {
		var fields []field
		for _, f := range sd.Fields {
			fields = append(fields, field{f.Name, f.Optional, f.Type})
		}
		return c.expanding(t.Name, seen, func(seen map[string]bool) syntax.Expr { return c.objectSchema(fields, seen) })
	}
	if a := c.aliases[t.Name]; a != nil && len(a.TypeParams) == 0 {
		return c.expanding(t.Name, seen, func(seen map[string]bool) syntax.Expr { return c.schemaOf(a.Type, seen) })
	}
	return schemaDict()
}

// expanding runs build with name marked as being expanded.
func (c *compiler) expanding(name string, seen map[string]bool, build func(map[string]bool) syntax.Expr) syntax.Expr {
	if seen == nil {
		seen = map[string]bool{}
	}
	seen[name] = true
	defer delete(seen, name)
	return build(seen)
}

// field is a shape or struct field; an untyped one accepts anything.
type field struct {
	name     string
	optional bool
	typ      syntax.TypeExpr
}

func (c *compiler) objectSchema(fields []field, seen map[string]bool) syntax.Expr {
	props := &syntax.DictLit{}
	var required []syntax.Expr
	for _, f := range fields {
		props.Entries = append(props.Entries, &syntax.DictEntry{KeyName: f.name, Value: c.schemaOf(f.typ, seen)})
		if !f.optional {
			required = append(required, str(f.name))
		}
	}
	if len(required) == 0 {
		return schemaDict("type", str("object"), "properties", props)
	}
	return schemaDict("type", str("object"), "properties", props, "required", list(required...))
}

// schemaDict is a dict literal of alternating keys and values.
func schemaDict(kv ...any) *syntax.DictLit {
	d := &syntax.DictLit{}
	for i := 0; i < len(kv); i += 2 {
		d.Entries = append(d.Entries, &syntax.DictEntry{KeyName: kv[i].(string), Value: kv[i+1].(syntax.Expr)})
	}
	return d
}

func str(s string) syntax.Expr { return &syntax.StringLit{Value: s} }

func list(elems ...syntax.Expr) syntax.Expr { return &syntax.ListLit{Elems: elems} }

func literal(l *syntax.LiteralType) syntax.Expr {
	if s, ok := l.Value.(string); ok {
		return str(s)
	}
	n, _ := l.Value.(int64)
	return &syntax.IntLit{Value: n}
}

package compiler

import (
	"encoding/json"
	"strconv"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/lang/typeschema"
)

// schemaOf is the schema dict of the type alias id names, for an alias
// used as a schema value (docs/spec/language.md §10.6,
// resolve.Info.SchemaTypes): a dict literal built at compile time, in
// the Harn dialect of lang/typeschema. A recursive alias refers to
// itself through "$defs"; an alias that only names itself is a compile
// error.
func (c *compiler) schemaOf(id *syntax.Ident, name string) syntax.Expr {
	d := c.typeEnv().Lookup(name)
	if d == nil || d.Kind != types.AliasDecl {
		c.errorf(id.At, "unknown type alias %q", name)
		return &syntax.NilLit{At: id.At}
	}
	s, err := typeschema.HarnSchema(&types.Named{Decl: d})
	if err != nil {
		c.errorf(id.At, "cannot use %s as a schema: %s", name, err)
		return &syntax.NilLit{At: id.At}
	}
	return schemaExpr(s)
}

// typeEnv is the type declarations the file sees (the Types option), or,
// without it, the file's own.
func (c *compiler) typeEnv() *types.Env {
	if c.types == nil {
		c.types = types.NewEnv()
		c.types.AddFile(c.file)
	}
	return c.types
}

// schemaExpr is the literal that builds a schema document.
func schemaExpr(v any) syntax.Expr {
	switch v := v.(type) {
	case *jsonv.Object:
		d := &syntax.DictLit{}
		for i := range v.Len() {
			k, x := v.At(i)
			d.Entries = append(d.Entries, &syntax.DictEntry{KeyName: k, Value: schemaExpr(x)})
		}
		return d
	case []any:
		l := &syntax.ListLit{}
		for _, x := range v {
			l.Elems = append(l.Elems, schemaExpr(x))
		}
		return l
	case string:
		return &syntax.StringLit{Value: v}
	case json.Number:
		n, _ := strconv.ParseInt(string(v), 10, 64) // typeschema writes integers only
		return &syntax.IntLit{Value: n}
	case bool:
		return &syntax.BoolLit{Value: v}
	}
	return &syntax.NilLit{}
}

package check

import (
	"fmt"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// Strict-types mode (Options.StrictTypes, docs/spec/newer.md §3.14):
// a value from `json_parse` or a schema-less `llm_call` is unvalidated
// until the program checks its shape, and reading a property of it
// before then is an error. A binding initialised from such a call (or
// copied from such a binding) is unvalidated; `schema_is(x, S)` and
// `is_type` validate x where they hold, `schema_expect(x, S)` from the
// call on (it throws otherwise), and an annotation other than `dict`,
// `any` or `unknown` states the shape (it is checked where it is
// declared). Assigning the binding again judges the new value.

// validatedMark suffixes the narrowing key of a binding validated here:
// an entry of c.narrowed, so it follows the narrowing's block scoping
// and is dropped when the binding is assigned (forget).
const validatedMark = "\x00valid"

// llmEnvelope lists the fields llm_call's result always has (docs/builtins.md
// `llm_call`): reading them needs no validation.
var llmEnvelope = map[string]bool{
	"text": true, "model": true, "provider": true, "usage": true,
	"tool_calls": true, "stop_reason": true, "message": true,
}

// unvalidatedSource names the builtin an expression's unvalidated value
// comes from ("json_parse", "llm_call"), or "".
func (c *checker) unvalidatedSource(x syntax.Expr) string {
	if !c.strict {
		return ""
	}
	switch e := x.(type) {
	case *syntax.CallExpr:
		ref := c.info.Refs[e.Fn]
		if ref == nil || ref.Scope != resolve.Universal {
			return ""
		}
		switch e.Fn.Name {
		case "json_parse":
			return "json_parse"
		case "llm_call":
			if schemaLess(e.Args) {
				return "llm_call"
			}
		}
	case *syntax.Ident:
		if b, v := c.unvalidatedVar(e); v != nil && !c.validated(b) {
			return v.unvalidated
		}
	}
	return ""
}

// schemaLess reports an llm_call whose options, when given, are a dict
// literal without a schema (`schema`, `output_schema`, `response_format`,
// `json_schema`); options the checker cannot see count as a schema.
func schemaLess(args []syntax.Expr) bool {
	opts := 2
	if len(args) == 2 {
		if _, ok := args[1].(*syntax.DictLit); ok {
			opts = 1 // llm_call(prompt, options)
		}
	}
	if len(args) <= opts {
		return true
	}
	d, ok := args[opts].(*syntax.DictLit)
	if !ok {
		return false
	}
	for _, en := range d.Entries {
		switch en.KeyName {
		case "schema", "output_schema", "response_format", "json_schema":
			return false
		case "":
			return false // a computed key or a spread may be one
		}
	}
	return true
}

// unvalidatedVar is the binding x names when it holds an unvalidated value
// (never outside strict-types mode, which every property read asks).
func (c *checker) unvalidatedVar(x syntax.Expr) (*resolve.Binding, *variable) {
	id, ok := x.(*syntax.Ident)
	if !ok || !c.strict {
		return nil, nil
	}
	ref := c.info.Refs[id]
	if ref == nil || ref.Binding == nil {
		return nil, nil
	}
	v := c.vars[ref.Binding]
	if v == nil || v.unvalidated == "" {
		return nil, nil
	}
	return ref.Binding, v
}

func (c *checker) validated(b *resolve.Binding) bool {
	_, ok := c.narrowed[narrowKey{b, b.Name + validatedMark}]
	return ok
}

// validate records that x's value has been checked from here on.
func (c *checker) validate(x syntax.Expr) {
	if b, _ := c.unvalidatedVar(x); b != nil {
		c.narrowed[narrowKey{b, b.Name + validatedMark}] = types.Any
	}
}

// strictAnnotation reports whether an annotation states the value's
// shape, so that a binding annotated with it is not unvalidated.
func strictAnnotation(t types.Type) bool {
	if t == nil || types.IsDynamic(t) {
		return false
	}
	_, bare := types.Underlying(t).(*types.Dict)
	return !bare
}

// unvalidatedAccess reports `x.name` or `x[k]` on an unvalidated binding
// x; what is the access as written (`.name`, `[…]`).
func (c *checker) unvalidatedAccess(x syntax.Expr, field, what string, pos syntax.Pos) {
	b, v := c.unvalidatedVar(x)
	if b == nil || c.validated(b) || v.unvalidated == "llm_call" && llmEnvelope[field] {
		return
	}
	c.report(sevError, pos, "",
		fmt.Sprintf("validate it first: `%s = schema_expect(%s, Schema)`, `if schema_is(%s, Schema) { … }` or a shape annotation", b.Name, b.Name, b.Name),
		fmt.Sprintf("Direct property access `%s%s` on unvalidated value '%s' from `%s` (strict types)", b.Name, what, b.Name, v.unvalidated))
}

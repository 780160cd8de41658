package lsp

import (
	"maps"

	"github.com/harnlang/harn/lang/syntax"
)

// This file finds the type parameters of generic declarations (`fn f<T>`,
// `interface Sink<in T>`, `type Box<out T> = …`) where they are introduced
// and where a type inside the declaration names them, for hover, go to
// definition and semantic tokens.

// typeParamUse is one place the file writes a type parameter's name.
type typeParamUse struct {
	at   syntax.Pos
	decl *syntax.TypeParam
	// owner is the declaration that introduces the parameter.
	owner syntax.Node
}

// typeParamUses lists where the file writes type parameters: at the
// declaration (the name, after its `in`/`out`) and in types inside the
// declaration that introduces them (an inner declaration's parameter
// hides an outer one of the same name).
func (a *analysis) typeParamUses() []typeParamUse {
	if a.file == nil {
		return nil
	}
	var out []typeParamUse
	type param struct {
		tp    *syntax.TypeParam
		owner syntax.Node
	}
	var visit func(root syntax.Node, scope map[string]param)
	visit = func(root syntax.Node, scope map[string]param) {
		syntax.Walk(root, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
			if tps := typeParams(n); n != root && len(tps) > 0 {
				inner := maps.Clone(scope)
				if inner == nil {
					inner = map[string]param{}
				}
				for _, tp := range tps {
					inner[tp.Name] = param{tp, n}
					out = append(out, typeParamUse{at: a.typeParamNamePos(tp), decl: tp, owner: n})
				}
				visit(n, inner)
				return false
			}
			if t, ok := n.(*syntax.NamedType); ok {
				if p, ok := scope[t.Name]; ok {
					out = append(out, typeParamUse{at: t.At, decl: p.tp, owner: p.owner})
				}
			}
			return true
		})
	}
	visit(a.file, nil)
	return out
}

// typeParamNamePos is where a type parameter's name is written: its
// position, or the token after its variance (`in T`, `out T`).
func (a *analysis) typeParamNamePos(tp *syntax.TypeParam) syntax.Pos {
	if tp.Variance == "" {
		return tp.At
	}
	if i := a.tokenIndex(tp.At); i >= 0 && i+1 < len(a.toks) {
		return a.toks[i+1].Pos
	}
	return tp.At
}

// typeParamAt is the type parameter whose name is written at p.
func (a *analysis) typeParamAt(p syntax.Pos) (typeParamUse, bool) {
	for _, u := range a.typeParamUses() {
		if u.at == p {
			return u, true
		}
	}
	return typeParamUse{}, false
}

// doc is the hover of a type parameter: `(type parameter) in T` and the
// declaration that introduces it.
func (u typeParamUse) doc() string {
	s := "(type parameter) "
	if u.decl.Variance != "" {
		s += u.decl.Variance + " "
	}
	s += u.decl.Name
	for i, b := range u.decl.Bounds {
		if i == 0 {
			s += ": " + b
		} else {
			s += " + " + b
		}
	}
	md := code(s)
	if name := declName(u.owner); name != "" {
		md += "\n\nof `" + name + "`"
	}
	return md
}

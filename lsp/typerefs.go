package lsp

import (
	"maps"
	"sort"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// This file finds where a file writes the names of types — structs,
// enums, interfaces and type aliases — outside their declarations:
// annotations (`p: Point`, `-> Point`, `list<Point>`), struct literals
// (`Point { … }`), the enum of a variant (`Color.Red`, also as a match
// pattern), impl blocks (`impl Point`), where bounds (`T: Shape`) and type
// aliases used as schemas. The front end's tree says where each is
// written; the resolver says which identifiers are values instead (a
// variable named like an enum, `Color.size()`). Navigation, references,
// highlights and rename read the list, so they agree on every place.

// typeRef is one place the file writes a type's name.
type typeRef struct {
	at   syntax.Pos
	name string
	def  named // the declaration it names
	// hidden is set when a type parameter in scope has the name
	// (`fn f<Point>(p: Point)`): the place names no declared type.
	hidden bool
}

// typeRefs lists the places the file names a declared type, in source
// order. Names qualified by a namespace import (`geo.Point`) are not
// listed: uses and namedAt read those from the tokens.
func (a *analysis) typeRefs() []typeRef {
	a.typeRefsOnce.Do(func() { a.typeRefList = a.findTypeRefs() })
	return a.typeRefList
}

// typeRefAt is the type reference written at p, if any.
func (a *analysis) typeRefAt(p syntax.Pos) (typeRef, bool) {
	refs := a.typeRefs()
	i := sort.Search(len(refs), func(i int) bool { return !before(refs[i].at, p) })
	if i < len(refs) && refs[i].at == p {
		return refs[i], true
	}
	return typeRef{}, false
}

func (a *analysis) findTypeRefs() []typeRef {
	if a.file == nil || a.info == nil {
		return nil
	}
	lines := splitLines(a.text)
	var out []typeRef
	seen := map[syntax.Pos]bool{}
	add := func(at syntax.Pos, name string, hidden map[string]bool, enumOnly bool) {
		if seen[at] || strings.Contains(name, ".") || !a.spelledAt(lines, at, name) {
			return
		}
		if hidden[name] {
			seen[at] = true
			out = append(out, typeRef{at: at, name: name, hidden: true})
			return
		}
		n, ok := a.typeNamed(name, "")
		if _, enum := n.decl.(*syntax.EnumDecl); !ok || enumOnly && !enum {
			return
		}
		seen[at] = true
		out = append(out, typeRef{at: at, name: name, def: n})
	}
	// enumOf adds the enum of `Enum.Variant`: an identifier the resolver
	// left unresolved because it names an enum, not a value.
	enumOf := func(x syntax.Expr, hidden map[string]bool) {
		if id, ok := x.(*syntax.Ident); ok && a.info.Refs[id] == nil {
			add(id.At, id.Name, hidden, true)
		}
	}
	var visit func(root syntax.Node, hidden map[string]bool)
	visit = func(root syntax.Node, hidden map[string]bool) {
		syntax.Walk(root, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
			if tps := typeParams(n); n != root && len(tps) > 0 {
				inner := maps.Clone(hidden)
				if inner == nil {
					inner = map[string]bool{}
				}
				for _, tp := range tps {
					inner[tp.Name] = true
				}
				visit(n, inner)
				return false
			}
			switch x := n.(type) {
			case *syntax.NamedType:
				add(x.At, x.Name, hidden, false)
			case *syntax.StructLit:
				if x.NS == nil {
					add(x.At, x.Name, hidden, false)
				}
			case *syntax.MemberExpr:
				enumOf(x.X, hidden)
			case *syntax.MethodCall:
				enumOf(x.X, hidden)
			case *syntax.ImplBlock:
				add(x.NamePos, x.Name, hidden, false)
			case *syntax.WhereClause:
				for i, b := range x.Bounds {
					if i < len(x.BoundsAt) {
						add(x.BoundsAt[i], b, hidden, false)
					}
				}
			case *syntax.Ident:
				if _, schema := a.info.SchemaTypes[x]; schema {
					add(x.At, x.Name, hidden, false)
				}
			}
			return true
		})
	}
	visit(a.file, nil)
	sort.Slice(out, func(i, j int) bool { return before(out[i].at, out[j].at) })
	return out
}

// typeParams are the type parameters a declaration introduces.
func typeParams(n syntax.Node) []*syntax.TypeParam {
	switch d := n.(type) {
	case *syntax.FnDecl:
		return d.TypeParams
	case *syntax.StructDecl:
		return d.TypeParams
	case *syntax.EnumDecl:
		return d.TypeParams
	case *syntax.TypeDecl:
		return d.TypeParams
	case *syntax.InterfaceDecl:
		return d.TypeParams
	case *syntax.MethodSig:
		return d.TypeParams
	}
	return nil
}

// spelledAt reports whether the source writes name itself at p, not as
// the member of something (`x.Point`): the tree also holds nodes the
// resolver made up (the enum of a bare variant pattern `Circle(r)`) at
// positions where their name is not written. Inside `${…}` the text is
// read, as the scanner keeps an interpolated string one token.
func (a *analysis) spelledAt(lines []string, p syntax.Pos, name string) bool {
	if i := a.tokenIndex(p); i >= 0 {
		t := a.toks[i]
		_, member := a.receiver(a.toks, i)
		return t.Kind == syntax.TokIdent && t.Text == name && !member
	}
	if p.Line < 1 || p.Line > len(lines) {
		return false
	}
	line := []rune(lines[p.Line-1])
	start, end := p.Col-1, p.Col-1+runeLen(name)
	if start < 0 || end > len(line) || string(line[start:end]) != name || end < len(line) && isWordRune(line[end]) {
		return false
	}
	prev := start - 1
	for prev >= 0 && (line[prev] == ' ' || line[prev] == '\t') {
		prev--
	}
	if prev >= 0 && (line[prev] == '.' || isWordRune(line[prev])) {
		return false
	}
	// the token holding p: the last one starting before it
	i := sort.Search(len(a.toks), func(i int) bool { return before(p, a.toks[i].Pos) }) - 1
	return i >= 0 && a.toks[i].Kind == syntax.TokInterp && before(p, a.toks[i].End())
}

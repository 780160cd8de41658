package lint

import (
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// FieldCopy is a dict literal of two or more entries each copying `src.k`
// into key `k` from one source path (docs/spec/newer.md §2.2), which
// `pick(src, ["k", …])` says in one call.
type FieldCopy struct {
	Src     syntax.Expr // the source path as written in the first entry
	SrcText string      // the path spelled `a.b`
	Keys    []string
}

// Pick is the suggested replacement, `pick(src, ["a", "b"])`.
func (fc *FieldCopy) Pick() string {
	quoted := make([]string, len(fc.Keys))
	for i, k := range fc.Keys {
		quoted[i] = strconv.Quote(k)
	}
	return "pick(" + fc.SrcText + ", [" + strings.Join(quoted, ", ") + "])"
}

// Message is the prefer-pick warning text.
func (fc *FieldCopy) Message() string {
	return "record literal copies " + strconv.Itoa(len(fc.Keys)) + " fields from `" + fc.SrcText + "` one by one"
}

// CopiedFields recognises a literal that copies fields one by one, or
// returns nil. Entries on lines apart are left alone: a comment may sit
// between them, and the literal is then kept as written.
func CopiedFields(e *syntax.DictLit) *FieldCopy {
	if len(e.Entries) < 2 {
		return nil
	}
	fc := &FieldCopy{}
	for i, en := range e.Entries {
		m, ok := en.Value.(*syntax.MemberExpr)
		if !ok || en.KeyExpr != nil || en.Spread != nil || m.Optional || m.Name != en.KeyName {
			return nil
		}
		p := pathText(m.X)
		if p == "" || i > 0 && p != fc.SrcText {
			return nil
		}
		if i > 0 && en.At.Line > e.Entries[i-1].At.Line+1 {
			return nil
		}
		if i == 0 {
			fc.Src, fc.SrcText = m.X, p
		}
		fc.Keys = append(fc.Keys, en.KeyName)
	}
	return fc
}

// pathText spells a path of names (`user`, `req.body`), or is "".
func pathText(x syntax.Expr) string {
	switch x := x.(type) {
	case *syntax.Ident:
		return x.Name
	case *syntax.MemberExpr:
		if p := pathText(x.X); p != "" && !x.Optional {
			return p + "." + x.Name
		}
	}
	return ""
}

// BindsName reports whether the resolved file binds name anywhere (a
// function, variable, parameter or import), so that a call of it might
// not be the builtin.
func BindsName(info *resolve.Info, name string) bool {
	for id, ref := range info.Refs {
		if id.Name == name && (ref.Binding != nil || ref.Scope != resolve.Universal) {
			return true
		}
	}
	for _, fn := range info.Funcs {
		for _, b := range fn.Locals {
			if b.Name == name {
				return true
			}
		}
	}
	for _, b := range info.Globals {
		if b.Name == name {
			return true
		}
	}
	return false
}

// preferPick reports a literal that copies fields one by one. There is
// no automatic fix yet: lang/format prints literals from their source
// tokens, and the key strings of the pick call have none.
func (l *linter) preferPick(e *syntax.DictLit) {
	fc := CopiedFields(e)
	if fc == nil || l.info == nil || BindsName(l.info, "pick") {
		return
	}
	l.report(PreferPick, e.At, 1, "", nil, "%s (replace it with `%s`)", fc.Message(), fc.Pick())
}

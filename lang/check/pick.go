package check

import (
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
)

// Record projection: the builtin `pick(value, keys)` (docs/spec/newer.md
// §2.2) is typed precisely. Its result is a shape holding exactly the
// selected fields with their source types, so a later read of a field
// that was not selected is the §3.6 error: the key list states what the
// program means to keep.

// pickSource is the value a `pick` projects: the first argument, or the
// left side of `value |> pick(_, keys)`.
type pickSource struct {
	x syntax.Expr
	t types.Type
}

// isPick reports whether call calls the builtin `pick` (a user function
// or variable of that name shadows it).
func (c *checker) isPick(call *syntax.CallExpr) bool {
	if call.Fn.Name != "pick" {
		return false
	}
	ref := c.info.Refs[call.Fn]
	return ref != nil && ref.Binding == nil && ref.Scope == resolve.Universal
}

// pickCall checks `pick(value, keys)` and returns its projected type.
func (c *checker) pickCall(e *syntax.CallExpr, args []types.Type) types.Type {
	if len(e.Args) != 2 || hasSpread(e.Args) {
		return types.Any
	}
	src := pickSource{x: e.Args[0], t: args[0]}
	if id, ok := e.Args[0].(*syntax.Ident); ok && id.Name == "_" && c.pipeSrc != nil {
		src = *c.pipeSrc
	}
	if kind := notRecord(src.t); kind != "" {
		c.report(sevError, e.Args[0].Position(), "HARN-TYP-007", "",
			"argument 1 `value`: expected a dict, struct or shape, found "+kind)
		return types.Any
	}
	if l, ok := types.Underlying(args[1]).(*types.List); ok && known(l.Elem) && !compatible(l.Elem, types.String) {
		c.mismatch(e.Args[1], "argument 2 `keys`", &types.List{Elem: types.String}, args[1])
		return types.Any
	}
	keys, constant := c.constKeys(e.Args[1])
	return c.project(src, keys, constant, e.Args[1])
}

// project is the type of src restricted to keys; without a constant key
// list every field of src may be absent.
func (c *checker) project(src pickSource, keys []string, constant bool, at syntax.Expr) types.Type {
	if plainDictLit(src.x) {
		src.t = types.Widen(src.t) // `pick({a: 1}, …)` picks an int, not the literal 1
	}
	switch t := types.Underlying(src.t).(type) {
	case *types.Union:
		var shapes []types.Type
		for _, m := range t.Types {
			fields, ok := recordFields(m)
			if !ok {
				return types.Any
			}
			shapes = append(shapes, projectFields(fields, keys, constant))
		}
		if constant {
			c.unknownKeys(at, keys, src.t, t.Types...)
		}
		return types.NewUnion(shapes...)
	case *types.Dict:
		if !constant {
			return t
		}
		sh := &types.Shape{}
		for _, k := range dedupe(keys) {
			sh.Fields = append(sh.Fields, types.Field{Name: k, Type: t.Value, Optional: true})
		}
		return sh
	}
	fields, ok := recordFields(src.t)
	if !ok {
		if !constant {
			return types.Any
		}
		// an unknown source: the selected keys, each possibly absent
		sh := &types.Shape{}
		for _, k := range dedupe(keys) {
			sh.Fields = append(sh.Fields, types.Field{Name: k, Type: types.Any, Optional: true})
		}
		return sh
	}
	if constant && c.declaredRecord(src) {
		c.unknownKeys(at, keys, src.t, src.t)
	}
	return projectFields(fields, keys, constant)
}

// projectFields keeps the fields named in keys (all of them, optional,
// when the keys are not known). A key the source lacks is absent at run
// time, so it gives an optional field of any type.
func projectFields(fields []types.Field, keys []string, constant bool) *types.Shape {
	sh := &types.Shape{}
	if !constant {
		for _, f := range fields {
			f.Optional = true
			sh.Fields = append(sh.Fields, f)
		}
		return sh
	}
	for _, k := range dedupe(keys) {
		f, ok := fieldNamed(fields, k)
		if !ok {
			f = types.Field{Name: k, Type: types.Any, Optional: true}
		}
		sh.Fields = append(sh.Fields, f)
	}
	return sh
}

// unknownKeys reports the keys that no member of the source type
// declares.
func (c *checker) unknownKeys(at syntax.Expr, keys []string, src types.Type, members ...types.Type) {
	var names []string
	seen := map[string]bool{}
	for _, m := range members {
		fields, _ := recordFields(m)
		for _, f := range fields {
			if !seen[f.Name] {
				seen[f.Name] = true
				names = append(names, f.Name)
			}
		}
	}
	for _, k := range dedupe(keys) {
		if seen[k] {
			continue
		}
		msg := "argument 2 `keys`: unknown field `" + k + "` in pick from `" + src.String() + "`"
		if s := diag.Suggest(k, names); s != "" {
			msg += " — did you mean `" + s + "`?"
		}
		c.report(sevError, at.Position(), "HARN-TYP-007", "available fields: "+strings.Join(names, ", "), msg)
	}
}

// declaredRecord reports a source whose fields the program declared: a
// struct of this program, the Harness handle, a closed shape reached
// through an annotated or projected binding. A shape inferred from a
// dict literal says nothing of intent (its keys may be absent on purpose).
func (c *checker) declaredRecord(src pickSource) bool {
	switch t := types.Underlying(src.t).(type) {
	case *types.Named:
		return t.Decl.Node != nil
	case *types.Handle:
		return t.IsRoot()
	case *types.Shape:
		return !t.Open && len(t.Fields) > 0 && c.shapePath(src.x)
	}
	return false
}

// plainDictLit reports a dict literal written in place, with fixed keys
// and no spread. Its keys are not checked against the pick's (a key it
// lacks is simply absent from the result, docs/spec/newer.md §2.2), but its
// fields are known.
func plainDictLit(x syntax.Expr) bool {
	d, ok := x.(*syntax.DictLit)
	if !ok {
		return false
	}
	for _, e := range d.Entries {
		if e.Spread != nil || e.KeyExpr != nil {
			return false
		}
	}
	return true
}

// recordFields lists the fields of a struct, shape or the Harness handle.
func recordFields(t types.Type) ([]types.Field, bool) {
	switch r := types.Underlying(t).(type) {
	case *types.Named:
		if r.Decl.Kind != types.StructDecl || r.Decl.Node == nil {
			return nil, false
		}
		return types.StructFields(r), true
	case *types.Shape:
		if r.Open {
			return nil, false
		}
		return r.Fields, true
	case *types.Handle:
		if !r.IsRoot() {
			return nil, false
		}
		fields := make([]types.Field, len(types.Capabilities))
		for i, name := range types.Capabilities {
			h, _ := types.Capability(name)
			fields[i] = types.Field{Name: name, Type: h}
		}
		return fields, true
	}
	return nil, false
}

func fieldNamed(fields []types.Field, name string) (types.Field, bool) {
	for _, f := range fields {
		if f.Name == name {
			return f, true
		}
	}
	return types.Field{}, false
}

// notRecord names the kind of a source `pick` can never project (every
// member of a union must be such a kind), or is "".
func notRecord(t types.Type) string {
	if u, ok := t.(*types.Union); ok {
		var kinds []string
		for _, m := range u.Types {
			k := notRecord(m)
			if k == "" {
				return ""
			}
			kinds = append(kinds, k)
		}
		return strings.Join(kinds, " | ")
	}
	switch k := types.KindName(t); k {
	case "int", "float", "string", "bool", "nil", "list", "set":
		return k
	}
	return ""
}

// constKeys is the key list written as a list literal of strings, or
// held by a binding initialised with one and never changed.
func (c *checker) constKeys(x syntax.Expr) ([]string, bool) {
	switch x := x.(type) {
	case *syntax.ListLit:
		return stringList(x)
	case *syntax.Ident:
		ref := c.info.Refs[x]
		if ref == nil || ref.Binding == nil {
			return nil, false
		}
		keys, ok := c.keyLists[ref.Binding]
		return keys, ok
	}
	return nil, false
}

func stringList(l *syntax.ListLit) ([]string, bool) {
	keys := []string{}
	for _, el := range l.Elems {
		s, ok := el.(*syntax.StringLit)
		if !ok {
			return nil, false
		}
		keys = append(keys, s.Value)
	}
	return keys, true
}

// rememberKeys records a binding that holds a constant key list for the
// whole of its life, so `pick(v, keys)` keeps its precision.
func (c *checker) rememberKeys(b *resolve.Binding, value syntax.Expr) {
	if b == nil || b.Reassign || b.PathRoot {
		return
	}
	if keys, ok := c.constKeys(value); ok {
		c.keyLists[b] = keys
	}
}

// projected reports an initializer that is a `pick` with a constant key
// list, or of any key list from a declared source: the binding's shape
// is then the program's statement of its fields, as an annotation would
// be.
func (c *checker) projected(b *resolve.Binding, x syntax.Expr, t types.Type) bool {
	if b == nil || b.Reassign || b.PathRoot {
		return false
	}
	switch t := t.(type) {
	case *types.Shape:
	case *types.Union: // pick on a union of shapes projects each branch
		for _, m := range t.Types {
			if _, ok := m.(*types.Shape); !ok {
				return false
			}
		}
	default:
		return false
	}
	if p, ok := x.(*syntax.PipeExpr); ok {
		x = p.F
	}
	call, ok := x.(*syntax.CallExpr)
	return ok && c.isPick(call) && len(call.Args) == 2 && (c.hasConstKeys(call.Args[1]) || c.declaredPath(call.Args[0]))
}

// declaredPick reports a `pick` from a source path nil safety watches
// (an annotated binding or parameter, or such a projection): an optional
// field stays optional in the projection, and with a key list that is
// not constant every field is, so reading it is checked as reading an
// optional field of the source would be (docs/spec/newer.md §2.2, §3.5).
func (c *checker) declaredPick(x syntax.Expr) bool {
	var piped syntax.Expr
	if p, ok := x.(*syntax.PipeExpr); ok {
		piped, x = p.X, p.F
	}
	call, ok := x.(*syntax.CallExpr)
	if !ok || !c.isPick(call) || len(call.Args) != 2 {
		return false
	}
	src := call.Args[0]
	if id, ok := src.(*syntax.Ident); ok && id.Name == "_" && piped != nil {
		src = piped
	}
	return c.declaredPath(src)
}

func (c *checker) hasConstKeys(x syntax.Expr) bool {
	_, ok := c.constKeys(x)
	return ok
}

// shapePath reports a path whose shape the program stated: rooted at an
// annotated binding or parameter, at a call of a function declared to
// return it, or at a `pick` projection.
func (c *checker) shapePath(x syntax.Expr) bool {
	switch e := x.(type) {
	case *syntax.IndexExpr:
		// an element of a declared container is declared with it
		// (`us[0]` of `us: list<User>`)
		return !e.Optional && c.shapePath(e.X)
	case *syntax.MemberExpr:
		if !e.Optional && throughIndex(e.X) {
			return c.shapePath(e.X)
		}
	}
	if c.declaredPath(x) {
		return true
	}
	if t := c.quietType(x); t != nil && c.declaredShape(x, t) {
		return true
	}
	if call, ok := x.(*syntax.CallExpr); ok {
		return c.isPick(call) && len(call.Args) == 2 && c.hasConstKeys(call.Args[1])
	}
	_, b := c.pathKey(x)
	v := c.vars[b]
	return b != nil && v != nil && v.projected
}

func dedupe(keys []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// preferPick warns about a dict literal that copies fields of one value
// one by one (docs/spec/newer.md §2.2): the lint rule prefer-pick, which
// docs/spec/newer.md lists among the checker's warnings; lang/lint reports it too,
// through CopiedFields and BindsName.
func (c *checker) preferPick(e *syntax.DictLit) {
	fc := CopiedFields(e, c.file.Comments)
	if fc == nil {
		return
	}
	if c.pickBound == 0 {
		c.pickBound = 1
		if BindsName(c.info, "pick") {
			c.pickBound = 2
		}
	}
	if c.pickBound == 2 {
		return
	}
	c.report(sevWarning, e.At, "", "replace it with `"+fc.Pick()+"`", fc.Message())
}

// FieldCopy is a dict literal of two or more entries each copying `src.k`
// into key `k` from one source path (docs/spec/newer.md §2.2), which
// `pick(src, ["k", …])` says in one call.
type FieldCopy struct {
	SrcText string // the source path spelled `a.b`
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
// returns nil. A literal with a comment among its entries (comments are
// the file's comment positions) is kept as written; blank lines between
// entries do not matter (docs/spec/newer.md §2.2).
func CopiedFields(e *syntax.DictLit, comments []syntax.Pos) *FieldCopy {
	if len(e.Entries) < 2 {
		return nil
	}

	fc := &FieldCopy{}
	for i, en := range e.Entries {
		m, ok := en.Value.(*syntax.MemberExpr)
		if !ok || en.KeyExpr != nil || en.Spread != nil || m.Optional || m.Name != en.KeyName {
			return nil
		}
		p := pathText(m.X, "")
		if p == "" || i > 0 && p != fc.SrcText {
			return nil
		}
		fc.SrcText = p
		fc.Keys = append(fc.Keys, en.KeyName)
	}
	last := e.Entries[len(e.Entries)-1].Value.Position()
	for _, p := range comments {
		if e.At.Before(p) && p.Before(last) {
			return nil
		}
	}
	return fc
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

package lsp

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/format"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// This file answers questions about names: what a name at the cursor
// refers to, where that is declared (also in another module), where it is
// used, what it is (hover), and renames it.

// tokenIndex is the index of the token starting at p, or -1.
func (a *analysis) tokenIndex(p syntax.Pos) int {
	lo, hi := 0, len(a.toks)
	for lo < hi {
		m := (lo + hi) / 2
		if before(a.toks[m].Pos, p) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(a.toks) && a.toks[lo].Pos == p {
		return lo
	}
	return -1
}

// nameOf is the position of the identifier token that spells a binding's
// name in its declaration.
func (a *analysis) nameOf(b *resolve.Binding) (syntax.Pos, bool) {
	from := b.Pos
	if t, ok := b.Decl.(*syntax.TryExpr); ok && t.Catch != nil {
		// catch (e) { … }: the name is just before the catch block
		i := a.tokenIndex(t.Catch.At)
		for j := i - 1; j >= 0 && j > i-6; j-- {
			if a.toks[j].Kind == syntax.TokIdent && a.toks[j].Text == b.Name {
				return a.toks[j].Pos, true
			}
		}
		return syntax.Pos{}, false
	}
	i := a.tokenIndex(from)
	if i < 0 {
		return syntax.Pos{}, false
	}
	for j := i; j < len(a.toks) && j < i+12; j++ {
		if a.toks[j].Kind == syntax.TokIdent && a.toks[j].Text == b.Name {
			return a.toks[j].Pos, true
		}
	}
	return syntax.Pos{}, false
}

// at finds what the identifier at p is: a reference (ref set) or a
// declaration (decl set).
func (a *analysis) at(p syntax.Pos) (tok syntax.Token, ref *resolve.Ref, decl *resolve.Binding, ok bool) {
	tok, ok = identAtCursor(a.toks, p)
	if !ok {
		tok, ok = a.identInString(p)
	}
	if !ok || a.info == nil {
		return tok, nil, nil, ok
	}
	if id := a.identAt[tok.Pos]; id != nil {
		return tok, a.info.Refs[id], nil, true
	}
	for _, b := range a.bindings {
		if b.Name != tok.Text {
			continue
		}
		if np, found := a.nameOf(b); found && np == tok.Pos {
			return tok, nil, b, true
		}
	}
	if b := a.importedAt(tok); b != nil {
		return tok, nil, b, true
	}
	return tok, nil, nil, true
}

// importedAt is the binding of a name of an import list (`add` in
// `import { add } from "lib"`, or `m` in `import * as m from "lib"`)
// spelled by tok: the resolver binds imported
// names before it reads the import declarations, so the binding has no
// position to find it by.
func (a *analysis) importedAt(tok syntax.Token) *resolve.Binding {
	if a.file == nil {
		return nil
	}
	for _, it := range a.file.Items {
		imp, ok := it.(*syntax.ImportDecl)
		if !ok {
			continue
		}
		names := imp.Names
		if imp.Namespace != nil {
			names = append(names[:len(names):len(names)], imp.Namespace)
		}
		for _, n := range names {
			if n.At != tok.Pos || n.Name != tok.Text {
				continue
			}
			if i, ok := a.info.GlobalIndex[n.Name]; ok && a.info.Globals[i].Kind == resolve.KImport {
				return a.info.Globals[i]
			}
		}
	}
	return nil
}

// identInString is the resolved identifier or the type name (typeRefs)
// at (or just before) p inside a `${…}` hole: the scanner keeps an
// interpolated string one token, the resolver has the identifiers of its
// holes.
func (a *analysis) identInString(p syntax.Pos) (syntax.Token, bool) {
	i := tokenAt(a.toks, p)
	if i < 0 && p.Col > 1 {
		i = tokenAt(a.toks, syntax.Pos{Line: p.Line, Col: p.Col - 1})
	}
	lines := splitLines(a.text)
	if i < 0 || a.toks[i].Kind != syntax.TokInterp || p.Line > len(lines) {
		return syntax.Token{}, false
	}
	line := []rune(lines[p.Line-1])
	c := p.Col - 1
	if c >= len(line) || !isWordRune(line[c]) {
		c--
	}
	if c < 0 || c >= len(line) || !isWordRune(line[c]) {
		return syntax.Token{}, false
	}
	start, end := c, c
	for start > 0 && isWordRune(line[start-1]) {
		start--
	}
	for end < len(line) && isWordRune(line[end]) {
		end++
	}
	pos := syntax.Pos{Line: p.Line, Col: start + 1}
	if _, isType := a.typeRefAt(pos); a.identAt[pos] == nil && !isType {
		return syntax.Token{}, false
	}
	return syntax.Token{Kind: syntax.TokIdent, Text: string(line[start:end]), Pos: pos}, true
}

// location is a place in some file.
type location struct {
	path string
	pos  syntax.Pos
	name string
}

// definition is where a binding is declared: in this file, or for an
// imported name in the module that defines it (following re-exports).
func (a *analysis) definition(path string, b *resolve.Binding) (location, bool) {
	if b == nil {
		return location{}, false
	}
	if b.Kind == resolve.KImport && a.mod != nil {
		if _, imp := a.namespaceModule(b.Name); imp != nil {
			// a namespace import is declared by its `as ns`
			return location{path: path, pos: imp.Namespace.At, name: b.Name}, true
		}
		def, decl, ok := a.mod.ImportedDecl(b.Name)
		if !ok || def == nil || decl == nil || isStd(def.Path) {
			return location{}, false
		}
		return location{path: def.Path, pos: declNamePos(decl, b.Name), name: b.Name}, true
	}
	p, ok := a.nameOf(b)
	if !ok {
		p = b.Pos
	}
	return location{path: path, pos: p, name: b.Name}, true
}

// declNamePos is the position of a declaration's name.
func declNamePos(n syntax.Node, name string) syntax.Pos {
	switch d := n.(type) {
	case *syntax.FnDecl:
		return d.NamePos
	case *syntax.ToolDecl:
		return d.NamePos
	case *syntax.PipelineDecl:
		return d.NamePos
	case *syntax.StructDecl:
		return d.NamePos
	case *syntax.EnumDecl:
		return d.NamePos
	case *syntax.InterfaceDecl:
		return d.NamePos
	case *syntax.TypeDecl:
		return d.NamePos
	case *syntax.LetStmt:
		var p syntax.Pos
		syntax.PatternNames(d.Pattern, func(n string, node syntax.Node) {
			if n == name {
				p = node.Position()
			}
		})
		if p.IsValid() {
			return p
		}
	}
	return n.Position()
}

func (s *Server) current(uri string) (*document, *analysis) {
	d := s.doc(uri)
	if d == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.cur != nil && d.cur.file != nil {
		return d, d.cur
	}
	return d, d.good
}

func (s *Server) definitionOf(uri string, pos protocol.Position) (location, bool) {
	d, a := s.current(uri)
	if a == nil {
		return location{}, false
	}
	p := fromPosition(splitLines(a.text), pos)
	tok, ref, decl, ok := a.at(p)
	if !ok {
		return location{}, false
	}
	b := decl
	if ref != nil {
		b = ref.Binding
	}
	if b == nil {
		// `m.name` through a namespace import (types: namedDefinition)
		def, nd, _, found := a.namespaced(a.tokenIndex(tok.Pos))
		if !found || isTypeDecl(nd) || isStd(def.Path) {
			return location{}, false
		}
		return location{path: def.Path, pos: declNamePos(nd, tok.Text), name: tok.Text}, true
	}
	return a.definition(d.path, b)
}

// namespaceModule is the module the namespace import named ns brings.
func (a *analysis) namespaceModule(ns string) (*interp.Module, *syntax.ImportDecl) {
	if a.mod == nil {
		return nil, nil
	}
	for i := len(a.mod.Imports) - 1; i >= 0; i-- {
		imp := a.mod.Imports[i]
		if imp.Decl.Namespace != nil && imp.Decl.Namespace.Name == ns && imp.Module != nil {
			return imp.Module, imp.Decl
		}
	}
	return nil, nil
}

// namespaced finds the declaration token i names as `ns.name`, where ns
// is a namespace import (`import * as m from "lib"`; `m.clampx`) and not
// a local that shadows it: the module declaring it, the declaration and
// the import path.
func (a *analysis) namespaced(i int) (def *interp.Module, decl syntax.Node, from string, ok bool) {
	if i < 0 || a.toks[i].Kind != syntax.TokIdent {
		return nil, nil, "", false
	}
	r, ok := a.receiver(a.toks, i)
	if !ok || a.toks[r].Kind != syntax.TokIdent {
		return nil, nil, "", false
	}
	ns := a.toks[r]
	if id := a.identAt[ns.Pos]; id != nil && a.info != nil {
		if ref := a.info.Refs[id]; ref == nil || ref.Binding == nil || ref.Binding.Kind != resolve.KImport {
			return nil, nil, "", false
		}
	}
	m, imp := a.namespaceModule(ns.Text)
	if m == nil {
		return nil, nil, "", false
	}
	def, decl, ok = m.Exported(a.toks[i].Text)
	if !ok || def == nil || decl == nil {
		return nil, nil, "", false
	}
	return def, decl, imp.Path, true
}

func (s *Server) lspLocation(l location) protocol.Location {
	text, _ := s.readFile(l.path)
	return protocol.Location{URI: pathURI(l.path), Range: rangeOf(splitLines(text), l.pos, runeLen(l.name))}
}

func (s *Server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	l, ok := s.namespaceFile(p.TextDocument.URI, p.Position)
	if !ok {
		l, ok = s.definitionOf(p.TextDocument.URI, p.Position)
	}
	if !ok {
		l, ok = s.namedDefinition(p.TextDocument.URI, p.Position)
	}
	if !ok {
		l, ok = s.typeParamDefinition(p.TextDocument.URI, p.Position)
	}
	if !ok {
		return nil, nil
	}
	return s.lspLocation(l), nil
}

// namespaceFile is the file of the module a namespace import brings, when
// the cursor is on the import's `as ns` (from a use of ns, definition
// goes to that declaration first).
func (s *Server) namespaceFile(uri string, pos protocol.Position) (location, bool) {
	_, a := s.current(uri)
	if a == nil {
		return location{}, false
	}
	_, _, decl, ok := a.at(fromPosition(splitLines(a.text), pos))
	if !ok || decl == nil || decl.Kind != resolve.KImport {
		return location{}, false
	}
	m, _ := a.namespaceModule(decl.Name)
	if m == nil || isStd(m.Path) {
		return location{}, false
	}
	return location{path: m.Path, pos: syntax.Pos{Line: 1, Col: 1}}, true
}

// typeParamDefinition is where the type parameter named at the cursor is
// introduced (`T` of `fn f<T>`).
func (s *Server) typeParamDefinition(uri string, pos protocol.Position) (location, bool) {
	d, a := s.current(uri)
	if a == nil {
		return location{}, false
	}
	tok, ok := identAtCursor(a.toks, fromPosition(splitLines(a.text), pos))
	if !ok {
		return location{}, false
	}
	u, ok := a.typeParamAt(tok.Pos)
	if !ok {
		return location{}, false
	}
	return location{path: d.path, pos: a.typeParamNamePos(u.decl), name: u.decl.Name}, true
}

// namedDefinition is the declaration of a type, variant or impl method at
// the cursor (typeRefAt, else namedAt).
func (s *Server) namedDefinition(uri string, pos protocol.Position) (location, bool) {
	n, path, ok := s.namedTarget(uri, pos)
	if !ok {
		return location{}, false
	}
	return n.location(path), true
}

// namedTarget is the declaration named at the cursor when no binding is
// (namedDefinition), with the path of the cursor's file.
func (s *Server) namedTarget(uri string, pos protocol.Position) (named, string, bool) {
	d, a := s.current(uri)
	if a == nil {
		return named{}, "", false
	}
	tok, ref, decl, ok := a.at(fromPosition(splitLines(a.text), pos))
	if !ok || ref != nil || decl != nil {
		return named{}, "", false
	}
	var n named
	if r, found := a.typeRefAt(tok.Pos); found {
		n, ok = r.def, !r.hidden
	} else if i := a.tokenIndex(tok.Pos); i >= 0 {
		n, ok = a.namedAt(a.toks, i)
	} else {
		ok = false
	}
	if !ok || n.mod != nil && isStd(n.mod.Path) {
		return named{}, "", false
	}
	return n, d.path, true
}

// targetOf is the declaration whose uses references, highlights and
// rename look for: a binding's, or a type's (struct, enum, interface,
// alias) named at the cursor or declared there.
func (s *Server) targetOf(uri string, pos protocol.Position) (location, bool) {
	if l, ok := s.definitionOf(uri, pos); ok {
		return l, true
	}
	n, path, ok := s.namedTarget(uri, pos)
	if !ok || n.variant != nil || n.field != nil || !isTypeDecl(n.decl) {
		return location{}, false
	}
	return n.location(path), true
}

// references lists the uses of the name at the cursor in every open
// document, the file that defines it and the workspace's .harn files.
func (s *Server) references(_ *glsp.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	target, ok := s.targetOf(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	var out []protocol.Location
	if p.Context.IncludeDeclaration {
		out = append(out, s.lspLocation(target))
	}
	err := s.eachUse(target, func(path string, lines []string, at syntax.Pos) {
		out = append(out, protocol.Location{URI: pathURI(path), Range: rangeOf(lines, at, runeLen(target.name))})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachUse calls use for every use of target in the files searchPaths
// gives (lines: the text of that file), stopping with errCancelled when
// the request is cancelled. Every use is an identifier spelled like the
// target, so only the files whose text has that word are analysed.
func (s *Server) eachUse(target location, use func(path string, lines []string, at syntax.Pos)) error {
	for _, path := range s.searchPaths(target.path) {
		if s.cancelled() {
			return errCancelled
		}
		if text, ok := s.readFile(path); !ok || !hasWord(text, target.name) {
			continue
		}
		if analysedForUses != nil {
			analysedForUses(path)
		}
		a := s.analysisOf(path)
		if a == nil || a.info == nil {
			continue
		}
		lines := splitLines(a.text)
		for _, u := range a.uses(path, target) {
			use(path, lines, u)
		}
	}
	return nil
}

// analysedForUses, when set (by tests), is told each file eachUse analyses.
var analysedForUses func(path string)

// hasWord reports whether text has name where no identifier character
// comes before or after it.
func hasWord(text, name string) bool {
	if name == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		r, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (i == 0 || !syntax.IsIdentChar(r)) && (end == len(text) || !syntax.IsIdentChar(after)) {
			return true
		}
		from = i + 1
	}
}

// uses lists the positions in this analysis whose identifiers refer to the
// declaration at target (imported names included, at their import, names
// used through a namespace import, `m.name`, and the places a type's name
// is written, typeRefs).
func (a *analysis) uses(path string, target location) []syntax.Pos {
	var out []syntax.Pos
	seen := map[syntax.Pos]bool{}
	for id, ref := range a.info.Refs {
		if id.Name != target.name || ref.Binding == nil {
			continue
		}
		if l, ok := a.definition(path, ref.Binding); ok && l.path == target.path && l.pos == target.pos && !seen[id.At] {
			seen[id.At] = true
			out = append(out, id.At)
		}
	}
	// the names listed in imports
	if a.mod != nil {
		for _, it := range a.file.Items {
			d, ok := it.(*syntax.ImportDecl)
			if !ok {
				continue
			}
			for _, n := range d.Names {
				if n.Name != target.name || seen[n.At] {
					continue
				}
				def, decl, ok := a.mod.ImportedDecl(n.Name)
				if ok && def != nil && decl != nil && def.Path == target.path && declNamePos(decl, n.Name) == target.pos {
					seen[n.At] = true
					out = append(out, n.At)
				}
			}
		}
	}
	// the names of types
	for _, r := range a.typeRefs() {
		if r.hidden || r.name != target.name || seen[r.at] {
			continue
		}
		if l := r.def.location(path); l.path == target.path && l.pos == target.pos {
			seen[r.at] = true
			out = append(out, r.at)
		}
	}
	// a namespace in a type (`p: m.Point`), where no variable can hide it
	if target.path == path && a.isNamespace(target.name) {
		for i, t := range a.toks {
			if t.Kind == syntax.TokIdent && t.Text == target.name && !seen[t.Pos] && a.identAt[t.Pos] == nil &&
				i+1 < len(a.toks) && a.toks[i+1].Text == "." && t.Pos != target.pos {
				seen[t.Pos] = true
				out = append(out, t.Pos)
			}
		}
	}
	// the names used through a namespace import: `m.name`
	for i, t := range a.toks {
		if t.Kind != syntax.TokIdent || t.Text != target.name || seen[t.Pos] {
			continue
		}
		if def, decl, _, ok := a.namespaced(i); ok && def.Path == target.path && declNamePos(decl, t.Text) == target.pos {
			seen[t.Pos] = true
			out = append(out, t.Pos)
		}
	}
	sort.Slice(out, func(i, j int) bool { return before(out[i], out[j]) })
	return out
}

// searchPaths are the files references and renames look at: open
// documents, the defining file, and the workspace's .harn files (up to
// maxSearchFiles of them).
func (s *Server) searchPaths(defPath string) []string {
	set := map[string]bool{}
	var out []string
	add := func(p string) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if !set[p] {
			set[p] = true
			out = append(out, p)
		}
	}
	s.mu.Lock()
	for _, d := range s.docs {
		add(d.path)
	}
	s.mu.Unlock()
	if !isStd(defPath) {
		add(defPath)
	}
	for _, f := range s.workspaceFiles(maxSearchFiles) {
		add(f)
	}
	sort.Strings(out)
	return out
}

// maxSearchFiles bounds the workspace files references and rename read
// (a root far too wide, such as a home directory, stops there).
const maxSearchFiles = 50000

// workspaceFiles lists up to limit .harn files under the workspace root.
func (s *Server) workspaceFiles(limit int) []string {
	if s.root == "" {
		return nil
	}
	var out []string
	filepath.WalkDir(s.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= limit {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if p != s.root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".harn") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// rename renames the name at the cursor wherever references finds it.
func (s *Server) rename(_ *glsp.Context, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	if !validName(p.NewName) {
		return nil, &renameError{p.NewName}
	}
	target, ok := s.targetOf(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	changes := map[protocol.DocumentUri][]protocol.TextEdit{}
	add := func(path string, lines []string, at syntax.Pos) {
		uri := pathURI(path)
		for _, e := range changes[uri] {
			if e.Range.Start == toPosition(lines, at) {
				return
			}
		}
		changes[uri] = append(changes[uri], protocol.TextEdit{Range: rangeOf(lines, at, runeLen(target.name)), NewText: p.NewName})
	}
	defText, _ := s.readFile(target.path)
	add(target.path, splitLines(defText), target.pos)
	if err := s.eachUse(target, add); err != nil {
		return nil, err
	}
	return &protocol.WorkspaceEdit{Changes: changes}, nil
}

// documentHighlight marks the name at the cursor where the document
// declares and uses it: the same places references finds there.
func (s *Server) documentHighlight(_ *glsp.Context, p *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	target, ok := s.targetOf(p.TextDocument.URI, p.Position)
	d, a := s.current(p.TextDocument.URI)
	if !ok || a == nil || a.info == nil {
		return nil, nil
	}
	lines := splitLines(a.text)
	text := protocol.DocumentHighlightKindText
	var out []protocol.DocumentHighlight
	if target.path == d.path {
		out = append(out, protocol.DocumentHighlight{Range: rangeOf(lines, target.pos, runeLen(target.name)), Kind: &text})
	}
	for _, u := range a.uses(d.path, target) {
		if u != target.pos || target.path != d.path {
			out = append(out, protocol.DocumentHighlight{Range: rangeOf(lines, u, runeLen(target.name)), Kind: &text})
		}
	}
	return out, nil
}

type renameError struct{ name string }

func (e *renameError) Error() string { return "`" + e.name + "` is not a valid Harn name" }

// validName reports whether s is one identifier token for the scanner:
// not a keyword, nothing else around it.
func validName(s string) bool {
	toks, err := syntax.Scan("", []byte(s))
	if err != nil || len(toks) == 0 || toks[0].Kind != syntax.TokIdent || toks[0].Text != s {
		return false
	}
	return len(toks) == 1 || toks[1].Kind == syntax.TokEOF
}

// ---- hover ----

func (s *Server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	_, a := s.current(p.TextDocument.URI)
	if a == nil {
		return nil, nil
	}
	lines := splitLines(a.text)
	pos := fromPosition(lines, p.Position)
	tok, ref, decl, ok := a.at(pos)
	if !ok {
		return a.closureHover(lines, pos), nil
	}
	var md string
	switch {
	case ref != nil && ref.Binding == nil:
		md = a.builtinDoc(tok.Text)
	case ref != nil:
		md = a.bindingDoc(ref.Binding)
	case decl != nil:
		md = a.bindingDoc(decl)
	default:
		if u, found := a.typeParamAt(tok.Pos); found {
			md = u.doc()
		} else if r, found := a.typeRefAt(tok.Pos); found {
			if !r.hidden {
				md = r.def.doc()
			}
		} else if i := a.tokenIndex(tok.Pos); i >= 0 {
			if n, ok := a.namedAt(a.toks, i); ok {
				md = n.doc()
			} else if _, d, from, ok := a.namespaced(i); ok {
				md = describe(d, &resolve.Binding{Name: tok.Text, Kind: resolve.KImport}) + "\n\n*imported from* `" + from + "`"
			} else {
				md = a.memberDoc(i)
			}
		}
	}
	if md == "" {
		return nil, nil
	}
	r := rangeOf(lines, tok.Pos, runeLen(tok.Text))
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}, Range: &r}, nil
}

// closureHover shows the type of the closure literal whose `{` or `fn`
// is at pos (`(closure) fn(int) -> int`), nil elsewhere.
func (a *analysis) closureHover(lines []string, pos syntax.Pos) *protocol.Hover {
	i := tokenAt(a.toks, pos)
	if i < 0 || a.file == nil || a.mod == nil || a.toks[i].Text != "{" && a.toks[i].Text != "fn" {
		return nil
	}
	tok := a.toks[i]
	var cl *syntax.ClosureLit
	syntax.Walk(a.file, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		if c, ok := n.(*syntax.ClosureLit); ok && c.At == tok.Pos {
			cl = c
		}
		return cl == nil
	})
	if cl == nil {
		return nil
	}
	t, ok := a.mod.ClosureType(cl)
	if !ok {
		return nil
	}
	r := rangeOf(lines, tok.Pos, runeLen(tok.Text))
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: code("(closure) " + types.Widen(t).String())}, Range: &r}
}

func code(s string) string { return "```harn\n" + s + "\n```" }

func (a *analysis) builtinDoc(name string) string {
	if a.sess == nil {
		return ""
	}
	if b := a.sess.Universe.Builtin(name); b != nil {
		return code(b.Sig) + "\n\n" + b.Doc + "\n\n*builtin*"
	}
	if _, ok := a.sess.Universe.Global(name); ok {
		return code(name) + "\n\n*host global*"
	}
	return ""
}

// memberDoc describes the name after `.` of token i: a field of a struct
// receiver, else a method from the builtin method tables (of the
// receiver's kind when the source says it, else of every kind that has
// it).
func (a *analysis) memberDoc(i int) string {
	r, ok := a.receiver(a.toks, i)
	if !ok || a.sess == nil {
		return ""
	}
	name := a.toks[i].Text
	st, kind := a.receiverType(a.toks, r)
	if st != "" {
		if n, ok := a.typeNamed(st, ""); ok {
			for _, f := range n.decl.(*syntax.StructDecl).Fields {
				if f.Name == name {
					t := ""
					if f.Type != nil {
						t = ": " + format.TypeString(f.Type)
					}
					return code("(field) " + st + "." + name + t)
				}
			}
		}
		return ""
	}
	kinds := receiverKinds
	if kind != "" {
		kinds = []string{kind}
	}
	var parts []string
	for _, recv := range kinds {
		if m := a.sess.Universe.Method(recv, name); m != nil {
			parts = append(parts, code("("+recv+" method) "+m.Sig)+"\n\n"+m.Doc)
		}
	}
	return strings.Join(parts, "\n\n---\n\n")
}

// bindingDoc describes a declared name: its declaration's first line and
// its doc comment.
func (a *analysis) bindingDoc(b *resolve.Binding) string {
	decl := b.Decl
	if p, ok := decl.(*syntax.IdentPattern); ok && b.Kind != resolve.KFor {
		if let := a.letOf(p); let != nil {
			decl = let
		}
	}
	if b.Kind == resolve.KImport && a.mod != nil {
		if m, imp := a.namespaceModule(b.Name); m != nil {
			return namespaceDoc(b.Name, m, imp)
		}
		if _, d, ok := a.mod.ImportedDecl(b.Name); ok && d != nil {
			decl = d
			md := describe(decl, b)
			if imp := a.importOf(b.Name); imp != nil {
				md += "\n\n*imported from* `" + imp.Path + "`"
			}
			return md
		}
	}
	return describeTyped(decl, b, a.inferred(b))
}

// inferred is the type the checker gave b, as hover shows it (literal
// types widened: `let n = 3` is `let n: int`); "" when it is not known
// or any.
func (a *analysis) inferred(b *resolve.Binding) string {
	if a.mod == nil || b == nil {
		return ""
	}
	t, ok := a.mod.BindingType(b)
	if !ok || t == nil || t == types.Unknown || t == types.Any {
		return "" // `let v: any` would read as an annotation
	}
	return types.Widen(t).String()
}

// namespaceDoc describes the namespace import ns: its declaration and the
// names the module exports.
func namespaceDoc(ns string, m *interp.Module, imp *syntax.ImportDecl) string {
	md := code("import * as " + ns + " from " + strconv.Quote(imp.Path))
	exports := m.Exports()
	sort.Strings(exports)
	if len(exports) > 0 {
		md += "\n\n*exports* `" + strings.Join(exports, "`, `") + "`"
	}
	return md
}

// importOf is the import declaration that names name.
func (a *analysis) importOf(name string) *syntax.ImportDecl {
	if a.file == nil {
		return nil
	}
	for _, it := range a.file.Items {
		if d, ok := it.(*syntax.ImportDecl); ok {
			for _, n := range d.Names {
				if n.Name == name {
					return d
				}
			}
		}
	}
	return nil
}

func describe(n syntax.Node, b *resolve.Binding) string { return describeTyped(n, b, "") }

// describeTyped is describe for a binding whose type the checker
// inferred as typ (a Harn type, "" when unknown): a name written without
// an annotation shows it, `let n: int`, `(parameter) x: string`.
func describeTyped(n syntax.Node, b *resolve.Binding, typ string) string {
	if typ != "" {
		typ = ": " + typ
	}
	switch d := n.(type) {
	case *syntax.FnDecl:
		return withDoc(code(Signature(d)), d.Doc)
	case *syntax.ToolDecl:
		return withDoc(code("tool "+d.Name+params(d.Params)+ret(d.Return)), d.Doc)
	case *syntax.PipelineDecl:
		return withDoc(code("pipeline "+d.Name+params(d.Params)+ret(d.Return)), d.Doc)
	case *syntax.StructDecl:
		var fs []string
		for _, f := range d.Fields {
			t := ""
			if f.Type != nil {
				t = ": " + format.TypeString(f.Type)
			}
			opt := ""
			if f.Optional {
				opt = "?"
			}
			fs = append(fs, "  "+f.Name+opt+t)
		}
		return withDoc(code("struct "+d.Name+" {\n"+strings.Join(fs, "\n")+"\n}"), d.Doc)
	case *syntax.EnumDecl:
		var vs []string
		for _, v := range d.Variants {
			if v.Params != nil {
				vs = append(vs, "  "+v.Name+params(v.Params))
			} else {
				vs = append(vs, "  "+v.Name)
			}
		}
		return withDoc(code("enum "+d.Name+" {\n"+strings.Join(vs, "\n")+"\n}"), d.Doc)
	case *syntax.Param:
		t := typ
		if d.Type != nil {
			t = ": " + format.TypeString(d.Type)
		}
		return code("(parameter) " + d.Name + t)
	case *syntax.InterfaceDecl:
		var ms []string
		for _, m := range d.Methods {
			ms = append(ms, "  fn "+m.Name+params(m.Params)+ret(m.Return))
		}
		return withDoc(code("interface "+d.Name+" {\n"+strings.Join(ms, "\n")+"\n}"), d.Doc)
	case *syntax.TypeDecl:
		return withDoc(code("type "+d.Name+" = "+format.TypeString(d.Type)), d.Doc)
	case *syntax.LetStmt:
		return withDoc(code(letLine(d, b.Name, typ)), d.Doc)
	case *syntax.IdentPattern, *syntax.DictPatItem, *syntax.ListPatItem, *syntax.PairPattern:
		return code("(" + kindWord(b.Kind) + ") " + b.Name + typ)
	}
	if b != nil {
		return code("(" + kindWord(b.Kind) + ") " + b.Name + typ)
	}
	return ""
}

func kindWord(k resolve.Kind) string {
	switch k {
	case resolve.KLet:
		return "let"
	case resolve.KVar:
		return "var"
	case resolve.KConst:
		return "const"
	case resolve.KParam:
		return "parameter"
	case resolve.KFor:
		return "loop variable"
	case resolve.KCatch:
		return "caught error"
	case resolve.KMatch:
		return "match binding"
	case resolve.KFn:
		return "function"
	case resolve.KImport:
		return "import"
	}
	return "name"
}

func withDoc(sig, doc string) string {
	if strings.TrimSpace(doc) == "" {
		return sig
	}
	return sig + "\n\n" + strings.TrimSpace(doc)
}

// Signature is a function declaration's first line.
func Signature(d *syntax.FnDecl) string {
	s := "fn " + d.Name
	if d.Pub {
		s = "pub " + s
	}
	if len(d.TypeParams) > 0 {
		var tps []string
		for _, tp := range d.TypeParams {
			tps = append(tps, tp.Name)
		}
		s += "<" + strings.Join(tps, ", ") + ">"
	}
	return s + params(d.Params) + ret(d.Return)
}

func paramList(ps []*syntax.Param) []string {
	var out []string
	for _, p := range ps {
		s := p.Name
		if p.Rest {
			s = "..." + s
		}
		if p.Type != nil {
			s += ": " + format.TypeString(p.Type)
		}
		if p.Default != nil {
			s += " = …"
		}
		out = append(out, s)
	}
	return out
}

func params(ps []*syntax.Param) string { return "(" + strings.Join(paramList(ps), ", ") + ")" }

func ret(t syntax.TypeExpr) string {
	if t == nil {
		return ""
	}
	return " -> " + format.TypeString(t)
}

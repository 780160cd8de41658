package lsp

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/stdlib/std"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// This file lists names: document and workspace symbols, completion
// candidates and signature help.

// ---- symbols ----

type symbol struct {
	name     string
	kind     protocol.SymbolKind
	detail   string
	start    syntax.Pos // of the whole declaration
	end      syntax.Pos // just after it
	namePos  syntax.Pos
	children []symbol
}

// fileSymbols lists a file's top-level declarations, with struct fields,
// enum variants and impl methods as children.
func fileSymbols(f *syntax.File, toks []syntax.Token) []symbol {
	var out []symbol
	ends := itemEnds(f.Items, toks)
	for i, it := range f.Items {
		start, end := it.Position(), ends[i]
		switch d := it.(type) {
		case *syntax.FnDecl:
			out = append(out, symbol{name: d.Name, kind: protocol.SymbolKindFunction, detail: Signature(d), start: start, end: end, namePos: d.NamePos})
		case *syntax.ToolDecl:
			out = append(out, symbol{name: d.Name, kind: protocol.SymbolKindFunction, detail: "tool", start: start, end: end, namePos: d.NamePos})
		case *syntax.PipelineDecl:
			out = append(out, symbol{name: d.Name, kind: protocol.SymbolKindFunction, detail: "pipeline", start: start, end: end, namePos: d.NamePos})
		case *syntax.StructDecl:
			s := symbol{name: d.Name, kind: protocol.SymbolKindStruct, start: start, end: end, namePos: d.NamePos}
			for _, fd := range d.Fields {
				s.children = append(s.children, symbol{name: fd.Name, kind: protocol.SymbolKindField, start: fd.At, end: syntax.Pos{Line: fd.At.Line, Col: fd.At.Col + runeLen(fd.Name)}, namePos: fd.At})
			}
			out = append(out, s)
		case *syntax.EnumDecl:
			s := symbol{name: d.Name, kind: protocol.SymbolKindEnum, start: start, end: end, namePos: d.NamePos}
			for _, v := range d.Variants {
				s.children = append(s.children, symbol{name: v.Name, kind: protocol.SymbolKindEnumMember, start: v.At, end: syntax.Pos{Line: v.At.Line, Col: v.At.Col + runeLen(v.Name)}, namePos: v.At})
			}
			out = append(out, s)
		case *syntax.SkillDecl:
			out = append(out, symbol{name: d.Name, kind: protocol.SymbolKindObject, detail: "skill", start: start, end: end, namePos: nameAfter(toks, d.At, d.Name)})
		case *syntax.InterfaceDecl:
			out = append(out, symbol{name: d.Name, kind: protocol.SymbolKindInterface, start: start, end: end, namePos: d.NamePos})
		case *syntax.TypeDecl:
			out = append(out, symbol{name: d.Name, kind: protocol.SymbolKindTypeParameter, start: start, end: end, namePos: d.NamePos})
		case *syntax.ImplBlock:
			s := symbol{name: "impl " + d.Name, kind: protocol.SymbolKindClass, start: start, end: end, namePos: d.NamePos}
			for _, m := range d.Methods {
				s.children = append(s.children, symbol{name: m.Name, kind: protocol.SymbolKindMethod, detail: Signature(m), start: m.At, end: m.Body.End, namePos: m.NamePos})
			}
			out = append(out, s)
		case *syntax.LetStmt:
			kind := protocol.SymbolKindVariable
			if d.Kind == syntax.BindConst {
				kind = protocol.SymbolKindConstant
			}
			syntax.PatternNames(d.Pattern, func(name string, n syntax.Node) {
				out = append(out, symbol{name: name, kind: kind, start: start, end: end, namePos: n.Position()})
			})
		}
	}
	return out
}

// itemEnds computes where each top-level item ends: after the last code
// token before the next item.
func itemEnds(items []syntax.Stmt, toks []syntax.Token) []syntax.Pos {
	ends := make([]syntax.Pos, len(items))
	idx := map[syntax.Pos]int{}
	for i, t := range toks {
		idx[t.Pos] = i
	}
	for i := range items {
		next := len(toks) - 1
		if i+1 < len(items) {
			if j, ok := idx[items[i+1].Position()]; ok {
				next = j
			}
		}
		end := items[i].Position()
		for j := next - 1; j >= 0; j-- {
			if k := toks[j].Kind; k != syntax.TokComment && k != syntax.TokDoc && k != syntax.TokNewline {
				end = toks[j].End()
				break
			}
		}
		ends[i] = end
	}
	return ends
}

func nameAfter(toks []syntax.Token, from syntax.Pos, name string) syntax.Pos {
	for _, t := range toks {
		if !before(t.Pos, from) && t.Kind == syntax.TokIdent && t.Text == name {
			return t.Pos
		}
	}
	return from
}

func toDocumentSymbols(lines []string, syms []symbol) []protocol.DocumentSymbol {
	out := []protocol.DocumentSymbol{}
	for _, s := range syms {
		ds := protocol.DocumentSymbol{Name: s.name, Kind: s.kind,
			Range:          protocol.Range{Start: toPosition(lines, s.start), End: toPosition(lines, s.end)},
			SelectionRange: rangeOf(lines, s.namePos, runeLen(strings.TrimPrefix(s.name, "impl ")))}
		if s.detail != "" {
			d := s.detail
			ds.Detail = &d
		}
		if len(s.children) > 0 {
			ds.Children = toDocumentSymbols(lines, s.children)
		}
		out = append(out, ds)
	}
	return out
}

func (s *Server) documentSymbols(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	_, a := s.current(p.TextDocument.URI)
	if a == nil || a.file == nil {
		return []protocol.DocumentSymbol{}, nil
	}
	return toDocumentSymbols(splitLines(a.text), fileSymbols(a.file, a.toks)), nil
}

// ---- completion ----

var keywordList = strings.Fields(`break catch const continue deadline defer else emit enum eval_pack false finally fn
	for from guard if impl import in interface let match mutex nil parallel pipeline pub require retry return select
	spawn struct throw throws tool true try type var while yield`)

func (s *Server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, a := s.current(p.TextDocument.URI)
	if d == nil {
		return []protocol.CompletionItem{}, nil
	}
	s.mu.Lock()
	text := d.text
	s.mu.Unlock()
	lines := splitLines(text)
	pos := fromPosition(lines, p.Position)
	off := offsetOf(lines, p.Position)
	switch where, start := syntax.WhereAt(text, off); where {
	case syntax.InComment:
		return []protocol.CompletionItem{}, nil
	case syntax.InString:
		// only the path of an import is completed
		if text[start] == '"' && importsFrom(text[:start]) {
			typed := protocol.Range{Start: p.Position, End: p.Position}
			if from := strings.LastIndexByte(text[:off], '\n') + 1; start+1 >= from {
				typed.Start.Character = protocol.UInteger(len(utf16.Encode([]rune(text[from : start+1]))))
			}
			return s.importCompletions(d.path, text[start+1:off], typed), nil
		}
		return []protocol.CompletionItem{}, nil
	}
	if c := p.Context; c != nil && c.TriggerKind == protocol.CompletionTriggerKindTriggerCharacter &&
		c.TriggerCharacter != nil && *c.TriggerCharacter != "." {
		// `"` and `/` trigger completion of import paths only: in code a
		// `/` divides (or starts a comment)
		return []protocol.CompletionItem{}, nil
	}
	line := ""
	if pos.Line-1 < len(lines) {
		r := []rune(lines[pos.Line-1])
		line = string(r[:min(pos.Col-1, len(r))])
	}
	// after `.`: enum variants, or methods
	trimmed := strings.TrimRightFunc(line, isWordRune)
	if strings.HasSuffix(trimmed, ".") {
		// `q.`, `q?.` and `q!.` (the non-null assertion) complete q's members
		recv := strings.TrimRight(strings.TrimSuffix(trimmed, "."), "?!")
		recvName := lastWord(recv)
		if _, known := a.enumNamed(recvName); !known {
			// an enum of the text being typed, which no analysis parsed
			s.mu.Lock()
			cur := d.cur
			s.mu.Unlock()
			if cur != nil {
				if vs := scannedVariants(cur.toks, recvName); vs != nil {
					return vs, nil
				}
			}
		}
		if a == nil {
			return []protocol.CompletionItem{}, nil
		}
		return a.memberCompletions(recvName, pos), nil
	}
	if a == nil {
		return []protocol.CompletionItem{}, nil
	}
	return a.scopeCompletions(pos), nil
}

// importPrefix matches the text of an import declaration up to its path
// string: `import`, `import { a, b } from`, `import * as ns from`.
var importPrefix = regexp.MustCompile(`^import\s*(?:(?:\{[\w\s,]*\}|\*\s*as\s+\w+)\s*from\s*)?$`)

// importsFrom reports whether a string literal after before is the path
// of an import declaration.
func importsFrom(before string) bool {
	i := strings.LastIndex(before, "import")
	return i >= 0 && (i == 0 || !isWordRune(rune(before[i-1]))) && importPrefix.MatchString(before[i:])
}

func isWordRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127
}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return !isWordRune(r) })
	return s[i+1:]
}

func item(label string, kind protocol.CompletionItemKind, detail, doc string) protocol.CompletionItem {
	it := protocol.CompletionItem{Label: label, Kind: &kind}
	if detail != "" {
		it.Detail = &detail
	}
	if doc != "" {
		it.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}
	}
	return it
}

// scopeCompletions offers the names visible at pos: locals of the
// enclosing functions declared before it, globals and imports, builtins,
// keywords.
func (a *analysis) scopeCompletions(pos syntax.Pos) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	seen := map[string]bool{}
	add := func(it protocol.CompletionItem) {
		if !seen[it.Label] && it.Label != "_" {
			seen[it.Label] = true
			out = append(out, it)
		}
	}
	if a.info != nil {
		for node, fn := range a.info.Funcs {
			if !encloses(node, pos) {
				continue
			}
			for _, b := range fn.Locals {
				if b.Kind == resolve.KHidden || !before(b.Pos, pos) {
					continue
				}
				add(item(b.Name, completionKind(b), kindWord(b.Kind), ""))
			}
		}
		for _, b := range a.info.Globals {
			if b.Decl == nil && b.Kind != resolve.KImport {
				continue
			}
			detail := kindWord(b.Kind)
			if fd, ok := b.Decl.(*syntax.FnDecl); ok {
				detail = Signature(fd)
			}
			add(item(b.Name, completionKind(b), detail, ""))
		}
	}
	if a.file != nil {
		// the resolver binds no name for enums, interfaces and type aliases
		for _, it := range a.file.Items {
			if isTypeDecl(it) {
				add(typeItem(it))
			}
		}
	}
	if a.sess != nil {
		for _, name := range a.sess.Universe.BuiltinNames() {
			if strings.HasPrefix(name, "__") {
				continue // runtime hooks of the compiler
			}
			b := a.sess.Universe.Builtin(name)
			add(item(name, protocol.CompletionItemKindFunction, b.Sig, b.Doc))
		}
		for _, name := range a.sess.Universe.GlobalNames() {
			add(item(name, protocol.CompletionItemKindVariable, "host global", ""))
		}
	}
	for _, k := range keywordList {
		add(item(k, protocol.CompletionItemKindKeyword, "", ""))
	}
	return out
}

// typeItem is the completion item of a type declaration.
func typeItem(d syntax.Node) protocol.CompletionItem {
	switch d.(type) {
	case *syntax.StructDecl:
		return item(declName(d), protocol.CompletionItemKindStruct, "struct", describe(d, nil))
	case *syntax.EnumDecl:
		return item(declName(d), protocol.CompletionItemKindEnum, "enum", describe(d, nil))
	case *syntax.InterfaceDecl:
		return item(declName(d), protocol.CompletionItemKindInterface, "interface", describe(d, nil))
	}
	return item(declName(d), protocol.CompletionItemKindTypeParameter, "type", describe(d, nil))
}

// encloses reports whether a function node's body contains pos.
func encloses(n syntax.Node, pos syntax.Pos) bool {
	var body *syntax.Block
	switch d := n.(type) {
	case *syntax.File:
		return true
	case *syntax.FnDecl:
		body = d.Body
	case *syntax.ClosureLit:
		body = d.Body
	case *syntax.PipelineDecl:
		body = d.Body
	case *syntax.ToolDecl:
		body = d.Body
	}
	return body != nil && !before(pos, body.At) && !before(body.End, pos)
}

func completionKind(b *resolve.Binding) protocol.CompletionItemKind {
	switch b.Kind {
	case resolve.KFn, resolve.KTool, resolve.KPipeline:
		return protocol.CompletionItemKindFunction
	case resolve.KStruct:
		return protocol.CompletionItemKindStruct
	case resolve.KEnum:
		return protocol.CompletionItemKindEnum
	case resolve.KConst:
		return protocol.CompletionItemKindConstant
	case resolve.KImport:
		return protocol.CompletionItemKindReference
	}
	return protocol.CompletionItemKindVariable
}

// memberCompletions offers what may follow `recv.` at pos: an enum's
// variants, the exports of a namespace import, a struct's fields and impl
// methods when recv is annotated or inferred as a struct, otherwise the
// builtin methods (of recv's kind when the checker knows it).
func (a *analysis) memberCompletions(recv string, pos syntax.Pos) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	kinds := receiverKinds
	if recv != "" {
		if e, ok := a.enumNamed(recv); ok {
			for _, v := range e.Variants {
				detail := e.Name + "." + v.Name
				if v.Params != nil {
					detail += params(v.Params)
				}
				out = append(out, item(v.Name, protocol.CompletionItemKindEnumMember, detail, ""))
			}
			return out
		}
		if m, _ := a.namespaceModule(recv); m != nil {
			exports := m.Exports()
			sort.Strings(exports)
			for _, name := range exports {
				if _, d, ok := m.Exported(name); ok && d != nil {
					b := &resolve.Binding{Name: name, Kind: resolve.KImport}
					out = append(out, item(name, exportKind(d), "", describe(d, b)))
				}
			}
			return out
		}
		b := a.bindingBefore(recv, pos)
		inferred := a.inferredStruct(b)
		st := a.structOf(recv)
		if st != nil {
			for _, f := range st.Fields {
				out = append(out, item(f.Name, protocol.CompletionItemKindField, st.Name+"."+f.Name, ""))
			}
		} else if inferred != nil {
			for _, f := range inferred.Fields {
				out = append(out, item(f.Name, protocol.CompletionItemKindField, inferred.Name+"."+f.Name+": "+f.Type.String(), f.Doc))
			}
		}
		if inferred != nil {
			for _, m := range inferred.Methods {
				out = append(out, item(m.Name, protocol.CompletionItemKindMethod, "("+inferred.Name+" method) "+withoutSelf(m).String(), ""))
			}
		}
		for _, k := range a.dictKeysOf(recv) {
			out = append(out, item(k, protocol.CompletionItemKindField, recv+"."+k, ""))
		}
		switch {
		case st != nil || inferred != nil:
			kinds = nil // a struct has no builtin methods
		case b != nil:
			if _, kind := a.bindingType(b); kind != "" {
				kinds = []string{kind}
			}
		}
	}
	if a.sess != nil {
		seen := map[string]bool{}
		for _, recvKind := range kinds {
			for _, m := range a.sess.Universe.Methods(recvKind) {
				if seen[m.Name] {
					continue
				}
				seen[m.Name] = true
				out = append(out, item(m.Name, protocol.CompletionItemKindMethod, "("+recvKind+" method) "+m.Sig, m.Doc))
			}
		}
	}
	return out
}

// bindingBefore is the binding named name declared nearest before pos
// (completion reads the receiver by name: the text being typed has not
// been analysed), nil when there is none. Two functions may each have a
// local of the name; the one above the cursor is the one being used.
func (a *analysis) bindingBefore(name string, pos syntax.Pos) *resolve.Binding {
	var found *resolve.Binding
	for _, b := range a.bindings {
		if b.Name == name && before(b.Pos, pos) && (found == nil || before(found.Pos, b.Pos)) {
			found = b
		}
	}
	return found
}

// withoutSelf is an impl method's signature as a caller sees it, without
// its leading `self`.
func withoutSelf(m types.Method) *types.Func {
	if len(m.Type.Params) > 0 && m.Type.Params[0].Name == "self" {
		f := *m.Type
		f.Params = f.Params[1:]
		return &f
	}
	return m.Type
}

// exportKind is the completion kind of a module's exported declaration.
func exportKind(d syntax.Node) protocol.CompletionItemKind {
	switch d.(type) {
	case *syntax.FnDecl, *syntax.ToolDecl, *syntax.PipelineDecl:
		return protocol.CompletionItemKindFunction
	case *syntax.LetStmt:
		return protocol.CompletionItemKindVariable
	}
	if isTypeDecl(d) {
		return *typeItem(d).Kind
	}
	return protocol.CompletionItemKindReference
}

// enumNamed is the enum a name stands for, declared in the file or
// imported (a may be nil).
func (a *analysis) enumNamed(name string) (*syntax.EnumDecl, bool) {
	if a == nil || name == "" {
		return nil, false
	}
	n, ok := a.typeNamed(name, "")
	e, isEnum := n.decl.(*syntax.EnumDecl)
	return e, ok && isEnum
}

// scannedVariants offers the variants of `enum name { … }` found in the
// tokens of a text that does not parse: the names that start an item
// (after `{`, `,` or a line break) inside the enum's braces. It is nil
// when the tokens declare no such enum.
func scannedVariants(toks []syntax.Token, name string) []protocol.CompletionItem {
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].Kind != syntax.TokKeyword || toks[i].Text != "enum" || toks[i+1].Text != name || toks[i+2].Text != "{" {
			continue
		}
		out := []protocol.CompletionItem{}
		depth := 0
		for j := i + 2; j < len(toks); j++ {
			t := toks[j]
			switch {
			case t.Kind == syntax.TokPunct && strings.Contains("{([", t.Text):
				depth++
			case t.Kind == syntax.TokPunct && strings.Contains("})]", t.Text):
				depth--
			case t.Kind == syntax.TokIdent && depth == 1:
				if p := toks[j-1]; p.Kind == syntax.TokNewline || p.Text == "{" || p.Text == "," {
					out = append(out, item(t.Text, protocol.CompletionItemKindEnumMember, name+"."+t.Text, ""))
				}
			}
			if depth == 0 {
				break
			}
		}
		return out
	}
	return nil
}

// nameLike reports whether s may follow a `.` (an identifier or a
// keyword, docs/spec/newer.md §1.1).
func nameLike(s string) bool {
	for i, r := range s {
		if !isWordRune(r) || i == 0 && r >= '0' && r <= '9' {
			return false
		}
	}
	return s != ""
}

// dictKeysOf lists the keys that may follow `name.` (`finally` in
// `{finally: 1}`, keywords included) of the dict literal the variable
// name is initialised with, when it is never reassigned.
func (a *analysis) dictKeysOf(name string) []string {
	var keys []string
	for _, b := range a.bindings {
		p, ok := b.Decl.(*syntax.IdentPattern)
		if b.Name != name || !ok || b.Reassign || b.Kind == resolve.KFor {
			continue
		}
		let := a.letOf(p)
		if let == nil {
			continue
		}
		if d, ok := let.Value.(*syntax.DictLit); ok {
			for _, e := range d.Entries {
				// a name, or a string that spells one (`"id": 1`)
				named := e.KeyName != "" && (!e.KeyIsString || nameLike(e.KeyName))
				if named && !slices.Contains(keys, e.KeyName) {
					keys = append(keys, e.KeyName)
				}
			}
		}
	}
	return keys
}

// structOf finds the struct a parameter or variable is annotated with,
// or the struct literal a variable never reassigned starts as (`let p =
// Point { … }`, `geo.Point { … }`), declared in the file or imported.
func (a *analysis) structOf(name string) *syntax.StructDecl {
	var typeName, ns string
	for _, b := range a.bindings {
		if b.Name != name {
			continue
		}
		switch d := b.Decl.(type) {
		case *syntax.Param:
			typeName, _ = a.typeKind(d.Type) // `q: Point`, and `q: Point?` for `q!.` and `q?.`
		case *syntax.IdentPattern:
			let := a.letOf(d)
			if let == nil || b.Kind == resolve.KFor {
				continue
			}
			if let.Type != nil {
				typeName, _ = a.typeKind(let.Type)
			} else if lit, ok := let.Value.(*syntax.StructLit); ok && !b.Reassign {
				typeName = lit.Name
				if lit.NS != nil {
					ns = lit.NS.Name
				}
			}
		}
	}
	if n, ok := a.typeNamed(typeName, ns); ok && typeName != "" {
		st, _ := n.decl.(*syntax.StructDecl)
		return st
	}
	return nil
}

// importCompletions offers the embedded std modules and .harn files
// relative to the importing file's directory. Each item replaces typed,
// the whole path typed so far (editors would replace only the word
// before the cursor, after the last `/`), and filters on the whole path.
func (s *Server) importCompletions(path, prefix string, typed protocol.Range) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	add := func(label string, kind protocol.CompletionItemKind, detail string) {
		it := item(label, kind, detail, "")
		it.TextEdit = protocol.TextEdit{Range: typed, NewText: label}
		it.FilterText = &label
		out = append(out, it)
	}
	for _, name := range std.Names() {
		if m := "std/" + name; strings.HasPrefix(m, prefix) {
			add(m, protocol.CompletionItemKindModule, "standard module")
		}
	}
	dir := filepath.Dir(path)
	sub, base := filepath.Split(prefix)
	entries, _ := os.ReadDir(filepath.Join(dir, sub))
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasPrefix(name, base) {
			continue
		}
		switch {
		case e.IsDir():
			add(sub+name+"/", protocol.CompletionItemKindFolder, "")
		case strings.HasSuffix(name, ".harn") && filepath.Join(dir, sub, name) != path:
			add(sub+strings.TrimSuffix(name, ".harn"), protocol.CompletionItemKindFile, "module")
		}
	}
	return out
}

// ---- signature help ----

func (s *Server) signatureHelp(_ *glsp.Context, p *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	d, a := s.current(p.TextDocument.URI)
	if d == nil || a == nil {
		return nil, nil
	}
	s.mu.Lock()
	text := d.text
	s.mu.Unlock()
	lines := splitLines(text)
	pos := fromPosition(lines, p.Position)
	toks, _ := syntax.Scan(d.path, []byte(text))
	if toks == nil {
		toks = a.toks
	}
	// Walk back to the unmatched `(` before the cursor.
	depth, commas := 0, 0
	i := len(toks) - 1
	for i >= 0 && !before(toks[i].Pos, pos) {
		i--
	}
	for ; i >= 0; i-- {
		t := toks[i]
		if t.Kind != syntax.TokPunct {
			continue
		}
		switch t.Text {
		case ")", "]", "}":
			depth++
		case "[":
			if depth == 0 {
				// inside a list (or index) that is one argument: the
				// commas met so far separate its items
				commas = 0
				continue
			}
			depth--
		case "{":
			if depth == 0 {
				return nil, nil // a block or closure body: its own code
			}
			depth--
		case ",":
			if depth == 0 {
				commas++
			}
		case "(":
			if depth > 0 {
				depth--
				continue
			}
			if i == 0 || toks[i-1].Kind != syntax.TokIdent {
				return nil, nil
			}
			name := toks[i-1].Text
			var label, doc string
			var ps []string
			if i >= 2 && (toks[i-2].Text == "." || toks[i-2].Text == "?.") {
				label, ps, doc = a.methodSignature(toks, i-1, a.text == text)
			} else {
				label, ps, doc = a.signatureOf(name)
			}
			if label == "" {
				return nil, nil
			}
			info := protocol.SignatureInformation{Label: label}
			if doc != "" {
				info.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}
			}
			for _, prm := range ps {
				info.Parameters = append(info.Parameters, protocol.ParameterInformation{Label: prm})
			}
			active := protocol.UInteger(commas)
			if n := len(ps); n > 0 && commas >= n {
				active = protocol.UInteger(n - 1)
			}
			zero := protocol.UInteger(0)
			return &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{info}, ActiveSignature: &zero, ActiveParameter: &active}, nil
		}
	}
	return nil, nil
}

// signatureOf returns a function's label, parameter labels and doc.
func (a *analysis) signatureOf(name string) (string, []string, string) {
	for _, b := range a.bindings {
		if b.Name != name {
			continue
		}
		decl := b.Decl
		if b.Kind == resolve.KImport && a.mod != nil {
			if _, d, ok := a.mod.ImportedDecl(name); ok {
				decl = d
			}
		}
		if fd, ok := decl.(*syntax.FnDecl); ok {
			return Signature(fd), paramList(fd.Params), fd.Doc
		}
	}
	if a.sess != nil {
		if b := a.sess.Universe.Builtin(name); b != nil {
			return b.Sig, sigParams(b.Sig), b.Doc
		}
	}
	return "", nil, ""
}

// sigParams splits the parameters of a builtin signature "f(a, b?)".
func sigParams(sig string) []string {
	open, close := strings.IndexByte(sig, '('), strings.LastIndexByte(sig, ')')
	if open < 0 || close <= open+1 {
		return nil
	}
	var out []string
	for _, p := range strings.Split(sig[open+1:close], ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

package lsp

import (
	"io"
	"strings"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/format"
	"github.com/harnlang/harn/lang/lint"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// This file produces edits (formatting, lint fixes) and the token-level
// views of a document (semantic tokens, folding ranges).

// fixAllKind is the code action kind of "apply every lint fix".
const fixAllKind protocol.CodeActionKind = "source.fixAll.harn"

// replaceAll is the edit turning text into out: one edit replacing the
// lines between those the two have in common at the start and at the end,
// so an editor keeps its cursor, marks and folds on the lines that did
// not change.
func replaceAll(text, out string) []protocol.TextEdit {
	if text == out {
		return []protocol.TextEdit{}
	}
	old, now := splitLines(text), splitLines(out)
	n := min(len(old), len(now))
	p := 0
	for p < n-1 && old[p] == now[p] {
		p++
	}
	k := 0 // lines in common at the end
	for k < n-p && old[len(old)-1-k] == now[len(now)-1-k] {
		k++
	}
	start := protocol.Position{Line: protocol.UInteger(p)}
	if k == 0 {
		// the last line changes: the edit runs to the end of the text
		end := wholeRange(text).End
		return []protocol.TextEdit{{Range: protocol.Range{Start: start, End: end}, NewText: strings.Join(now[p:], "\n")}}
	}
	var b strings.Builder
	for _, l := range now[p : len(now)-k] {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	end := protocol.Position{Line: protocol.UInteger(len(old) - k)}
	return []protocol.TextEdit{{Range: protocol.Range{Start: start, End: end}, NewText: b.String()}}
}

func (s *Server) text(uri string) (*document, string) {
	d := s.doc(uri)
	if d == nil {
		return nil, ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return d, d.text
}

func (s *Server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	d, text := s.text(p.TextDocument.URI)
	if d == nil {
		return nil, nil
	}
	if s.cancelled() {
		return nil, errCancelled
	}
	out, err := format.Source(d.path, []byte(text))
	if err != nil {
		return nil, nil // a file that does not parse is left as it is
	}
	if s.cancelled() {
		// the client no longer wants the edit (it may have changed the
		// text meanwhile)
		return nil, errCancelled
	}
	return replaceAll(text, string(out)), nil
}

// onTypeFormatting formats the document after `}`, when it parses. After
// a line break it only indents the new line: formatting the whole
// document then would delete the blank line being typed on.
func (s *Server) onTypeFormatting(ctx *glsp.Context, p *protocol.DocumentOnTypeFormattingParams) ([]protocol.TextEdit, error) {
	if p.Ch == "\n" {
		_, text := s.text(p.TextDocument.URI)
		return indentLine(text, int(p.Position.Line)), nil
	}
	return s.formatting(ctx, &protocol.DocumentFormattingParams{TextDocument: p.TextDocument})
}

// indentUnit is one level of harn fmt's indentation (lang/format).
const indentUnit = "  "

// indentLine gives line (from 0) of text the indentation harn fmt gives
// a line at its bracket depth: one level per bracket open before it, one
// less when the line starts with a closing bracket. A line inside a
// multi-line string or comment, or after text that does not scan, is
// left alone.
func indentLine(text string, line int) []protocol.TextEdit {
	lines := splitLines(text)
	if line >= len(lines) {
		return []protocol.TextEdit{}
	}
	end := 0
	for _, l := range lines[:line+1] {
		end += len(l) + 1
	}
	toks, err := syntax.Scan("", []byte(text[:min(end, len(text))]))
	if err != nil {
		return []protocol.TextEdit{}
	}
	depth := 0
	for _, t := range toks {
		if t.Pos.Line-1 < line {
			if t.End().Line-1 >= line && t.Kind != syntax.TokNewline && t.Kind != syntax.TokEOF {
				return []protocol.TextEdit{} // a token across the line's start
			}
			if t.Kind == syntax.TokPunct {
				switch t.Text {
				case "{", "[", "(":
					depth++
				case "}", "]", ")":
					depth--
				}
			}
			continue
		}
		if t.Kind == syntax.TokPunct && t.Pos.Line-1 == line && strings.Contains("}])", t.Text) {
			depth--
		}
		break
	}
	cur := lines[line]
	ws := cur[:len(cur)-len(strings.TrimLeft(cur, " \t"))]
	want := strings.Repeat(indentUnit, max(depth, 0))
	if ws == want {
		return []protocol.TextEdit{}
	}
	return []protocol.TextEdit{{Range: protocol.Range{Start: protocol.Position{Line: protocol.UInteger(line)},
		End: protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(len(ws))}}, NewText: want}}
}

// analyzer is the lint.Analyzer of a document: its imports load from
// disk, and a version with errors is refused, as harn lint --fix refuses
// it, so no fix is offered for a file that does not check nor one whose
// result would not.
func analyzer(path string) lint.Analyzer {
	return func(src []byte) (*syntax.File, *resolve.Info, error) {
		m, diags := interp.NewSession(interp.Options{Stdout: io.Discard, Stderr: io.Discard}).Analyze(path, src)
		for _, d := range diags {
			if d.Severity == diag.SevError {
				return nil, nil, diags
			}
		}
		if m == nil {
			return nil, nil, diags
		}
		return m.Syntax, m.Info, nil
	}
}

// codeAction offers each lint fix in the range as a quick fix, and all of
// them as source.fixAll.harn.
func (s *Server) codeAction(_ *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	d, a := s.current(p.TextDocument.URI)
	out := []protocol.CodeAction{}
	if d == nil || a == nil || a.text != d.text {
		return out, nil
	}
	want := func(k protocol.CodeActionKind) bool {
		if len(p.Context.Only) == 0 {
			return true
		}
		for _, o := range p.Context.Only {
			if o == k || strings.HasPrefix(string(k), string(o)+".") {
				return true
			}
		}
		return false
	}
	lines := splitLines(a.text)
	diags := a.diagnostics(d.path)
	fixable := 0
	for _, f := range a.findings {
		if !f.HasFix() {
			continue
		}
		fixable++
		r := a.findingRange(lines, f)
		if !want(protocol.CodeActionKindQuickFix) || !overlaps(r, p.Range) {
			continue
		}
		out2, err := lint.FixOne(d.path, []byte(a.text), analyzer(d.path), lint.Options{}, f.Rule.ID, f.Pos)
		if err != nil {
			continue
		}
		kind := protocol.CodeActionKindQuickFix
		action := protocol.CodeAction{Title: "Fix: " + f.Fix + " [" + f.Rule.ID + "]", Kind: &kind,
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{d.uri: replaceAll(a.text, string(out2))}}}
		for _, pd := range diags {
			if pd.Code != nil && pd.Code.Value == f.Rule.ID && pd.Range.Start == r.Start {
				action.Diagnostics = append(action.Diagnostics, pd)
			}
		}
		out = append(out, action)
	}
	if fixable > 0 && want(fixAllKind) {
		if fixed, _, err := lint.Fix(d.path, []byte(a.text), analyzer(d.path), lint.Options{}); err == nil {
			kind := fixAllKind
			out = append(out, protocol.CodeAction{Title: "Fix all harn lint findings", Kind: &kind,
				Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{d.uri: replaceAll(a.text, string(fixed))}}})
		}
	}
	return out, nil
}

func overlaps(a, b protocol.Range) bool {
	return !posBefore(a.End, b.Start) && !posBefore(b.End, a.Start)
}

func posBefore(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// ---- semantic tokens ----

var tokenTypes = []string{"namespace", "type", "enum", "enumMember", "struct", "parameter", "variable", "property",
	"function", "method", "keyword", "comment", "string", "number", "operator", "typeParameter"}

var tokenModifiers = []string{"declaration", "readonly", "defaultLibrary", "documentation"}

const (
	ttNamespace = iota
	ttType
	ttEnum
	ttEnumMember
	ttStruct
	ttParameter
	ttVariable
	ttProperty
	ttFunction
	ttMethod
	ttKeyword
	ttComment
	ttString
	ttNumber
	ttOperator
	ttTypeParameter
)

const (
	tmDeclaration = 1 << iota
	tmReadonly
	tmDefaultLibrary
	tmDocumentation
)

func (s *Server) semanticTokens(_ *glsp.Context, p *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	d, a := s.current(p.TextDocument.URI)
	if d == nil || a == nil {
		return &protocol.SemanticTokens{Data: []protocol.UInteger{}}, nil
	}
	return &protocol.SemanticTokens{Data: a.semanticTokens()}, nil
}

// semanticTokens classifies every token and encodes them relative to each
// other as the protocol wants (multi-line tokens are split per line).
func (a *analysis) semanticTokens() []protocol.UInteger {
	return a.semanticTokensWith(newLineCursor(splitLines(a.text)))
}

// semanticTokensWith converts the positions of the tokens, in order, with
// at.
func (a *analysis) semanticTokensWith(at *lineCursor) []protocol.UInteger {
	data := []protocol.UInteger{}
	var prevLine, prevChar protocol.UInteger
	roles := a.roles()
	emit := func(p syntax.Pos, text string, typ, mods int) {
		for i, part := range strings.Split(text, "\n") {
			pos := p
			if i > 0 {
				pos = syntax.Pos{Line: p.Line + i, Col: 1}
			}
			if part == "" {
				continue
			}
			start := at.position(pos)
			end := at.position(syntax.Pos{Line: pos.Line, Col: pos.Col + runeLen(part)})
			dl := start.Line - prevLine
			dc := start.Character
			if dl == 0 {
				dc = start.Character - prevChar
			}
			data = append(data, dl, dc, end.Character-start.Character, protocol.UInteger(typ), protocol.UInteger(mods))
			prevLine, prevChar = start.Line, start.Character
		}
	}
	for i, t := range a.toks {
		switch t.Kind {
		case syntax.TokKeyword:
			typ, mods := a.classifyKeyword(i, roles)
			emit(t.Pos, t.Text, typ, mods)
		case syntax.TokComment:
			emit(t.Pos, t.Text, ttComment, 0)
		case syntax.TokDoc:
			emit(t.Pos, t.Text, ttComment, tmDocumentation)
		case syntax.TokString, syntax.TokRaw, syntax.TokInterp:
			emit(t.Pos, t.Text, ttString, 0)
		case syntax.TokInt, syntax.TokFloat, syntax.TokDuration:
			emit(t.Pos, t.Text, ttNumber, 0)
		case syntax.TokPunct:
			switch t.Text {
			case "(", ")", "[", "]", "{", "}", ",", ";", ":", ".", "?.", "@":
			default:
				emit(t.Pos, t.Text, ttOperator, 0)
			}
		case syntax.TokIdent:
			typ, mods := a.classify(i, roles)
			emit(t.Pos, t.Text, typ, mods)
		}
	}
	return data
}

// role is the semantic type (and modifiers) the tree gives the name at a
// position, for the names the resolver does not bind.
type role struct{ typ, mods int }

// roles finds, in the tree, the names whose place says what they are:
// types in annotations (`int`, `list<string>`; a declared struct or enum
// keeps its own type), the fields of struct declarations and literals,
// enum variants and impl methods where they are declared.
func (a *analysis) roles() map[syntax.Pos]role {
	out := map[syntax.Pos]role{}
	if a.file == nil {
		return out
	}
	syntax.Walk(a.file, func(n, _ syntax.Node, _ func(syntax.Node)) bool {
		switch d := n.(type) {
		case *syntax.NamedType:
			switch {
			case a.info != nil && a.info.IsEnum(d.Name):
				out[d.At] = role{ttEnum, 0}
			case a.info != nil && a.info.Struct(d.Name) != nil:
				out[d.At] = role{ttStruct, 0}
			default:
				out[d.At] = role{ttType, 0}
			}
		case *syntax.StructDecl:
			for _, f := range d.Fields {
				out[f.At] = role{ttProperty, tmDeclaration}
			}
		case *syntax.StructLit:
			for _, f := range d.Fields {
				if f.KeyName != "" && !f.KeyIsString {
					out[f.At] = role{ttProperty, 0}
				}
			}
		case *syntax.DictLit:
			for _, e := range d.Entries {
				if e.KeyName != "" && !e.KeyIsString {
					out[e.At] = role{ttProperty, 0}
				}
			}
		case *syntax.ShapeType:
			for _, f := range d.Fields {
				out[f.At] = role{ttProperty, 0}
			}
		case *syntax.EnumDecl:
			for _, v := range d.Variants {
				out[v.At] = role{ttEnumMember, tmDeclaration}
			}
		case *syntax.ImplBlock:
			for _, m := range d.Methods {
				out[m.NamePos] = role{ttMethod, tmDeclaration}
			}
		}
		return true
	})
	// after the annotations: a type parameter is not a type
	for _, u := range a.typeParamUses() {
		mods := 0
		if name := a.typeParamNamePos(u.decl); u.at == name {
			mods = tmDeclaration
			if u.decl.Variance == "out" {
				out[u.decl.At] = role{ttKeyword, 0} // `out` is a word only there
			}
		}
		out[u.at] = role{ttTypeParameter, mods}
	}
	return out
}

// classifyKeyword decides the semantic type of the keyword token i: a
// keyword written as a name (docs/spec/newer.md §1.1) — after `.` or
// `?.`, as a dict key or a shape field (`opts.finally`, `{retry: 3}`) —
// is a property or a method like any name there; otherwise a keyword.
func (a *analysis) classifyKeyword(i int, roles map[syntax.Pos]role) (int, int) {
	if prev := a.sig(i, -1); prev != nil && prev.Kind == syntax.TokPunct && (prev.Text == "." || prev.Text == "?.") {
		if next := a.sig(i, 1); next != nil && next.Text == "(" {
			return ttMethod, 0
		}
		return ttProperty, 0
	}
	if r, ok := roles[a.toks[i].Pos]; ok && r.typ == ttProperty {
		return r.typ, r.mods
	}
	return ttKeyword, 0
}

// classify decides the semantic type of the identifier token i; roles
// are the tree's (a.roles()).
func (a *analysis) classify(i int, roles map[syntax.Pos]role) (int, int) {
	t := a.toks[i]
	prev, next := a.sig(i, -1), a.sig(i, 1)
	if prev != nil && (prev.Text == "." || prev.Text == "?.") && prev.Kind == syntax.TokPunct {
		if pp := a.sig(i-1, -1); pp != nil && a.info != nil && a.info.IsEnum(pp.Text) {
			return ttEnumMember, 0
		}
		if next != nil && next.Text == "(" {
			return ttMethod, 0
		}
		return ttProperty, 0
	}
	if r, ok := roles[t.Pos]; ok && a.identAt[t.Pos] == nil {
		return r.typ, r.mods
	}
	if a.info != nil {
		if id := a.identAt[t.Pos]; id != nil {
			ref := a.info.Refs[id]
			if ref.Binding != nil {
				return bindingType(ref.Binding), bindingMods(ref.Binding)
			}
			if ref.Scope == resolve.Universal {
				if a.sess != nil && a.sess.Universe.Builtin(t.Text) != nil {
					return ttFunction, tmDefaultLibrary
				}
				return ttVariable, tmDefaultLibrary
			}
		}
		if b := a.declAt[t.Pos]; b != nil && b.Name == t.Text {
			return bindingType(b), bindingMods(b) | tmDeclaration
		}
		if a.info.IsEnum(t.Text) {
			return ttEnum, 0
		}
		if a.info.Struct(t.Text) != nil {
			return ttStruct, 0
		}
	}
	if next != nil && next.Text == "(" {
		return ttFunction, 0
	}
	if r := []rune(t.Text); len(r) > 0 && r[0] >= 'A' && r[0] <= 'Z' {
		return ttType, 0
	}
	return ttVariable, 0
}

// sig is the nearest significant token before (dir -1) or after (dir 1)
// token i.
func (a *analysis) sig(i, dir int) *syntax.Token {
	for j := i + dir; j >= 0 && j < len(a.toks); j += dir {
		switch a.toks[j].Kind {
		case syntax.TokComment, syntax.TokDoc, syntax.TokNewline:
			continue
		}
		return &a.toks[j]
	}
	return nil
}

func bindingType(b *resolve.Binding) int {
	switch b.Kind {
	case resolve.KFn, resolve.KTool, resolve.KPipeline:
		return ttFunction
	case resolve.KParam:
		return ttParameter
	case resolve.KStruct:
		return ttStruct
	case resolve.KEnum:
		return ttEnum
	case resolve.KType, resolve.KInterface:
		return ttType
	case resolve.KImport:
		if _, ok := b.Decl.(*syntax.ImportDecl); ok {
			return ttVariable
		}
	}
	return ttVariable
}

func bindingMods(b *resolve.Binding) int {
	if b.Kind == resolve.KConst {
		return tmReadonly
	}
	return 0
}

// ---- folding ----

func (s *Server) foldingRanges(_ *glsp.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	_, a := s.current(p.TextDocument.URI)
	if a == nil {
		return []protocol.FoldingRange{}, nil
	}
	return a.folds(), nil
}

// folds are the bracketed regions and string literals spanning lines,
// multi-line comments and runs of line comments, and runs of imports.
func (a *analysis) folds() []protocol.FoldingRange {
	out := []protocol.FoldingRange{}
	comment, imports := string(protocol.FoldingRangeKindComment), string(protocol.FoldingRangeKindImports)
	add := func(from, to int, kind *string) {
		if to > from {
			out = append(out, protocol.FoldingRange{StartLine: protocol.UInteger(from - 1), EndLine: protocol.UInteger(to - 1), Kind: kind})
		}
	}
	var open []syntax.Token
	runStart, runEnd := 0, 0
	impStart, impEnd := 0, 0
	for _, t := range a.toks {
		switch t.Kind {
		case syntax.TokPunct:
			switch t.Text {
			case "{", "[", "(":
				open = append(open, t)
			case "}", "]", ")":
				if n := len(open); n > 0 {
					add(open[n-1].Pos.Line, t.Pos.Line-1, nil)
					open = open[:n-1]
				}
			}
		case syntax.TokString, syntax.TokRaw, syntax.TokInterp:
			// a multi-line literal folds up to its closing line, as a block
			add(t.Pos.Line, t.End().Line-1, nil)
		case syntax.TokComment, syntax.TokDoc:
			end := t.End().Line
			if end > t.Pos.Line {
				add(t.Pos.Line, end, &comment)
				continue
			}
			if runEnd == t.Pos.Line-1 && runStart > 0 {
				runEnd = t.Pos.Line
			} else {
				add(runStart, runEnd, &comment)
				runStart, runEnd = t.Pos.Line, t.Pos.Line
			}
		case syntax.TokKeyword:
			if t.Text == "import" && t.Pos.Col == 1 {
				if impEnd == t.Pos.Line-1 && impStart > 0 {
					impEnd = t.Pos.Line
				} else {
					add(impStart, impEnd, &imports)
					impStart, impEnd = t.Pos.Line, t.Pos.Line
				}
			}
		}
	}
	add(runStart, runEnd, &comment)
	add(impStart, impEnd, &imports)
	return out
}

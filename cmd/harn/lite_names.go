package main

import (
	"slices"
	"strings"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// How the lite build tells a program it can run from one only harn-full
// can (lite.go). The test is by name and conservative: a program goes to
// harn-full when the code it can reach names a builtin, method, host
// global or harness capability that only the full library defines
// (fullOnlyNames, which TestLiteFullOnlyNames keeps equal to the
// difference of the two libraries). A name counts as an identifier or
// keyword anywhere in the code, as any word of a string literal (a name
// may be looked up from a string), and as a name in the compiled code
// (the compiler calls internal builtins such as __tool_decl for `tool`
// declarations). Whether the name is really the builtin (or a local, a
// field, a word in a message) does not matter: harn-full runs every
// program the same way.
//
// The code a program can reach is all of the entry and of the files it
// imports, and of each std/* module its top-level code and the top-level
// functions a reachable name or string word names (in any module: calls
// across modules are not resolved). So `import { clamp } from "std/math"`
// stays lite though another function of std/math names a full-only
// builtin; the lite build compiles std modules with those builtins
// predeclared (liteStdNames), and nothing calls them. A std module
// imported as a namespace m is reachable whole unless each use of m is
// `m.name` (not `m[name]`, not m passed on) and the import is not pub.
//
// The one lookup by a name the program computes is `x |> f` with f a
// string (docs/spec/language.md §2.8): a program goes to harn-full when
// reachable code pipes into anything but a function it declares, a
// function literal, or a literal name of a lite builtin or of a function
// it declares.

// needsFull reports whether the program entry (with the modules s loaded
// for it) can reach something only the full library defines, or whether
// that cannot be told from what the session kept.
func needsFull(s *interp.Session, entry *interp.Module) bool {
	mods := append(s.Modules(), entry)
	toks := make([][]syntax.Token, len(mods))
	for i, m := range mods {
		src := s.Sources[m.Name]
		if src == nil || m.Program == nil || m.Info == nil {
			return true
		}
		var err error
		if toks[i], err = syntax.Scan(m.Name, src); err != nil {
			return true
		}
	}
	whole := map[*interp.Module]bool{}
	for i, m := range mods {
		whole[m] = whole[m] || m == entry || !strings.HasPrefix(m.Path, "std/") || m.Syntax == nil
		for _, imp := range m.Imports {
			if ns := imp.Decl.Namespace; ns != nil && imp.Module != nil && (imp.Decl.Pub || !dotted(toks[i], ns.Name)) {
				whole[imp.Module] = true
			}
		}
	}
	r := reach{fns: map[string][]*fnSpan{}}
	spans := make([][]*fnSpan, len(mods))
	for i, m := range mods {
		if !whole[m] {
			spans[i] = fnSpans(m, toks[i])
			for _, f := range spans[i] {
				r.fns[f.decl.Name] = append(r.fns[f.decl.Name], f)
			}
		}
	}
	for i := range mods {
		// the tokens outside the spans
		prev := 0
		for _, f := range spans[i] {
			if r.add(toks[i][prev:f.lo]) {
				return true
			}
			prev = f.lo + len(f.toks)
		}
		if r.add(toks[i][prev:]) {
			return true
		}
	}
	for len(r.queue) > 0 {
		f := r.queue[len(r.queue)-1]
		r.queue = r.queue[:len(r.queue)-1]
		if r.add(f.toks) {
			return true
		}
	}

	for i, m := range mods {
		var skip []*fnSpan
		for _, f := range spans[i] {
			if !f.reached {
				skip = append(skip, f)
			}
		}
		declared := func(name string) bool {
			g, ok := m.Info.GlobalIndex[name]
			return ok && m.Info.Globals[g].Kind == resolve.KFn
		}
		known := func(name string) bool { return declared(name) || s.Universe.Builtin(name) != nil }
		for _, fn := range reachableCode(m.Program.Main, skip) {
			if codeNamesFullOnly(fn) || pipesByName(fn, m.Info, known) {
				return true
			}
		}
	}
	return false
}

// dotted reports whether each use of the namespace ns in toks (its
// declaration aside) is followed by `.` or `?.` and a name, so that the
// names taken from it are tokens too; `ns[name]`, or ns passed on as a
// value, may reach any of them.
func dotted(toks []syntax.Token, ns string) bool {
	for i, t := range toks {
		switch t.Kind {
		case syntax.TokIdent, syntax.TokKeyword:
			if t.Text != ns || i >= 2 && toks[i-1].Text == "as" && toks[i-2].Text == "*" {
				continue
			}
			if i+2 >= len(toks) || toks[i+1].Kind != syntax.TokPunct || toks[i+1].Text != "." && toks[i+1].Text != "?." ||
				toks[i+2].Kind != syntax.TokIdent && toks[i+2].Kind != syntax.TokKeyword {
				return false
			}
		case syntax.TokInterp:
			// the code in ${…} is not scanned apart
			used := false
			forWords(t.Text, func(w string) { used = used || w == ns })
			if used {
				return false
			}
		}
	}
	return true
}

// reach follows the names reachable code uses to the std functions they
// may call.
type reach struct {
	fns   map[string][]*fnSpan // the std functions not known reachable, by name
	queue []*fnSpan            // reached functions whose tokens are still to read
}

// add reads reachable tokens: it reports whether one names something
// full-only, and queues the std functions they name.
func (r *reach) add(toks []syntax.Token) bool {
	full := false
	name := func(w string) {
		full = full || isFullOnly(w)
		if fs, ok := r.fns[w]; ok {
			delete(r.fns, w)
			for _, f := range fs {
				f.reached = true
			}
			r.queue = append(r.queue, fs...)
		}
	}
	for _, t := range toks {
		switch t.Kind {
		case syntax.TokIdent, syntax.TokKeyword:
			name(t.Text)
		case syntax.TokString, syntax.TokRaw, syntax.TokInterp:
			forWords(t.Text, name)
		}
		if full {
			return true
		}
	}
	return false
}

// fnSpan is a top-level function of a std module: its declaration and
// its tokens (from `fn` to the closing brace, toks[lo:] of the module's).
type fnSpan struct {
	decl    *syntax.FnDecl
	lo      int
	toks    []syntax.Token
	reached bool
}

// fnSpans lists the top-level functions of m a program reaches only by
// name, in source order, with their tokens out of toks (m's). One with
// attributes may be reached by them, so it is not listed.
func fnSpans(m *interp.Module, toks []syntax.Token) []*fnSpan {
	var spans []*fnSpan
	i := 0
	for _, it := range m.Syntax.Items {
		d, ok := it.(*syntax.FnDecl)
		if !ok || d.Body == nil || len(d.Attrs) > 0 {
			continue
		}
		for i < len(toks) && before(toks[i].Pos, d.At) {
			i++
		}
		lo := i
		for i < len(toks) && !before(d.Body.End, toks[i].Pos) {
			i++
		}
		spans = append(spans, &fnSpan{decl: d, lo: lo, toks: toks[lo:i]})
	}
	return spans
}

func before(a, b syntax.Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

// reachableCode lists main and the functions nested in it, leaving out
// the compiled top-level functions of the unreached spans skip.
func reachableCode(main *compiler.Func, skip []*fnSpan) []*compiler.Func {
	out := []*compiler.Func{main}
	for i := 0; i < len(out); i++ {
		for _, f := range out[i].Funcs {
			if i == 0 && slices.ContainsFunc(skip, func(s *fnSpan) bool { return compiles(s.decl, f) }) {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

// compiles reports whether f is the compiled body of d.
func compiles(d *syntax.FnDecl, f *compiler.Func) bool {
	return f.Name == d.Name && f.Line >= d.At.Line && f.Line <= d.Body.End.Line
}

// sourceNamesFullOnly reports whether any token of a module (comments
// excluded) names something full-only.
func sourceNamesFullOnly(path string, src []byte) bool {
	toks, err := syntax.Scan(path, src)
	if err != nil {
		return true
	}
	var r reach
	return r.add(toks)
}

// codeNamesFullOnly scans a compiled function (not the functions nested
// in it): the names its instructions use and its string constants.
func codeNamesFullOnly(fn *compiler.Func) bool {
	if fn == nil {
		return false
	}
	for _, n := range fn.Names {
		if isFullOnly(n) {
			return true
		}
	}
	for _, c := range fn.Consts {
		switch c := c.(type) {
		case string:
			if wordsFullOnly(c) {
				return true
			}
		case *compiler.PathDesc:
			for _, st := range c.Steps {
				if isFullOnly(st.Prop) {
					return true
				}
			}
		}
	}
	return false
}

// pipesByName reports whether fn (not a function nested in it) pipes
// into a value that may be a string naming what to call (pipes).
func pipesByName(fn *compiler.Func, info *resolve.Info, known func(string) bool) bool {
	code := fn.Code
	var pipes []int32
	prev := -1
	for pc := 0; pc < len(code); pc += 1 + compiler.Info[code[pc]].Operands {
		if op := compiler.Opcode(code[pc]); op == compiler.PIPE || op == compiler.PIPE_CALLEE {
			if prev < 0 || !pipesToFunction(fn, code[prev:], info, known) {
				return true
			}
			pipes = append(pipes, int32(pc))
		}
		prev = pc
	}
	if len(pipes) > 0 {
		// Reached by a jump, a pipe's callee may come from another
		// branch; any operand equal to its address may be a jump target.
		for pc := 0; pc < len(code); pc += 1 + compiler.Info[code[pc]].Operands {
			for _, x := range code[pc+1 : pc+1+compiler.Info[code[pc]].Operands] {
				if slices.Contains(pipes, x) {
					return true
				}
			}
		}
	}
	return false
}

// pipesToFunction reports whether the instruction at the start of code,
// the one before a pipe, pushes a declared function, a function literal
// or the literal name of one.
func pipesToFunction(fn *compiler.Func, code []int32, info *resolve.Info, known func(string) bool) bool {
	switch compiler.Opcode(code[0]) {
	case compiler.MAKE_CLOSURE:
		return true
	case compiler.CONST:
		name, ok := fn.Consts[code[1]].(string)
		return ok && known(name)
	case compiler.LOAD_UNIV, compiler.LOAD_NAME:
		return known(fn.Names[code[1]])
	case compiler.LOAD_GLOBAL, compiler.LOAD_GLOBAL_SH:
		g := int(code[1])
		return g < len(info.Globals) && info.Globals[g].Kind == resolve.KFn
	}
	return false
}

// wordsFullOnly reports whether any identifier-like word of text is a
// full-only name.
func wordsFullOnly(text string) bool {
	full := false
	forWords(text, func(w string) { full = full || isFullOnly(w) })
	return full
}

// forWords calls f with each identifier-like word of text.
func forWords(text string, f func(string)) {
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && isWordByte(text[i], i > start && start >= 0) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(text[start:i])
		}
		start = -1
	}
}

func isWordByte(c byte, inWord bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || inWord && c >= '0' && c <= '9'
}

func isFullOnly(name string) bool {
	_, ok := slices.BinarySearch(fullOnlyNames, name)
	return ok
}

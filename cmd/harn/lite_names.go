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
// predeclared (liteStdNames), and nothing calls them. A std module a
// program imports as a namespace is reachable whole (`m[name]`).
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
	whole := map[*interp.Module]bool{}
	for _, m := range mods {
		whole[m] = m == entry || !strings.HasPrefix(m.Path, "std/") || m.Syntax == nil
		for _, imp := range m.Imports {
			if imp.Decl.Namespace != nil && imp.Module != nil {
				whole[imp.Module] = true
			}
		}
	}
	r := reach{names: map[string]bool{}}
	var fns []*fnSpan
	for _, m := range mods {
		src := s.Sources[m.Name]
		if src == nil || m.Program == nil || m.Info == nil {
			return true
		}
		toks, err := syntax.Scan(m.Name, src)
		if err != nil {
			return true
		}
		var spans []*fnSpan
		if !whole[m] {
			spans = fnSpans(m)
		}
		fns = append(fns, spans...)
		next := 0 // tokens and spans are both in source order
		for _, t := range toks {
			for next < len(spans) && before(spans[next].decl.Body.End, t.Pos) {
				next++
			}
			if next < len(spans) && !before(t.Pos, spans[next].decl.At) {
				spans[next].toks = append(spans[next].toks, t)
			} else if r.add(t) {
				return true
			}
		}
	}
	for grew := true; grew; {
		grew = false
		for _, f := range fns {
			if f.reached || !r.names[f.decl.Name] {
				continue
			}
			f.reached, grew = true, true
			for _, t := range f.toks {
				if r.add(t) {
					return true
				}
			}
		}
	}

	for _, m := range mods {
		var skip []*fnSpan
		for _, f := range fns {
			if f.mod == m && !f.reached {
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

// reach collects the names reachable code uses.
type reach struct {
	names map[string]bool
}

// add records the names of a reachable token and reports whether one of
// them is full-only.
func (r *reach) add(t syntax.Token) bool {
	switch t.Kind {
	case syntax.TokIdent, syntax.TokKeyword:
		r.names[t.Text] = true
		return isFullOnly(t.Text)
	case syntax.TokString, syntax.TokRaw, syntax.TokInterp:
		full := false
		forWords(t.Text, func(w string) {
			r.names[w] = true
			full = full || isFullOnly(w)
		})
		return full
	}
	return false
}

// fnSpan is a top-level function of a std module: its declaration (from
// `fn` to the closing brace) and its tokens.
type fnSpan struct {
	mod     *interp.Module
	decl    *syntax.FnDecl
	toks    []syntax.Token
	reached bool
}

// fnSpans lists the top-level functions of m a program reaches only by
// name, in source order. One with attributes may be reached by them, so it is not listed.
func fnSpans(m *interp.Module) []*fnSpan {
	var spans []*fnSpan
	for _, it := range m.Syntax.Items {
		if d, ok := it.(*syntax.FnDecl); ok && d.Body != nil && len(d.Attrs) == 0 {
			spans = append(spans, &fnSpan{mod: m, decl: d})
		}
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
	r := reach{names: map[string]bool{}}
	for _, t := range toks {
		if r.add(t) {
			return true
		}
	}
	return false
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

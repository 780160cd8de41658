package main

import (
	"slices"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// How the lite build tells a program it can run from one only harn-full
// can (lite.go). The test is by name and conservative: a program goes to
// harn-full when any of its modules (the entry, its imports, the std/*
// modules they import) names a builtin, method, host global or harness
// capability that only the full library defines (fullOnlyNames, which
// TestLiteFullOnlyNames keeps equal to the difference of the two
// libraries). A name counts as an identifier or keyword anywhere in the
// source, as any word of a string literal (a name may be looked up from
// a string), and as a name in the compiled code (the compiler calls
// internal builtins such as __tool_decl for `tool` declarations).
// Whether the name is really the builtin (or a local, a field, a word in
// a message) does not matter: harn-full runs every program the same way.
// The one lookup by a name the program computes is `x |> f` with f a
// string (docs/spec/language.md §2.8): a program goes to harn-full when
// it pipes into anything but a function it declares, a function literal,
// or a literal name of a lite builtin or of a function it declares.

// needsFull reports whether the program entry (with the modules s loaded
// for it) names something only the full library defines, or whether that
// cannot be told from what the session kept.
func needsFull(s *interp.Session, entry *interp.Module) bool {
	mods := append(s.Modules(), entry)
	for _, m := range mods {
		src := s.Sources[m.Name]
		if src == nil || m.Program == nil || m.Info == nil || sourceNamesFullOnly(m.Name, src) || codeNamesFullOnly(m.Program.Main) {
			return true
		}
		declared := func(name string) bool {
			g, ok := m.Info.GlobalIndex[name]
			return ok && m.Info.Globals[g].Kind == resolve.KFn
		}
		known := func(name string) bool { return declared(name) || s.Universe.Builtin(name) != nil }
		if pipesByName(m.Program.Main, m.Info, known) {
			return true
		}
	}
	return false
}

// sourceNamesFullOnly scans a module's tokens (comments excluded).
func sourceNamesFullOnly(path string, src []byte) bool {
	toks, err := syntax.Scan(path, src)
	if err != nil {
		return true
	}
	for _, t := range toks {
		switch t.Kind {
		case syntax.TokIdent, syntax.TokKeyword:
			if isFullOnly(t.Text) {
				return true
			}
		case syntax.TokString, syntax.TokRaw, syntax.TokInterp:
			if wordsFullOnly(t.Text) {
				return true
			}
		}
	}
	return false
}

// codeNamesFullOnly scans a compiled function and the functions nested
// in it: the names its instructions use and its string constants.
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
	for _, f := range fn.Funcs {
		if codeNamesFullOnly(f) {
			return true
		}
	}
	return false
}

// pipesByName reports whether fn, or a function nested in it, pipes into
// a value that may be a string naming what to call (pipes).
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
	for _, f := range fn.Funcs {
		if pipesByName(f, info, known) {
			return true
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
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && isWordByte(text[i], i > start && start >= 0) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && isFullOnly(text[start:i]) {
			return true
		}
		start = -1
	}
	return false
}

func isWordByte(c byte, inWord bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || inWord && c >= '0' && c <= '9'
}

func isFullOnly(name string) bool {
	_, ok := slices.BinarySearch(fullOnlyNames, name)
	return ok
}

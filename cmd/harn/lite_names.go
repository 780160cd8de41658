package main

import (
	"sort"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/interp"
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

// needsFull reports whether the program entry (with the modules s loaded
// for it) names something only the full library defines, or whether that
// cannot be told from what the session kept.
func needsFull(s *interp.Session, entry *interp.Module) bool {
	mods := append(s.Modules(), entry)
	for _, m := range mods {
		src := s.Sources[m.Name]
		if src == nil || m.Program == nil || sourceNamesFullOnly(m.Name, src) || codeNamesFullOnly(m.Program.Main) {
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
		case *compiler.Func:
			if codeNamesFullOnly(c) {
				return true
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
	i := sort.SearchStrings(fullOnlyNames, name)
	return i < len(fullOnlyNames) && fullOnlyNames[i] == name
}

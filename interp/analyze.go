package interp

import (
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
)

// Analyze is CheckFile for source text in hand (an editor's buffer, a
// file a tool is about to rewrite): it parses, resolves, checks and
// compiles src as the entry file path, loading its imports, and returns
// the entry module with every diagnostic. The module is nil when src does
// not parse; its Info is set whenever resolution ran, even when the
// checker reported errors.
func (s *Session) Analyze(path string, src []byte) (*Module, diag.List) {
	s.Sources[path] = src
	s.collect = &diag.List{}
	defer func() { s.collect = nil }()
	f, err := syntax.Parse(path, src)
	if err != nil {
		s.report(err)
		return nil, *s.collect
	}
	m := &Module{Path: path, Name: path, Syntax: f, dir: absDir(path)}
	if err := s.buildEntry(m, unitProgram); err != nil {
		s.report(err)
	}
	return m, *s.collect
}

package interp

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/stdlib"
)

// A file can also be loaded as a library: compiled the way an import of
// it would be, then initialised without running anything but its init
// code. The exports surface of the tool registry (tool/exports) reads a
// library's public functions statically and calls them in a session
// loaded this way, so that neither `main` nor any top-level statement
// ever runs.

// LoadModule reads and compiles the file at path, and the modules it
// imports, as an imported module (docs/spec/language.md §11.2): its init code is
// its top-level bindings and function declarations only. Nothing runs;
// InitModule does that. Errors are those of Compile.
func (s *Session) LoadModule(path string) (*Module, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %s", path, stdlib.OSErrorText(err))
	}
	key, err := filepath.Abs(path)
	if err != nil {
		key = filepath.Clean(path)
	}
	s.VM.ScriptDir = filepath.Dir(key)
	s.Sources[path] = src
	f, err := syntax.Parse(path, src)
	if err != nil {
		return nil, err
	}
	if m := s.modules[key]; m != nil {
		return m, nil
	}
	m := &Module{Path: key, Name: path, Syntax: f, dir: filepath.Dir(key)}
	s.modules[key] = m
	s.order = append(s.order, key)
	if err := s.buildEntry(m, unitModule); err != nil {
		delete(s.modules, key)
		for i, k := range s.order {
			if k == key {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
		return nil, err
	}
	return m, nil
}

// InitModule initialises a module loaded with LoadModule, once per
// session: its imports are bound, then its top-level bindings and
// function declarations run. Its functions are then the values of
// m.VM.Global.
func (s *Session) InitModule(m *Module) error { return s.initModule(m) }

// Types returns the type declarations visible in the module's file: its
// own and those its imports make visible (nil before it is compiled).
func (m *Module) Types() *types.Env { return m.env }

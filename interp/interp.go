// Package interp ties the stages together: it reads a file, parses,
// resolves, checks and compiles it, loads the modules it imports, and runs
// it on a VM with the standard library. Commands (harn run, the REPL, the
// conformance runner) and adapters (tool catalog, CLI, MCP) all load
// programs through a Session so they share one definition of "running a
// Harn file".
package interp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// Options configures a session.
type Options struct {
	// Argv binds the global `argv` when non-nil (harn run only).
	Argv   []string
	Stdout io.Writer
	Stderr io.Writer
	Stdin  io.Reader
	// OnVM, when set, receives the session's VM as soon as it exists (the
	// conformance runner uses it to interrupt runaway tests).
	OnVM func(*vm.VM)
	// Warnings says what RunProgram does with checker warnings.
	Warnings WarningMode
	// Vet, when set, sees a program RunProgram is about to run once its
	// static phase is over (every module read, parsed, checked and
	// compiled; entry is nil and err set when that failed) and before
	// anything is written or run. The lite harn hands the programs it
	// cannot run to harn-full there.
	Vet func(s *Session, entry *Module, err error)
	// StdPredeclared, when set, names builtins this build leaves out that
	// the embedded std/* modules may call all the same: such a module
	// compiles, and a call of one fails only when it runs. The lite harn
	// sets it, and runs a program itself only when none of the code the
	// program can reach names one (cmd/harn/lite_names.go).
	StdPredeclared func(name string) bool
	// StrictTypes checks the program's files in strict-types mode
	// (docs/check.md, Strict types): `harn check --strict-types`, or
	// `[check] strict_types = true` in the project's harn.toml.
	StrictTypes bool
	// BindingTypes keeps the type the checker gives each binding and
	// closure literal of the files it checks (Module.BindingType,
	// Module.ClosureType), for the language server.
	BindingTypes bool
}

// Session is one program run: a VM, its universe and the modules loaded
// so far (each module file is compiled and initialised once per session).
type Session struct {
	VM       *vm.VM
	Universe *vm.Universe
	// Warnings collects the checker warnings of the files compiled so
	// far, entries and the modules they import (std/* modules excluded),
	// in load order, modules before their importers, each module once:
	// what `harn run` prints before running, as `harn check` does.
	Warnings diag.List
	// Sources maps file names to their text, for rendering diagnostics.
	Sources map[string][]byte

	modules map[string]*Module   // by Module.Path
	order   []string             // keys of modules, in load order
	stack   []*Module            // modules being loaded (static phase)
	late    []lateBinding        // cyclic imports waiting for their module
	jobs    map[string]*parseJob // module files being parsed in the background
	repl    *Interactive
	collect *diag.List // CheckFile: collect every diagnostic, go on after errors

	stdPredeclared func(string) bool // Options.StdPredeclared
	strictTypes    bool              // Options.StrictTypes
	bindingTypes   bool              // Options.BindingTypes
}

// NewSession makes a session with a fresh VM.
func NewSession(opts Options) *Session {
	u := stdlib.NewUniverse(stdlib.Config{Argv: opts.Argv})
	v := vm.New(u)
	if opts.Stdout != nil {
		v.Stdout = opts.Stdout
	}
	if opts.Stderr != nil {
		v.Stderr = opts.Stderr
	}
	if opts.Stdin != nil {
		v.Stdin = opts.Stdin
	}
	if opts.OnVM != nil {
		opts.OnVM(v)
	}
	return &Session{
		VM:       v,
		Universe: u,
		Sources:  map[string][]byte{},
		modules:  map[string]*Module{},

		stdPredeclared: opts.StdPredeclared,
		strictTypes:    opts.StrictTypes,
		bindingTypes:   opts.BindingTypes,
	}
}

// LoadFile reads and compiles the entry file at path (no code runs).
func (s *Session) LoadFile(path string) (*Module, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %s", path, stdlib.OSErrorText(err))
	}
	abs, _ := filepath.Abs(path)
	s.VM.ScriptDir = filepath.Dir(abs)
	return s.Compile(path, src)
}

// Compile parses, resolves, checks and compiles source text as the entry
// program, loading (but not yet initialising) the modules it imports;
// relative imports resolve against path's directory. The error is a
// diag.List (or a *diag.Error) for static problems, or a *vm.Error for a
// module that cannot be loaded (docs/spec/language.md §11.1, §11.3).
func (s *Session) Compile(path string, src []byte) (*Module, error) {
	s.Sources[path] = src
	f, err := syntax.Parse(path, src)
	if err != nil {
		return nil, err
	}
	m := &Module{Path: path, Name: path, Syntax: f, dir: absDir(path)}
	if err := s.buildEntry(m, unitProgram); err != nil {
		return nil, err
	}
	if m.Program != nil {
		m.VM = s.VM.NewModule(m.Program)
	}
	return m, nil
}

func absDir(path string) string {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return filepath.Dir(path)
	}
	return dir
}

// Modules lists the modules loaded so far (entries excluded), in the
// order their loading started.
func (s *Session) Modules() []*Module {
	out := make([]*Module, 0, len(s.order))
	for _, key := range s.order {
		out = append(out, s.modules[key])
	}
	return out
}

// Run executes a compiled entry module and returns the program result.
// The modules it imports are initialised first, each once per session, in
// import order (docs/spec/language.md §11.1).
func (s *Session) Run(m *Module) (vm.Value, error) {
	if err := s.link(m); err != nil {
		return vm.Value{}, err
	}
	th := s.VM.NewThread()
	// The program's thread has ended: the deadlock detector must not
	// count it as one that may still act (a loaded script's handlers are
	// called later, on threads of their own).
	defer s.VM.Forget(th)
	v, err := th.RunModule(m.VM)
	if err != nil {
		return vm.Value{}, err
	}
	return stdlib.Finish(th, v) // pipeline_on_finish may replace the result
}

// RenderError formats any error from Compile or Run the way `harn` prints
// it on stderr (diagnostics with a caret; runtime errors with their
// location and Harn stack trace).
func (s *Session) RenderError(err error) string {
	var b bytes.Buffer
	switch e := err.(type) {
	case diag.List:
		for _, d := range e {
			b.WriteString(diag.RenderWithNotes(d, s.source))
		}
	case *diag.Error:
		b.WriteString(diag.RenderWithNotes(e, s.source))
	case *vm.Error:
		b.WriteString("error: ")
		b.WriteString(e.UncaughtText())
		b.WriteByte('\n')
		if len(e.Trace) > 0 {
			// Show the innermost frame of the script, not of a std module.
			top := e.Trace[0]
			for _, f := range e.Trace {
				if !f.InStd() {
					top = f
					break
				}
			}
			if top.File != "" && top.Line > 0 {
				d := &diag.Error{File: top.File, Line: top.Line, Col: top.Col}
				if loc := diag.RenderLocation(d, s.Sources[top.File]); loc != "" {
					b.WriteString(loc)
				}
			}
			if e.Help != "" {
				b.WriteString("  = help: " + e.Help + "\n")
			}
			b.WriteString(e.FormatTrace())
		}
	default:
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

func (s *Session) source(file string) []byte { return s.Sources[file] }

// RenderDiagnostic formats one diagnostic (an error or a warning) with its
// source lines and notes.
func (s *Session) RenderDiagnostic(d *diag.Error) string {
	return diag.RenderWithNotes(d, s.source)
}

// MaxWarnings is how many warnings a command prints; the rest are
// counted in one line, so a program with millions of them still starts
// promptly and leaves a readable terminal.
const MaxWarnings = 100

// WriteDiagnostics writes diagnostics as `harn check` does: every error,
// and warnings up to MaxWarnings, then one line counting the others. It
// reports whether any of them is an error.
func (s *Session) WriteDiagnostics(w io.Writer, ds diag.List) (failed bool) {
	warnings := 0
	for _, d := range ds {
		if d.Severity == diag.SevError {
			failed = true
		} else if warnings++; warnings > MaxWarnings {
			continue
		}
		io.WriteString(w, s.RenderDiagnostic(d))
	}
	if warnings > MaxWarnings {
		WriteMoreWarnings(w, warnings-MaxWarnings)
	}
	return failed
}

// WriteWarnings writes the first MaxWarnings of ws, then one line
// counting the others.
func (s *Session) WriteWarnings(w io.Writer, ws diag.List) {
	for i, d := range ws {
		if i == MaxWarnings {
			WriteMoreWarnings(w, len(ws)-MaxWarnings)
			return
		}
		io.WriteString(w, s.RenderDiagnostic(d))
	}
}

// WriteMoreWarnings writes the line that counts the warnings left
// unprinted past MaxWarnings.
func WriteMoreWarnings(w io.Writer, more int) {
	fmt.Fprintf(w, "… and %d more warnings\n", more)
}

// GoldenText is an error's message in upstream's golden form
// (docs/spec/language.md §12.4), used by the conformance runner.
func GoldenText(err error) string {
	switch e := err.(type) {
	case diag.List:
		if len(e) > 0 {
			return e[0].GoldenText()
		}
	case *diag.Error:
		return e.GoldenText()
	case *vm.Error:
		return e.UncaughtText()
	}
	return err.Error()
}

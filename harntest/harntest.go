// Package harntest is `harn test` for users' own tests: it finds test
// functions in test files, runs each in a session of its own, and reports
// results as text, JSON or JUnit XML.
//
// The model. A test file is a `*_test.harn` file, or any `.harn` file under
// a `tests/` directory. Its tests are the top-level functions named
// `test_*` (or marked `@test`) that take no required parameter, and the
// pipelines so named or marked (called with no arguments, their
// parameters unbound as under harn run); discovery parses and checks
// files (a file with a static error is one failure), running nothing.
// Each test gets a fresh interpreter session: the file is loaded as a
// module (its imports, top-level bindings and functions —
// no other top-level statement runs, docs/spec/language.md §11.2) and the test
// function is called. A test passes when it returns; a thrown error, a
// failed assert/assert_eq/assert_ne, or a timeout fails it. The session's
// assert_eq is wrapped so that a failed equality keeps both values, which
// the report shows as a line diff.
package harntest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/vm"
)

// Test is one discovered test function.
type Test struct {
	File string // path as found
	Name string // function name
	Line int
}

// ID is "file::name", what --filter matches and reports show.
func (t Test) ID() string { return t.File + "::" + t.Name }

// Status is a test's outcome.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
)

// Result is the outcome of one test.
type Result struct {
	Test     Test
	Status   Status
	Duration time.Duration
	Message  string // the failure, one line
	Location string // file:line:col of the failing statement in the test file
	Diff     string // for a failed assert_eq: expected vs actual, line by line
	Output   string // what the test printed
}

// Options configure a run.
type Options struct {
	Filter  string        // keep tests whose ID contains it
	Timeout time.Duration // per test; 0 means 60s
}

// IsTestFile reports whether path names a test file.
func IsTestFile(path string) bool {
	if !strings.HasSuffix(path, ".harn") {
		return false
	}
	if strings.HasSuffix(path, "_test.harn") {
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(path)), "/") {
		if part == "tests" {
			return true
		}
	}
	return false
}

// Discover finds the tests under paths (files or directories) in file and
// source order. A file named explicitly is searched even when its name does
// not mark it as a test file. Files that cannot be read, do not parse or
// have static errors are returned as errors keyed by path.
func Discover(paths []string, filter string) ([]Test, map[string]error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, map[string]error{p: err}
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				name := d.Name()
				if path != p && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if IsTestFile(path) {
				files = append(files, path)
			}
			return nil
		})
	}
	sort.Strings(files)
	var tests []Test
	errs := map[string]error{}
	for _, f := range files {
		if filter != "" && !FilterCouldMatch(f, filter) {
			continue // none of its tests could be kept: not even read
		}
		src, err := os.ReadFile(f)
		if err != nil {
			errs[f] = err
			continue
		}
		file, err := syntax.Parse(f, src)
		if err == nil {
			err = staticErrors(f)
		}
		if err != nil {
			errs[f] = err
			continue
		}
		for _, it := range file.Items {
			var t Test
			switch d := it.(type) {
			case *syntax.FnDecl:
				if !isTest(d.Name, d.Attrs) || !noRequiredParams(d.Params) {
					continue
				}
				t = Test{File: f, Name: d.Name, Line: d.NamePos.Line}
			case *syntax.PipelineDecl:
				// called as harn run calls an entry pipeline: its
				// parameters are not bound (docs/spec/language.md §5.5)
				if !isTest(d.Name, d.Attrs) {
					continue
				}
				t = Test{File: f, Name: d.Name, Line: d.NamePos.Line}
			default:
				continue
			}
			if filter == "" || strings.Contains(t.ID(), filter) {
				tests = append(tests, t)
			}
		}
	}
	return tests, errs
}

// FilterCouldMatch reports whether --filter pat could keep a test of
// file: whether file::NAME contains pat for some test name NAME (letters,
// digits and underscores). A filter that names another file (`b_test.harn`,
// `a_test.harn::test_x` for file b_test.harn) cannot, so that file is not
// searched and a file of it that does not parse is not reported.
func FilterCouldMatch(file, pat string) bool {
	prefix := file + "::"
	if strings.Contains(prefix, pat) {
		return true
	}
	// pat starts at the end of prefix (k bytes of it there) and the rest
	// lies in the name
	for k := 0; k <= len(pat) && k <= len(prefix); k++ {
		if strings.HasSuffix(prefix, pat[:k]) && isIdent(pat[k:]) {
			return true
		}
	}
	return false
}

func isIdent(s string) bool {
	for _, c := range s {
		if c != '_' && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// staticErrors loads the test file as Run will, without running it, and
// returns its static errors (diagnostics, of the file or of a module it
// imports) and its load failures (a module it imports that cannot be
// read or does not parse, an unknown std module, a `pub import` cycle),
// as harn check reports them: they would fail every test of the file
// alike, so the file is one failure (docs/test.md). A module whose
// initialisation fails at run time is left for each test to report.
func staticErrors(path string) error {
	s := interp.NewSession(interp.Options{Stdout: io.Discard, Stderr: io.Discard})
	_, err := s.LoadModule(path)
	var dl diag.List
	var de *diag.Error
	var ve *vm.Error
	switch {
	case errors.As(err, &dl) || errors.As(err, &de):
		return err
	case errors.As(err, &ve):
		// located at the import (or inside the module that does not
		// parse), worded without the run-time prefix, as harn check does
		d := &diag.Error{Msg: ve.Msg, Phase: diag.PhaseStatic, Help: ve.Help}
		if len(ve.Trace) > 0 {
			d.File, d.Line, d.Col = ve.Trace[0].File, ve.Trace[0].Line, ve.Trace[0].Col
		}
		return d
	}
	return nil
}

// Render is how a test file that does not load is reported on stderr:
// its diagnostics with their source lines and carets (as harn check
// prints them), or its read error.
func Render(err error) string {
	source := func(file string) []byte {
		src, _ := os.ReadFile(file)
		return src
	}
	var dl diag.List
	var de *diag.Error
	switch {
	case errors.As(err, &dl):
	case errors.As(err, &de):
		dl = diag.List{de}
	default:
		return fmt.Sprintf("error: %v\n", err)
	}
	var b strings.Builder
	for _, d := range dl {
		b.WriteString(diag.RenderWithNotes(d, source))
	}
	return b.String()
}

// isTest reports whether a function or pipeline is a test by its name
// or a @test attribute.
func isTest(name string, attrs []*syntax.Attribute) bool {
	if strings.HasPrefix(name, "test_") {
		return true
	}
	for _, a := range attrs {
		if a.Name == "test" {
			return true
		}
	}
	return false
}

func noRequiredParams(ps []*syntax.Param) bool {
	for _, p := range ps {
		if p.Default == nil && !p.Rest {
			return false
		}
	}
	return true
}

// FileTest is the name under which a test file that cannot be read or
// parsed is reported: one failed result per such file, so that JSON and
// JUnit consumers see it (docs/test.md).
const FileTest = "(file)"

// FileFailure is the failed result standing for a test file that could
// not be read or parsed (err, as Discover returns it).
func FileFailure(file string, err error) Result {
	res := Result{Test: Test{File: file, Name: FileTest}, Status: Fail, Message: err.Error()}
	var d *diag.Error
	if l, ok := err.(diag.List); ok && len(l) > 0 {
		d = l[0]
	} else {
		errors.As(err, &d)
	}
	if d != nil {
		res.Test.Line = d.Line
		res.Message = d.Msg
		at := file
		if d.File != "" {
			at = d.File // a module the test file imports
		}
		if d.Line > 0 {
			res.Location = fmt.Sprintf("%s:%d:%d", at, d.Line, d.Col)
		}
	}
	return res
}

// Run runs one test in a session of its own.
func Run(t Test, opts Options) Result {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	var out strings.Builder
	var mu sync.Mutex
	lockedOut := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	})
	s := interp.NewSession(interp.Options{Stdout: lockedOut, Stderr: lockedOut})
	// Only the test's own threads can end its waits, as in `harn run`, so
	// a wait none of them can end fails as a deadlock (docs/concurrency.md)
	// instead of running into the timeout.
	s.VM.DetectDeadlocks()
	rec := recordAsserts(s)
	res := Result{Test: t}
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		done <- func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("internal error: %v", r)
				}
			}()
			m, err := s.LoadModule(t.File)
			if err != nil {
				return err
			}
			if err := s.InitModule(m); err != nil {
				return err
			}
			fn, ok := m.VM.Global(t.Name)
			if !ok || !fn.IsValid() || fn.IsNil() {
				return fmt.Errorf("test function %s has no value", t.Name)
			}
			v, err := s.VM.NewThread().CallEntry(fn)
			if err != nil {
				return err
			}
			// an Err result fails the test, as it fails a program
			// (docs/spec/language.md §12.3, docs/test.md)
			if ok, isResult := vm.IsResult(v); isResult && !ok {
				text, err := vm.DisplayChecked(v)
				if err != nil {
					return err
				}
				return errors.New("test returned " + text)
			}
			return nil
		}()
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		s.VM.Interrupt()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		err = fmt.Errorf("timed out after %v", timeout)
	}
	res.Duration = time.Since(start)
	s.VM.Close() // what the test started stops with it
	mu.Lock()
	res.Output = out.String()
	mu.Unlock()
	if err == nil {
		res.Status = Pass
		return res
	}
	res.Status = Fail
	res.Message, res.Location = describe(s, t, err)
	if rec.failed {
		res.Diff = Diff(rec.expected, rec.actual)
	}
	return res
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// describe turns a failure into one message line and the location in the
// test file where it happened.
func describe(s *interp.Session, t Test, err error) (msg, loc string) {
	ve, ok := err.(*vm.Error)
	if !ok {
		text := strings.TrimSpace(s.RenderError(err))
		text = diag.TrimLabel(text)
		return text, ""
	}
	msg = ve.UncaughtText()
	abs, _ := filepath.Abs(t.File)
	for _, f := range ve.Trace {
		if f.File == t.File || f.File == abs {
			return msg, fmt.Sprintf("%s:%d:%d", t.File, f.Line, f.Col)
		}
	}
	return msg, ""
}

// assertRecorder keeps the values of the first failed assert_eq.
type assertRecorder struct {
	failed           bool
	expected, actual vm.Value
}

// recordAsserts wraps the session's assert_eq so that a failure keeps
// its values; the error is the builtin's own.
func recordAsserts(s *interp.Session) *assertRecorder {
	rec := &assertRecorder{}
	orig := s.Universe.Builtin("assert_eq")
	if orig == nil {
		return rec
	}
	s.Universe.AddBuiltin(vm.NewBuiltin("assert_eq", "assert_eq(actual, expected, msg?)", "throw unless actual == expected",
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			v, err := th.CallPlain(vm.Of(orig), args)
			if err != nil && len(args) >= 2 && !rec.failed {
				rec.failed, rec.actual, rec.expected = true, args[0], args[1]
			}
			return v, err
		}))
	return rec
}

package interp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/vm"
)

// Exit statuses of `harn run`.
const (
	ExitOK       = 0
	ExitFailure  = 1
	ExitInternal = 2
)

// RunResult is the outcome of running a program to completion.
type RunResult struct {
	Value  vm.Value // program result (nil when the run failed)
	Err    error    // static or runtime failure
	Status int      // process exit status (docs/spec/language.md §12.3)
	// Stdout is everything the program printed, when Options.Stdout
	// was nil (tests and the conformance runner capture it); it is kept
	// when the program fails or calls exit().
	Stdout []byte
	// ResultText is what a Result.Err program result writes to stderr
	// after stdout (docs/spec/language.md §12.3).
	ResultText string
}

// RunProgram runs the file (or, when src is non-nil, the given source
// text named path) exactly as `harn run` does: warnings go to stderr
// first (or nowhere, or stop the run as errors: opts.Warnings), stdout streams to opts.Stdout through an Output (line-buffered
// to a terminal, block-buffered otherwise) that is flushed before any
// error report, on exit() and at the end, and the program result decides
// the exit status. With a nil opts.Stdout the output is captured into
// RunResult.Stdout instead.
func RunProgram(path string, src []byte, opts Options) (res RunResult) {
	var captured *bytes.Buffer
	dest := opts.Stdout
	if dest == nil {
		captured = new(bytes.Buffer)
		dest = captured
	}
	out := NewOutput(dest, isTerminal(dest))
	stderr := opts.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	opts.Stdout = out
	stderr = &orderedStderr{out: out, w: stderr}
	opts.Stderr = stderr
	s := NewSession(opts)
	// What the run started and would outlive it (supervised MCP server
	// processes) stops with it.
	defer s.VM.Close()
	// Only the program's own threads can end its waits here (no server or
	// host starts threads), so a wait none of them can end is a deadlock.
	s.VM.DetectDeadlocks()
	defer func() {
		if r := recover(); r != nil {
			out.Flush()
			res = RunResult{Status: ExitInternal, Err: fmt.Errorf("internal error: %v", r)}
			fmt.Fprintf(stderr, "error: internal error: %v\n%s", r, debug.Stack())
		}
		out.Flush()
		if captured != nil {
			res.Stdout = captured.Bytes()
		}
	}()
	var m *Module
	var err error
	if src == nil {
		m, err = s.LoadFile(path)
	} else {
		m, err = s.Compile(path, src)
	}
	if opts.Vet != nil {
		opts.Vet(s, m, err)
	}
	if err != nil && isStatic(err) {
		// The static phase stopped at the first file with an error;
		// report what `harn check` reports (docs/check.md): every file's
		// errors and warnings, modules before their importers.
		c := NewSession(Options{Argv: opts.Argv, Stdout: io.Discard, Stderr: io.Discard, StdPredeclared: opts.StdPredeclared})
		c.VM.ScriptDir = s.VM.ScriptDir
		shown, promoted := opts.Warnings.Apply(c.checkSource(path, s.Sources[path]))
		c.WriteDiagnostics(stderr, shown)
		if promoted > 0 {
			io.WriteString(stderr, PromotedText(promoted))
		}
		return RunResult{Err: err, Status: ExitFailure}
	}
	shown, promoted := opts.Warnings.Apply(s.Warnings)
	s.WriteWarnings(stderr, shown)
	if err == nil && promoted > 0 {
		io.WriteString(stderr, PromotedText(promoted))
		return RunResult{Err: shown, Status: ExitFailure}
	}
	if err != nil {
		io.WriteString(stderr, s.RenderError(err))
		return RunResult{Err: err, Status: ExitFailure}
	}
	v, err := s.Run(m)
	out.Flush()
	if err != nil {
		if e, ok := err.(*vm.Error); ok && e.Kind == vm.KindExit {
			return RunResult{Err: err, Status: e.Code & 0xff}
		}
		io.WriteString(stderr, s.RenderError(err))
		return RunResult{Err: err, Status: ExitFailure}
	}
	res = RunResult{Value: v, Status: ExitOK}
	switch r := v.Object().(type) {
	case vm.Int:
		n := int64(r)
		if n < 0 {
			n = 0
		}
		if n > 255 {
			n = 255
		}
		res.Status = int(n)
	case *vm.EnumValue:
		if ok, isRes := vm.IsResult(vm.Of(r)); isRes && !ok {
			text, err := vm.DisplayChecked(r.Fields[0])
			if err != nil {
				// a value nested past vm.MaxValueDepth
				io.WriteString(stderr, s.RenderError(err))
				return RunResult{Err: err, Status: ExitFailure}
			}
			if text == "" {
				text = "error"
			}
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			res.Status = ExitFailure
			res.ResultText = text
		}
	}
	return res
}

// isStatic reports whether a Compile error is a static one (a diagnostic)
// rather than a module that could not be loaded.
func isStatic(err error) bool {
	var dl diag.List
	var de *diag.Error
	return errors.As(err, &dl) || errors.As(err, &de)
}

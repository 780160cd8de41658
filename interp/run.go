package interp

import (
	"bytes"
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
	Status int      // process exit status (language.md §12.3)
	Stdout []byte   // buffered standard output (discarded on failure)
	// ResultText is what a Result.Err program result writes to stderr
	// after stdout (language.md §12.3).
	ResultText string
}

// RunProgram runs the file (or, when src is non-nil, the given source
// text named path) with buffered stdout, exactly as `harn run` does:
// warnings go to stderr first, stdout is written only when the program
// succeeds, and the program result decides the exit status.
func RunProgram(path string, src []byte, opts Options) (res RunResult) {
	var out bytes.Buffer
	stderr := opts.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	opts.Stdout = &out
	opts.Stderr = stderr
	s := NewSession(opts)
	defer func() {
		if r := recover(); r != nil {
			res = RunResult{Status: ExitInternal, Err: fmt.Errorf("internal error: %v", r)}
			fmt.Fprintf(stderr, "error: internal error: %v\n%s", r, debug.Stack())
		}
	}()
	var m *Module
	var err error
	if src == nil {
		m, err = s.LoadFile(path)
	} else {
		m, err = s.Compile(path, src)
	}
	for _, w := range s.Warnings {
		io.WriteString(stderr, diag.Render(w, s.Sources[w.File]))
	}
	if err != nil {
		io.WriteString(stderr, s.RenderError(err))
		return RunResult{Err: err, Status: ExitFailure}
	}
	v, err := s.Run(m)
	if err != nil {
		if e, ok := err.(*vm.Error); ok && e.Kind == vm.KindExit {
			return RunResult{Err: err, Status: e.Code & 0xff}
		}
		io.WriteString(stderr, s.RenderError(err))
		return RunResult{Err: err, Status: ExitFailure}
	}
	res = RunResult{Value: v, Stdout: out.Bytes(), Status: ExitOK}
	switch r := v.(type) {
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
		if ok, isRes := vm.IsResult(r); isRes && !ok {
			text := vm.ToDisplay(r.Fields[0])
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

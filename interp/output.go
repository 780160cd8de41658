package interp

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"sync"
)

// Output is the standard output of a run: writes are buffered (block
// buffering suits a pipe or file), flushed at every newline when
// lineBuffered (a terminal), and flushed by RunProgram before an error
// report, on exit() and when the program ends, so nothing printed is
// lost. Tasks print concurrently, so writes are serialised.
type Output struct {
	mu   sync.Mutex
	w    *bufio.Writer
	dest io.Writer
	line bool
}

// NewOutput buffers w; lineBuffered flushes at each newline.
func NewOutput(w io.Writer, lineBuffered bool) *Output {
	return &Output{w: bufio.NewWriterSize(w, 32*1024), dest: w, line: lineBuffered}
}

// Unwrap is the writer the output goes to, so that is_stdout_tty can
// look at the terminal behind the buffer.
func (o *Output) Unwrap() io.Writer { return o.dest }

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.w.Write(p)
	if err == nil && o.line && bytes.IndexByte(p, '\n') >= 0 {
		err = o.w.Flush()
	}
	return n, err
}

// Flush writes out whatever is buffered (prompts call it before reading).
func (o *Output) Flush() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.w.Flush()
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// orderedStderr is the standard error of a run: it flushes the buffered
// stdout before each write, so that with both streams sent to one place
// (`2>&1`, a CI log) a warning or eprintln appears after what the
// program printed before it, not ahead of it.
type orderedStderr struct {
	out *Output
	w   io.Writer
}

func (e *orderedStderr) Write(p []byte) (int, error) {
	e.out.Flush()
	return e.w.Write(p)
}

// Unwrap is the writer behind, so that is_stderr_tty can look at it.
func (e *orderedStderr) Unwrap() io.Writer { return e.w }

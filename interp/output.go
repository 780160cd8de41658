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

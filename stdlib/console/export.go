package console

import (
	"strings"
	"time"

	"github.com/harnlang/harn/vm"
)

// The stdin path other areas read through (stdlib/hitl: ask_user,
// request_approval), so that their answers come from the same buffered
// reader as read_line and from mock_stdin's text while it is active.

// ReadLine reads one line of th's standard input without its line ending,
// waiting with the VM lock released (other tasks run) for at most timeout;
// a negative timeout waits as long as it takes. ok is false at the end of
// input; timedOut reports that the timeout passed first. read_line,
// prompt_user and __io_read_line read through it too.
//
// Reads take turns (stdinSource): each line goes to one reader, in the
// order they asked, and a read whose wait ends first (timeout,
// cancellation, interrupt) goes on in the background and hands its text to
// the next read, so no line is lost and two reads never share the buffer.
func ReadLine(th *vm.Thread, timeout time.Duration) (line string, ok, timedOut bool, err error) {
	line, ok, timedOut, err = readLineRaw(th, timeout)
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r"), ok, timedOut, err
}

// readLineRaw is ReadLine keeping the line's terminator.
func readLineRaw(th *vm.Thread, timeout time.Duration) (line string, ok, timedOut bool, err error) {
	return stdinOf(th).source(th.VM()).readLine(th, timeout)
}

// IsTerminal reports whether "stdin", "stdout" or "stderr" of th's VM is
// a terminal, as is_stdin_tty and its siblings answer (mock_tty first).
func IsTerminal(th *vm.Thread, stream string) bool { return isTerminal(th, stream) }

// StdinMocked reports whether mock_stdin's text is what stdin reads now.
func StdinMocked(th *vm.Thread) bool {
	st := stdinOf(th)
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.mock != nil
}

// WritePrompt writes s to th's stdout and flushes it, as prompt_user does
// before it reads.
func WritePrompt(th *vm.Thread, s string) {
	writeOut(th, s)
	if f, ok := th.VM().Stdout.(interface{ Flush() error }); ok {
		f.Flush()
	}
}

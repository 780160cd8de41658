package console

import (
	"time"

	"github.com/harnlang/harn/vm"
)

// The stdin path other areas read through (stdlib/hitl: ask_user,
// request_approval), so that their answers come from the same buffered
// reader as read_line and from mock_stdin's text while it is active.

// ReadLine reads one line of th's standard input without its line ending,
// waiting with the VM lock released (other tasks run) for at most timeout;
// a negative timeout waits as long as it takes. ok is false at the end of
// input; timedOut reports that the timeout passed first.
func ReadLine(th *vm.Thread, timeout time.Duration) (line string, ok, timedOut bool, err error) {
	if timeout < 0 {
		line, ok, err = readLine(th)
		return line, ok, false, err
	}
	return readLineWithin(th, timeout)
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

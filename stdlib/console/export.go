package console

import (
	"bufio"
	"strings"
	"sync"
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
// A read whose wait ends first (timeout, cancellation, interrupt) goes on in
// the background, and the next read of the same reader takes its line
// instead of starting a second read, so no line is lost and two reads never
// share the buffer at once.
func ReadLine(th *vm.Thread, timeout time.Duration) (line string, ok, timedOut bool, err error) {
	line, ok, timedOut, err = readLineRaw(th, timeout)
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r"), ok, timedOut, err
}

// readLineRaw is ReadLine keeping the line's terminator.
func readLineRaw(th *vm.Thread, timeout time.Duration) (line string, ok, timedOut bool, err error) {
	r := stdinOf(th).reader(th.VM())
	rs := readStateOf(th)
	rs.mu.Lock()
	p := rs.inflight
	if p == nil || p.r != r {
		p = &pendingRead{r: r, done: make(chan struct{})}
		go func() {
			defer close(p.done)
			p.line, p.err = r.ReadString('\n')
		}()
		rs.inflight = p
	}
	rs.mu.Unlock()
	fired, err := th.Wait(p.done, timeout)
	if err != nil {
		return "", false, false, err
	}
	if !fired {
		if timeout >= 0 {
			return "", false, true, nil
		}
		<-p.done
	}
	rs.take(p)
	if p.err != nil && p.line == "" {
		return "", false, false, nil
	}
	return p.line, true, false, nil
}

// finishPendingRead waits for a line read an earlier wait left running on
// r and returns its text ("" when there is none), so read_stdin's result
// starts with it.
func finishPendingRead(th *vm.Thread, r *bufio.Reader) (string, error) {
	rs := readStateOf(th)
	rs.mu.Lock()
	p := rs.inflight
	rs.mu.Unlock()
	if p == nil || p.r != r {
		return "", nil
	}
	fired, err := th.Wait(p.done, -1)
	if err != nil {
		return "", err
	}
	if !fired {
		<-p.done
	}
	rs.take(p)
	return p.line, nil
}

type readStateKey struct{}

// readState is the read a wait left running when it ended first.
type readState struct {
	mu       sync.Mutex
	inflight *pendingRead
}

func readStateOf(th *vm.Thread) *readState {
	return th.VM().Local(readStateKey{}, func() any { return &readState{} }).(*readState)
}

// take forgets p once its line has been handed out.
func (rs *readState) take(p *pendingRead) {
	rs.mu.Lock()
	if rs.inflight == p {
		rs.inflight = nil
	}
	rs.mu.Unlock()
}

type pendingRead struct {
	r    *bufio.Reader
	done chan struct{} // closed when line and err are set
	line string
	err  error
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

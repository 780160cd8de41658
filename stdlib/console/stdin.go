package console

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/vm"
)

// stdinSource is one reader stdin reads come from (the process's standard
// input or mock_stdin's text) and the turn that lets one read at a time
// use it. Reads take the turn in the order they asked for it, so with
// several tasks reading, each line goes to exactly one of them, in wait
// order.
//
// The reading itself runs on a goroutine (a terminal read cannot be
// cancelled) while the reader waits with the VM lock released. When the
// wait ends first (a timeout, cancellation, a deadline), the read goes on
// holding the turn; when it finishes it leaves its text in carry and
// hands the turn on, so the next read starts with that text and no input
// is lost.
type stdinSource struct {
	r *bufio.Reader

	mu     sync.Mutex
	busy   bool            // a read has the turn
	queued []chan struct{} // reads waiting for the turn, oldest first; closed to give it

	// Used only by the turn's holder.
	carry  string // text read but not yet handed to a reader
	eof    bool   // carry ends where the input ended (or failed)
	failed bool   // reading the rest of the input failed
}

func newStdinSource(r io.Reader) *stdinSource {
	return &stdinSource{r: bufio.NewReader(r)}
}

// acquire waits for the turn for at most timeout; fired is false when the
// wait ended first.
func (s *stdinSource) acquire(th *vm.Thread, timeout time.Duration) (fired bool, err error) {
	s.mu.Lock()
	if !s.busy {
		s.busy = true
		s.mu.Unlock()
		return true, nil
	}
	w := make(chan struct{})
	s.queued = append(s.queued, w)
	s.mu.Unlock()
	fired, err = th.Wait(w, timeout)
	if fired {
		return true, nil
	}
	s.mu.Lock()
	if i := slices.Index(s.queued, w); i >= 0 {
		s.queued = slices.Delete(s.queued, i, i+1)
		s.mu.Unlock()
		return false, err
	}
	s.mu.Unlock()
	s.release() // given as the wait ended: hand it on
	return false, err
}

// release hands the turn to the oldest waiting read.
func (s *stdinSource) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queued) == 0 {
		s.busy = false
		return
	}
	close(s.queued[0])
	s.queued = s.queued[1:]
}

// readLine takes the next line, terminator included. ok is false at the
// end of input; timedOut reports that timeout (when not negative) passed
// first.
func (s *stdinSource) readLine(th *vm.Thread, timeout time.Duration) (line string, ok, timedOut bool, err error) {
	text, got, timedOut, err := s.take(th, timeout, false)
	return text, got && text != "", timedOut, err
}

// readAll takes the rest of the input; ok is false when reading failed.
func (s *stdinSource) readAll(th *vm.Thread) (text string, ok bool, err error) {
	text, ok, _, err = s.take(th, -1, true)
	return text, ok, err
}

// take waits for the turn, then hands out a line (all: the rest of the
// input) from carry, reading more when carry has not got it.
func (s *stdinSource) take(th *vm.Thread, timeout time.Duration, all bool) (text string, ok, timedOut bool, err error) {
	start := time.Now()
	fired, err := s.acquire(th, timeout)
	if err != nil || !fired {
		// Without the turn: a timeout, or the VM stopping.
		return "", false, timeout >= 0 && err == nil, err
	}
	if !s.has(all) {
		left := time.Duration(-1)
		if timeout >= 0 {
			left = max(timeout-time.Since(start), 0)
		}
		var done bool
		done, timedOut, err = s.fill(th, left, all)
		if !done {
			// The read goes on and hands the turn on when it ends.
			return "", false, timedOut, err
		}
	}
	text, ok = s.cut(all)
	s.release()
	return text, ok, false, nil
}

// has reports whether carry holds what a read wants.
func (s *stdinSource) has(all bool) bool {
	return s.eof || (!all && strings.Contains(s.carry, "\n"))
}

// cut hands out a line (all: everything) from carry. ok is false for all
// when reading the rest failed (read_stdin then returns nil).
func (s *stdinSource) cut(all bool) (text string, ok bool) {
	text, ok = s.carry, !(all && s.failed)
	if i := strings.IndexByte(text, '\n'); !all && i >= 0 {
		text, s.carry = text[:i+1], text[i+1:]
	} else {
		s.carry = ""
	}
	if s.carry == "" {
		// Nothing read is left: a later read asks the input again.
		s.eof, s.failed = false, false
	}
	return text, ok
}

// stdinRead is one read running on its own goroutine.
type stdinRead struct {
	mu        sync.Mutex
	done      chan struct{} // closed when the read ended and its reader still waits
	abandoned bool          // the reader's wait ended first
}

// fill reads until carry holds a line (all: the rest of the input),
// waiting for at most timeout. done is false when the wait ended first:
// the read then goes on and hands the turn on when it ends.
func (s *stdinSource) fill(th *vm.Thread, timeout time.Duration, all bool) (done, timedOut bool, err error) {
	op := &stdinRead{done: make(chan struct{})}
	go func() {
		var text string
		var rerr error
		if all {
			var b []byte
			b, rerr = io.ReadAll(s.r)
			text = string(b)
		} else {
			text, rerr = s.r.ReadString('\n')
		}
		s.carry += text
		s.eof = all || rerr != nil
		s.failed = all && rerr != nil
		op.mu.Lock()
		defer op.mu.Unlock()
		if op.abandoned {
			s.release()
			return
		}
		close(op.done)
	}()
	fired, err := th.Wait(op.done, timeout)
	if fired {
		return true, false, nil
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	select {
	case <-op.done:
		// It ended as the wait did: its text stays in carry.
		if err != nil {
			s.release()
			return false, false, err
		}
		return true, false, nil
	default:
		op.abandoned = true
		return false, timeout >= 0 && err == nil, err
	}
}

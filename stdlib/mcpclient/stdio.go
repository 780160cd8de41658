package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
)

// transport carries JSON-RPC messages to one server.
type transport interface {
	// call sends a request and waits for its answer: the result, an
	// *rpcError, or a transport failure. name is the tool or prompt name
	// or resource URI the request targets ("" for none; the session-free
	// HTTP profile routes on it).
	call(ctx context.Context, method string, params *jsonv.Object, name string) (any, error)
	// notify sends a notification.
	notify(ctx context.Context, method string, params *jsonv.Object) error
	// close ends the connection; calls in progress fail.
	close()
	// kind is "stdio" or "http".
	kind() string
}

// maxMessage bounds one incoming message.
const maxMessage = 64 << 20

// stdioTransport speaks newline-delimited JSON-RPC with a subprocess.
type stdioTransport struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tail
	label  string  // the command, for messages
	in     *inputs // answers the server's requests

	wmu sync.Mutex // serializes writes to stdin

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	closed  bool  // close was called
	ended   error // why the connection ended (set before done closes)
	done    chan struct{}
}

type reply struct {
	result any
	err    error
}

// startStdio starts command with args; env entries are added to the
// parent's environment.
func startStdio(command string, args []string, env []string, dir string) (*stdioTransport, error) {
	cmd := exec.Command(command, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	t := &stdioTransport{cmd: cmd, stderr: newTail(4 << 10), label: command, pending: map[int64]chan reply{}, done: make(chan struct{})}
	cmd.Stderr = t.stderr
	// A server that leaves a child holding stderr open must not hang
	// Wait once it has exited itself.
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("cannot start %s: %v", command, ee.Err)
		}
		return nil, fmt.Errorf("cannot start %s: %v", command, err)
	}
	t.stdin = stdin
	go t.read(stdout)
	return t, nil
}

func (t *stdioTransport) kind() string { return "stdio" }

// read dispatches the server's messages until its stdout ends, then
// records how the process ended and fails the calls still waiting.
func (t *stdioTransport) read(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	var tooLong error
	for {
		line, err := readLine(r)
		if err != nil {
			if errors.Is(err, errTooLong) {
				tooLong = err
			}
			break
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		v, perr := jsonv.Parse(line)
		if perr != nil {
			// Not a message (a server that logs to stdout): skipped.
			continue
		}
		m, ok := decodeIncoming(v)
		if !ok {
			continue
		}
		switch {
		case m.response:
			t.deliver(m)
		case m.hasID:
			if slowAnswer(m.method) {
				go func() { t.write(answerServerRequest(context.Background(), m, t.in)) }()
			} else {
				t.write(answerServerRequest(context.Background(), m, t.in))
			}
		}
		// Notifications (progress, logging, list changes) are not
		// surfaced to scripts.
	}
	// Drain and release stdout so that Wait can finish.
	io.Copy(io.Discard, stdout)
	werr := t.cmd.Wait()
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	var ended error
	switch {
	case closed:
		ended = errClosed
	case tooLong != nil:
		ended = tooLong
	default:
		status := "exit status 0"
		if werr != nil {
			var ee *exec.ExitError
			if errors.As(werr, &ee) {
				status = ee.ProcessState.String()
			} else {
				status = werr.Error()
			}
		}
		msg := fmt.Sprintf("the server process exited (%s)", status)
		if s := t.stderr.String(); s != "" {
			msg += "; its stderr: " + s
		}
		ended = errors.New(msg)
	}
	t.mu.Lock()
	t.ended = ended
	pending := t.pending
	t.pending = map[int64]chan reply{}
	t.mu.Unlock()
	for _, ch := range pending {
		ch <- reply{err: ended}
	}
	close(t.done)
}

var errTooLong = fmt.Errorf("the server sent a message larger than %d bytes", maxMessage)

// readLine reads one line of at most maxMessage bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxMessage {
			return nil, errTooLong
		}
		buf = append(buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				return buf, nil
			}
			return nil, err
		}
		return buf, nil
	}
}

func (t *stdioTransport) deliver(m incoming) {
	id, ok := idNumber(m.id)
	if !ok {
		return
	}
	t.mu.Lock()
	ch := t.pending[id]
	delete(t.pending, id)
	t.mu.Unlock()
	if ch == nil {
		return // an answer after its call timed out
	}
	if m.err != nil {
		ch <- reply{err: m.err}
		return
	}
	ch <- reply{result: m.result}
}

// write sends one line; a failure means the process is gone, which the
// reader reports.
func (t *stdioTransport) write(msg []byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_, err := t.stdin.Write(append(msg, '\n'))
	return err
}

// endedErr is why the connection is unusable, nil while it is usable.
func (t *stdioTransport) endedErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errClosed
	}
	return t.ended
}

func (t *stdioTransport) call(ctx context.Context, method string, params *jsonv.Object, _ string) (any, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, errClosed
	}
	if t.ended != nil {
		err := t.ended
		t.mu.Unlock()
		return nil, err
	}
	t.nextID++
	id := t.nextID
	ch := make(chan reply, 1)
	t.pending[id] = ch
	t.mu.Unlock()
	if err := t.write(request(id, method, params)); err != nil {
		// The process is gone: wait for the reader's account of it.
		select {
		case r := <-ch:
			return r.result, r.err
		case <-t.done:
		case <-ctx.Done():
		}
		t.forget(id)
		if e := t.endedErr(); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("cannot write to the server: %v", err)
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		t.forget(id)
		// Tell the server to stop working on it (best effort).
		p := jsonv.NewObject(2)
		p.Set("requestId", jsonv.Int(id))
		p.Set("reason", "the client stopped waiting")
		t.write(notification("notifications/cancelled", p))
		return nil, ctx.Err()
	}
}

func (t *stdioTransport) forget(id int64) {
	t.mu.Lock()
	delete(t.pending, id)
	t.mu.Unlock()
}

func (t *stdioTransport) notify(_ context.Context, method string, params *jsonv.Object) error {
	if err := t.endedErr(); err != nil {
		return err
	}
	return t.write(notification(method, params))
}

// close closes the server's stdin (the MCP way to ask a stdio server to
// stop), waits up to two seconds for it to exit, then kills it.
func (t *stdioTransport) close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		<-t.done
		return
	}
	t.closed = true
	t.mu.Unlock()
	t.wmu.Lock()
	t.stdin.Close()
	t.wmu.Unlock()
	select {
	case <-t.done:
		return
	case <-time.After(2 * time.Second):
	}
	if t.cmd.Process != nil {
		t.cmd.Process.Kill()
	}
	<-t.done
}

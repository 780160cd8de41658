//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns the controller and the terminal end of a new
// pseudo-terminal (80 columns, 24 rows).
func openPTY(t *testing.T) (ctl, term *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	fd := int(ctl.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 80})
	return ctl, term
}

// ptySession is `harn repl` running on a pseudo-terminal.
type ptySession struct {
	t    *testing.T
	ctl  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func startPTY(t *testing.T, history string) *ptySession {
	return startTerminal(t, history, "xterm", unix.Winsize{Row: 24, Col: 80})
}

// startTerminal starts `harn repl` on a pseudo-terminal of the given
// TERM and window size.
func startTerminal(t *testing.T, history, termName string, size unix.Winsize) *ptySession {
	ctl, term := openPTY(t)
	unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &size)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "repl")
	cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1", "HARN_REPL_HISTORY="+history, "TERM="+termName)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term, term, term
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.Close()
	p := &ptySession{t: t, ctl: ctl, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := ctl.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		ctl.Close()
	})
	return p
}

// expect waits until the output since the last mark contains want.
func (p *ptySession) expect(want string) {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		got := p.out.String()
		p.mu.Unlock()
		if i := strings.Index(got, want); i >= 0 {
			p.mu.Lock()
			p.out.Next(i + len(want))
			p.mu.Unlock()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.Fatalf("timed out waiting for %q; output:\n%q", want, p.out.String())
}

func (p *ptySession) send(keys string) {
	p.t.Helper()
	if _, err := p.ctl.Write([]byte(keys)); err != nil {
		p.t.Fatal(err)
	}
}

// TestREPLOnTerminal drives `harn repl` through a pseudo-terminal: Tab
// completion of a bound name and of a method, multi-line entries, and
// history saved on :quit and recalled with the Up arrow next time.
func TestREPLOnTerminal(t *testing.T) {
	history := filepath.Join(t.TempDir(), "state", "repl_history")
	p := startPTY(t, history)
	p.expect("harn> ")
	p.send("let my_value = 41\r")
	p.expect("harn> ")
	p.send("my_v\t + 1\r")
	p.expect("harn> my_value") // liner redraws the completed line
	p.expect("42")
	p.expect("harn> ")
	p.send("\"abc\".upp\t()\r")
	p.expect("\"abc\".upper")
	p.expect("ABC")
	p.send("fn twice(x) {\r")
	p.expect("....> ")
	p.send("return x * 2\r}\r")
	p.expect("harn> ")
	p.send("twice(my_value)\r")
	p.expect("82")
	p.send(":quit\r")
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal(":quit did not end the session")
	}
	saved, err := os.ReadFile(history)
	if err != nil {
		t.Fatalf("history not saved: %v", err)
	}
	for _, want := range []string{"let my_value = 41", "my_value + 1", "twice(my_value)"} {
		if !strings.Contains(string(saved), want) {
			t.Errorf("history lacks %q:\n%s", want, saved)
		}
	}

	p = startPTY(t, history)
	p.expect("harn> ")
	// Each line typed is one history entry: eight lines back is the first
	// one typed last time.
	for i := 0; i < 8; i++ {
		p.send("\x1b[A")
	}
	p.send("\r")
	p.expect("let my_value = 41")
	p.expect("harn> ")
	p.send("my_value\r")
	p.expect("41")
	p.send("\x04") // Ctrl-D
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not end the session")
	}
}

// On a terminal liner cannot edit on (TERM=dumb, or a window of no
// size), lines are read plainly and Ctrl-C at the prompt is a SIGINT: it
// abandons the half-typed entry and the session goes on (docs/repl.md).
// Ctrl-C while an entry runs still stops it.
func TestREPLCtrlCWithoutLineEditing(t *testing.T) {
	for _, tc := range []struct {
		name, term string
		size       unix.Winsize
	}{
		{"dumb", "dumb", unix.Winsize{Row: 24, Col: 80}},
		{"unsized", "xterm", unix.Winsize{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startTerminal(t, "", tc.term, tc.size)
			p.expect("harn> ")
			p.send("let a = 1 +\r")
			p.expect("....> ")
			p.send("\x03")
			p.expect("harn> ")
			p.send("7 * 6\r") // not `let a = 1 + 7 * 6`: that prints nothing
			p.expect("42")
			p.expect("harn> ")
			p.send("half typed\x03")
			p.expect("harn> ")
			p.send("1 + 1\r")
			p.expect("2")
			p.expect("harn> ")
			p.send("while true { }\r")
			time.Sleep(200 * time.Millisecond)
			p.send("\x03")
			p.expect("interrupted")
			p.expect("harn> ")
			p.send("a\r")
			p.expect("Undefined variable: a")
			p.send(":quit\r")
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
				t.Fatal(":quit did not end the session")
			}
			if err := p.cmd.Wait(); err != nil {
				t.Fatalf("the session ended with %v", err)
			}
		})
	}
}

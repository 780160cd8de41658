package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal pair with /dev/ptmx: the master, read
// by the test, and the slave, a terminal the program writes to.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("cannot unlock the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("cannot name the pty: %v", err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pty: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// TestRunStdoutIsTTY: under harn run, whose stdout is buffered,
// is_stdout_tty() still sees the terminal behind the buffer; a pipe is
// not one.
func TestRunStdoutIsTTY(t *testing.T) {
	master, slave := openPty(t)
	var stderr strings.Builder
	code := run([]string{"run", "-e", `println(is_stdout_tty())`}, strings.NewReader(""), slave, &stderr)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr.String())
	}
	buf := make([]byte, 64)
	n, err := master.Read(buf)
	if err != nil || strings.TrimSpace(string(buf[:n])) != "true" {
		t.Fatalf("printed %q (%v), want true", buf[:n], err)
	}
	if out, _, _ := runHarn("run", "-e", `println(is_stdout_tty())`); out != "false\n" {
		t.Fatalf("to a buffer: %q", out)
	}
}

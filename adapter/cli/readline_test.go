//go:build linux

package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestBashReadlineInsertion types command lines into an interactive bash
// on a pseudo-terminal, presses TAB and reads the line readline leaves:
// what the user sees inserted, through readline's own handling of quotes
// (it keeps a word's open quote, closes it after a single match, and
// quotes file names under compopt -o filenames). A key bound to a shell
// function evaluates the completed line and records each word, so a
// candidate that splits or expands shows. The values come from the
// schema (--mode, --image) and from the shell at completion time
// (--file, --cmd, --harn-input @FILE), with blanks, dollars, quotes and
// the characters bash breaks words at (= : @) in them.
func TestBashReadlineInsertion(t *testing.T) {
	bash := needShell(t, "bash")
	dir, script := completionFixture(t, quotingScript, Bash)
	for _, name := range []string{"gap file.txt", "x$y"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	bin := t.TempDir()
	for _, name := range []string{"zq tool", "zq$x"} {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755)
	}
	// want is the last word of the completed line
	cases := []struct{ line, want string }{
		{`quo pick --mode a`, "a b"},
		{`quo pick --mode "a`, "a b"},
		{`quo pick --mode 'a`, "a b"},
		{`quo pick --mode $`, "$HOME"},
		{`quo pick --mode "$`, "$HOME"},
		{`quo pick --mode '$`, "$HOME"},
		{`quo pick --mode "it`, "it's"},
		{`quo pick --mode 'it`, "it's"},
		{`quo pick --mode "se`, "semi;colon"},
		{`quo pick --mode p"l`, "plain"},
		{`quo pick --mode=a`, "--mode=a b"},
		{`quo pick --mode="$`, "--mode=$HOME"},
		{`quo pick -ma`, "-ma b"},
		{`quo pick -m=a`, "-m=a b"},
		{`quo pick -m="$`, "-m=$HOME"},
		{`quo pick -m 'it`, "it's"},
		{`quo pick --image nginx:l`, "nginx:latest"},
		{`quo pick --image "nginx:l`, "nginx:latest"},
		{`quo pick --image k=`, "k=v"},
		{`quo pick --image=nginx:l`, "--image=nginx:latest"},
		{`quo pick --image me@`, "me@host"},
		{`quo pick --harn-input @g`, "@gap file.txt"},
		{`quo pick --harn-input "@g`, "@gap file.txt"},
		{`quo pick --harn-input @x`, "@x$y"},
		{`quo pick --harn-input=@x`, "--harn-input=@x$y"},
		{`quo pick --file g`, "gap file.txt"},
		{`quo pick --file "g`, "gap file.txt"},
		{`quo pick --file 'g`, "gap file.txt"},
		{`quo pick --file gap\ `, "gap file.txt"},
		{`quo pick --file x`, "x$y"},
		{`quo pick --file 'x`, "x$y"},
		{`quo pick --cmd zq\ `, "zq tool"},
		{`quo pick --cmd 'zq$`, "zq$x"},
		{`quo pick --cmd zq$`, "zq$x"},
		{`quo pick --cmd "zq$`, "zq$x"},
	}
	out := filepath.Join(t.TempDir(), "lines")
	rc := filepath.Join(t.TempDir(), "rc")
	os.WriteFile(rc, []byte(fmt.Sprintf(`PS1='$ '
source %s || exit 9
__record() { eval "set -- $READLINE_LINE"; printf '%%s\t%%s\t%%s\n' "$READLINE_LINE" "$#" "${!#}" >> %s; READLINE_LINE=; READLINE_POINT=0; }
bind -x '"\C-t": __record'
`, shQuote(script), shQuote(out))), 0o644)
	var keys strings.Builder
	for _, c := range cases {
		keys.WriteString(c.line + "\t\x14")
	}
	keys.WriteString("exit\r")
	home := t.TempDir()
	runOnTerminal(t, dir, []string{"HOME=" + home, "INPUTRC=/dev/null", "TERM=xterm", "PATH=" + bin + ":" + os.Getenv("PATH")},
		keys.String(), bash, "--noprofile", "--rcfile", rc, "-i")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%d completed lines for %d cases:\n%s", len(lines), len(cases), data)
	}
	for i, c := range cases {
		f := strings.Split(lines[i], "\t")
		words := fmt.Sprint(len(strings.Fields(c.line)))
		if len(f) != 3 || f[1] != words || f[2] != c.want {
			t.Errorf("%s<TAB> gave %q: want %s words, the last %q", c.line, f[0], words, c.want)
		}
	}
}

// runOnTerminal runs a program on a new pseudo-terminal, types keys and
// waits for it to exit.
func runOnTerminal(t *testing.T, dir string, env []string, keys string, name string, args ...string) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer ctl.Close()
	if err := unix.IoctlSetPointerInt(int(ctl.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	term, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 200})
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term, term, term
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.Close()
	// the screen is not read: the program records what the test checks
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(io.Discard, ctl)
	}()
	ctl.Write([]byte(keys))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("%s did not exit", name)
	}
	ctl.Close()
	<-read
}

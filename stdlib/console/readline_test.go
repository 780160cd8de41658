package console_test

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/harnlang/harn/interp"
)

// signalWriter closes seen the first time its text contains marker.
type signalWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	seen   chan struct{}
	once   sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.marker) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// A line read that timed out goes on in the background; the next
// read_line takes its line and read_stdin starts after it, so nothing is
// lost and no two reads share the buffer (run with -race).
func TestTimedOutReadHandsItsLineToTheNextRead(t *testing.T) {
	pr, pw := io.Pipe()
	stderr := &signalWriter{marker: "waiting", seen: make(chan struct{})}
	go func() {
		<-stderr.seen
		io.WriteString(pw, "hello\nworld\nagain\n")
		pw.Close()
	}()
	var out bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(`
let a = __io_read_line({timeout_ms: 20})
println(a.status)
eprintln("waiting")
println(read_line())
let rest = read_stdin()
println(rest.split("\n"))
`), interp.Options{Stdin: pr, Stdout: &out, Stderr: stderr})
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	got := strings.TrimSpace(out.String() + string(r.Stdout))
	want := "timeout\nhello\n[world, again, ]"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// __io_read_line strips the line (terminator and surrounding whitespace)
// by default and keeps it exactly with trim: false (docs/spec/newer.md
// §2.1); read_line drops only the terminator.
func TestIOReadLineTrim(t *testing.T) {
	var out bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(`
println(json_stringify(__io_read_line({trim: false}).value))
println(json_stringify(__io_read_line().value))
println(json_stringify(read_line()))
`), interp.Options{Stdin: strings.NewReader("  a  \r\n  b  \r\n  c  \r\n"), Stdout: &out})
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	got := out.String() + string(r.Stdout)
	want := "\"  a  \\r\\n\"\n\"b\"\n\"  c  \"\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

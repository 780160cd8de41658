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

// runWithLateStdin runs src with a stdin that receives input only once
// src has written "waiting" to stderr, and returns its trimmed stdout.
func runWithLateStdin(t *testing.T, src, input string) string {
	t.Helper()
	pr, pw := io.Pipe()
	stderr := &signalWriter{marker: "waiting", seen: make(chan struct{})}
	go func() {
		<-stderr.seen
		io.WriteString(pw, input)
		pw.Close()
	}()
	var out bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stdin: pr, Stdout: &out, Stderr: stderr})
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	return strings.TrimSpace(out.String() + string(r.Stdout))
}

// Two tasks reading the rest of stdin at once take turns: the first
// gets everything, the second what is left (run with -race).
func TestConcurrentReadStdinTakeTurns(t *testing.T) {
	got := runWithLateStdin(t, `
let a = spawn { read_stdin() }
let b = spawn { read_stdin() }
sleep(20ms)
eprintln("waiting")
println(json_stringify([await(a), await(b)]))
`, "x\ny\n")
	if want := `["x\ny\n",""]`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A read_stdin whose wait a deadline or a cancellation ends goes on in
// the background and hands what it read to the next reader (run with
// -race: the abandoned read must not share the buffer with the next).
func TestAbandonedReadStdinHandsItsTextOn(t *testing.T) {
	for name, src := range map[string]string{
		"deadline": `
println(try { deadline 20ms { read_stdin() } } catch (e) { "timeout" })
eprintln("waiting")
println(read_line())
println(json_stringify(read_stdin()))
`,
		"cancel": `
let h = spawn { read_stdin() }
sleep(20ms)
cancel(h)
println(try { await(h) ?? "cancelled" } catch (e) { "failed: ${e}" })
eprintln("waiting")
println(read_line())
println(json_stringify(read_stdin()))
`,
	} {
		t.Run(name, func(t *testing.T) {
			got := runWithLateStdin(t, src, "x\ny\n")
			want := "timeout\nx\n\"y\\n\""
			if name == "cancel" {
				want = "cancelled\nx\n\"y\\n\""
			}
			if got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		})
	}
}

// __io_read_line's timeout_ms may be a duration as well as an int of
// milliseconds.
func TestIOReadLineTimeoutDuration(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var out bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(`
println(__io_read_line({timeout_ms: 20ms}).status)
`), interp.Options{Stdin: pr, Stdout: &out})
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	if got := strings.TrimSpace(out.String() + string(r.Stdout)); got != "timeout" {
		t.Fatalf("got %q, want timeout", got)
	}
}

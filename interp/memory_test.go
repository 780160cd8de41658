package interp

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/harnlang/harn/vm"
)

// Growth by many small steps reaches the memory ceiling as a catchable
// error, not a Go out-of-memory crash (issue 17 item 9): a list pushed in
// a loop, a string appended to, a dict and a set filled one key at a
// time. The ceiling is 32 MiB here; each loop would build several times
// that.
func TestGrowthHitsMemoryCeiling(t *testing.T) {
	vm.SetMaxMemory(32 << 20)
	defer vm.SetMaxMemory(0)
	for name, loop := range map[string]string{
		"push":     `var xs = []; for i in range(4000000) { xs = xs.push(i) }`,
		"append":   `var s = ""; for i in range(8000000) { s += "abcdefgh" }`,
		"dict":     `var d = {}; for i in range(1000000) { d["k${i}"] = i }`,
		"captured": `var d = {}; let peek = { -> d }; for i in range(500000) { d["k${i}"] = [i] }`,
		// drained in Go, out of the interpreter loop's checks
		"range to_list": `let xs = (0 to 9223372036854775807 exclusive).to_list()`,
		"iter to_list":  `let xs = range(0, 9223372036854775807).iter().map({ x -> x }).to_list()`,
	} {
		t.Run(name, func(t *testing.T) {
			src := "let r = try {\n" + loop + "\n\"finished\"\n} catch (e) { to_string(e) }\nprintln(r)\nprintln(\"still running\")\n"
			var out bytes.Buffer
			s := NewSession(Options{Stdout: &out, Stderr: &out, Stdin: strings.NewReader("")})
			m, err := s.Compile("growth.harn", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(m); err != nil {
				t.Fatalf("run: %v", err)
			}
			got := out.String()
			// Either check may fire first: the sampled heap, or the join
			// that would pass the ceiling (a string appended to).
			if !strings.Contains(got, "out of memory: ") || !strings.Contains(got, "HARN_MAX_MEMORY") || !strings.HasSuffix(got, "still running\n") {
				t.Errorf("output:\n%s", got)
			}
		})
	}
}

// A value that doubles at each step (s = s + s) passes any ceiling in a
// few dozen iterations, before the loop reaches an interrupt check: the
// join itself checks the ceiling. Without it these loops ran on to
// terabytes.
func TestDoublingHitsMemoryCeiling(t *testing.T) {
	vm.SetMaxMemory(32 << 20)
	defer vm.SetMaxMemory(0)
	for name, loop := range map[string]string{
		"string": `var s = "x"; for i in range(60) { s = s + s }`,
		"list":   `var xs = [1]; for i in range(60) { xs = xs + xs }`,
		"spread": `var xs = [1]; for i in range(60) { xs = [...xs, ...xs] }`,
	} {
		t.Run(name, func(t *testing.T) {
			src := "let r = try {\n" + loop + "\n\"finished\"\n} catch (e) { to_string(e) }\nprintln(r)\nprintln(\"still running\")\n"
			var out bytes.Buffer
			s := NewSession(Options{Stdout: &out, Stderr: &out, Stdin: strings.NewReader("")})
			m, err := s.Compile("double.harn", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(m); err != nil {
				t.Fatalf("run: %v", err)
			}
			got := out.String()
			if !strings.Contains(got, "out of memory: ") || !strings.Contains(got, "HARN_MAX_MEMORY") || !strings.HasSuffix(got, "still running\n") {
				t.Errorf("output:\n%s", got)
			}
		})
	}
}

// BenchmarkGrowthLoops measures the loops the ceiling watches, for the
// cost of its growth accounting (noteGrowth) and interrupt check.
func BenchmarkGrowthLoops(b *testing.B) {
	for name, loop := range map[string]string{
		"push":   `var xs = []; for i in range(200000) { xs = xs.push(i) }`,
		"append": `var s = ""; for i in range(200000) { s += "ab" }`,
		"dict":   `var d = {}; for i in range(200000) { d["k${i}"] = i }`,
	} {
		b.Run(name, func(b *testing.B) {
			s := NewSession(Options{Stdout: io.Discard, Stderr: io.Discard, Stdin: strings.NewReader("")})
			m, err := s.Compile("growth.harn", []byte(loop))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := s.Run(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

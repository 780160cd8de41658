package syntax

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Every harn start parses its program once, so what the first parse of a
// process builds is start-up time. TestFirstParseAllocs parses in a fresh
// test process (the parsers are built once per process) and bounds the
// allocations of the first parse of files with no statement that needs a
// participle production (a function declaration is parsed by hand):
// building one is a hundred allocations or more.
func TestFirstParseAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under -race")
	}
	if src, ok := os.LookupEnv("HARN_FIRST_PARSE"); ok {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := Parse("first.harn", []byte(src)); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		os.Stdout.WriteString("mallocs=" + strconv.FormatUint(after.Mallocs-before.Mallocs, 10) + "\n")
		return
	}
	for _, tc := range []struct {
		src string
		// max is about twice today's count; with the file production
		// and the whole function declaration built by participle, the
		// counts were 108, 109, 137 and 805.
		max int
	}{{"", 40}, {"// a comment\n", 40}, {"println(1 + 2)\nx = [1, 2].map({ a -> a * 2 })\n", 110},
		{"fn main(harness: Harness) {\n  println(\"hi\")\n}\n", 80}} {
		src := tc.src
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstParseAllocs$")
		cmd.Env = append(os.Environ(), "HARN_FIRST_PARSE="+src)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", src, err, out)
		}
		var n int
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "mallocs="); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		if n == 0 || n > tc.max {
			t.Errorf("first parse of %q: %d allocations (want 1..%d)\n%s", src, n, tc.max, out)
		}
	}
}

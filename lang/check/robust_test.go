package check

import (
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// TestNoPanicOnMutations checks mutated conformance programs (lines
// swapped, dropped or duplicated) that still parse: the checker must
// never panic, whatever the program.
func TestNoPanicOnMutations(t *testing.T) {
	files, _ := filepath.Glob("../../conformance/*/*.harn")
	rng := rand.New(rand.NewSource(1))
	n := 0
	for _, path := range files {
		src, _ := os.ReadFile(path)
		lines := strings.Split(string(src), "\n")
		for range 5 {
			mut := append([]string(nil), lines...)
			for m := 0; m < 3; m++ {
				i, j := rng.Intn(len(mut)), rng.Intn(len(mut))
				switch rng.Intn(3) {
				case 0:
					mut[i], mut[j] = mut[j], mut[i]
				case 1:
					mut = append(mut[:i], mut[i+1:]...)
				case 2:
					mut = append(mut[:i], append([]string{mut[j]}, mut[i:]...)...)
				}
				if len(mut) == 0 {
					break
				}
			}
			text := strings.Join(mut, "\n")
			f, err := syntax.Parse("m.harn", []byte(text))
			if err != nil {
				continue
			}
			info := resolve.File(f, resolve.Options{Universe: testUniverse})
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("panic %v on mutation of %s:\n%s", r, path, text)
					}
				}()
				File(f, info, Options{})
				n++
			}()
		}
	}
	if n == 0 {
		t.Skip("no conformance programs found")
	}
}

// TestLongMemberChainIsLinear pins that a long member chain (x.a.a.a…, as
// generated code writes) costs the checker memory in proportion to its
// length: narrowing looked the whole path up again at every level, which
// grew with the square of the chain (40 s for 40 000 properties).
func TestLongMemberChainIsLinear(t *testing.T) {
	if raceEnabled {
		t.Skip("counts allocations")
	}
	const n = 20000
	src := "fn f(u: {a: int}?) {\n  if u != nil && u.a != nil { println(u.a) }\n}\nlet x = {a: 1}\nprintln(x" +
		strings.Repeat(".a", n) + ")\n"
	f, err := syntax.Parse("test.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	info := resolve.File(f, resolve.Options{Universe: testUniverse})
	File(f, info, Options{})
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("checking a chain of %d properties allocated %d MB, want under 64", n, got>>20)
	}
}

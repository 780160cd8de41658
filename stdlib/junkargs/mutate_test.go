package junkargs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/vm"
)

// The junk matrix alone mostly stops at a builtin's first argument check.
// To reach what lies behind it, the mutation sweep takes real calls — the
// documented examples (builtindoc/examples) and the conformance programs
// that succeed — and reruns each program with one argument of one call
// replaced by a junk value, the last argument dropped, or a junk argument
// added. The program may then fail, but only with an ordinary Harn error.

// example is a program that calls a builtin or method.
type example struct {
	file string
	src  string
}

// loadExamples reads the builtindoc examples and the successful
// conformance programs.
func loadExamples(t testing.TB) []example {
	var out []example
	files, _ := filepath.Glob(filepath.Join(pkgDir, "../../builtindoc/examples/*.harn"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, part := range strings.Split(string(b), "\n// == ") {
			if i == 0 {
				continue
			}
			_, code, _ := strings.Cut(part, "\n")
			out = append(out, example{file: f, src: code})
		}
	}
	var conf []string
	filepath.WalkDir(filepath.Join(pkgDir, "../../conformance"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".harn") {
			if _, err := os.Stat(strings.TrimSuffix(p, ".harn") + ".expected"); err == nil {
				conf = append(conf, p)
			}
		}
		return nil
	})
	sort.Strings(conf)
	if len(files) == 0 || len(conf) == 0 {
		t.Fatalf("no examples found (%d example files, %d conformance programs)", len(files), len(conf))
	}
	for _, p := range conf {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, example{file: p, src: string(b)})
	}
	return out
}

// callSite is one call in an example: the offsets of its parentheses and
// of its arguments' texts.
type callSite struct {
	ex         example
	open, shut int      // offsets of ( and )
	args       [][2]int // [start, end) of each argument
}

// findCall finds the first call of the target in src: NAME( for a
// builtin, .NAME( for a method.
func findCall(src, name string, method bool) (callSite, bool) {
	needle := name + "("
	if method {
		needle = "." + needle
	}
	from := 0
	for {
		i := strings.Index(src[from:], needle)
		if i < 0 {
			return callSite{}, false
		}
		i += from
		from = i + 1
		if !method && i > 0 && (isIdent(src[i-1]) || src[i-1] == '.') {
			continue
		}
		if lineIsComment(src, i) {
			continue
		}
		open := i + len(needle) - 1
		args, shut, ok := splitArgs(src, open)
		if !ok {
			continue
		}
		return callSite{open: open, shut: shut, args: args}, true
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func lineIsComment(src string, i int) bool {
	start := strings.LastIndexByte(src[:i], '\n') + 1
	return strings.Contains(src[start:i], "//")
}

// splitArgs scans the argument list that opens at src[open] == '(' and
// returns each argument's span and the offset of the closing parenthesis.
// It understands nesting, string literals with ${…} holes and comments
// well enough for the examples; anything it cannot follow is refused.
func splitArgs(src string, open int) ([][2]int, int, bool) {
	var args [][2]int
	depth := 0
	start := open + 1
	for i := open + 1; i < len(src); i++ {
		switch c := src[i]; c {
		case '"', '\'', '`':
			if strings.HasPrefix(src[i:], `"""`) {
				end := strings.Index(src[i+3:], `"""`)
				if end < 0 {
					return nil, 0, false
				}
				i += 3 + end + 2
				continue
			}
			j, ok := skipString(src, i, c)
			if !ok {
				return nil, 0, false
			}
			i = j
		case '/':
			if strings.HasPrefix(src[i:], "//") {
				return nil, 0, false
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if c != ')' {
					return nil, 0, false
				}
				if strings.TrimSpace(src[start:i]) != "" {
					args = append(args, [2]int{start, i})
				}
				return args, i, true
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, [2]int{start, i})
				start = i + 1
			}
		}
	}
	return nil, 0, false
}

// skipString returns the offset of the quote closing the string that
// opens at src[i].
func skipString(src string, i int, q byte) (int, bool) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\n':
			if q != '`' {
				return 0, false
			}
		case '$':
			if j+1 < len(src) && src[j+1] == '{' {
				depth := 0
				for j++; j < len(src); j++ {
					if src[j] == '{' {
						depth++
					} else if src[j] == '}' {
						depth--
						if depth == 0 {
							break
						}
					} else if src[j] == '"' || src[j] == '\n' {
						return 0, false // a string inside a hole: give up
					}
				}
			}
		case q:
			return j, true
		}
	}
	return 0, false
}

// mutants returns the programs made from one call site.
func mutants(cs callSite, name string) []string {
	with := cs.withArgs
	orig := cs.origArgs()
	var out []string
	seed := len(name)
	for p := range orig {
		for k := 0; k < 2; k++ {
			j := (seed + p*5 + k*11) % len(junk)
			args := append([]string(nil), orig...)
			args[p] = fmt.Sprintf("__F[%d]()", j)
			out = append(out, with(args))
		}
	}
	if len(orig) > 0 {
		out = append(out, with(orig[:len(orig)-1]))
	}
	out = append(out, with(append(append([]string(nil), orig...), fmt.Sprintf("__F[%d]()", (seed+7)%len(junk)))))
	return out
}

// runMutant runs one mutated program and says what is wrong, or "".
// Static failures (the mutant no longer compiles) are not the library's.
func runMutant(src string) string { return runMutantWithin(src, confirmBudget) }

func runMutantWithin(src string, limit time.Duration) string {
	o := runAlone(src, limit)
	switch {
	case o.hung, o.panicked != nil, o.timedOut:
		return problem(o)
	case o.err == nil:
		return ""
	}
	if _, ok := o.err.(*vm.Error); ok {
		return problemErr(o.err)
	}
	text := o.err.Error()
	for _, bad := range badText {
		if strings.Contains(text, bad) {
			return "run shows " + fmt.Sprintf("%q", bad) + ": " + clip(text)
		}
	}
	return ""
}

// siteFor finds the first call of the target in the examples.
func siteFor(tg target, examples []example) (callSite, bool) {
	recv, name, method := strings.Cut(tg.name, ".")
	if !method {
		name = recv
	}
	if name == "*" {
		return callSite{}, false
	}
	for _, ex := range examples {
		if cs, ok := findCall(ex.src, name, method); ok {
			cs.ex = ex
			return cs, true
		}
	}
	return callSite{}, false
}

// withArgs returns the site's program with the call's arguments replaced.
func (cs callSite) withArgs(args []string) string {
	return cs.ex.src[:cs.open+1] + strings.Join(args, ", ") + cs.ex.src[cs.shut:]
}

// origArgs returns the texts of the call's arguments.
func (cs callSite) origArgs() []string {
	out := make([]string, len(cs.args))
	for i, a := range cs.args {
		out[i] = cs.ex.src[a[0]:a[1]]
	}
	return out
}

func TestBuiltinsWithMutatedExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("the mutation sweep takes a while")
	}
	t.Parallel()
	examples := loadExamples(t)
	for i, tg := range targets(t) {
		if raceEnabled && i%4 != 0 {
			continue // a quarter of the targets under the race detector
		}
		if _, ok := skipped[tg.name]; ok {
			continue
		}
		if _, ok := mayBlock[tg.name]; ok {
			continue
		}
		cs, ok := siteFor(tg, examples)
		if !ok {
			continue
		}
		sites := []callSite{cs}
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			failures := 0
			for _, cs := range sites {
				for _, m := range mutants(cs, tg.name) {
					if p := runMutant(m); p != "" {
						t.Errorf("%s: %s\n  from %s, program:\n%s", tg.name, p, cs.ex.file, clip(m))
						failures++
						if failures >= 3 {
							return
						}
					}
				}
			}
		})
	}
}

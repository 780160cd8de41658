package builtindoc

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/stdlib/std"
)

// runtimeHooks are builtins a script never calls by name: the compiler
// emits a call to them for a piece of syntax, which the conformance suite
// exercises through that syntax.
var runtimeHooks = map[string]string{
	"__spawn":          "spawn { … }",
	"__parallel":       "parallel … { … }",
	"__select":         "select { … }",
	"__wait_arg":       "select { … } and mutex(key, timeout) { … }",
	"__stream_loop":    "a for loop over `parallel … as stream` owns the stream",
	"__generator":      "calling a fn that yields, on a VM without a generator factory",
	"__deadline_enter": "deadline d { … }",
	"__deadline_exit":  "deadline d { … }",
	"__deadline_fail":  "deadline d { … }",
	"__mutex_enter":    "mutex { … } and mutex(key) { … }",
	"__mutex_exit":     "mutex { … } and mutex(key) { … }",
	"__scope_enter":    "scope { … }",
	"__scope_exit":     "scope { … }",
	"__scope_fail":     "scope { … }",
	"__tool_decl":      "a `tool` declaration",
	"__skill_decl":     "a `skill` declaration",
	"__acp_skill":      "an `@acp_skill` fn declaration",
}

// untestable are builtins no conformance program can call with a
// deterministic result, each with the reason. Today the list is empty:
// the network builtins go through http_mock, the clock through mock_time,
// randomness through rng_seed (or results that do not depend on it, such
// as the length of a uuid), so every builtin has a program. Add an entry
// only with its reason, e.g. a builtin that can only open a real socket.
var untestable = map[string]string{}

// TestEveryBuiltinHasAConformanceProgram fails when a builtin or method
// registered in the descriptor table is not called by any conformance
// program (conformance/**/*.harn with a .expected or .error partner).
// A builtin counts when a program calls it by name (`name(`), or when a
// std/* module calls it and a program imports that module; a method when
// a program calls `.name(` on any receiver (the receiver's type is not
// known before run time, so this check is coarser than the one for
// functions). New builtins need a program in conformance/.
func TestEveryBuiltinHasAConformanceProgram(t *testing.T) {
	calls, methodCalls, imports := conformanceCalls(t)
	viaModule := map[string]bool{}
	for _, name := range std.Names() {
		if !imports["std/"+name] {
			continue
		}
		src, _ := std.Module(name)
		fns, _ := callsIn(stripComments(string(src)))
		for fn := range fns {
			viaModule[fn] = true
		}
	}
	registered := map[string]bool{}
	for _, b := range stdlib.Builtins() {
		name := b.Name()
		registered[name] = true
		if calls[name] || viaModule[name] || runtimeHooks[name] != "" || untestable[name] != "" {
			continue
		}
		t.Errorf("builtin %s: no conformance program calls it; add one under conformance/ (or, if it cannot be tested deterministically, an entry with its reason to untestable in builtindoc/coverage_test.go)", name)
	}
	for _, m := range stdlib.Methods() {
		if m.Name == "*" || methodCalls[m.Name] || untestable[m.Recv+"."+m.Name] != "" {
			continue
		}
		t.Errorf("method %s.%s: no conformance program calls .%s(…); add one under conformance/", m.Recv, m.Name, m.Name)
	}
	for _, list := range []map[string]string{runtimeHooks, untestable} {
		for name := range list {
			if !registered[name] && !strings.Contains(name, ".") {
				t.Errorf("%s is listed in builtindoc/coverage_test.go but no longer registered: remove it", name)
			}
		}
	}
}

// conformanceCalls reads every conformance program and returns the
// names called as functions, the names called as methods and the
// imported module paths.
func conformanceCalls(t *testing.T) (calls, methodCalls, imports map[string]bool) {
	calls, methodCalls, imports = map[string]bool{}, map[string]bool{}, map[string]bool{}
	root := filepath.Join(pkgDir, "../conformance")
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".harn" || !hasPartner(p) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		src := stripComments(string(b))
		fns, methods := callsIn(src)
		for name := range fns {
			calls[name] = true
		}
		for name := range methods {
			methodCalls[name] = true
		}
		for _, m := range importPath.FindAllStringSubmatch(src, -1) {
			imports[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no conformance programs found")
	}
	return calls, methodCalls, imports
}

// hasPartner reports whether the program at p is a test: it has a
// NAME.expected or NAME.error file (helper modules have neither).
func hasPartner(p string) bool {
	base := strings.TrimSuffix(p, ".harn")
	for _, ext := range []string{".expected", ".error"} {
		if _, err := os.Stat(base + ext); err == nil {
			return true
		}
	}
	return false
}

var (
	callSite   = regexp.MustCompile(`(\.\s*)?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	importPath = regexp.MustCompile(`(?:from|import)\s+"(std/[a-z_]+)"`)
)

// callsIn splits the call sites of src into plain calls (`name(`) and
// method calls (`.name(`).
func callsIn(src string) (fns, methods map[string]bool) {
	fns, methods = map[string]bool{}, map[string]bool{}
	for _, m := range callSite.FindAllStringSubmatch(src, -1) {
		if m[1] != "" {
			methods[m[2]] = true
		} else {
			fns[m[2]] = true
		}
	}
	return fns, methods
}

// stripComments blanks out `//` and `/* */` comments (a test's first
// line names the builtins it is about, which must not count as calls),
// leaving string literals alone.
func stripComments(src string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inString:
			if c == '\\' && i+1 < len(src) {
				b.WriteByte(c)
				i++
				c = src[i]
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				b.WriteByte('\n')
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

package builtindoc

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/vm"
)

var update = flag.Bool("update", false, "rewrite docs/builtins.md and the outputs in examples/*.harn")

// TestBuiltinsDocUpToDate is the drift check: docs/builtins.md must be
// what the descriptor table, the std modules and the examples generate.
// With -update it runs every example, rewrites the `// =>` lines of
// examples/*.harn with what each printed, and regenerates the page.
func TestBuiltinsDocUpToDate(t *testing.T) {
	path := filepath.Join(pkgDir, "../docs/builtins.md")
	if *update {
		updateExamples(t)
		if err := os.WriteFile(path, []byte(Markdown()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != Markdown() {
		t.Fatal("docs/builtins.md is out of date with the builtin table: go test ./builtindoc -run TestBuiltinsDoc -update")
	}
}

// TestBuiltinExamples: every example runs without failing and prints
// what its `// =>` lines say.
func TestBuiltinExamples(t *testing.T) {
	n := 0
	for e, printed := range runExamples(t) {
		n++
		if !*update && printed != e.Example.Output {
			t.Errorf("%s: the example of %s prints\n%s--- but its // => lines say\n%s(go test ./builtindoc -run TestBuiltinsDoc -update rewrites them)",
				where(e), e.Title(), printed, e.Example.Output)
		}
	}
	if n == 0 {
		t.Fatal("no examples found")
	}
}

// pkgDir is this package's directory (the examples run elsewhere).
var pkgDir, _ = os.Getwd()

func where(e Entry) string {
	return "builtindoc/" + e.Example.File + ":" + strconv.Itoa(e.Example.Line)
}

// runExamples runs every example as a program of its own, each in an
// empty directory of its own, with empty stdin, and returns what each printed; an example
// that fails is an error.
func runExamples(t *testing.T) map[Entry]string {
	dir := t.TempDir()
	t.Chdir(dir) // restored when the test ends
	out := map[Entry]string{}
	for _, e := range Entries() {
		if e.Example == nil {
			continue
		}
		exdir, err := os.MkdirTemp(dir, "")
		if err == nil {
			err = os.Chdir(exdir)
		}
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		res := interp.RunProgram(filepath.Join(exdir, "example.harn"), []byte(e.Program()),
			interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
		var exit *vm.Error
		if errors.As(res.Err, &exit) && exit.Kind == vm.KindExit && exit.Code == 0 {
			res.Err = nil // exit(0) ends an example as well as the end of its code
		}
		if res.Err != nil {
			t.Errorf("%s: the example of %s fails: %v\n%s", where(e), e.Title(), res.Err, stderr.String())
			continue
		}
		out[e] = string(res.Stdout)
	}
	return out
}

// updateExamples writes what every example printed into its file and
// into the loaded entries (which Markdown renders).
func updateExamples(t *testing.T) {
	printed := map[string]map[string]string{} // file → title → output
	for e, text := range runExamples(t) {
		if printed[e.Example.File] == nil {
			printed[e.Example.File] = map[string]string{}
		}
		printed[e.Example.File][e.Title()] = text
		e.Example.Output = text
	}
	for file, outputs := range printed {
		path := filepath.Join(pkgDir, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text, err := formatExamples(file, string(data), outputs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEveryEntryHasAnExample: a new builtin, method or std/* function
// needs an example. Internal names (a leading "__") are exempt, and so
// are the entries of missing-examples.txt, which only shrinks.
func TestEveryEntryHasAnExample(t *testing.T) {
	data, err := os.ReadFile("missing-examples.txt")
	if err != nil {
		t.Fatal(err)
	}
	missing := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			missing[l] = true
		}
	}
	for _, e := range Entries() {
		switch {
		case e.Example != nil && missing[e.Title()]:
			t.Errorf("%s has an example now: remove its line from builtindoc/missing-examples.txt", e.Title())
		case e.Example == nil && !missing[e.Title()] && !strings.HasPrefix(e.Name, "__"):
			t.Errorf("%s has no example: add a `// == %s` block (a short program that prints something) to builtindoc/%s, "+
				"then run go test ./builtindoc -run TestBuiltinsDoc -update (see docs/CONTRIBUTING.md)", e.Title(), e.Title(), exampleFile(e.Area))
		}
	}
}

func TestLookup(t *testing.T) {
	es := Lookup("println")
	if len(es) < 1 || es[0].Recv != "" || es[0].Area != "console" || !strings.Contains(es[0].Text(), "println(v?)") {
		t.Fatalf("println: %+v", es)
	}
	if len(Lookup("no_such_builtin")) != 0 {
		t.Fatal("unknown name found")
	}
	for ns, member := range map[string]string{"stream": "map", "event_log": "subscribe", "workflow": "signal", "string": "split"} {
		es := Lookup(ns)
		found := false
		for _, e := range es {
			if e.Recv != ns {
				t.Errorf("%s: found %s", ns, e.Title())
			}
			found = found || e.Name == member
		}
		if len(es) < 3 || !found {
			t.Errorf("%s: %d entries, %s.%s among them: %v", ns, len(es), ns, member, found)
		}
	}
	cal := Lookup("std/calendar")
	if len(cal) < 20 || cal[0].Area != "std/calendar" {
		t.Fatalf("std/calendar: %d entries", len(cal))
	}
	es = Lookup("std/calendar.parts")
	if len(es) != 1 || !strings.HasPrefix(es[0].Text(), "parts(ts, tz = \"UTC\") -> dict\n") || !strings.Contains(es[0].Text(), "iso_week") {
		t.Fatalf("std/calendar.parts: %+v", es)
	}
}

func TestParseExamples(t *testing.T) {
	const text = "// header\n\n// == a\nprintln(1)\n// => 1\n//\n// =>\n// == b\nlet x = 1\n"
	titles, exs, err := parseExamples("f.harn", text)
	if err != nil || len(titles) != 2 || exs["a"].Code != "println(1)\n//\n" || exs["a"].Output != "1\n\n" || exs["b"].Output != "" || exs["b"].Line != 8 {
		t.Fatalf("%v %v %+v %+v", titles, err, exs["a"], exs["b"])
	}
	got, err := formatExamples("f.harn", text, map[string]string{"b": "x\n"})
	if want := "// header\n\n// == a\nprintln(1)\n//\n// => 1\n// =>\n\n// == b\nlet x = 1\n// => x\n"; err != nil || got != want {
		t.Fatalf("formatExamples:\n%s", got)
	}
	if _, _, err := parseExamples("f.harn", "// == a\n// == a\n"); err == nil {
		t.Fatal("a duplicate title passed")
	}
}

package harntest

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/vm"
)

func write(t *testing.T, path, src string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func project(t *testing.T) string {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "lib.harn"), "pub fn add(a, b) { return a + b }\nfn test_not_in_a_test_file() {}\n")
	write(t, filepath.Join(dir, "lib_test.harn"), `import { add } from "lib"

let counter = 0

fn test_add() {
  assert_eq(add(1, 2), 3)
}

fn test_isolated() {
  counter = counter + 1
  assert_eq(counter, 1)
}

fn test_isolated_again() {
  counter = counter + 1
  assert_eq(counter, 1, "each test gets fresh globals")
}

fn test_diff() {
  println("about to fail")
  assert_eq({a: 1, b: [1, 2], c: "a long string that makes the display long"}, {a: 1, b: [1, 3], c: "a long string that makes the display long"})
}

@test
fn marked() {
  assert(false, "marked tests run")
}

fn test_with_param(x) {}

fn helper() { return 1 }

println("top-level statements do not run")
`)
	// pipelines are tests too, called with their parameters unbound
	write(t, filepath.Join(dir, "pipes_test.harn"), "@test\npipeline checks(task) {\n  assert_eq(1 + 1, 2)\n}\n\n"+
		"pipeline test_pipe() {\n  assert(true)\n}\n\npipeline helper_pipe(task) {\n  assert(false)\n}\n")
	write(t, filepath.Join(dir, "tests", "slow.harn"), "fn test_forever() {\n  while true {}\n}\n")
	write(t, filepath.Join(dir, "node_modules", "x_test.harn"), "fn test_skipped() { assert(false) }\n")
	return dir
}

func TestDiscover(t *testing.T) {
	dir := project(t)
	tests, errs := Discover([]string{dir}, "")
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	var names []string
	for _, tc := range tests {
		rel, _ := filepath.Rel(dir, tc.File)
		names = append(names, rel+"::"+tc.Name)
	}
	want := "lib_test.harn::test_add lib_test.harn::test_isolated lib_test.harn::test_isolated_again " +
		"lib_test.harn::test_diff lib_test.harn::marked pipes_test.harn::checks pipes_test.harn::test_pipe tests/slow.harn::test_forever"
	if strings.Join(names, " ") != want {
		t.Fatalf("discovered %v\nwant %s", names, want)
	}
	filtered, _ := Discover([]string{dir}, "isolated")
	if len(filtered) != 2 {
		t.Fatalf("filter: %v", filtered)
	}
	// A file named explicitly is searched whatever its name.
	explicit, _ := Discover([]string{filepath.Join(dir, "lib.harn")}, "")
	if len(explicit) != 1 || explicit[0].Name != "test_not_in_a_test_file" {
		t.Fatalf("explicit file: %v", explicit)
	}
}

func TestRun(t *testing.T) {
	dir := project(t)
	tests, _ := Discover([]string{dir}, "")
	byName := map[string]Result{}
	for _, tc := range tests {
		timeout := time.Minute // generous: CI runs this under the race detector on shared cores
		if tc.Name == "test_forever" {
			timeout = 300 * time.Millisecond
		}
		byName[tc.Name] = Run(tc, Options{Timeout: timeout})
	}
	for _, name := range []string{"test_add", "test_isolated", "test_isolated_again", "checks", "test_pipe"} {
		if r := byName[name]; r.Status != Pass {
			t.Errorf("%s: %s %s", name, r.Status, r.Message)
		}
	}
	d := byName["test_diff"]
	if d.Status != Fail || !strings.Contains(d.Message, "Assertion failed") || !strings.HasSuffix(d.Location, "lib_test.harn:21:3") {
		t.Errorf("test_diff: %+v", d)
	}
	if !strings.Contains(d.Diff, "-     2,\n") && !strings.Contains(d.Diff, "-     3,") {
		t.Errorf("diff:\n%s", d.Diff)
	}
	if d.Output != "about to fail\n" {
		t.Errorf("output %q", d.Output)
	}
	if m := byName["marked"]; m.Status != Fail || !strings.Contains(m.Message, "marked tests run") {
		t.Errorf("marked: %+v", m)
	}
	if f := byName["test_forever"]; f.Status != Fail || !strings.Contains(f.Message, "timed out") {
		t.Errorf("forever: %+v", f)
	}
}

func TestDiff(t *testing.T) {
	if got := lineDiff([]string{"a", "b", "c"}, []string{"a", "x", "c"}); got != "  a\n- b\n+ x\n  c\n" {
		t.Errorf("lineDiff: %q", got)
	}
}

// TestDiffQuotesStringsAsWritten: a failed assert_eq of strings shows
// them quoted as they read, `<`, `>` and `&` included (JSON's HTML
// escapes would show `\u003c`), with quotes, backslashes and control
// characters escaped, in both layouts (docs/test.md).
func TestDiffQuotesStringsAsWritten(t *testing.T) {
	got := Diff(vm.Str("x"), vm.Str(`<a & "b">\`))
	if want := "expected: \"x\"\n  actual: \"<a & \\\"b\\\">\\\\\""; got != want {
		t.Errorf("side by side:\n%s\nwant:\n%s", got, want)
	}
	long := strings.Repeat("<tag> & ", 12)
	items := func(s string) vm.Value { return vm.Of(vm.NewList([]vm.Value{vm.Str(s), vm.Str("\t")})) }
	got = Diff(items("x"), items(long))
	if !strings.Contains(got, "+   \""+long+"\",\n") || !strings.Contains(got, "    \"\\t\",\n") || strings.Contains(got, `\u00`) {
		t.Errorf("line diff:\n%s", got)
	}
}

func TestReports(t *testing.T) {
	results := []Result{
		{Test: Test{File: "a_test.harn", Name: "test_ok"}, Status: Pass, Duration: time.Millisecond},
		{Test: Test{File: "a_test.harn", Name: "test_bad"}, Status: Fail, Message: "Thrown: no", Location: "a_test.harn:3:3",
			Diff: "expected: 1\n  actual: 2", Output: "hi\n"},
	}
	sum := Summarize(results, 2*time.Millisecond)
	var text bytes.Buffer
	WriteText(&text, results, sum)
	for _, want := range []string{"ok   a_test.harn::test_ok (1.0ms)", "FAIL a_test.harn::test_bad", "    at a_test.harn:3:3",
		"    expected: 1", "      hi", "1 passed, 1 failed"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	WriteJSON(&js, results, sum)
	var doc struct {
		Tests  []map[string]any `json:"tests"`
		Failed int              `json:"failed"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc.Failed != 1 || doc.Tests[1]["status"] != "fail" {
		t.Errorf("json: %v %s", err, js.String())
	}
	var xm bytes.Buffer
	WriteJUnit(&xm, results, sum)
	var suites junitSuites
	if err := xml.Unmarshal(xm.Bytes(), &suites); err != nil || suites.Failures != 1 || len(suites.Suites) != 1 ||
		suites.Suites[0].Cases[1].Failure == nil || suites.Suites[0].Cases[1].SystemOut != "hi\n" {
		t.Errorf("junit: %v\n%s", err, xm.String())
	}
}

// TestStaticErrorMessageHasNoLabel: a test file the checker refuses is
// one `(file)` failure, like a file that does not parse, whose message is
// the diagnostic's without the rendered label, also when it carries a
// code (`error[HARN-TYP-007]: `), located at the error (docs/test.md).
func TestStaticErrorMessageHasNoLabel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad_test.harn")
	write(t, path, "fn test_bad() {\n  let label: string = 1\n}\n")
	tests, errs := Discover([]string{dir}, "")
	if len(errs) != 1 || len(tests) != 0 {
		t.Fatalf("tests %v, errors %v", tests, errs)
	}
	res := FileFailure(path, errs[path])
	if res.Message != "let binding `label`: expected string, found int" || res.Location != path+":2:23" {
		t.Fatalf("message %q at %q", res.Message, res.Location)
	}
}

// TestDeadlockFailsTheTest: a test whose wait nothing can end fails with
// the deadlock error, as `harn run` does, instead of running into the
// per-test timeout (docs/concurrency.md, "Deadlocks").
func TestDeadlockFailsTheTest(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "dl_test.harn"), "fn test_stuck() {\n  receive(channel(\"x\"))\n}\n")
	tests, _ := Discover([]string{dir}, "")
	if len(tests) != 1 {
		t.Fatalf("discovered %d tests", len(tests))
	}
	r := Run(tests[0], Options{Timeout: time.Minute})
	if r.Status != Fail || !strings.Contains(r.Message, "deadlock") {
		t.Fatalf("got %s %q after %v", r.Status, r.Message, r.Duration)
	}
}

// TestErrResultFailsTheTest: a test that returns Result.Err fails, as a
// program whose result is an Err exits 1 (docs/test.md,
// docs/spec/language.md §12.3); an Ok result passes.
func TestErrResultFailsTheTest(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "r_test.harn"), "fn test_err() {\n  return Err(\"bad\")\n}\n\nfn test_ok() {\n  return Ok(1)\n}\n")
	tests, _ := Discover([]string{dir}, "")
	if len(tests) != 2 {
		t.Fatalf("discovered %d tests", len(tests))
	}
	for _, tc := range tests {
		r := Run(tc, Options{})
		switch tc.Name {
		case "test_err":
			if r.Status != Fail || r.Message != "test returned Result.Err(bad)" {
				t.Errorf("test_err: %s %q", r.Status, r.Message)
			}
		case "test_ok":
			if r.Status != Pass {
				t.Errorf("test_ok: %s %q", r.Status, r.Message)
			}
		}
	}
}

// TestMultiLineMessageIndented: every line of a failure message stays in
// the failure's indented block of the text report.
func TestMultiLineMessageIndented(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "m_test.harn"), "fn test_ml() {\n  assert_eq(\"a\\nb\", \"a\\nx\")\n}\n")
	tests, _ := Discover([]string{dir}, "")
	results := []Result{Run(tests[0], Options{})}
	var out bytes.Buffer
	WriteText(&out, results, Summarize(results, 0))
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	for _, l := range lines[1 : len(lines)-1] {
		if !strings.HasPrefix(l, "    ") {
			t.Errorf("line %q of the failure block is not indented:\n%s", l, out.String())
		}
	}
	if !strings.Contains(out.String(), "    Thrown: ") {
		t.Errorf("no Thrown line:\n%s", out.String())
	}
}

// A test pipeline is called as harn run calls the entry: its parameters
// are unbound (defaults and `harness` still apply), while a pipeline it
// calls like a function binds missing arguments to nil
// (docs/spec/language.md §5.5, docs/spec/newer.md §1.13).
func TestPipelineParameters(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "params_test.harn")
	write(t, file, `pipeline test_reads_param(task) {
  println(task)
}

pipeline test_defaults(harness, n = 2) {
  assert_eq(n, 2)
  assert(harness != nil)
}

pipeline pair(a, b) {
  return [a, b]
}

pipeline test_calls() {
  assert_eq(pair(1), [1, nil])
}
`)
	tests, errs := Discover([]string{file}, "")
	if len(errs) > 0 || len(tests) != 3 {
		t.Fatalf("discovered %v, errors %v", tests, errs)
	}
	byName := map[string]Result{}
	for _, tc := range tests {
		byName[tc.Name] = Run(tc, Options{Timeout: time.Minute})
	}
	if r := byName["test_reads_param"]; r.Status != Fail || !strings.Contains(r.Message, "Undefined variable: task") {
		t.Errorf("test_reads_param: %s %q", r.Status, r.Message)
	}
	for _, name := range []string{"test_defaults", "test_calls"} {
		if r := byName[name]; r.Status != Pass {
			t.Errorf("%s: %s %s", name, r.Status, r.Message)
		}
	}
}

// TestModuleLoadFailureIsFileFailure: a test file importing a module that
// cannot be read, or that does not parse, is one `(file)` failure worded
// and located as harn check reports it, not one run-time failure per test
// (docs/test.md); a module whose initialisation fails still fails each
// test at run time.
func TestModuleLoadFailureIsFileFailure(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "src", "calc.harn"), "pub fn add(a, b) {\n  return a +\n}\n")
	write(t, filepath.Join(dir, "src", "boom.harn"), "let x = 1 / 0\npub fn boom() { return 1 }\n")
	write(t, filepath.Join(dir, "tests", "missing_test.harn"), "import { add } from \"../src/calcx\"\nfn test_a() { assert_eq(add(1, 1), 2) }\nfn test_b() { assert_eq(add(2, 2), 4) }\n")
	write(t, filepath.Join(dir, "tests", "parse_test.harn"), "import { add } from \"../src/calc\"\nfn test_c() { assert_eq(add(1, 1), 2) }\n")
	write(t, filepath.Join(dir, "tests", "init_test.harn"), "import { boom } from \"../src/boom\"\nfn test_d() { assert_eq(boom(), 1) }\n")
	tests, errs := Discover([]string{dir}, "")
	if len(tests) != 1 || tests[0].Name != "test_d" {
		t.Fatalf("tests %v", tests)
	}
	missing := filepath.Join(dir, "tests", "missing_test.harn")
	res := FileFailure(missing, errs[missing])
	if !strings.HasPrefix(res.Message, "Import error: cannot read '") || !strings.HasSuffix(res.Location, "missing_test.harn:1:21") {
		t.Errorf("missing module: %q at %q", res.Message, res.Location)
	}
	if r := Render(errs[missing]); !strings.Contains(r, "did you mean `../src/calc`?") {
		t.Errorf("missing module rendered without its help:\n%s", r)
	}
	parse := filepath.Join(dir, "tests", "parse_test.harn")
	res = FileFailure(parse, errs[parse])
	if res.Message != "Import parse error: Expected expression, got } at 3:1" || !strings.HasSuffix(res.Location, filepath.Join("src", "calc.harn")+":3:1") {
		t.Errorf("module parse error: %q at %q", res.Message, res.Location)
	}
	r := Run(tests[0], Options{})
	if r.Status != Fail || !strings.Contains(r.Message, "Division by zero") {
		t.Errorf("init failure: %s %q", r.Status, r.Message)
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestHarnTestUserTests(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a_test.harn"), []byte("fn test_ok() { assert_eq(1 + 1, 2) }\nfn test_bad() { assert_eq([1, 2], [1, 3]) }\n"), 0o644)
	junit := filepath.Join(dir, "out.xml")
	out, errOut, code := runHarn("test", dir, "--junit", junit)
	if code != 1 || !strings.Contains(out, "1 passed, 1 failed") || !strings.Contains(out, "expected: [1, 3]") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(junit); err != nil || !strings.Contains(string(b), `<testcase name="test_bad"`) {
		t.Fatalf("junit: %v %s", err, b)
	}
	out, _, code = runHarn("test", dir, "--filter", "test_ok", "--json")
	if code != 0 || !strings.Contains(out, `"passed": 1`) || strings.Contains(out, "test_bad") {
		t.Fatalf("--json --filter: exit %d\n%s", code, out)
	}
	if _, _, code := runHarn("test", dir, "--timeout", "soon"); code != 2 {
		t.Fatalf("bad --timeout: exit %d", code)
	}
}

func TestHarnTestConformanceStillWorks(t *testing.T) {
	out, errOut, code := runHarn("test", "conformance", "../../conformance", "--filter", "lexical/")
	if code != 0 || !strings.Contains(out, " passed, 0 failed") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestHarnTestFileThatDoesNotParse: such a file is a failure in every
// report (docs/test.md), not only a message on stderr.
func TestHarnTestFileThatDoesNotParse(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a_test.harn"), []byte("fn test_ok() { assert(true) }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b_test.harn"), []byte("fn test_b( {\n"), 0o644)
	junit := filepath.Join(dir, "out.xml")
	out, errOut, code := runHarn("test", dir, "--junit", junit)
	if code != 1 || !strings.Contains(out, "1 passed, 1 failed") || !strings.Contains(out, "FAIL "+filepath.Join(dir, "b_test.harn")+"::(file)") ||
		!strings.Contains(errOut, "b_test.harn:1:12") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(junit); !strings.Contains(string(b), `<testsuites tests="2" failures="1"`) || !strings.Contains(string(b), `<testcase name="(file)"`) {
		t.Errorf("junit:\n%s", b)
	}
	out, errOut, code = runHarn("test", dir, "--json")
	if code != 1 || !strings.Contains(out, `"name": "(file)"`) || !strings.Contains(out, `"failed": 1`) ||
		!strings.Contains(out, `"location": "`+filepath.Join(dir, "b_test.harn")+`:1:12"`) || errOut != "" {
		t.Fatalf("--json: exit %d\n%s%s", code, out, errOut)
	}
}

// A static error in a test file fails the file once, as `(file)`, with
// the diagnostic as harn check prints it; its tests do not run
// (docs/test.md).
func TestHarnTestStaticError(t *testing.T) {
	writeTree(t, map[string]string{
		"z_test.harn": "fn test_c() {\n  let s: int = \"x\"\n}\nfn test_d() {\n  assert(true)\n}\n",
	})
	_, check, _ := runHarn("check", "z_test.harn")
	out, errOut, code := runHarn("test", "z_test.harn")
	if code != 1 || !strings.HasPrefix(errOut, "error[HARN-TYP-007]: let binding `s`") || !strings.Contains(check, errOut) || !strings.Contains(out, "FAIL z_test.harn::(file)") || !strings.Contains(out, "0 passed, 1 failed") ||
		!strings.Contains(out, "at z_test.harn:2:16") || strings.Contains(out, "test_d") {
		t.Errorf("exit %d\n%s%s\nharn check printed:\n%s", code, out, errOut, check)
	}
	out, _, code = runHarn("test", "--json", "z_test.harn")
	if code != 1 || !strings.Contains(out, `"message": "let binding `+"`s`"+`: expected int, found string"`) ||
		!strings.Contains(out, `"location": "z_test.harn:2:16"`) || !strings.Contains(out, `"failed": 1`) {
		t.Errorf("--json: exit %d\n%s", code, out)
	}
}

// TestHarnTestBadArguments: a missing path is reported once, as harn run
// and harn check word it; an unknown option after `conformance` is one.
func TestHarnTestBadArguments(t *testing.T) {
	out, errOut, code := runHarn("test", "nope_test.harn")
	if code != 1 || out != "" || errOut != "error: cannot read nope_test.harn: No such file or directory (os error 2)\n" {
		t.Errorf("missing file: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runHarn("test", "conformance", "--json")
	if code != 2 || !strings.HasPrefix(errOut, "error: unknown option --json") {
		t.Errorf("conformance --json: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runHarn("test", "conformance", "nope")
	if code != 1 || errOut != "error: cannot read nope: No such file or directory (os error 2)\n" {
		t.Errorf("conformance nope: exit %d\n%s", code, errOut)
	}
}

// TestDocFailureExample runs the users_test.harn of docs/test.md
// "Failures" and compares the output with the document's (times masked).
func TestDocFailureExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/test.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "```")
	var src, want string
	for i := 1; i+2 < len(blocks); i += 2 {
		if strings.HasPrefix(blocks[i], "harn\nfn test_count()") {
			src, want = strings.TrimPrefix(blocks[i], "harn\n"), strings.TrimPrefix(blocks[i+2], "\n")
			break
		}
	}
	if src == "" {
		t.Fatal("docs/test.md has no users_test.harn example")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "users_test.harn"), []byte(src), 0o644)
	t.Chdir(dir)
	out, errOut, code := runHarn("test", "users_test.harn")
	times := regexp.MustCompile(`\(\d+\.\dms\)`)
	if code != 1 || times.ReplaceAllString(out, "(T)") != times.ReplaceAllString(want, "(T)") {
		t.Errorf("exit %d; harn test prints:\n%s%s--- docs/test.md shows:\n%s", code, out, errOut, want)
	}
}

// TestDoubleDashEndsOptions: check, fmt, lint and test take `--` as the
// end of their options, as harn run does, so a file named -x.harn can be
// named (docs/check.md, docs/fmt.md, docs/lint.md, docs/test.md).
func TestDoubleDashEndsOptions(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("-x.harn", []byte("let x = 1\n\nprintln(x)\n"), 0o644)
	os.WriteFile("-y_test.harn", []byte("fn test_a() {\n  assert(true)\n}\n"), 0o644)
	for _, args := range [][]string{
		{"check", "--", "-x.harn"}, {"fmt", "--check", "--", "-x.harn"}, {"lint", "--", "-x.harn"}, {"test", "--", "-y_test.harn"},
	} {
		if out, stderr, code := runHarn(args...); code != 0 || strings.Contains(stderr, "unknown option") {
			t.Errorf("%v: exit %d: %s%s", args, code, out, stderr)
		}
	}
	if out, _, _ := runHarn("test", "--", "-y_test.harn"); !strings.Contains(out, "1 passed") {
		t.Errorf("test -- did not run the file's test:\n%s", out)
	}
	if _, stderr, code := runHarn("check", "-x.harn"); code != 2 || !strings.Contains(stderr, "unknown option -x.harn") {
		t.Errorf("without --: exit %d: %s", code, stderr)
	}
}

// TestJUnitFileCheckedFirst: a --junit file that cannot be created fails
// the command before any test runs (docs/test.md).
func TestJUnitFileCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	test := filepath.Join(dir, "a_test.harn")
	os.WriteFile(test, []byte("fn test_a() {\n  write_file("+strconv.Quote(marker)+", \"x\")\n}\n"), 0o644)
	bad := filepath.Join(dir, "missing", "j.xml")
	out, stderr, code := runHarn("test", "--junit", bad, test)
	if code != 1 || stderr != "error: cannot write "+bad+": No such file or directory (os error 2)\n" || out != "" {
		t.Errorf("exit %d: %q %q", code, out, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the tests ran before the report file was checked")
	}
}

// TestHarnTestByID: FILE::NAME, a test's id as the reports print it,
// runs that one test of FILE (docs/test.md); a name FILE has no test of
// is an error, and a FILE named whole as well runs all of its tests.
func TestHarnTestByID(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	os.WriteFile("a_test.harn", []byte("fn test_ok() { assert(true) }\nfn test_bad() { assert(false) }\nfn test_two() { assert(true) }\n"), 0o644)
	out, errOut, code := runHarn("test", "a_test.harn::test_ok")
	if code != 0 || !strings.Contains(out, "ok   a_test.harn::test_ok") || !strings.Contains(out, "1 passed, 0 failed") {
		t.Errorf("one test: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runHarn("test", "a_test.harn::test_ok", "a_test.harn::test_two")
	if code != 0 || !strings.Contains(out, "2 passed, 0 failed") || strings.Contains(out, "test_bad") {
		t.Errorf("two tests: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runHarn("test", "a_test.harn::test_nope")
	if code != 1 || errOut != "error: a_test.harn has no test named test_nope\n" {
		t.Errorf("unknown name: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runHarn("test", "a_test.harn::test_ok", "a_test.harn")
	if code != 1 || !strings.Contains(out, "2 passed, 1 failed") {
		t.Errorf("named whole too: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code = runHarn("test", "nope_test.harn::test_ok"); code != 1 || !strings.Contains(errOut, "error: cannot read nope_test.harn::test_ok: No such file or directory") {
		t.Errorf("missing file: exit %d\n%s", code, errOut)
	}
}

// TestHarnTestFilterSkipsOtherFiles: a file --filter cannot keep a test
// of is not searched, so a broken one is not reported; a filter that
// could name one of its tests still reports it (docs/test.md).
func TestHarnTestFilterSkipsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a_test.harn"), []byte("fn test_ok() { assert(true) }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b_test.harn"), []byte("fn test_x() { let y = ; }\n"), 0o644)
	for _, filter := range []string{"a_test.harn", "a_test.harn::test_o", "/a_"} {
		out, errOut, code := runHarn("test", dir, "--filter", filter)
		if code != 0 || !strings.Contains(out, "1 passed, 0 failed") || strings.Contains(out+errOut, "b_test") {
			t.Errorf("--filter %s: exit %d\n%s%s", filter, code, out, errOut)
		}
	}
	for _, filter := range []string{"test_ok", "::test_ok", "_test.harn::test", "b_test"} {
		out, errOut, code := runHarn("test", dir, "--filter", filter)
		if code != 1 || !strings.Contains(out, "b_test.harn::(file)") {
			t.Errorf("--filter %s: exit %d\n%s%s", filter, code, out, errOut)
		}
	}
}

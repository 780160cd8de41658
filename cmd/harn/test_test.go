package main

import (
	"os"
	"path/filepath"
	"regexp"
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

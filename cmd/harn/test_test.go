package main

import (
	"os"
	"path/filepath"
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

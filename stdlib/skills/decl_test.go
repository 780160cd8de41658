package skills_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	_ "github.com/harnlang/harn/stdlib"
)

func run(t *testing.T, src string) (stdout, stderr string) {
	t.Helper()
	var errb bytes.Buffer
	path := filepath.Join(t.TempDir(), "main.harn")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res := interp.RunProgram(path, []byte(src), interp.Options{Stderr: &errb})
	if res.Err != nil {
		t.Fatalf("run failed: %v\n%s", interp.GoldenText(res.Err), errb.String())
	}
	return string(res.Stdout), errb.String()
}

// A declared skill is a known name: no "undefined variable" warning
// before it runs, and the binding holds the skill.
func TestDeclarationBindsAKnownName(t *testing.T) {
	out, stderr := run(t, `skill deploy {
  description "Ship it"
  tags ["ops"]
}
fn show() { return deploy.description }
println(show())
println(skill_list(skills_declared()))
`)
	if stderr != "" {
		t.Errorf("unexpected diagnostics:\n%s", stderr)
	}
	if out != "Ship it\n[deploy]\n" {
		t.Errorf("stdout %q", out)
	}
}

// Skills declared by concurrent tasks all reach the declared registry.
func TestDeclarationsFromTasks(t *testing.T) {
	out, stderr := run(t, `fn declare(i) {
  skill worker { description "w" }
  return i
}
let results = parallel each [1, 2, 3, 4, 5, 6, 7, 8] { i -> declare(i) }
println(len(results))
println(skill_list(skills_declared()))
`)
	if strings.Contains(stderr, "error") {
		t.Errorf("unexpected diagnostics:\n%s", stderr)
	}
	if out != "8\n[worker]\n" {
		t.Errorf("stdout %q", out)
	}
}

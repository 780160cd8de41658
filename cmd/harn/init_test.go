package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/scaffold"
)

// TestInitTemplates creates a project from each template and checks that it
// works as generated: harn run, harn test, harn tool schema, and that it is
// formatted and lint-clean.
func TestInitTemplates(t *testing.T) {
	for _, tmpl := range scaffold.Templates() {
		t.Run(tmpl, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "my-project")
			out, errOut, code := runHarn("init", dir, "--template", tmpl)
			if code != 0 {
				t.Fatalf("init: exit %d: %s", code, errOut)
			}
			main := "main.harn"
			if tmpl == "library" {
				main = "lib.harn"
			}
			for _, f := range []string{"harn.toml", main, strings.TrimSuffix(main, ".harn") + "_test.harn", "README.md"} {
				if !strings.Contains(out, filepath.Join(dir, f)) {
					t.Errorf("init did not report %s:\n%s", f, out)
				}
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil || strings.Contains(string(b), "{{") {
					t.Errorf("%s: %v %q", f, err, b)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "harn.toml")); !strings.Contains(string(b), `name = "my-project"`) {
				t.Errorf("harn.toml: %s", b)
			}
			mainPath := filepath.Join(dir, main)
			if out, errOut, code := runHarn("run", mainPath); code != 0 || (tmpl == "script" && out != "Hello, world!\n") {
				t.Errorf("run: exit %d: %q %s", code, out, errOut)
			}
			if out, errOut, code := runHarn("test", dir); code != 0 || !strings.Contains(out, " passed, 0 failed") {
				t.Errorf("test: exit %d:\n%s%s", code, out, errOut)
			}
			surface := []string{"tool", "schema", mainPath}
			if tmpl != "tool-server" {
				surface = append(surface, "--surface", "exports")
			}
			if out, errOut, code := runHarn(surface...); code != 0 || !strings.Contains(out, `"schema_version":"harn-tools/2.0"`) {
				t.Errorf("tool schema: exit %d: %s %s", code, out, errOut)
			} else if tmpl == "tool-server" && !strings.Contains(out, `"Add two integers."`) {
				// the default surface reads the registry main.harn publishes,
				// not the exports of a pub fn
				t.Errorf("tool schema did not read the published registry: %s", out)
			}
			if tmpl == "tool-server" {
				if out, errOut, code := runHarn("tool", "run", mainPath, "add", "--a", "1", "--b", "2"); code != 0 || strings.TrimSpace(out) != "3" {
					t.Errorf("tool run: exit %d: %q %s", code, out, errOut)
				}
			}
			if out, _, code := runHarn("fmt", "--check", dir); code != 0 {
				t.Errorf("not formatted: %s", out)
			}
			if _, errOut, code := runHarn("lint", dir); code != 0 {
				t.Errorf("not lint-clean:\n%s", errOut)
			}
		})
	}
	if !strings.Contains(strings.Join(scaffold.Templates(), " "), "library script tool-server") {
		t.Errorf("templates: %v", scaffold.Templates())
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.harn"), []byte("println(1)\n"), 0o644)
	if _, errOut, code := runHarn("init", dir); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "harn.toml")); err == nil {
		t.Fatal("init wrote files before refusing")
	}
	if _, errOut, code := runHarn("init", dir, "--template", "nope"); code != 2 || !strings.Contains(errOut, "tool-server") {
		t.Fatalf("unknown template: exit %d: %s", code, errOut)
	}
}

// TestInitRefusesInvalidNames: the name is written unquoted as a TOML key
// under [exports] (docs/init.md), so a name TOML would need quoted or
// escaped is a usage error and nothing is written; a directory's name is
// made valid instead.
func TestInitRefusesInvalidNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lib 2")
	for _, name := range []string{"my pkg", `a"b`, "", "x\ny"} {
		if _, errOut, code := runHarn("init", dir, "--template", "library", "--name", name); code != 2 || !strings.Contains(errOut, "letters, digits, _ and -") {
			t.Errorf("--name %q: exit %d: %s", name, code, errOut)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("init wrote files for an invalid name")
	}
	if _, errOut, code := runHarn("init", dir, "--template", "library", "--name", "My-pkg_2"); code != 0 {
		t.Fatalf("valid name: exit %d: %s", code, errOut)
	}
	os.RemoveAll(dir)
	if _, errOut, code := runHarn("init", dir, "--template", "library"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "harn.toml")); !strings.Contains(string(b), "\nlib_2 = \"lib.harn\"") {
		t.Errorf("harn.toml: %s", b)
	}
}

// TestInitCannotCreate: a DIR that cannot be made (a file is in the way)
// is reported in the words every command uses for the file system
// (Rust's, as upstream prints them), not Go's `mkdir x: not a directory`.
func TestInitCannotCreate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "taken")
	os.WriteFile(file, []byte("x"), 0o644)
	out, errOut, code := runHarn("init", file)
	if code != 1 || out != "" || errOut != "error: cannot create "+file+": Not a directory (os error 20)\n" {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

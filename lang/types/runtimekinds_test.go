package types

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// typeMethod matches a value's `Type() string { return "name" }`, the
// name type_of returns for it (docs/spec/builtins.md §1.3).
var typeMethod = regexp.MustCompile(`\) Type\(\) string\s*\{\s*return "([a-z_]+)"`)

// internalKinds are the VM's own objects, which no program holds.
var internalKinds = map[string]bool{"cell": true, "opaque": true, "error": true}

// TestRuntimeKindsAnnotate holds every name a library value's Type()
// returns to being a valid annotation, so `fn f(m: mailbox)` draws no
// `unknown type` warning whatever package the value lives in.
func TestRuntimeKindsAnnotate(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range typeMethod.FindAllSubmatch(src, -1) {
			seen[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"task_handle", "mailbox", "shared_map"} {
		if !seen[k] {
			t.Fatalf("the scan found no %q: the Type() pattern no longer matches the sources", k)
		}
	}
	for name := range seen {
		if internalKinds[name] || name == "enum" || name == "struct" { // keywords: a declared type names them
			continue
		}
		if !IsBuiltinTypeName(name) {
			t.Errorf("type_of can return %q, which is not a valid annotation (add it to runtimeKindNames)", name)
		}
	}
}

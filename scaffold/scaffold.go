// Package scaffold is `harn init`: it writes a new project from one of a
// few templates (embedded in the binary), each a harn.toml, a main file, a
// test file and a README that run, test, format and lint cleanly as
// written.
package scaffold

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed templates
var templates embed.FS

// Templates lists the template names.
func Templates() []string {
	entries, _ := templates.ReadDir("templates")
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// ProjectName derives a package name from a directory: its base name,
// lower-cased, with characters other than letters, digits, `_` and `-`
// replaced by `_`.
func ProjectName(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	base := strings.ToLower(filepath.Base(abs))
	var b strings.Builder
	for _, r := range base {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "project"
	}
	return b.String()
}

// CheckName reports why name cannot be a package name, or nil. A name is
// letters, digits, `_` and `-` (what ProjectName derives, in either case):
// it is written unquoted as the library template's key under [exports]
// and as a `name::fn` module reference (docs/orchestrator.md), so it
// needs no quoting or escaping anywhere.
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("the package name is empty: use letters, digits, _ and -")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("invalid package name %q: use only letters, digits, _ and -", name)
		}
	}
	return nil
}

// Create writes the files of template into dir (created if needed) and
// returns their paths. It refuses to overwrite any existing file and then
// writes nothing.
func Create(dir, template, name string) ([]string, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	root := path.Join("templates", template)
	if _, err := fs.Stat(templates, root); err != nil {
		return nil, fmt.Errorf("unknown template %q (templates: %s)", template, strings.Join(Templates(), ", "))
	}
	type file struct {
		path string
		data []byte
	}
	var files []file
	err := fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		data = []byte(strings.ReplaceAll(string(data), "{{name}}", name))
		files = append(files, file{filepath.Join(dir, filepath.FromSlash(rel)), data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if _, err := os.Stat(f.path); err == nil {
			return nil, fmt.Errorf("%s already exists; harn init does not overwrite files", f.path)
		}
	}
	var written []string
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return written, err
		}
		written = append(written, f.path)
	}
	return written, nil
}

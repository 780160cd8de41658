package sdkgen

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/harnlang/harn/tool"
)

//go:embed all:runtime
var runtimeFS embed.FS

func runtimeFile(name string) string {
	b, err := runtimeFS.ReadFile("runtime/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}

// Languages lists the values of --lang.
var Languages = []string{"ts", "go", "python"}

// The versions the generated packages pin: the official MCP SDKs (the
// TypeScript and Go ones are those the repository's own tests run) and
// the JSON Schema validators the clients check arguments with.
const (
	tsSDKVersion     = "1.32.2"
	tsAjvVersion     = "8.20.0"
	tsTypeScript     = "5.9.3"
	goSDKVersion     = "v1.8.0"
	goJSONSchema     = "v0.4.3"
	pyMCPRequirement = "mcp>=1.9,<2"
	pyJSONSchema     = "jsonschema>=4.10"
)

// Options tune a generated package.
type Options struct {
	// Name is the package name: the npm package, the Go module path or
	// the Python distribution. Default: the catalog's info.name.
	Name string
}

// File is one generated file; Path is slash-separated and relative to
// the output directory.
type File struct {
	Path string
	Data []byte
}

// Generate renders the package of one language for a prepared catalog.
func Generate(p *tool.Prepared, lang string, opts Options) ([]File, error) {
	m, err := Build(p)
	if err != nil {
		return nil, err
	}
	return Render(m, lang, opts)
}

// Render renders a built model.
func Render(m *Model, lang string, opts Options) ([]File, error) {
	name := opts.Name
	var files []File
	var err error
	switch lang {
	case "ts":
		files = renderTS(m, name)
	case "go":
		files, err = renderGo(m, name)
	case "python":
		files = renderPython(m, name)
	default:
		return nil, fmt.Errorf("unsupported --lang %q (available: %s)", lang, strings.Join(Languages, ", "))
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// Write writes files under dir, creating directories as needed.
func Write(dir string, files []File) error {
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writer accumulates generated text line by line.
type writer struct {
	sb strings.Builder
}

func (w *writer) line(format string, args ...any) {
	if len(args) == 0 {
		w.sb.WriteString(format)
	} else {
		fmt.Fprintf(&w.sb, format, args...)
	}
	w.sb.WriteByte('\n')
}

func (w *writer) blank() { w.sb.WriteByte('\n') }

func (w *writer) bytes() []byte { return []byte(w.sb.String()) }

// joinEach writes each of xs with render and joins them with sep: the
// members of a union or literal type, a tuple's items, a variant's fields.
func joinEach[T any](xs []T, sep string, render func(T) string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = render(x)
	}
	return strings.Join(parts, sep)
}

// version is the package version: the catalog's, else 0.0.0.
func (m *Model) version() string {
	if m.Version != "" {
		return m.Version
	}
	return "0.0.0"
}

// defaultName is the package name when --name is not given: the
// catalog's name and "client", so it does not shadow a package of the
// same name (a catalog called "structs" is not Go's structs).
func defaultName(m *Model) string { return kebab(m.Name) + "-client" }

// kebab spells a package name for npm and PyPI: lower case words joined
// by hyphens.
func kebab(s string) string { return strings.ReplaceAll(snake(s), "_", "-") }

// Prepare prepares a catalog read from a file (it has no handlers) the
// way `harn serve mcp` prepares the live registry, so the generated
// client sees exactly the standalone schemas the server advertises.
func Prepare(cat *tool.Catalog) (*tool.Prepared, error) {
	reg := &tool.Registry{Catalog: cat}
	for _, e := range cat.Tools {
		reg.Tools = append(reg.Tools, &tool.Tool{Entry: e, Executor: "harn"})
	}
	return tool.Prepare(reg)
}

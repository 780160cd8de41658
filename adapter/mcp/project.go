package mcp

import (
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/mcp/promptfile"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/tool"
)

// The project context of the exports surface (docs/spec/mcp-projection.md
// §3.3, §14): what is discovered next to the module — the nearest
// harn.toml, the README files, the .harn.prompt files under the project
// root — served as resources (with the module's own source) and the
// prompt files as prompts, rendered and completed by package promptfile
// as `harn mcp serve` renders them. A module with none of these has no
// project context, and its server advertises no resources, prompts or
// completions.

// projectRoot is the nearest directory at or above dir holding
// harn.toml, else dir itself; manifest is that harn.toml, or "".
func projectRoot(dir string) (root, manifest string) {
	if d := process.ManifestDir(dir); d != "" {
		return d, filepath.Join(d, "harn.toml")
	}
	return dir, ""
}

// readmes are the README files of dir (README, README.md, readme.txt, …),
// in name order.
func readmes(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := strings.ToLower(e.Name())
		if !e.IsDir() && (name == "readme" || strings.HasPrefix(name, "readme.")) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// fileResource is the resource of a project file: a file:// URI, the
// path relative to root as its name, the text (a file that is not
// UTF-8 is served as a blob).
func fileResource(root, path, description string) (*tool.Resource, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name, err := filepath.Rel(root, path)
	if err != nil || strings.HasPrefix(name, "..") {
		name = filepath.Base(path)
	}
	r := &tool.Resource{URI: fileURI(path), Name: filepath.ToSlash(name), Description: description, MimeType: mimeType(path)}
	if utf8.Valid(b) {
		r.Text = string(b)
	} else {
		r.Blob = base64.StdEncoding.EncodeToString(b)
	}
	return r, nil
}

// fileURI is the file: URI of an absolute path (RFC 8089), its path
// percent-encoded as a URI must be (file:///my%20proj/caf%C3%A9, not
// a space or a raw non-ASCII byte).
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/...
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func mimeType(path string) string {
	switch {
	case strings.HasSuffix(path, ".md"):
		return "text/markdown"
	case strings.HasSuffix(path, ".toml"):
		return "application/toml"
	default:
		return "text/plain"
	}
}

// projectContext discovers the project context of the module at path.
// Prompt files that do not parse are left out and reported on stderr.
func projectContext(path string, stderr io.Writer) ([]*tool.Resource, []*promptfile.Prompt, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Dir(abs)
	root, manifest := projectRoot(dir)
	prompts, failed := promptfile.Load([]promptfile.Root{{Dir: root}})
	for _, f := range slices.Sorted(maps.Keys(failed)) {
		fmt.Fprintf(stderr, "[harn] serve mcp: prompt %s\n", failed[f])
	}
	type file struct{ path, description string }
	var files []file
	seen := map[string]bool{}
	add := func(p, description string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, file{p, description})
		}
	}
	if manifest != "" {
		add(manifest, "The project manifest.")
	}
	for _, d := range []string{dir, root} {
		for _, r := range readmes(d) {
			add(r, "Project README.")
		}
	}
	for _, p := range prompts {
		add(p.Path, "Prompt file of prompt '"+p.Name+"'.")
	}
	if len(files) == 0 {
		return nil, nil, nil
	}
	if !seen[abs] {
		files = append([]file{{abs, "Source of the served module."}}, files...)
	}
	var res []*tool.Resource
	for _, f := range files {
		r, err := fileResource(root, f.path, f.description)
		if err != nil {
			return nil, nil, err
		}
		res = append(res, r)
	}
	return res, prompts, nil
}

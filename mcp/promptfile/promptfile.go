// Package promptfile is the project's prompt files: every *.harn.prompt
// file under a project root, read as a prompt with optional TOML front
// matter and a template body (docs/spec/orchestrator.md §7). Both MCP
// servers serve them through this package: `harn mcp serve` (with the
// prompts of dependency packages) and the exports surface of
// `harn serve mcp` (docs/spec/mcp-projection.md §14).
//
// Files are read afresh on each Load; a prompt is rendered by Get with
// Harn's template language on a VM of its own.
package promptfile

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/stdlib"
	hfs "github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/templates"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
	"github.com/pelletier/go-toml/v2"
)

// Suffix ends the name of every prompt file.
const Suffix = templates.PromptSuffix

// Prompt is one parsed prompt file.
type Prompt struct {
	Name, Title, Description string
	Args                     []Arg
	Images                   []Image
	Body                     string
	BodyLine                 int // the line of the file the body starts on
	Path, Dir                string
	pathName                 string
}

// Arg is a declared argument; Suggestions are its completion candidates.
type Arg struct {
	Name        string
	Description string
	Required    bool
	Suggestions []string
}

// Image is an image message of the prompt: a file next to it, or data.
type Image struct {
	Path, Data, MimeType string
}

// frontMatter is the TOML header of a prompt file.
type frontMatter struct {
	Name, ID, Title, Description string
	Arguments                    []fmArgument // nil: none declared
	Images                       []any
}

type fmArgument struct {
	Name, Description        string
	Required                 *bool
	Suggestions, Completions []string
}

// fmError is a front-matter field of the wrong type; key is the
// top-level key it is under, to find its line.
type fmError struct{ key, msg string }

func (e *fmError) Error() string { return e.msg }

// tomlType names a decoded TOML value by the Harn type it becomes.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return "datetime"
}

// decodeFrontMatter reads the known keys of a parsed header, checking
// their types (other keys are ignored).
func decodeFrontMatter(raw map[string]any) (frontMatter, error) {
	var fm frontMatter
	str := func(m map[string]any, key, field string) (string, error) {
		v, ok := m[key]
		if !ok {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s must be a string, got %s", field, tomlType(v))
		}
		return s, nil
	}
	strs := func(m map[string]any, key, field string) ([]string, error) {
		v, ok := m[key]
		if !ok {
			return nil, nil
		}
		l, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s must be a list of strings, got %s", field, tomlType(v))
		}
		out := []string{}
		for _, it := range l {
			s, ok := it.(string)
			if !ok {
				return nil, fmt.Errorf("%s must be a list of strings, got an item of type %s", field, tomlType(it))
			}
			out = append(out, s)
		}
		return out, nil
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &fm.Name}, {"id", &fm.ID}, {"title", &fm.Title}, {"description", &fm.Description}} {
		s, err := str(raw, f.key, f.key)
		if err != nil {
			return fm, &fmError{f.key, err.Error()}
		}
		*f.dst = s
	}
	if v, ok := raw["arguments"]; ok {
		l, ok := v.([]any)
		if !ok {
			return fm, &fmError{"arguments", "arguments must be a list of tables ([[arguments]]), got " + tomlType(v)}
		}
		fm.Arguments = []fmArgument{}
		for i, it := range l {
			m, ok := it.(map[string]any)
			if !ok {
				return fm, &fmError{"arguments", fmt.Sprintf("arguments[%d] must be a table, got %s", i, tomlType(it))}
			}
			var a fmArgument
			var err error
			field := func(k string) string { return fmt.Sprintf("arguments[%d].%s", i, k) }
			if a.Name, err = str(m, "name", field("name")); err == nil {
				a.Description, err = str(m, "description", field("description"))
			}
			if err == nil {
				a.Suggestions, err = strs(m, "suggestions", field("suggestions"))
			}
			if err == nil {
				a.Completions, err = strs(m, "completions", field("completions"))
			}
			if err == nil {
				if r, has := m["required"]; has {
					b, ok := r.(bool)
					if !ok {
						err = fmt.Errorf("%s must be a bool, got %s", field("required"), tomlType(r))
					}
					a.Required = &b
				}
			}
			if err != nil {
				return fm, &fmError{"arguments", err.Error()}
			}
			fm.Arguments = append(fm.Arguments, a)
		}
	}
	if v, ok := raw["images"]; ok {
		l, ok := v.([]any)
		if !ok {
			return fm, &fmError{"images", "images must be a list, got " + tomlType(v)}
		}
		fm.Images = l
	}
	return fm, nil
}

// keyLine is the line of the front matter (counted from the file's
// first line, the opening ---) where key is first set or opened as a
// table; 1 when it is not found.
func keyLine(header, key string) int {
	for i, ln := range strings.Split(header, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "[["+key+"]]" || ln == "["+key+"]" {
			return i + 2
		}
		if k, _, ok := strings.Cut(ln, "="); ok && strings.Trim(strings.TrimSpace(k), "\"'") == key {
			return i + 2
		}
	}
	return 1
}

// SkipDir says whether the prompt walk (and a watcher following it)
// leaves out a directory below a root: dot directories, build output
// and dependency trees.
func SkipDir(name string) bool {
	switch name {
	case "target", "node_modules", "dist", "portal-dist":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// Root is a directory whose prompt files are served with names
// starting with Prefix ("" for the project itself, "alias/" for a
// dependency package).
type Root struct{ Dir, Prefix string }

// files lists the prompt files of roots with their path-based names,
// in sorted path order.
func files(roots []Root) (paths []string, pathNames map[string]string) {
	pathNames = map[string]string{}
	for _, r := range roots {
		filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != r.Dir && SkipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), Suffix) {
				rel, _ := filepath.Rel(r.Dir, p)
				paths = append(paths, p)
				pathNames[p] = r.Prefix + filepath.ToSlash(strings.TrimSuffix(rel, Suffix))
			}
			return nil
		})
	}
	sort.Strings(paths)
	return paths, pathNames
}

// Load parses every prompt file of roots. A file that does not parse
// is left out; failed maps its path to the problem. A front-matter name
// of a prefixed root gets the prefix; names that collide fall back to
// the path-based name, then -2, -3, …
func Load(roots []Root) (out []*Prompt, failed map[string]string) {
	paths, pathNames := files(roots)
	prefixOf := map[string]string{}
	for _, r := range roots {
		if r.Prefix != "" {
			prefixOf[r.Dir] = r.Prefix
		}
	}
	failed = map[string]string{}
	for _, f := range paths {
		p, err := Parse(f)
		if err != nil {
			failed[f] = err.Error()
			continue
		}
		p.pathName = pathNames[f]
		if p.Name == "" {
			p.Name = p.pathName
		} else {
			for dir, prefix := range prefixOf {
				if strings.HasPrefix(f, dir+string(filepath.Separator)) {
					p.Name = prefix + p.Name
				}
			}
		}
		out = append(out, p)
	}
	taken := map[string]int{}
	for _, p := range out {
		taken[p.Name]++
	}
	used := map[string]bool{}
	for _, p := range out {
		name := p.Name
		if taken[name] > 1 {
			name = p.pathName
		}
		base := name
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		used[name] = true
		p.Name = name
	}
	return out, failed
}

// Find is the prompt called name, or nil.
func Find(prompts []*Prompt, name string) *Prompt {
	for _, p := range prompts {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// problem is a problem of the prompt file at path, on line (0: the
// whole file).
func problem(path string, line int, format string, args ...any) error {
	if line > 0 {
		path = fmt.Sprintf("%s:%d", path, line)
	}
	return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}

// Parse reads one prompt file.
func Parse(path string) (*Prompt, error) {
	// a prompt file is template text, read strictly as render reads one
	// (docs/spec/builtins.md §4.8): invalid UTF-8 leaves the file out
	src, err := hfs.ReadText(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, problem(path, 0, "%v", err)
	}
	text := strings.ReplaceAll(src, "\r\n", "\n")
	p := &Prompt{Path: path, Dir: filepath.Dir(path), Body: text, BodyLine: 1}
	var fm frontMatter
	hasArgs := false
	header, body, bodyLine, state := templates.SplitFrontMatter(text)
	if state == templates.UnclosedFrontMatter {
		return nil, problem(path, 1, "front matter opened with --- is not closed")
	}
	if state == templates.ClosedFrontMatter {
		var raw map[string]any
		if err := toml.Unmarshal([]byte(header), &raw); err != nil {
			line := 1
			var de *toml.DecodeError
			if errors.As(err, &de) {
				row, _ := de.Position()
				line += row // the front matter starts after the --- line
			}
			return nil, problem(path, line, "front matter: %v", err)
		}
		if fm, err = decodeFrontMatter(raw); err != nil {
			return nil, problem(path, keyLine(header, err.(*fmError).key), "front matter: %v", err)
		}
		p.Body, p.BodyLine = body, bodyLine
		hasArgs = fm.Arguments != nil
	}
	p.Name = fm.Name
	if p.Name == "" {
		p.Name = fm.ID
	}
	p.Title, p.Description = fm.Title, fm.Description
	if hasArgs {
		for _, a := range fm.Arguments {
			if a.Name == "" {
				return nil, problem(path, 1, "front matter: an argument has no name")
			}
			arg := Arg{Name: a.Name, Description: a.Description, Required: a.Required == nil || *a.Required, Suggestions: a.Suggestions}
			if arg.Suggestions == nil {
				arg.Suggestions = a.Completions
			}
			p.Args = append(p.Args, arg)
		}
	} else {
		vars, err := templates.TemplateVariables(p.Body, p.BodyLine)
		if err != nil {
			return nil, problem(path, 0, "template: %v", err)
		}
		for _, v := range vars {
			p.Args = append(p.Args, Arg{Name: v, Required: true})
		}
	}
	for _, im := range fm.Images {
		switch x := im.(type) {
		case string:
			p.Images = append(p.Images, Image{Path: x})
		case map[string]any:
			var pi Image
			pi.Path, _ = x["path"].(string)
			pi.Data, _ = x["data"].(string)
			if pi.MimeType, _ = x["mime_type"].(string); pi.MimeType == "" {
				pi.MimeType, _ = x["mimeType"].(string)
			}
			p.Images = append(p.Images, pi)
		default:
			return nil, problem(path, 1, "front matter: images entries are paths or tables")
		}
	}
	return p, nil
}

// Document is the prompt's prompts/list entry.
func (p *Prompt) Document() *jsonv.Object {
	args := []protocol.PromptArgument{}
	for _, a := range p.Args {
		args = append(args, protocol.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return protocol.PromptDocument(p.Name, p.Title, p.Description, args)
}

// Complete lists the suggestions of the prompt's argument called name.
func (p *Prompt) Complete(name string) ([]string, *protocol.Error) {
	for _, a := range p.Args {
		if a.Name == name {
			return a.Suggestions, nil
		}
	}
	return nil, protocol.UnknownPromptArgument(name)
}

// renderVM renders prompt templates; its lock serializes renders.
var renderVM = sync.OnceValue(func() *vm.VM { return vm.New(stdlib.NewUniverse(stdlib.Config{})) })

// Get is the prompts/get answer for the request params (name already
// looked up): the rendered body as one user text message, then the
// images; a missing required argument is -32602, a render failure
// -32603.
func (p *Prompt) Get(params *jsonv.Object) any {
	var required []string
	for _, a := range p.Args {
		if a.Required {
			required = append(required, a.Name)
		}
	}
	args, bad := protocol.PromptArguments(params, required)
	if bad != nil {
		return bad
	}
	bindings := vm.NewDict()
	args.Range(func(k string, v any) bool {
		bindings = bindings.Set(k, tool.FromJSON(v))
		return true
	})
	for _, a := range p.Args { // optional arguments left out render as nil
		if !args.Has(a.Name) {
			bindings = bindings.Set(a.Name, vm.Nil)
		}
	}
	th := renderVM().NewThread()
	th.Lock()
	text, err := templates.RenderTemplate(th, p.Body, p.BodyLine, p.Dir, bindings)
	th.Unlock()
	if err != nil {
		// the template's own words (`at L:C: …`), as a script catches them
		msg := vm.ToDisplay(vm.AsError(err).Caught())
		return protocol.Errorf(protocol.CodeInternalError, fmt.Sprintf("prompt %s: %s", p.Name, msg))
	}
	res := jsonv.NewObject(2)
	if p.Description != "" {
		res.Set("description", p.Description)
	}
	msgs := []any{protocol.PromptMessage("user", protocol.TextContent(text))}
	for _, im := range p.Images {
		c, err := imageContent(p.Dir, im)
		if err != nil {
			return protocol.Errorf(protocol.CodeInternalError, fmt.Sprintf("prompt %s: %v", p.Name, err))
		}
		msgs = append(msgs, protocol.PromptMessage("user", c))
	}
	res.Set("messages", msgs)
	return res
}

func imageContent(dir string, im Image) (*jsonv.Object, error) {
	data, mt := im.Data, im.MimeType
	if data == "" {
		if im.Path == "" {
			return nil, fmt.Errorf("an image needs a path or data")
		}
		b, err := os.ReadFile(filepath.Join(dir, im.Path))
		if err != nil {
			return nil, err
		}
		data = base64.StdEncoding.EncodeToString(b)
		if mt == "" {
			mt = mime.TypeByExtension(filepath.Ext(im.Path))
		}
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	o := jsonv.NewObject(3)
	o.Set("type", "image")
	o.Set("data", data)
	o.Set("mimeType", mt)
	return o, nil
}

package mcpserver

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
	"github.com/harnlang/harn/orchestrator/manifest"
	"github.com/harnlang/harn/stdlib"
	hfs "github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/templates"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
	"github.com/pelletier/go-toml/v2"
)

// Prompts (docs/spec/orchestrator.md §7): every *.harn.prompt file under the
// project root, and under .harn/packages/<alias>/ for each dependency
// alias (names prefixed <alias>/), read afresh for each request.

const promptSuffix = ".harn.prompt"

// prompt is one parsed prompt file.
type prompt struct {
	Name, Title, Description string
	Args                     []promptArg
	Images                   []promptImage
	Body                     string
	Path, Dir                string
	pathName                 string
}

type promptArg struct {
	Name        string
	Description string
	Required    bool
	Suggestions []string
}

type promptImage struct {
	Path, Data, MimeType string
}

// frontMatter is the TOML header of a prompt file.
type frontMatter struct {
	Name        string `toml:"name"`
	ID          string `toml:"id"`
	Title       string `toml:"title"`
	Description string `toml:"description"`
	Arguments   []struct {
		Name        string   `toml:"name"`
		Description string   `toml:"description"`
		Required    *bool    `toml:"required"`
		Suggestions []string `toml:"suggestions"`
		Completions []string `toml:"completions"`
	} `toml:"arguments"`
	Images []any `toml:"images"`
}

// skipDir says whether the prompt walk and the watcher leave out a
// directory below the root: dot directories, build output and
// dependency trees.
func skipDir(name string) bool {
	switch name {
	case "target", "node_modules", "dist", "portal-dist":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// promptFiles lists the prompt files with their name prefixes, in
// sorted path order.
func (s *Server) promptFiles() (files []string, prefixes map[string]string) {
	prefixes = map[string]string{}
	walk := func(root, prefix string) {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && skipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), promptSuffix) {
				rel, _ := filepath.Rel(root, p)
				files = append(files, p)
				prefixes[p] = prefix + filepath.ToSlash(strings.TrimSuffix(rel, promptSuffix))
			}
			return nil
		})
	}
	walk(s.root, "")
	if m, err := manifest.LoadWith(s.opts.ManifestPath, s.opts.Manifest); err == nil {
		for _, alias := range m.Dependencies {
			walk(filepath.Join(s.root, ".harn", "packages", alias), alias+"/")
		}
	}
	sort.Strings(files)
	return files, prefixes
}

// loadPrompts parses every prompt file; a file that does not parse is
// left out and reported on stderr, once until its problem changes (the
// catalog is rebuilt on every request).
func (s *Server) loadPrompts() []*prompt {
	files, pathNames := s.promptFiles()
	var out []*prompt
	failed := map[string]string{}
	defer func() {
		s.promptMu.Lock()
		defer s.promptMu.Unlock()
		for f, msg := range failed {
			if s.promptErrs[f] != msg {
				s.logf("[harn] mcp: prompt %s", msg)
			}
		}
		s.promptErrs = failed
	}()
	for _, f := range files {
		p, err := parsePrompt(f)
		if err != nil {
			failed[f] = err.Error()
			continue
		}
		p.pathName = pathNames[f]
		if p.Name == "" {
			p.Name = p.pathName
		} else if prefix, _, ok := strings.Cut(p.pathName, "/"); ok && strings.HasPrefix(f, filepath.Join(s.root, ".harn", "packages")) {
			p.Name = prefix + "/" + p.Name
		}
		out = append(out, p)
	}
	// Name collisions fall back to the path-based name, then -2, -3, …
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
	return out
}

// promptError is a problem of the prompt file at path, on line (0:
// the whole file).
func promptError(path string, line int, format string, args ...any) error {
	if line > 0 {
		path = fmt.Sprintf("%s:%d", path, line)
	}
	return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}

func parsePrompt(path string) (*prompt, error) {
	// a prompt file is template text, read strictly as render reads one
	// (docs/spec/builtins.md §4.8): invalid UTF-8 leaves the file out
	src, err := hfs.ReadText(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, promptError(path, 0, "%v", err)
	}
	text := strings.ReplaceAll(src, "\r\n", "\n")
	p := &prompt{Path: path, Dir: filepath.Dir(path), Body: text}
	var fm frontMatter
	hasArgs := false
	if strings.HasPrefix(text, "---\n") {
		rest := text[4:]
		end := strings.Index(rest, "\n---\n")
		tail := 5
		if end < 0 && strings.HasSuffix(rest, "\n---") {
			end, tail = len(rest)-4, 4
		}
		if end < 0 {
			return nil, promptError(path, 1, "front matter opened with --- is not closed")
		}
		if err := toml.Unmarshal([]byte(rest[:end]), &fm); err != nil {
			line := 1
			var de *toml.DecodeError
			if errors.As(err, &de) {
				row, _ := de.Position()
				line += row // the front matter starts after the --- line
			}
			return nil, promptError(path, line, "front matter: %v", err)
		}
		p.Body = rest[end+tail:]
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
				return nil, promptError(path, 1, "front matter: an argument has no name")
			}
			arg := promptArg{Name: a.Name, Description: a.Description, Required: a.Required == nil || *a.Required, Suggestions: a.Suggestions}
			if arg.Suggestions == nil {
				arg.Suggestions = a.Completions
			}
			p.Args = append(p.Args, arg)
		}
	} else {
		vars, err := templates.TemplateVariables(p.Body)
		if err != nil {
			return nil, promptError(path, 0, "template: %v", err)
		}
		for _, v := range vars {
			p.Args = append(p.Args, promptArg{Name: v, Required: true})
		}
	}
	for _, im := range fm.Images {
		switch x := im.(type) {
		case string:
			p.Images = append(p.Images, promptImage{Path: x})
		case map[string]any:
			var pi promptImage
			pi.Path, _ = x["path"].(string)
			pi.Data, _ = x["data"].(string)
			if pi.MimeType, _ = x["mime_type"].(string); pi.MimeType == "" {
				pi.MimeType, _ = x["mimeType"].(string)
			}
			p.Images = append(p.Images, pi)
		default:
			return nil, promptError(path, 1, "front matter: images entries are paths or tables")
		}
	}
	return p, nil
}

// Prompts is prompts/list.
func (s *Server) Prompts(*protocol.Request) ([]any, *protocol.Error) {
	var out []any
	for _, p := range s.loadPrompts() {
		args := []protocol.PromptArgument{}
		for _, a := range p.Args {
			args = append(args, protocol.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, protocol.PromptDocument(p.Name, p.Title, p.Description, args))
	}
	return out, nil
}

func (s *Server) findPrompt(name string) *prompt {
	for _, p := range s.loadPrompts() {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// renderVM renders prompt templates; its lock serializes renders.
var renderVM = sync.OnceValue(func() *vm.VM { return vm.New(stdlib.NewUniverse(stdlib.Config{})) })

// GetPrompt is prompts/get.
func (s *Server) GetPrompt(r *protocol.Request) any {
	params := r.Params()
	nv, _ := params.Get("name")
	name, _ := nv.(string)
	p := s.findPrompt(name)
	if p == nil {
		return protocol.UnknownPrompt(name)
	}
	av, has := params.Get("arguments")
	args, isObj := av.(*jsonv.Object)
	if has && av != nil && !isObj {
		return protocol.InvalidParams("prompt arguments must be an object")
	}
	if args == nil {
		args = jsonv.NewObject(0)
	}
	for _, a := range p.Args {
		v, ok := args.Get(a.Name)
		if a.Required && (!ok || v == nil) {
			return protocol.InvalidParams("Missing required argument: " + a.Name)
		}
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
	text, err := templates.RenderTemplate(th, p.Body, p.Dir, bindings)
	th.Unlock()
	if err != nil {
		return protocol.Errorf(protocol.CodeInternalError, fmt.Sprintf("prompt %s: %v", p.Name, err))
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

func imageContent(dir string, im promptImage) (*jsonv.Object, error) {
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

// completePrompt lists an argument's suggestions.
func (s *Server) completePrompt(name, argument string) ([]string, *protocol.Error) {
	p := s.findPrompt(name)
	if p == nil {
		return nil, protocol.UnknownPrompt(name)
	}
	for _, a := range p.Args {
		if a.Name == argument {
			return a.Suggestions, nil
		}
	}
	return nil, protocol.UnknownPromptArgument(argument)
}

package mcpserver

import (
	"path/filepath"

	"github.com/harnlang/harn/mcp/promptfile"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/orchestrator/manifest"
)

// Prompts (docs/spec/orchestrator.md §7): every *.harn.prompt file under the
// project root, and under .harn/packages/<alias>/ for each dependency
// alias (names prefixed <alias>/), read afresh for each request by
// package promptfile.

// promptRoots are the project root and the package directory of each
// dependency alias.
func (s *Server) promptRoots() []promptfile.Root {
	roots := []promptfile.Root{{Dir: s.root}}
	if m, err := manifest.LoadWith(s.opts.ManifestPath, s.opts.Manifest); err == nil {
		for _, alias := range m.Dependencies {
			roots = append(roots, promptfile.Root{Dir: filepath.Join(s.root, ".harn", "packages", alias), Prefix: alias + "/"})
		}
	}
	return roots
}

// loadPrompts parses every prompt file; a file that does not parse is
// left out and reported on stderr, once until its problem changes (the
// catalog is rebuilt on every request).
func (s *Server) loadPrompts() []*promptfile.Prompt {
	out, failed := promptfile.Load(s.promptRoots())
	s.promptMu.Lock()
	defer s.promptMu.Unlock()
	for f, msg := range failed {
		if s.promptErrs[f] != msg {
			s.logf("[harn] mcp: prompt %s", msg)
		}
	}
	s.promptErrs = failed
	return out
}

// Prompts is prompts/list.
func (s *Server) Prompts(*protocol.Request) ([]any, *protocol.Error) {
	var out []any
	for _, p := range s.loadPrompts() {
		out = append(out, p.Document())
	}
	return out, nil
}

// GetPrompt is prompts/get.
func (s *Server) GetPrompt(r *protocol.Request) any {
	name, _ := r.Params().Get("name")
	n, _ := name.(string)
	p := promptfile.Find(s.loadPrompts(), n)
	if p == nil {
		return protocol.UnknownPrompt(n)
	}
	return p.Get(r.Params())
}

// completePrompt lists an argument's suggestions.
func (s *Server) completePrompt(name, argument string) ([]string, *protocol.Error) {
	p := promptfile.Find(s.loadPrompts(), name)
	if p == nil {
		return nil, protocol.UnknownPrompt(name)
	}
	return p.Complete(argument)
}

package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/harnlang/harn/mcp/promptfile"
	"github.com/harnlang/harn/mcp/watch"
	"github.com/harnlang/harn/orchestrator/manifest"
)

// Watch polls the project root until stop is closed (docs/spec/orchestrator.md
// §11). A changed harn.toml or Harn source reloads the manifest and the
// handlers (a failure keeps the previous project and is reported on
// stderr); then the list-changed notifications go out:
//
//   - the manifest (harn.toml, or the file --config names) → tools,
//     resources, prompts;
//   - *.harn.prompt → prompts;
//   - harn.lock or .harn/packages/** → tools, resources, prompts.
//
// The first look compares with the project as New found it: a file
// changed while the server started (before Watch runs) is reported.
func (s *Server) Watch(stop <-chan struct{}) {
	s.watcher().Run(s.baseline, stop, s.changed)
}

// snapshot stamps the watched files.
func (s *Server) snapshot() watch.Snapshot { return s.watcher().Snapshot() }

// watcher follows the manifest, harn.lock, Harn sources and prompt
// files under the root, and everything under .harn/packages.
func (s *Server) watcher() *watch.Watcher {
	dotHarn := filepath.Join(s.root, ".harn")
	packages := filepath.Join(dotHarn, "packages")
	inPackages := func(p string) bool { return strings.HasPrefix(p, packages+string(filepath.Separator)) }
	return &watch.Watcher{
		Root: s.root,
		SkipDir: func(p, name string) bool {
			if p == dotHarn || p == packages || inPackages(p) {
				return false
			}
			return promptfile.SkipDir(name)
		},
		Follow: func(p, name string) bool {
			return inPackages(p) || p == s.manifest || name == "harn.toml" || name == "harn.lock" || strings.HasSuffix(name, ".harn") || strings.HasSuffix(name, promptfile.Suffix)
		},
		Poll: 250 * time.Millisecond, Settle: 100 * time.Millisecond,
	}
}

// changed reloads and notifies for the files that differ.
func (s *Server) changed(before, after watch.Snapshot) {
	var manifestChanged, sourceChanged, promptChanged, packagesChanged bool
	packages := filepath.Join(s.root, ".harn", "packages") + string(filepath.Separator)
	for _, p := range watch.Changed(before, after) {
		switch name := filepath.Base(p); {
		case strings.HasPrefix(p, packages) || name == "harn.lock":
			packagesChanged = true
		case p == s.manifest || name == "harn.toml":
			manifestChanged = true
		case strings.HasSuffix(name, promptfile.Suffix):
			promptChanged = true
		case strings.HasSuffix(name, ".harn"):
			sourceChanged = true
		}
	}
	if manifestChanged || sourceChanged {
		if err := s.reload(); err != nil {
			s.logf("[harn] mcp: reload failed; keeping the previous manifest and handlers:\n%s", err)
		} else {
			s.logf("[harn] mcp: reloaded %s", s.opts.ManifestPath)
		}
	}
	var kinds []string
	switch {
	case manifestChanged || packagesChanged:
		kinds = []string{"tools", "resources", "prompts"}
	case promptChanged:
		kinds = []string{"prompts"}
	}
	if len(kinds) > 0 {
		s.proto.NotifyListChanged(kinds...)
	}
}

// reload re-reads the manifest and handlers into the node.
func (s *Server) reload() error {
	m, err := manifest.LoadWith(s.opts.ManifestPath, s.opts.Manifest)
	if err != nil {
		return err
	}
	if path, _ := s.endpoint.Load().(string); path != "" {
		if err := EndpointConflict(m, path); err != nil {
			return err
		}
	}
	return s.orch.Reload(context.Background(), m)
}

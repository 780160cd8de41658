package mcpserver

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

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
func (s *Server) Watch(stop <-chan struct{}) {
	const poll, settle = 250 * time.Millisecond, 100 * time.Millisecond
	last := s.snapshot()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		cur := s.snapshot()
		if maps.Equal(cur, last) {
			continue
		}
		for { // let a burst of writes settle
			select {
			case <-stop:
				return
			case <-time.After(settle):
			}
			next := s.snapshot()
			if maps.Equal(next, cur) {
				break
			}
			cur = next
		}
		s.changed(last, cur)
		last = cur
	}
}

type stamp struct {
	mod  time.Time
	size int64
}

// snapshot stamps the watched files.
func (s *Server) snapshot() map[string]stamp {
	out := map[string]stamp{}
	packages := filepath.Join(s.root, ".harn", "packages")
	filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p == packages || strings.HasPrefix(p, packages+string(filepath.Separator)) || p == filepath.Join(s.root, ".harn") {
				return nil
			}
			if p != s.root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		inPackages := strings.HasPrefix(p, packages+string(filepath.Separator))
		if inPackages || p == s.manifest || name == "harn.toml" || name == "harn.lock" || strings.HasSuffix(name, ".harn") || strings.HasSuffix(name, promptSuffix) {
			if info, err := os.Stat(p); err == nil {
				out[p] = stamp{info.ModTime(), info.Size()}
			}
		}
		return nil
	})
	return out
}

// changed reloads and notifies for the files that differ.
func (s *Server) changed(before, after map[string]stamp) {
	var manifestChanged, sourceChanged, promptChanged, packagesChanged bool
	packages := filepath.Join(s.root, ".harn", "packages") + string(filepath.Separator)
	note := func(p string) {
		switch name := filepath.Base(p); {
		case strings.HasPrefix(p, packages) || name == "harn.lock":
			packagesChanged = true
		case p == s.manifest || name == "harn.toml":
			manifestChanged = true
		case strings.HasSuffix(name, promptSuffix):
			promptChanged = true
		case strings.HasSuffix(name, ".harn"):
			sourceChanged = true
		}
	}
	for p, st := range after {
		if old, ok := before[p]; !ok || old != st {
			note(p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			note(p)
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
	return s.orch.Reload(context.Background(), m)
}

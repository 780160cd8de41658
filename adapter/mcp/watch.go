package mcp

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Watch implements --watch (docs/spec/mcp-projection.md §11): it polls dir
// recursively for changes to *.harn files and harn.toml, waits for a
// burst of changes to settle, and reloads. A reload builds a complete
// replacement surface (new VM, registry, preparation); only a success
// is swapped in, and a failure leaves the previous handlers live. Watch
// returns when stop is closed.
//
// since is the state the serving surface was built from: take it with
// TakeSnapshot before that first build, so a save made while the script
// loads is seen as a change (a snapshot taken later would absorb it).
func (s *Server) Watch(dir string, since Snapshot, reload func() (*Surface, error), stop <-chan struct{}) {
	const poll, settle = 100 * time.Millisecond, 75 * time.Millisecond
	last := since.files
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		cur := snapshot(dir)
		if maps.Equal(cur, last) {
			continue
		}
		// Coalesce a burst: wait until two looks agree.
		for {
			select {
			case <-stop:
				return
			case <-time.After(settle):
			}
			next := snapshot(dir)
			if maps.Equal(next, cur) {
				break
			}
			cur = next
		}
		last = cur
		sf, err := reload()
		if err != nil {
			fmt.Fprintf(s.opts.Stderr, "[harn] serve mcp: reload failed; keeping previous registry: %s\n", strings.TrimSpace(err.Error()))
			continue
		}
		s.Swap(sf)
		fmt.Fprintln(s.opts.Stderr, "[harn] serve mcp: reloaded "+sf.StartupLine(true)[len("[harn] serve mcp: "):])
	}
}

// Snapshot is the modification state of the files --watch follows.
type Snapshot struct{ files map[string]fileStamp }

// TakeSnapshot records the watched files under dir now.
func TakeSnapshot(dir string) Snapshot { return Snapshot{snapshot(dir)} }

type fileStamp struct {
	mod  time.Time
	size int64
}

// snapshot records the watched files under dir, skipping dot
// directories and dependency trees.
func snapshot(dir string) map[string]fileStamp {
	out := map[string]fileStamp{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "target") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".harn") || name == "harn.toml" {
			if info, err := os.Stat(p); err == nil {
				out[p] = fileStamp{info.ModTime(), info.Size()}
			}
		}
		return nil
	})
	return out
}

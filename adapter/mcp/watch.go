package mcp

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harnlang/harn/mcp/watch"
	"github.com/harnlang/harn/tool/load"
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
	watcher(dir).Run(since.files, stop, func(_, _ watch.Snapshot) {
		sf, err := reload()
		if err != nil {
			fmt.Fprint(s.opts.Stderr, reloadFailure(err))
			return
		}
		s.Swap(sf)
		fmt.Fprintln(s.opts.Stderr, "[harn] serve mcp: reloaded "+sf.StartupLine(true)[len("[harn] serve mcp: "):])
	})
}

// reloadFailure is the stderr report of a refused reload: one line, and
// below it the located rendering (file:line:col, source line, caret) the
// first load would have printed, when the error has one.
func reloadFailure(err error) string {
	line := "[harn] serve mcp: reload failed; keeping previous registry: " + strings.TrimSpace(err.Error()) + "\n"
	var le *load.Error
	if errors.As(err, &le) && le.Rendered != "" {
		return line + le.Rendered
	}
	return line
}

// Snapshot is the modification state of the files --watch follows.
type Snapshot struct{ files watch.Snapshot }

// TakeSnapshot records the watched files under dir now.
func TakeSnapshot(dir string) Snapshot { return Snapshot{watcher(dir).Snapshot()} }

// watcher follows the *.harn files and harn.toml under dir, skipping
// dot directories and dependency trees.
func watcher(dir string) *watch.Watcher {
	return &watch.Watcher{
		Root: dir,
		SkipDir: func(_, name string) bool {
			return strings.HasPrefix(name, ".") || name == "node_modules" || name == "target"
		},
		Follow: func(_, name string) bool { return strings.HasSuffix(name, ".harn") || name == "harn.toml" },
		Poll:   100 * time.Millisecond, Settle: 75 * time.Millisecond,
	}
}

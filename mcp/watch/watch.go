// Package watch polls a project directory for the file changes that
// make an MCP server reload what it serves and send its list-changed
// notifications: `harn serve mcp --watch` (docs/spec/mcp-projection.md
// §11) and `harn mcp serve` (docs/spec/orchestrator.md §11). It knows
// which files a server follows only through a Watcher's two filters, and
// what a change means only through the function Run calls.
//
// A change is seen by polling, not by file-system notifications: a
// Snapshot stamps every followed file with its modification time and
// size, and two snapshots that differ are a change. A burst of writes (an
// editor's save, a checkout) is coalesced: Run waits until two looks a
// settle interval apart agree before it reports.
package watch

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"time"
)

// Stamp is what a file's change is seen by.
type Stamp struct {
	Mod  time.Time
	Size int64
}

// Snapshot stamps the followed files, by path.
type Snapshot map[string]Stamp

// Watcher follows the files under Root that its filters keep.
type Watcher struct {
	Root string
	// SkipDir says whether to leave out a directory below Root (never
	// Root itself), by its path and base name.
	SkipDir func(path, name string) bool
	// Follow says whether a file is followed, by its path and base name.
	Follow func(path, name string) bool
	// Poll is how often Run looks; Settle how long it waits between the
	// looks that must agree before a change is reported.
	Poll, Settle time.Duration
}

// Snapshot stamps the followed files now. Files that cannot be read are
// left out, so a file that disappears mid-walk reads as removed.
func (w *Watcher) Snapshot() Snapshot {
	out := Snapshot{}
	filepath.WalkDir(w.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != w.Root && w.SkipDir(p, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if w.Follow(p, d.Name()) {
			if info, err := os.Stat(p); err == nil {
				out[p] = Stamp{info.ModTime(), info.Size()}
			}
		}
		return nil
	})
	return out
}

// Run looks every Poll until stop is closed. When a look differs from
// the last state reported (at first, since), it waits for the burst to
// settle and calls changed with that state and the new one, which
// becomes the last state. changed runs on Run's goroutine, so a slow
// reload delays the next look rather than overlapping it.
func (w *Watcher) Run(since Snapshot, stop <-chan struct{}, changed func(before, after Snapshot)) {
	last := since
	tick := time.NewTicker(w.Poll)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		cur := w.Snapshot()
		if maps.Equal(cur, last) {
			continue
		}
		for {
			select {
			case <-stop:
				return
			case <-time.After(w.Settle):
			}
			next := w.Snapshot()
			if maps.Equal(next, cur) {
				break
			}
			cur = next
		}
		changed(last, cur)
		last = cur
	}
}

// Changed lists the paths added, removed or modified from before to
// after, in no particular order.
func Changed(before, after Snapshot) []string {
	var out []string
	for p, st := range after {
		if old, ok := before[p]; !ok || old != st {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

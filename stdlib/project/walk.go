package project

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	hfs "github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// walkOptions are the options every walking builtin reads.
type walkOptions struct {
	recursive      bool
	include        []glob
	exclude        []glob
	maxDepth       int64 // 0: unlimited
	maxEntries     int64 // 0: unlimited
	followSymlinks bool
	gitignore      bool
	skipDirs       []string // base names never entered nor listed
}

// entry is one thing found under the root.
type entry struct {
	rel   string // relative to the root, '/'-separated
	abs   string
	kind  string // file, dir, symlink, other
	size  int64
	mod   time.Time
	note  string // why a directory was not entered (unreadable, symlink loop)
	isDir bool   // a directory, or a followed symlink to one
}

// note is one thing the walk skipped, with the reason.
type note struct{ rel, reason string }

type walkResult struct {
	entries   []entry
	skipped   []note
	truncated bool
}

// optionsOf reads the options dict (argument i) of builtin name onto the
// defaults.
func optionsOf(name string, a vm.Args, i int, o walkOptions) (walkOptions, error) {
	if !a.Given(i) {
		return o, nil
	}
	d, ok := a.Dict(i)
	if !ok {
		return o, lib.BadOptions(name, a.At(i))
	}
	if err := lib.CheckOptions(name, d, []string{"recursive", "include", "exclude", "max_depth", "max_entries", "follow_symlinks", "gitignore"}); err != nil {
		return o, err
	}
	var err error
	d.Range(func(k string, v vm.Value) bool {
		switch k {
		case "recursive", "follow_symlinks", "gitignore":
			b, isBool := v.AsBool()
			if !isBool {
				err = vm.Typef("%s: option %s must be a bool, got %s", name, k, v.Type())
				return false
			}
			switch k {
			case "recursive":
				o.recursive = bool(b)
			case "follow_symlinks":
				o.followSymlinks = bool(b)
			default:
				o.gitignore = bool(b)
			}
		case "max_depth", "max_entries":
			n, isInt := v.AsInt()
			if !isInt || int64(n) < 0 {
				err = vm.Typef("%s: option %s must be a non-negative int, got %s", name, k, vm.ToDisplay(v))
				return false
			}
			if k == "max_depth" {
				o.maxDepth = int64(n)
			} else {
				o.maxEntries = int64(n)
			}
		case "include", "exclude":
			var gs []glob
			gs, err = globsOf(name, k, v)
			if k == "include" {
				o.include = gs
			} else {
				o.exclude = append(o.exclude, gs...)
			}
		}
		return err == nil
	})
	return o, err
}

// globsOf reads a glob or a list of globs.
func globsOf(name, key string, v vm.Value) ([]glob, error) {
	var pats []string
	if s, ok := v.AsString(); ok {
		pats = []string{s.Go()}
	} else if l, ok := v.AsList(); ok {
		for _, it := range l.Items() {
			s, ok := it.AsString()
			if !ok {
				return nil, vm.Typef("%s: option %s must be a glob or a list of globs, found %s", name, key, it.Type())
			}
			pats = append(pats, s.Go())
		}
	} else {
		return nil, vm.Typef("%s: option %s must be a glob or a list of globs, got %s", name, key, v.Type())
	}
	out := make([]glob, 0, len(pats))
	for _, p := range pats {
		g, err := compileGlob(p)
		if err != nil {
			return nil, vm.Runtimef("%s: invalid glob %q in option %s", name, p, key)
		}
		out = append(out, g)
	}
	return out, nil
}

// rootArg resolves argument 0, a directory path, against the execution
// root.
func rootArg(th *vm.Thread, name string, a vm.Args) (string, error) {
	if !a.Has(0) || a.At(0).Kind() == vm.KNil {
		return "", vm.Runtimef("%s: missing argument 1 (a directory path)", name)
	}
	s, ok := a.At(0).AsString()
	if !ok {
		return "", vm.Typef("%s: expected a directory path (string) at argument 1, got %s", name, a.At(0).Type())
	}
	root := filepath.Clean(hfs.ResolvePath(th, s.Go()))
	info, err := os.Stat(root)
	if err != nil {
		return "", vm.Runtimef("%s: cannot read %s: %s", name, s.Go(), hfs.OSErrorText(err))
	}
	if !info.IsDir() {
		return "", vm.Runtimef("%s: %s is not a directory", name, s.Go())
	}
	return root, nil
}

// walk lists root depth first, names in byte order, a directory before
// its contents. Unreadable directories and symlink loops are noted and
// skipped, never fatal.
func walk(th *vm.Thread, root string, o walkOptions) (walkResult, error) {
	w := &walker{th: th, o: o, pacer: lib.Pacer{Th: th}}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	var rules []ignoreRule
	if o.gitignore {
		rules = readIgnore(root, "", rules)
	}
	err = w.dir(root, "", 1, rules, []string{real})
	return w.res, err
}

type walker struct {
	th    *vm.Thread
	o     walkOptions
	res   walkResult
	pacer lib.Pacer
	stop  bool
}

func readIgnore(dirAbs, rel string, rules []ignoreRule) []ignoreRule {
	b, err := os.ReadFile(filepath.Join(dirAbs, ".gitignore"))
	if err != nil {
		return rules
	}
	return append(slices.Clip(rules), parseGitignore(string(b), rel)...)
}

func (w *walker) add(e entry) {
	if w.o.maxEntries > 0 && int64(len(w.res.entries)) >= w.o.maxEntries {
		w.res.truncated = true
		w.stop = true
		return
	}
	w.res.entries = append(w.res.entries, e)
}

func (w *walker) dir(abs, rel string, depth int64, rules []ignoreRule, ancestors []string) error {
	des, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return err
		}
		w.res.skipped = append(w.res.skipped, note{rel, "unreadable: " + hfs.OSErrorText(err)})
		if n := len(w.res.entries); n > 0 && w.res.entries[n-1].rel == rel {
			w.res.entries[n-1].note = "unreadable: " + hfs.OSErrorText(err)
		}
		return nil
	}
	for _, de := range des {
		if w.stop {
			return nil
		}
		if err := w.pacer.Step(); err != nil {
			return err
		}
		name := de.Name()
		crel := name
		if rel != "" {
			crel = rel + "/" + name
		}
		if slices.Contains(w.o.skipDirs, name) && de.IsDir() {
			continue
		}
		if o := w.o; o.gitignore && name == ".git" {
			continue
		}
		cabs := filepath.Join(abs, name)
		info, err := os.Lstat(cabs)
		if err != nil {
			w.res.skipped = append(w.res.skipped, note{crel, "unreadable: " + hfs.OSErrorText(err)})
			continue
		}
		e := entry{rel: crel, abs: cabs, size: info.Size(), mod: info.ModTime()}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			e.kind = "symlink"
			if w.o.followSymlinks {
				target, err := os.Stat(cabs)
				if err != nil {
					w.res.skipped = append(w.res.skipped, note{crel, "broken symlink: " + hfs.OSErrorText(err)})
					e.note = "broken symlink"
					break
				}
				e.size, e.mod = target.Size(), target.ModTime()
				if target.IsDir() {
					e.kind, e.isDir = "dir", true
				} else if target.Mode().IsRegular() {
					e.kind = "file"
				} else {
					e.kind = "other"
				}
			}
		case info.IsDir():
			e.kind, e.isDir = "dir", true
		case info.Mode().IsRegular():
			e.kind = "file"
		default:
			e.kind = "other"
		}
		if excluded(w.o.exclude, crel) {
			continue
		}
		if w.o.gitignore && ignored(rules, crel, e.isDir) {
			continue
		}
		if !e.isDir {
			if len(w.o.include) > 0 && !excluded(w.o.include, crel) {
				continue
			}
			w.add(e)
			continue
		}
		descend := w.o.recursive && (w.o.maxDepth == 0 || depth < w.o.maxDepth)
		var real string
		if descend {
			real, err = filepath.EvalSymlinks(cabs)
			if err != nil {
				real = cabs
			}
			if slices.Contains(ancestors, real) {
				e.note = "symlink loop"
				w.res.skipped = append(w.res.skipped, note{crel, "symlink loop"})
				descend = false
			}
		}
		if len(w.o.include) == 0 {
			w.add(e)
		}
		if descend && !w.stop {
			crules := rules
			if w.o.gitignore {
				crules = readIgnore(cabs, crel, rules)
			}
			if err := w.dir(cabs, crel, depth+1, crules, append(slices.Clip(ancestors), real)); err != nil {
				return err
			}
		}
	}
	return nil
}

// excluded reports whether any glob matches rel.
func excluded(gs []glob, rel string) bool {
	for _, g := range gs {
		if g.match(rel) {
			return true
		}
	}
	return false
}

// entryDict is an entry as scripts see it.
func entryDict(e entry) *vm.Dict {
	d := lib.DictOf(
		"path", vm.Str(e.rel),
		"kind", vm.Str(e.kind),
		"size", vm.IntOf(e.size),
		"modified", vm.FloatOf(float64(e.mod.UnixNano())/1e9),
	)
	if e.note != "" {
		d = d.Set("note", vm.Str(e.note))
	}
	return d
}

func skippedList(ns []note) *vm.List {
	out := make([]vm.Value, len(ns))
	for i, n := range ns {
		out[i] = vm.Of(lib.DictOf("path", vm.Str(n.rel), "reason", vm.Str(n.reason)))
	}
	return lib.List(out)
}

// walkErr words a failure to read the root itself.
func walkErr(name, given string, err error) error {
	var e *vm.Error
	if errors.As(err, &e) {
		return err
	}
	return vm.Runtimef("%s: cannot read %s: %s", name, given, hfs.OSErrorText(err))
}

// slashRel is p relative to base with '/' separators, or "" when p is not
// under base.
func slashRel(base, p string) (string, bool) {
	r, err := filepath.Rel(base, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return path.Clean(filepath.ToSlash(r)), true
}

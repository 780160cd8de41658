package project

// The walking and introspection builtins (docs/project.md).

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	hfs "github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/templates"
	"github.com/harnlang/harn/vm"
)

// scanDefaults are scan_directory's defaults: everything, recursively.
var scanDefaults = walkOptions{recursive: true}

// projectDefaults are the project_* walkers' defaults: .gitignore
// respected, and the repository and state directories never entered.
var projectDefaults = walkOptions{recursive: true, gitignore: true, skipDirs: []string{".git", ".harn"}}

func init() {
	lib.Def("scan_directory", "scan_directory(path: string, options?: dict) -> list",
		"the entries under a directory, depth first in name order: [{path, kind, size, modified}] with paths relative to it; options recursive (true), include/exclude globs, max_depth, max_entries, follow_symlinks (false), gitignore (false)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "scan_directory"
			res, _, err := walkArgs(th, name, a, scanDefaults)
			if err != nil {
				return vm.Value{}, err
			}
			out := make([]vm.Value, len(res.entries))
			for i, e := range res.entries {
				out[i] = vm.Of(entryDict(e))
			}
			return vm.Of(lib.List(out)), nil
		})
	lib.Def("project_walk_tree_native", "project_walk_tree_native(root: string, options?: dict) -> dict",
		"walk a project: {root, entries, skipped, truncated}; like scan_directory but .gitignore is respected and .git/.harn are skipped by default",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			res, root, err := walkArgs(th, "project_walk_tree_native", a, projectDefaults)
			if err != nil {
				return vm.Value{}, err
			}
			out := make([]vm.Value, len(res.entries))
			for i, e := range res.entries {
				out[i] = vm.Of(entryDict(e))
			}
			return vm.Of(lib.DictOf(
				"root", vm.Str(filepath.ToSlash(root)),
				"entries", lib.List(out),
				"skipped", skippedList(res.skipped),
				"truncated", vm.BoolOf(res.truncated),
			)), nil
		})
	lib.Def("project_scan_tree_native", "project_scan_tree_native(root: string, options?: dict) -> dict",
		"the project as a nested tree: {name, path, kind: \"dir\", children: [...]} (files {name, path, kind, size}), plus file_count, dir_count, skipped and truncated at the top",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			res, root, err := walkArgs(th, "project_scan_tree_native", a, projectDefaults)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(buildTree(root, res)), nil
		})
	lib.Def("project_scan_native", "project_scan_native(root: string, options?: dict) -> dict",
		"detect a project's languages (by file extension), build files, test directories and files, and entry points",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			res, root, err := walkArgs(th, "project_scan_native", a, projectDefaults)
			if err != nil {
				return vm.Value{}, err
			}
			s := summarize(res)
			return vm.Of(lib.DictOf(
				"root", vm.Str(filepath.ToSlash(root)),
				"languages", s.languageList(),
				"primary_language", s.primary(),
				"build_files", s.buildFileList(),
				"test_dirs", lib.StrList(s.testDirs),
				"test_files", lib.StrList(s.testFiles),
				"entry_points", lib.StrList(s.entryPoints),
				"file_count", lib.IntOf(s.files),
				"dir_count", lib.IntOf(s.dirs),
				"total_size", vm.IntOf(s.size),
				"skipped", skippedList(res.skipped),
				"truncated", vm.BoolOf(res.truncated),
			)), nil
		})
	lib.Def("project_catalog_native", "project_catalog_native(root: string, options?: dict) -> dict",
		"a compact catalog of a project: {name, root, languages: {name: files}, primary_language, manifests, top_level_dirs, top_level_files, test_dirs, entry_points, file_count, dir_count, total_size}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			res, root, err := walkArgs(th, "project_catalog_native", a, projectDefaults)
			if err != nil {
				return vm.Value{}, err
			}
			s := summarize(res)
			langs := vm.NewDict()
			for _, l := range s.languages() {
				langs = langs.Set(l.name, lib.IntOf(l.files))
			}
			var manifests, topDirs, topFiles []string
			for _, b := range s.buildFiles {
				manifests = append(manifests, b.path)
			}
			for _, e := range res.entries {
				if strings.Contains(e.rel, "/") {
					continue
				}
				if e.isDir {
					topDirs = append(topDirs, e.rel)
				} else {
					topFiles = append(topFiles, e.rel)
				}
			}
			return vm.Of(lib.DictOf(
				"name", vm.Str(filepath.Base(root)),
				"root", vm.Str(filepath.ToSlash(root)),
				"languages", langs,
				"primary_language", s.primary(),
				"manifests", lib.StrList(manifests),
				"top_level_dirs", lib.StrList(topDirs),
				"top_level_files", lib.StrList(topFiles),
				"test_dirs", lib.StrList(s.testDirs),
				"entry_points", lib.StrList(s.entryPoints),
				"file_count", lib.IntOf(s.files),
				"dir_count", lib.IntOf(s.dirs),
				"total_size", vm.IntOf(s.size),
				"truncated", vm.BoolOf(res.truncated),
			)), nil
		})
	lib.Def("project_fingerprint", "project_fingerprint(root: string, options?: dict) -> string",
		"a stable sha256 (hex) of a project's files: their paths and contents, .gitignore'd files, .git and .harn left out; changes when any file is added, removed, renamed or edited",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			res, _, err := walkArgs(th, "project_fingerprint", a, projectDefaults)
			if err != nil {
				return vm.Value{}, err
			}
			sum, err := fingerprint(th, res)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Str(sum), nil
		})
	lib.Def("compute_content_hash", "compute_content_hash(value) -> string",
		"sha256 (lower-case hex) of a string's UTF-8 text or of bytes; {path} hashes a file's content (a directory: its project_fingerprint); other data hashes its canonical JSON",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "compute_content_hash"
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 1", name)
			}
			v := a.At(0)
			if v.Kind() == vm.KNil {
				return vm.Value{}, vm.Runtimef("%s: cannot hash nil", name)
			}
			if s, ok := v.AsString(); ok {
				return vm.Str(sha256Hex([]byte(s.Go()))), nil
			}
			if b, ok := v.Object().(*lib.Bytes); ok {
				return vm.Str(sha256Hex(b.Data())), nil
			}
			if d, ok := v.AsDict(); ok {
				if p, ok := d.Get("path"); ok {
					ps, isStr := p.AsString()
					if !isStr {
						return vm.Value{}, vm.Typef("%s: path must be a string, got %s", name, p.Type())
					}
					return hashPath(th, name, ps.Go())
				}
			}
			if err := checkData(name, v); err != nil {
				return vm.Value{}, err
			}
			return vm.Str(sha256Hex([]byte(templates.SerdeJSON(v, "")))), nil
		})
}

// walkArgs reads (root, options?) and walks.
func walkArgs(th *vm.Thread, name string, a vm.Args, defaults walkOptions) (walkResult, string, error) {
	root, err := rootArg(th, name, a)
	if err != nil {
		return walkResult{}, "", err
	}
	o, err := optionsOf(name, a, 1, defaults)
	if err != nil {
		return walkResult{}, "", err
	}
	res, err := walk(th, root, o)
	if err != nil {
		return walkResult{}, "", walkErr(name, a.Text(0), err)
	}
	return res, root, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// fileHash is the sha256 of a file's content.
func fileHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashPath hashes a file, or fingerprints a directory.
func hashPath(th *vm.Thread, name, given string) (vm.Value, error) {
	p := hfs.ResolvePath(th, given)
	info, err := os.Stat(p)
	if err != nil {
		return vm.Value{}, vm.Runtimef("%s: cannot read %s: %s", name, given, hfs.OSErrorText(err))
	}
	if info.IsDir() {
		res, err := walk(th, filepath.Clean(p), projectDefaults)
		if err != nil {
			return vm.Value{}, walkErr(name, given, err)
		}
		sum, err := fingerprint(th, res)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(sum), nil
	}
	sum, err := fileHash(p)
	if err != nil {
		return vm.Value{}, vm.Runtimef("%s: cannot read %s: %s", name, given, hfs.OSErrorText(err))
	}
	return vm.Str(sum), nil
}

// fingerprint hashes, in walk order, one line per file: its path, a NUL
// and its content's sha256 (a symlink not followed: "link:" and its
// target; an unreadable file: "unreadable").
func fingerprint(th *vm.Thread, res walkResult) (string, error) {
	h := sha256.New()
	pacer := lib.Pacer{Th: th}
	for _, e := range res.entries {
		if e.isDir {
			continue
		}
		if err := pacer.Step(); err != nil {
			return "", err
		}
		var sum string
		switch e.kind {
		case "symlink":
			t, err := os.Readlink(e.abs)
			if err != nil {
				sum = "unreadable"
			} else {
				sum = "link:" + filepath.ToSlash(t)
			}
		case "file":
			s, err := fileHash(e.abs)
			if err != nil {
				sum = "unreadable"
			} else {
				sum = s
			}
		default:
			sum = e.kind
		}
		io.WriteString(h, e.rel+"\x00"+sum+"\n")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// buildTree nests the walk's entries under their directories.
func buildTree(root string, res walkResult) *vm.Dict {
	type node struct {
		e        entry
		children []*node
	}
	top := &node{e: entry{rel: "", kind: "dir", isDir: true}}
	dirs := map[string]*node{"": top}
	files, nDirs := 0, 0
	// dirOf finds or makes the node of directory rel (an include filter
	// lists files only, so their directories are made here).
	var dirOf func(rel string) *node
	dirOf = func(rel string) *node {
		if rel == "." || rel == "" {
			return top
		}
		if n := dirs[rel]; n != nil {
			return n
		}
		parent := dirOf(path.Dir(rel))
		n := &node{e: entry{rel: rel, kind: "dir", isDir: true}}
		parent.children = append(parent.children, n)
		dirs[rel] = n
		nDirs++
		return n
	}
	for _, e := range res.entries {
		parent := dirOf(path.Dir(e.rel))
		n := &node{e: e}
		parent.children = append(parent.children, n)
		if e.isDir {
			dirs[e.rel] = n
			nDirs++
		} else {
			files++
		}
	}
	var conv func(n *node) *vm.Dict
	conv = func(n *node) *vm.Dict {
		name := path.Base(n.e.rel)
		if n.e.rel == "" {
			name = filepath.Base(root)
		}
		d := lib.DictOf("name", vm.Str(name), "path", vm.Str(n.e.rel), "kind", vm.Str(n.e.kind))
		if n.e.isDir {
			kids := make([]vm.Value, len(n.children))
			for i, c := range n.children {
				kids[i] = vm.Of(conv(c))
			}
			d = d.Set("children", vm.Of(lib.List(kids)))
		} else {
			d = d.Set("size", vm.IntOf(n.e.size))
		}
		if n.e.note != "" {
			d = d.Set("note", vm.Str(n.e.note))
		}
		return d
	}
	d := conv(top)
	d = d.Set("file_count", lib.IntOf(files)).Set("dir_count", lib.IntOf(nDirs))
	d = d.Set("skipped", vm.Of(skippedList(res.skipped))).Set("truncated", vm.BoolOf(res.truncated))
	return d
}

// languageByExt maps file extensions to the language they are code in.
// Documentation and data formats (Markdown, JSON, YAML, TOML) are not
// languages here.
var languageByExt = map[string]string{
	".go": "Go", ".py": "Python", ".pyi": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
	".ts": "TypeScript", ".tsx": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin",
	".rb": "Ruby", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++",
	".cs": "C#", ".swift": "Swift", ".php": "PHP", ".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".harn": "Harn",
	".scala": "Scala", ".lua": "Lua", ".ex": "Elixir", ".exs": "Elixir", ".hs": "Haskell", ".zig": "Zig", ".dart": "Dart",
	".m": "Objective-C", ".r": "R", ".R": "R", ".pl": "Perl", ".sql": "SQL", ".vue": "Vue", ".svelte": "Svelte",
}

// buildFileKinds maps the base names of build files and manifests to
// their ecosystem.
var buildFileKinds = map[string]string{
	"go.mod": "go", "go.work": "go", "package.json": "node", "deno.json": "deno", "Cargo.toml": "rust",
	"pyproject.toml": "python", "setup.py": "python", "setup.cfg": "python", "requirements.txt": "python", "Pipfile": "python",
	"harn.toml": "harn", "Makefile": "make", "CMakeLists.txt": "cmake", "pom.xml": "maven", "build.gradle": "gradle",
	"build.gradle.kts": "gradle", "Gemfile": "ruby", "composer.json": "php", "mix.exs": "elixir", "Package.swift": "swift",
}

var testDirNames = map[string]bool{"test": true, "tests": true, "__tests__": true, "spec": true, "specs": true, "e2e": true}

var entryPointNames = map[string]bool{
	"main.go": true, "main.py": true, "__main__.py": true, "app.py": true, "manage.py": true, "main.rs": true,
	"main.harn": true, "index.js": true, "index.ts": true, "main.js": true, "main.ts": true, "server.js": true,
	"Main.java": true, "main.c": true, "main.cpp": true, "main.rb": true,
}

// isTestFile tells the usual test file names apart.
func isTestFile(base string) bool {
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_spec"):
		return true
	case strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"):
		return true
	case strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"):
		return true
	case strings.HasSuffix(stem, "Test") && strings.HasSuffix(base, ".java"):
		return true
	}
	return false
}

type buildFile struct{ path, kind string }

type summary struct {
	langCount   map[string]int
	buildFiles  []buildFile
	testDirs    []string
	testFiles   []string
	entryPoints []string
	files, dirs int
	size        int64
}

type langCount struct {
	name  string
	files int
}

func summarize(res walkResult) *summary {
	s := &summary{langCount: map[string]int{}}
	for _, e := range res.entries {
		base := path.Base(e.rel)
		if e.isDir {
			s.dirs++
			if testDirNames[base] {
				s.testDirs = append(s.testDirs, e.rel)
			}
			continue
		}
		s.files++
		s.size += e.size
		if l, ok := languageByExt[path.Ext(base)]; ok {
			s.langCount[l]++
		}
		if k, ok := buildFileKinds[base]; ok {
			s.buildFiles = append(s.buildFiles, buildFile{e.rel, k})
		}
		if isTestFile(base) {
			s.testFiles = append(s.testFiles, e.rel)
		}
		if entryPointNames[base] {
			s.entryPoints = append(s.entryPoints, e.rel)
		}
	}
	return s
}

// languages are the languages found, most files first, then by name.
func (s *summary) languages() []langCount {
	out := make([]langCount, 0, len(s.langCount))
	for n, c := range s.langCount {
		out = append(out, langCount{n, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].files != out[j].files {
			return out[i].files > out[j].files
		}
		return out[i].name < out[j].name
	})
	return out
}

func (s *summary) primary() vm.Value {
	if ls := s.languages(); len(ls) > 0 {
		return vm.Str(ls[0].name)
	}
	return vm.Nil
}

func (s *summary) languageList() *vm.List {
	ls := s.languages()
	out := make([]vm.Value, len(ls))
	for i, l := range ls {
		out[i] = vm.Of(lib.DictOf("name", vm.Str(l.name), "files", lib.IntOf(l.files)))
	}
	return lib.List(out)
}

func (s *summary) buildFileList() *vm.List {
	out := make([]vm.Value, len(s.buildFiles))
	for i, b := range s.buildFiles {
		out[i] = vm.Of(lib.DictOf("path", vm.Str(b.path), "kind", vm.Str(b.kind)))
	}
	return lib.List(out)
}

package fs

// Path helpers (docs/spec/builtins.md §4.1). dirname/basename/extname follow OS path
// semantics; the path_* family is pure string manipulation that reads `\`
// as `/` and understands an optional `C:` drive prefix.

import (
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("path_join", "path_join(...parts) -> string", "join with /; an absolute part restarts", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		out := ""
		for k := 0; k < a.Len(); k++ {
			p := a.Text(k)
			switch {
			case strings.HasPrefix(p, "/"):
				out = p
			case out == "":
				out = p
			case strings.HasSuffix(out, "/"):
				out += p
			default:
				out += "/" + p
			}
		}
		return vm.Str(out), nil
	})
	lib.Def("dirname", "dirname(p) -> string", "the parent path (\"\" when none)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(osParent(a.Text(0))), nil
	})
	lib.Def("basename", "basename(p) -> string", "the final component", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(osFileName(a.Text(0))), nil
	})
	lib.Def("extname", "extname(p) -> string", "the extension with its dot (\"\" when none)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if ext, ok := osExtension(osFileName(a.Text(0))); ok {
			return vm.Str("." + ext), nil
		}
		return vm.Str(""), nil
	})

	lib.Def("path_parts", "path_parts(p) -> dict", "{dir, file, stem, ext, segments}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p := posixPath(a.Text(0))
		file := pathBase(p)
		return vm.Of(lib.DictOf("dir", vm.Str(pathParent(p)), "file", vm.Str(file), "stem", vm.Str(stemOf(file)),
			"ext", vm.Str(dotExt(file)), "segments", lib.StrList(pathSegments(p)))), nil
	})
	lib.Def("path_parent", "path_parent(p) -> string", "the parent path", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(pathParent(posixPath(a.Text(0)))), nil
	})
	lib.Def("path_basename", "path_basename(p) -> string", "the final component", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(pathBase(posixPath(a.Text(0)))), nil
	})
	lib.Def("path_stem", "path_stem(p) -> string", "the file name without its extension", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(stemOf(pathBase(posixPath(a.Text(0))))), nil
	})
	lib.Def("path_extension", "path_extension(p) -> string", "the extension with its dot (\"\" for dot-files)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(dotExt(pathBase(posixPath(a.Text(0))))), nil
	})
	lib.Def("path_with_extension", "path_with_extension(p, ext) -> string", "p with its extension replaced", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p := posixPath(a.Text(0))
		ext := strings.TrimPrefix(a.Text(1), ".")
		if !a.Given(1) {
			ext = ""
		}
		dir, file := splitDirFile(p)
		name := stemOf(file)
		if ext != "" {
			name += "." + ext
		}
		return vm.Str(dir + name), nil
	})
	lib.Def("path_with_stem", "path_with_stem(p, stem) -> string", "p with its stem replaced", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p := posixPath(a.Text(0))
		dir, file := splitDirFile(p)
		return vm.Str(dir + a.Text(1) + dotExt(file)), nil
	})
	lib.Def("path_is_absolute", "path_is_absolute(p) -> bool", "whether p is absolute", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.BoolOf(pathIsAbs(posixPath(a.Text(0)))), nil
	})
	lib.Def("path_is_relative", "path_is_relative(p) -> bool", "whether p is relative", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.BoolOf(!pathIsAbs(posixPath(a.Text(0)))), nil
	})
	lib.Def("path_normalize", "path_normalize(p) -> string", "drop `.`, resolve `..`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(normalizePath(a.Text(0))), nil
	})
	lib.Def("path_relative_to", "path_relative_to(p, base) -> string?", "p relative to base (nil when one is absolute and the other not)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		rel, ok := relativePath(a.Text(0), a.Text(1))
		if !ok {
			return vm.Nil, nil
		}
		return vm.Str(rel), nil
	})
	lib.Def("path_to_posix", "path_to_posix(p) -> string", "backslashes to slashes", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(posixPath(a.Text(0))), nil
	})
	lib.Def("path_to_native", "path_to_native(p) -> string", "the platform's separator", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(posixPath(a.Text(0))), nil
	})
	lib.Def("path_segments", "path_segments(p) -> list<string>", "the non-empty components", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(lib.StrList(pathSegments(posixPath(a.Text(0))))), nil
	})
	lib.Def("path_workspace_info", "path_workspace_info(p, root?)", "how p relates to a workspace root", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(workspaceInfo(th, a)), nil
	})
	lib.Def("path_workspace_normalize", "path_workspace_normalize(p, root?)", "p relative to the workspace root when inside it", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		info := workspaceInfo(th, a)
		if rel, _ := info.Get("relative"); !rel.IsNil() {
			return rel, nil
		}
		v, _ := info.Get("normalized")
		return v, nil
	})
}

// ---- OS path semantics (Rust's Path) ----

// osComponents splits p into its normal components, reporting whether it
// is rooted; `.` components (other than a leading one) are dropped.
func osFileName(p string) string {
	t := trimCurDirs(p)
	name := t[strings.LastIndexByte(t, '/')+1:]
	if name == ".." || name == "." {
		return ""
	}
	return name
}

// trimCurDirs drops trailing slashes and trailing `.` components, which
// Rust's Path ignores ("foo.txt/." names the file foo.txt); a leading
// `.` and the root stay.
func trimCurDirs(p string) string {
	t := strings.TrimRight(p, "/")
	for strings.HasSuffix(t, "/.") {
		t = strings.TrimRight(strings.TrimSuffix(t, "/."), "/")
	}
	return t
}

func osParent(p string) string {
	t := trimCurDirs(p)
	if t == "" {
		return ""
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return ""
	}
	if i == 0 {
		return "/"
	}
	if r := trimCurDirs(t[:i]); r != "" {
		return r
	}
	return "/"
}

// extensionOf is Rust's Path::extension of a file name (no dot; "" for
// dot-files and names without a dot).
// osExtension is Rust's Path::extension of a file name: the text after
// the last dot, present (possibly empty, as in "a.") unless the name has
// no dot or its only dot leads it (".bashrc").
func osExtension(name string) (string, bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || name == ".." {
		return "", false
	}
	return name[i+1:], true
}

func extensionOf(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || name == ".." {
		return ""
	}
	return name[i+1:]
}

// ---- string path helpers ----

func posixPath(p string) string { return strings.ReplaceAll(p, `\`, "/") }

// drivePrefix returns a leading "C:" (or "").
func drivePrefix(p string) string {
	if len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) {
		return p[:2]
	}
	return ""
}

func pathIsAbs(p string) bool {
	return strings.HasPrefix(p[len(drivePrefix(p)):], "/")
}

func pathSegments(p string) []string {
	var out []string
	for _, s := range strings.Split(p[len(drivePrefix(p)):], "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

func pathBase(p string) string {
	segs := pathSegments(p)
	if len(segs) == 0 {
		return ""
	}
	return segs[len(segs)-1]
}

func pathParent(p string) string {
	drive := drivePrefix(p)
	rest := strings.TrimRight(p[len(drive):], "/")
	i := strings.LastIndexByte(rest, '/')
	switch {
	case i < 0:
		return drive
	case i == 0:
		return drive + "/"
	}
	return drive + strings.TrimRight(rest[:i], "/")
}

// splitDirFile splits p into its directory prefix (with trailing slash)
// and file name.
func splitDirFile(p string) (string, string) {
	t := strings.TrimRight(p, "/")
	i := strings.LastIndexByte(t, '/')
	return t[:i+1], t[i+1:]
}

func stemOf(file string) string {
	if ext := extensionOf(file); ext != "" {
		return file[:len(file)-len(ext)-1]
	}
	return file
}

func dotExt(file string) string {
	if ext := extensionOf(file); ext != "" {
		return "." + ext
	}
	return ""
}

// normalizePath drops `.` components and resolves `..` lexically, keeping
// leading `..` of relative paths; a path that cancels out entirely is ".".
func normalizePath(raw string) string {
	p := posixPath(raw)
	drive := drivePrefix(p)
	abs := pathIsAbs(p)
	var out []string
	for _, s := range pathSegments(p) {
		if s == ".." {
			if len(out) > 0 && out[len(out)-1] != ".." {
				out = out[:len(out)-1]
				continue
			}
			if abs {
				continue
			}
		}
		out = append(out, s)
	}
	joined := strings.Join(out, "/")
	switch {
	case abs:
		return drive + "/" + joined
	case joined == "":
		if drive != "" {
			return drive
		}
		return "."
	}
	return drive + joined
}

func relativePath(p, base string) (string, bool) {
	np, nb := normalizePath(p), normalizePath(base)
	if pathIsAbs(np) != pathIsAbs(nb) || drivePrefix(np) != drivePrefix(nb) {
		return "", false
	}
	ps, bs := pathSegments(np), pathSegments(nb)
	if nb == "." {
		bs = nil
	}
	if np == "." {
		ps = nil
	}
	k := 0
	for k < len(ps) && k < len(bs) && ps[k] == bs[k] {
		k++
	}
	var out []string
	for j := k; j < len(bs); j++ {
		out = append(out, "..")
	}
	out = append(out, ps[k:]...)
	if len(out) == 0 {
		return ".", true
	}
	return strings.Join(out, "/"), true
}

// workspaceInfo describes p relative to a workspace root (default: the
// execution root): {input, normalized, absolute, relative, inside, root}.
func workspaceInfo(th *vm.Thread, a vm.Args) *vm.Dict {
	input := a.Text(0)
	root := ExecutionRoot(th)
	if a.Given(1) {
		// a relative root, like any relative path, is under the execution
		// root: the absolute result is then absolute too
		if r := a.Text(1); pathIsAbs(normalizePath(r)) {
			root = r
		} else {
			root += "/" + r
		}
	}
	root = normalizePath(root)
	norm := normalizePath(input)
	abs := norm
	if !pathIsAbs(norm) && pathIsAbs(root) {
		abs = normalizePath(root + "/" + norm)
	}
	var relV vm.Value = vm.Nil
	inside := false
	if rel, ok := relativePath(abs, root); ok && rel != ".." && !strings.HasPrefix(rel, "../") {
		relV = vm.Str(rel)
		inside = true
	}
	return lib.DictOf("input", vm.Str(input), "normalized", vm.Str(norm), "absolute", vm.Str(abs),
		"relative", relV, "inside", vm.BoolOf(inside), "root", vm.Str(root))
}

package fs

// Files and directories (docs/spec/builtins.md §4.1). Relative paths resolve against
// the execution root (the run's working directory); error texts carry the
// resolved path and the OS error worded as Rust's io::Error prints it
// ("No such file or directory (os error 2)").

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/concurrency"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/text"
	"github.com/harnlang/harn/vm"
)

type execRootKey struct{}

// SetExecutionRoot overrides the directory relative paths resolve against
// (default: the process working directory).
func SetExecutionRoot(m *vm.VM, dir string) {
	*m.Local(execRootKey{}, func() any { return new(string) }).(*string) = dir
}

// ExecutionRoot is the run's working directory.
func ExecutionRoot(th *vm.Thread) string {
	if p, ok := th.VM().Local(execRootKey{}, nil).(*string); ok && *p != "" {
		return *p
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// ResolvePath joins a relative path onto the execution root, without
// normalising it (as Rust's Path::join does).
func ResolvePath(th *vm.Thread, p string) string {
	if p == "" {
		return ExecutionRoot(th)
	}
	if filepath.IsAbs(p) {
		return p
	}
	root := ExecutionRoot(th)
	if strings.HasSuffix(root, "/") {
		return root + p
	}
	return root + "/" + p
}

// osErrText words a Go file-system error like Rust's io::Error Display.
// OSErrorText renders an OS error the way upstream Harn does (Rust's
// wording): "No such file or directory (os error 2)".
func OSErrorText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		msg := errno.Error()
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		return msg + " (os error " + strconv.Itoa(int(errno)) + ")"
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return "No such file or directory (os error 2)"
	}
	if errors.Is(err, fs.ErrPermission) {
		return "Permission denied (os error 13)"
	}
	return err.Error()
}

var errNotUTF8 = errors.New("stream did not contain valid UTF-8")

// errNotFile is the error of copying a source that is not a regular file
// (a directory, a device, …), worded as Rust's fs::copy words it.
var errNotFile = errors.New("the source path is neither a regular file nor a symlink to a regular file")

// ReadText reads a whole file as strict UTF-8, as Rust's read_to_string
// does: invalid bytes are the error "stream did not contain valid UTF-8"
// (OSErrorText gives it unchanged), never replacement characters.
func ReadText(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errNotUTF8
	}
	return string(b), nil
}

// contentBytes is what write_file writes: bytes as is, anything else as
// its display form.
func contentBytes(v vm.Value) []byte {
	if b, ok := v.Object().(*lib.Bytes); ok {
		return b.Data()
	}
	return []byte(vm.ToDisplay(v))
}

func init() {
	lib.Def("read_file", "read_file(path) -> string", "a file's text", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p := ResolvePath(th, a.Text(0))
		s, err := ReadText(p)
		if err != nil {
			return vm.Value{}, vm.Throwf("Failed to read file %s: %s", p, OSErrorText(err))
		}
		return vm.Str(s), nil
	})
	lib.Def("read_file_result", "read_file_result(path)", "Ok(text) or Err(message); never throws", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p := ResolvePath(th, a.Text(0))
		s, err := ReadText(p)
		if err != nil {
			return vm.Of(vm.Err(vm.Str("Failed to read file " + p + ": " + OSErrorText(err)))), nil
		}
		return vm.Of(vm.Ok(vm.Str(s))), nil
	})
	lib.Def("read_file_bytes", "read_file_bytes(path) -> bytes", "a file's bytes", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p := ResolvePath(th, a.Text(0))
		b, err := os.ReadFile(p)
		if err != nil {
			return vm.Value{}, vm.Throwf("Failed to read file %s: %s", p, OSErrorText(err))
		}
		return vm.Of(lib.NewBytes(b)), nil
	})
	lib.Def("read_lines", "read_lines(path) -> list<string>", "a file's lines", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p := ResolvePath(th, a.Text(0))
		s, err := ReadText(p)
		if err != nil {
			return vm.Value{}, vm.Throwf("read_lines: %s: %s", p, OSErrorText(err))
		}
		return vm.Of(lib.StrList(text.Lines(s))), nil // split like .lines()
	})
	lib.Def("write_file", "write_file(path, content)", "create or truncate a file with content; fewer than 2 arguments do nothing, a nil path is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Nil, nil
		}
		if !a.Given(0) {
			return vm.Value{}, vm.Throwf("write_file: path is required")
		}
		p := ResolvePath(th, a.Text(0))
		if err := os.WriteFile(p, contentBytes(a.At(1)), 0o644); err != nil {
			return vm.Value{}, vm.Throwf("Failed to write file %s: %s", p, OSErrorText(err))
		}
		return vm.Nil, nil
	})
	lib.Def("write_file_bytes", "write_file_bytes(path, b)", "write raw bytes; a nil path is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		b, ok := a.At(1).Object().(*lib.Bytes)
		if !ok {
			return vm.Value{}, vm.Throwf("write_file_bytes expects bytes content, got %s", a.At(1).Type())
		}
		if !a.Given(0) {
			return vm.Value{}, vm.Throwf("write_file_bytes: path is required")
		}
		p := ResolvePath(th, a.Text(0))
		if err := os.WriteFile(p, b.Data(), 0o644); err != nil {
			return vm.Value{}, vm.Throwf("Failed to write file %s: %s", p, OSErrorText(err))
		}
		return vm.Nil, nil
	})
	lib.Def("append_file", "append_file(path, content)", "append content, creating the file if needed; fewer than 2 arguments do nothing, a nil path is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Nil, nil
		}
		if !a.Given(0) {
			return vm.Value{}, vm.Throwf("append_file: path is required")
		}
		p := ResolvePath(th, a.Text(0))
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return vm.Value{}, vm.Throwf("Failed to open file %s: %s", p, OSErrorText(err))
		}
		defer f.Close()
		if _, err := f.Write(contentBytes(a.At(1))); err != nil {
			return vm.Value{}, vm.Throwf("Failed to append to file %s: %s", p, OSErrorText(err))
		}
		return vm.Nil, nil
	})
	lib.Def("copy_file", "copy_file(src, dst)", "copy a file; a missing or nil src or dst is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) || !a.Given(1) {
			return vm.Value{}, vm.Throwf("copy_file: src and dst are required")
		}
		src, dst := ResolvePath(th, a.Text(0)), ResolvePath(th, a.Text(1))
		if err := copyFile(src, dst); err != nil {
			return vm.Value{}, vm.Throwf("Failed to copy %s to %s: %s", src, dst, OSErrorText(err))
		}
		return vm.Nil, nil
	})
	lib.Def("move_file", "move_file(src, dst)", "rename (or copy and delete) a file or a directory; a directory moved to another file system is copied as a tree, then deleted, and must not exist at dst", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) || !a.Given(1) {
			return vm.Value{}, vm.Throwf("move_file: src and dst are required")
		}
		src, dst := ResolvePath(th, a.Text(0)), ResolvePath(th, a.Text(1))
		if err := os.Rename(src, dst); err != nil {
			if errors.Is(err, syscall.EXDEV) && isDir(src) {
				return vm.Nil, moveTreeAcross(src, dst)
			}
			if cerr := copyFile(src, dst); cerr != nil {
				return vm.Value{}, vm.Throwf("Failed to move %s to %s: %s", src, dst, OSErrorText(err))
			}
			if rerr := os.Remove(src); rerr != nil {
				return vm.Value{}, vm.Throwf("Failed to move %s to %s: %s", src, dst, OSErrorText(rerr))
			}
		}
		return vm.Nil, nil
	})
	lib.Def("delete_file", "delete_file(path)", "delete a file, or a directory recursively; a missing, nil or empty path is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		// An empty path resolves to the execution root (ResolvePath); a
		// variable that happens to be empty must not delete the whole
		// working tree.
		if a.Text(0) == "" {
			return vm.Value{}, vm.Throwf("delete_file: the path is empty (it would name the execution root)")
		}
		if !a.Given(0) {
			return vm.Value{}, vm.Throwf("delete_file: path is required")
		}
		p := ResolvePath(th, a.Text(0))
		info, err := os.Lstat(p)
		if err != nil {
			return vm.Value{}, vm.Throwf("Failed to delete file %s: %s", p, OSErrorText(err))
		}
		if info.IsDir() {
			if err := os.RemoveAll(p); err != nil {
				return vm.Value{}, vm.Throwf("Failed to delete directory %s: %s", p, OSErrorText(err))
			}
			return vm.Nil, nil
		}
		if err := os.Remove(p); err != nil {
			return vm.Value{}, vm.Throwf("Failed to delete file %s: %s", p, OSErrorText(err))
		}
		return vm.Nil, nil
	})
	lib.Def("file_exists", "file_exists(path) -> bool", "whether a file or directory exists", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, err := os.Stat(ResolvePath(th, a.Text(0)))
		return vm.BoolOf(err == nil), nil
	})
	lib.Def("mkdir", "mkdir(path)", "create a directory and its parents; a missing or nil path is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) {
			return vm.Value{}, vm.Throwf("mkdir: path is required")
		}
		p := ResolvePath(th, a.Text(0))
		if err := os.MkdirAll(p, 0o755); err != nil {
			// MkdirAll reports ENOTDIR for an existing non-directory
			// without calling mkdir(2), which would say EEXIST
			if info, serr := os.Stat(p); serr == nil && !info.IsDir() {
				err = syscall.EEXIST
			}
			return vm.Value{}, vm.Throwf("Failed to create directory %s: %s", p, OSErrorText(err))
		}
		return vm.Nil, nil
	})
	lib.Def("list_dir", "list_dir(path = \".\") -> list<string>", "entry names, sorted", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		rel := "."
		if a.Given(0) {
			rel = a.Text(0)
		}
		p := ResolvePath(th, rel)
		entries, err := os.ReadDir(p)
		if err != nil {
			return vm.Value{}, vm.Throwf("Failed to list directory %s: %s", p, OSErrorText(err))
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		sort.Strings(names)
		return vm.Of(lib.StrList(names)), nil
	})
	lib.Def("stat", "stat(path) -> dict", "{size, is_file, is_dir, readonly, modified}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p := ResolvePath(th, a.Text(0))
		info, err := os.Stat(p)
		if err != nil {
			return vm.Value{}, vm.Throwf("Failed to stat %s: %s", p, OSErrorText(err))
		}
		return vm.Of(lib.DictOf(
			"size", vm.IntOf(info.Size()),
			"is_file", vm.BoolOf(info.Mode().IsRegular()),
			"is_dir", vm.BoolOf(info.IsDir()),
			"readonly", vm.BoolOf(info.Mode().Perm()&0o222 == 0),
			"modified", vm.Float(float64(info.ModTime().UnixNano())/1e9),
		)), nil
	})
	lib.Def("walk_dir", "walk_dir(root, opts?)", "pre-order {path, is_dir, is_file, depth} entries; with {long_running: true}, a task handle to await", walkDir)
	lib.Def("glob", "glob(pattern, base_or_opts?, opts?)", "paths under base matching a glob (* also matches /); leading directories without wildcards, `./` and `../` move the base, an absolute pattern replaces it, and a base that links to a directory is searched", globBuiltin)
	lib.Def("temp_dir", "temp_dir() -> string", "the OS temporary directory", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(os.TempDir()), nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	// Nothing is created at dst unless src is a file: a directory would
	// leave an empty file behind (and move_file's copy fallback with it).
	// The error is Rust's fs::copy one for a source that is not a file.
	if !info.Mode().IsRegular() {
		return errNotFile
	}
	_, statErr := os.Lstat(dst)
	created := os.IsNotExist(statErr)
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, info.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil && created {
		os.Remove(dst)
	}
	return err
}

func isDir(p string) bool {
	info, err := os.Lstat(p)
	return err == nil && info.IsDir()
}

// moveTreeAcross moves the directory src to dst on another file system,
// where rename cannot: it copies the tree, then deletes src. dst must not
// exist (as for a rename of a directory onto a non-empty one); a copy that
// fails part way is removed and src is left as it was.
func moveTreeAcross(src, dst string) error {
	fail := func(err error) error {
		return vm.Throwf("Failed to move %s to %s: %s", src, dst, OSErrorText(err))
	}
	if _, err := os.Lstat(dst); err == nil {
		return fail(syscall.EEXIST)
	}
	if err := copyTree(src, dst); err != nil {
		os.RemoveAll(dst)
		return fail(err)
	}
	if err := os.RemoveAll(src); err != nil {
		return fail(err)
	}
	return nil
}

// copyTree copies the directory src to dst: directories with their
// permissions, regular files with copyFile, symbolic links as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, p[len(src):])
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		default:
			return copyFile(p, target)
		}
	})
}

func walkDir(th *vm.Thread, a vm.Args) (vm.Value, error) {
	if !a.Given(0) {
		return vm.Value{}, vm.Throwf("walk_dir: root path is required")
	}
	root := ResolvePath(th, a.Text(0))
	maxDepth := -1
	follow := false
	if opts, ok := a.Dict(1); ok {
		if v, ok := opts.Get("long_running"); ok && v.Truth() {
			// an async handle: the same walk on a task, its result the
			// list (await it)
			rest := vm.Of(opts.Delete("long_running"))
			rootArg := a.At(0)
			body := vm.NewBuiltin("walk_dir", "walk_dir()", "a long-running walk_dir", func(th *vm.Thread, _ vm.Args) (vm.Value, error) {
				return walkDir(th, vm.Args{rootArg, rest})
			})
			return vm.Of(concurrency.Spawn(th, vm.Of(body))), nil
		}
		if v, ok := opts.Get("max_depth"); ok {
			if n, ok := v.AsInt(); ok {
				maxDepth = int(n)
			}
		}
		if v, ok := opts.Get("follow_symlinks"); ok {
			follow = v.Truth()
		}
	}
	w := walker{pace: lib.Pacer{Th: th}, follow: follow, maxDepth: maxDepth}
	if err := w.visit(root, 0, nil); err != nil {
		return vm.Value{}, err
	}
	return vm.Of(vm.NewList(w.out)), nil
}

// walker is one walk_dir (docs/spec/builtins.md §4.1): pre-order,
// siblings by name, unreadable entries skipped. The root is followed
// when it is a symbolic link to a directory; other links only with
// follow_symlinks, which then skips a broken link and a directory the
// walk is already inside, reached through a link (a loop would never
// end).
type walker struct {
	pace     lib.Pacer
	follow   bool
	maxDepth int
	out      []vm.Value
}

// visit adds path and, for a directory, what it holds. ancestors are
// the directories the walk is inside, as os.SameFile compares them.
func (w *walker) visit(path string, depth int, ancestors []fs.FileInfo) error {
	if err := w.pace.Step(); err != nil {
		return err
	}
	info, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if info.Mode()&fs.ModeSymlink != 0 && (w.follow || depth == 0) {
		t, err := os.Stat(path)
		switch {
		case err == nil:
			info = t
		case w.follow:
			return nil // a broken link cannot be followed
		}
	}
	if w.follow && info.IsDir() {
		for _, a := range ancestors {
			if os.SameFile(a, info) {
				return nil // reached through a link back up: a loop
			}
		}
	}
	w.out = append(w.out, vm.Of(lib.DictOf("path", vm.Str(path), "is_dir", vm.BoolOf(info.IsDir()),
		"is_file", vm.BoolOf(info.Mode().IsRegular()), "depth", lib.IntOf(depth))))
	if !info.IsDir() || (w.maxDepth >= 0 && depth >= w.maxDepth) {
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	sort.Strings(names)
	ancestors = append(ancestors, info)
	for _, n := range names {
		if err := w.visit(strings.TrimSuffix(path, "/")+"/"+n, depth+1, ancestors); err != nil {
			return err
		}
	}
	return nil
}

func globBuiltin(th *vm.Thread, a vm.Args) (vm.Value, error) {
	if !a.Given(0) {
		return vm.Value{}, vm.Throwf("glob: pattern is required")
	}
	pattern := a.Text(0)
	base := "."
	if opts, ok := a.Dict(1); ok {
		if b, ok := opts.Get("base"); ok && !b.IsNil() {
			base = vm.ToDisplay(b)
		}
	} else if a.Given(1) {
		base = a.Text(1)
	}
	if opts, ok := a.Dict(2); ok {
		if b, ok := opts.Get("base"); ok && !b.IsNil() {
			base = vm.ToDisplay(b)
		}
	}
	if _, err := globRegexp(pattern); err != nil {
		return vm.Value{}, vm.Throwf("glob: %s", err.Error())
	}
	base, pattern = globLiteralDirs(base, pattern)
	if pattern == "" {
		return vm.Of(vm.NewList(nil)), nil // "dir/" names no entry under dir
	}
	re, _ := globRegexp(pattern)
	root := filepath.Clean(ResolvePath(th, base))
	var matches []string
	_ = filepath.WalkDir(globWalkRoot(root), func(path string, d fs.DirEntry, err error) error {
		if err != nil || len(path) <= len(root) {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path[len(root):], string(filepath.Separator)))
		if rel != "" && re.MatchString(rel) {
			matches = append(matches, path)
		}
		return nil
	})
	sort.Strings(matches)
	return vm.Of(lib.StrList(matches)), nil
}

// globLiteralDirs moves the pattern's leading directory segments that
// hold no wildcard onto the base, and an absolute pattern replaces the
// base, so `./src/*.harn`, `../lib/*` and `/tmp/x/*.txt` find what they
// name instead of nothing (a base-relative path never starts with `./`,
// `../` or `/`). Matching what is left against paths under the longer
// base gives the same full paths as before for every other pattern.
func globLiteralDirs(base, pattern string) (string, string) {
	if strings.HasPrefix(pattern, "/") {
		base, pattern = "/", strings.TrimLeft(pattern, "/")
	}
	for {
		slash := strings.IndexByte(pattern, '/')
		if slash < 0 || strings.ContainsAny(pattern[:slash], "*?[{") {
			return base, pattern
		}
		base = filepath.Join(base, pattern[:slash])
		pattern = pattern[slash+1:]
	}
}

// globWalkRoot is root, or root with a trailing separator when root is a
// symbolic link to a directory, so the walk goes into it (as walk_dir
// does) rather than reporting the link alone.
func globWalkRoot(root string) string {
	info, err := os.Lstat(root)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return root
	}
	if t, err := os.Stat(root); err == nil && t.IsDir() {
		return root + string(filepath.Separator)
	}
	return root
}

// globRegexp translates a glob into an anchored regexp: `*` and `**` match
// any run of characters (including `/`), `?` one character, `[…]` a class
// and `{a,b}` alternatives.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	var sb strings.Builder
	sb.WriteString("^")
	depth := 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '*':
			for i+1 < len(pattern) && pattern[i+1] == '*' {
				i++
			}
			// `**/` may also match nothing
			if i+1 < len(pattern) && pattern[i+1] == '/' && i >= 1 && pattern[i-1] == '*' {
				i++
				sb.WriteString("(?:.*/)?")
				continue
			}
			sb.WriteString(".*")
		case '?':
			sb.WriteString(".")
		case '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				return nil, errors.New("unclosed character class in pattern `" + pattern + "`")
			}
			class := pattern[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			sb.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case '{':
			depth++
			sb.WriteString("(?:")
		case '}':
			if depth == 0 {
				sb.WriteString(`\}`)
				continue
			}
			depth--
			sb.WriteString(")")
		case ',':
			if depth > 0 {
				sb.WriteString("|")
			} else {
				sb.WriteString(",")
			}
		default:
			if c >= utf8.RuneSelf {
				sb.WriteByte(c)
			} else {
				sb.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
	}
	if depth > 0 {
		return nil, errors.New("unclosed alternation in pattern `" + pattern + "`")
	}
	sb.WriteString("$")
	return regexp.Compile(sb.String())
}

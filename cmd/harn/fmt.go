package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/harnlang/harn/internal/atomicfile"
	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/format"
	"github.com/harnlang/harn/stdlib"
)

const fmtHelp = `Usage: harn fmt [--check] [FILE|DIR|-]...

Format Harn source files in place in the canonical layout (docs/fmt.md):
two-space indentation, one statement per line, lines broken at 100 columns,
trailing commas in broken literals, at most one blank line, every comment
kept. Directories are searched for .harn files (hidden directories and
node_modules are skipped); with no argument the current directory is. "-"
formats standard input to standard output.

  --check   change nothing; list the files that are not formatted and exit 1
            when there is any
  --        end of options: every argument after it is a path (-x.harn)

Exit status: 0 when all is well, 1 when --check found unformatted files or a
file does not parse, 2 on bad usage.
`

// cmdFmt is `harn fmt`.
func cmdFmt(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	check := false
	var paths []string
	for i, a := range args {
		if a == "--" { // the rest are paths, even one such as -x.harn
			paths = append(paths, args[i+1:]...)
			break
		}
		switch {
		case a == "--check":
			check = true
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, fmtHelp)
			return 0
		case strings.HasPrefix(a, "-") && a != "-":
			fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(a, "--check", "--help"), fmtHelp)
			return 2
		default:
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	status := 0
	for _, p := range paths {
		if p == "-" {
			src, err := io.ReadAll(stdin)
			if err != nil {
				fmt.Fprintf(stderr, "error: reading standard input: %v\n", err)
				return 1
			}
			out, err := format.Source(stdinPath, src)
			if err != nil {
				reportFmtError(stderr, err, src)
				status = 1
				continue
			}
			if check {
				if !bytes.Equal(out, src) {
					fmt.Fprintln(stdout, stdinPath)
					status = 1
				}
				continue
			}
			stdout.Write(out)
			continue
		}
		files, ok := harnFilesOf(p, stderr)
		if !ok {
			status = 1
			continue
		}
		for _, f := range files {
			changed, err := formatFile(f, check, stderr)
			if err != nil {
				status = 1
				continue
			}
			if changed && check {
				fmt.Fprintln(stdout, f)
				status = 1
			}
		}
	}
	return status
}

// formatFile formats one file in place (or, with check, only reports
// whether it would change).
func formatFile(path string, check bool, stderr io.Writer) (changed bool, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "error: cannot read %s: %s\n", path, stdlib.OSErrorText(err))
		return false, err
	}
	out, err := format.Source(path, src)
	if err != nil {
		reportFmtError(stderr, err, src)
		return false, err
	}
	if bytes.Equal(out, src) {
		return false, nil
	}
	if !check {
		if err := rewriteSource(path, out); err != nil {
			fmt.Fprintf(stderr, "error: cannot write %s: %v\n", path, err)
			return false, err
		}
	}
	return true, nil
}

// rewriteSource replaces the source file at path with data (`harn fmt`,
// `harn lint --fix`): written beside it and renamed over it, so that an
// interrupted write or a process reading the file meanwhile never sees it
// half written. The file keeps its permissions, and a symbolic link stays
// a link: its target is rewritten. A file owned by another user, or in a
// directory where no file can be created, is rewritten in place (a new
// file would change its owner, or cannot be made).
func rewriteSource(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	mode := info.Mode().Perm()
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) == os.Getuid() {
		err := atomicfile.WriteMode(path, data, mode)
		if !errors.Is(err, fs.ErrPermission) {
			return err
		}
	}
	return os.WriteFile(path, data, mode)
}

func reportFmtError(stderr io.Writer, err error, src []byte) {
	var de *diag.Error
	if errors.As(err, &de) {
		io.WriteString(stderr, diag.Render(de, src))
		return
	}
	fmt.Fprintf(stderr, "error: %v\n", err)
}

// harnFilesOf is harnFiles for a command-line path, reporting a path
// that cannot be read on stderr (ok false) the way every command does.
func harnFilesOf(path string, stderr io.Writer) (files []string, ok bool) {
	files, err := harnFiles(path)
	if err != nil {
		fmt.Fprintf(stderr, "error: cannot read %s: %s\n", path, stdlib.OSErrorText(err))
		return nil, false
	}
	return files, true
}

// harnFiles lists the .harn files a path names: the file itself, or the
// .harn files under a directory, skipping hidden directories and
// node_modules.
func harnFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != path && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".harn") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

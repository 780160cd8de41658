package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	messy := filepath.Join(dir, "messy.harn")
	clean := filepath.Join(dir, "sub", "clean.harn")
	hidden := filepath.Join(dir, ".git", "x.harn")
	os.MkdirAll(filepath.Dir(clean), 0o755)
	os.MkdirAll(filepath.Dir(hidden), 0o755)
	os.WriteFile(messy, []byte("let x=1 // one\nfn f( a ){return a}\n"), 0o644)
	os.WriteFile(clean, []byte("let y = 2\n"), 0o644)
	os.WriteFile(hidden, []byte("let   z = 3\n"), 0o644)

	out, errOut, code := runHarn("fmt", "--check", dir)
	if code != 1 || strings.TrimSpace(out) != messy || errOut != "" {
		t.Fatalf("--check: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(messy); !strings.Contains(string(b), "x=1") {
		t.Fatalf("--check changed the file: %s", b)
	}

	if _, errOut, code := runHarn("fmt", dir); code != 0 {
		t.Fatalf("fmt: code %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(messy)
	want := "let x = 1 // one\n\nfn f(a) {\n  return a\n}\n"
	if string(got) != want {
		t.Fatalf("formatted:\n%s\nwant:\n%s", got, want)
	}
	if b, _ := os.ReadFile(hidden); string(b) != "let   z = 3\n" {
		t.Fatalf("hidden directory was formatted: %q", b)
	}
	if out, _, code := runHarn("fmt", "--check", dir); code != 0 || out != "" {
		t.Fatalf("--check after fmt: code %d, %q", code, out)
	}
}

func TestFmtErrorsAndStdin(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.harn")
	os.WriteFile(bad, []byte("let = 1\n"), 0o644)
	_, errOut, code := runHarn("fmt", bad)
	if code != 1 || !strings.Contains(errOut, "bad.harn:1:5") || !strings.Contains(errOut, "^") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	if _, _, code := runHarn("fmt", "--bogus"); code != 2 {
		t.Fatalf("unknown option: code %d", code)
	}
	var stdout, stderr bytes.Buffer
	code = run([]string{"fmt", "-"}, strings.NewReader("println( 1 )"), &stdout, &stderr)
	if code != 0 || stdout.String() != "println(1)\n" {
		t.Fatalf("stdin: code %d, %q %q", code, stdout.String(), stderr.String())
	}
}

// TestFmtReplacesTheFileWhole: the formatted file is written beside the
// original and renamed over it, so a reader that opened the file before
// (an editor, a running watcher) reads the whole original, never a file
// truncated and half rewritten.
func TestFmtReplacesTheFileWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.harn")
	src := "let x=1\n"
	os.WriteFile(path, []byte(src), 0o644)
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, errOut, code := runHarn("fmt", path); code != 0 {
		t.Fatalf("fmt: code %d: %s", code, errOut)
	}
	old, _ := io.ReadAll(reader)
	if string(old) != src {
		t.Errorf("a reader opened before formatting reads %q, want the original %q", old, src)
	}
	if b, _ := os.ReadFile(path); string(b) != "let x = 1\n" {
		t.Errorf("formatted file: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestFmtKeepsModeAndLinks: formatting keeps a script's permissions, and
// formatting through a symbolic link rewrites its target, the link staying
// a link.
func TestFmtKeepsModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "tool.harn")
	os.WriteFile(script, []byte("#!/usr/bin/env harn\nprintln( 1 )\n"), 0o755)
	link := filepath.Join(dir, "link.harn")
	if err := os.Symlink("tool.harn", link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if _, errOut, code := runHarn("fmt", link); code != 0 {
		t.Fatalf("fmt: code %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v)", err)
	}
	fi, err := os.Stat(script)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode after fmt: %v (%v)", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(script); string(b) != "#!/usr/bin/env harn\nprintln(1)\n" {
		t.Errorf("target: %q", b)
	}
}

// TestFmtInReadOnlyDirectory: a writable file in a directory where no
// file can be created is formatted in place.
func TestFmtInReadOnlyDirectory(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root may create files anywhere")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o755)
	path := filepath.Join(dir, "a.harn")
	os.WriteFile(path, []byte("let x=1\n"), 0o644)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if _, errOut, code := runHarn("fmt", path); code != 0 {
		t.Fatalf("fmt: code %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(path); string(b) != "let x = 1\n" {
		t.Errorf("formatted file: %q", b)
	}
}

// TestFmtKeepsTheOwner: a file of another user, formatted by root (or by
// a user allowed to write it), keeps its owner.
func TestFmtKeepsTheOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	path := filepath.Join(t.TempDir(), "a.harn")
	os.WriteFile(path, []byte("let x=1\n"), 0o644)
	const nobody = 65534
	if err := os.Chown(path, nobody, nobody); err != nil {
		t.Skip("chown:", err)
	}
	if _, errOut, code := runHarn("fmt", path); code != 0 {
		t.Fatalf("fmt: code %d: %s", code, errOut)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != nobody {
		t.Errorf("owner after fmt: %+v", fi.Sys())
	}
	if b, _ := os.ReadFile(path); string(b) != "let x = 1\n" {
		t.Errorf("formatted file: %q", b)
	}
}

// TestFmtKeepsWindowsConventions: a file written on Windows, with a byte
// order mark and CRLF line endings, keeps both; formatted, it passes
// --check.
func TestFmtKeepsWindowsConventions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "win.harn")
	os.WriteFile(path, []byte("\uFEFFlet x=1\r\nfn f( a ){return a}\r\n"), 0o644)
	if _, errOut, code := runHarn("fmt", path); code != 0 {
		t.Fatalf("fmt: code %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(path)
	if want := "\uFEFFlet x = 1\r\n\r\nfn f(a) {\r\n  return a\r\n}\r\n"; string(got) != want {
		t.Fatalf("formatted %q, want %q", got, want)
	}
	if out, errOut, code := runHarn("fmt", "--check", path); code != 0 || out != "" {
		t.Fatalf("--check after fmt: code %d, %q %s", code, out, errOut)
	}
}

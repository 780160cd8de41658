package stdlib_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/vm"
)

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	e := newT2(t)
	fs.SetExecutionRoot(e.th.VM(), dir)
	p := func(name string) string { return dir + "/" + name }
	steps := []t2case{
		{"write_file", []vm.Value{sv("a.txt"), sv("one\r\ntwo\n")}, "nil"},
		{"write_file", []vm.Value{sv("a.txt")}, "nil"},
		{"read_file", []vm.Value{sv("a.txt")}, "one\r\ntwo\n"},
		{"read_lines", []vm.Value{sv("a.txt")}, "[one, two]"},
		{"append_file", []vm.Value{sv("a.txt"), iv(3)}, "nil"},
		{"read_file", []vm.Value{sv(p("a.txt"))}, "one\r\ntwo\n3"},
		{"read_file", []vm.Value{sv("missing.txt")}, "ERR: Failed to read file " + p("missing.txt") + ": No such file or directory (os error 2)"},
		{"read_file_result", []vm.Value{sv("missing.txt")}, "Result.Err(Failed to read file " + p("missing.txt") + ": No such file or directory (os error 2))"},
		{"read_file_result", []vm.Value{sv("a.txt")}, "Result.Ok(one\r\ntwo\n3)"},
		{"read_lines", []vm.Value{sv("nope")}, "ERR: read_lines: " + p("nope") + ": No such file or directory (os error 2)"},
		{"write_file", []vm.Value{sv("no/dir/x.txt"), sv("x")}, "ERR: Failed to write file " + p("no/dir/x.txt") + ": No such file or directory (os error 2)"},
		{"write_file_bytes", []vm.Value{sv("b.bin"), sv("x")}, "ERR: write_file_bytes expects bytes content, got string"},
		{"write_file_bytes", []vm.Value{sv("b.bin"), vm.Of(stdlib.NewBytes([]byte{0xff, 0}))}, "nil"},
		{"read_file_bytes", []vm.Value{sv("b.bin")}, `b"ff00"`},
		{"read_file", []vm.Value{sv("b.bin")}, "ERR: Failed to read file " + p("b.bin") + ": stream did not contain valid UTF-8"},
		{"copy_file", []vm.Value{sv("a.txt"), sv("c.txt")}, "nil"},
		{"copy_file", []vm.Value{sv("zz"), sv("c.txt")}, "ERR: Failed to copy " + p("zz") + " to " + p("c.txt") + ": No such file or directory (os error 2)"},
		{"move_file", []vm.Value{sv("c.txt"), sv("d.txt")}, "nil"},
		{"move_file", []vm.Value{sv("c.txt")}, "ERR: move_file: src and dst are required"},
		{"file_exists", []vm.Value{sv("c.txt")}, "false"},
		{"file_exists", []vm.Value{sv("d.txt")}, "true"},
		{"mkdir", []vm.Value{sv("sub/deeper")}, "nil"},
		{"mkdir", []vm.Value{sv("sub/deeper")}, "nil"},
		{"write_file", []vm.Value{sv("sub/deeper/x.harn"), sv("x")}, "nil"},
		{"mkdir", []vm.Value{sv("a.txt/x")}, "ERR: Failed to create directory " + p("a.txt/x") + ": Not a directory (os error 20)"},
		{"mkdir", []vm.Value{sv("a.txt")}, "ERR: Failed to create directory " + p("a.txt") + ": File exists (os error 17)"},
		{"list_dir", []vm.Value{}, "[a.txt, b.bin, d.txt, sub]"},
		{"list_dir", []vm.Value{sv("nope")}, "ERR: Failed to list directory " + p("nope") + ": No such file or directory (os error 2)"},
		{"glob", []vm.Value{sv("*.txt")}, "[" + p("a.txt") + ", " + p("d.txt") + "]"},
		{"glob", []vm.Value{sv("**/*.harn")}, "[" + p("sub/deeper/x.harn") + "]"},
		{"glob", []vm.Value{sv("*.{bin,harn}")}, "[" + p("b.bin") + ", " + p("sub/deeper/x.harn") + "]"},
		{"glob", []vm.Value{sv("*.harn"), dv("base", sv("sub"))}, "[" + p("sub/deeper/x.harn") + "]"},
		{"glob", []vm.Value{sv("[ab].*"), sv(".")}, "[" + p("a.txt") + ", " + p("b.bin") + "]"},
		{"glob", nil, "ERR: glob: pattern is required"},
		{"glob", []vm.Value{sv("./*.txt")}, "[" + p("a.txt") + ", " + p("d.txt") + "]"},
		{"glob", []vm.Value{sv("../" + filepath.Base(dir) + "/sub/*/x.*")}, "[" + filepath.Dir(dir) + "/" + filepath.Base(dir) + "/sub/deeper/x.harn]"},
		{"glob", []vm.Value{sv(p("sub/*.harn")), sv("elsewhere")}, "[" + p("sub/deeper/x.harn") + "]"},
		{"glob", []vm.Value{sv("sub/[x")}, "ERR: glob: unclosed character class in pattern `sub/[x`"},
		{"walk_dir", []vm.Value{sv("sub")}, "[{depth: 0, is_dir: true, is_file: false, path: " + p("sub") + "}, {depth: 1, is_dir: true, is_file: false, path: " + p("sub/deeper") + "}, {depth: 2, is_dir: false, is_file: true, path: " + p("sub/deeper/x.harn") + "}]"},
		{"walk_dir", []vm.Value{sv("sub"), dv("max_depth", iv(0))}, "[{depth: 0, is_dir: true, is_file: false, path: " + p("sub") + "}]"},
		{"walk_dir", nil, "ERR: walk_dir: root path is required"},
		{"delete_file", []vm.Value{sv("sub")}, "nil"},
		{"delete_file", []vm.Value{sv("d.txt")}, "nil"},
		{"delete_file", []vm.Value{sv("d.txt")}, "ERR: Failed to delete file " + p("d.txt") + ": No such file or directory (os error 2)"},
		{"stat", []vm.Value{sv("nope")}, "ERR: Failed to stat " + p("nope") + ": No such file or directory (os error 2)"},
	}
	for _, c := range steps {
		if got := e.show(t, c.name, c.args...); got != c.want {
			t.Errorf("%s%v:\n got  %q\n want %q", c.name, c.args, got, c.want)
		}
	}
	st, err := e.call(t, "stat", sv("a.txt"))
	if err != nil || !strings.HasPrefix(vm.ToDisplay(st), "{is_dir: false, is_file: true, modified: ") || !strings.HasSuffix(vm.ToDisplay(st), "readonly: false, size: 10}") {
		t.Errorf("stat: %v %v", st, err)
	}
	if got := e.show(t, "temp_dir"); got != os.TempDir() {
		t.Errorf("temp_dir %s", got)
	}
	_ = filepath.Join
}

func TestPaths(t *testing.T) {
	runT2(t, []t2case{
		{"path_join", []vm.Value{sv("a"), sv("b/"), sv("c")}, "a/b/c"},
		{"path_join", []vm.Value{sv("a"), sv("/abs"), sv("c")}, "/abs/c"},
		{"path_join", []vm.Value{sv("a"), sv("../b")}, "a/../b"},
		{"path_join", nil, ""},
		{"dirname", []vm.Value{sv("a/b.txt")}, "a"},
		{"dirname", []vm.Value{sv("b.txt")}, ""},
		{"dirname", []vm.Value{sv("/a")}, "/"},
		{"basename", []vm.Value{sv("a/b/")}, "b"},
		{"extname", []vm.Value{sv("x.tar.gz")}, ".gz"},
		{"extname", []vm.Value{sv(".bashrc")}, ""},
		{"path_parts", []vm.Value{sv(`src\lib\main.harn`)}, "{dir: src/lib, ext: .harn, file: main.harn, segments: [src, lib, main.harn], stem: main}"},
		{"path_parent", []vm.Value{sv("C:/x/y")}, "C:/x"},
		{"path_basename", []vm.Value{sv("a/b/c.d")}, "c.d"},
		{"path_stem", []vm.Value{sv("a/b/c.tar.gz")}, "c.tar"},
		{"path_extension", []vm.Value{sv("a/.env")}, ""},
		{"path_extension", []vm.Value{sv("a/x.md")}, ".md"},
		{"path_with_extension", []vm.Value{sv("a/x.md"), sv("txt")}, "a/x.txt"},
		{"path_with_extension", []vm.Value{sv("a/x"), sv(".txt")}, "a/x.txt"},
		{"path_with_stem", []vm.Value{sv("a/x.md"), sv("y")}, "a/y.md"},
		{"path_is_absolute", []vm.Value{sv("/x")}, "true"},
		{"path_is_absolute", []vm.Value{sv(`C:\x`)}, "true"},
		{"path_is_relative", []vm.Value{sv("x/y")}, "true"},
		{"path_normalize", []vm.Value{sv("a/./b/../c")}, "a/c"},
		{"path_normalize", []vm.Value{sv("../a/../../b")}, "../../b"},
		{"path_normalize", []vm.Value{sv("a/..")}, "."},
		{"path_normalize", []vm.Value{sv("/a/../../b")}, "/b"},
		{"path_relative_to", []vm.Value{sv("/a/b/c"), sv("/a/d")}, "../b/c"},
		{"path_relative_to", []vm.Value{sv("a/b"), sv("a/b")}, "."},
		{"path_relative_to", []vm.Value{sv("/a"), sv("b")}, "nil"},
		{"path_to_posix", []vm.Value{sv(`a\b`)}, "a/b"},
		{"path_segments", []vm.Value{sv("/a//b/./c/")}, "[a, b, c]"},
		{"path_workspace_normalize", []vm.Value{sv("/w/src/x.harn"), sv("/w")}, "src/x.harn"},
		{"path_workspace_normalize", []vm.Value{sv("/elsewhere/x"), sv("/w")}, "/elsewhere/x"},
		{"path_workspace_info", []vm.Value{sv("src/../x"), sv("/w")}, "{absolute: /w/x, input: src/../x, inside: true, normalized: x, relative: x, root: /w}"},
	})
}

func TestProcesses(t *testing.T) {
	dir := t.TempDir()
	e := newT2(t)
	fs.SetExecutionRoot(e.th.VM(), dir)
	os.Setenv("HARN_DEFAULT_SHELL", "sh")
	cases := []t2case{
		{"exec", []vm.Value{sv("echo"), sv("hi"), iv(2)}, "{status: 0, stderr: , stdout: hi 2\n, success: true}"},
		{"exec", []vm.Value{sv("sh"), sv("-c"), sv("echo err >&2; exit 3")}, "{status: 3, stderr: err\n, stdout: , success: false}"},
		{"exec", []vm.Value{sv("pwd")}, "{status: 0, stderr: , stdout: " + dir + "\n, success: true}"},
		{"exec", nil, "ERR: exec: command is required"},
		{"exec", []vm.Value{sv("definitely-not-a-command-xyz")}, "ERR: exec failed: No such file or directory (os error 2)"},
		{"exec", []vm.Value{sv("")}, "ERR: exec failed: No such file or directory (os error 2)"},
		{"exec_at", []vm.Value{sv("/"), sv("pwd")}, "{status: 0, stderr: , stdout: /\n, success: true}"},
		{"exec_at", []vm.Value{sv("/")}, "ERR: exec_at: directory and command are required"},
		{"shell", []vm.Value{sv("echo $((1+2)) | tr 3 x")}, "{status: 0, stderr: , stdout: x\n, success: true}"},
		{"shell", []vm.Value{sv("kill -9 $$")}, "{status: -1, stderr: , stdout: , success: false}"},
		{"shell", nil, "ERR: shell: command string is required"},
		{"shell_at", []vm.Value{sv("/tmp")}, "ERR: shell_at: directory and command string are required"},
		{"shell_at", []vm.Value{sv("/"), sv("pwd")}, "{status: 0, stderr: , stdout: /\n, success: true}"},
		{"shell_at", []vm.Value{sv("nope"), sv("pwd")}, "ERR: shell failed: No such file or directory (os error 2)"},
		{"cwd", nil, dir},
		{"execution_root", nil, dir},
		{"source_dir", nil, dir},
		{"project_root", nil, "nil"},
	}
	for _, c := range cases {
		if got := e.show(t, c.name, c.args...); got != c.want {
			t.Errorf("%s%v:\n got  %q\n want %q", c.name, c.args, got, c.want)
		}
	}
	os.WriteFile(dir+"/harn.toml", nil, 0o644)
	if got := e.show(t, "project_root"); got != dir {
		t.Errorf("project_root = %s", got)
	}
	if got := e.show(t, "runtime_paths"); got != "{asset_root: "+dir+", execution_root: "+dir+", run_root: "+dir+"/.harn/runs, state_root: "+dir+"/.harn, worktree_root: "+dir+"}" {
		t.Errorf("runtime_paths = %s", got)
	}
	if got := e.show(t, "pid"); got != vm.ToDisplay(vm.IntOf(int64(os.Getpid()))) {
		t.Errorf("pid = %s", got)
	}
}

// otherFileSystemDir is a fresh directory on another file system than
// dir (where a rename gives EXDEV), or "" when the machine has none.
func otherFileSystemDir(t *testing.T, dir string) string {
	other, err := os.MkdirTemp("/dev/shm", "harn-move-")
	if err != nil {
		return ""
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	if err := os.Rename(probe, filepath.Join(other, "probe")); !errors.Is(err, syscall.EXDEV) {
		return ""
	}
	return other
}

func TestMoveDirectoryAcrossFileSystems(t *testing.T) {
	dir := t.TempDir()
	other := otherFileSystemDir(t, dir)
	if other == "" {
		t.Skip("no second file system to move to")
	}
	e := newT2(t)
	src := filepath.Join(dir, "tree")
	if err := os.MkdirAll(filepath.Join(src, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "inner", "a.txt"), []byte("A"), 0o644)
	os.Symlink("inner/a.txt", filepath.Join(src, "link"))
	dst := filepath.Join(other, "tree")
	if got := e.show(t, "move_file", sv(src), sv(dst)); got != "nil" {
		t.Fatalf("move_file: %s", got)
	}
	if _, err := os.Lstat(src); !os.IsNotExist(err) {
		t.Errorf("source still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "link")); err != nil || string(b) != "A" {
		t.Errorf("moved tree: %q %v", b, err)
	}
	// onto an existing directory: refused, the source kept
	os.MkdirAll(src, 0o755)
	want := "ERR: Failed to move " + src + " to " + dst + ": File exists (os error 17)"
	if got := e.show(t, "move_file", sv(src), sv(dst)); got != want {
		t.Errorf("onto existing:\n got  %s\n want %s", got, want)
	}
	if _, err := os.Stat(src); err != nil {
		t.Errorf("source lost: %v", err)
	}
}

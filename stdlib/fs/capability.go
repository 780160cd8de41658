package fs

import (
	"os"
	"path/filepath"

	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/vm"
)

// harness.fs (docs/spec/language.md §5.4, docs/spec/newer.md §2.15): the file builtins as
// methods of the HarnessFs handle, with argument guards, plus temporary
// directories.

func init() {
	const t = "HarnessFs"
	d := harness.Delegate
	harness.RegisterCapability("fs", "fs", []harness.CapabilityMethod{
		d(t, "read_text", "read_file", "fs.read_text(path: string) -> string", "a file's text"),
		d(t, "read_file", "read_file_bytes", "fs.read_file(path: string) -> bytes", "a file's bytes"),
		d(t, "read", "read_file_bytes", "fs.read(path: string) -> bytes", "a file's bytes"),
		d(t, "read_lines", "read_lines", "fs.read_lines(path: string) -> list<string>", "a file's lines"),
		d(t, "write_text", "write_file", "fs.write_text(path: string, text) -> nil", "create or truncate a file with text"),
		d(t, "write", "write_file", "fs.write(path: string, content) -> nil", "create or truncate a file with content"),
		d(t, "append", "append_file", "fs.append(path: string, text) -> nil", "append text, creating the file if needed"),
		d(t, "exists", "file_exists", "fs.exists(path: string) -> bool", "whether a file or directory exists"),
		d(t, "delete", "delete_file", "fs.delete(path: string) -> nil", "delete a file, or a directory recursively"),
		d(t, "list_dir", "list_dir", "fs.list_dir(path: string) -> list<string>", "entry names, sorted"),
		d(t, "mkdir", "mkdir", "fs.mkdir(path: string) -> nil", "create a directory and its parents"),
		d(t, "copy", "copy_file", "fs.copy(src: string, dst: string) -> nil", "copy a file"),
		d(t, "rename", "move_file", "fs.rename(src: string, dst: string) -> nil", "rename a file"),
		d(t, "stat", "stat", "fs.stat(path: string) -> dict", "{size, is_file, is_dir, readonly, modified}"),
		d(t, "walk", "walk_dir", "fs.walk(root: string, opts?) -> list", "pre-order {path, is_dir, is_file, depth} entries"),
		d(t, "glob", "glob", "fs.glob(pattern: string, dir?) -> list", "paths matching a glob"),
		d(t, "temp_dir", "temp_dir", "fs.temp_dir() -> string", "the OS temporary directory"),
		{Name: "mkdtemp", Sig: "fs.mkdtemp(prefix?: string) -> string", Doc: "create a fresh directory under the OS temporary directory; its path", Fn: func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) {
			return mkdtemp(t+".mkdtemp", os.TempDir(), a)
		}},
		{Name: "workspace_temp_dir", Sig: "fs.workspace_temp_dir() -> string", Doc: "the workspace's temporary directory (.harn/tmp under the execution root), created if needed", Fn: func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) {
			dir := workspaceTemp(th)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return vm.Value{}, vm.Throwf("%s", OSErrorText(err))
			}
			return vm.Str(dir), nil
		}},
		{Name: "mkdtemp_in_workspace", Sig: "fs.mkdtemp_in_workspace(prefix?: string) -> string", Doc: "create a fresh directory under the workspace's temporary directory; its path", Fn: func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) {
			dir := workspaceTemp(th)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return vm.Value{}, vm.Throwf("%s", OSErrorText(err))
			}
			return mkdtemp(t+".mkdtemp_in_workspace", dir, a)
		}},
	})
}

func workspaceTemp(th *vm.Thread) string {
	return filepath.Join(ExecutionRoot(th), ".harn", "tmp")
}

func mkdtemp(name, dir string, a vm.Args) (vm.Value, error) {
	prefix := ""
	if a.Given(0) {
		s, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("%s expects string argument 1, got %s", name, a.At(0).Type())
		}
		prefix = s
	}
	p, err := os.MkdirTemp(dir, prefix)
	if err != nil {
		return vm.Value{}, vm.Throwf("%s", OSErrorText(err))
	}
	return vm.Str(p), nil
}

package process

import "github.com/harnlang/harn/stdlib/harness"

// harness.env, harness.process and harness.system (docs/spec/language.md
// §5.4): the environment, child-process and system-facts builtins as
// methods of their capability handles, each behaving like the free
// function it replaces (docs/language.md, "Harness capabilities in this
// implementation", records which). `pick(harness, ["env", "fs"])`
// (docs/spec/newer.md §2.2) finds them like any other capability.
//
// The split follows the specification's groups: `process` is external
// I/O, the programs a script starts (docs/spec/builtins.md §4.2 exec and
// shell); `system` is observation of the host the script runs on (the
// roots, platform and user facts of §3.15 and §4.2). exit stays a free
// function: ending the run is not an authority a handle grants.

func init() {
	const e = "HarnessEnv"
	harness.RegisterCapability("process", "env", []harness.CapabilityMethod{
		harness.Delegate(e, "get", "env", "env.get(name: string)", "an environment variable, or nil"),
		harness.Delegate(e, "get_or", "env_or", "env.get_or(name: string, default)", "an environment variable, or default"),
	})

	const p = "HarnessProcess"
	harness.RegisterCapability("process", "process", []harness.CapabilityMethod{
		harness.Delegate(p, "exec", "exec", "process.exec(cmd: string, ...args) -> dict", "run a program without a shell → {stdout, stderr, status, success}"),
		harness.Delegate(p, "exec_at", "exec_at", "process.exec_at(dir: string, cmd: string, ...args) -> dict", "exec in a directory (relative to the execution root)"),
		harness.Delegate(p, "shell", "shell", "process.shell(cmd: string) -> dict", "run a command line through the default shell → {stdout, stderr, status, success}"),
		harness.Delegate(p, "shell_at", "shell_at", "process.shell_at(dir: string, cmd: string) -> dict", "shell in a directory (relative to the execution root)"),
	})

	const s = "HarnessSystem"
	harness.RegisterCapability("process", "system", []harness.CapabilityMethod{
		harness.Delegate(s, "platform", "platform", "system.platform() -> string", `the OS: "darwin", "linux", "windows", …`),
		harness.Delegate(s, "arch", "arch", "system.arch() -> string", `the CPU architecture: "x86_64", "aarch64", …`),
		harness.Delegate(s, "cwd", "cwd", "system.cwd() -> string", "the run's working directory"),
		harness.Delegate(s, "execution_root", "execution_root", "system.execution_root() -> string", "the run's working directory"),
		harness.Delegate(s, "source_dir", "source_dir", "system.source_dir() -> string", "the running script's directory"),
		harness.Delegate(s, "asset_root", "asset_root", "system.asset_root() -> string", "the running script's directory"),
		harness.Delegate(s, "project_root", "project_root", "system.project_root() -> string?", "nearest ancestor directory containing harn.toml, or nil"),
		harness.Delegate(s, "runtime_paths", "runtime_paths", "system.runtime_paths() -> dict", "{execution_root, asset_root, state_root, run_root, worktree_root}"),
		harness.Delegate(s, "username", "username", "system.username() -> string", "the current user's name"),
		harness.Delegate(s, "hostname", "hostname", "system.hostname() -> string", "the machine's host name"),
		harness.Delegate(s, "home_dir", "home_dir", "system.home_dir() -> string", "the user's home directory"),
		harness.Delegate(s, "pid", "pid", "system.pid() -> int", "the process id"),
	})
}

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tool hooks a script registers (register_tool_hook) apply to the calls
// of its generated command line: a denied tool fails without running,
// a capped one prints its result cut to max_output characters and
// marked, a pre closure rewrites the arguments the command line parsed
// or refuses them, and a post closure replaces the result.
func TestScriptToolHooks(t *testing.T) {
	script := filepath.Join(t.TempDir(), "hooked.harn")
	src := `var reg = tool_registry()
reg = tool_define(reg, "exec_shell", "run a command", {handler: { args -> "ran" }})
reg = tool_define(reg, "read_file", "read a file", {handler: { args -> "0123456789abcdef" }})
reg = tool_define(reg, "list_dir", "list a directory", {handler: { args -> "a b c" }})
reg = tool_define(reg, "greet", "greet someone", {parameters: {who: "string"}, handler: { args -> "hi " + args.who }})
register_tool_hook({pattern: "exec*", deny: "shell access is disabled"})
register_tool_hook({pattern: "greet", pre: { name, args -> args.who == "root" ? "no greeting root" : args + {who: args.who.upper()} }})
register_tool_hook({pattern: "greet", post: { name, result -> result + "!" }})
register_tool_hook({pattern: "read_*", max_output: 10})
mcp_tools(reg)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, machine, status := LoadFile(script, Stdio{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	if prog == nil {
		t.Fatalf("loading: status %d", status)
	}
	for _, c := range []struct {
		tool, stdout, stderr string
		status               int
	}{
		{"exec_shell", "", "error: tool \"exec_shell\" failed: denied by tool hook: shell access is disabled\n", 1},
		{"read_file", "\"0123456789... [truncated, 16 chars total]\"\n", "", 0},
		{"list_dir", "\"a b c\"\n", "", 0},
		{"greet --who ada", "\"hi ADA!\"\n", "", 0},
		{"greet --who root", "", "error: tool \"greet\" failed: denied by tool hook: no greeting root\n", 1},
	} {
		var out, errb bytes.Buffer
		got := prog.Run(strings.Fields(c.tool), ThreadCaller(machine), Stdio{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
		if got != c.status || out.String() != c.stdout || errb.String() != c.stderr {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want %d, %q, %q", c.tool, got, out.String(), errb.String(), c.status, c.stdout, c.stderr)
		}
	}
}

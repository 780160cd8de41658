package host_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib/host"
	"github.com/harnlang/harn/vm"
)

// run runs src on a VM the host set up with provide, returning stdout and
// the uncaught error text.
func run(t *testing.T, src string, provide func(*vm.VM)) (string, string) {
	t.Helper()
	var errb bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stderr: &errb, OnVM: provide})
	out := strings.TrimSpace(string(r.Stdout))
	if r.Err != nil {
		return out, r.Err.Error()
	}
	return out, ""
}

func provideAll(v *vm.VM) {
	host.Provide(v, "editor.selection", func(th *vm.Thread, args vm.Value) (vm.Value, error) {
		return vm.Str("selected text"), nil
	})
	host.Provide(v, "math.double", host.JSONHandler(func(args any) (any, error) {
		m, _ := args.(map[string]any)
		n, ok := m["n"].(int64)
		if !ok {
			return nil, errors.New("n must be an int")
		}
		return map[string]any{"result": n * 2}, nil
	}))
	host.Provide(v, "boom", func(th *vm.Thread, args vm.Value) (vm.Value, error) {
		panic("host bug")
	})
	host.ProvideTool(v, host.Tool{
		Name:        "search",
		Description: "Search the workspace.",
		Parameters:  map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}},
		Handler: func(th *vm.Thread, args vm.Value) (vm.Value, error) {
			q, _ := vm.GetProp(args, "q", false)
			return vm.Str("hits for " + vm.ToDisplay(q)), nil
		},
	})
}

func TestRegisteredHandlers(t *testing.T) {
	out, err := run(t, `
println(host_capabilities())
println(host_has("math.double"))
println(host_call("editor.selection"))
println(host_call("math.double", {n: 21}))
try { host_call("math.double", {n: "x"}) } catch (e) { println(e) }
try { host_call("boom") } catch (e) { println(e) }
println(host_tool_list())
println(host_tool_call("search", {q: "todo"}))
host_mock("editor.selection", "mocked")
println(host_call("editor.selection"))
println(host_mock_calls().count)`, provideAll)
	if err != "" {
		t.Fatal(err)
	}
	want := `[boom, editor.selection, math.double]
true
selected text
{result: 42}
host_call: "math.double" failed: n must be an int
host_call: "boom" failed: the host's handler panicked: host bug
[{description: Search the workspace., name: search, parameters: {properties: {q: {type: string}}, type: object}}]
hits for todo
mocked
1`
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

func TestWithdraw(t *testing.T) {
	out, err := run(t, `println(host_has("x"))`, func(v *vm.VM) {
		host.Provide(v, "x", func(*vm.Thread, vm.Value) (vm.Value, error) { return vm.Nil, nil })
		host.Withdraw(v, "x")
	})
	if err != "" || out != "false" {
		t.Fatalf("got %q %q", out, err)
	}
}

func TestNoHost(t *testing.T) {
	_, err := run(t, `host_call("workspace.read")`, nil)
	if !strings.Contains(err, `host_call: no host provides "workspace.read"`) {
		t.Fatalf("got %q", err)
	}
}

// Mocks and host calls from many tasks at once (run under -race).
func TestConcurrentCalls(t *testing.T) {
	out, err := run(t, `
host_mock("inc", {a -> a.n + 1})
var ts = []
for i in 1 to 50 { ts = ts.push(spawn { host_call("inc", {n: i}) + host_call("editor.selection").count }) }
var sum = 0
for t in ts { sum = sum + await(t) }
println(sum)
println(host_mock_calls().count)`, provideAll)
	if err != "" {
		t.Fatal(err)
	}
	// sum of (i+1) for i in 1..50 plus 50 * len("selected text")
	if out != "1975\n50" {
		t.Fatalf("got %q", out)
	}
}

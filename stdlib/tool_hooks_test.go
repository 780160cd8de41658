package stdlib_test

import (
	"testing"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// register_tool_hook records hooks that tool.HookFor applies by glob.
func TestToolHookFor(t *testing.T) {
	e := newCore()
	reg := func(cfg ...any) {
		t.Helper()
		b := vm.NewDictBuilder(len(cfg) / 2)
		for i := 0; i < len(cfg); i += 2 {
			var v vm.Value
			switch x := cfg[i+1].(type) {
			case string:
				v = vm.Str(x)
			case int:
				v = vm.IntOf(int64(x))
			}
			b.Set(cfg[i].(string), v)
		}
		if _, err := e.run(t, op{fn: "register_tool_hook", args: []vm.Value{vm.Of(b.Build())}}); err != nil {
			t.Fatal(err)
		}
	}
	reg("pattern", "exec*", "deny", "shell access is disabled")
	reg("pattern", "*", "max_output", 2000)
	reg("pattern", "read_*", "max_output", 100)
	reg("pattern", "exec_at", "deny", "later hooks do not override the first reason")

	cases := []struct {
		name   string
		deny   string
		denied bool
		max    int
	}{
		{"exec", "shell access is disabled", true, 2000},
		{"exec_at", "shell access is disabled", true, 2000},
		{"read_file", "", false, 100},
		{"search", "", false, 2000},
	}
	for _, c := range cases {
		deny, denied, max := tool.HookFor(e.vm, c.name)
		if deny != c.deny || denied != c.denied || max != c.max {
			t.Errorf("%s: got (%q, %v, %d), want (%q, %v, %d)", c.name, deny, denied, max, c.deny, c.denied, c.max)
		}
	}

	if _, err := e.run(t, op{fn: "clear_tool_hooks"}); err != nil {
		t.Fatal(err)
	}
	if deny, denied, max := tool.HookFor(e.vm, "exec"); denied || deny != "" || max != 0 {
		t.Errorf("after clear_tool_hooks: got (%q, %v, %d)", deny, denied, max)
	}
}

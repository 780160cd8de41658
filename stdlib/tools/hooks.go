package tools

import (
	"path"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// The tool hook builtins: register_tool_hook and clear_tool_hooks keep
// the VM's hook table of package tool, which every tool call the CLI and
// MCP adapters, the agent loop and tool values make
// (tool.PreparedTool.Invoke) consults.

// hookKeys are the keys of a register_tool_hook configuration.
var hookKeys = []string{"pattern", "deny", "max_output", "pre", "post"}

func init() {
	lib.Def("register_tool_hook", "register_tool_hook({pattern?, deny?, max_output?, pre?, post?})", "hooks on the tool calls whose name matches the glob pattern (every tool when absent): deny refuses them with a reason; pre(name, args) (or pre(args)) may refuse (false or a reason string) or rewrite the arguments (a dict); post(name, result) (or post(result)) may replace a successful result (non-nil); max_output caps a string result", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		cfg, ok := a.Dict(0)
		if !ok {
			return vm.Value{}, vm.Typef("register_tool_hook: expected a dict {pattern?, deny?, max_output?, pre?, post?}, got %s", a.At(0).Type())
		}
		for _, key := range cfg.Keys() {
			if !slices.Contains(hookKeys, key) {
				return vm.Value{}, vm.Typef("register_tool_hook: unknown key '%s'%s (known keys: %s)", key, lib.DidYouMean(key, hookKeys), strings.Join(hookKeys, ", "))
			}
		}
		var k tool.Hook
		k.Pattern = "*" // upstream's default: a hook without a pattern applies to every tool
		if p, ok := cfg.Get("pattern"); ok && !p.IsNil() {
			pat, ok := p.AsString()
			if !ok || pat.Go() == "" {
				return vm.Value{}, vm.Typef("register_tool_hook: 'pattern' must be a non-empty string")
			}
			k.Pattern = pat.Go()
		}
		if _, err := path.Match(k.Pattern, ""); err != nil {
			return vm.Value{}, vm.Typef("register_tool_hook: invalid pattern '%s'", k.Pattern)
		}
		if d, ok := cfg.Get("deny"); ok && !d.IsNil() {
			s, ok := d.AsString()
			if !ok {
				return vm.Value{}, vm.Typef("register_tool_hook: 'deny' must be a string, got %s", d.Type())
			}
			if s.Go() == "" {
				return vm.Value{}, vm.Typef("register_tool_hook: 'deny' must be a non-empty reason")
			}
			k.Deny = s.Go()
		}
		if m, ok := cfg.Get("max_output"); ok && !m.IsNil() {
			n, ok := m.AsInt()
			if !ok || n <= 0 {
				return vm.Value{}, vm.Typef("register_tool_hook: 'max_output' must be a positive int, got %s", lib.Shown(m))
			}
			k.MaxOutput = int(n)
		}
		for _, key := range []string{"pre", "post"} {
			f, ok := cfg.Get(key)
			if !ok || f.IsNil() {
				continue
			}
			if !vm.IsCallable(f) {
				return vm.Value{}, vm.Typef("register_tool_hook: '%s' must be a function, got %s", key, f.Type())
			}
			if key == "pre" {
				k.Pre = f
			} else {
				k.Post = f
			}
		}
		tool.AddHook(th.VM(), k)
		return vm.Nil, nil
	})
	lib.Def("clear_tool_hooks", "clear_tool_hooks()", "remove every registered tool hook", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		tool.ClearHooks(th.VM())
		return vm.Nil, nil
	})
}

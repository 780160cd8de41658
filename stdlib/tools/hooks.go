package tools

import (
	"path"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Tool hooks (docs/spec/builtins.md §5 names register_tool_hook and
// clear_tool_hooks; the config keys pattern, deny and max_output are
// upstream's as far as we know, unverified). A hook applies to the tool
// calls whose name matches its glob pattern: deny refuses the call with a
// reason, max_output caps the length of the result. The hooks live in
// the VM; whatever dispatches tool calls for an agent asks ToolHookFor.

type toolHook struct {
	pattern   string
	deny      string
	maxOutput int
}

type toolHooks struct {
	mu    sync.Mutex
	hooks []toolHook
}

type toolHooksKey struct{}

func hooksOf(v *vm.VM) *toolHooks {
	return v.Local(toolHooksKey{}, func() any { return &toolHooks{} }).(*toolHooks)
}

// ToolHookFor applies the hooks registered in v to a call of the tool
// name: the deny reason of the first matching hook that denies, and the
// smallest max_output of the matching hooks (0 when none caps it).
func ToolHookFor(v *vm.VM, name string) (deny string, denied bool, maxOutput int) {
	h := hooksOf(v)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range h.hooks {
		if ok, _ := path.Match(k.pattern, name); !ok {
			continue
		}
		if k.deny != "" && !denied {
			deny, denied = k.deny, true
		}
		if k.maxOutput > 0 && (maxOutput == 0 || k.maxOutput < maxOutput) {
			maxOutput = k.maxOutput
		}
	}
	return deny, denied, maxOutput
}

func init() {
	lib.Def("register_tool_hook", "register_tool_hook({pattern, deny?, max_output?})", "refuse (deny) or cap the output (max_output) of the tool calls whose name matches the glob pattern", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		cfg, ok := a.Dict(0)
		if !ok {
			return vm.Value{}, vm.Typef("register_tool_hook: expected a dict {pattern, deny?, max_output?}, got %s", a.At(0).Type())
		}
		var k toolHook
		p, _ := cfg.Get("pattern")
		pat, ok := p.AsString()
		if !ok || pat.Go() == "" {
			return vm.Value{}, vm.Typef("register_tool_hook: 'pattern' must be a non-empty string")
		}
		k.pattern = pat.Go()
		if _, err := path.Match(k.pattern, ""); err != nil {
			return vm.Value{}, vm.Typef("register_tool_hook: invalid pattern '%s'", k.pattern)
		}
		if d, ok := cfg.Get("deny"); ok && !d.IsNil() {
			s, ok := d.AsString()
			if !ok {
				return vm.Value{}, vm.Typef("register_tool_hook: 'deny' must be a string, got %s", d.Type())
			}
			k.deny = s.Go()
		}
		if m, ok := cfg.Get("max_output"); ok && !m.IsNil() {
			n, ok := m.AsInt()
			if !ok || n <= 0 {
				return vm.Value{}, vm.Typef("register_tool_hook: 'max_output' must be a positive int, got %s", vm.ToDisplay(m))
			}
			k.maxOutput = int(n)
		}
		h := hooksOf(th.VM())
		h.mu.Lock()
		h.hooks = append(h.hooks, k)
		h.mu.Unlock()
		return vm.Nil, nil
	})
	lib.Def("clear_tool_hooks", "clear_tool_hooks()", "remove every registered tool hook", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		h := hooksOf(th.VM())
		h.mu.Lock()
		h.hooks = nil
		h.mu.Unlock()
		return vm.Nil, nil
	})
}

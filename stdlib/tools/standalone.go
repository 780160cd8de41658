package tools

import (
	"fmt"
	"strings"
	"sync"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// Standalone tools: a tool definition used outside a registry (tool_def,
// tool_ref, tool_bind, tool_synthesize; docs/tools.md, "Tool values").
// Such a tool runs exactly as a registry runs it — the input validated
// against its input schema, the hooks of register_tool_hook consulted,
// the result checked against its output schema and a thrown value
// classified by its error schema (docs/spec/registry.md §6) — because it
// is prepared as the only tool of a registry of its own: one
// `{_type: "tool_registry", tools: [def], components?}` through
// tool.Normalize and tool.Prepare, the path every adapter takes.
//
// A tool value made from a registry whose schemas reference
// #/components/schemas/… carries those components under the definition
// key `components`, so that it can be prepared alone.

// Product kinds: the `_type` of the tool values these builtins make. A
// plain definition (tool_def, tool_find) has no `_type`.
const (
	kindRef   = tool.RefType
	kindBound = tool.BoundType
	kindSynth = tool.SynthType
)

// prepKey identifies a standalone tool: its definition and the
// components it is prepared with (values are immutable, so identity is
// enough).
type prepKey struct{ def, comps *vm.Dict }

type prepCache struct {
	mu sync.Mutex
	m  map[prepKey]*tool.PreparedTool
}

type prepCacheKey struct{}

// maxPrepared bounds the prepared standalone tools a VM remembers; past
// it the cache starts again (a miss only costs a new preparation).
const maxPrepared = 4096

func preparedCache(v *vm.VM) *prepCache {
	return v.Local(prepCacheKey{}, func() any { return &prepCache{m: map[prepKey]*tool.PreparedTool{}} }).(*prepCache)
}

// defComponents is the `components` a tool value carries, or the zero
// value.
func defComponents(def *vm.Dict) vm.Value {
	if c, ok := def.Get("components"); ok && !c.IsNil() {
		return c
	}
	return vm.Value{}
}

// standaloneRegistry is the one-tool registry def is prepared in.
func standaloneRegistry(def *vm.Dict, comps vm.Value) *vm.Dict {
	b := vm.NewDictBuilder(3)
	b.Set("_type", vm.Str(tool.RegistryType))
	b.Set("tools", vm.Of(vm.NewList([]vm.Value{vm.Of(def)})))
	if comps.IsValid() && !comps.IsNil() {
		b.Set("components", comps)
	}
	return b.Build()
}

// prepareTool validates def (with every registry rule) and prepares it
// alone. Errors read "FN: …" with the wording of tool_define.
func prepareTool(th *vm.Thread, fn string, def *vm.Dict, comps vm.Value) (*tool.PreparedTool, error) {
	cd, _ := comps.AsDict()
	key := prepKey{def, cd}
	pc := preparedCache(th.VM())
	pc.mu.Lock()
	pt := pc.m[key]
	pc.mu.Unlock()
	if pt != nil {
		return pt, nil
	}
	reg, err := tool.Normalize(vm.Of(standaloneRegistry(def, comps)), toolCache(th))
	if err != nil {
		return nil, toolErr(fmt.Errorf("%s", fnMessage(fn, err)))
	}
	p, err := tool.Prepare(reg)
	if err != nil {
		return nil, toolErr(fmt.Errorf("%s: %s", fn, err.Error()))
	}
	pt, _ = p.Tool(reg.Tools[0].Name())
	pc.mu.Lock()
	if len(pc.m) >= maxPrepared {
		pc.m = map[prepKey]*tool.PreparedTool{}
	}
	pc.m[key] = pt
	pc.mu.Unlock()
	return pt, nil
}

// fnMessage renders a registry validation error as builtin fn reports
// it: the per-entry rules keep tool_define's wording under fn's name.
func fnMessage(fn string, err error) string {
	m := tool.Message(err, fn+": ")
	if rest, ok := strings.CutPrefix(m, "tool_define: "); ok {
		return fn + ": " + rest
	}
	return m
}

// invokeTool runs a prepared tool on args (a Harn value; nil or absent
// is the empty object) and turns the classified outcome back into what
// a script sees:
//
//   - success: the handler's value (shortened by a max_output hook);
//   - a declared application error: the thrown value, thrown again, so
//     `catch` gets it;
//   - arguments or a result that violate a schema: a runtime error with
//     the value-free contract message
//     (`tool "X" input violates its declared schema: …`);
//   - any other failure of the handler: the handler's own failure (a
//     thrown value, cancellation, exit unchanged; a runtime or type
//     error relabelled with its line as a callback's is, docs/spec/language.md
//     §8.2);
//   - a call a hook denies, or a tool without a local handler:
//     `tool "X" failed: <reason>`.
//
// Running the result of invokeTool through a second registry with the
// same schemas reproduces it, so tool values built on tool values nest
// without wrapping their messages twice.
func invokeTool(th *vm.Thread, pt *tool.PreparedTool, args vm.Value) (vm.Value, error) {
	o, err := invokeOutcome(th, pt, args)
	if err != nil {
		return vm.Value{}, err
	}
	return outcomeValue(o)
}

// invokeOutcome is the classified call of invokeTool; the error is for
// arguments without a portable JSON form.
func invokeOutcome(th *vm.Thread, pt *tool.PreparedTool, args vm.Value) (*tool.Outcome, error) {
	j, err := jsonArgs(pt, args)
	if err != nil {
		return nil, err
	}
	return pt.Invoke(th, j), nil
}

// jsonArgs is a call's arguments in the JSON form a prepared tool takes;
// the error is for arguments without a portable JSON form.
func jsonArgs(pt *tool.PreparedTool, args vm.Value) (any, error) {
	if !args.IsValid() || args.IsNil() {
		return nil, nil
	}
	j, err := tool.ToJSONArgs(args)
	if err != nil {
		path := "/"
		if np, ok := err.(*tool.NonPortableError); ok {
			path = np.Path
		}
		return nil, vm.Runtimef("tool %q input violates its declared schema: %s failed portableJson", pt.Name(), path)
	}
	return j, nil
}

func outcomeValue(o *tool.Outcome) (vm.Value, error) {
	switch o.Kind {
	case tool.Success:
		return o.Value, nil
	case tool.ApplicationError:
		if o.Thrown.IsValid() {
			return vm.Value{}, vm.Throw(o.Thrown)
		}
		return vm.Value{}, vm.Throw(tool.FromJSON(o.Data))
	case tool.InvalidInput, tool.ContractViolation:
		return vm.Value{}, vm.Runtimef("%s", o.Contract.Error())
	}
	if o.Err != nil {
		// The handler is a callback of the builtin that runs it
		// (docs/spec/language.md §8.2).
		return vm.Value{}, o.Err.Relabel()
	}
	return vm.Value{}, vm.Runtimef("%s", o.FailureText())
}

// toolDefinition reads the tool argument of tool_bind and
// tool_synth_invoke: a definition dict, not a registry.
func toolDefinition(fn string, v vm.Value) (*vm.Dict, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Typef("%s: expected a tool (a definition from tool_def, tool_ref, tool_bind, tool_synthesize or tool_find), got %s", fn, v.Type())
	}
	if t, _ := d.Get("_type"); vm.ToDisplay(t) == tool.RegistryType {
		return nil, vm.Typef("%s: expected a tool, got a tool registry; take one of its tools with tool_ref(registry, name)", fn)
	}
	return d, nil
}

// localHandler reports whether a normalized tool runs in this VM.
func localHandler(t *tool.Tool) bool { return t.Handler.IsValid() && !t.Handler.IsNil() }

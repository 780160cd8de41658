package workflow

// Graph policies (docs/workflow.md, "Policies"): each setter validates its
// policy and returns a new graph holding it under policies.KEY.

import (
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

type policy struct {
	key     string // the field of graph.policies
	builtin string // its setter
	check   func(fn string, v vm.Value) (vm.Value, error)
}

var policies = []policy{
	{"model", "workflow_set_model_policy", checkModel},
	{"context", "workflow_set_context_policy", checkContext},
	{"auto_compact", "workflow_set_auto_compact", checkAutoCompact},
	{"output_visibility", "workflow_set_output_visibility", checkVisibility},
}

func policyKeys() []string {
	out := make([]string, len(policies))
	for i, p := range policies {
		out[i] = p.key
	}
	return out
}

func policyByKey(k string) (policy, bool) {
	for _, p := range policies {
		if p.key == k {
			return p, true
		}
	}
	return policy{}, false
}

// fieldRule checks one field of a policy dict.
type fieldRule struct {
	name string
	what string
	ok   func(vm.Value) bool
}

func isString(v vm.Value) bool { _, ok := str(v); return ok }
func isPosInt(v vm.Value) bool { n, ok := v.AsInt(); return ok && n > 0 }
func isNonNegInt(v vm.Value) bool {
	n, ok := v.AsInt()
	return ok && n >= 0
}
func isBool(v vm.Value) bool { _, ok := v.AsBool(); return ok }
func isStringList(v vm.Value) bool {
	l, ok := v.AsList()
	if !ok {
		return false
	}
	for _, x := range l.Items() {
		if !isString(x) {
			return false
		}
	}
	return true
}

func oneOf(vals ...string) func(vm.Value) bool {
	return func(v vm.Value) bool { s, ok := str(v); return ok && slices.Contains(vals, s) }
}

// checkFields validates a policy dict against rules: every key known,
// every value of its rule's shape.
func checkFields(fn string, v vm.Value, rules []fieldRule) (vm.Value, error) {
	d, ok := v.AsDict()
	if !ok {
		return vm.Value{}, vm.Typef("%s: policy must be a dict, got %s", fn, v.Type())
	}
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.name
	}
	for _, k := range d.Keys() {
		i := slices.Index(names, k)
		if i < 0 {
			return vm.Value{}, vm.Runtimef("%s: unknown policy field %q (expected %s)", fn, k, strings.Join(names, ", "))
		}
		if fv := lib.Get(d, k); !fv.IsNil() && !rules[i].ok(fv) {
			return vm.Value{}, vm.Typef("%s: %s must be %s, got %s", fn, k, rules[i].what, vm.ToDisplay(fv))
		}
	}
	return v, nil
}

func checkModel(fn string, v vm.Value) (vm.Value, error) {
	return checkFields(fn, v, []fieldRule{
		{"provider", "a string", isString},
		{"model", "a string", isString},
		{"temperature", "a number from 0 to 2", func(v vm.Value) bool {
			var f float64
			if n, ok := v.AsInt(); ok {
				f = float64(n)
			} else if x, ok := v.AsFloat(); ok {
				f = float64(x)
			} else {
				return false
			}
			return f >= 0 && f <= 2
		}},
		{"max_tokens", "a positive int", isPosInt},
		{"fallbacks", "a list of model names", isStringList},
	})
}

func checkContext(fn string, v vm.Value) (vm.Value, error) {
	return checkFields(fn, v, []fieldRule{
		{"strategy", `one of "full", "window", "summary", "none"`, oneOf("full", "window", "summary", "none")},
		{"max_tokens", "a positive int", isPosInt},
		{"keep_last", "a non-negative int", isNonNegInt},
		{"include_state", "a bool", isBool},
	})
}

// checkAutoCompact takes a bool (on/off) or a dict.
func checkAutoCompact(fn string, v vm.Value) (vm.Value, error) {
	if b, ok := v.AsBool(); ok {
		return vm.Of(vm.NewDict().Set("enabled", vm.BoolOf(bool(b)))), nil
	}
	out, err := checkFields(fn, v, []fieldRule{
		{"enabled", "a bool", isBool},
		{"threshold_tokens", "a positive int", isPosInt},
		{"keep_last", "a non-negative int", isNonNegInt},
	})
	if err != nil {
		return out, err
	}
	d := out.Dict()
	if !given(d, "enabled") {
		d = d.Set("enabled", vm.True)
	}
	return vm.Of(d), nil
}

var visibilities = []string{"public", "private"}

// checkVisibility takes "public"/"private" for every node, or a dict
// {default?, node_id: "public"|"private"}.
func checkVisibility(fn string, v vm.Value) (vm.Value, error) {
	if s, ok := str(v); ok {
		if !slices.Contains(visibilities, s) {
			return vm.Value{}, vm.Runtimef(`%s: visibility must be "public" or "private", got %q`, fn, s)
		}
		return vm.Of(vm.NewDict().Set("default", v)), nil
	}
	d, ok := v.AsDict()
	if !ok {
		return vm.Value{}, vm.Typef(`%s: visibility must be "public", "private" or a dict of them per node, got %s`, fn, v.Type())
	}
	for _, k := range d.Keys() {
		if s, ok := str(lib.Get(d, k)); !ok || !slices.Contains(visibilities, s) {
			return vm.Value{}, vm.Runtimef(`%s: visibility of %q must be "public" or "private", got %s`, fn, k, vm.ToDisplay(lib.Get(d, k)))
		}
	}
	if !given(d, "default") {
		d = d.Set("default", vm.Str("private"))
	}
	return vm.Of(d), nil
}

// visible reports whether node id's output shows in the trace.
func (g *graph) visible(id string) bool {
	d, ok := lib.Get(g.policies, "output_visibility").AsDict()
	if !ok {
		return false
	}
	if s, ok := str(lib.Get(d, id)); ok {
		return s == "public"
	}
	s, _ := str(lib.Get(d, "default"))
	return s == "public"
}

// policyReport is workflow_policy_report's result.
func (g *graph) policyReport() vm.Value {
	b := vm.NewDictBuilder(8)
	var set []vm.Value
	for _, p := range policies {
		v := lib.Get(g.policies, p.key)
		b.Set(p.key, v)
		if !v.IsNil() {
			set = append(set, vm.Str(p.key))
		}
	}
	b.Set("set", vm.Of(vm.NewList(set)))
	var llm []vm.Value
	for _, n := range g.nodes {
		if nodeKind(n) == "llm" {
			llm = append(llm, vm.Str(nodeID(n)))
		}
	}
	b.Set("llm_nodes", vm.Of(vm.NewList(llm)))
	var warn []vm.Value
	if len(llm) > 0 && lib.Get(g.policies, "model").IsNil() {
		warn = append(warn, vm.Str("llm nodes run without a model policy (the provider's default model)"))
	}
	if len(llm) == 0 && !lib.Get(g.policies, "model").IsNil() {
		warn = append(warn, vm.Str("a model policy is set but the graph has no llm node"))
	}
	if vis, ok := lib.Get(g.policies, "output_visibility").AsDict(); ok {
		for _, k := range vis.Keys() {
			if k != "default" && g.index(k) < 0 {
				warn = append(warn, vm.Str("output_visibility names unknown node \""+k+"\""))
			}
		}
	}
	ctx, _ := lib.Get(g.policies, "context").AsDict()
	ac, _ := lib.Get(g.policies, "auto_compact").AsDict()
	if ctx != nil && ac != nil {
		mt, ok1 := lib.Get(ctx, "max_tokens").AsInt()
		th, ok2 := lib.Get(ac, "threshold_tokens").AsInt()
		if ok1 && ok2 && th > mt {
			warn = append(warn, vm.Str("auto_compact.threshold_tokens is above context.max_tokens, so compaction never runs before the limit"))
		}
	}
	b.Set("warnings", vm.Of(vm.NewList(warn)))
	return vm.Of(b.Build())
}

package flow

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Invariant verdicts (docs/flow.md, "Invariant verdicts"): what a check
// over a proposed change decides. A verdict is the dict
// {_type: "flow_invariant", kind, reason, approvers}; the flow_with_*
// builtins wrap it like any value, and the readers below see through
// that wrapping.

func verdict(kind string, reason vm.Value, approvers vm.Value) vm.Value {
	return vm.Of(lib.DictOf("_type", vm.Str("flow_invariant"), "kind", vm.Str(kind),
		"reason", reason, "approvers", approvers))
}

// verdictOf is the verdict v is, or wraps as a flow value, with the flow
// value (nil when v is a bare verdict).
func verdictOf(name string, a vm.Args) (v *vm.Dict, wrapper *vm.Dict, err error) {
	if !a.Has(0) {
		return nil, nil, vm.Runtimef("%s: missing argument 1", name)
	}
	x := a.At(0)
	if typeOf(x) == "flow_value" {
		wrapper, _ = x.AsDict()
		x = lib.Get(wrapper, "value")
	}
	if typeOf(x) != "flow_invariant" {
		return nil, nil, vm.Runtimef("%s: expected a flow invariant verdict (flow_invariant_allow, …), got %s", name, x.Type())
	}
	v, _ = x.AsDict()
	return v, wrapper, nil
}

func verdictKind(v *vm.Dict) string {
	s, _ := lib.Get(v, "kind").AsString()
	return s.Go()
}

func init() {
	lib.Def("flow_invariant_allow", "flow_invariant_allow(reason?: string)",
		`the verdict that lets a change through: {_type: "flow_invariant", kind: "allow", reason, approvers: []}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			reason := vm.Nil
			if a.Has(0) && !a.At(0).IsNil() {
				s, err := strArg("flow_invariant_allow", a, 0, "reason")
				if err != nil {
					return vm.Value{}, err
				}
				reason = vm.Str(s)
			}
			return verdict("allow", reason, vm.Of(lib.List(nil))), nil
		})
	for _, kind := range []string{"warn", "block"} {
		name := "flow_invariant_" + kind
		lib.Def(name, name+"(reason: string)",
			`the verdict that `+map[string]string{"warn": "lets a change through with a warning", "block": "stops a change"}[kind]+
				`: {_type: "flow_invariant", kind: "`+kind+`", reason, approvers: []}`,
			func(th *vm.Thread, a vm.Args) (vm.Value, error) {
				s, err := strArg(name, a, 0, "reason")
				if err != nil {
					return vm.Value{}, err
				}
				return verdict(kind, vm.Str(s), vm.Of(lib.List(nil))), nil
			})
	}
	lib.Def("flow_invariant_require_approval", "flow_invariant_require_approval(reason: string, options?: dict)",
		`the verdict that holds a change until someone approves it: {_type: "flow_invariant", kind: "require_approval", reason, approvers} (option approvers: a list of strings)`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_invariant_require_approval"
			s, err := strArg(name, a, 0, "reason")
			if err != nil {
				return vm.Value{}, err
			}
			o, err := options(name, a, 1, "approvers")
			if err != nil {
				return vm.Value{}, err
			}
			approvers, err := stringsOption(name, o, "approvers")
			if err != nil {
				return vm.Value{}, err
			}
			return verdict("require_approval", vm.Str(s), approvers), nil
		})
	lib.Def("flow_invariant_kind", "flow_invariant_kind(verdict) -> string",
		`the verdict's kind: "allow", "warn", "require_approval" or "block" (also of a flow value wrapping a verdict)`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			v, _, err := verdictOf("flow_invariant_kind", a)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Str(verdictKind(v)), nil
		})
	lib.Def("flow_invariant_is_blocking", "flow_invariant_is_blocking(verdict) -> bool",
		`whether the verdict stops the change: true for "block" and "require_approval"`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			v, _, err := verdictOf("flow_invariant_is_blocking", a)
			if err != nil {
				return vm.Value{}, err
			}
			k := verdictKind(v)
			return vm.BoolOf(k == "block" || k == "require_approval"), nil
		})
	lib.Def("flow_invariant_confidence", "flow_invariant_confidence(verdict) -> float?",
		"the confidence flow_with_confidence gave the verdict, or nil when none was given",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			_, w, err := verdictOf("flow_invariant_confidence", a)
			if err != nil || w == nil {
				return vm.Nil, err
			}
			return lib.Get(w, "confidence"), nil
		})
}

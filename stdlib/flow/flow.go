// Package flow owns the annotated-value builtins of docs/spec/builtins.md
// §5 (Misc): flow_evidence_{atom, citation, metadata, transcript},
// flow_remediation, flow_with_{evidence, confidence, remediation} and the
// invariant verdicts flow_invariant_* (invariant.go). The
// spec names them only; the shapes are this implementation's choices
// (docs/flow.md): plain dicts that wrap a value with the evidence for it,
// a confidence and a suggested remediation.
package flow

import (
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func typeOf(v vm.Value) string {
	d, ok := v.AsDict()
	if !ok {
		return ""
	}
	s, _ := lib.Get(d, "_type").AsString()
	return s.Go()
}

func strArg(name string, a vm.Args, i int, what string) (string, error) {
	if !a.Has(i) {
		return "", vm.Runtimef("%s: missing argument %d", name, i+1)
	}
	s, ok := a.Str(i)
	if !ok {
		return "", vm.Runtimef("%s: %s must be a string, got %s", name, what, a.At(i).Type())
	}
	if strings.TrimSpace(s) == "" {
		return "", vm.Runtimef("%s: %s must not be empty", name, what)
	}
	return s, nil
}

// options is the optional dict at i, restricted to keys.
func options(name string, a vm.Args, i int, keys ...string) (*vm.Dict, error) {
	d, err := lib.OptionsArg(name, a, i)
	if err != nil {
		return nil, err
	}
	if err := lib.CheckOptions(name, d, keys); err != nil {
		return nil, err
	}
	return d, nil
}

func evidence(kind string, fields *vm.Dict, opts *vm.Dict) vm.Value {
	d := lib.DictOf("_type", vm.Str("flow_evidence"), "kind", vm.Str(kind))
	fields.Range(func(k string, v vm.Value) bool { d = d.Set(k, v); return true })
	for _, k := range []string{"source", "weight"} {
		d = d.Set(k, lib.Get(opts, k))
	}
	return vm.Of(d)
}

func checkWeight(name string, opts *vm.Dict) error {
	w := lib.Get(opts, "weight")
	if w.IsNil() {
		return nil
	}
	f, ok := lib.ToFloat(w)
	if !ok || f < 0 || f > 1 {
		return vm.Runtimef("%s: option `weight` must be a number from 0 to 1, got %s", name, lib.Display(w))
	}
	return nil
}

// wrap is v as a flow value (a copy when it already is one).
func wrap(v vm.Value) *vm.Dict {
	if typeOf(v) == "flow_value" {
		d, _ := v.AsDict()
		return d
	}
	return lib.DictOf("_type", vm.Str("flow_value"), "value", v, "evidence", vm.Of(lib.List(nil)),
		"confidence", vm.Nil, "remediation", vm.Nil)
}

// stringsOption is the option key of opts, a list of strings ([] when
// not given).
func stringsOption(name string, opts *vm.Dict, key string) (vm.Value, error) {
	v := lib.Get(opts, key)
	if v.IsNil() {
		return vm.Of(lib.List(nil)), nil
	}
	l, ok := v.AsList()
	if !ok {
		return vm.Value{}, vm.Runtimef("%s: option `%s` must be a list of strings, got %s", name, key, v.Type())
	}
	for _, it := range l.Items() {
		if _, ok := it.AsString(); !ok {
			return vm.Value{}, vm.Runtimef("%s: option `%s` must be a list of strings, got an element of type %s", name, key, it.Type())
		}
	}
	return v, nil
}

func remediation(name string, action string, opts *vm.Dict) (vm.Value, error) {
	sev := lib.Get(opts, "severity")
	if !sev.IsNil() {
		s, ok := sev.AsString()
		if !ok || !slices.Contains([]string{"info", "low", "medium", "high", "critical"}, s.Go()) {
			return vm.Value{}, vm.Runtimef("%s: option `severity` must be one of info, low, medium, high, critical, got %s", name, lib.Display(sev))
		}
	}
	steps, err := stringsOption(name, opts, "steps")
	if err != nil {
		return vm.Value{}, err
	}
	return vm.Of(lib.DictOf("_type", vm.Str("flow_remediation"), "action", vm.Str(action),
		"reason", lib.Get(opts, "reason"), "severity", sev, "steps", steps)), nil
}

func init() {
	evOpts := []string{"source", "weight"}
	lib.Def("flow_evidence_atom", "flow_evidence_atom(claim: string, options?: dict)",
		`evidence that is one stated fact: {_type: "flow_evidence", kind: "atom", claim, source, weight}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_evidence_atom"
			c, err := strArg(name, a, 0, "claim")
			if err != nil {
				return vm.Value{}, err
			}
			o, err := options(name, a, 1, evOpts...)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkWeight(name, o); err != nil {
				return vm.Value{}, err
			}
			return evidence("atom", lib.DictOf("claim", vm.Str(c)), o), nil
		})
	lib.Def("flow_evidence_citation", "flow_evidence_citation(reference: string, options?: dict)",
		`evidence citing a document, URL or file: {kind: "citation", reference, quote, location, source, weight}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_evidence_citation"
			r, err := strArg(name, a, 0, "reference")
			if err != nil {
				return vm.Value{}, err
			}
			o, err := options(name, a, 1, append([]string{"quote", "location"}, evOpts...)...)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkWeight(name, o); err != nil {
				return vm.Value{}, err
			}
			return evidence("citation", lib.DictOf("reference", vm.Str(r), "quote", lib.Get(o, "quote"), "location", lib.Get(o, "location")), o), nil
		})
	lib.Def("flow_evidence_metadata", "flow_evidence_metadata(data: dict, options?: dict)",
		`evidence that is structured metadata: {kind: "metadata", data, source, weight}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_evidence_metadata"
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 1", name)
			}
			if _, ok := a.Dict(0); !ok {
				return vm.Value{}, vm.Runtimef("%s: data must be a dict, got %s", name, a.At(0).Type())
			}
			o, err := options(name, a, 1, evOpts...)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkWeight(name, o); err != nil {
				return vm.Value{}, err
			}
			return evidence("metadata", lib.DictOf("data", a.At(0)), o), nil
		})
	lib.Def("flow_evidence_transcript", "flow_evidence_transcript(transcript: dict | list, options?: dict)",
		`evidence from a conversation: a transcript (its id kept) or a list of messages: {kind: "transcript", transcript_id, messages, message_count, source, weight}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_evidence_transcript"
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 1", name)
			}
			o, err := options(name, a, 1, evOpts...)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkWeight(name, o); err != nil {
				return vm.Value{}, err
			}
			id, msgs := vm.Nil, vm.Nil
			if l, ok := a.List(0); ok {
				msgs = vm.Of(l)
			} else if d, ok := a.Dict(0); ok {
				id = lib.Get(d, "id")
				msgs = lib.Get(d, "messages")
				if _, ok := msgs.AsList(); !ok {
					return vm.Value{}, vm.Runtimef("%s: the transcript has no `messages` list", name)
				}
			} else {
				return vm.Value{}, vm.Runtimef("%s: expected a transcript or a list of messages at argument 1, got %s", name, a.At(0).Type())
			}
			l, _ := msgs.AsList()
			return evidence("transcript", lib.DictOf("transcript_id", id, "messages", msgs, "message_count", lib.IntOf(l.Len())), o), nil
		})
	lib.Def("flow_remediation", "flow_remediation(action: string, options?: dict)",
		`a suggested remediation: {_type: "flow_remediation", action, reason, severity (info|low|medium|high|critical), steps}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_remediation"
			act, err := strArg(name, a, 0, "action")
			if err != nil {
				return vm.Value{}, err
			}
			o, err := options(name, a, 1, "reason", "severity", "steps")
			if err != nil {
				return vm.Value{}, err
			}
			return remediation(name, act, o)
		})
	lib.Def("flow_with_evidence", "flow_with_evidence(value, evidence: dict | list)",
		`value as a flow value {_type: "flow_value", value, evidence, confidence, remediation} with evidence appended (one flow_evidence or a list)`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_with_evidence"
			if !a.Has(1) {
				return vm.Value{}, vm.Runtimef("%s: missing argument %d", name, a.Len()+1)
			}
			var add []vm.Value
			if l, ok := a.List(1); ok {
				add = l.Items()
			} else {
				add = []vm.Value{a.At(1)}
			}
			for i, e := range add {
				if typeOf(e) != "flow_evidence" {
					return vm.Value{}, vm.Runtimef("%s: evidence %d is not flow evidence (use flow_evidence_atom, …), got %s", name, i, e.Type())
				}
			}
			d := wrap(a.At(0))
			old, _ := lib.Get(d, "evidence").AsList()
			return vm.Of(d.Set("evidence", vm.Of(lib.List(append(lib.CopyItems(old.Items()), add...))))), nil
		})
	lib.Def("flow_with_confidence", "flow_with_confidence(value, confidence: float)",
		"value as a flow value with confidence (a number from 0 to 1) set",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_with_confidence"
			if !a.Has(1) {
				return vm.Value{}, vm.Runtimef("%s: missing argument %d", name, a.Len()+1)
			}
			f, ok := lib.ToFloat(a.At(1))
			if !ok || f < 0 || f > 1 {
				return vm.Value{}, vm.Runtimef("%s: confidence must be a number from 0 to 1, got %s", name, lib.Display(a.At(1)))
			}
			return vm.Of(wrap(a.At(0)).Set("confidence", vm.FloatOf(f))), nil
		})
	lib.Def("flow_with_remediation", "flow_with_remediation(value, remediation: dict | string)",
		"value as a flow value with a remediation (a flow_remediation, or an action string) set",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "flow_with_remediation"
			if !a.Has(1) {
				return vm.Value{}, vm.Runtimef("%s: missing argument %d", name, a.Len()+1)
			}
			r := a.At(1)
			if s, ok := r.AsString(); ok {
				var err error
				if r, err = remediation(name, s.Go(), vm.NewDict()); err != nil {
					return vm.Value{}, err
				}
			} else if typeOf(r) != "flow_remediation" {
				return vm.Value{}, vm.Runtimef("%s: remediation must be a flow_remediation or a string, got %s", name, r.Type())
			}
			return vm.Of(wrap(a.At(0)).Set("remediation", r)), nil
		})
}

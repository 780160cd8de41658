package orchestrator

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/jmespath-community/go-jmespath"
)

// The JMESPath fields of a binding (docs/spec/orchestrator.md §2): dedupe_key picks
// the idempotency key of an event, filter decides whether it runs. Both
// see the event as JSON data (numbers are float64), whatever Go types the
// source built it with.

func searchEvent(jp jmespath.JMESPath, event map[string]any) (any, error) {
	b, err := json.Marshal(event)
	if err != nil {
		return nil, err
	}
	var data any
	if err := json.Unmarshal(b, &data); err != nil {
		return nil, err
	}
	return jp.Search(data)
}

// dedupeKey is the idempotency key dedupe_key gives an event: "" when the
// binding has none or the expression yields null or "".
func dedupeKey(b *Binding, event map[string]any) (string, error) {
	if b.Dedupe == nil {
		return "", nil
	}
	v, err := searchEvent(b.Dedupe, event)
	if err != nil {
		return "", fmt.Errorf("dedupe_key %q: %v", b.DedupeKey, err)
	}
	if hasNumber(v) {
		v = exactKey(b, event, v)
	}
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		if x == "" {
			return "", nil
		}
		return "dedupe/" + b.ID + "/" + x, nil
	}
	raw, _ := json.Marshal(v)
	return "dedupe/" + b.ID + "/" + string(raw), nil
}

// passesFilter says whether the event satisfies the binding's filter, by
// JMESPath truthiness: false, null, "", [] and {} fail it.
func passesFilter(b *Binding, event map[string]any) (bool, error) {
	if b.Match == nil {
		return true, nil
	}
	v, err := searchEvent(b.Match, event)
	if err != nil {
		return false, fmt.Errorf("filter %q: %v", b.Filter, err)
	}
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		return x != "", nil
	case []any:
		return len(x) > 0, nil
	case map[string]any:
		return len(x) > 0, nil
	}
	return true, nil
}

func hasNumber(v any) bool {
	switch x := v.(type) {
	case float64:
		return true
	case []any:
		return slices.ContainsFunc(x, hasNumber)
	case map[string]any:
		for _, e := range x {
			if hasNumber(e) {
				return true
			}
		}
	}
	return false
}

// exactKey is a dedupe key that holds numbers (v, searched with float64
// numbers) with the numbers' text as the event holds them, so that the
// events of order 9007199254740993 and of order 9007199254740992 are
// not one. JMESPath compares and computes only float64 numbers, so the
// search over the numbers' text counts only when it finds the same
// value: an expression that computes with numbers keeps v.
func exactKey(b *Binding, event map[string]any, v any) any {
	raw, err := json.Marshal(event)
	if err != nil {
		return v
	}
	var data any
	if decodeJSON(raw, &data) != nil {
		return v
	}
	exact, err := b.Dedupe.Search(data)
	if err != nil {
		return v
	}
	text, err := json.Marshal(exact)
	if err != nil {
		return v
	}
	var back any
	if json.Unmarshal(text, &back) != nil || !reflect.DeepEqual(back, v) {
		return v
	}
	return exact
}

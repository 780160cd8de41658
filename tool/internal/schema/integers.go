package schema

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/harnlang/harn/internal/jsonv"
)

// Integers rewrites, in place, every number of a valid instance that the
// schema only accepts as an `integer` (1.0, 1e0, 10E-1) into its plain
// integer spelling, so a handler receives a Harn int and never a float.
// It follows properties, items, $ref, allOf and the branch of
// anyOf/oneOf/if that the instance validates against; it returns the
// (possibly replaced) instance.
func (s *Schema) Integers(instance any) any {
	return (&validator{}).integers(s.root, instance, 0)
}

// maxIntegersDepth stops the walk on pathological recursive schemas; the
// validator has already bounded the instance itself.
const maxIntegersDepth = 256

func (v *validator) integers(n *node, x any, depth int) any {
	if n == nil || n.always || n.never || depth > maxIntegersDepth {
		return x
	}
	depth++
	if n.ref != nil {
		x = v.integers(n.ref, x, depth)
	}
	for _, s := range n.allOf {
		x = v.integers(s, x, depth)
	}
	for _, branches := range [][]*node{n.anyOf, n.oneOf} {
		for _, s := range branches {
			if v.validate(s, x, nil, false).ok {
				x = v.integers(s, x, depth)
				break
			}
		}
	}
	if n.ifNode != nil {
		if v.validate(n.ifNode, x, nil, false).ok {
			x = v.integers(n.thenNode, x, depth)
		} else {
			x = v.integers(n.elseNode, x, depth)
		}
	}
	switch t := x.(type) {
	case json.Number:
		if n.types&tInteger != 0 && n.types&tNumber == 0 {
			if i, ok := int64Of(t); ok {
				return jsonv.Int(i)
			}
		}
	case *jsonv.Object:
		for i := 0; i < t.Len(); i++ {
			k, e := t.At(i)
			sub := n.propIndex[k]
			if sub == nil {
				for _, p := range n.patternProperties {
					if p.re.MatchString(k) {
						sub = p.n
						break
					}
				}
			}
			if sub == nil {
				sub = n.additionalProperties
			}
			ne := v.integers(sub, e, depth)
			if _, num := e.(json.Number); num && ne != e {
				t.Set(k, ne)
			}
		}
	case []any:
		for i, e := range t {
			sub := n.items
			if i < len(n.prefixItems) {
				sub = n.prefixItems[i]
			}
			t[i] = v.integers(sub, e, depth)
		}
	}
	return x
}

// int64Of is the value of an integral JSON number that fits int64.
func int64Of(n json.Number) (int64, bool) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, true
	}
	r, ok := jsonv.Rat(n)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// finite reports whether a JSON number is representable as a float64
// (1e400 is not: it would reach a handler as inf).
func finite(n json.Number) bool {
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

package schema

import (
	"encoding/json"
	"math"
	"math/big"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/internal/jsonv"
)

// Failure is one value-free validation failure: where in the instance
// (structural path: object members are "*", array elements "[]") and
// which keyword failed. Detail names the missing property of a
// `required` failure; it never contains instance values.
type Failure struct {
	Path    string
	Keyword string
	Detail  string
}

// String renders "<path> failed <keyword>" plus the detail.
func (f Failure) String() string {
	s := f.Path + " failed " + f.Keyword
	if f.Detail != "" {
		s += " (" + f.Detail + ")"
	}
	return s
}

// Summary renders failures sorted, deduplicated and joined with "; ".
func Summary(fs []Failure) string {
	seen := map[string]bool{}
	var parts []string
	for _, f := range fs {
		s := f.String()
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// Validate checks an instance (a jsonv value) and returns its failures;
// nil means valid.
func (s *Schema) Validate(instance any) []Failure {
	if path, bad := nonFinite(instance, nil, 0); bad {
		return []Failure{{Path: render(path), Keyword: "type", Detail: "number outside the 64-bit float range"}}
	}
	v := &validator{}
	if v.validate(s.root, instance, nil, true).ok {
		return nil
	}
	if len(v.failures) == 0 {
		return []Failure{{Path: "/", Keyword: "schema"}}
	}
	return v.failures
}

// Valid reports whether the instance validates.
func (s *Schema) Valid(instance any) bool {
	if _, bad := nonFinite(instance, nil, 0); bad {
		return false
	}
	v := &validator{}
	return v.validate(s.root, instance, nil, false).ok
}

// nonFinite finds a number no float64 can hold (1e400): whatever the
// schema says, such a value would reach a handler as inf, so every
// instance is refused at the boundary. Nesting is bounded by the JSON
// reader; depth guards values built in Go.
func nonFinite(x any, path []string, depth int) ([]string, bool) {
	if depth > 10000 {
		return nil, false
	}
	switch t := x.(type) {
	case json.Number:
		return path, !finite(t)
	case float64:
		return path, math.IsInf(t, 0) || math.IsNaN(t)
	case *jsonv.Object:
		for i := 0; i < t.Len(); i++ {
			_, e := t.At(i)
			if p, bad := nonFinite(e, nil, depth+1); bad {
				return append(append(path, "*"), p...), true
			}
		}
	case []any:
		for _, e := range t {
			if p, bad := nonFinite(e, nil, depth+1); bad {
				return append(append(path, "[]"), p...), true
			}
		}
	}
	return nil, false
}

type validator struct {
	failures []Failure
	scope    []*resource
}

// path segments: "*" for members, "[]" for elements
func render(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	return "/" + strings.Join(path, "/")
}

func (v *validator) fail(report bool, path []string, kw, detail string) {
	if report {
		v.failures = append(v.failures, Failure{Path: render(path), Keyword: kw, Detail: detail})
	}
}

// result carries the annotations unevaluatedProperties/unevaluatedItems
// need: which members and elements were evaluated.
type result struct {
	ok       bool
	allProps bool
	props    map[string]bool
	allItems bool
	items    map[int]bool
}

func (r *result) merge(o result) {
	if o.allProps {
		r.allProps = true
	}
	for k := range o.props {
		if r.props == nil {
			r.props = map[string]bool{}
		}
		r.props[k] = true
	}
	if o.allItems {
		r.allItems = true
	}
	for k := range o.items {
		if r.items == nil {
			r.items = map[int]bool{}
		}
		r.items[k] = true
	}
}

func (r *result) prop(k string) {
	if r.props == nil {
		r.props = map[string]bool{}
	}
	r.props[k] = true
}

func (r *result) item(i int) {
	if r.items == nil {
		r.items = map[int]bool{}
	}
	r.items[i] = true
}

func asNumber(x any) (json.Number, bool) {
	switch n := x.(type) {
	case json.Number:
		return n, true
	case int:
		return jsonv.Int(int64(n)), true
	case int64:
		return jsonv.Int(n), true
	case float64:
		return jsonv.Float(n), true
	}
	return "", false
}

func typeOf(x any) typeSet {
	switch x.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case *jsonv.Object:
		return tObject
	case []any:
		return tArray
	case string:
		return tString
	}
	if _, ok := asNumber(x); ok {
		return tNumber
	}
	return 0
}

func subpath(path []string, seg string) []string {
	out := make([]string, len(path)+1)
	copy(out, path)
	out[len(path)] = seg
	return out
}

// validate evaluates n against x. report says whether failures are
// collected (false inside anyOf/oneOf/not/if/contains probes).
func (v *validator) validate(n *node, x any, path []string, report bool) result {
	res := result{ok: true}
	if n.always {
		return res
	}
	if n.never {
		v.fail(report, path, "false", "")
		res.ok = false
		return res
	}
	pushed := false
	if len(v.scope) == 0 || v.scope[len(v.scope)-1] != n.res {
		v.scope = append(v.scope, n.res)
		pushed = true
	}
	defer func() {
		if pushed {
			v.scope = v.scope[:len(v.scope)-1]
		}
	}()
	bad := func(kw, detail string) {
		res.ok = false
		v.fail(report, path, kw, detail)
	}
	t := typeOf(x)
	if n.types != 0 {
		ok := n.types&t != 0
		detail := ""
		if !ok && t == tNumber && n.types&tInteger != 0 {
			num, _ := asNumber(x)
			if ok = jsonv.IsInteger(num); ok {
				if _, fits := int64Of(num); !fits {
					ok, detail = false, "integer outside the 64-bit range"
				}
			}
		}
		if !ok {
			bad("type", detail)
		}
	}
	if n.hasConst && !jsonv.Equal(normalize(x), n.constVal) {
		bad("const", "")
	}
	if n.hasEnum {
		found := false
		nx := normalize(x)
		for _, e := range n.enum {
			if jsonv.Equal(nx, e) {
				found = true
				break
			}
		}
		if !found {
			bad("enum", "")
		}
	}
	switch t {
	case tNumber:
		num, _ := asNumber(x)
		v.numeric(n, num, bad)
	case tString:
		s := x.(string)
		if n.maxLength >= 0 || n.minLength > 0 {
			l := utf8.RuneCountInString(s)
			if n.maxLength >= 0 && l > n.maxLength {
				bad("maxLength", "")
			}
			if l < n.minLength {
				bad("minLength", "")
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(s) {
			bad("pattern", "")
		}
	case tObject:
		v.object(n, x.(*jsonv.Object), path, report, &res, bad)
	case tArray:
		v.array(n, x.([]any), path, report, &res, bad)
	}
	// in-place applicators
	if n.ref != nil {
		r := v.validate(n.ref, x, path, report)
		if r.ok {
			res.merge(r)
		} else {
			res.ok = false
		}
	}
	if n.dynamicRef != nil {
		target := n.dynamicRef.static
		if a := n.dynamicRef.anchor; a != "" {
			for _, r := range v.scope {
				if dn, ok := r.dynNodes[a]; ok {
					target = dn
					break
				}
			}
		}
		r := v.validate(target, x, path, report)
		if r.ok {
			res.merge(r)
		} else {
			res.ok = false
		}
	}
	for _, s := range n.allOf {
		r := v.validate(s, x, path, report)
		if r.ok {
			res.merge(r)
		} else {
			res.ok = false
		}
	}
	if len(n.anyOf) > 0 {
		any := false
		for _, s := range n.anyOf {
			r := v.validate(s, x, path, false)
			if r.ok {
				any = true
				res.merge(r)
			}
		}
		if !any {
			bad("anyOf", "")
		}
	}
	if len(n.oneOf) > 0 {
		count := 0
		for _, s := range n.oneOf {
			r := v.validate(s, x, path, false)
			if r.ok {
				count++
				res.merge(r)
			}
		}
		if count != 1 {
			bad("oneOf", "")
		}
	}
	if n.not != nil {
		if v.validate(n.not, x, path, false).ok {
			bad("not", "")
		}
	}
	if n.ifNode != nil {
		r := v.validate(n.ifNode, x, path, false)
		if r.ok {
			res.merge(r)
			if n.thenNode != nil {
				tr := v.validate(n.thenNode, x, path, report)
				if tr.ok {
					res.merge(tr)
				} else {
					res.ok = false
				}
			}
		} else if n.elseNode != nil {
			er := v.validate(n.elseNode, x, path, report)
			if er.ok {
				res.merge(er)
			} else {
				res.ok = false
			}
		}
	}
	// unevaluated keywords run last, over the collected annotations
	if n.unevaluatedProps != nil {
		if o, ok := x.(*jsonv.Object); ok && !res.allProps {
			for i := 0; i < o.Len(); i++ {
				k, val := o.At(i)
				if res.props[k] {
					continue
				}
				if n.unevaluatedProps.never {
					res.ok = false
					v.fail(report, path, "unevaluatedProperties", "")
					break
				}
				r := v.validate(n.unevaluatedProps, val, subpath(path, "*"), report)
				if !r.ok {
					res.ok = false
					if !report {
						break
					}
				}
			}
			if res.ok {
				res.allProps = true
			}
		}
	}
	if n.unevaluatedItems != nil {
		if arr, ok := x.([]any); ok && !res.allItems {
			for i, e := range arr {
				if res.items[i] {
					continue
				}
				if n.unevaluatedItems.never {
					res.ok = false
					v.fail(report, path, "unevaluatedItems", "")
					break
				}
				r := v.validate(n.unevaluatedItems, e, subpath(path, "[]"), report)
				if !r.ok {
					res.ok = false
					if !report {
						break
					}
				}
			}
			if res.ok {
				res.allItems = true
			}
		}
	}
	return res
}

// normalize turns Go numbers into json.Number for comparisons.
func normalize(x any) any {
	switch x.(type) {
	case int, int64, float64:
		n, _ := asNumber(x)
		return n
	}
	return x
}

func (v *validator) numeric(n *node, num json.Number, bad func(kw, detail string)) {
	if n.maximum != nil && jsonv.CompareNumbers(num, *n.maximum) > 0 {
		bad("maximum", "")
	}
	if n.exclusiveMaximum != nil && jsonv.CompareNumbers(num, *n.exclusiveMaximum) >= 0 {
		bad("exclusiveMaximum", "")
	}
	if n.minimum != nil && jsonv.CompareNumbers(num, *n.minimum) < 0 {
		bad("minimum", "")
	}
	if n.exclusiveMinimum != nil && jsonv.CompareNumbers(num, *n.exclusiveMinimum) <= 0 {
		bad("exclusiveMinimum", "")
	}
	if n.multipleOf != nil {
		r, ok := jsonv.Rat(num)
		if !ok || !new(big.Rat).Quo(r, n.multipleOf).IsInt() {
			bad("multipleOf", "")
		}
	}
}

func (v *validator) object(n *node, o *jsonv.Object, path []string, report bool, res *result, bad func(kw, detail string)) {
	if n.maxProperties >= 0 && o.Len() > n.maxProperties {
		bad("maxProperties", "")
	}
	if o.Len() < n.minProperties {
		bad("minProperties", "")
	}
	for _, req := range n.required {
		if !o.Has(req) {
			bad("required", `"`+req+`" is required`)
		}
	}
	for _, dr := range n.dependentRequired {
		if !o.Has(dr.name) {
			continue
		}
		for _, req := range dr.list {
			if !o.Has(req) {
				bad("dependentRequired", `"`+req+`" is required`)
			}
		}
	}
	if n.propertyNames != nil {
		for _, k := range o.Keys() {
			if !v.validate(n.propertyNames, k, path, false).ok {
				bad("propertyNames", "")
				break
			}
		}
	}
	hasApplicators := n.properties != nil || n.patternProperties != nil || n.additionalProperties != nil
	if hasApplicators {
		for i := 0; i < o.Len(); i++ {
			k, val := o.At(i)
			matched := false
			if s, ok := n.propIndex[k]; ok {
				matched = true
				res.prop(k)
				if !v.validate(s, val, subpath(path, "*"), report).ok {
					res.ok = false
				}
			}
			for _, pp := range n.patternProperties {
				if pp.re.MatchString(k) {
					matched = true
					res.prop(k)
					if !v.validate(pp.n, val, subpath(path, "*"), report).ok {
						res.ok = false
					}
				}
			}
			if !matched && n.additionalProperties != nil {
				res.prop(k)
				if n.additionalProperties.never {
					bad("additionalProperties", "")
				} else if !v.validate(n.additionalProperties, val, subpath(path, "*"), report).ok {
					res.ok = false
				}
			}
		}
	}
	for _, ds := range n.dependentSchemas {
		if !o.Has(ds.name) {
			continue
		}
		r := v.validate(ds.n, o, path, report)
		if r.ok {
			res.merge(r)
		} else {
			res.ok = false
		}
	}
}

func (v *validator) array(n *node, arr []any, path []string, report bool, res *result, bad func(kw, detail string)) {
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		bad("maxItems", "")
	}
	if len(arr) < n.minItems {
		bad("minItems", "")
	}
	if n.uniqueItems {
	outer:
		for i := 0; i < len(arr); i++ {
			for j := i + 1; j < len(arr); j++ {
				if jsonv.Equal(normalize(arr[i]), normalize(arr[j])) {
					bad("uniqueItems", "")
					break outer
				}
			}
		}
	}
	for i, s := range n.prefixItems {
		if i >= len(arr) {
			break
		}
		res.item(i)
		if !v.validate(s, arr[i], subpath(path, "[]"), report).ok {
			res.ok = false
		}
	}
	if n.items != nil {
		for i := len(n.prefixItems); i < len(arr); i++ {
			if n.items.never {
				bad("items", "")
				break
			}
			if !v.validate(n.items, arr[i], subpath(path, "[]"), report).ok {
				res.ok = false
			}
		}
		res.allItems = true
	}
	if n.contains != nil {
		count := 0
		for i, e := range arr {
			if v.validate(n.contains, e, subpath(path, "[]"), false).ok {
				count++
				res.item(i)
			}
		}
		min := 1
		if n.hasMinContains {
			min = n.minContains
		}
		if count < min {
			if n.hasMinContains {
				bad("minContains", "")
			} else {
				bad("contains", "")
			}
		}
		if n.maxContains >= 0 && count > n.maxContains {
			bad("maxContains", "")
		}
	}
}

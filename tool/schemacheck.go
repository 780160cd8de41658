package tool

import (
	"fmt"
	"strings"
	"sync"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool/internal/schema"
)

// Draft202012 is the only JSON Schema dialect the catalog accepts.
const Draft202012 = "https://json-schema.org/draft/2020-12/schema"

var (
	metaOnce   sync.Once
	metaSchema *js.Schema
	metaErr    error
)

// metaValidate checks a document against the Draft 2020-12 meta-schema
// (santhosh-tekuri/jsonschema, compiled once per process from its
// embedded copy; nothing is fetched).
func metaValidate(doc any) error {
	if plainlyValid(doc) {
		return nil
	}
	metaOnce.Do(func() {
		c := js.NewCompiler()
		metaSchema, metaErr = c.Compile(Draft202012)
	})
	if metaErr != nil {
		return metaErr
	}
	if err := metaSchema.Validate(jsonv.Plain(doc)); err != nil {
		return fmt.Errorf("%s", metaReason(err))
	}
	return nil
}

// metaReason picks the most specific line of a meta-schema failure.
func metaReason(err error) string {
	lines := strings.Split(err.Error(), "\n")
	best, depth := "", -1
	for _, l := range lines[1:] {
		trimmed := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(trimmed, "- ") {
			continue
		}
		if d := len(l) - len(trimmed); d > depth {
			best, depth = strings.TrimPrefix(trimmed, "- "), d
		}
	}
	if best == "" {
		return err.Error()
	}
	return best
}

// schemaDocCheck applies the per-document rules of docs/spec/registry.md §2.10
// that need no components: dialect (rule 2), runtime-only types (rule 4),
// meta-schema validity (rule 3) and local reference closure (rule 5).
// label names the field in messages; invalid is the label used for the
// meta-schema failure ("tool "X" input schema is invalid" at definition
// time, "<field> is not a valid Draft 2020-12 JSON Schema" in catalogs).
func schemaDocCheck(label string, doc any, invalid func(reason string) string) error {
	var err error
	walkSchema(doc, func(o *jsonv.Object) bool {
		if s, ok := o.Get("$schema"); ok {
			str, _ := s.(string)
			if strings.TrimSuffix(str, "#") != Draft202012 {
				err = fmt.Errorf("%s declares unsupported JSON Schema dialect %q; expected Draft 2020-12 (%s)", label, fmt.Sprint(s), Draft202012)
				return false
			}
		}
		if t, ok := o.Get("x-harn-type"); ok && (t == "closure" || t == "builtin") {
			err = fmt.Errorf("%s contains runtime-only Harn type %q, which has no portable JSON value", label, t)
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	if merr := metaValidate(doc); merr != nil {
		return fmt.Errorf("%s", invalid(merr.Error()))
	}
	if ref := unresolvedLocalRef(doc); ref != "" {
		return fmt.Errorf("%s contains an unresolved schema reference %q", label, ref)
	}
	return nil
}

// walkSchema visits every object at a schema-bearing position, depth
// first, until fn returns false.
func walkSchema(doc any, fn func(o *jsonv.Object) bool) bool {
	o, ok := doc.(*jsonv.Object)
	if !ok {
		return true
	}
	if !fn(o) {
		return false
	}
	cont := true
	schema.EachSubschema(o, func(_ string, sub any) bool {
		cont = walkSchema(sub, fn)
		return cont
	})
	return cont
}

// unresolvedLocalRef returns the first "#..." reference (other than a
// component reference) that does not resolve inside its resource.
func unresolvedLocalRef(doc any) string {
	type res struct {
		root    any
		anchors map[string]bool
	}
	// collect resources and their anchors
	roots := map[*jsonv.Object]*res{}
	var collect func(v any, cur *res)
	collect = func(v any, cur *res) {
		o, ok := v.(*jsonv.Object)
		if !ok {
			return
		}
		if _, has := o.Get("$id"); has && cur.root != any(o) {
			cur = &res{root: o, anchors: map[string]bool{}}
		}
		roots[o] = cur
		for _, k := range []string{"$anchor", "$dynamicAnchor"} {
			if a, ok := o.Get(k); ok {
				if s, ok := a.(string); ok {
					cur.anchors[s] = true
				}
			}
		}
		schema.EachSubschema(o, func(_ string, sub any) bool {
			collect(sub, cur)
			return true
		})
	}
	top := &res{root: doc, anchors: map[string]bool{}}
	collect(doc, top)
	bad := ""
	walkSchema(doc, func(o *jsonv.Object) bool {
		for _, kw := range []string{"$ref", "$dynamicRef"} {
			r, ok := o.Get(kw)
			s, isStr := r.(string)
			if !ok || !isStr || !strings.HasPrefix(s, "#") {
				continue
			}
			if _, _, isComp := schema.ComponentRef(s); isComp {
				continue
			}
			cur := roots[o]
			frag := s[1:]
			switch {
			case frag == "":
			case strings.HasPrefix(frag, "/"):
				if _, ok := schema.Pointer(cur.root, decodePercent(frag)); !ok {
					bad = s
					return false
				}
			default:
				if !cur.anchors[frag] {
					bad = s
					return false
				}
			}
		}
		return true
	})
	return bad
}

func decodePercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			var x byte
			if _, err := fmt.Sscanf(s[i+1:i+3], "%02x", &x); err == nil {
				b.WriteByte(x)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// componentCheck applies rules 5 (component reference closure) and 6
// ($defs shadowing a component) to one document.
func componentCheck(label string, doc any, comps *SchemaMap) error {
	var err error
	walkSchema(doc, func(o *jsonv.Object) bool {
		for _, kw := range []string{"$ref", "$dynamicRef"} {
			r, ok := o.Get(kw)
			s, isStr := r.(string)
			if !ok || !isStr {
				continue
			}
			name, rest, isComp := schema.ComponentRef(s)
			if !isComp {
				continue
			}
			c, found := comps.Get(name)
			if !found {
				err = fmt.Errorf("%s contains dangling schema component reference %q", label, s)
				return false
			}
			if _, ok := schema.Pointer(c.Doc(), decodePercent(rest)); !ok {
				err = fmt.Errorf("%s contains an unresolved schema reference %q", label, s)
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	if o, ok := doc.(*jsonv.Object); ok && comps.Len() > 0 {
		if defs, ok := o.Get("$defs"); ok {
			if d, ok := defs.(*jsonv.Object); ok {
				for _, k := range d.Keys() {
					if _, clash := comps.Get(k); clash {
						return fmt.Errorf("%s $defs entry %q conflicts with components.schemas", label, k)
					}
				}
			}
		}
	}
	return nil
}

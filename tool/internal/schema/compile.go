// Package schema compiles Draft 2020-12 JSON Schemas into validators.
//
// The prepared tool catalog compiles every input, output and
// application-error schema once, for registries of a thousand tools, so
// compilation must cost microseconds; and contract failures must be
// reported without instance values ("<path> failed <keyword>"). Both
// needs are served by this small compiler instead of a general-purpose
// library. Meta-schema validation of the documents themselves happens
// earlier, when the registry is normalized (package tool, with
// santhosh-tekuri/jsonschema); schemas a script supplies at run time are
// stdlib/jsonschema's.
//
// A Compiler owns one catalog's components: `#/components/schemas/NAME`
// references (from any document, at any depth) resolve to component NAME,
// and local references inside a component resolve relative to that
// component, exactly as the MCP bundling of a catalog rebases them. Every
// other reference must resolve inside the compiled document or the
// components; nothing is ever fetched.
package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
)

// ComponentPrefix is the reference prefix that names catalog components.
const ComponentPrefix = "#/components/schemas/"

// Compiler compiles documents that share one set of components.
type Compiler struct {
	components *jsonv.Object
	compDocs   map[string]*doc // component name -> its own document (scanned lazily)
	compURIs   map[string]*doc // $id URIs declared inside components
	seq        int
	loopColor  map[*node]int // checkLoops state, shared by every document
	loopSeen   map[*node]bool
}

// NewCompiler returns a compiler for documents of a catalog whose
// components.schemas is components (nil when the catalog has none).
func NewCompiler(components *jsonv.Object) *Compiler {
	return &Compiler{
		components: components,
		compDocs:   map[string]*doc{},
		compURIs:   map[string]*doc{},
		loopColor:  map[*node]int{},
		loopSeen:   map[*node]bool{},
	}
}

// Schema is a compiled validator.
type Schema struct {
	root *node
}

type resource struct {
	base       *url.URL
	root       any
	anchors    map[string]*jsonv.Object
	dynAnchors map[string]*jsonv.Object
	dynNodes   map[string]*node // compiled dynamic anchors (filled on demand)
}

// doc is one compiled document (a tool schema or one component): its
// resources and its compiled nodes.
type doc struct {
	c       *Compiler
	root    *resource
	uris    map[string]*resource
	nodeRes map[*jsonv.Object]*resource
	nodes   map[*jsonv.Object]*node
}

func newDoc(c *Compiler) *doc {
	return &doc{c: c, uris: map[string]*resource{}, nodeRes: map[*jsonv.Object]*resource{}, nodes: map[*jsonv.Object]*node{}}
}

type compileError struct{ msg string }

func (e *compileError) Error() string { return e.msg }

func errorf(format string, args ...any) error {
	return &compileError{fmt.Sprintf(format, args...)}
}

// Compile compiles one schema document (a bool or an object).
func (c *Compiler) Compile(document any) (s *Schema, err error) {
	c.seq++
	base, _ := url.Parse(fmt.Sprintf("harn://document/%d", c.seq))
	d := newDoc(c)
	r, err := d.scan(document, base)
	if err != nil {
		return nil, err
	}
	n, err := d.compile(document, r)
	if err != nil {
		return nil, err
	}
	if err := c.checkLoops(n); err != nil {
		return nil, err
	}
	return &Schema{root: n}, nil
}

// scan registers the resources of a document rooted at v with base uri.
func (d *doc) scan(v any, base *url.URL) (*resource, error) {
	r := &resource{base: base, root: v}
	d.root = r
	d.uris[stripFragment(base)] = r
	if err := d.walk(v, r, true); err != nil {
		return nil, err
	}
	return r, nil
}

func stripFragment(u *url.URL) string {
	c := *u
	c.Fragment = ""
	c.RawFragment = ""
	return c.String()
}

func (d *doc) walk(v any, r *resource, isRoot bool) error {
	obj, ok := v.(*jsonv.Object)
	if !ok {
		return nil
	}
	if id, ok := obj.Get("$id"); ok {
		s, isStr := id.(string)
		if !isStr {
			return errorf("$id must be a string")
		}
		ref, err := url.Parse(s)
		if err != nil {
			return errorf("invalid $id %q", s)
		}
		if ref.Fragment != "" {
			return errorf("$id %q must not contain a non-empty fragment", s)
		}
		abs := r.base.ResolveReference(ref)
		if isRoot {
			r.base = abs
			d.uris[stripFragment(abs)] = r
		} else {
			nr := &resource{base: abs, root: obj}
			key := stripFragment(abs)
			if prev, dup := d.uris[key]; dup && prev.root != any(obj) {
				return errorf("duplicate $id %q", s)
			}
			d.uris[key] = nr
			r = nr
		}
	}
	d.nodeRes[obj] = r
	if a, ok := obj.Get("$anchor"); ok {
		s, isStr := a.(string)
		if !isStr || !validAnchor(s) {
			return errorf("invalid $anchor %v", a)
		}
		if r.anchors == nil {
			r.anchors = map[string]*jsonv.Object{}
		}
		r.anchors[s] = obj
	}
	if a, ok := obj.Get("$dynamicAnchor"); ok {
		s, isStr := a.(string)
		if !isStr || !validAnchor(s) {
			return errorf("invalid $dynamicAnchor %v", a)
		}
		if r.dynAnchors == nil {
			r.dynAnchors = map[string]*jsonv.Object{}
		}
		r.dynAnchors[s] = obj
		if r.anchors == nil {
			r.anchors = map[string]*jsonv.Object{}
		}
		if _, taken := r.anchors[s]; !taken {
			r.anchors[s] = obj
		}
	}
	var err error
	EachSubschema(obj, func(_ string, sub any) bool {
		err = d.walk(sub, r, false)
		return err == nil
	})
	return err
}

var anchorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`) })

func validAnchor(s string) bool { return anchorRE().MatchString(s) }

// EachSubschema calls fn for every schema-bearing position directly under
// obj (docs/spec/registry.md §2.10), with a JSON-pointer-like location relative to
// obj, until fn returns false.
func EachSubschema(obj *jsonv.Object, fn func(loc string, sub any) bool) {
	for i := 0; i < obj.Len(); i++ {
		k, v := obj.At(i)
		switch subschemaShape(k) {
		case oneSubschema:
			if !fn(k, v) {
				return
			}
		case subschemaList:
			if arr, ok := v.([]any); ok {
				for j, e := range arr {
					if !fn(k+"/"+strconv.Itoa(j), e) {
						return
					}
				}
			}
		case subschemaMap:
			if m, ok := v.(*jsonv.Object); ok {
				for j := 0; j < m.Len(); j++ {
					name, e := m.At(j)
					if !fn(k+"/"+jsonv.EscapePointer(name), e) {
						return
					}
				}
			}
		}
	}
}

// MapSubschemas returns obj with every schema-bearing position directly
// under it (those of EachSubschema) replaced by fn(keyword, sub), where
// fn reports whether it changed sub. obj is never modified: when fn
// changes nothing obj itself is returned, otherwise a copy that shares
// every unchanged value.
func MapSubschemas(obj *jsonv.Object, fn func(keyword string, sub any) (any, bool)) *jsonv.Object {
	var out *jsonv.Object
	set := func(k string, v any) {
		if out == nil {
			out = obj.Copy()
		}
		out.Set(k, v)
	}
	for i := 0; i < obj.Len(); i++ {
		k, v := obj.At(i)
		switch subschemaShape(k) {
		case oneSubschema:
			if n, changed := fn(k, v); changed {
				set(k, n)
			}
		case subschemaList:
			arr, ok := v.([]any)
			if !ok {
				continue
			}
			var n []any
			for j, e := range arr {
				if x, changed := fn(k, e); changed {
					if n == nil {
						n = append([]any(nil), arr...)
					}
					n[j] = x
				}
			}
			if n != nil {
				set(k, n)
			}
		case subschemaMap:
			m, ok := v.(*jsonv.Object)
			if !ok {
				continue
			}
			var n *jsonv.Object
			for j := 0; j < m.Len(); j++ {
				name, e := m.At(j)
				if x, changed := fn(k, e); changed {
					if n == nil {
						n = m.Copy()
					}
					n.Set(name, x)
				}
			}
			if n != nil {
				set(k, n)
			}
		}
	}
	if out == nil {
		return obj
	}
	return out
}

// How a keyword's value holds subschemas.
const (
	noSubschema   = iota
	oneSubschema  // the value is one subschema
	subschemaList // the value is a list of subschemas
	subschemaMap  // the value is an object whose members are subschemas
)

func subschemaShape(k string) int {
	switch k {
	case "additionalProperties", "contains", "contentSchema", "else", "if", "items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties":
		return oneSubschema
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return subschemaList
	case "$defs", "definitions", "dependentSchemas", "patternProperties", "properties":
		return subschemaMap
	}
	return noSubschema
}

// ComponentRef splits a "#/components/schemas/NAME[/REST]" reference into
// the component name (percent- and pointer-decoded) and the remaining
// pointer ("" or "/..."). ok is false for any other reference.
func ComponentRef(ref string) (name, rest string, ok bool) {
	tail, found := strings.CutPrefix(ref, ComponentPrefix)
	if !found {
		return "", "", false
	}
	seg := tail
	if i := strings.IndexByte(tail, '/'); i >= 0 {
		seg, rest = tail[:i], tail[i:]
	}
	if dec, err := url.PathUnescape(seg); err == nil {
		seg = dec
	}
	return jsonv.UnescapePointer(seg), rest, true
}

// Pointer resolves a JSON pointer ("" or "/a/b") inside v.
func Pointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, raw := range strings.Split(ptr[1:], "/") {
		tok := jsonv.UnescapePointer(raw)
		switch x := v.(type) {
		case *jsonv.Object:
			next, ok := x.Get(tok)
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// component returns the document of component name, scanning it once.
func (c *Compiler) component(name string) (*doc, error) {
	if cd, ok := c.compDocs[name]; ok {
		return cd, nil
	}
	v, ok := c.components.Get(name)
	if !ok {
		return nil, errorf("dangling schema component reference %q", ComponentPrefix+jsonv.EscapePointer(name))
	}
	base, _ := url.Parse("harn://components/" + url.PathEscape(name))
	cd := newDoc(c)
	if _, err := cd.scan(v, base); err != nil {
		return nil, errorf("components.schemas.%s: %v", name, err)
	}
	for k := range cd.uris {
		c.compURIs[k] = cd
	}
	c.compDocs[name] = cd
	return cd, nil
}

// resolve finds the target of a reference made from resource r, and
// the document and resource it belongs to.
func (d *doc) resolve(ref string, r *resource) (any, *doc, *resource, error) {
	if name, rest, ok := ComponentRef(ref); ok && d.c.components != nil {
		cd, err := d.c.component(name)
		if err != nil {
			return nil, nil, nil, err
		}
		dec, err := url.PathUnescape(rest)
		if err != nil {
			dec = rest
		}
		t, ok := Pointer(cd.root.root, dec)
		if !ok {
			return nil, nil, nil, errorf("unresolved schema reference %q", ref)
		}
		return t, cd, cd.root, nil
	}
	u, err := url.Parse(ref)
	if err != nil {
		return nil, nil, nil, errorf("invalid $ref %q", ref)
	}
	abs := r.base.ResolveReference(u)
	key := stripFragment(abs)
	td := d
	tr, ok := d.uris[key]
	if !ok {
		if cd, found := d.c.compURIs[key]; found {
			td, tr, ok = cd, cd.uris[key], true
		}
	}
	if !ok {
		if strings.HasPrefix(ref, "#") {
			return nil, nil, nil, errorf("unresolved schema reference %q", ref)
		}
		return nil, nil, nil, errorf("external $ref %q cannot be resolved locally", ref)
	}
	frag := abs.Fragment
	switch {
	case frag == "":
		return tr.root, td, tr, nil
	case strings.HasPrefix(frag, "/"):
		t, ok := Pointer(tr.root, frag)
		if !ok {
			return nil, nil, nil, errorf("unresolved schema reference %q", ref)
		}
		return t, td, tr, nil
	default:
		if t, ok := tr.anchors[frag]; ok {
			return t, td, tr, nil
		}
		return nil, nil, nil, errorf("unresolved schema reference %q", ref)
	}
}

func (d *doc) resOf(v any, fallback *resource) *resource {
	if o, ok := v.(*jsonv.Object); ok {
		if r, ok := d.nodeRes[o]; ok {
			return r
		}
	}
	return fallback
}

// ---- compiled nodes ----

type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tString
	tInteger
)

var typeBits = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "object": tObject, "array": tArray,
	"number": tNumber, "string": tString, "integer": tInteger,
}

type namedNode struct {
	name string
	n    *node
}

type patternNode struct {
	re *regexp.Regexp
	n  *node
}

type dynRef struct {
	static *node
	anchor string // non-empty when the static target declares this $dynamicAnchor
}

type node struct {
	res *resource

	always, never bool // boolean schemas

	types    typeSet
	enum     []any
	hasEnum  bool
	constVal any
	hasConst bool

	multipleOf                          *big.Rat
	maximum, exclusiveMaximum           *json.Number
	minimum, exclusiveMinimum           *json.Number
	maxLength, minLength                int
	pattern                             *regexp.Regexp
	maxItems, minItems                  int
	uniqueItems                         bool
	maxContains, minContains            int
	hasMinContains                      bool
	maxProperties, minProperties        int
	required                            []string
	dependentRequired                   []namedList
	properties                          []namedNode
	propIndex                           map[string]*node
	patternProperties                   []patternNode
	additionalProperties, propertyNames *node
	prefixItems                         []*node
	items, contains                     *node
	allOf, anyOf, oneOf                 []*node
	not, ifNode, thenNode, elseNode     *node
	dependentSchemas                    []namedNode
	unevaluatedItems, unevaluatedProps  *node
	ref                                 *node
	dynamicRef                          *dynRef
	needsAnnotations                    bool
}

type namedList struct {
	name string
	list []string
}

func (d *doc) compile(v any, r *resource) (*node, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return &node{res: r, always: true, maxLength: -1, maxItems: -1, maxContains: -1, maxProperties: -1}, nil
		}
		return &node{res: r, never: true}, nil
	case *jsonv.Object:
		if n, ok := d.nodes[x]; ok {
			return n, nil
		}
		r = d.resOf(x, r)
		n := &node{res: r, maxLength: -1, maxItems: -1, maxContains: -1, maxProperties: -1}
		d.nodes[x] = n
		if err := d.fill(n, x); err != nil {
			delete(d.nodes, x)
			return nil, err
		}
		return n, nil
	}
	return nil, errorf("a schema must be a boolean or an object, not %s", jsonv.TypeName(v))
}

func nonNegInt(k string, v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok || !jsonv.IsInteger(n) {
		return 0, errorf("%s must be a non-negative integer", k)
	}
	r, _ := jsonv.Rat(n)
	if r.Sign() < 0 {
		return 0, errorf("%s must be a non-negative integer", k)
	}
	if !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 1 << 31, nil
	}
	return int(r.Num().Int64()), nil
}

func number(k string, v any) (*json.Number, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, errorf("%s must be a number", k)
	}
	return &n, nil
}

func (d *doc) sub(k string, v any, r *resource) (*node, error) {
	n, err := d.compile(v, r)
	if err != nil {
		if _, ok := v.(bool); !ok {
			if _, ok := v.(*jsonv.Object); !ok {
				return nil, errorf("%s must be a JSON Schema", k)
			}
		}
		return nil, err
	}
	return n, nil
}

func (d *doc) subList(k string, v any, r *resource) ([]*node, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, errorf("%s must be a non-empty array of schemas", k)
	}
	out := make([]*node, len(arr))
	for i, e := range arr {
		n, err := d.sub(k, e, r)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (d *doc) subMap(k string, v any, r *resource) ([]namedNode, error) {
	m, ok := v.(*jsonv.Object)
	if !ok {
		return nil, errorf("%s must be an object of schemas", k)
	}
	out := make([]namedNode, 0, m.Len())
	for i := 0; i < m.Len(); i++ {
		name, e := m.At(i)
		n, err := d.sub(k, e, r)
		if err != nil {
			return nil, err
		}
		out = append(out, namedNode{name, n})
	}
	return out, nil
}

func stringList(k string, v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, errorf("%s must be an array of strings", k)
	}
	out := make([]string, len(arr))
	seen := map[string]bool{}
	for i, e := range arr {
		s, ok := e.(string)
		if !ok || seen[s] {
			return nil, errorf("%s must be an array of unique strings", k)
		}
		seen[s] = true
		out[i] = s
	}
	return out, nil
}

func compileRegexp(k, s string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, errorf("%s %q is not a supported regular expression: %v", k, s, err)
	}
	return re, nil
}

func (d *doc) fill(n *node, obj *jsonv.Object) error {
	r := n.res
	var err error
	for i := 0; i < obj.Len() && err == nil; i++ {
		k, v := obj.At(i)
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				b, ok := typeBits[t]
				if !ok {
					return errorf("type %q is not a JSON Schema type", t)
				}
				n.types = b
			case []any:
				if len(t) == 0 {
					return errorf("type must not be an empty array")
				}
				for _, e := range t {
					s, _ := e.(string)
					b, ok := typeBits[s]
					if !ok || n.types&b != 0 {
						return errorf("type must list unique JSON Schema types")
					}
					n.types |= b
				}
			default:
				return errorf("type must be a string or an array")
			}
		case "enum":
			arr, ok := v.([]any)
			if !ok {
				return errorf("enum must be an array")
			}
			n.enum, n.hasEnum = arr, true
		case "const":
			n.constVal, n.hasConst = v, true
		case "multipleOf":
			var num *json.Number
			if num, err = number(k, v); err == nil {
				rat, ok := jsonv.Rat(*num)
				if !ok || rat.Sign() <= 0 {
					return errorf("multipleOf must be greater than 0")
				}
				n.multipleOf = rat
			}
		case "maximum":
			n.maximum, err = number(k, v)
		case "exclusiveMaximum":
			n.exclusiveMaximum, err = number(k, v)
		case "minimum":
			n.minimum, err = number(k, v)
		case "exclusiveMinimum":
			n.exclusiveMinimum, err = number(k, v)
		case "maxLength":
			n.maxLength, err = nonNegInt(k, v)
		case "minLength":
			n.minLength, err = nonNegInt(k, v)
		case "pattern":
			s, ok := v.(string)
			if !ok {
				return errorf("pattern must be a string")
			}
			n.pattern, err = compileRegexp(k, s)
		case "maxItems":
			n.maxItems, err = nonNegInt(k, v)
		case "minItems":
			n.minItems, err = nonNegInt(k, v)
		case "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return errorf("uniqueItems must be a boolean")
			}
			n.uniqueItems = b
		case "maxContains":
			n.maxContains, err = nonNegInt(k, v)
		case "minContains":
			n.minContains, err = nonNegInt(k, v)
			n.hasMinContains = true
		case "maxProperties":
			n.maxProperties, err = nonNegInt(k, v)
		case "minProperties":
			n.minProperties, err = nonNegInt(k, v)
		case "required":
			n.required, err = stringList(k, v)
		case "dependentRequired":
			m, ok := v.(*jsonv.Object)
			if !ok {
				return errorf("dependentRequired must be an object")
			}
			for j := 0; j < m.Len(); j++ {
				name, e := m.At(j)
				l, lerr := stringList(k, e)
				if lerr != nil {
					return lerr
				}
				n.dependentRequired = append(n.dependentRequired, namedList{name, l})
			}
		case "properties":
			n.properties, err = d.subMap(k, v, r)
			if err == nil {
				n.propIndex = make(map[string]*node, len(n.properties))
				for _, p := range n.properties {
					n.propIndex[p.name] = p.n
				}
			}
		case "patternProperties":
			var named []namedNode
			named, err = d.subMap(k, v, r)
			for _, p := range named {
				re, rerr := compileRegexp(k, p.name)
				if rerr != nil {
					return rerr
				}
				n.patternProperties = append(n.patternProperties, patternNode{re, p.n})
			}
		case "additionalProperties":
			n.additionalProperties, err = d.sub(k, v, r)
		case "propertyNames":
			n.propertyNames, err = d.sub(k, v, r)
		case "prefixItems":
			n.prefixItems, err = d.subList(k, v, r)
		case "items":
			n.items, err = d.sub(k, v, r)
		case "contains":
			n.contains, err = d.sub(k, v, r)
		case "allOf":
			n.allOf, err = d.subList(k, v, r)
		case "anyOf":
			n.anyOf, err = d.subList(k, v, r)
		case "oneOf":
			n.oneOf, err = d.subList(k, v, r)
		case "not":
			n.not, err = d.sub(k, v, r)
		case "if":
			n.ifNode, err = d.sub(k, v, r)
		case "then":
			n.thenNode, err = d.sub(k, v, r)
		case "else":
			n.elseNode, err = d.sub(k, v, r)
		case "dependentSchemas":
			n.dependentSchemas, err = d.subMap(k, v, r)
		case "unevaluatedItems":
			n.unevaluatedItems, err = d.sub(k, v, r)
		case "unevaluatedProperties":
			n.unevaluatedProps, err = d.sub(k, v, r)
		case "$defs", "definitions":
			// compiled on demand through references; checked for shape
			if _, ok := v.(*jsonv.Object); !ok {
				return errorf("%s must be an object of schemas", k)
			}
		case "$ref":
			s, ok := v.(string)
			if !ok {
				return errorf("$ref must be a string")
			}
			t, td, tr, rerr := d.resolve(s, r)
			if rerr != nil {
				return rerr
			}
			n.ref, err = td.compile(t, tr)
		case "$dynamicRef":
			s, ok := v.(string)
			if !ok {
				return errorf("$dynamicRef must be a string")
			}
			t, td, tr, rerr := d.resolve(s, r)
			if rerr != nil {
				return rerr
			}
			dr := &dynRef{}
			if dr.static, err = td.compile(t, tr); err != nil {
				return err
			}
			if i := strings.IndexByte(s, '#'); i >= 0 {
				frag := s[i+1:]
				if to, ok := t.(*jsonv.Object); ok && frag != "" && !strings.HasPrefix(frag, "/") {
					if a, ok := to.Get("$dynamicAnchor"); ok && a == any(frag) {
						dr.anchor = frag
						if err := d.compileDynAnchors(); err != nil {
							return err
						}
					}
				}
			}
			n.dynamicRef = dr
		}
	}
	if err != nil {
		return err
	}
	n.needsAnnotations = n.unevaluatedItems != nil || n.unevaluatedProps != nil
	return nil
}

// compileDynAnchors compiles the $dynamicAnchor targets of every resource
// known to the document and the components, for dynamic-scope lookups at
// validation time.
func (d *doc) compileDynAnchors() error {
	docs := []*doc{d}
	for _, cd := range d.c.compDocs {
		docs = append(docs, cd)
	}
	for _, dd := range docs {
		for _, r := range dd.uris {
			if len(r.dynAnchors) == 0 || r.dynNodes != nil {
				continue
			}
			r.dynNodes = map[string]*node{}
			for name, o := range r.dynAnchors {
				n, err := dd.compile(o, r)
				if err != nil {
					return err
				}
				r.dynNodes[name] = n
			}
		}
	}
	return nil
}

// checkLoops rejects cycles of in-place applicators ($ref chains, an
// allOf containing itself …): they would evaluate one instance forever.
func (c *Compiler) checkLoops(root *node) error {
	color := c.loopColor // over in-place edges: 1 on the path, 2 done
	var inplace func(n *node) error
	inplace = func(n *node) error {
		switch color[n] {
		case 1:
			return errorf("schema reference cycle without progress")
		case 2:
			return nil
		}
		color[n] = 1
		for _, m := range inPlaceEdges(n) {
			if err := inplace(m); err != nil {
				return err
			}
		}
		color[n] = 2
		return nil
	}
	seen := c.loopSeen
	stack := []*node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		if err := inplace(n); err != nil {
			return err
		}
		stack = append(stack, inPlaceEdges(n)...)
		for _, p := range n.properties {
			stack = append(stack, p.n)
		}
		for _, p := range n.patternProperties {
			stack = append(stack, p.n)
		}
		stack = append(stack, n.prefixItems...)
		stack = append(stack, n.additionalProperties, n.propertyNames, n.items, n.contains, n.unevaluatedItems, n.unevaluatedProps)
	}
	return nil
}

func inPlaceEdges(n *node) []*node {
	var out []*node
	for _, m := range []*node{n.ref, n.not, n.ifNode, n.thenNode, n.elseNode} {
		if m != nil {
			out = append(out, m)
		}
	}
	if n.dynamicRef != nil {
		out = append(out, n.dynamicRef.static)
	}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, ds := range n.dependentSchemas {
		out = append(out, ds.n)
	}
	return out
}

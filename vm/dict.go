package vm

import (
	"sort"
	"strings"
	"sync/atomic"
)

// Dict is an immutable map from string keys to values, always traversed in
// ascending byte-wise key order (docs/spec/builtins.md §1.5a).
//
// The representation is private so it can change (a persistent tree keeps
// `d[k] = v` in a loop from going quadratic); use the methods.
type Dict struct {
	// Small dicts are sorted parallel slices. Large ones (more than
	// smallDict entries) keep their entries in a persistent trie and
	// build the sorted view on first traversal.
	keys []string // sorted
	vals []Value
	root *hamtNode
	n    int
	// tab is the owned form: a dict that exactly one variable holds,
	// updated in place by path assignments until the variable's value is
	// read as a whole (see own.go). Once shared it is read-only like the
	// others.
	tab   *strTable
	owned bool
	view  atomic.Pointer[dictView]
	// namespace marks a namespace dict: its stored callables answer
	// `ns.f(args)` before the built-in dict methods do. It is the value
	// `import * as ns` binds (docs/spec/newer.md §1.3) or a library
	// namespace global such as `stream` (docs/concurrency.md). Any update
	// yields a plain dict.
	namespace *namespaceTag
}

// namespaceTag says what kind of namespace a dict is.
type namespaceTag struct {
	library string // the global's name (`stream`); "" for a module namespace
}

// moduleNamespace tags every `import * as ns` value.
var moduleNamespace = &namespaceTag{}

type dictView struct {
	keys []string
	vals []Value
}

const smallDict = 16

// dictEntrySize estimates what one more entry costs (a string header, a
// value and the map's or trie's share), for the memory ceiling.
const dictEntrySize = 64

// sortedView returns the keys and values in key order.
func (d *Dict) sortedView() ([]string, []Value) {
	if d.root == nil && d.tab == nil {
		return d.keys, d.vals
	}
	if v := d.view.Load(); v != nil {
		return v.keys, v.vals
	}
	entries := make([]hamtEntry, 0, d.Len())
	if d.tab != nil {
		d.tab.each(func(e *hamtEntry) { entries = append(entries, *e) })
	} else {
		d.root.each(func(e hamtEntry) { entries = append(entries, e) })
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	v := &dictView{keys: make([]string, len(entries)), vals: make([]Value, len(entries))}
	for i, e := range entries {
		v.keys[i], v.vals[i] = e.key, e.val
	}
	d.view.Store(v)
	return v.keys, v.vals
}

// EmptyDict is {}.
var EmptyDict = &Dict{}

// NewDict returns an empty dict.
func NewDict() *Dict { return EmptyDict }

func (*Dict) Type() string                  { return "dict" }
func (d *Dict) Truth() bool                 { return d.Len() > 0 }
func (d *Dict) Display(sb *strings.Builder) { d.display(sb, 0) }
func (d *Dict) display(sb *strings.Builder, depth int) {
	keys, vals := d.sortedView()
	sb.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(k)
		sb.WriteString(": ")
		displayAt(sb, vals[i], depth)
	}
	sb.WriteByte('}')
}

// Len is the number of entries.
func (d *Dict) Len() int {
	if d.tab != nil {
		return d.tab.len()
	}
	if d.root != nil {
		return d.n
	}
	return len(d.keys)
}

func (d *Dict) find(k string) (int, bool) {
	i := sort.SearchStrings(d.keys, k)
	return i, i < len(d.keys) && d.keys[i] == k
}

// Get returns the value under k.
func (d *Dict) Get(k string) (Value, bool) {
	if d.tab != nil {
		return d.tab.get(k)
	}
	if d.root != nil {
		return d.root.get(k, hashKey(k), 0)
	}
	if len(d.keys) <= 8 {
		for i, key := range d.keys {
			if key == k {
				return d.vals[i], true
			}
		}
		return Value{}, false
	}
	if i, ok := d.find(k); ok {
		return d.vals[i], true
	}
	return Value{}, false
}

// Has reports whether k is present.
func (d *Dict) Has(k string) bool {
	_, ok := d.Get(k)
	return ok
}

// Set returns a dict with k bound to v.
func (d *Dict) Set(k string, v Value) *Dict {
	noteGrowth(dictEntrySize + int64(len(k)))
	if d.tab != nil {
		return d.toTrie().Set(k, v)
	}
	if d.root != nil {
		root, added := d.root.set(k, hashKey(k), v, 0)
		n := d.n
		if added {
			n++
		}
		return &Dict{root: root, n: n}
	}
	i, ok := d.find(k)
	if !ok && len(d.keys) >= smallDict {
		return d.toTrie().Set(k, v)
	}
	if ok {
		vals := make([]Value, len(d.vals))
		copy(vals, d.vals)
		vals[i] = v
		return &Dict{keys: d.keys, vals: vals}
	}
	keys := make([]string, len(d.keys)+1)
	vals := make([]Value, len(d.vals)+1)
	copy(keys, d.keys[:i])
	copy(vals, d.vals[:i])
	keys[i], vals[i] = k, v
	copy(keys[i+1:], d.keys[i:])
	copy(vals[i+1:], d.vals[i:])
	return &Dict{keys: keys, vals: vals}
}

// toTrie converts a small or owned dict to the trie form.
func (d *Dict) toTrie() *Dict {
	root := &hamtNode{}
	if d.tab != nil {
		d.tab.each(func(e *hamtEntry) { root, _ = root.set(e.key, hashKey(e.key), e.val, 0) })
		return &Dict{root: root, n: d.tab.len()}
	}
	for i, k := range d.keys {
		root, _ = root.set(k, hashKey(k), d.vals[i], 0)
	}
	return &Dict{root: root, n: len(d.keys)}
}

// Delete returns a dict without k.
func (d *Dict) Delete(k string) *Dict {
	if d.tab != nil {
		if _, ok := d.tab.get(k); !ok {
			return d
		}
		return d.toTrie().Delete(k)
	}
	if d.root != nil {
		root, found := d.root.del(k, hashKey(k), 0)
		if !found {
			return d
		}
		if root == nil {
			return EmptyDict
		}
		return &Dict{root: root, n: d.n - 1}
	}
	i, ok := d.find(k)
	if !ok {
		return d
	}
	keys := make([]string, 0, len(d.keys)-1)
	vals := make([]Value, 0, len(d.vals)-1)
	keys = append(append(keys, d.keys[:i]...), d.keys[i+1:]...)
	vals = append(append(vals, d.vals[:i]...), d.vals[i+1:]...)
	return &Dict{keys: keys, vals: vals}
}

// Keys returns the keys in order. The slice must not be modified.
func (d *Dict) Keys() []string {
	keys, _ := d.sortedView()
	return keys
}

// Values returns the values in key order. The slice must not be modified.
func (d *Dict) Values() []Value {
	_, vals := d.sortedView()
	return vals
}

// Range calls fn for each entry in key order until fn returns false.
func (d *Dict) Range(fn func(k string, v Value) bool) {
	keys, vals := d.sortedView()
	for i, k := range keys {
		if !fn(k, vals[i]) {
			return
		}
	}
}

// Merge returns d with every entry of other added (other wins).
func (d *Dict) Merge(other *Dict) *Dict {
	if other.Len() == 0 {
		return d
	}
	if d.Len() == 0 {
		return other
	}
	if n := d.Len(); n > smallDict && other.Len()*8 <= n {
		// A few entries into a large dict (`acc = acc.merge({k: v})` in
		// a loop): insert them into the persistent trie instead of
		// sorting and copying every entry of d.
		r := d
		if r.root == nil {
			r = r.toTrie()
		}
		other.Range(func(k string, v Value) bool { r = r.Set(k, v); return true })
		return r
	}
	b := NewDictBuilder(d.Len() + other.Len())
	d.Range(func(k string, v Value) bool { b.Set(k, v); return true })
	other.Range(func(k string, v Value) bool { b.Set(k, v); return true })
	return b.Build()
}

// Iterate yields {key, value} dicts in key order, as a `for` loop over a
// dict does (docs/spec/language.md §7.2).
func (d *Dict) Iterate() Iterator { return &dictEntryIter{d: d} }

type dictEntryIter struct {
	d *Dict
	i int
}

func (it *dictEntryIter) Next() (Value, bool, error) {
	keys, vals := it.d.sortedView()
	if it.i >= len(keys) {
		return Value{}, false, nil
	}
	k, v := keys[it.i], vals[it.i]
	it.i++
	return Of(EntryDict(k, v)), true, nil
}

// EntryDict builds the {key, value} dict, in one allocation: a `for` loop
// over a dict makes one per entry.
func EntryDict(k string, v Value) *Dict {
	e := &entryDict{vals: [2]Value{Str(k), v}}
	e.Dict = Dict{keys: entryKeys, vals: e.vals[:]}
	return &e.Dict
}

type entryDict struct {
	Dict
	vals [2]Value
}

// entryKeys is shared by every entry dict: key slices are never modified,
// and its capacity makes an append copy it.
var entryKeys = []string{"key", "value"}[:2:2]

// DictBuilder accumulates entries and builds a Dict once.
type DictBuilder struct {
	m     map[string]int
	keys  []string
	vals  []Value
	dirty bool
}

// NewDictBuilder returns a builder sized for n entries.
func NewDictBuilder(n int) *DictBuilder {
	return &DictBuilder{keys: make([]string, 0, n), vals: make([]Value, 0, n)}
}

// Set binds k to v; a later Set of the same key wins.
func (b *DictBuilder) Set(k string, v Value) {
	if b.m == nil && len(b.keys) >= 8 {
		b.m = make(map[string]int, 2*len(b.keys))
		for i, key := range b.keys {
			b.m[key] = i
		}
	}
	if b.m != nil {
		if i, ok := b.m[k]; ok {
			b.vals[i] = v
			return
		}
		b.m[k] = len(b.keys)
	} else {
		for i, key := range b.keys {
			if key == k {
				b.vals[i] = v
				return
			}
		}
	}
	if n := len(b.keys); n > 0 && b.keys[n-1] >= k {
		b.dirty = true
	}
	b.keys = append(b.keys, k)
	b.vals = append(b.vals, v)
}

// BuildNamespace is Build for the namespace value of `import * as ns`.
func (b *DictBuilder) BuildNamespace() *Dict { return b.buildTagged(moduleNamespace) }

// buildTagged is Build for a namespace dict tagged tag.
func (b *DictBuilder) buildTagged(tag *namespaceTag) *Dict {
	d := b.Build()
	if d == EmptyDict {
		d = &Dict{}
	}
	d.namespace = tag
	return d
}

// NewLibraryNamespace is the library namespace global name (`stream`,
// `event_log`, `workflow`): a dict of its members, builtins named
// "name.member", under their member names. It reads like any dict
// (type_of, keys, len, indexing, display, equality), and `name.member(…)`
// calls the member even where a dict method has its name (`stream.map`).
func NewLibraryNamespace(name string, members []*Builtin) *Dict {
	b := NewDictBuilder(len(members))
	for _, f := range members {
		b.Set(strings.TrimPrefix(f.Name(), name+"."), Of(f))
	}
	return b.buildTagged(&namespaceTag{library: name})
}

// LibraryNamespace is the name of the library namespace d is (`stream`),
// or "" when d is not one.
func (d *Dict) LibraryNamespace() string {
	if d.namespace == nil {
		return ""
	}
	return d.namespace.library
}

// IsModuleNamespace reports whether d is the value of a namespace
// import (`import * as ns`).
func (d *Dict) IsModuleNamespace() bool { return d.namespace == moduleNamespace }

// namespaceMember is the callable namespace d holds under name, if d is
// a namespace.
func namespaceMember(d *Dict, name string) (Value, bool) {
	if d.namespace == nil {
		return Value{}, false
	}
	f, ok := d.Get(name)
	return f, ok && IsCallable(f)
}

// Build returns the dict. The builder must not be used afterwards.
func (b *DictBuilder) Build() *Dict {
	if len(b.keys) == 0 {
		return EmptyDict
	}
	if b.dirty {
		sort.Sort(byKey{b.keys, b.vals})
	}
	d := &Dict{keys: b.keys, vals: b.vals}
	if len(b.keys) > smallDict {
		// keep the sorted slices as the view of the trie form
		t := d.toTrie()
		t.view.Store(&dictView{keys: b.keys, vals: b.vals})
		return t
	}
	return d
}

type byKey struct {
	keys []string
	vals []Value
}

func (s byKey) Len() int           { return len(s.keys) }
func (s byKey) Less(i, j int) bool { return s.keys[i] < s.keys[j] }
func (s byKey) Swap(i, j int) {
	s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
	s.vals[i], s.vals[j] = s.vals[j], s.vals[i]
}

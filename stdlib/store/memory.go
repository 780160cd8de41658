package store

// The internals of std/memory (docs/agents.md, "Memory"): texts an agent
// stores in a namespace and recalls by simple word matching, persisted as
// the JSON document <root>/<namespace>.json (root: <state root>/memory
// unless given) holding {next, records}, each record {id, namespace,
// text, tags, metadata?} in the order stored.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// defaultRecall is how many records memory_recall returns by default.
const defaultRecall = 5

// memoryKeys are the option keys of each memory builtin.
var memoryKeys = map[string][]string{
	"memory_store":  {"tags", "metadata", "root"},
	"memory_recall": {"limit", "tags", "root"},
	"memory_forget": {"root"},
	"memory_list":   {"root"},
}

// memoryCall is a checked call of a memory builtin: its namespace file
// and options.
type memoryCall struct {
	fn, namespace, path string
	opts                *vm.Dict
}

func newMemoryCall(th *vm.Thread, fn string, namespace, options vm.Value) (*memoryCall, error) {
	ns, err := docName(fn, "namespace", namespace)
	if err != nil {
		return nil, err
	}
	opts := vm.NewDict()
	if options.IsValid() && !options.IsNil() {
		d, ok := options.AsDict()
		if !ok {
			return nil, lib.BadOptions(fn, options)
		}
		if err := lib.CheckOptions(fn, d, memoryKeys[fn]); err != nil {
			return nil, err
		}
		opts = d
	}
	path, err := docPath(th, fn, lib.Get(opts, "root"), "memory", ns)
	if err != nil {
		return nil, err
	}
	return &memoryCall{fn: fn, namespace: ns, path: path, opts: opts}, nil
}

// tags is the tags option: a list of non-empty strings (none when absent).
func (c *memoryCall) tags() ([]string, error) {
	v := lib.Get(c.opts, "tags")
	if v.IsNil() {
		return nil, nil
	}
	l, ok := v.AsList()
	if !ok {
		return nil, c.badTags(v)
	}
	out := make([]string, 0, l.Len())
	for i, it := range l.Items() {
		s, ok := it.AsString()
		if !ok || s.Go() == "" {
			return nil, vm.Typef("%s: tags must be a list of non-empty strings, got %s at index %d", c.fn, lib.Shown(it), i)
		}
		out = append(out, s.Go())
	}
	return out, nil
}

// badTags reports a tags value that is not a list.
func (c *memoryCall) badTags(v vm.Value) error {
	return vm.Typef("%s: tags must be a list of non-empty strings, got %s", c.fn, lib.Shown(v))
}

// records are the stored records of a namespace document, oldest first.
func records(d *vm.Dict) []vm.Value {
	if l, ok := lib.Get(d, "records").AsList(); ok {
		return l.Items()
	}
	return nil
}

// words are the distinct lower-case words (runs of letters and digits)
// of s.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// recordTags are the tags of a stored record.
func recordTags(rec *vm.Dict) []string {
	var out []string
	if l, ok := lib.Get(rec, "tags").AsList(); ok {
		for _, t := range l.Items() {
			out = append(out, vm.ToDisplay(t))
		}
	}
	return out
}

// score is how many of the query's words a record's text and tags hold.
func score(query map[string]bool, rec *vm.Dict) int {
	have := words(vm.ToDisplay(lib.Get(rec, "text")) + " " + strings.Join(recordTags(rec), " "))
	n := 0
	for w := range query {
		if have[w] {
			n++
		}
	}
	return n
}

func init() {
	lib.Def("__memory_store", "__memory_store(namespace, text, options?)", "store text in namespace; the record (std/memory.memory_store)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := newMemoryCall(th, "memory_store", a.At(0), a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		text, ok := a.Str(1)
		if !ok || strings.TrimSpace(text) == "" {
			return vm.Value{}, vm.Typef("memory_store: text must be a non-empty string, got %s", lib.Shown(a.At(1)))
		}
		tags, err := c.tags()
		if err != nil {
			return vm.Value{}, err
		}
		meta := lib.Get(c.opts, "metadata")
		if _, ok := meta.AsDict(); !ok && !meta.IsNil() {
			return vm.Value{}, vm.Typef("memory_store: metadata must be a dict, got %s", meta.Type())
		}
		return updateDoc(th, c.fn, c.path, func(d *vm.Dict, _ bool) (*vm.Dict, vm.Value, error) {
			n, _ := lib.Get(d, "next").AsInt()
			next := max(int(n), 0) + 1
			rec := lib.DictOf("id", vm.Str(fmt.Sprintf("mem_%d", next)), "namespace", vm.Str(c.namespace),
				"text", vm.Str(text), "tags", vm.Of(lib.StrList(tags)))
			if !meta.IsNil() {
				rec = rec.Set("metadata", jsonCopy(meta))
			}
			all := append(slices.Clone(records(d)), vm.Of(rec))
			return d.Set("next", lib.IntOf(next)).Set("records", vm.Of(lib.List(all))), vm.Of(rec), nil
		})
	})
	lib.Def("__memory_recall", "__memory_recall(namespace, query, options?)", "the records that match query best (std/memory.memory_recall)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := newMemoryCall(th, "memory_recall", a.At(0), a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		query, ok := a.Str(1)
		if !ok && !a.At(1).IsNil() {
			return vm.Value{}, vm.Typef("memory_recall: query must be a string, got %s", a.At(1).Type())
		}
		limit := defaultRecall
		if v := lib.Get(c.opts, "limit"); !v.IsNil() {
			n, isInt := v.AsInt()
			if !isInt || n <= 0 {
				return vm.Value{}, vm.Typef("memory_recall: limit must be a positive int, got %s", vm.ToDisplay(v))
			}
			limit = int(min(n, 1<<30))
		}
		want, err := c.tags()
		if err != nil {
			return vm.Value{}, err
		}
		return updateDoc(th, c.fn, c.path, func(d *vm.Dict, _ bool) (*vm.Dict, vm.Value, error) {
			return nil, vm.Of(lib.List(recall(records(d), words(query), want, limit))), nil
		})
	})
	lib.Def("__memory_forget", "__memory_forget(namespace, id?, options?)", "remove the record id, or every record; how many went (std/memory.memory_forget)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := newMemoryCall(th, "memory_forget", a.At(0), a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		id, ok := a.Str(1)
		if !ok && !a.At(1).IsNil() {
			return vm.Value{}, vm.Typef("memory_forget: id must be a string, got %s", a.At(1).Type())
		}
		return updateDoc(th, c.fn, c.path, func(d *vm.Dict, _ bool) (*vm.Dict, vm.Value, error) {
			all := records(d)
			kept := slices.DeleteFunc(slices.Clone(all), func(r vm.Value) bool {
				rec, _ := r.AsDict()
				return !ok || vm.ToDisplay(lib.Get(rec, "id")) == id
			})
			removed := len(all) - len(kept)
			if removed == 0 { // nothing to rewrite (a namespace with no file has no records)
				return nil, lib.IntOf(0), nil
			}
			return d.Set("records", vm.Of(lib.List(kept))), lib.IntOf(removed), nil
		})
	})
	lib.Def("__memory_list", "__memory_list(namespace, options?)", "every record of namespace, oldest first (std/memory.memory_list)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := newMemoryCall(th, "memory_list", a.At(0), a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return updateDoc(th, c.fn, c.path, func(d *vm.Dict, _ bool) (*vm.Dict, vm.Value, error) {
			return nil, vm.Of(lib.List(slices.Clone(records(d)))), nil
		})
	})
}

// recall ranks the records that carry every wanted tag by score, best
// first and, among equals, newest first; with query words, records that
// match none are left out. Each keeps at most limit, with its score.
func recall(all []vm.Value, query map[string]bool, want []string, limit int) []vm.Value {
	type hit struct {
		rec   *vm.Dict
		score int
		order int
	}
	var hits []hit
	for i, r := range all {
		rec, ok := r.AsDict()
		if !ok || !hasTags(rec, want) {
			continue
		}
		s := score(query, rec)
		if len(query) > 0 && s == 0 {
			continue
		}
		hits = append(hits, hit{rec, s, i})
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.order, a.order))
	})
	out := make([]vm.Value, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, vm.Of(h.rec.Set("score", lib.IntOf(h.score))))
	}
	return out
}

// hasTags reports whether rec carries every tag of want.
func hasTags(rec *vm.Dict, want []string) bool {
	have := recordTags(rec)
	for _, t := range want {
		if !slices.Contains(have, t) {
			return false
		}
	}
	return true
}

package workflow

// The graph value and its normalization (docs/workflow.md, "Graphs").

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// typeTag is the `_type` of a workflow graph dict.
const typeTag = "workflow"

// Kinds are the node kinds, in the order errors list them.
var Kinds = []string{"task", "llm", "tool", "branch"}

// graph is the Go view of a workflow dict. nodes and edges keep the dicts
// the user gave (normalized), in declaration order.
type graph struct {
	name     vm.Value // string or nil
	entry    string   // "" when there is none
	nodes    []*vm.Dict
	edges    []*vm.Dict
	policies *vm.Dict
	// commit metadata, only on a committed snapshot
	commit *vm.Dict
}

func str(v vm.Value) (string, bool) {
	if s, ok := v.AsString(); ok {
		return s.Go(), true
	}
	return "", false
}

func given(d *vm.Dict, k string) bool {
	v, ok := d.Get(k)
	return ok && !v.IsNil()
}

func nodeID(n *vm.Dict) string { s, _ := str(lib.Get(n, "id")); return s }
func nodeKind(n *vm.Dict) string {
	s, _ := str(lib.Get(n, "kind"))
	return s
}
func edgeFrom(e *vm.Dict) string { s, _ := str(lib.Get(e, "from")); return s }
func edgeTo(e *vm.Dict) string   { s, _ := str(lib.Get(e, "to")); return s }

// index is the position of node id, or -1.
func (g *graph) index(id string) int {
	for i, n := range g.nodes {
		if nodeID(n) == id {
			return i
		}
	}
	return -1
}

func (g *graph) node(id string) *vm.Dict {
	if i := g.index(id); i >= 0 {
		return g.nodes[i]
	}
	return nil
}

func (g *graph) ids() []string {
	out := make([]string, len(g.nodes))
	for i, n := range g.nodes {
		out[i] = nodeID(n)
	}
	return out
}

// outgoing are the edges leaving id, in declaration order.
func (g *graph) outgoing(id string) []*vm.Dict {
	var out []*vm.Dict
	for _, e := range g.edges {
		if edgeFrom(e) == id {
			out = append(out, e)
		}
	}
	return out
}

// copy is a shallow copy whose slices may be edited; an edit drops the
// commit metadata (an edited graph is a new, uncommitted version).
func (g *graph) copy() *graph {
	return &graph{name: g.name, entry: g.entry, nodes: slices.Clone(g.nodes), edges: slices.Clone(g.edges), policies: g.policies}
}

// value is the graph as a Harn dict.
func (g *graph) value() vm.Value {
	b := vm.NewDictBuilder(8)
	b.Set("_type", vm.Str(typeTag))
	b.Set("name", g.name)
	if g.entry == "" {
		b.Set("entry", vm.Nil)
	} else {
		b.Set("entry", vm.Str(g.entry))
	}
	b.Set("nodes", vm.Of(lib.DictList(g.nodes)))
	b.Set("edges", vm.Of(lib.DictList(g.edges)))
	b.Set("policies", vm.Of(g.policies))
	if g.commit != nil {
		g.commit.Range(func(k string, v vm.Value) bool { b.Set(k, v); return true })
	}
	return vm.Of(b.Build())
}

// commitKeys are the fields workflow_commit adds to a snapshot.
var commitKeys = []string{"version", "hash", "message", "parent"}

// fromValue reads a graph made by workflow_graph (or an edit of one).
func fromValue(fn string, v vm.Value) (*graph, error) {
	d, ok := v.AsDict()
	if !ok || !isGraph(d) {
		return nil, vm.Typef("%s: expected a workflow graph (from workflow_graph), got %s", fn, describe(v))
	}
	g := &graph{name: lib.Get(d, "name"), policies: vm.NewDict()}
	if s, ok := str(lib.Get(d, "entry")); ok {
		g.entry = s
	}
	nodes, ok := lib.Get(d, "nodes").AsList()
	if !ok {
		return nil, vm.Typef("%s: the workflow graph's nodes must be a list", fn)
	}
	for i, n := range nodes.Items() {
		nd, err := normNode(fn, n, fmt.Sprintf("nodes[%d]", i))
		if err != nil {
			return nil, err
		}
		g.nodes = append(g.nodes, nd)
	}
	edges, ok := lib.Get(d, "edges").AsList()
	if !ok {
		return nil, vm.Typef("%s: the workflow graph's edges must be a list", fn)
	}
	for i, e := range edges.Items() {
		ed, err := normEdge(fn, e, fmt.Sprintf("edges[%d]", i))
		if err != nil {
			return nil, err
		}
		g.edges = append(g.edges, ed)
	}
	if p, ok := lib.Get(d, "policies").AsDict(); ok {
		g.policies = p
	}
	if given(d, "hash") {
		b := vm.NewDictBuilder(4)
		for _, k := range commitKeys {
			b.Set(k, lib.Get(d, k))
		}
		g.commit = b.Build()
	}
	return g, nil
}

func isGraph(d *vm.Dict) bool {
	t, _ := str(lib.Get(d, "_type"))
	return t == typeTag
}

// describe names a value's type for an error, calling a dict without the
// workflow tag "dict".
func describe(v vm.Value) string { return v.Type() }

// build makes a graph from a workflow_graph spec.
func build(fn string, spec *vm.Dict) (*graph, error) {
	for _, k := range spec.Keys() {
		switch k {
		case "name", "entry", "nodes", "edges", "policies":
		default:
			return nil, vm.Runtimef("%s: unknown spec field %q (expected name, entry, nodes, edges, policies)", fn, k)
		}
	}
	g := &graph{name: lib.Get(spec, "name"), policies: vm.NewDict()}
	if !g.name.IsNil() {
		if _, ok := str(g.name); !ok {
			return nil, vm.Typef("%s: name must be a string, got %s", fn, g.name.Type())
		}
	}
	seen := map[string]bool{}
	add := func(n vm.Value, where string) error {
		nd, err := normNode(fn, n, where)
		if err != nil {
			return err
		}
		id := nodeID(nd)
		if seen[id] {
			return vm.Runtimef("%s: duplicate node id %q", fn, id)
		}
		seen[id] = true
		g.nodes = append(g.nodes, nd)
		return nil
	}
	switch ns := lib.Get(spec, "nodes").Object().(type) {
	case *vm.List:
		for i, n := range ns.Items() {
			if err := add(n, fmt.Sprintf("nodes[%d]", i)); err != nil {
				return nil, err
			}
		}
	case *vm.Dict:
		// {id: node}: the key is the id (a node's own id must agree).
		for _, id := range ns.Keys() {
			n := lib.Get(ns, id)
			nd, ok := n.AsDict()
			if !ok {
				return nil, vm.Typef("%s: nodes.%s must be a dict, got %s", fn, id, n.Type())
			}
			if given(nd, "id") {
				if own, _ := str(lib.Get(nd, "id")); own != id {
					return nil, vm.Runtimef("%s: nodes.%s has id %s", fn, id, vm.ToDisplay(lib.Get(nd, "id")))
				}
			}
			if err := add(vm.Of(nd.Set("id", vm.Str(id))), "nodes."+id); err != nil {
				return nil, err
			}
		}
	case nil:
	default:
		if !lib.Get(spec, "nodes").IsNil() {
			return nil, vm.Typef("%s: nodes must be a list or a dict, got %s", fn, lib.Get(spec, "nodes").Type())
		}
	}
	if ev := lib.Get(spec, "edges"); !ev.IsNil() {
		es, ok := ev.AsList()
		if !ok {
			return nil, vm.Typef("%s: edges must be a list, got %s", fn, ev.Type())
		}
		for i, e := range es.Items() {
			ed, err := normEdge(fn, e, fmt.Sprintf("edges[%d]", i))
			if err != nil {
				return nil, err
			}
			g.edges = append(g.edges, ed)
		}
	}
	switch ev := lib.Get(spec, "entry"); {
	case ev.IsNil():
		if len(g.nodes) > 0 {
			g.entry = nodeID(g.nodes[0])
		}
	default:
		s, ok := str(ev)
		if !ok {
			return nil, vm.Typef("%s: entry must be a string, got %s", fn, ev.Type())
		}
		g.entry = s
	}
	if pv := lib.Get(spec, "policies"); !pv.IsNil() {
		pd, ok := pv.AsDict()
		if !ok {
			return nil, vm.Typef("%s: policies must be a dict, got %s", fn, pv.Type())
		}
		for _, k := range pd.Keys() {
			p, ok := policyByKey(k)
			if !ok {
				return nil, vm.Runtimef("%s: unknown policy %q (expected %s)", fn, k, strings.Join(policyKeys(), ", "))
			}
			norm, err := p.check(fn, lib.Get(pd, k))
			if err != nil {
				return nil, err
			}
			g.policies = g.policies.Set(k, norm)
		}
	}
	return g, nil
}

// normNode checks one node dict and fills its default kind.
func normNode(fn string, v vm.Value, where string) (*vm.Dict, error) {
	n, ok := v.AsDict()
	if !ok {
		return nil, vm.Typef("%s: %s must be a node dict, got %s", fn, where, v.Type())
	}
	id, ok := str(lib.Get(n, "id"))
	if !ok || id == "" {
		return nil, vm.Runtimef("%s: %s needs a non-empty string id", fn, where)
	}
	kind := "task"
	if kv := lib.Get(n, "kind"); !kv.IsNil() {
		k, ok := str(kv)
		if !ok || !slices.Contains(Kinds, k) {
			return nil, vm.Runtimef("%s: node %q has unknown kind %s (expected %s)", fn, id, vm.ToDisplay(kv), strings.Join(Kinds, ", "))
		}
		kind = k
	}
	need := func(field, what string, ok bool) error {
		if ok {
			return nil
		}
		return vm.Runtimef("%s: %s node %q needs %s %s", fn, kind, id, field, what)
	}
	callable := func(k string) bool { return vm.IsCallable(lib.Get(n, k)) }
	optional := func(k string, okf func(vm.Value) bool, what string) error {
		if v := lib.Get(n, k); !v.IsNil() && !okf(v) {
			return vm.Typef("%s: node %q: %s must be %s, got %s", fn, id, k, what, v.Type())
		}
		return nil
	}
	isStr := func(v vm.Value) bool { _, ok := str(v); return ok }
	isDict := func(v vm.Value) bool { _, ok := v.AsDict(); return ok }
	strOrFn := func(v vm.Value) bool { return isStr(v) || vm.IsCallable(v) }
	dictOrFn := func(v vm.Value) bool { return isDict(v) || vm.IsCallable(v) }
	var err error
	switch kind {
	case "task":
		err = need("fn", "(a function of the state)", callable("fn"))
	case "llm":
		if err = need("prompt", "(a string or a function of the state)", strOrFn(lib.Get(n, "prompt"))); err == nil {
			if err = optional("system", strOrFn, "a string or a function"); err == nil {
				err = optional("options", isDict, "a dict")
			}
		}
	case "tool":
		t := lib.Get(n, "tool")
		ok := vm.IsCallable(t) || isDict(t) || (isStr(t) && given(n, "registry"))
		if err = need("tool", "(a tool value, a function, or a tool name with registry)", ok); err == nil {
			err = optional("args", dictOrFn, "a dict or a function of the state")
		}
	case "branch":
		err = optional("fn", vm.IsCallable, "a function")
	}
	if err != nil {
		return nil, err
	}
	return n.Set("kind", vm.Str(kind)), nil
}

// normEdge checks one edge dict.
func normEdge(fn string, v vm.Value, where string) (*vm.Dict, error) {
	e, ok := v.AsDict()
	if !ok {
		return nil, vm.Typef("%s: %s must be an edge dict {from, to, when?}, got %s", fn, where, v.Type())
	}
	for _, k := range []string{"from", "to"} {
		if s, ok := str(lib.Get(e, k)); !ok || s == "" {
			return nil, vm.Runtimef("%s: %s needs a node id string in %s", fn, where, k)
		}
	}
	if w := lib.Get(e, "when"); !w.IsNil() && !vm.IsCallable(w) {
		return nil, vm.Typef("%s: %s: when must be a function of the state, got %s", fn, where, w.Type())
	}
	return e, nil
}

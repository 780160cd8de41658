package workflow

import (
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// history is a run's commits, per graph name (an unnamed graph's under "").
type history struct {
	mu     sync.Mutex
	byName map[string][]*vm.Dict
}

type historyKey struct{}

func historyOf(th *vm.Thread) *history {
	return th.VM().Local(historyKey{}, func() any { return &history{byName: map[string][]*vm.Dict{}} }).(*history)
}

func nameKey(g *graph) string { s, _ := str(g.name); return s }

func (h *history) list(name string) []vm.Value {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]vm.Value, len(h.byName[name]))
	for i, d := range h.byName[name] {
		out[i] = vm.Of(d)
	}
	return out
}

// graphArg reads argument i as a graph.
func graphArg(fn string, a vm.Args, i int) (*graph, error) {
	if !a.Has(i) {
		return nil, vm.Runtimef("%s: missing argument %d (a workflow graph)", fn, i+1)
	}
	return fromValue(fn, a.At(i))
}

func strArg(fn string, a vm.Args, i int, what string) (string, error) {
	s, ok := a.Str(i)
	if !ok {
		if !a.Has(i) {
			return "", vm.Runtimef("%s: missing argument %d (%s)", fn, i+1, what)
		}
		return "", vm.Typef("%s: %s must be a string, got %s", fn, what, a.At(i).Type())
	}
	return s, nil
}

func init() {
	lib.Def("workflow_graph", "workflow_graph(spec: dict) -> dict",
		`a workflow graph {_type: "workflow", name, entry, nodes, edges, policies} from {name?, entry?, nodes, edges?, policies?}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow_graph"
			d, ok := a.Dict(0)
			if !ok {
				return vm.Value{}, vm.Typef("%s: spec must be a dict {name?, entry?, nodes, edges?}, got %s", fn, a.At(0).Type())
			}
			g, err := build(fn, d)
			if err != nil {
				return vm.Value{}, err
			}
			return g.value(), nil
		})
	lib.Def("workflow_validate", "workflow_validate(graph) -> list<dict>",
		"the graph's problems, a list of {code, severity, message, node?}: missing entry, unknown node ids in edges, unreachable nodes, unguarded cycles, branch nodes without guards; [] when valid",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			g, err := graphArg("workflow_validate", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(vm.NewList(g.problems())), nil
		})
	lib.Def("workflow_inspect", "workflow_inspect(graph) -> dict",
		"a summary {name, entry, nodes, kinds, edges, node_count, edge_count, order, terminals, has_cycles, valid, version, history}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			g, err := graphArg("workflow_inspect", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			return g.inspect(historyOf(th).list(nameKey(g))), nil
		})
	lib.Def("workflow_clone", "workflow_clone(graph, name?: string) -> dict",
		"an uncommitted copy of the graph, renamed when name is given",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow_clone"
			g, err := graphArg(fn, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			c := g.copy()
			if a.Given(1) {
				if _, ok := a.Str(1); !ok {
					return vm.Value{}, vm.Typef("%s: name must be a string, got %s", fn, a.At(1).Type())
				}
				c.name = a.At(1)
			}
			return c.value(), nil
		})
	lib.Def("workflow_insert_node", "workflow_insert_node(graph, node: dict, after?: string) -> dict",
		"a new graph with node added; after an existing node, node takes over that node's outgoing edges and gets an edge from it",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow_insert_node"
			g, err := graphArg(fn, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			n, err := normNode(fn, a.At(1), "node")
			if err != nil {
				return vm.Value{}, err
			}
			id := nodeID(n)
			if g.index(id) >= 0 {
				return vm.Value{}, vm.Runtimef("%s: the graph already has a node %q", fn, id)
			}
			c := g.copy()
			c.nodes = append(c.nodes, n)
			if a.Given(1 + 1) {
				after, err := strArg(fn, a, 2, "after")
				if err != nil {
					return vm.Value{}, err
				}
				if g.index(after) < 0 {
					return vm.Value{}, vm.Runtimef("%s: after names unknown node %q", fn, after)
				}
				for i, e := range c.edges {
					if edgeFrom(e) == after {
						c.edges[i] = e.Set("from", vm.Str(id))
					}
				}
				c.edges = append(c.edges, vm.NewDict().Set("from", vm.Str(after)).Set("to", vm.Str(id)))
			} else if c.entry == "" {
				c.entry = id
			}
			return c.value(), nil
		})
	lib.Def("workflow_replace_node", "workflow_replace_node(graph, id: string, node: dict) -> dict",
		"a new graph with node id replaced by node (its id defaults to id; a new id renames the edges and entry)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow_replace_node"
			g, err := graphArg(fn, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			id, err := strArg(fn, a, 1, "id")
			if err != nil {
				return vm.Value{}, err
			}
			i := g.index(id)
			if i < 0 {
				return vm.Value{}, vm.Runtimef("%s: the graph has no node %q", fn, id)
			}
			nd, ok := a.Dict(2)
			if !ok {
				return vm.Value{}, vm.Typef("%s: node must be a dict, got %s", fn, a.At(2).Type())
			}
			if !given(nd, "id") {
				nd = nd.Set("id", vm.Str(id))
			}
			n, err := normNode(fn, vm.Of(nd), "node")
			if err != nil {
				return vm.Value{}, err
			}
			newID := nodeID(n)
			if newID != id && g.index(newID) >= 0 {
				return vm.Value{}, vm.Runtimef("%s: the graph already has a node %q", fn, newID)
			}
			c := g.copy()
			c.nodes[i] = n
			if newID != id {
				for j, e := range c.edges {
					if edgeFrom(e) == id {
						e = e.Set("from", vm.Str(newID))
					}
					if edgeTo(e) == id {
						e = e.Set("to", vm.Str(newID))
					}
					c.edges[j] = e
				}
				if c.entry == id {
					c.entry = newID
				}
			}
			return c.value(), nil
		})
	lib.Def("workflow_rewire", "workflow_rewire(graph, from: string, to: string, new_to: string?) -> dict",
		"a new graph whose edge from → to points at new_to instead (keeping its when); new_to nil removes the edge",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow_rewire"
			g, err := graphArg(fn, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			from, err := strArg(fn, a, 1, "from")
			if err != nil {
				return vm.Value{}, err
			}
			to, err := strArg(fn, a, 2, "to")
			if err != nil {
				return vm.Value{}, err
			}
			var newTo string
			if a.Given(3) {
				if newTo, err = strArg(fn, a, 3, "new_to"); err != nil {
					return vm.Value{}, err
				}
				if g.index(newTo) < 0 {
					return vm.Value{}, vm.Runtimef("%s: new_to names unknown node %q", fn, newTo)
				}
			} else if !a.Has(3) {
				return vm.Value{}, vm.Runtimef("%s: missing argument 4 (new_to, or nil to remove the edge)", fn)
			}
			c := g.copy()
			found := false
			edges := c.edges[:0:0]
			for _, e := range c.edges {
				if edgeFrom(e) == from && edgeTo(e) == to {
					found = true
					if newTo == "" {
						continue
					}
					e = e.Set("to", vm.Str(newTo))
				}
				edges = append(edges, e)
			}
			if !found {
				return vm.Value{}, vm.Runtimef("%s: the graph has no edge %s -> %s", fn, from, to)
			}
			c.edges = edges
			return c.value(), nil
		})
	for _, p := range policies {
		p := p
		lib.Def(p.builtin, p.builtin+"(graph, policy) -> dict", "a new graph with its "+p.key+" policy set (validated; docs/workflow.md, Policies); nil clears it",
			func(th *vm.Thread, a vm.Args) (vm.Value, error) {
				g, err := graphArg(p.builtin, a, 0)
				if err != nil {
					return vm.Value{}, err
				}
				if !a.Has(1) {
					return vm.Value{}, vm.Runtimef("%s: missing argument 2 (the policy)", p.builtin)
				}
				c := g.copy()
				if a.At(1).IsNil() {
					c.policies = c.policies.Delete(p.key)
					return c.value(), nil
				}
				norm, err := p.check(p.builtin, a.At(1))
				if err != nil {
					return vm.Value{}, err
				}
				c.policies = c.policies.Set(p.key, norm)
				return c.value(), nil
			})
	}
	lib.Def("workflow_policy_report", "workflow_policy_report(graph) -> dict",
		"the graph's policies {model, context, auto_compact, output_visibility, set, llm_nodes, warnings}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			g, err := graphArg("workflow_policy_report", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			return g.policyReport(), nil
		})
	lib.Def("workflow_diff", "workflow_diff(a, b) -> dict",
		"what changed from graph a to graph b: {added_nodes, removed_nodes, changed_nodes, added_edges, removed_edges, changed_edges, entry_changed, policies_changed, same}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			x, err := graphArg("workflow_diff", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			y, err := graphArg("workflow_diff", a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			return diff(x, y), nil
		})
	lib.Def("workflow_commit", "workflow_commit(graph, message?: string) -> dict",
		"a committed snapshot of the graph with version, hash (SHA-256 of its content), message and parent; the run keeps the history per graph name",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow_commit"
			g, err := graphArg(fn, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			msg := vm.Nil
			if a.Given(1) {
				if _, ok := a.Str(1); !ok {
					return vm.Value{}, vm.Typef("%s: message must be a string, got %s", fn, a.At(1).Type())
				}
				msg = a.At(1)
			}
			c := g.copy()
			hash := c.contentHash()
			h := historyOf(th)
			h.mu.Lock()
			defer h.mu.Unlock()
			prev := h.byName[nameKey(g)]
			parent := vm.Nil
			if len(prev) > 0 {
				last := prev[len(prev)-1]
				if s, _ := str(lib.Get(last, "hash")); s == hash {
					// Unchanged since the last commit: that snapshot.
					c.commit = last
					return c.value(), nil
				}
				parent = lib.Get(last, "hash")
			}
			meta := lib.DictOf("version", vm.IntOf(int64(len(prev)+1)), "hash", vm.Str(hash), "message", msg, "parent", parent)
			h.byName[nameKey(g)] = append(prev, meta)
			c.commit = meta
			return c.value(), nil
		})
	lib.Def("workflow_execute", "workflow_execute(graph, input, options?: dict) -> dict",
		"run the graph from its entry: {output, trace: [{node, status, ms, output?}], state, steps, continues}; options {id, max_steps, max_continues}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const fn = "workflow_execute"
			g, err := graphArg(fn, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			o, err := parseOptions(fn, a.At(2))
			if err != nil {
				return vm.Value{}, err
			}
			return execute(th, g, a.At(1), o)
		})
	lib.Def("continue_as_new", "continue_as_new(input)",
		"inside a workflow_execute node: end the current run and start again from the entry with input (bounded by max_continues)",
		continueAsNew)
}

// continueAsNew is continue_as_new and workflow.continue_as_new.
func continueAsNew(th *vm.Thread, a vm.Args) (vm.Value, error) {
	r := runsOf(th).current(th)
	if r == nil {
		return vm.Value{}, vm.Runtimef("continue_as_new: called outside a running workflow (call it from a node of workflow_execute)")
	}
	in := a.At(0)
	r.pending = &in
	return vm.Value{}, vm.Throwf("continue_as_new: the workflow run restarts with a new input")
}

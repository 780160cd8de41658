package workflow

// Structural checks, the inspection summary, diffs and content hashes
// (docs/workflow.md, "Validation", "Inspection", "Diffs and commits").

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// problem is one finding of workflow_validate.
// Unreachable nodes and unguarded branch nodes are warnings (a run never
// meets them or fails only there); the rest are errors, which
// workflow_execute refuses to run.
func problem(code, msg string, kv ...any) vm.Value {
	b := vm.NewDictBuilder(3 + len(kv)/2)
	b.Set("code", vm.Str(code))
	sev := "error"
	if code == "unreachable" || code == "branch_without_guards" {
		sev = "warning"
	}
	b.Set("severity", vm.Str(sev))
	b.Set("message", vm.Str(msg))
	for i := 0; i+1 < len(kv); i += 2 {
		b.Set(kv[i].(string), kv[i+1].(vm.Value))
	}
	return vm.Of(b.Build())
}

func strList(ss []string) vm.Value {
	items := make([]vm.Value, len(ss))
	for i, s := range ss {
		items[i] = vm.Str(s)
	}
	return vm.Of(vm.NewList(items))
}

// problems lists what is wrong with g, in a fixed order: entry, edges,
// reachability, unguarded cycles, branch nodes.
func (g *graph) problems() []vm.Value {
	var out []vm.Value
	known := map[string]bool{}
	for _, id := range g.ids() {
		known[id] = true
	}
	switch {
	case len(g.nodes) == 0:
		out = append(out, problem("empty", "the workflow has no nodes"))
	case g.entry == "":
		out = append(out, problem("missing_entry", "the workflow has no entry node"))
	case !known[g.entry]:
		out = append(out, problem("missing_entry", "the entry "+strconv.Quote(g.entry)+" is not a node", "node", vm.Str(g.entry)))
	}
	for i, e := range g.edges {
		for _, end := range []string{"from", "to"} {
			id, _ := str(lib.Get(e, end))
			if !known[id] {
				out = append(out, problem("unknown_node", "edges["+strconv.Itoa(i)+"]."+end+" names unknown node "+strconv.Quote(id), "node", vm.Str(id), "edge", vm.IntOf(int64(i))))
			}
		}
	}
	if known[g.entry] {
		reach := g.reachable(g.entry)
		for _, id := range g.ids() {
			if !reach[id] {
				out = append(out, problem("unreachable", "node "+strconv.Quote(id)+" is not reachable from the entry", "node", vm.Str(id)))
			}
		}
	}
	for _, cyc := range g.unguardedCycles() {
		out = append(out, problem("unguarded_cycle", "cycle "+strings.Join(append(slices.Clone(cyc), cyc[0]), " -> ")+" has no edge with a when guard, so it never ends", "nodes", strList(cyc)))
	}
	for _, n := range g.nodes {
		if nodeKind(n) != "branch" {
			continue
		}
		out2 := g.outgoing(nodeID(n))
		guarded := 0
		for _, e := range out2 {
			if given(e, "when") {
				guarded++
			}
		}
		if guarded == 0 {
			out = append(out, problem("branch_without_guards", "branch node "+strconv.Quote(nodeID(n))+" has no outgoing edge with a when guard", "node", vm.Str(nodeID(n))))
		}
	}
	return out
}

// reachable is the set of nodes reachable from id along any edge.
func (g *graph) reachable(id string) map[string]bool {
	seen := map[string]bool{id: true}
	stack := []string{id}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range g.outgoing(cur) {
			if to := edgeTo(e); !seen[to] {
				seen[to] = true
				stack = append(stack, to)
			}
		}
	}
	return seen
}

// unguardedCycles are the cycles made only of edges without `when`, each
// reported once, starting at its first node in declaration order.
func (g *graph) unguardedCycles() [][]string {
	succ := map[string][]string{}
	for _, e := range g.edges {
		if !given(e, "when") && g.index(edgeTo(e)) >= 0 {
			succ[edgeFrom(e)] = append(succ[edgeFrom(e)], edgeTo(e))
		}
	}
	var cycles [][]string
	seenKey := map[string]bool{}
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var path []string
	var visit func(id string)
	visit = func(id string) {
		color[id] = grey
		path = append(path, id)
		for _, to := range succ[id] {
			switch color[to] {
			case white:
				visit(to)
			case grey:
				i := slices.Index(path, to)
				cyc := slices.Clone(path[i:])
				cyc = g.rotate(cyc)
				key := strings.Join(cyc, "\x00")
				if !seenKey[key] {
					seenKey[key] = true
					cycles = append(cycles, cyc)
				}
			}
		}
		path = path[:len(path)-1]
		color[id] = black
	}
	for _, id := range g.ids() {
		if color[id] == white {
			visit(id)
		}
	}
	return cycles
}

// rotate starts a cycle at its node declared first.
func (g *graph) rotate(cyc []string) []string {
	best := 0
	for i, id := range cyc {
		if g.index(id) < g.index(cyc[best]) {
			best = i
		}
	}
	return append(slices.Clone(cyc[best:]), cyc[:best]...)
}

// order is a topological order ignoring the edges that close a cycle:
// the reverse post-order of a depth-first walk from the entry, then the nodes the entry does not reach,
// walked the same way in declaration order.
func (g *graph) order() []string {
	visited := map[string]bool{}
	var post []string
	var visit func(id string)
	visit = func(id string) {
		visited[id] = true
		// Successors are walked last-declared first, so that in the
		// reversed post-order siblings keep their declaration order.
		out := g.outgoing(id)
		for i := len(out) - 1; i >= 0; i-- {
			if to := edgeTo(out[i]); !visited[to] && g.index(to) >= 0 {
				visit(to)
			}
		}
		post = append(post, id)
	}
	var out []string
	roots := g.ids()
	if g.index(g.entry) >= 0 {
		roots = append([]string{g.entry}, roots...)
	}
	for _, r := range roots {
		if visited[r] {
			continue
		}
		post = post[:0]
		visit(r)
		for i := len(post) - 1; i >= 0; i-- {
			out = append(out, post[i])
		}
	}
	return out
}

// inspect is workflow_inspect's summary.
func (g *graph) inspect(history []vm.Value) vm.Value {
	b := vm.NewDictBuilder(12)
	b.Set("name", g.name)
	b.Set("entry", entryValue(g.entry))
	b.Set("nodes", strList(g.ids()))
	kinds := vm.NewDictBuilder(len(g.nodes))
	for _, n := range g.nodes {
		kinds.Set(nodeID(n), vm.Str(nodeKind(n)))
	}
	b.Set("kinds", vm.Of(kinds.Build()))
	edges := make([]vm.Value, len(g.edges))
	for i, e := range g.edges {
		edges[i] = vm.Str(edgeLabel(e))
	}
	b.Set("edges", vm.Of(vm.NewList(edges)))
	b.Set("node_count", vm.IntOf(int64(len(g.nodes))))
	b.Set("edge_count", vm.IntOf(int64(len(g.edges))))
	b.Set("order", strList(g.order()))
	var terminals []string
	for _, id := range g.ids() {
		if len(g.outgoing(id)) == 0 {
			terminals = append(terminals, id)
		}
	}
	b.Set("terminals", strList(terminals))
	b.Set("has_cycles", vm.BoolOf(g.hasCycle()))
	probs := g.problems()
	runnable := true
	for _, p := range probs {
		if sev, _ := str(lib.Get(p.Dict(), "severity")); sev == "error" {
			runnable = false
		}
	}
	b.Set("valid", vm.BoolOf(len(probs) == 0))
	b.Set("runnable", vm.BoolOf(runnable))
	b.Set("version", lib.Get(orEmpty(g.commit), "version"))
	b.Set("history", vm.Of(vm.NewList(history)))
	return vm.Of(b.Build())
}

func orEmpty(d *vm.Dict) *vm.Dict {
	if d == nil {
		return vm.NewDict()
	}
	return d
}

func entryValue(s string) vm.Value {
	if s == "" {
		return vm.Nil
	}
	return vm.Str(s)
}

// edgeLabel is "from -> to", with " (when)" for a guarded edge.
func edgeLabel(e *vm.Dict) string {
	s := edgeFrom(e) + " -> " + edgeTo(e)
	if given(e, "when") {
		s += " (when)"
	}
	return s
}

// hasCycle reports a cycle along any edges, guarded or not.
func (g *graph) hasCycle() bool {
	indeg := map[string]int{}
	for _, id := range g.ids() {
		indeg[id] = 0
	}
	for _, e := range g.edges {
		if _, ok := indeg[edgeTo(e)]; ok && g.index(edgeFrom(e)) >= 0 {
			indeg[edgeTo(e)]++
		}
	}
	var queue []string
	for _, id := range g.ids() {
		if indeg[id] == 0 {
			queue = append(queue, id)
		}
	}
	done := 0
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		done++
		for _, e := range g.outgoing(id) {
			if _, ok := indeg[edgeTo(e)]; ok {
				indeg[edgeTo(e)]--
				if indeg[edgeTo(e)] == 0 {
					queue = append(queue, edgeTo(e))
				}
			}
		}
	}
	return done < len(g.nodes)
}

// canon appends a canonical encoding of v for hashing and comparison:
// dict keys sorted, functions by name and definition site.
func canon(sb *strings.Builder, v vm.Value) {
	switch o := v.Object().(type) {
	case *vm.Dict:
		keys := o.Keys()
		sort.Strings(keys)
		sb.WriteByte('{')
		for _, k := range keys {
			sb.WriteString(strconv.Quote(k))
			sb.WriteByte(':')
			canon(sb, lib.Get(o, k))
			sb.WriteByte(',')
		}
		sb.WriteByte('}')
	case *vm.List:
		sb.WriteByte('[')
		for _, x := range o.Items() {
			canon(sb, x)
			sb.WriteByte(',')
		}
		sb.WriteByte(']')
	case *vm.Closure:
		sb.WriteString("fn:" + o.Proto.Name + "@" + filepath.Base(o.Proto.File) + ":" + strconv.Itoa(o.Proto.Line))
	case *vm.Builtin:
		sb.WriteString("builtin:" + o.Name())
	default:
		if s, ok := str(v); ok {
			sb.WriteString(strconv.Quote(s))
			return
		}
		sb.WriteString(v.Type() + ":" + vm.ToDisplay(v))
	}
}

func canonString(v vm.Value) string {
	var sb strings.Builder
	canon(&sb, v)
	return sb.String()
}

// contentHash is the SHA-256 (hex) of the graph's name, entry, nodes,
// edges and policies.
func (g *graph) contentHash() string {
	var sb strings.Builder
	canon(&sb, g.name)
	sb.WriteByte('|')
	sb.WriteString(g.entry)
	sb.WriteByte('|')
	canon(&sb, vm.Of(lib.DictList(g.nodes)))
	sb.WriteByte('|')
	canon(&sb, vm.Of(lib.DictList(g.edges)))
	sb.WriteByte('|')
	canon(&sb, vm.Of(g.policies))
	sum := sha256.Sum256([]byte(sb.String()))
	return hex.EncodeToString(sum[:])
}

// diff is workflow_diff(a, b).
func diff(a, b *graph) vm.Value {
	var added, removed, changed []string
	for _, n := range b.nodes {
		if a.node(nodeID(n)) == nil {
			added = append(added, nodeID(n))
		}
	}
	for _, n := range a.nodes {
		other := b.node(nodeID(n))
		switch {
		case other == nil:
			removed = append(removed, nodeID(n))
		case canonString(vm.Of(n)) != canonString(vm.Of(other)):
			changed = append(changed, nodeID(n))
		}
	}
	key := func(e *vm.Dict) string { return edgeFrom(e) + " -> " + edgeTo(e) }
	find := func(es []*vm.Dict, k string) *vm.Dict {
		for _, e := range es {
			if key(e) == k {
				return e
			}
		}
		return nil
	}
	var addedE, removedE, changedE []string
	for _, e := range b.edges {
		if find(a.edges, key(e)) == nil {
			addedE = append(addedE, key(e))
		}
	}
	for _, e := range a.edges {
		o := find(b.edges, key(e))
		switch {
		case o == nil:
			removedE = append(removedE, key(e))
		case canonString(vm.Of(e)) != canonString(vm.Of(o)):
			changedE = append(changedE, key(e))
		}
	}
	var pol []string
	for _, p := range policies {
		if canonString(lib.Get(a.policies, p.key)) != canonString(lib.Get(b.policies, p.key)) {
			pol = append(pol, p.key)
		}
	}
	entryChanged := a.entry != b.entry
	same := len(added)+len(removed)+len(changed)+len(addedE)+len(removedE)+len(changedE)+len(pol) == 0 && !entryChanged
	d := vm.NewDictBuilder(10)
	d.Set("added_nodes", strList(added))
	d.Set("removed_nodes", strList(removed))
	d.Set("changed_nodes", strList(changed))
	d.Set("added_edges", strList(addedE))
	d.Set("removed_edges", strList(removedE))
	d.Set("changed_edges", strList(changedE))
	d.Set("entry_changed", vm.BoolOf(entryChanged))
	d.Set("policies_changed", strList(pol))
	d.Set("same", vm.BoolOf(same))
	return vm.Of(d.Build())
}

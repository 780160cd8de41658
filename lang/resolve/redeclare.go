package resolve

import "github.com/harnlang/harn/lang/syntax"

// Top-level redeclaration. A `let`/`var`/`const` that declares a name
// again makes a new variable, at the top level as in a block
// (docs/spec/language.md §3.2, §3.4; docs/language.md §2): code after it,
// and closures created after it, use the new variable, while closures
// created before keep the old one. Every top-level declaration but the
// last of a name gets a global slot of its own (Binding.Superseded);
// the last one uses the name's slot, the one imports, exports, the REPL
// and forward references (a pipeline-mode function, a function declared
// above the first declaration) see.

// noteTopLet records a top-level let/var/const declaring name (pass 1).
func (r *resolver) noteTopLet(name string, node syntax.Node) {
	if r.topLets == nil {
		r.topLets = map[string][]syntax.Node{}
	}
	r.topLets[name] = append(r.topLets[name], node)
}

// declareTopLet declares a top-level let/var/const binding (pass 2).
func (r *resolver) declareTopLet(name string, kind Kind, pos syntax.Pos, node syntax.Node) *Binding {
	lets := r.topLets[name]
	var b *Binding
	if len(lets) < 2 || lets[len(lets)-1] == node {
		b = r.global(name, kind, pos, node)
	} else {
		b = r.supersededGlobal(name, kind, pos, node)
	}
	if r.topCur == nil {
		r.topCur = map[string]*Binding{}
	}
	r.topCur[name] = b
	return b
}

// currentGlobal is the binding a reference to the global name made here
// reads: the variable of the latest top-level declaration above it, or
// final (the name's slot) before the first one and from the functions
// of a pipeline-mode file, which all run after the whole top level
// (docs/spec/language.md §3.4).
func (r *resolver) currentGlobal(name string, final *Binding) *Binding {
	b := r.topCur[name]
	if b == nil {
		return final
	}
	if r.info.Pipeline && len(r.stack) > 1 {
		if _, closure := r.stack[1].fn.Node.(*syntax.ClosureLit); !closure {
			return final
		}
	}
	return b
}

// priorGlobal declares a global of an earlier REPL entry, in its slot: a
// name that entry declared more than once has a slot per superseded
// declaration before (or after) its own.
func (r *resolver) priorGlobal(name string, kind Kind) {
	if _, dup := r.info.GlobalIndex[name]; !dup {
		r.global(name, kind, syntax.Pos{}, nil)
		return
	}
	r.supersededGlobal(name, kind, syntax.Pos{}, nil)
}

// supersededGlobal adds a global slot of its own for a declaration of
// name that a later one replaces (node nil: one of an earlier REPL entry).
func (r *resolver) supersededGlobal(name string, kind Kind, pos syntax.Pos, node syntax.Node) *Binding {
	b := &Binding{Name: name, Kind: kind, Pos: pos, Decl: node, Scope: Global, Index: len(r.info.Globals), FirstPos: pos, Superseded: true}
	r.info.Globals = append(r.info.Globals, b)
	if node != nil {
		r.info.decls[declKey{node, name}] = b
	}
	return b
}

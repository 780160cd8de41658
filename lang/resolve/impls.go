package resolve

import (
	"fmt"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
)

// ImplRef is one struct's impl as a method call site sees it
// (docs/spec/language.md §10.3): an impl block is looked up like a variable in
// the calling code's scopes, so a call finds the innermost impl for the
// struct declared before it in an enclosing scope — inside a function,
// only one created before that function. Block is nil when the file has
// impl blocks for Struct but the call sees none of them: the call yields
// nil.
type ImplRef struct {
	Struct string
	Block  *syntax.ImplBlock
}

// MethodImpls returns the impls the method call site call sees, one
// entry per struct of the file that has an impl block; nil when the file
// has none (a call then finds the impls other modules registered).
func (in *Info) MethodImpls(call *syntax.MethodCall) []ImplRef { return in.methodImpls[call] }

// implSites is what the resolver keeps to answer MethodImpls.
type implSites struct {
	sites   []*syntax.MethodCall
	visible map[*syntax.MethodCall][]ImplRef
	structs []string // every struct given an impl block, in source order
	// topAll holds the file's top-level impl blocks; allTop makes them
	// all visible to the code being resolved: an entry pipeline's body
	// runs after every top-level declaration was created (docs/spec/language.md
	// §5.3), and a module's functions run once the module has loaded
	// (this implementation's choice: docs/spec/language.md §11.2 runs no impl of
	// a module).
	topAll map[string]*syntax.ImplBlock
	allTop bool
}

// declareImpl records an impl block in the current scope; a second one
// for the same struct in the same scope is a redeclaration
// (docs/spec/language.md §10.3), the run-time error of a const redeclaration
// (§3.2, which a script may catch), warned about here at the second impl;
// the first stays the visible one.
func (r *resolver) declareImpl(s *syntax.ImplBlock) {
	sc := r.cur().scopes[len(r.cur().scopes)-1]
	if sc.impls == nil {
		sc.impls = map[string]*syntax.ImplBlock{}
	}
	if first := sc.impls[s.Name]; first != nil {
		r.info.ConstRedeclared[s] = true
		r.info.Warnings = append(r.info.Warnings, &diag.Error{
			File: r.file.Path, Line: s.At.Line, Col: s.At.Col, Phase: diag.PhaseStatic, Severity: diag.SevWarning,
			Msg:  fmt.Sprintf("struct `%s` already has an impl in this scope, at line %d: this second one is a redeclaration error when it runs", s.Name, first.At.Line),
			Help: "use one `impl` per struct per scope: move these methods into the first one",
			Notes: []*diag.Error{{File: r.file.Path, Line: first.At.Line, Col: first.At.Col,
				Msg: "first `impl " + s.Name + "` here", Phase: diag.PhaseStatic}},
		})
		return
	}
	sc.impls[s.Name] = s
	for _, n := range r.impls.structs {
		if n == s.Name {
			return
		}
	}
	r.impls.structs = append(r.impls.structs, s.Name)
}

// collectTopImpls records the file's top-level impl blocks (topAll).
func (r *resolver) collectTopImpls() {
	for _, it := range r.file.Items {
		if d, ok := it.(*syntax.ImplBlock); ok {
			if r.impls.topAll == nil {
				r.impls.topAll = map[string]*syntax.ImplBlock{}
			}
			if r.impls.topAll[d.Name] == nil {
				r.impls.topAll[d.Name] = d
			}
		}
	}
}

// methodSite records the impls visible at a method call site.
func (r *resolver) methodSite(call *syntax.MethodCall) {
	r.impls.sites = append(r.impls.sites, call)
	var vis []ImplRef
	seen := func(name string) bool {
		for _, v := range vis {
			if v.Struct == name {
				return true
			}
		}
		return false
	}
	add := func(m map[string]*syntax.ImplBlock) {
		for name, b := range m {
			if !seen(name) {
				vis = append(vis, ImplRef{Struct: name, Block: b})
			}
		}
	}
	for depth := len(r.stack) - 1; depth >= 0; depth-- {
		fs := r.stack[depth]
		for i := len(fs.scopes) - 1; i >= 0; i-- {
			if depth == 0 && i == 0 && r.impls.allTop {
				add(r.impls.topAll)
				continue
			}
			add(fs.scopes[i].impls)
		}
	}
	if vis != nil {
		if r.impls.visible == nil {
			r.impls.visible = map[*syntax.MethodCall][]ImplRef{}
		}
		r.impls.visible[call] = vis
	}
}

// finishImpls completes every call site's list with the structs whose
// impl blocks it does not see.
func (r *resolver) finishImpls() {
	if len(r.impls.structs) == 0 {
		return
	}
	r.info.methodImpls = make(map[*syntax.MethodCall][]ImplRef, len(r.impls.sites))
	for _, call := range r.impls.sites {
		vis := r.impls.visible[call]
	next:
		for _, name := range r.impls.structs {
			for _, v := range vis {
				if v.Struct == name {
					continue next
				}
			}
			vis = append(vis, ImplRef{Struct: name})
		}
		r.info.methodImpls[call] = vis
	}
}

package resolve_test

import (
	"slices"
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// globalSlotsOf returns the global slot every reference to name reads,
// in source order.
func globalSlotsOf(t *testing.T, info *resolve.Info, name string) []int {
	t.Helper()
	type at struct {
		pos  syntax.Pos
		slot int
	}
	var refs []at
	for id, ref := range info.Refs {
		if id.Name == name {
			if ref.Scope != resolve.Global {
				t.Fatalf("%s at %v resolves to %v, want a global", name, id.At, ref.Scope)
			}
			refs = append(refs, at{id.At, ref.Index})
		}
	}
	slices.SortFunc(refs, func(a, b at) int {
		if a.pos.Line != b.pos.Line {
			return a.pos.Line - b.pos.Line
		}
		return a.pos.Col - b.pos.Col
	})
	out := make([]int, len(refs))
	for i, r := range refs {
		out[i] = r.slot
	}
	return out
}

// A top-level redeclaration makes a new variable: references above it
// keep the old slot, references below use the new one, and the last
// declaration holds the name's slot (the one imports and the REPL see).
func TestTopLevelRedeclarationNewSlot(t *testing.T) {
	_, info := resolveSrc(t, "let x = 1\nlet f = { -> x }\nlet x = 2\nprintln(x)\nlet x = 3\nprintln(x)\n")
	got := globalSlotsOf(t, info, "x")
	if len(got) != 3 || got[0] == got[1] || got[1] == got[2] || got[0] == got[2] {
		t.Fatalf("slots of x = %v, want three different slots", got)
	}
	final := info.GlobalIndex["x"]
	if got[2] != final || info.Globals[final].Superseded {
		t.Errorf("the last reference reads slot %d, want the name's slot %d", got[2], final)
	}
	for _, g := range got[:2] {
		if !info.Globals[g].Superseded {
			t.Errorf("slot %d of an earlier declaration is not marked superseded", g)
		}
	}
	superseded := 0
	for _, g := range info.Globals {
		if g.Name == "x" && g.Superseded {
			superseded++
		}
	}
	if superseded != 2 {
		t.Errorf("%d superseded slots for x, want 2 (three declarations)", superseded)
	}
}

// In pipeline mode every function runs after the whole top level, so a
// function between two declarations reads the last one.
func TestPipelineFunctionReadsLastDeclaration(t *testing.T) {
	_, info := resolveSrc(t, "let m = 1\nfn show() { return m }\nlet m = 2\npipeline default() { println(show()) }\n")
	got := globalSlotsOf(t, info, "m")
	if len(got) != 1 || got[0] != info.GlobalIndex["m"] {
		t.Fatalf("slots of m = %v, want the name's slot %d", got, info.GlobalIndex["m"])
	}
}

// A REPL entry after one that declared a name twice keeps every slot in
// place: the name's slot first, the superseded one after it.
func TestPriorGlobalsKeepSupersededSlots(t *testing.T) {
	f, err := syntax.Parse("t.harn", []byte("println(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	info := resolve.File(f, resolve.Options{Universe: universe{"println": true}, PriorGlobals: []string{"x", "f", "x"}})
	if len(info.Globals) != 3 {
		t.Fatalf("%d globals, want 3", len(info.Globals))
	}
	if info.GlobalIndex["x"] != 0 || info.GlobalIndex["f"] != 1 || !info.Globals[2].Superseded {
		t.Errorf("globals = %v / %+v", info.GlobalIndex, info.Globals[2])
	}
}

// The redeclaration of a const by a const at the top level is reported
// like the one in a block (a run-time error the compiler emits).
func TestTopLevelConstRedeclared(t *testing.T) {
	f, info := resolveSrc(t, "const c = 1\nconst c = 2\nlet d = 1\nconst d = 2\n")
	var marked []string
	for _, it := range f.Items {
		p := it.(*syntax.LetStmt).Pattern
		if info.ConstRedeclared[p] {
			marked = append(marked, p.(*syntax.IdentPattern).Name)
		}
	}
	if !slices.Equal(marked, []string{"c"}) {
		t.Errorf("const redeclarations marked: %v, want [c]", marked)
	}
}

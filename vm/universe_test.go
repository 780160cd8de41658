package vm

import (
	"slices"
	"testing"
)

func TestUniverseOver(t *testing.T) {
	fn := func(*Thread, Args) (Value, error) { return Nil, nil }
	mfn := func(*Thread, Value, Args) (Value, error) { return Nil, nil }
	lenB := NewBuiltin("len", "len(x)", "", fn)
	base := NewUniverseOf([]*Builtin{lenB}, []*Method{{Recv: "list", Name: "count", Fn: mfn}})
	base.AddGlobal("pi", FloatOf(3.14))

	u := Over(base)
	if u.Builtin("len") != lenB || u.Method("list", "count") == nil || !u.IsPredeclared("pi") {
		t.Fatal("an overlay does not see its base")
	}
	show := NewBuiltin("show", "show(x)", "", fn)
	u.AddBuiltin(show)
	u.AddBuiltin(NewBuiltin("len", "len(x)", "shadowed", fn))
	u.AddMethod(&Method{Recv: "list", Name: "twice", Fn: mfn})
	u.AddGlobal("pi", FloatOf(3))
	u.AddGlobal("argv", Nil)

	if u.Builtin("show") != show || u.Builtin("len").Doc != "shadowed" || u.Method("list", "twice") == nil || u.Method("list", "count") == nil {
		t.Error("an overlay's own entries are not found first")
	}
	if v, _ := u.Global("pi"); !Identical(v, FloatOf(3)) {
		t.Error("an overlay's global does not shadow its base's")
	}
	if base.Builtin("show") != nil || base.Builtin("len") != lenB || base.Method("list", "twice") != nil {
		t.Error("adding to an overlay changed its base")
	}
	if v, _ := base.Global("pi"); !Identical(v, FloatOf(3.14)) {
		t.Error("an overlay's global changed its base")
	}
	if got := u.BuiltinNames(); !slices.Equal(got, []string{"len", "show"}) {
		t.Errorf("BuiltinNames = %v", got)
	}
	if got := u.GlobalNames(); !slices.Equal(got, []string{"argv", "pi"}) {
		t.Errorf("GlobalNames = %v", got)
	}
	var names []string
	for _, m := range u.Methods("list") {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"count", "twice"}) {
		t.Errorf("Methods(list) = %v", names)
	}
	if got := u.MethodNames(); !slices.Equal(got, []string{"count", "twice"}) {
		t.Errorf("MethodNames = %v", got)
	}
	c := u.Clone()
	c.AddGlobal("extra", Nil)
	if _, ok := u.Global("extra"); ok || c.Builtin("show") != show || c.Builtin("len") == nil {
		t.Error("Clone of an overlay")
	}
}

// The library's method tables are indexed on their first lookup, once,
// whichever goroutine gets there first (run with -race).
func TestUniverseMethodsIndexedOnFirstLookup(t *testing.T) {
	mfn := func(*Thread, Value, Args) (Value, error) { return Nil, nil }
	first := &Method{Recv: "list", Name: "count", Doc: "first", Fn: mfn}
	later := &Method{Recv: "list", Name: "count", Doc: "later", Fn: mfn}
	u := NewUniverseOf(nil, []*Method{first, {Recv: "string", Name: "upper", Fn: mfn}, later, {Recv: "list", Name: "map", Fn: mfn}})
	for recv, tab := range u.methods {
		if tab.byName != nil {
			t.Errorf("NewUniverseOf indexed the %s methods before any lookup", recv)
		}
	}
	done := make(chan *Method)
	for range 8 {
		go func() { done <- u.Method("list", "count") }()
	}
	for range 8 {
		if m := <-done; m != later {
			t.Fatalf("Method(list, count) = %v, want the later registration", m)
		}
	}
	if u.Method("list", "map") == nil || u.Method("string", "upper") == nil || u.Method("string", "count") != nil {
		t.Error("lookups after indexing")
	}
	if ms := u.Methods("list"); len(ms) != 2 || ms[0].Doc != "later" {
		t.Errorf("Methods(list) = %v", ms)
	}
	if u.methods["string"].byName == nil {
		t.Error("a looked-up table is not indexed")
	}
}

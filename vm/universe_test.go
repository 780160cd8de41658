package vm

import (
	"slices"
	"testing"
)

// NewUniverseOf registers as AddBuiltin and AddMethod do: a later entry of
// the same name replaces an earlier one and the name is listed once.
func TestNewUniverseOf(t *testing.T) {
	fn := func(*Thread, Args) (Value, error) { return Nil, nil }
	mfn := func(*Thread, Value, Args) (Value, error) { return Nil, nil }
	a1, b, a2 := NewBuiltin("a", "a()", "first", fn), NewBuiltin("b", "b()", "", fn), NewBuiltin("a", "a()", "second", fn)
	m1 := &Method{Recv: "list", Name: "m", Fn: mfn}
	m2 := &Method{Recv: "list", Name: "m", Fn: mfn}
	m3 := &Method{Recv: "dict", Name: "n", Fn: mfn}
	u := NewUniverseOf([]*Builtin{a1, b, a2}, []*Method{m1, m3, m2})
	if u.Builtin("a") != a2 || u.Builtin("b") != b {
		t.Errorf("builtins: a %v, b %v", u.Builtin("a"), u.Builtin("b"))
	}
	if got := u.BuiltinNames(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("names %v", got)
	}
	if u.Method("list", "m") != m2 || u.Method("dict", "n") != m3 || u.Method("dict", "m") != nil {
		t.Error("methods")
	}
	u.AddGlobal("g", Nil)
	if _, ok := u.Global("g"); !ok {
		t.Error("globals")
	}
}

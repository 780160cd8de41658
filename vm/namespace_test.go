package vm_test

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/vm"
)

// libraryNamespace is a namespace `ns` with members `filter` (a dict
// method's name) and `one`, each answering its own name.
func libraryNamespace() vm.Value {
	member := func(name string) *vm.Builtin {
		return vm.NewBuiltin("ns."+name, "", "", func(*vm.Thread, vm.Args) (vm.Value, error) {
			return vm.Str("member " + name), nil
		})
	}
	return vm.Of(vm.NewLibraryNamespace("ns", []*vm.Builtin{member("filter"), member("one")}))
}

func TestLibraryNamespaceIsADictOfItsMembers(t *testing.T) {
	ns := libraryNamespace()
	d, ok := ns.AsDict()
	if !ok || ns.Type() != "dict" {
		t.Fatalf("type %s, want a dict", ns.Type())
	}
	if got := strings.Join(d.Keys(), ","); got != "filter,one" {
		t.Errorf("keys %s, want filter,one", got)
	}
	if got := vm.ToDisplay(ns); got != "{filter: <builtin ns.filter>, one: <builtin ns.one>}" {
		t.Errorf("display %s", got)
	}
	if d.LibraryNamespace() != "ns" {
		t.Errorf("LibraryNamespace() = %q, want ns", d.LibraryNamespace())
	}
}

func TestLibraryNamespaceMemberWinsOverDictMethod(t *testing.T) {
	u := testUniverse()
	u.AddMethod(&vm.Method{Recv: "dict", Name: "filter", Fn: func(*vm.Thread, vm.Value, vm.Args) (vm.Value, error) {
		return vm.Str("dict method"), nil
	}})
	th := vm.New(u).NewThread()
	v, err := th.CallMethod(libraryNamespace(), "filter")
	if err != nil || vm.ToDisplay(v) != "member filter" {
		t.Errorf("ns.filter() = %v, %v; want the member", v, err)
	}
}

func TestLibraryNamespaceUnknownMemberError(t *testing.T) {
	th := vm.New(testUniverse()).NewThread()
	_, err := th.CallMethod(libraryNamespace(), "nope")
	if err == nil || err.Error() != "Type error: `ns` has no member `nope`" {
		t.Errorf("ns.nope() error %v", err)
	}
}

func TestUpdatedLibraryNamespaceIsAPlainDict(t *testing.T) {
	d, _ := libraryNamespace().AsDict()
	if got := d.Set("x", vm.IntOf(1)).LibraryNamespace(); got != "" {
		t.Errorf("after Set: LibraryNamespace() = %q, want none", got)
	}
	if d.Has("x") {
		t.Error("Set changed the namespace itself")
	}
}

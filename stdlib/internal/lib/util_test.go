package lib

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// An options argument that is absent or nil is an empty dict, a dict is
// itself, anything else is an error naming the builtin and the argument.
// Get is the value under a key, nil for a key that is absent.
func TestGet(t *testing.T) {
	d := vm.NewDict().Set("k", vm.IntOf(1))
	if got := Get(d, "k"); !vm.Equal(got, vm.IntOf(1)) {
		t.Errorf("Get of a present key = %v, want 1", got)
	}
	if got := Get(d, "absent"); !got.IsNil() {
		t.Errorf("Get of an absent key = %v, want nil", got)
	}
}

func TestOptionsArg(t *testing.T) {
	given := vm.NewDict().Set("k", vm.IntOf(1))
	for _, a := range []vm.Args{{}, {vm.Str("x")}, {vm.Str("x"), vm.Nil}} {
		if d, err := OptionsArg("f", a, 1); err != nil || d.Len() != 0 {
			t.Errorf("OptionsArg(%v) = %v, %v; want an empty dict", a, d, err)
		}
	}
	if d, err := OptionsArg("f", vm.Args{vm.Str("x"), vm.Of(given)}, 1); err != nil || d != given {
		t.Errorf("OptionsArg of a dict = %v, %v; want the dict", d, err)
	}
	_, err := OptionsArg("f", vm.Args{vm.Str("x"), vm.IntOf(3)}, 1)
	// docs/spec/builtins.md: one wording for every builtin's bad options
	if err == nil || err.Error() != "Type error: f: options must be a dict, got int" {
		t.Errorf("OptionsArg of an int: error %v", err)
	}
}

// LossyUTF8 replaces each ill-formed sequence as Rust's from_utf8_lossy
// does: a character cut short is one U+FFFD, a byte that cannot start or
// continue one is one U+FFFD each (the example of Rust's documentation is
// the first case).
func TestLossyUTF8(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Hello \xF0\x90\x80World", "Hello \uFFFDWorld"},
		{"a\xE2\x82", "a\uFFFD"},
		{"\xE2\x82b", "\uFFFDb"},
		{"\xFF\xFE", "\uFFFD\uFFFD"},
		{"\xC0\x80", "\uFFFD\uFFFD"},
		{"\xED\xA0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xF4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"ok é", "ok é"},
	} {
		if got := LossyUTF8([]byte(c.in)); got != c.want {
			t.Errorf("LossyUTF8(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

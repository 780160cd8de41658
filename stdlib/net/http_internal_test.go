package net

import (
	"testing"
	"time"

	"github.com/harnlang/harn/vm"
)

func TestWithQueryJoinsQueryBeforeFragment(t *testing.T) {
	cases := []struct{ url, qs, want string }{
		{"https://a.test/p", "y=2", "https://a.test/p?y=2"},
		{"https://a.test/p?x=1", "y=2", "https://a.test/p?x=1&y=2"},
		{"https://a.test/p?x=1#frag", "y=2", "https://a.test/p?x=1&y=2#frag"},
		{"https://a.test/p#frag", "y=2", "https://a.test/p?y=2#frag"},
		{"https://a.test/p?#frag", "y=2", "https://a.test/p?y=2#frag"},
		{"https://a.test/a%2Fb?x=1", "y=2", "https://a.test/a%2Fb?x=1&y=2"},
		{"https://a.test/p#frag", "", "https://a.test/p#frag"},
		{"https://a.test/%zz", "y=2", "https://a.test/%zz"}, // unparsable: checkURL reports it
	}
	for _, c := range cases {
		if got := withQuery(c.url, c.qs); got != c.want {
			t.Errorf("withQuery(%q, %q) = %q, want %q", c.url, c.qs, got, c.want)
		}
	}
}

func TestNewClientTimeoutTakesDurations(t *testing.T) {
	cases := []struct {
		v    vm.Value
		want time.Duration
	}{
		{vm.DurationOf(5000), 5 * time.Second},
		{vm.IntOf(250), 250 * time.Millisecond},
		{vm.FloatOf(1.5), 1500 * time.Microsecond},
		{vm.Str("5s"), 30 * time.Second}, // not a time: the default
	}
	for _, c := range cases {
		cl, err := newClient(nil, vm.NewDict().Set("timeout_ms", c.v), false)
		if err != nil {
			t.Fatal(err)
		}
		if got := cl.Timeout; got != c.want {
			t.Errorf("timeout_ms %s: got %v, want %v", vm.ToDisplay(c.v), got, c.want)
		}
	}
}

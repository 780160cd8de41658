package net

import "testing"

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

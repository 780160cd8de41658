package formats

import "testing"

// A '%' that starts no escape is written %25 in the userinfo, the path,
// the query and the fragment, never in the host (WHATWG keeps it there
// only to reject it).
func TestEscapeStrayPercents(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://us%er:p%zz@h/x", "http://us%25er:p%25zz@h/x"},
		{"http://a%40b%@h/", "http://a%40b%25@h/"},
		{"http://u@h%zz/", "http://u@h%zz/"},
		{"http://h/a%zz?q=%#%", "http://h/a%25zz?q=%25#%25"},
		{"http://h/p@x%", "http://h/p@x%25"}, // an '@' in the path is no userinfo
		{"mailto:a%b@c", "mailto:a%25b@c"},
		{"no scheme %", "no scheme %25"},
	}
	for _, c := range cases {
		if got, _ := escapeStrayPercents(c.in); got != c.want {
			t.Errorf("escapeStrayPercents(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

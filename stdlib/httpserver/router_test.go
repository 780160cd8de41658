package httpserver

import (
	"reflect"
	"testing"
)

func TestRouteMatching(t *testing.T) {
	cases := []struct {
		pattern, path string
		ok            bool
		params        map[string]string
	}{
		{"/", "/", true, map[string]string{}},
		{"/a/b", "/a/b/", true, map[string]string{}},
		{"/a/b", "/a", false, nil},
		{"/users/:id", "/users/42", true, map[string]string{"id": "42"}},
		{"/users/{id}/posts/:p", "/users/1/posts/2", true, map[string]string{"id": "1", "p": "2"}},
		{"/users/:id", "/users", false, nil},
		{"/users/:id", "/users/1/x", false, nil},
		{"/s/*", "/s", true, map[string]string{"*": ""}},
		{"/s/*", "/s/a/b", true, map[string]string{"*": "a/b"}},
		{"/s/*rest", "/s/a", true, map[string]string{"rest": "a"}},
	}
	for _, c := range cases {
		segs, bad := compilePattern(c.pattern)
		if bad != "" {
			t.Fatalf("%s: %s", c.pattern, bad)
		}
		r := &route{segs: segs}
		params, ok := r.match(splitPath(c.path))
		if ok != c.ok || ok && !reflect.DeepEqual(params, c.params) {
			t.Errorf("%s on %s: %v %v, want %v %v", c.pattern, c.path, params, ok, c.params, c.ok)
		}
	}
}

// A request path is split as sent and each segment decoded once, so an
// encoded "/" does not separate segments (docs/http-server.md, "Routes").
func TestRequestSegmentsDecodeAfterSplitting(t *testing.T) {
	cases := []struct {
		escaped string
		want    []string
	}{
		{"/u/al%2Fice", []string{"u", "al/ice"}},
		{"/u/a%20b", []string{"u", "a b"}},
		{"/u/a%2520b", []string{"u", "a%20b"}},
		{"/u/%2F", []string{"u", "/"}},
		{"//u/x/", []string{"u", "x"}},
		{"/u/100%", []string{"u", "100%"}},
	}
	for _, c := range cases {
		if got := requestSegments(c.escaped); !reflect.DeepEqual(got, c.want) {
			t.Errorf("requestSegments(%q) = %q, want %q", c.escaped, got, c.want)
		}
	}
	segs, _ := compilePattern("/u/:name")
	params, ok := (&route{segs: segs}).match(requestSegments("/u/al%2Fice"))
	if !ok || params["name"] != "al/ice" {
		t.Errorf("/u/:name on /u/al%%2Fice: %v %v", params, ok)
	}
}

func TestRouteSpecificity(t *testing.T) {
	mk := func(method, p string, seq int) *route {
		segs, bad := compilePattern(p)
		if bad != "" {
			t.Fatal(bad)
		}
		return &route{method: method, pattern: p, segs: segs, seq: seq}
	}
	cases := []struct{ a, b *route }{ // a wins over b
		{mk("GET", "/u/me", 2), mk("GET", "/u/:id", 1)},
		{mk("GET", "/u/:id", 2), mk("GET", "/u/*", 1)},
		{mk("GET", "/u", 2), mk("GET", "/u/*", 1)},
		{mk("GET", "/u/:id", 2), mk("*", "/u/:id", 1)},
		{mk("GET", "/u/:id", 1), mk("GET", "/u/{name}", 2)},
	}
	for _, c := range cases {
		if !moreSpecific(c.a, c.b) || moreSpecific(c.b, c.a) {
			t.Errorf("%s %s should win over %s %s", c.a.method, c.a.pattern, c.b.method, c.b.pattern)
		}
	}
}

func TestPatternErrors(t *testing.T) {
	for p, want := range map[string]string{
		"x":          `pattern must start with /, got "x"`,
		"/a/*/b":     `a * wildcard must be the last segment of "/a/*/b"`,
		"/:1x":       `invalid parameter name "1x" in "/:1x"`,
		"/{}":        `invalid parameter name "" in "/{}"`,
		"/a{b}":      `invalid segment "a{b}" in "/a{b}"`,
		"/:a/*a":     `parameter "a" appears twice in "/:a/*a"`,
		"/*bad-name": `invalid wildcard name "bad-name" in "/*bad-name"`,
	} {
		if _, got := compilePattern(p); got != want {
			t.Errorf("%s: got %q, want %q", p, got, want)
		}
	}
}

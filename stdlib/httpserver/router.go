package httpserver

import (
	"net/url"
	"strings"

	"github.com/harnlang/harn/vm"
)

// Route patterns (docs/http-server.md, "Routes"). A pattern is a path of
// segments split at "/": a literal segment matches itself, `:name` or
// `{name}` matches any one non-empty segment and binds it to name, and a
// last segment `*` (or `*name`) matches the rest of the path, possibly
// empty, binding it to "*" (or name). When several routes match, the most
// specific wins: segment by segment from the left, a literal beats a
// parameter and a parameter beats a wildcard; among equally specific
// routes the one registered first wins.

type segKind int

const (
	segLiteral segKind = iota
	segParam
	segWild
)

type segment struct {
	kind segKind
	text string // the literal, or the parameter's name
}

type route struct {
	method  string // upper case; "*" matches every method
	pattern string
	segs    []segment
	handler vm.Value
	seq     int
}

// splitPath splits a request path or a pattern into its segments; empty
// segments (a leading, trailing or doubled "/") are dropped.
func splitPath(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// requestSegments splits a path as sent (still percent-encoded) into its
// segments and then decodes each, so that an encoded "/" (%2F) is part
// of a segment, not a separator, and nothing is decoded twice
// (docs/http-server.md, "Routes"). A segment that is not valid
// percent-encoding is kept as sent.
func requestSegments(escaped string) []string {
	parts := splitPath(escaped)
	for i, s := range parts {
		if d, err := url.PathUnescape(s); err == nil {
			parts[i] = d
		}
	}
	return parts
}

// compilePattern parses a route pattern; the error text completes
// "http_server_route: ".
func compilePattern(p string) ([]segment, string) {
	if !strings.HasPrefix(p, "/") {
		return nil, "pattern must start with /, got " + quote(p)
	}
	parts := splitPath(p)
	segs := make([]segment, 0, len(parts))
	seen := map[string]bool{}
	for i, s := range parts {
		var seg segment
		switch {
		case s == "*" || strings.HasPrefix(s, "*"):
			if i != len(parts)-1 {
				return nil, "a * wildcard must be the last segment of " + quote(p)
			}
			name := s[1:]
			if name == "" {
				name = "*"
			} else if !validName(name) {
				return nil, "invalid wildcard name " + quote(name) + " in " + quote(p)
			}
			seg = segment{kind: segWild, text: name}
		case strings.HasPrefix(s, ":"):
			seg = segment{kind: segParam, text: s[1:]}
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
			seg = segment{kind: segParam, text: s[1 : len(s)-1]}
		default:
			if strings.ContainsAny(s, "{}") {
				return nil, "invalid segment " + quote(s) + " in " + quote(p)
			}
			seg = segment{kind: segLiteral, text: s}
		}
		if seg.kind == segParam && !validName(seg.text) {
			return nil, "invalid parameter name " + quote(seg.text) + " in " + quote(p)
		}
		if seg.kind != segLiteral {
			if seen[seg.text] {
				return nil, "parameter " + quote(seg.text) + " appears twice in " + quote(p)
			}
			seen[seg.text] = true
		}
		segs = append(segs, seg)
	}
	return segs, ""
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func quote(s string) string { return "\"" + s + "\"" }

// match reports whether the route's pattern matches the path segments,
// and the parameters it binds.
func (r *route) match(parts []string) (map[string]string, bool) {
	var params map[string]string
	bind := func(k, v string) {
		if params == nil {
			params = map[string]string{}
		}
		params[k] = v
	}
	for i, seg := range r.segs {
		if seg.kind == segWild {
			bind(seg.text, strings.Join(parts[i:], "/"))
			return params, true
		}
		if i >= len(parts) {
			return nil, false
		}
		switch seg.kind {
		case segLiteral:
			if parts[i] != seg.text {
				return nil, false
			}
		case segParam:
			bind(seg.text, parts[i])
		}
	}
	if len(parts) != len(r.segs) {
		return nil, false
	}
	if params == nil {
		params = map[string]string{}
	}
	return params, true
}

// moreSpecific reports whether a should win over b when both match.
func moreSpecific(a, b *route) bool {
	for i := 0; i < len(a.segs) && i < len(b.segs); i++ {
		if a.segs[i].kind != b.segs[i].kind {
			return a.segs[i].kind < b.segs[i].kind
		}
	}
	if len(a.segs) != len(b.segs) {
		// both matched the same path, so the longer one's extra segment is a
		// wildcard that matched nothing: the shorter one is exact
		return len(a.segs) < len(b.segs)
	}
	if (a.method == "*") != (b.method == "*") {
		return b.method == "*"
	}
	return a.seq < b.seq
}

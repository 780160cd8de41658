package project

import (
	"path"
	"regexp"
	"strings"
)

// A glob is one include/exclude or .gitignore pattern, compiled.
//
// Syntax: `*` any run of characters but '/', `?` one character but '/',
// `[...]` a class (`[!...]` negated), `**` any run including '/'
// (`**/` also matches nothing, so `**/x` matches `x`). A pattern without
// a '/' is matched against the base name, at any depth; one with a '/'
// against the whole path relative to the root (a leading '/' anchors it
// and is dropped).
type glob struct {
	re       *regexp.Regexp
	basename bool
}

func compileGlob(p string) (glob, error) {
	basename := !strings.Contains(strings.TrimSuffix(p, "/"), "/")
	p = strings.TrimPrefix(p, "/")
	re, err := regexp.Compile("^" + globRegexp(p) + "$")
	if err != nil {
		return glob{}, err
	}
	return glob{re: re, basename: basename}, nil
}

func (g glob) match(rel string) bool {
	if g.basename {
		return g.re.MatchString(path.Base(rel))
	}
	return g.re.MatchString(rel)
}

// globRegexp translates a glob into regular expression syntax.
func globRegexp(p string) string {
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				i++
				if i+1 < len(p) && p[i+1] == '/' {
					i++
					sb.WriteString("(?:.*/)?")
				} else {
					sb.WriteString(".*")
				}
			} else {
				sb.WriteString("[^/]*")
			}
		case '?':
			sb.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				sb.WriteString(`\[`)
				continue
			}
			class := p[i+1 : i+1+j]
			i += j + 1
			sb.WriteByte('[')
			if strings.HasPrefix(class, "!") {
				sb.WriteByte('^')
				class = class[1:]
			}
			sb.WriteString(strings.ReplaceAll(class, `\`, `\\`))
			sb.WriteByte(']')
		case '\\':
			if i+1 < len(p) {
				i++
				sb.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return sb.String()
}

// keyMatch matches a metadata key against a key pattern: `*` is any run
// of characters ('/' included), `?` one character; nothing else is
// special.
func keyMatch(pattern, key string) bool { return keyMatcher(pattern)(key) }

// keyMatcher compiles a key pattern once, for matching many keys.
func keyMatcher(pattern string) func(string) bool {
	if !strings.ContainsAny(pattern, "*?") {
		return func(key string) bool { return key == pattern }
	}
	var sb strings.Builder
	sb.WriteString("^(?s:")
	for _, r := range pattern {
		switch r {
		case '*':
			sb.WriteString(".*")
		case '?':
			sb.WriteString(".")
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteString(")$")
	return regexp.MustCompile(sb.String()).MatchString
}

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	g       glob
	base    string // directory of the .gitignore, relative to the root ("" at the root)
	negate  bool
	dirOnly bool
}

// parseGitignore reads the rules of a .gitignore in directory base.
func parseGitignore(text, base string) []ignoreRule {
	var rules []ignoreRule
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// Trailing spaces are ignored unless escaped.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		r := ignoreRule{base: base}
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimSuffix(line, "/")
		}
		if line == "" {
			continue
		}
		g, err := compileGlob(line)
		if err != nil {
			continue // a pattern git could not use either
		}
		r.g = g
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether rel (a path relative to the root) is ignored by
// rules, the last matching rule deciding.
func ignored(rules []ignoreRule, rel string, isDir bool) bool {
	out := false
	for _, r := range rules {
		if r.dirOnly && !isDir {
			continue
		}
		sub := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			sub = rel[len(r.base)+1:]
		}
		if r.g.match(sub) {
			out = !r.negate
		}
	}
	return out
}

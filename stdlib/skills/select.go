package skills

import (
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// selectSkills is skill_select's choice (docs/skills.md, "Selecting
// skills"): by a list of names (registry order), by a query string
// (ranked by relevance), or by an options dict whose filters all apply.
func selectSkills(who string, skills []*vm.Dict, sel vm.Value) ([]*vm.Dict, error) {
	if l, ok := sel.AsList(); ok {
		want := map[string]bool{}
		for _, it := range l.Items() {
			n, ok := str(it)
			if !ok {
				return nil, vm.Typef("%s: names must be strings, got %s", who, it.Type())
			}
			want[n] = true
		}
		var out []*vm.Dict
		for _, s := range skills {
			if want[skillName(s)] {
				out = append(out, s)
			}
		}
		return out, nil
	}
	if q, ok := str(sel); ok {
		return byQuery(skills, q), nil
	}
	opts, ok := sel.AsDict()
	if !ok {
		return nil, vm.Typef("%s: expected a list of names, a query string or an options dict, got %s", who, sel.Type())
	}
	out := skills
	if err := lib.CheckOptions(who, opts, []string{"query", "tags", "path", "always_on", "limit"}); err != nil {
		return nil, err
	}
	if v, ok := opts.Get("tags"); ok {
		l, isList := v.AsList()
		if !isList {
			return nil, vm.Typef("%s: tags must be a list of strings, got %s", who, v.Type())
		}
		want := map[string]bool{}
		for _, it := range l.Items() {
			t, ok := str(it)
			if !ok {
				return nil, vm.Typef("%s: tags must be a list of strings, got an item of type %s", who, it.Type())
			}
			want[strings.ToLower(t)] = true
		}
		out = filter(out, func(s *vm.Dict) bool {
			for _, t := range strings_(s, fTags) {
				if want[strings.ToLower(t)] {
					return true
				}
			}
			return false
		})
	}
	if v, ok := opts.Get("path"); ok {
		p, isStr := str(v)
		if !isStr {
			return nil, vm.Typef("%s: path must be a string, got %s", who, v.Type())
		}
		out = filter(out, func(s *vm.Dict) bool {
			for _, g := range strings_(s, fPaths) {
				if globMatch(g, p) {
					return true
				}
			}
			return false
		})
	}
	if v, ok := opts.Get("always_on"); ok {
		b, isBool := v.AsBool()
		if !isBool {
			return nil, vm.Typef("%s: always_on must be a bool, got %s", who, v.Type())
		}
		out = filter(out, func(s *vm.Dict) bool { return alwaysOn(s) == bool(b) })
	}
	if v, ok := opts.Get("query"); ok {
		q, isStr := str(v)
		if !isStr {
			return nil, vm.Typef("%s: query must be a string, got %s", who, v.Type())
		}
		out = byQuery(out, q)
	}
	if v, ok := opts.Get("limit"); ok {
		n, isInt := v.AsInt()
		if !isInt || n < 0 {
			return nil, vm.Throwf("%s: limit must be a non-negative int, got %s", who, quoted(v))
		}
		if int64(n) < int64(len(out)) {
			out = out[:n]
		}
	}
	return out, nil
}

func filter(skills []*vm.Dict, keep func(*vm.Dict) bool) []*vm.Dict {
	var out []*vm.Dict
	for _, s := range skills {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// stopWords are query words too common to pick a skill by.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"do": true, "for": true, "from": true, "how": true, "i": true, "in": true, "is": true, "it": true,
	"me": true, "my": true, "of": true, "on": true, "or": true, "please": true, "the": true, "this": true,
	"that": true, "to": true, "we": true, "what": true, "with": true, "you": true,
}

// words splits text into lower-case runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// matches reports whether query word q matches word w: equal, or (for
// words of three letters or more) a prefix of it, so "deploy" finds
// "deployment".
func matches(q, w string) bool {
	return q == w || len(q) >= 3 && strings.HasPrefix(w, q)
}

func anyMatch(q string, ws []string) bool {
	for _, w := range ws {
		if matches(q, w) {
			return true
		}
	}
	return false
}

// byQuery keeps the skills the query's words match, most relevant first
// (ties in registry order). A word found in the name or a tag scores 2,
// one found in the description or when_to_use 1; stop words are ignored,
// and a query of stop words only selects nothing.
func byQuery(skills []*vm.Dict, query string) []*vm.Dict {
	var qs []string
	seen := map[string]bool{}
	for _, w := range words(query) {
		if !stopWords[w] && !seen[w] {
			seen[w] = true
			qs = append(qs, w)
		}
	}
	type scored struct {
		s     *vm.Dict
		score int
	}
	var hits []scored
	for _, s := range skills {
		strong := words(skillName(s) + " " + strings.Join(strings_(s, fTags), " "))
		weak := words(field(s, fDescription) + " " + field(s, fWhenToUse))
		score := 0
		for _, q := range qs {
			switch {
			case anyMatch(q, strong):
				score += 2
			case anyMatch(q, weak):
				score++
			}
		}
		if score > 0 {
			hits = append(hits, scored{s, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]*vm.Dict, len(hits))
	for i, h := range hits {
		out[i] = h.s
	}
	return out
}

// globMatch matches a slash-separated path against a glob: `*`, `?` and
// `[…]` within one segment (path.Match), `**` for any number of segments.
func globMatch(glob, p string) bool {
	return matchSegs(strings.Split(strings.Trim(glob, "/"), "/"), strings.Split(strings.Trim(path.Clean(p), "/"), "/"))
}

func matchSegs(gs, ps []string) bool {
	for len(gs) > 0 {
		if gs[0] == "**" {
			for i := 0; i <= len(ps); i++ {
				if matchSegs(gs[1:], ps[i:]) {
					return true
				}
			}
			return false
		}
		if len(ps) == 0 {
			return false
		}
		if ok, err := path.Match(gs[0], ps[0]); err != nil || !ok {
			return false
		}
		gs, ps = gs[1:], ps[1:]
	}
	return len(ps) == 0
}

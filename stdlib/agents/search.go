package agents

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// agent_loop's tool_search option (docs/agents.md, Tool search): the
// tools defined with defer_loading: true are held back, and a tool named
// tool_search is offered instead; the deferred tools its search finds
// are offered from the next model call on.

const (
	searchToolName    = "tool_search"
	defaultMaxResults = 5
)

// searchConfig is the tool_search option as read.
type searchConfig struct {
	strategy   string // "bm25" or "regex"
	maxResults int
}

// readSearch reads tool_search: true, "bm25", "regex" or
// {strategy?, max_results?}; ok is false when it is off (nil or false).
func readSearch(fn string, v vm.Value) (searchConfig, bool, error) {
	cfg := searchConfig{strategy: "bm25", maxResults: defaultMaxResults}
	bad := func() (searchConfig, bool, error) {
		return cfg, false, vm.Throwf("%s: tool_search must be a bool, \"bm25\", \"regex\" or a dict {strategy?, max_results?}, got %s", fn, lib.Shown(v))
	}
	if v.IsNil() {
		return cfg, false, nil
	}
	if b, ok := v.AsBool(); ok {
		return cfg, bool(b), nil
	}
	if s, ok := v.AsString(); ok {
		v = vm.Of(lib.DictOf("strategy", vm.Str(s.Go())))
	}
	d, ok := v.AsDict()
	if !ok {
		return bad()
	}
	if err := lib.CheckOptions(fn+": tool_search", d, []string{"strategy", "max_results"}); err != nil {
		return cfg, false, err
	}
	if s := get(d, "strategy"); !s.IsNil() {
		switch vm.ToDisplay(s) {
		case "bm25", "regex":
			cfg.strategy = vm.ToDisplay(s)
		default:
			return cfg, false, vm.Throwf("%s: tool_search strategy must be \"bm25\" or \"regex\", got %s", fn, lib.Shown(s))
		}
	}
	if m := get(d, "max_results"); !m.IsNil() {
		n, ok := m.AsInt()
		if !ok || n < 1 {
			return cfg, false, vm.Throwf("%s: tool_search max_results must be a positive int, got %s", fn, lib.Shown(m))
		}
		cfg.maxResults = int(n)
	}
	return cfg, true, nil
}

// enableSearch hides the deferred tools and adds the tool_search tool.
func (ts *toolset) enableSearch(th *vm.Thread, fn string, cfg searchConfig) error {
	if _, taken := ts.byName[searchToolName]; taken {
		return vm.Throwf("%s: tool_search offers a tool named %q, and tools already has one", fn, searchToolName)
	}
	var deferred []string
	for _, n := range ts.names {
		if ts.byName[n].Tool.Entry.DeferLoading {
			deferred = append(deferred, n)
			ts.hidden[n] = true
		}
	}
	h := vm.NewBuiltin(searchToolName, searchToolName+"(args)", "searches the deferred tools", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		d, _ := args.At(0).AsDict()
		found, err := ts.search(deferred, cfg, vm.ToDisplay(get(d, "query")))
		if err != nil {
			return vm.Value{}, err
		}
		out := make([]vm.Value, len(found))
		for i, n := range found {
			delete(ts.hidden, n)
			out[i] = vm.Of(lib.DictOf("name", vm.Str(n), "description", vm.Str(ts.byName[n].Tool.Entry.Description)))
		}
		return vm.Of(vm.NewList(out)), nil
	})
	how := "words"
	if cfg.strategy == "regex" {
		how = "a regular expression"
	}
	params := lib.DictOf("query", vm.Of(lib.DictOf("type", vm.Str("string"), "required", vm.True,
		"description", vm.Str("what to look for: "+how+" matched against the tools' names and descriptions"))))
	def := lib.DictOf("name", vm.Str(searchToolName), "parameters", vm.Of(params), "handler", vm.Of(h),
		"description", vm.Str("Find more tools: searches the tools not offered yet; those found can be called from the next turn on."))
	def, pt, err := prepareDef(def, tool.CacheFor(th.VM()))
	if err != nil {
		return vm.Throwf("%s: tool_search: %s", fn, err.Error())
	}
	ts.byName[searchToolName] = pt
	ts.names = append(ts.names, searchToolName)
	ts.defs[searchToolName] = vm.Of(def)
	ts.searching = true
	return nil
}

// search is the names of the deferred tools matching query, best first,
// at most cfg.maxResults.
func (ts *toolset) search(deferred []string, cfg searchConfig, query string) ([]string, error) {
	text := func(n string) string { return n + "\n" + ts.byName[n].Tool.Entry.Description }
	var found []string
	if cfg.strategy == "regex" {
		re, err := regexp.Compile("(?i)" + query)
		if err != nil {
			// the error quotes what the model wrote rather than the
			// case-insensitive form
			if _, qerr := regexp.Compile(query); qerr != nil {
				err = qerr
			}
			return nil, vm.Throwf("tool_search: query is not a regular expression: %s", err.Error())
		}
		for _, n := range deferred {
			if re.MatchString(text(n)) {
				found = append(found, n)
			}
		}
	} else {
		docs := make([][]string, len(deferred))
		for i, n := range deferred {
			docs[i] = words(text(n))
		}
		scores := bm25(docs, words(query))
		idx := make([]int, 0, len(deferred))
		for i := range deferred {
			if scores[i] > 0 {
				idx = append(idx, i)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
		for _, i := range idx {
			found = append(found, deferred[i])
		}
	}
	if len(found) > cfg.maxResults {
		found = found[:cfg.maxResults]
	}
	return found, nil
}

// words are the lower-case runs of letters and digits of s (so
// snake_case and kebab-case names split into their words).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// bm25 is the Okapi BM25 score (k1 1.2, b 0.75) of each document for
// the query's words.
func bm25(docs [][]string, query []string) []float64 {
	const k1, b = 1.2, 0.75
	n := float64(len(docs))
	total := 0
	df := map[string]int{}
	for _, d := range docs {
		total += len(d)
		seen := map[string]bool{}
		for _, w := range d {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	avg := math.Max(float64(total)/math.Max(n, 1), 1)
	scores := make([]float64, len(docs))
	for i, d := range docs {
		tf := map[string]int{}
		for _, w := range d {
			tf[w]++
		}
		for _, q := range query {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			idf := math.Log((n-float64(df[q])+0.5)/(float64(df[q])+0.5) + 1)
			scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d))/avg))
		}
	}
	return scores
}

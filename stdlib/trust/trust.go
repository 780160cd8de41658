package trust

// The trust graph (docs/spec/builtins.md §5, "Trust graph"; the record shape
// and the query of docs/spec/orchestrator.md §5 harn.trust.query and
// orchestrator.TrustRecord; the chain, the policy and the rest are this
// implementation's choices, docs/trust.md).
//
// A run keeps one log of trust records (per VM: tasks share it). Each
// record carries its position (chain_index), the entry_hash of the record
// before it (previous_hash, nil for the first) and its own entry_hash: the
// SHA-256, in lowercase hex, of the record's json_stringify form without
// the entry_hash field (compact, keys sorted). So a record whose content
// changed, a record removed from the middle and two records swapped all
// break the chain, and trust_graph_verify_chain says where.

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// Tiers are the autonomy tiers, least autonomous first; Outcomes the
// final outcomes of an action (docs/spec/orchestrator.md §3, §5).
var (
	Tiers    = []string{"shadow", "suggest", "act_with_approval", "act_auto"}
	Outcomes = []string{"success", "failure", "denied", "timeout"}
)

type logKey struct{}

// graph is a run's trust log.
type graph struct {
	mu      sync.Mutex
	records []*vm.Dict
}

func graphOf(th *vm.Thread) *graph {
	return th.VM().Local(logKey{}, func() any { return &graph{} }).(*graph)
}

// snapshot is the records so far, oldest first.
func (g *graph) snapshot() []*vm.Dict {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clip(g.records)
}

func init() {
	lib.Def("trust_graph_record", "trust_graph_record(record: dict)",
		"append a trust record {agent, action, tier, outcome, …} to the run's trust graph; returns it with at, chain_index, previous_hash and entry_hash",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("trust_graph_record: missing argument 1")
			}
			d, ok := a.Dict(0)
			if !ok {
				return vm.Value{}, vm.Runtimef("trust_graph_record: expected dict at argument 1, got %s", a.At(0).Type())
			}
			return record(th, "trust_graph_record", d)
		})
	lib.Def("trust_record", "trust_record(agent: string, action: string, tier: string, outcome: string, fields?: dict)",
		"trust_graph_record({agent, action, tier, outcome, ...fields})",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "trust_record"
			d := vm.NewDict()
			if f, ok := a.Dict(4); ok {
				d = f
			} else if a.Given(4) {
				return vm.Value{}, vm.Runtimef("%s: expected dict at argument 5, got %s", name, a.At(4).Type())
			}
			for i, k := range []string{"agent", "action", "tier", "outcome"} {
				if !a.Has(i) {
					return vm.Value{}, vm.Runtimef("%s: missing argument %d", name, i+1)
				}
				d = d.Set(k, a.At(i))
			}
			return record(th, name, d)
		})
	lib.Def("trust_graph_query", "trust_graph_query(filters?: dict)",
		"the run's trust records matching filters {agent, action, tier, outcome, since, until, limit, grouped_by_trace}, oldest first",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			res, err := query(th, "trust_graph_query", a)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(res), nil
		})
	lib.Def("trust_query", "trust_query(filters?: dict)",
		"{results}: trust_graph_query's records in the shape of the harn.trust.query tool's result",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			res, err := query(th, "trust_query", a)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(lib.DictOf("results", res)), nil
		})
	lib.Def("trust_graph_policy_for", "trust_graph_policy_for(agent: string)",
		"the autonomy an agent's recent trust records earn: {agent, tier, can_act, requires_approval, records, window, outcomes, success_rate, reason}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			agent, err := stringArg("trust_graph_policy_for", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(policyFor(agent, graphOf(th).snapshot())), nil
		})
	lib.Def("trust_graph_verify_chain", "trust_graph_verify_chain(records?: list)",
		"check the hash chain of records (default: the run's whole trust graph): {valid, checked, broken_at, reason}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			var recs []vm.Value
			if a.Given(0) {
				l, ok := a.List(0)
				if !ok {
					return vm.Value{}, vm.Runtimef("trust_graph_verify_chain: expected list at argument 1, got %s", a.At(0).Type())
				}
				recs = l.Items()
			} else {
				for _, d := range graphOf(th).snapshot() {
					recs = append(recs, vm.Of(d))
				}
			}
			return vm.Of(verify(recs)), nil
		})
}

func stringArg(name string, a vm.Args, i int) (string, error) {
	if !a.Has(i) {
		return "", vm.Runtimef("%s: missing argument %d", name, i+1)
	}
	s, ok := a.At(i).AsString()
	if !ok {
		return "", vm.Runtimef("%s: expected string at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	return s.Go(), nil
}

// fieldKind is what a record field holds.
type fieldKind int

const (
	kString    fieldKind = iota // a string
	kNonEmpty                   // a non-empty string
	kNilString                  // a string or nil
	kCount                      // an int ≥ 0
	kTier                       // one of Tiers
	kOutcome                    // one of Outcomes
	kTimestamp                  // an RFC 3339 string
	kData                       // any JSON data
	kChain                      // set by the graph
)

// fields are a record's fields in orchestrator.TrustRecord's order, with
// the defaults of a field the caller leaves out (the zero Value: no
// default, the field is required or left out).
var fields = []struct {
	name string
	kind fieldKind
	def  vm.Value
}{
	{"agent", kNonEmpty, vm.Value{}},
	{"action", kNonEmpty, vm.Value{}},
	{"tier", kTier, vm.Value{}},
	{"outcome", kOutcome, vm.Value{}},
	{"event_id", kString, vm.Str("")},
	{"trace_id", kNilString, vm.Nil},
	{"binding_version", kCount, vm.IntOf(0)},
	{"attempts", kCount, vm.IntOf(1)},
	{"error_class", kString, vm.Value{}},
	{"error", kNilString, vm.Nil},
	{"cost_usd_micros", kCount, vm.IntOf(0)},
	{"tokens", kCount, vm.IntOf(0)},
	{"at", kTimestamp, vm.Value{}},
	{"metadata", kData, vm.Value{}},
	{"chain_index", kChain, vm.Value{}},
	{"previous_hash", kChain, vm.Value{}},
	{"entry_hash", kChain, vm.Value{}},
}

func fieldNames() string {
	var names []string
	for _, f := range fields {
		if f.kind != kChain {
			names = append(names, f.name)
		}
	}
	return strings.Join(names, ", ")
}

// record validates d, completes it with the defaults and the chain
// fields, and appends it to the run's graph.
func record(th *vm.Thread, name string, d *vm.Dict) (vm.Value, error) {
	var err error
	d.Range(func(k string, _ vm.Value) bool {
		known := false
		for _, f := range fields {
			if f.name == k {
				known = true
				if f.kind == kChain {
					err = vm.Runtimef("%s: `%s` is set by the trust graph, not by the caller", name, k)
				}
			}
		}
		if !known {
			err = vm.Runtimef("%s: unknown field `%s` (fields: %s)", name, k, fieldNames())
		}
		return err == nil
	})
	if err != nil {
		return vm.Value{}, err
	}
	out := vm.NewDictBuilder(len(fields))
	for _, f := range fields {
		if f.kind == kChain {
			continue
		}
		v, ok := d.Get(f.name)
		if !ok {
			switch {
			case f.name == "at":
				v = vm.Str(htime.VMNow(th).UTC().Format(time.RFC3339Nano))
			case f.def.IsValid():
				v = f.def
			case f.kind == kNonEmpty || f.kind == kTier || f.kind == kOutcome:
				return vm.Value{}, vm.Runtimef("%s: missing field `%s`", name, f.name)
			default:
				continue // optional and left out
			}
		} else if err := checkField(name, f.name, f.kind, v); err != nil {
			return vm.Value{}, err
		}
		out.Set(f.name, v)
	}
	base := out.Build()
	g := graphOf(th)
	g.mu.Lock()
	defer g.mu.Unlock()
	rec := base.Set("chain_index", lib.IntOf(len(g.records)))
	if n := len(g.records); n > 0 {
		prev, _ := g.records[n-1].Get("entry_hash")
		rec = rec.Set("previous_hash", prev)
	} else {
		rec = rec.Set("previous_hash", vm.Nil)
	}
	rec = rec.Set("entry_hash", vm.Str(entryHash(rec)))
	g.records = append(g.records, rec)
	return vm.Of(rec), nil
}

func checkField(name, field string, kind fieldKind, v vm.Value) error {
	bad := func(want string) error {
		return vm.Runtimef("%s: field `%s` must be %s, got %s", name, field, want, v.Type())
	}
	s, isStr := v.AsString()
	switch kind {
	case kString:
		if !isStr {
			return bad("a string")
		}
	case kNonEmpty:
		if !isStr {
			return bad("a string")
		}
		if s.Go() == "" {
			return vm.Runtimef("%s: field `%s` must not be empty", name, field)
		}
	case kNilString:
		if !isStr && v.Kind() != vm.KNil {
			return bad("a string or nil")
		}
	case kCount:
		n, ok := v.AsInt()
		if !ok {
			return bad("an int")
		}
		if n < 0 {
			return vm.Runtimef("%s: field `%s` must not be negative", name, field)
		}
	case kTier, kOutcome:
		allowed := Tiers
		if kind == kOutcome {
			allowed = Outcomes
		}
		if !isStr {
			return bad("a string")
		}
		if !slices.Contains(allowed, s.Go()) {
			return vm.Runtimef("%s: unknown %s `%s` (one of %s)", name, field, s.Go(), strings.Join(allowed, ", "))
		}
	case kTimestamp:
		if !isStr {
			return bad("an RFC 3339 string")
		}
		if _, err := time.Parse(time.RFC3339Nano, s.Go()); err != nil {
			return vm.Runtimef("%s: field `at` must be an RFC 3339 timestamp, got `%s`", name, s.Go())
		}
	case kData:
		return checkData(name, field, v)
	}
	return nil
}

// checkData accepts JSON data: what hashes and round-trips unchanged.
func checkData(name, at string, v vm.Value) error {
	bad, at, deep := lib.NonData(v, at, true)
	switch {
	case deep:
		return vm.Runtimef("%s: field `%s` is nested too deeply", name, at)
	case bad.IsValid():
		return vm.Typef("%s: field `%s` holds a %s: trust records hold JSON data", name, at, bad.Type())
	}
	return nil
}

// entryHash is the hex SHA-256 of rec's json_stringify form without its
// entry_hash.
func entryHash(rec *vm.Dict) string {
	sum := sha256.Sum256([]byte(json.Stringify(vm.Of(rec.Delete("entry_hash")))))
	return hex.EncodeToString(sum[:])
}

// ---- queries ----

// filter is what a query selects.
type filter struct {
	eq           [][2]string // field, wanted value
	since, until time.Time
	limit        int64 // -1: no limit
	grouped      bool
}

var filterNames = []string{"agent", "action", "tier", "outcome", "since", "until", "limit", "grouped_by_trace"}

func parseFilter(name string, a vm.Args) (filter, error) {
	f := filter{limit: -1}
	if !a.Given(0) {
		return f, nil
	}
	d, ok := a.Dict(0)
	if !ok {
		return f, vm.Runtimef("%s: expected dict at argument 1, got %s", name, a.At(0).Type())
	}
	var err error
	d.Range(func(k string, v vm.Value) bool {
		if v.Kind() == vm.KNil {
			return true // an unset filter
		}
		switch k {
		case "agent", "action", "tier", "outcome":
			s, ok := v.AsString()
			if !ok {
				err = vm.Runtimef("%s: filter `%s` must be a string, got %s", name, k, v.Type())
				return false
			}
			if k == "tier" && !slices.Contains(Tiers, s.Go()) || k == "outcome" && !slices.Contains(Outcomes, s.Go()) {
				allowed := Tiers
				if k == "outcome" {
					allowed = Outcomes
				}
				err = vm.Runtimef("%s: unknown %s `%s` (one of %s)", name, k, s.Go(), strings.Join(allowed, ", "))
				return false
			}
			f.eq = append(f.eq, [2]string{k, s.Go()})
		case "since", "until":
			var t time.Time
			if t, err = parseTimestamp(name, v); err != nil {
				return false
			}
			if k == "since" {
				f.since = t
			} else {
				f.until = t
			}
		case "limit":
			n, ok := v.AsInt()
			if !ok || n < 0 {
				err = vm.Runtimef("%s: filter `limit` must be an int ≥ 0, got %s", name, vm.ToDisplay(v))
				return false
			}
			f.limit = int64(n)
		case "grouped_by_trace":
			b, ok := v.AsBool()
			if !ok {
				err = vm.Runtimef("%s: filter `grouped_by_trace` must be a bool, got %s", name, v.Type())
				return false
			}
			f.grouped = bool(b)
		default:
			err = vm.Runtimef("%s: unknown filter `%s` (filters: %s)", name, k, strings.Join(filterNames, ", "))
			return false
		}
		return true
	})
	return f, err
}

var digits = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{1,13}$`) })

// parseTimestamp reads since/until as harn.trust.query does: RFC 3339, or
// unix seconds (up to 10 digits) or milliseconds, as an int or a string.
func parseTimestamp(name string, v vm.Value) (time.Time, error) {
	raw := vm.ToDisplay(v)
	if n, ok := v.AsInt(); ok {
		raw = strconv.FormatInt(int64(n), 10)
	} else if s, ok := v.AsString(); ok {
		raw = s.Go()
		if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
			return t, nil
		}
	} else {
		return time.Time{}, vm.Runtimef("%s: invalid timestamp '%s': expected RFC3339 or unix seconds/milliseconds", name, raw)
	}
	if digits().MatchString(raw) {
		n, _ := strconv.ParseInt(raw, 10, 64)
		if len(raw) <= 10 {
			return time.Unix(n, 0), nil
		}
		return time.UnixMilli(n), nil
	}
	return time.Time{}, vm.Runtimef("%s: invalid timestamp '%s': expected RFC3339 or unix seconds/milliseconds", name, raw)
}

func (f filter) match(rec *vm.Dict) bool {
	for _, want := range f.eq {
		v, _ := rec.Get(want[0])
		if s, ok := v.AsString(); !ok || s.Go() != want[1] {
			return false
		}
	}
	if !f.since.IsZero() || !f.until.IsZero() {
		at := recordTime(rec)
		if !f.since.IsZero() && at.Before(f.since) || !f.until.IsZero() && at.After(f.until) {
			return false
		}
	}
	return true
}

func recordTime(rec *vm.Dict) time.Time {
	v, _ := rec.Get("at")
	s, _ := v.AsString()
	t, _ := time.Parse(time.RFC3339Nano, s.Go())
	return t
}

// query is trust_graph_query: matching records oldest first (with limit,
// the newest limit of them), or trace groups.
func query(th *vm.Thread, name string, a vm.Args) (*vm.List, error) {
	f, err := parseFilter(name, a)
	if err != nil {
		return nil, err
	}
	recs := graphOf(th).snapshot()
	var out []*vm.Dict
	for i := len(recs) - 1; i >= 0 && (f.limit < 0 || int64(len(out)) < f.limit); i-- {
		if f.match(recs[i]) {
			out = append(out, recs[i])
		}
	}
	slices.Reverse(out)
	if !f.grouped {
		items := make([]vm.Value, len(out))
		for i, r := range out {
			items[i] = vm.Of(r)
		}
		return lib.List(items), nil
	}
	// Groups by trace_id, sorted by it; records without a trace come
	// first, under trace_id nil.
	type group struct {
		id   vm.Value
		recs []vm.Value
	}
	byID := map[string]*group{}
	var groups []*group
	for _, r := range out {
		id, _ := r.Get("trace_id")
		key := "\x00"
		if s, ok := id.AsString(); ok {
			key = "\x01" + s.Go()
		}
		g := byID[key]
		if g == nil {
			g = &group{id: id}
			byID[key] = g
			groups = append(groups, g)
		}
		g.recs = append(g.recs, vm.Of(r))
	}
	slices.SortStableFunc(groups, func(a, b *group) int {
		as, aok := a.id.AsString()
		bs, bok := b.id.AsString()
		switch {
		case !aok && !bok:
			return 0
		case !aok:
			return -1
		case !bok:
			return 1
		}
		return strings.Compare(as.Go(), bs.Go())
	})
	items := make([]vm.Value, len(groups))
	for i, g := range groups {
		items[i] = vm.Of(lib.DictOf("trace_id", g.id, "records", lib.List(g.recs)))
	}
	return lib.List(items), nil
}

// ---- policy ----

// Window is how many of an agent's most recent records its policy
// weighs.
const Window = 20

// policyFor derives the tier an agent has earned from its last Window
// records (docs/trust.md, "Policies").
func policyFor(agent string, recs []*vm.Dict) *vm.Dict {
	var mine []*vm.Dict
	for _, r := range recs {
		if v, _ := r.Get("agent"); vm.ToDisplay(v) == agent {
			mine = append(mine, r)
		}
	}
	total := len(mine)
	if len(mine) > Window {
		mine = mine[len(mine)-Window:]
	}
	counts := map[string]int{}
	for _, r := range mine {
		v, _ := r.Get("outcome")
		counts[vm.ToDisplay(v)]++
	}
	n := len(mine)
	rate := 0.0
	if n > 0 {
		rate = float64(counts["success"]) / float64(n)
	}
	tier, reason := "shadow", ""
	switch {
	case n == 0:
		reason = "no trust records"
	case outcomeOf(mine[n-1]) == "denied":
		reason = "the last action was denied"
	default:
		reason = strconv.Itoa(counts["success"]) + " of the last " + strconv.Itoa(n) + " actions succeeded"
		switch {
		case n >= 20 && rate >= 0.95:
			tier = "act_auto"
		case n >= 10 && rate >= 0.8:
			tier = "act_with_approval"
		case rate >= 0.5:
			tier = "suggest"
		}
	}
	outcomes := vm.NewDictBuilder(len(Outcomes))
	for _, o := range Outcomes {
		outcomes.Set(o, lib.IntOf(counts[o]))
	}
	return lib.DictOf(
		"agent", vm.Str(agent),
		"tier", vm.Str(tier),
		"can_act", vm.BoolOf(tier == "act_with_approval" || tier == "act_auto"),
		"requires_approval", vm.BoolOf(tier != "act_auto"),
		"records", lib.IntOf(total),
		"window", lib.IntOf(n),
		"outcomes", outcomes.Build(),
		"success_rate", vm.FloatOf(rate),
		"reason", vm.Str(reason),
	)
}

func outcomeOf(r *vm.Dict) string {
	v, _ := r.Get("outcome")
	return vm.ToDisplay(v)
}

// ---- chain ----

// verify checks recs as a chain, or a contiguous segment of one.
func verify(recs []vm.Value) *vm.Dict {
	result := func(valid bool, checked int, brokenAt vm.Value, reason string) *vm.Dict {
		r := vm.Nil
		if reason != "" {
			r = vm.Str(reason)
		}
		return lib.DictOf("valid", vm.BoolOf(valid), "checked", lib.IntOf(checked), "broken_at", brokenAt, "reason", r)
	}
	broken := func(i int, reason string) *vm.Dict {
		return result(false, i, lib.IntOf(i), "record "+strconv.Itoa(i)+": "+reason)
	}
	var prevHash string
	var prevIndex int64
	for i, v := range recs {
		d, ok := v.AsDict()
		if !ok {
			return broken(i, "not a dict but a "+v.Type())
		}
		hv, _ := d.Get("entry_hash")
		h, ok := hv.AsString()
		if !ok {
			return broken(i, "no entry_hash")
		}
		iv, _ := d.Get("chain_index")
		idx, ok := iv.AsInt()
		if !ok {
			return broken(i, "no chain_index")
		}
		pv, hasPrev := d.Get("previous_hash")
		if !hasPrev {
			return broken(i, "no previous_hash")
		}
		if entryHash(d) != h.Go() {
			return broken(i, "entry_hash does not match the record's content")
		}
		if i == 0 {
			if idx == 0 && pv.Kind() != vm.KNil {
				return broken(i, "the first record of a chain has a previous_hash")
			}
		} else {
			if int64(idx) != prevIndex+1 {
				return broken(i, "chain_index "+strconv.FormatInt(int64(idx), 10)+" does not follow "+strconv.FormatInt(prevIndex, 10))
			}
			if p, ok := pv.AsString(); !ok || p.Go() != prevHash {
				return broken(i, "previous_hash does not match the entry_hash of the record before it")
			}
		}
		prevHash, prevIndex = h.Go(), int64(idx)
	}
	return result(true, len(recs), vm.Nil, "")
}

package evals

import (
	"math"
	"sort"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// DefaultThreshold is the score a numeric check or metric must reach to
// pass when no threshold is given.
const DefaultThreshold = 0.5

// fieldAt reads a dotted path ("outputs.answer", "status") from d.
func fieldAt(d *vm.Dict, path string) vm.Value {
	cur := vm.Of(d)
	for _, p := range strings.Split(path, ".") {
		cd, ok := cur.AsDict()
		if !ok {
			return vm.Nil
		}
		cur = lib.Get(cd, p)
	}
	return cur
}

// evalRecord runs checks against one record.
func evalRecord(th *vm.Thread, name string, rec *vm.Dict, checks *vm.List) (*vm.Dict, error) {
	var results []vm.Value
	passed, total := 0, 0.0
	for i, c := range checks.Items() {
		cd, ok := c.AsDict()
		if !ok {
			return nil, vm.Runtimef("%s: check %d must be a dict {name, fn} or {name, expected}, got %s", name, i, c.Type())
		}
		cname, ok := str(cd, "name")
		if !ok {
			cname = "check_" + lib.Display(lib.IntOf(i))
		}
		th0, err := threshold(name, cd, DefaultThreshold)
		if err != nil {
			return nil, err
		}
		res := lib.DictOf("name", vm.Str(cname))
		var s float64
		var ok2 bool
		if fn, has := cd.Get("fn"); has && !fn.IsNil() {
			if _, err := callable(fn); err != nil {
				return nil, vm.Runtimef("%s: check `%s`: `fn` must be a function, got %s", name, cname, fn.Type())
			}
			v, msg, failed, err := callCaught(th, fn, vm.Of(rec))
			if err != nil {
				return nil, err
			}
			if failed {
				res = res.Set("error", vm.Str(msg))
			} else {
				var valid bool
				s, ok2, valid = score(v, th0)
				if !valid {
					res = res.Set("error", vm.Str("check returned "+v.Type()+", expected bool, number or {passed, score}"))
				}
			}
		} else if exp, has := cd.Get("expected"); has {
			field := "outputs"
			if f, ok := str(cd, "field"); ok {
				field = f
			}
			actual := fieldAt(rec, field)
			ok2 = vm.Equal(actual, exp)
			if ok2 {
				s = 1
			}
			res = res.Set("field", vm.Str(field)).Set("expected", exp).Set("actual", actual)
		} else {
			return nil, vm.Runtimef("%s: check `%s` needs `fn` or `expected`", name, cname)
		}
		res = res.Set("passed", vm.BoolOf(ok2)).Set("score", vm.FloatOf(s))
		if ok2 {
			passed++
		}
		total += s
		results = append(results, vm.Of(res))
	}
	n := len(results)
	mean := 0.0
	if n > 0 {
		mean = total / float64(n)
	}
	return lib.DictOf(
		"id", lib.Get(rec, "id"),
		"passed", vm.BoolOf(passed == n),
		"score", vm.FloatOf(mean),
		"pass_count", lib.IntOf(passed),
		"fail_count", lib.IntOf(n-passed),
		"checks", vm.Of(vm.NewList(results)),
	), nil
}

// metricDef is a metric of a suite: a name and a fn(output, expected, case).
type metricDef struct {
	name string
	fn   vm.Value
}

func isMetric(d *vm.Dict) bool {
	k, _ := str(d, "kind")
	return k == "eval_metric"
}

func init() {
	lib.Def("run_record_eval", "run_record_eval(record: dict, checks: list) -> dict",
		"run checks [{name, fn}|{name, expected, field?}] on a run record: {id, passed, score, pass_count, fail_count, checks: [{name, passed, score, error?}]}; fn(record) returns a bool, a score or {passed, score}; expected compares record[field] (default outputs)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "run_record_eval"
			rec, err := recordArg(th, name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			checks, err := listArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			d, err := evalRecord(th, name, rec, checks)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(d), nil
		})
	lib.Def("run_record_eval_suite", "run_record_eval_suite(records: list, checks: list) -> dict",
		"run_record_eval on each record: {results, total, passed, failed, pass_rate}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "run_record_eval_suite"
			recs, err := listArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			checks, err := listArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			var results []vm.Value
			passed := 0
			for i, r := range recs.Items() {
				rd, ok := r.AsDict()
				if !ok {
					return vm.Value{}, vm.Runtimef("%s: record %d must be a dict, got %s", name, i, r.Type())
				}
				rd, err := makeRecord(th, name, rd)
				if err != nil {
					return vm.Value{}, err
				}
				d, err := evalRecord(th, name, rd, checks)
				if err != nil {
					return vm.Value{}, err
				}
				if b, _ := lib.Get(d, "passed").AsBool(); b {
					passed++
				}
				results = append(results, vm.Of(d))
			}
			return vm.Of(lib.DictOf(
				"results", vm.Of(vm.NewList(results)),
				"total", lib.IntOf(len(results)),
				"passed", lib.IntOf(passed),
				"failed", lib.IntOf(len(results)-passed),
				"pass_rate", vm.FloatOf(rate(passed, len(results))),
			)), nil
		})
	lib.Def("eval_metric", "eval_metric(name: string, fn_or_value: fn | number | bool) -> dict",
		"with a function: a metric {kind: \"eval_metric\", name, fn} for eval suites (fn(output, expected, case) returns a bool, a score or {passed, score}); with a number or bool: a measured value {name, value}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "eval_metric"
			n, err := stringArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			if n == "" {
				return vm.Value{}, vm.Runtimef("%s: the name must not be empty", name)
			}
			if err := need(name, a, 1); err != nil {
				return vm.Value{}, err
			}
			if fn, ok := a.Callable(1); ok {
				return vm.Of(lib.DictOf("kind", vm.Str("eval_metric"), "name", vm.Str(n), "fn", fn)), nil
			}
			v := a.At(1)
			if _, ok := v.AsBool(); !ok && !lib.IsNumber(v) {
				return vm.Value{}, vm.Runtimef("%s: expected a function, number or bool at argument 2, got %s", name, v.Type())
			}
			return vm.Of(lib.DictOf("name", vm.Str(n), "value", v)), nil
		})
	lib.Def("eval_metrics", "eval_metrics(results: list) -> dict",
		"aggregate eval results [{passed?, metrics?: {name: value} | [{name, value}]}]: {count, passed, failed, pass_rate, metrics: {name: {mean, min, max, count}}}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			l, err := listArg("eval_metrics", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			d, err := aggregate("eval_metrics", l.Items())
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(d), nil
		})
	defManifest("eval_suite_manifest",
		"check and complete an eval suite {name, cases: [{name, input, expected}], target?, metrics?, threshold?}: {kind: \"eval_suite\", …} with metrics defaulting to exact_match",
		suiteManifest)
	defRun("eval_suite_run", "eval_suite_run(suite: dict, options?: dict) -> dict",
		"run each case's input through the suite's target (or options.target) and score it with the metrics: {suite, passed, results: [{name, input, expected, output, passed, metrics, error?}], summary}",
		runSuite)
	defManifest("eval_pack_manifest",
		"check and complete an eval pack {name, suites: [suite specs], target?, threshold?}: {kind: \"eval_pack\", name, suites (each an eval_suite_manifest)}",
		packManifest)
	defRun("eval_pack_run", "eval_pack_run(pack: dict, options?: dict) -> dict",
		"run every suite of the pack (eval_suite_run with the pack's target and threshold as defaults): {pack, passed, suites: [suite runs], summary}",
		runPack)
}

// runPack runs every suite of the pack spec d, with the pack's target and
// threshold as the defaults of opts.
func runPack(th *vm.Thread, name string, d, opts *vm.Dict) (*vm.Dict, error) {
	p, err := packManifest(name, d)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"target", "threshold"} {
		if _, ok := opts.Get(k); !ok {
			if v, ok := p.Get(k); ok && !v.IsNil() {
				opts = opts.Set(k, v)
			}
		}
	}
	suites, _ := lib.Get(p, "suites").AsList()
	var runs, all []vm.Value
	passed := true
	for _, s := range suites.Items() {
		sd, _ := s.AsDict()
		r, err := runSuite(th, name, sd, opts)
		if err != nil {
			return nil, err
		}
		if b, _ := lib.Get(r, "passed").AsBool(); !b {
			passed = false
		}
		rs, _ := lib.Get(r, "results").AsList()
		all = append(all, rs.Items()...)
		runs = append(runs, vm.Of(r))
	}
	sum, err := aggregate(name, all)
	if err != nil {
		return nil, err
	}
	return lib.DictOf(
		"pack", lib.Get(p, "name"),
		"passed", vm.BoolOf(passed),
		"suites", vm.Of(vm.NewList(runs)),
		"summary", vm.Of(sum),
	), nil
}

func rate(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}

type agg struct {
	sum, min, max float64
	n             int
}

func aggregate(name string, results []vm.Value) (*vm.Dict, error) {
	passed, withPass := 0, 0
	aggs := map[string]*agg{}
	add := func(k string, v vm.Value) error {
		f, ok := lib.ToFloat(v)
		if b, isB := v.AsBool(); isB {
			f, ok = 0, true
			if b {
				f = 1
			}
		}
		if !ok {
			if v.IsNil() {
				return nil
			}
			return vm.Runtimef("%s: metric `%s` must be a number or bool, got %s", name, k, v.Type())
		}
		g := aggs[k]
		if g == nil {
			g = &agg{min: math.Inf(1), max: math.Inf(-1)}
			aggs[k] = g
		}
		g.sum += f
		g.n++
		g.min = math.Min(g.min, f)
		g.max = math.Max(g.max, f)
		return nil
	}
	for i, r := range results {
		d, ok := r.AsDict()
		if !ok {
			return nil, vm.Runtimef("%s: result %d must be a dict, got %s", name, i, r.Type())
		}
		if p, ok := d.Get("passed"); ok {
			b, ok := p.AsBool()
			if !ok {
				return nil, vm.Runtimef("%s: result %d: `passed` must be a bool, got %s", name, i, p.Type())
			}
			withPass++
			if b {
				passed++
			}
		}
		m, ok := d.Get("metrics")
		if !ok || m.IsNil() {
			continue
		}
		if md, ok := m.AsDict(); ok {
			for _, k := range md.Keys() {
				if err := add(k, lib.Get(md, k)); err != nil {
					return nil, err
				}
			}
		} else if ml, ok := m.AsList(); ok {
			for _, e := range ml.Items() {
				ed, ok := e.AsDict()
				n, okn := str(ed, "name")
				if !ok || !okn {
					return nil, vm.Runtimef("%s: result %d: a metrics list holds {name, value} dicts", name, i)
				}
				if err := add(n, lib.Get(ed, "value")); err != nil {
					return nil, err
				}
			}
		} else {
			return nil, vm.Runtimef("%s: result %d: `metrics` must be a dict or list, got %s", name, i, m.Type())
		}
	}
	var names []string
	for k := range aggs {
		names = append(names, k)
	}
	sort.Strings(names)
	md := vm.NewDict()
	for _, k := range names {
		g := aggs[k]
		md = md.Set(k, vm.Of(lib.DictOf("mean", vm.FloatOf(g.sum/float64(g.n)), "min", vm.FloatOf(g.min), "max", vm.FloatOf(g.max), "count", lib.IntOf(g.n))))
	}
	return lib.DictOf(
		"count", lib.IntOf(len(results)),
		"passed", lib.IntOf(passed),
		"failed", lib.IntOf(withPass-passed),
		"pass_rate", vm.FloatOf(rate(passed, withPass)),
		"metrics", vm.Of(md),
	), nil
}

func exactMatch() *vm.Dict {
	return lib.DictOf("kind", vm.Str("eval_metric"), "name", vm.Str("exact_match"), "fn", vm.Nil)
}

func suiteManifest(name string, d *vm.Dict) (*vm.Dict, error) {
	sname, ok := str(d, "name")
	if !ok || sname == "" {
		return nil, vm.Runtimef("%s: a suite needs a non-empty string `name`", name)
	}
	cv, ok := d.Get("cases")
	cl, isList := cv.AsList()
	if !ok || !isList {
		return nil, vm.Runtimef("%s: suite `%s` needs a list `cases`", name, sname)
	}
	seen := map[string]bool{}
	var cases []vm.Value
	for i, c := range cl.Items() {
		cd, ok := c.AsDict()
		if !ok {
			return nil, vm.Runtimef("%s: suite `%s`: case %d must be a dict {name, input, expected}, got %s", name, sname, i, c.Type())
		}
		cn, ok := str(cd, "name")
		if !ok {
			cn = "case_" + lib.Display(lib.IntOf(i))
			cd = cd.Set("name", vm.Str(cn))
		}
		if seen[cn] {
			return nil, vm.Runtimef("%s: suite `%s`: duplicate case name `%s`", name, sname, cn)
		}
		seen[cn] = true
		if !cd.Has("input") {
			cd = cd.Set("input", vm.Nil)
		}
		if !cd.Has("expected") {
			cd = cd.Set("expected", vm.Nil)
		}
		cases = append(cases, vm.Of(cd))
	}
	var metrics []vm.Value
	if mv, ok := d.Get("metrics"); ok && !mv.IsNil() {
		ml, ok := mv.AsList()
		if !ok {
			return nil, vm.Runtimef("%s: suite `%s`: `metrics` must be a list of eval_metric values, got %s", name, sname, mv.Type())
		}
		for i, m := range ml.Items() {
			md, ok := m.AsDict()
			if !ok || !isMetric(md) {
				return nil, vm.Runtimef("%s: suite `%s`: metric %d is not an eval_metric(name, fn) value", name, sname, i)
			}
			mn, okn := str(md, "name")
			if fn := lib.Get(md, "fn"); !okn || mn == "" || (!fn.IsNil() && func() bool { _, err := callable(fn); return err != nil }()) {
				return nil, vm.Runtimef("%s: suite `%s`: metric %d needs a non-empty `name` and a function `fn`", name, sname, i)
			}
			metrics = append(metrics, m)
		}
	}
	if len(metrics) == 0 {
		metrics = []vm.Value{vm.Of(exactMatch())}
	}
	if t, ok := d.Get("target"); ok && !t.IsNil() {
		if _, err := callable(t); err != nil {
			return nil, vm.Runtimef("%s: suite `%s`: `target` must be a function, got %s", name, sname, t.Type())
		}
	}
	if _, err := threshold(name, d, 1); err != nil {
		return nil, err
	}
	return d.Set("kind", vm.Str("eval_suite")).Set("cases", vm.Of(vm.NewList(cases))).Set("metrics", vm.Of(vm.NewList(metrics))), nil
}

func callable(v vm.Value) (vm.Value, error) {
	if _, ok := vm.Args([]vm.Value{v}).Callable(0); ok {
		return v, nil
	}
	return vm.Value{}, vm.Runtimef("not callable")
}

func runSuite(th *vm.Thread, name string, d, opts *vm.Dict) (*vm.Dict, error) {
	m, err := suiteManifest(name, d)
	if err != nil {
		return nil, err
	}
	sname, _ := str(m, "name")
	target := lib.Get(opts, "target")
	if target.IsNil() {
		target = lib.Get(m, "target")
	}
	if target.IsNil() {
		return nil, vm.Runtimef("%s: suite `%s` has no `target` function (give one in the suite or options)", name, sname)
	}
	if _, err := callable(target); err != nil {
		return nil, vm.Runtimef("%s: `target` must be a function, got %s", name, target.Type())
	}
	thr, err := threshold(name, m, DefaultThreshold)
	if err != nil {
		return nil, err
	}
	if v, ok := opts.Get("threshold"); ok && !v.IsNil() {
		if thr, err = threshold(name, opts, thr); err != nil {
			return nil, err
		}
	}
	cases, _ := lib.Get(m, "cases").AsList()
	metrics, _ := lib.Get(m, "metrics").AsList()
	var results []vm.Value
	allPassed := true
	for _, c := range cases.Items() {
		cd, _ := c.AsDict()
		input, expected := lib.Get(cd, "input"), lib.Get(cd, "expected")
		res := lib.DictOf("name", lib.Get(cd, "name"), "input", input, "expected", expected)
		out, msg, failed, err := callCaught(th, target, input)
		if err != nil {
			return nil, err
		}
		res = res.Set("output", out)
		passed := !failed
		md := vm.NewDict()
		if failed {
			res = res.Set("error", vm.Str(msg))
		}
		for _, mv := range metrics.Items() {
			mdef, _ := mv.AsDict()
			mn, _ := str(mdef, "name")
			if failed {
				md = md.Set(mn, vm.FloatOf(0))
				continue
			}
			fn := lib.Get(mdef, "fn")
			var v vm.Value
			if fn.IsNil() {
				v = vm.BoolOf(vm.Equal(out, expected))
			} else {
				r, emsg, mfailed, err := callCaught(th, fn, out, expected, c)
				if err != nil {
					return nil, err
				}
				if mfailed {
					res = res.Set("error", vm.Str("metric `"+mn+"`: "+emsg))
					md = md.Set(mn, vm.FloatOf(0))
					passed = false
					continue
				}
				v = r
			}
			s, ok, valid := score(v, thr)
			if !valid {
				return nil, vm.Runtimef("%s: metric `%s` returned %s, expected a bool, number or {passed, score}", name, mn, v.Type())
			}
			md = md.Set(mn, vm.FloatOf(s))
			if !ok {
				passed = false
			}
		}
		if !passed {
			allPassed = false
		}
		res = res.Set("passed", vm.BoolOf(passed)).Set("metrics", vm.Of(md))
		results = append(results, vm.Of(res))
	}
	sum, err := aggregate(name, results)
	if err != nil {
		return nil, err
	}
	return lib.DictOf(
		"suite", vm.Str(sname),
		"passed", vm.BoolOf(allPassed),
		"results", vm.Of(vm.NewList(results)),
		"summary", vm.Of(sum),
	), nil
}

func packManifest(name string, d *vm.Dict) (*vm.Dict, error) {
	pname, ok := str(d, "name")
	if !ok || pname == "" {
		return nil, vm.Runtimef("%s: a pack needs a non-empty string `name`", name)
	}
	sv, ok := d.Get("suites")
	sl, isList := sv.AsList()
	if !ok || !isList {
		return nil, vm.Runtimef("%s: pack `%s` needs a list `suites`", name, pname)
	}
	var suites []vm.Value
	for i, s := range sl.Items() {
		sd, ok := s.AsDict()
		if !ok {
			return nil, vm.Runtimef("%s: pack `%s`: suite %d must be a dict, got %s", name, pname, i, s.Type())
		}
		m, err := suiteManifest(name, sd)
		if err != nil {
			return nil, err
		}
		suites = append(suites, vm.Of(m))
	}
	if _, err := threshold(name, d, 1); err != nil {
		return nil, err
	}
	return d.Set("kind", vm.Str("eval_pack")).Set("suites", vm.Of(vm.NewList(suites))), nil
}

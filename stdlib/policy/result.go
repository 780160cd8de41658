package policy

// command_result_scan and command_llm_risk_scan (docs/policy.md).

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/secretscan"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/stdlib/secrets"
	"github.com/harnlang/harn/vm"
)

// signature is one error signature of command output.
type signature struct {
	id string
	re *regexp.Regexp
}

// signatureTable is built on first use, like ruleTable.
var signatureTable = sync.OnceValue(func() []signature {
	return []signature{
		{"command_not_found", regexp.MustCompile(`(?i)command not found|is not recognized as an internal or external command`)},
		{"permission_denied", regexp.MustCompile(`(?i)permission denied|operation not permitted`)},
		{"no_such_file", regexp.MustCompile(`(?i)no such file or directory|cannot find the (?:file|path)`)},
		{"python_traceback", regexp.MustCompile(`^Traceback \(most recent call last\):`)},
		{"go_panic", regexp.MustCompile(`^panic: `)},
		{"segfault", regexp.MustCompile(`(?i)segmentation fault|core dumped`)},
		{"out_of_memory", regexp.MustCompile(`(?i)out of memory|cannot allocate memory|^Killed$`)},
		{"git_fatal", regexp.MustCompile(`^fatal: `)},
		{"npm_error", regexp.MustCompile(`^npm ERR!`)},
		{"test_failure", regexp.MustCompile(`^(?:--- FAIL|FAIL\b|FAILED\b)|\b\d+ failed\b`)},
		{"compile_error", regexp.MustCompile(`^\S+:\d+:\d+: (?:error|fatal error):|^error\[E\d+\]`)},
		{"error", regexp.MustCompile(`(?i)^(?:error|fatal)\b[:!]?`)},
		{"timeout", regexp.MustCompile(`(?i)timed out|deadline exceeded`)},
		{"connection_refused", regexp.MustCompile(`(?i)connection refused|could not resolve host|network is unreachable`)},
	}
})

// errorLines finds error signatures line by line: the first signature a
// line matches names it.
func errorLines(stream, text string) ([]vm.Value, []string) {
	var out []vm.Value
	var ids []string
	for i, line := range strings.Split(text, "\n") {
		l := strings.TrimRight(line, "\r")
		for _, s := range signatureTable() {
			if s.re.MatchString(strings.TrimSpace(l)) {
				out = append(out, vm.Of(lib.DictOf(
					"signature", vm.Str(s.id),
					"stream", vm.Str(stream),
					"line", lib.IntOf(i+1),
					"text", vm.Str(redact(strings.TrimSpace(l))),
				)))
				if !slices.Contains(ids, s.id) {
					ids = append(ids, s.id)
				}
				break
			}
		}
	}
	return out, ids
}

// redact replaces each credential in s with [REDACTED:detector].
func redact(s string) string {
	fs := secretscan.Scan(s)
	if len(fs) == 0 {
		return s
	}
	var sb strings.Builder
	last := 0
	for _, f := range fs {
		if f.StartOffset < last {
			continue
		}
		sb.WriteString(s[last:f.StartOffset])
		sb.WriteString("[REDACTED:" + f.Detector + "]")
		last = f.EndOffset
	}
	sb.WriteString(s[last:])
	return sb.String()
}

func resultScan(a vm.Args) (vm.Value, error) {
	const name = "command_result_scan"
	if !a.Has(0) {
		return vm.Value{}, vm.Runtimef("%s: missing argument 1", name)
	}
	streams := [][2]string{}
	status := vm.Nil
	if s, ok := a.Str(0); ok {
		streams = append(streams, [2]string{"output", s})
	} else if d, ok := a.Dict(0); ok {
		for _, k := range []string{"stdout", "stderr", "output"} {
			if v, ok := d.Get(k); ok && !v.IsNil() {
				s, ok := v.AsString()
				if !ok {
					return vm.Value{}, vm.Runtimef("%s: `%s` must be a string, got %s", name, k, v.Type())
				}
				streams = append(streams, [2]string{k, s.Go()})
			}
		}
		for _, k := range []string{"status", "exit_code", "code"} {
			if v, ok := d.Get(k); ok && !v.IsNil() {
				if _, ok := v.AsInt(); !ok {
					return vm.Value{}, vm.Runtimef("%s: `%s` must be an int, got %s", name, k, v.Type())
				}
				status = v
				break
			}
		}
	} else {
		return vm.Value{}, vm.Runtimef("%s: expected string or dict at argument 1, got %s", name, a.At(0).Type())
	}
	var found []vm.Value
	var errs []vm.Value
	var sigs []string
	redacted := lib.DictOf()
	for _, st := range streams {
		fl := secrets.Findings(secretscan.Scan(st[1]))
		for _, f := range fl.Items() {
			fd, _ := f.AsDict()
			found = append(found, vm.Of(fd.Set("stream", vm.Str(st[0]))))
		}
		e, ids := errorLines(st[0], st[1])
		errs = append(errs, e...)
		for _, id := range ids {
			if !slices.Contains(sigs, id) {
				sigs = append(sigs, id)
			}
		}
		redacted = redacted.Set(st[0], vm.Str(redact(st[1])))
	}
	failed := len(errs) > 0
	if n, ok := status.AsInt(); ok {
		failed = n != 0
	}
	risk := "low"
	switch {
	case len(found) > 0:
		risk = "high"
	case failed:
		risk = "medium"
	}
	slices.Sort(sigs)
	return vm.Of(lib.DictOf(
		"risk", vm.Str(risk),
		"has_secrets", vm.BoolOf(len(found) > 0),
		"secrets", vm.Of(lib.List(found)),
		"has_errors", vm.BoolOf(len(errs) > 0),
		"errors", vm.Of(lib.List(errs)),
		"signatures", vm.Of(lib.StrList(sigs)),
		"status", status,
		"failed", vm.BoolOf(failed),
		"redacted", vm.Of(redacted),
	)), nil
}

const llmSystem = `You judge the safety of shell commands an automated agent wants to run.
Answer with JSON only: {"risk": "low"|"medium"|"high"|"critical", "reasons": [short strings], "categories": [short snake_case strings]}.`

// llmRiskScan asks llm_call for a verdict and merges it with the rule
// scan: the result's risk is the higher of the two, so a model cannot
// talk a rule-flagged command down.
func llmRiskScan(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const name = "command_llm_risk_scan"
	cmd, err := commandArg(name, a)
	if err != nil {
		return vm.Value{}, err
	}
	opts, err := lib.OptionsArg(name, a, 1)
	if err != nil {
		return vm.Value{}, err
	}
	ws, err := workspaceOf(th, name, opts)
	if err != nil {
		return vm.Value{}, err
	}
	rules, err := riskResult(th, cmd, ws)
	if err != nil {
		return vm.Value{}, err
	}
	llmOpts := opts.Delete("workspace")
	resp, err := llm.Call(th, name, vm.Str("Command:\n"+cmd), vm.Str(llmSystem), vm.Of(llmOpts))
	if err != nil {
		if llm.IsNoProvider(err) {
			return vm.Of(rules.Set("source", vm.Str("rules")).Set("llm", vm.Nil)), nil
		}
		return vm.Value{}, err
	}
	rd, _ := resp.AsDict()
	textV, _ := rd.Get("text")
	text, _ := textV.AsString()
	verdict, perr := parseVerdict(text.Go())
	if perr != "" {
		return vm.Value{}, vm.Runtimef("%s: the model's answer is not a verdict: %s", name, perr)
	}
	rr, _ := rules.Get("risk")
	rs, _ := rr.AsString()
	risk := rs.Go()
	if levelRank(verdict.risk) > levelRank(risk) {
		risk = verdict.risk
	}
	reasons := listStrings(rules, "reasons")
	for _, r := range verdict.reasons {
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	cats := listStrings(rules, "categories")
	for _, c := range verdict.categories {
		if !slices.Contains(cats, c) {
			cats = append(cats, c)
		}
	}
	slices.Sort(cats)
	return vm.Of(lib.DictOf(
		"risk", vm.Str(risk),
		"reasons", vm.Of(lib.StrList(reasons)),
		"categories", vm.Of(lib.StrList(cats)),
		"rules", lib.Get(rules, "rules"),
		"source", vm.Str("llm"),
		"llm", vm.Of(lib.DictOf(
			"risk", vm.Str(verdict.risk),
			"reasons", vm.Of(lib.StrList(verdict.reasons)),
			"categories", vm.Of(lib.StrList(verdict.categories)),
		)),
	)), nil
}

func listStrings(d *vm.Dict, k string) []string {
	v, _ := d.Get(k)
	l, ok := v.AsList()
	if !ok {
		return nil
	}
	var out []string
	for _, it := range l.Items() {
		if s, ok := it.AsString(); ok {
			out = append(out, s.Go())
		}
	}
	return out
}

type verdict struct {
	risk                string
	reasons, categories []string
}

// parseVerdict reads the model's JSON answer (fenced or bare; the first
// {…} of the text).
func parseVerdict(text string) (verdict, string) {
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		return verdict{}, "no JSON object in it"
	}
	v, err := json.Parse(text[i : j+1])
	if err != nil {
		return verdict{}, err.Error()
	}
	d, ok := v.AsDict()
	if !ok {
		return verdict{}, "not an object"
	}
	rv, _ := d.Get("risk")
	rs, ok := rv.AsString()
	if !ok || levelRank(strings.ToLower(rs.Go())) < 0 {
		return verdict{}, "`risk` must be one of low, medium, high, critical"
	}
	return verdict{strings.ToLower(rs.Go()), listStrings(d, "reasons"), listStrings(d, "categories")}, ""
}

func init() {
	lib.Def("command_result_scan", "command_result_scan(result: string | dict)",
		`scan command output (a string, or {stdout, stderr, status}) for credentials (secret_scan's detectors) and error signatures: {risk, has_secrets, secrets, has_errors, errors, signatures, status, failed, redacted}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return resultScan(a) })
	lib.Def("command_llm_risk_scan", "command_llm_risk_scan(command: string, options?: dict)",
		`ask llm_call (options pass through) for a JSON verdict on a command and merge it with command_risk_scan (the higher risk wins); with no provider configured it returns the rule scan with source "rules"`,
		llmRiskScan)
}

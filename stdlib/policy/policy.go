package policy

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// riskResult is command_risk_scan's dict for command.
func riskResult(th *vm.Thread, command, workspace string) (*vm.Dict, error) {
	matched, err := scanInterruptible(th, command)
	if err != nil {
		return nil, err
	}
	rank := 0
	var reasons, cats, ids []string
	add := func(id, cat, level, reason string) {
		if r := levelRank(level); r > rank {
			rank = r
		}
		reasons = append(reasons, reason)
		ids = append(ids, id)
		if !slices.Contains(cats, cat) {
			cats = append(cats, cat)
		}
	}
	for _, r := range matched {
		add(r.id, r.category, r.level, r.reason)
	}
	if workspace != "" {
		if t := outside(command, workspace); t != "" {
			add("outside_workspace", "filesystem", "medium", "writes outside the workspace: "+t)
		}
	}
	slices.Sort(cats)
	return lib.DictOf(
		"risk", vm.Str(Levels[rank]),
		"reasons", vm.Of(lib.StrList(reasons)),
		"categories", vm.Of(lib.StrList(cats)),
		"rules", vm.Of(lib.StrList(ids)),
	), nil
}

func commandArg(name string, a vm.Args) (string, error) {
	if !a.Has(0) {
		return "", vm.Runtimef("%s: missing argument 1", name)
	}
	s, ok := a.Str(0)
	if !ok {
		return "", vm.Runtimef("%s: expected string at argument 1, got %s", name, a.At(0).Type())
	}
	return s, nil
}

// workspaceOf is options.workspace, else the run's execution root.
func workspaceOf(th *vm.Thread, name string, opts *vm.Dict) (string, error) {
	if v, ok := opts.Get("workspace"); ok && !v.IsNil() {
		s, ok := v.AsString()
		if !ok {
			return "", vm.Runtimef("%s: options.workspace must be a string, got %s", name, v.Type())
		}
		return fs.ResolvePath(th, s.Go()), nil
	}
	return fs.ExecutionRoot(th), nil
}

// A policy is the dict command_policy returns.
type pattern struct {
	src string
	re  *regexp.Regexp
}

type compiled struct {
	allow, deny, ask []pattern
	maxRisk          string
	dflt             string
}

var policyKeys = []string{"allow", "deny", "ask", "max_risk", "default", "name"}

// globRe turns a glob into an anchored regexp: `*` any run of characters
// (spaces included), `?` one character, everything else literal.
func globRe(g string) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString(`^`)
	for _, r := range g {
		switch r {
		case '*':
			sb.WriteString(`.*`)
		case '?':
			sb.WriteString(`.`)
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteString(`$`)
	return regexp.MustCompile(`(?s)` + sb.String())
}

func compilePatterns(name, key string, v vm.Value) ([]pattern, error) {
	if v.IsNil() {
		return nil, nil
	}
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Runtimef("%s: `%s` must be a list of patterns, got %s", name, key, v.Type())
	}
	var out []pattern
	for i, it := range l.Items() {
		s, ok := it.AsString()
		if !ok {
			return nil, vm.Runtimef("%s: `%s`[%d] must be a string, got %s", name, key, i, it.Type())
		}
		src := s.Go()
		if re, ok := strings.CutPrefix(src, "re:"); ok {
			c, err := regexp.Compile(re)
			if err != nil {
				return nil, vm.Runtimef("%s: `%s`[%d] is not a valid regex: %s", name, key, i, err.Error())
			}
			out = append(out, pattern{src, c})
		} else {
			out = append(out, pattern{src, globRe(src)})
		}
	}
	return out, nil
}

// compile validates a policy dict (command_policy's input or output).
func compile(name string, d *vm.Dict) (*compiled, error) {
	for _, k := range d.Keys() {
		if k == "_type" {
			continue
		}
		if !slices.Contains(policyKeys, k) {
			return nil, vm.Runtimef("%s: unknown policy key `%s` (expected one of %s)", name, k, strings.Join(policyKeys, ", "))
		}
	}
	c := &compiled{maxRisk: "critical", dflt: "allow"}
	var err error
	get := func(k string) vm.Value {
		if v, ok := d.Get(k); ok {
			return v
		}
		return vm.Nil
	}
	if c.allow, err = compilePatterns(name, "allow", get("allow")); err != nil {
		return nil, err
	}
	if c.deny, err = compilePatterns(name, "deny", get("deny")); err != nil {
		return nil, err
	}
	if c.ask, err = compilePatterns(name, "ask", get("ask")); err != nil {
		return nil, err
	}
	if len(c.allow) > 0 {
		c.dflt = "deny"
	}
	if v := get("max_risk"); !v.IsNil() {
		s, ok := v.AsString()
		if !ok || levelRank(s.Go()) < 0 {
			return nil, vm.Runtimef("%s: `max_risk` must be one of low, medium, high, critical, got %s", name, lib.Display(v))
		}
		c.maxRisk = s.Go()
	}
	if v := get("default"); !v.IsNil() {
		s, ok := v.AsString()
		if !ok || !slices.Contains([]string{"allow", "deny", "ask"}, s.Go()) {
			return nil, vm.Runtimef("%s: `default` must be one of allow, deny, ask, got %s", name, lib.Display(v))
		}
		c.dflt = s.Go()
	}
	return c, nil
}

func patternList(ps []pattern) vm.Value {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.src
	}
	return vm.Of(lib.StrList(out))
}

func policyValue(d *vm.Dict, c *compiled) *vm.Dict {
	name := vm.Nil
	if v, ok := d.Get("name"); ok {
		name = v
	}
	return lib.DictOf(
		"_type", vm.Str("command_policy"),
		"name", name,
		"allow", patternList(c.allow),
		"deny", patternList(c.deny),
		"ask", patternList(c.ask),
		"max_risk", vm.Str(c.maxRisk),
		"default", vm.Str(c.dflt),
	)
}

// decisionRank orders decisions by strictness.
var decisionRank = map[string]int{"allow": 0, "ask": 1, "deny": 2}

type decision struct {
	decision, reason, rule string
}

func firstMatch(ps []pattern, cmd string) (string, bool) {
	for _, p := range ps {
		if p.re.MatchString(cmd) {
			return p.src, true
		}
	}
	return "", false
}

// decide applies one policy to a command of the given risk.
func (c *compiled) decide(cmd, risk string) decision {
	if p, ok := firstMatch(c.deny, cmd); ok {
		return decision{"deny", "matches deny pattern " + p, p}
	}
	if levelRank(risk) > levelRank(c.maxRisk) {
		return decision{"deny", "risk " + risk + " exceeds max_risk " + c.maxRisk, ""}
	}
	if p, ok := firstMatch(c.ask, cmd); ok {
		return decision{"ask", "matches ask pattern " + p, p}
	}
	if p, ok := firstMatch(c.allow, cmd); ok {
		return decision{"allow", "matches allow pattern " + p, p}
	}
	if len(c.allow) > 0 && c.dflt == "deny" {
		return decision{"deny", "matches no allow pattern", ""}
	}
	return decision{c.dflt, "policy default " + c.dflt, ""}
}

// defaultDecision applies when no policy is given or pushed: deny
// critical, ask high, allow the rest.
func defaultDecision(risk string) decision {
	switch risk {
	case "critical":
		return decision{"deny", "risk critical (default policy)", ""}
	case "high":
		return decision{"ask", "risk high (default policy)", ""}
	}
	return decision{"allow", "risk " + risk + " (default policy)", ""}
}

type stackKey struct{}

type stack struct {
	mu       sync.Mutex
	policies []*vm.Dict
}

func stackOf(th *vm.Thread) *stack {
	return th.VM().Local(stackKey{}, func() any { return &stack{} }).(*stack)
}

func (s *stack) snapshot() []*vm.Dict {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.policies)
}

// policyArg is the policy dict at argument i, validated.
func policyArg(name string, a vm.Args, i int) (*vm.Dict, *compiled, error) {
	d, ok := a.Dict(i)
	if !ok {
		return nil, nil, vm.Runtimef("%s: expected dict at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	c, err := compile(name, d)
	if err != nil {
		return nil, nil, err
	}
	return d, c, nil
}

func check(th *vm.Thread, name, cmd string, explicit *vm.Dict) (*vm.Dict, error) {
	ws := fs.ExecutionRoot(th)
	risk, err := riskResult(th, cmd, ws)
	if err != nil {
		return nil, err
	}
	rv, _ := risk.Get("risk")
	s, _ := rv.AsString()
	level := s.Go()
	var pols []*vm.Dict
	if explicit != nil {
		pols = []*vm.Dict{explicit}
	} else {
		pols = stackOf(th).snapshot()
	}
	var d decision
	policyName := vm.Nil
	if len(pols) == 0 {
		d = defaultDecision(level)
	} else {
		d = decision{decision: "allow"}
		first := true
		for i := len(pols) - 1; i >= 0; i-- {
			c, err := compile(name, pols[i])
			if err != nil {
				return nil, err
			}
			got := c.decide(strings.TrimSpace(cmd), level)
			if first || decisionRank[got.decision] > decisionRank[d.decision] {
				d = got
				policyName = lib.Get(pols[i], "name")
				first = false
			}
		}
	}
	rule := vm.Nil
	if d.rule != "" {
		rule = vm.Str(d.rule)
	}
	reasons, _ := risk.Get("reasons")
	cats, _ := risk.Get("categories")
	return lib.DictOf(
		"decision", vm.Str(d.decision),
		"allowed", vm.BoolOf(d.decision == "allow"),
		"reason", vm.Str(d.reason),
		"pattern", rule,
		"policy", policyName,
		"risk", vm.Str(level),
		"reasons", reasons,
		"categories", cats,
	), nil
}

func init() {
	lib.Def("command_risk_scan", "command_risk_scan(command: string, options?: dict)",
		`the risk of a shell command from a fixed rule table: {risk: "low"|"medium"|"high"|"critical", reasons, categories, rules}; options.workspace (default the execution root) bounds where it may write`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			cmd, err := commandArg("command_risk_scan", a)
			if err != nil {
				return vm.Value{}, err
			}
			opts, err := lib.OptionsArg("command_risk_scan", a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			ws, err := workspaceOf(th, "command_risk_scan", opts)
			if err != nil {
				return vm.Value{}, err
			}
			r, err := riskResult(th, cmd, ws)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(r), nil
		})
	lib.Def("command_policy", "command_policy(rules: dict)",
		`a command policy {allow, deny, ask, max_risk, default, name}: pattern lists are globs (* ? over the whole command) or "re:REGEX"; deny wins, then max_risk, then ask, then allow`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("command_policy: missing argument 1")
			}
			d, c, err := policyArg("command_policy", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(policyValue(d, c)), nil
		})
	lib.Def("command_policy_push", "command_policy_push(policy: dict)",
		"make policy active for command_policy_check (policies stack: every active one must allow); returns the stack depth",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("command_policy_push: missing argument 1")
			}
			d, c, err := policyArg("command_policy_push", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			s := stackOf(th)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.policies = append(s.policies, policyValue(d, c))
			return lib.IntOf(len(s.policies)), nil
		})
	lib.Def("command_policy_pop", "command_policy_pop()",
		"remove and return the innermost pushed command policy",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s := stackOf(th)
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.policies) == 0 {
				return vm.Value{}, vm.Runtimef("command_policy_pop: no command policy is pushed")
			}
			p := s.policies[len(s.policies)-1]
			s.policies = s.policies[:len(s.policies)-1]
			return vm.Of(p), nil
		})
	lib.Def("command_policy_check", "command_policy_check(command: string, policy?: dict)",
		`decide a command under policy (default: the pushed policies, strictest wins; none: deny critical, ask high): {decision: "allow"|"ask"|"deny", allowed, reason, pattern, policy, risk, reasons, categories}`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			cmd, err := commandArg("command_policy_check", a)
			if err != nil {
				return vm.Value{}, err
			}
			var explicit *vm.Dict
			if a.Has(1) && !a.At(1).IsNil() {
				d, c, err := policyArg("command_policy_check", a, 1)
				if err != nil {
					return vm.Value{}, err
				}
				explicit = policyValue(d, c)
			}
			r, err := check(th, "command_policy_check", cmd, explicit)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(r), nil
		})
}

package policy

// egress_policy and egress_policy_check (docs/policy.md, "Egress"): which
// hosts a program may reach. egress_policy also makes its policy the
// run's egress guard (lib.SetEgressGuard), which every builtin that opens
// a network connection consults: a denied URL raises egress_blocked.

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

var egressKeys = []string{"allow", "deny", "default", "name"}

// hostPatterns validates a list of host patterns: "example.com" (that
// host), "*.example.com" (its subdomains, not itself), "*" (any), each
// optionally with ":port".
func hostPatterns(name, key string, v vm.Value) ([]string, error) {
	if v.IsNil() {
		return nil, nil
	}
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Runtimef("%s: `%s` must be a list of host patterns, got %s", name, key, v.Type())
	}
	var out []string
	for i, it := range l.Items() {
		s, ok := it.AsString()
		if !ok || strings.TrimSpace(s.Go()) == "" || strings.Contains(s.Go(), "/") {
			return nil, vm.Runtimef("%s: `%s`[%d] must be a host pattern such as \"api.example.com\" or \"*.example.com\", got %s", name, key, i, lib.Display(it))
		}
		out = append(out, strings.ToLower(strings.TrimSpace(s.Go())))
	}
	return out, nil
}

type egress struct {
	allow, deny []string
	dflt        string
	name        vm.Value
}

func compileEgress(name string, d *vm.Dict) (*egress, error) {
	for _, k := range d.Keys() {
		if k != "_type" && !slices.Contains(egressKeys, k) {
			return nil, vm.Runtimef("%s: unknown egress policy key `%s` (expected one of %s)", name, k, strings.Join(egressKeys, ", "))
		}
	}
	get := func(k string) vm.Value {
		if v, ok := d.Get(k); ok {
			return v
		}
		return vm.Nil
	}
	e := &egress{dflt: "deny", name: get("name")}
	var err error
	if e.allow, err = hostPatterns(name, "allow", get("allow")); err != nil {
		return nil, err
	}
	if e.deny, err = hostPatterns(name, "deny", get("deny")); err != nil {
		return nil, err
	}
	if len(e.allow) == 0 {
		e.dflt = "allow"
	}
	if v := get("default"); !v.IsNil() {
		s, ok := v.AsString()
		if !ok || (s.Go() != "allow" && s.Go() != "deny") {
			return nil, vm.Runtimef("%s: `default` must be \"allow\" or \"deny\", got %s", name, lib.Display(v))
		}
		e.dflt = s.Go()
	}
	return e, nil
}

func (e *egress) value() *vm.Dict {
	return lib.DictOf("_type", vm.Str("egress_policy"), "name", e.name,
		"allow", vm.Of(lib.StrList(e.allow)), "deny", vm.Of(lib.StrList(e.deny)), "default", vm.Str(e.dflt))
}

func hostMatches(p, host, port string) bool {
	ph, pp := p, ""
	if i := strings.LastIndex(p, ":"); i >= 0 && !strings.Contains(p[i+1:], "]") {
		ph, pp = p[:i], p[i+1:]
	}
	if pp != "" && pp != port {
		return false
	}
	switch {
	case ph == "*":
		return true
	case strings.HasPrefix(ph, "*."):
		return strings.HasSuffix(host, ph[1:])
	}
	return host == strings.Trim(ph, "[]")
}

// decide applies the policy to raw: deny patterns first, then allow
// patterns, then the default. err is set when raw has no host.
func (e *egress) decide(name, raw string) (allowed bool, host, reason string, err error) {
	u, perr := url.Parse(raw)
	if perr != nil || u.Hostname() == "" {
		return false, "", "", vm.Runtimef("%s: %q is not an absolute URL", name, raw)
	}
	host = strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "http", "ws":
			port = "80"
		case "https", "wss":
			port = "443"
		}
	}
	for _, p := range e.deny {
		if hostMatches(p, host, port) {
			return false, host, "matches deny pattern " + p, nil
		}
	}
	for _, p := range e.allow {
		if hostMatches(p, host, port) {
			return true, host, "matches allow pattern " + p, nil
		}
	}
	if len(e.allow) > 0 && e.dflt == "deny" {
		return false, host, "host " + host + " is not in the allow list", nil
	}
	return e.dflt == "allow", host, "policy default " + e.dflt, nil
}

// guard is the egress guard of an installed policy: a URL it does not
// allow raises the catchable egress_blocked error.
func (e *egress) guard() lib.EgressGuard {
	label := ""
	if s, ok := e.name.AsString(); ok && s.Go() != "" {
		label = " " + strconv.Quote(s.Go())
	}
	return func(raw string) error {
		allowed, _, reason, err := e.decide("egress policy", raw)
		if err != nil {
			return vm.Categorized("egress_blocked", raw+" is not an absolute URL (egress policy"+label+")")
		}
		if allowed {
			return nil
		}
		return vm.Categorized("egress_blocked", raw+": "+reason+" (egress policy"+label+")")
	}
}

func egressCheck(a vm.Args) (vm.Value, error) {
	const name = "egress_policy_check"
	if !a.Has(1) {
		return vm.Value{}, vm.Runtimef("%s: missing argument %d", name, a.Len()+1)
	}
	raw, ok := a.Str(0)
	if !ok {
		return vm.Value{}, vm.Runtimef("%s: expected string at argument 1, got %s", name, a.At(0).Type())
	}
	d, ok := a.Dict(1)
	if !ok {
		return vm.Value{}, vm.Runtimef("%s: expected dict at argument 2, got %s", name, a.At(1).Type())
	}
	e, err := compileEgress(name, d)
	if err != nil {
		return vm.Value{}, err
	}
	allowed, host, reason, err := e.decide(name, raw)
	if err != nil {
		return vm.Value{}, err
	}
	return vm.Of(lib.DictOf("allowed", vm.BoolOf(allowed), "host", vm.Str(host), "reason", vm.Str(reason))), nil
}

func init() {
	lib.Def("egress_policy", "egress_policy(rules: dict | nil)",
		`make {allow, deny, default, name} the run's egress policy and return it: host patterns ("api.example.com", "*.example.com", "*", optionally ":port"); with an allow list the default is deny. Every builtin that opens a network connection then raises egress_blocked for a URL it denies; egress_policy(nil) removes it`,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if !a.Has(0) {
				return vm.Value{}, vm.Runtimef("egress_policy: missing argument 1")
			}
			if a.At(0).IsNil() {
				lib.SetEgressGuard(th.VM(), nil)
				return vm.Nil, nil
			}
			d, ok := a.Dict(0)
			if !ok {
				return vm.Value{}, vm.Runtimef("egress_policy: expected dict at argument 1, got %s", a.At(0).Type())
			}
			e, err := compileEgress("egress_policy", d)
			if err != nil {
				return vm.Value{}, err
			}
			lib.SetEgressGuard(th.VM(), e.guard())
			return vm.Of(e.value()), nil
		})
	lib.Def("egress_policy_check", "egress_policy_check(url: string, policy: dict)",
		"whether policy lets a program reach url: {allowed, host, reason}; deny patterns win over allow patterns",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return egressCheck(a) })
}

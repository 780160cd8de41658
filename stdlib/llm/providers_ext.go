package llm

// Provider registration, capabilities, rate limits and health checks
// (docs/llm.md, "Registered providers" and "Rate limits and health";
// docs/spec/builtins.md §5 names the builtins only). Everything here is
// state of one VM: a provider registered in one run is unknown to another.

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/errcat"
	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// capKeys are the capability flags a provider has, in display order.
var capKeys = []string{"chat", "streaming", "tools", "json_mode", "system_prompt", "vision"}

// apiCaps are the capabilities of each wire API.
func apiCaps(api string) map[string]bool {
	switch api {
	case "anthropic":
		return map[string]bool{"chat": true, "streaming": true, "tools": true, "json_mode": false, "system_prompt": true, "vision": true}
	case "mock":
		return map[string]bool{"chat": true, "streaming": true, "tools": true, "json_mode": true, "system_prompt": true, "vision": true}
	}
	return map[string]bool{"chat": true, "streaming": true, "tools": true, "json_mode": true, "system_prompt": true, "vision": true}
}

// bucket is a token bucket: capacity tokens, refilled at capacity per
// minute, timed by the VM clock (mock_time makes it deterministic).
type bucket struct {
	rpm    int64
	tokens float64
	last   time.Time
}

// regState is a VM's registered providers, capability overrides and
// rate limits.
type regState struct {
	mu      sync.Mutex
	custom  []provider
	caps    map[string]map[string]bool
	limits  map[string]*bucket // llm_rate_limit, by provider
	general map[string]*bucket // with_rate_limit, by name
	waits   map[string]int64   // how often a call waited, by provider
}

type regKey struct{}

func regOf(th *vm.Thread) *regState {
	return th.VM().Local(regKey{}, func() any {
		return &regState{caps: map[string]map[string]bool{}, limits: map[string]*bucket{}, general: map[string]*bucket{}, waits: map[string]int64{}}
	}).(*regState)
}

// customProviders are the providers provider_register added to th's VM.
func customProviders(th *vm.Thread) []provider {
	s := regOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.custom)
}

func customByName(custom []provider, name string) (provider, bool) {
	for _, p := range custom {
		if p.name == name {
			return p, true
		}
	}
	return provider{}, false
}

// customModel is the registered provider serving model id m.
func customModel(custom []provider, m string) (string, bool) {
	for _, p := range custom {
		if slices.Contains(p.models, m) {
			return p.name, true
		}
	}
	return "", false
}

// allProviders is the built-in table followed by the registered ones.
func allProviders(th *vm.Thread) []provider {
	return append(slices.Clone(providers), customProviders(th)...)
}

func lookupProvider(th *vm.Thread, name string) (provider, bool) {
	if p, ok := customByName(customProviders(th), name); ok {
		return p, true
	}
	return providerByName(name)
}

// capsOf is provider p's capabilities: its API's, with the overrides of
// provider_capabilities_install.
func capsOf(th *vm.Thread, p provider) map[string]bool {
	c := apiCaps(p.api)
	s := regOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.caps[p.name] {
		c[k] = v
	}
	return c
}

func capsValue(th *vm.Thread, p provider) vm.Value {
	c := capsOf(th, p)
	d := lib.DictOf("provider", vm.Str(p.name), "api", vm.Str(p.api))
	for _, k := range capKeys {
		d = d.Set(k, vm.BoolOf(c[k]))
	}
	s := regOf(th)
	s.mu.Lock()
	_, over := s.caps[p.name]
	s.mu.Unlock()
	return vm.Of(d.Set("installed", vm.BoolOf(over)))
}

// callProvider is the name of the provider a call is counted against:
// the requested one, else the one the configuration resolves to, else
// "mock".
func callProvider(r *request) string {
	if r.provider != "" {
		return r.provider
	}
	if c, ok, err := resolve(r.fn, "", r.model, r.custom...); err == nil && ok {
		return c.provider.name
	}
	return "mock"
}

// admit applies the provider's capabilities and rate limit to a call
// before it is answered (by a mock or the provider).
func admit(th *vm.Thread, r *request) error {
	name := callProvider(r)
	if p, ok := lookupProvider(th, name); ok {
		c := capsOf(th, p)
		if !c["json_mode"] {
			r.jsonMode = false // best effort: the instruction in the prompt stays
		}
		switch {
		case len(r.tools) > 0 && !c["tools"]:
			return vm.Throwf("%s: provider %s does not support tools (provider_capabilities)", r.fn, name)
		case r.system != "" && !c["system_prompt"]:
			return vm.Throwf("%s: provider %s does not support a system prompt (provider_capabilities)", r.fn, name)
		case r.hasImages() && !c["vision"]:
			return vm.Throwf("%s: provider %s does not support images (provider_capabilities vision)", r.fn, name)
		}
	}
	s := regOf(th)
	s.mu.Lock()
	b := s.limits[name]
	s.mu.Unlock()
	if b == nil {
		return nil
	}
	waited, err := s.take(th, b)
	if waited {
		s.mu.Lock()
		s.waits[name]++
		s.mu.Unlock()
	}
	return err
}

// admitStream refuses llm_stream for a provider without streaming.
func admitStream(th *vm.Thread, r *request) error {
	name := callProvider(r)
	if p, ok := lookupProvider(th, name); ok && !capsOf(th, p)["streaming"] {
		return vm.Throwf("%s: provider %s does not support streaming (provider_capabilities)", r.fn, name)
	}
	return nil
}

// take removes one token from b, sleeping (on the VM clock) until one
// is there; waited says whether it had to.
func (s *regState) take(th *vm.Thread, b *bucket) (bool, error) {
	waited := false
	for {
		now := htime.VMNow(th)
		s.mu.Lock()
		s.refill(b, now)
		if b.tokens >= 1 {
			b.tokens--
			s.mu.Unlock()
			return waited, nil
		}
		need := (1 - b.tokens) * float64(time.Minute) / float64(b.rpm)
		s.mu.Unlock()
		waited = true
		d := time.Duration(math.Ceil(need/float64(time.Millisecond))) * time.Millisecond
		if err := htime.Sleep(th, max(d, time.Millisecond)); err != nil {
			return waited, err
		}
	}
}

// refill adds the tokens earned since b.last; the caller holds mu.
func (s *regState) refill(b *bucket, now time.Time) {
	if el := now.Sub(b.last); el > 0 {
		b.tokens = math.Min(float64(b.rpm), b.tokens+float64(b.rpm)*el.Minutes())
	}
	b.last = now
}

func newBucket(th *vm.Thread, rpm int64) *bucket {
	return &bucket{rpm: rpm, tokens: float64(rpm), last: htime.VMNow(th)}
}

func (s *regState) limitValue(th *vm.Thread, name string, b *bucket) vm.Value {
	if b == nil {
		return vm.Of(lib.DictOf("provider", vm.Str(name), "rpm", vm.Nil, "available", vm.Nil, "waits", vm.IntOf(s.waits[name])))
	}
	s.refill(b, htime.VMNow(th))
	return vm.Of(lib.DictOf("provider", vm.Str(name), "rpm", vm.IntOf(b.rpm), "available", vm.IntOf(int64(b.tokens)), "waits", vm.IntOf(s.waits[name])))
}

func rpmArg(fn string, v vm.Value) (int64, error) {
	n, ok := v.AsInt()
	if !ok || n <= 0 {
		return 0, vm.Throwf("%s: rpm must be a positive int (requests per minute), got %s", fn, lib.Display(v))
	}
	return int64(n), nil
}

// registerKeys are provider_register's config keys.
var registerKeys = []string{"api", "base_url", "api_key_env", "models", "default_model", "capabilities"}

func register(th *vm.Thread, name string, cfg *vm.Dict) (provider, error) {
	const fn = "provider_register"
	for _, k := range cfg.Keys() {
		if !slices.Contains(registerKeys, k) {
			if k == "api_key" {
				return provider{}, vm.Throwf("%s: give api_key_env (the environment variable holding the key), not the key itself", fn)
			}
			return provider{}, vm.Throwf("%s: unknown config key %q (known: %s)", fn, k, strings.Join(registerKeys, ", "))
		}
	}
	str := func(k string) (string, error) {
		v := lib.Get(cfg, k)
		if v.IsNil() {
			return "", nil
		}
		s, ok := v.AsString()
		if !ok || strings.TrimSpace(s.Go()) == "" {
			return "", vm.Throwf("%s: %s must be a non-empty string, got %s", fn, k, lib.Shown(v))
		}
		return strings.TrimSpace(s.Go()), nil
	}
	p := provider{name: name, api: "openai"}
	api, err := str("api")
	if err != nil {
		return p, err
	}
	switch api {
	case "", "openai":
	case "anthropic":
		p.api = "anthropic"
	default:
		return p, vm.Throwf("%s: api must be \"openai\" (chat completions) or \"anthropic\" (messages), got %q", fn, api)
	}
	if p.defBase, err = str("base_url"); err != nil {
		return p, err
	}
	if p.defBase == "" {
		return p, vm.Throwf("%s: config needs a base_url (e.g. \"http://localhost:8000/v1\")", fn)
	}
	if !strings.HasPrefix(p.defBase, "http://") && !strings.HasPrefix(p.defBase, "https://") {
		return p, vm.Throwf("%s: base_url must be an http:// or https:// URL, got %q", fn, p.defBase)
	}
	if p.keyEnv, err = str("api_key_env"); err != nil {
		return p, err
	}
	if v := lib.Get(cfg, "models"); !v.IsNil() {
		l, ok := v.AsList()
		if !ok {
			return p, vm.Throwf("%s: models must be a list of model ids, got %s", fn, v.Type())
		}
		for _, m := range l.Items() {
			s, ok := m.AsString()
			if !ok || s.Go() == "" {
				return p, vm.Throwf("%s: models must be a list of model ids, got an element %s", fn, lib.Display(m))
			}
			p.models = append(p.models, s.Go())
		}
	}
	if p.defModel, err = str("default_model"); err != nil {
		return p, err
	}
	if p.defModel == "" && len(p.models) > 0 {
		p.defModel = p.models[0]
	}
	if p.defModel == "" {
		return p, vm.Throwf("%s: config needs models or a default_model", fn)
	}
	return p, nil
}

func providerValue(th *vm.Thread, p provider, registered bool) vm.Value {
	base := env(p.baseEnv)
	if base == "" {
		base = p.defBase
	}
	var ms []string
	for _, m := range models {
		if m.provider == p.name {
			ms = append(ms, m.id)
		}
	}
	ms = append(ms, p.models...)
	sort.Strings(ms)
	return vm.Of(lib.DictOf("name", vm.Str(p.name), "api", vm.Str(p.api), "base_url", strOrNil(base),
		"api_key_env", strOrNil(p.keyEnv), "api_key_set", vm.BoolOf(env(p.keyEnv) != ""),
		"default_model", vm.Str(p.defModel), "models", vm.Of(lib.StrList(ms)), "registered", vm.BoolOf(registered),
		"capabilities", capsValue(th, p)))
}

func providerArg(th *vm.Thread, fn string, v vm.Value) (provider, error) {
	s, ok := v.AsString()
	if !ok {
		return provider{}, vm.Throwf("%s: provider must be a provider name, got %s", fn, v.Type())
	}
	p, ok := lookupProvider(th, strings.ToLower(s.Go()))
	if !ok {
		return provider{}, vm.Throwf("%s: unknown provider %q (known: %s)", fn, s.Go(), providerNames(customProviders(th)...))
	}
	return p, nil
}

// configured says whether provider p can be called and, if not, what to set.
func configured(p provider) (bool, string) {
	switch {
	case p.api == "mock":
		return true, ""
	case p.keyEnv != "" && env(p.keyEnv) == "":
		return false, "set " + p.keyEnv
	case p.keyEnv == "" && p.baseEnv != "" && env(p.baseEnv) == "":
		return false, "set " + p.baseEnv
	}
	return true, ""
}

// healthTimeout bounds one reachability probe.
const healthTimeout = 5 * time.Second

// health checks one provider: configured (key or base URL set), and when
// it is and no mock is armed, reachable (the models endpoint answered at
// all; any HTTP status counts, ok is a 2xx).
func health(th *vm.Thread, p provider, timeout time.Duration) vm.Value {
	ok, hint := configured(p)
	d := lib.DictOf("provider", vm.Str(p.name), "configured", vm.BoolOf(ok), "reachable", vm.Nil, "ok", vm.Nil,
		"status", vm.Nil, "checked", vm.False, "error", vm.Nil)
	switch {
	case p.api == "mock":
		return vm.Of(d.Set("reachable", vm.True).Set("ok", vm.True).Set("checked", vm.True))
	case !ok:
		return vm.Of(d.Set("error", vm.Str("not configured: "+hint)))
	case stateOf(th).armed():
		return vm.Of(d.Set("error", vm.Str("not checked: llm_mock is armed, no request is sent")))
	}
	c := config{provider: p, baseURL: strings.TrimRight(p.defBase, "/"), apiKey: env(p.keyEnv)}
	if b := env(p.baseEnv); b != "" {
		c.baseURL = strings.TrimRight(b, "/")
	}
	url, headers := c.endpoint()
	if p.api == "anthropic" {
		url = strings.TrimSuffix(url, "/messages") + "/models"
	} else {
		url = strings.TrimSuffix(url, "/chat/completions") + "/models"
	}
	if err := lib.CheckEgress(th, url); err != nil {
		return vm.Of(d.Set("error", vm.Str("egress blocked: "+err.(*vm.Error).Msg)))
	}
	var status int
	var netErr error
	stop := htime.BlockingCtx(th, func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			netErr = err
			return
		}
		for k, v := range headers {
			if k != "content-type" {
				req.Header.Set(k, v)
			}
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			netErr = err
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		status = resp.StatusCode
	})
	d = d.Set("checked", vm.True)
	switch {
	case stop != nil:
		return vm.Of(d.Set("reachable", vm.False).Set("ok", vm.False).Set("error", vm.Str("interrupted")))
	case netErr != nil:
		msg := netErr.Error()
		if isTimeout(netErr) {
			msg = fmt.Sprintf("no answer within %s", timeout)
		}
		return vm.Of(d.Set("reachable", vm.False).Set("ok", vm.False).Set("error", vm.Str(msg)))
	}
	d = d.Set("reachable", vm.True).Set("status", lib.IntOf(status)).Set("ok", vm.BoolOf(status >= 200 && status < 300))
	if status < 200 || status > 299 {
		d = d.Set("error", vm.Str(fmt.Sprintf("HTTP %d (%s)", status, errcat.OfStatus(status))))
	}
	return vm.Of(d)
}

func init() {
	lib.Def("llm_healthcheck", "llm_healthcheck(provider?, options?)", "per provider: {provider, configured, reachable, ok, status, checked, error}; probes the models endpoint of a configured provider (options.timeout_ms, default 5000), never while llm_mock is armed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "llm_healthcheck"
		timeout, optIdx := healthTimeout, 1
		if _, ok := a.Dict(0); ok {
			optIdx = 0
		}
		if a.Given(optIdx) {
			o, ok := a.Dict(optIdx)
			if !ok {
				return vm.Value{}, lib.BadOptions(fn, a.At(optIdx))
			}
			if err := lib.CheckOptions(fn, o, []string{"timeout_ms"}); err != nil {
				return vm.Value{}, err
			}
			if v := lib.Get(o, "timeout_ms"); !v.IsNil() {
				n, ok := v.AsInt()
				if !ok || n <= 0 {
					return vm.Value{}, vm.Throwf("%s: timeout_ms must be a positive int, got %s", fn, lib.Display(v))
				}
				timeout = time.Duration(n) * time.Millisecond
			}
		}
		if optIdx == 1 && a.Given(0) {
			p, err := providerArg(th, fn, a.At(0))
			if err != nil {
				return vm.Value{}, err
			}
			return health(th, p, timeout), nil
		}
		var out []vm.Value
		for _, p := range allProviders(th) {
			out = append(out, health(th, p, timeout))
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("llm_rate_limit", "llm_rate_limit(provider, rpm?) -> dict", "set (rpm an int), remove (rpm nil) or read (no rpm) a provider's requests-per-minute limit, which every call to it waits for; {provider, rpm, available, waits}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "llm_rate_limit"
		name, ok := a.Str(0)
		if !ok || name == "" {
			return vm.Value{}, vm.Throwf("%s: provider must be a provider name, got %s", fn, lib.Shown(a.At(0)))
		}
		if _, ok := lookupProvider(th, name); !ok {
			return vm.Value{}, vm.Throwf("%s: unknown provider %q (known: %s)", fn, name, providerNames(customProviders(th)...))
		}
		s := regOf(th)
		if a.Has(1) {
			if a.At(1).IsNil() {
				s.mu.Lock()
				delete(s.limits, name)
				s.mu.Unlock()
			} else {
				rpm, err := rpmArg(fn, a.At(1))
				if err != nil {
					return vm.Value{}, err
				}
				s.mu.Lock()
				s.limits[name] = newBucket(th, rpm)
				s.mu.Unlock()
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.limitValue(th, name, s.limits[name]), nil
	})
	lib.Def("with_rate_limit", "with_rate_limit(name, rpm, fn)", "call fn() once the token bucket called name (rpm calls per minute, shared by every with_rate_limit of that name) has a token; fn's result", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "with_rate_limit"
		name, ok := a.Str(0)
		if !ok || name == "" {
			return vm.Value{}, vm.Throwf("%s: name must be a non-empty string, got %s", fn, lib.Shown(a.At(0)))
		}
		rpm, err := rpmArg(fn, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		f, ok := a.Callable(2)
		if !ok {
			return vm.Value{}, vm.Throwf("%s: fn must be a function of no arguments, got %s", fn, a.At(2).Type())
		}
		s := regOf(th)
		s.mu.Lock()
		b := s.general[name]
		if b == nil || b.rpm != rpm {
			nb := newBucket(th, rpm)
			if b != nil { // a new rate keeps the tokens already spent
				s.refill(b, htime.VMNow(th))
				nb.tokens = math.Min(float64(rpm), b.tokens)
			}
			b = nb
			s.general[name] = b
		}
		s.mu.Unlock()
		if _, err := s.take(th, b); err != nil {
			return vm.Value{}, err
		}
		return th.Call(f)
	})
	lib.Def("llm_qc_default_model", "llm_qc_default_model() -> string?", "the model for quick quality checks: HARN_LLM_QC_MODEL, else the small-tier catalog model of the first available provider; nil when none", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if m := env("HARN_LLM_QC_MODEL"); m != "" {
			id, _ := resolveModel(m)
			return vm.Str(id), nil
		}
		for _, p := range available(th) {
			for _, m := range models {
				if m.provider == p && m.tier == "small" {
					return vm.Str(m.id), nil
				}
			}
			if p == "mock" {
				return vm.Str("mock"), nil
			}
		}
		return vm.Nil, nil
	})
	lib.Def("llm_provider_catalog", "llm_provider_catalog() -> list<dict>", "every provider (built-in, then registered) with its models and capabilities: [{name, api, base_url, api_key_env, api_key_set, default_model, models, registered, capabilities}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var out []vm.Value
		for _, p := range providers {
			out = append(out, providerValue(th, p, false))
		}
		for _, p := range customProviders(th) {
			out = append(out, providerValue(th, p, true))
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("list_providers_native", "list_providers_native() -> list<string>", "the names of the providers built into this runtime (not those of provider_register)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		names := make([]string, len(providers))
		for i, p := range providers {
			names[i] = p.name
		}
		return vm.Of(lib.StrList(names)), nil
	})
	lib.Def("provider_register", "provider_register(name, config) -> dict", "register an OpenAI-compatible or Anthropic-compatible provider for this run: config {api?: \"openai\"|\"anthropic\", base_url, api_key_env?, models?, default_model?, capabilities?}; its catalog entry", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "provider_register"
		name, ok := a.Str(0)
		if !ok || strings.TrimSpace(name) == "" {
			return vm.Value{}, vm.Throwf("%s: name must be a non-empty string, got %s", fn, lib.Shown(a.At(0)))
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if _, native := providerByName(name); native {
			return vm.Value{}, vm.Throwf("%s: %q is a built-in provider; choose another name", fn, name)
		}
		cfg, ok := a.Dict(1)
		if !ok {
			return vm.Value{}, vm.Throwf("%s: config must be a dict {api?, base_url, api_key_env?, models?, default_model?}, got %s", fn, a.At(1).Type())
		}
		p, err := register(th, name, cfg)
		if err != nil {
			return vm.Value{}, err
		}
		var caps map[string]bool
		if v := lib.Get(cfg, "capabilities"); !v.IsNil() {
			if caps, err = readCaps(fn, v); err != nil {
				return vm.Value{}, err
			}
		}
		s := regOf(th)
		s.mu.Lock()
		s.custom = slices.DeleteFunc(s.custom, func(x provider) bool { return x.name == name })
		s.custom = append(s.custom, p)
		if caps != nil {
			s.caps[name] = caps
		}
		s.mu.Unlock()
		return providerValue(th, p, true), nil
	})
	lib.Def("provider_capabilities", "provider_capabilities(provider) -> dict", "{provider, api, chat, streaming, tools, json_mode, system_prompt, vision, installed}: what a call to the provider may use; a call using a missing capability fails before it is sent", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p, err := providerArg(th, "provider_capabilities", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return capsValue(th, p), nil
	})
	lib.Def("provider_capabilities_install", "provider_capabilities_install(provider, capabilities) -> dict", "override some capability flags of a provider for this run; the capabilities after the change", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "provider_capabilities_install"
		p, err := providerArg(th, fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		caps, err := readCaps(fn, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		s := regOf(th)
		s.mu.Lock()
		if s.caps[p.name] == nil {
			s.caps[p.name] = map[string]bool{}
		}
		for k, v := range caps {
			s.caps[p.name][k] = v
		}
		s.mu.Unlock()
		return capsValue(th, p), nil
	})
	lib.Def("provider_capabilities_clear", "provider_capabilities_clear(provider?) -> int", "drop the installed capability overrides of a provider (of every provider without an argument); how many providers had some", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s := regOf(th)
		if a.Given(0) {
			p, err := providerArg(th, "provider_capabilities_clear", a.At(0))
			if err != nil {
				return vm.Value{}, err
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			_, had := s.caps[p.name]
			delete(s.caps, p.name)
			return vm.IntOf(int64(map[bool]int{true: 1}[had])), nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		n := len(s.caps)
		s.caps = map[string]map[string]bool{}
		return lib.IntOf(n), nil
	})
}

func readCaps(fn string, v vm.Value) (map[string]bool, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Throwf("%s: capabilities must be a dict of flags {%s}, got %s", fn, strings.Join(capKeys, ", "), v.Type())
	}
	out := map[string]bool{}
	for _, k := range d.Keys() {
		if !slices.Contains(capKeys, k) {
			return nil, vm.Throwf("%s: unknown capability %q (known: %s)", fn, k, strings.Join(capKeys, ", "))
		}
		b, ok := lib.Get(d, k).AsBool()
		if !ok {
			return nil, vm.Throwf("%s: capability %s must be true or false, got %s", fn, k, lib.Display(lib.Get(d, k)))
		}
		out[k] = bool(b)
	}
	return out, nil
}

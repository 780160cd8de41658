package llm

import (
	"fmt"
	"github.com/harnlang/harn/stdlib/llm/llmmeter"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/concurrency"
	"github.com/harnlang/harn/stdlib/internal/errcat"
	"github.com/harnlang/harn/stdlib/internal/lib"
	hjson "github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/schema"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("llm_call", "llm_call(prompt, system?, options?) -> any", "ask a model: {text, model, provider, usage, tool_calls, stop_reason, message}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r, err := newRequest(th, "llm_call", a.At(0), a.At(1), a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		resp, _, err := call(th, r)
		if err != nil {
			return vm.Value{}, err
		}
		return resp.value(), nil
	})
	lib.Def("vision_ocr", "vision_ocr(image, options?)",
		"the text in an image, read by a vision model: {text, model, provider, usage}; image is bytes, a path, a URL or an image dict; options are llm_call's, plus prompt (the instruction)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if !a.Has(0) || a.At(0).IsNil() {
				return vm.Value{}, vm.Throwf("vision_ocr: missing argument 1: the image")
			}
			opts := vm.NewDict()
			if a.Has(1) && !a.At(1).IsNil() {
				d, ok := a.Dict(1)
				if !ok {
					return vm.Value{}, lib.BadOptions("vision_ocr", a.At(1))
				}
				opts = d
			}
			prompt := vm.Str(ocrInstruction)
			if p, ok := opts.Get("prompt"); ok && !p.IsNil() {
				prompt = vm.Str(vm.ToDisplay(p))
			}
			if _, ok := opts.Get("images"); ok {
				return vm.Value{}, vm.Throwf("vision_ocr: the image is the first argument, not options.images")
			}
			r, err := newRequest(th, "vision_ocr", prompt, vm.Nil, vm.Of(opts.Delete("prompt")))
			if err != nil {
				return vm.Value{}, err
			}
			img, err := readImage(th, "vision_ocr: image", a.At(0))
			if err != nil {
				return vm.Value{}, err
			}
			r.messages[len(r.messages)-1].Images = []image{img}
			resp, _, err := call(th, r)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(lib.DictOf("text", vm.Str(strings.TrimSpace(resp.Text)), "model", vm.Str(resp.Model),
				"provider", vm.Str(resp.Provider), "usage", resp.usage())), nil
		})
	lib.Def("llm_call_safe", "llm_call_safe(prompt, system?, options?) -> dict", "llm_call that never throws: {ok, response, error}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r, err := newRequest(th, "llm_call_safe", a.At(0), a.At(1), a.At(2))
		var resp *response
		if err == nil {
			resp, _, err = call(th, r)
		}
		if err != nil {
			ev, ok := errorValue(err)
			if !ok {
				return vm.Value{}, err
			}
			return vm.Of(lib.DictOf("ok", vm.False, "response", vm.Nil, "error", ev)), nil
		}
		return vm.Of(lib.DictOf("ok", vm.True, "response", resp.value(), "error", vm.Nil)), nil
	})
	lib.Def("llm_completion", "llm_completion(prompt, system?, options?) -> string", "llm_call's reply text only", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r, err := newRequest(th, "llm_completion", a.At(0), a.At(1), a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		resp, _, err := call(th, r)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(resp.Text), nil
	})
	lib.Def("llm_call_structured", "llm_call_structured(prompt, schema, options?)", "the reply parsed as JSON and validated against schema (repair attempts: options.retries, default 1)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		v, err := structured(th, "llm_call_structured", a)
		if err != nil {
			return vm.Value{}, err
		}
		return v, nil
	})
	lib.Def("llm_call_structured_result", "llm_call_structured_result(prompt, schema, options?)", "llm_call_structured as a Result: Ok(data) or Err({category, message, …})", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		v, err := structured(th, "llm_call_structured_result", a)
		if err != nil {
			ev, ok := errorValue(err)
			if !ok {
				return vm.Value{}, err
			}
			return vm.Of(vm.Err(ev)), nil
		}
		return vm.Of(vm.Ok(v)), nil
	})
	lib.Def("llm_call_structured_safe", "llm_call_structured_safe(prompt, schema, options?) -> dict", "llm_call_structured that never throws: {ok, data, error}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		v, err := structured(th, "llm_call_structured_safe", a)
		if err != nil {
			ev, ok := errorValue(err)
			if !ok {
				return vm.Value{}, err
			}
			return vm.Of(lib.DictOf("ok", vm.False, "data", vm.Nil, "error", ev)), nil
		}
		return vm.Of(lib.DictOf("ok", vm.True, "data", v, "error", vm.Nil)), nil
	})
	lib.Def("llm_stream", "llm_stream(prompt, system?, options?)", "a stream of the reply's text chunks", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r, err := newRequest(th, "llm_stream", a.At(0), a.At(1), a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		return stream(th, r)
	})

	lib.Def("llm_mock", "llm_mock(response)", "queue a canned reply: a string, a dict {text, tool_calls, usage, model, match, when, error, …}, or a list of them", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Has(0) {
			return vm.Value{}, vm.Throwf("llm_mock requires 1 argument")
		}
		return vm.Nil, stateOf(th).addMocks(a.At(0))
	})
	lib.Def("llm_mock_calls", "llm_mock_calls() -> list<dict>", "the calls the mocks answered: [{prompt, system, model, provider, messages, tools, options}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return stateOf(th).recorded(), nil
	})
	lib.Def("llm_mock_clear", "llm_mock_clear()", "remove the current scope's mocks and recorded calls (and disarm it)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		stateOf(th).clear()
		return vm.Nil, nil
	})
	lib.Def("llm_mock_push_scope", "llm_mock_push_scope()", "start an empty mock scope over the current one", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		stateOf(th).pushScope()
		return vm.Nil, nil
	})
	lib.Def("llm_mock_pop_scope", "llm_mock_pop_scope()", "drop the innermost mock scope; the outer scope's mocks and calls are back", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !stateOf(th).popScope() {
			return vm.Value{}, vm.Throwf("llm_mock_pop_scope: no mock scope to pop (llm_mock_push_scope was not called)")
		}
		return vm.Nil, nil
	})

	lib.Def("llm_usage", "llm_usage() -> dict", "this run's totals: {calls, input_tokens, output_tokens, total_tokens, cost_usd}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s := stateOf(th)
		s.mu.Lock()
		defer s.mu.Unlock()
		return vm.Of(lib.DictOf("calls", vm.IntOf(s.calls), "input_tokens", vm.IntOf(s.in), "output_tokens", vm.IntOf(s.out),
			"total_tokens", vm.IntOf(s.in+s.out), "cost_usd", vm.FloatOf(llmmeter.RoundCost(s.cost)))), nil
	})
	lib.Def("llm_session_cost", "llm_session_cost() -> float", "the estimated cost in USD of this run's calls (models with a list price)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s := stateOf(th)
		s.mu.Lock()
		defer s.mu.Unlock()
		return vm.FloatOf(llmmeter.RoundCost(s.cost)), nil
	})
	lib.Def("llm_cost", "llm_cost(model, input_tokens, output_tokens) -> float?", "the list-price cost in USD of a call, or nil for a model without a price", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		in, ok1 := a.Int(1)
		out, ok2 := a.Int(2)
		if !ok1 || !ok2 || in < 0 || out < 0 {
			return vm.Value{}, vm.Throwf("llm_cost: input_tokens and output_tokens must be non-negative ints, got %s and %s", lib.Display(a.At(1)), lib.Display(a.At(2)))
		}
		c, ok := modelCost(a.Text(0), in, out)
		if !ok {
			return vm.Nil, nil
		}
		return vm.FloatOf(c), nil
	})
	lib.Def("llm_config", "llm_config(options?) -> dict", "the provider, model and endpoint a call with options would use (never the key)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var prov, mdl string
		if d, ok := a.Dict(0); ok {
			if v, ok := d.Get("provider"); ok && !v.IsNil() {
				prov = strings.ToLower(vm.ToDisplay(v))
			}
			if v, ok := d.Get("model"); ok && !v.IsNil() {
				mdl = vm.ToDisplay(v)
			}
		} else if a.Given(0) && !a.At(0).IsNil() {
			return vm.Value{}, lib.BadOptions("llm_config", a.At(0))
		}
		return configValue(th, prov, mdl)
	})
	lib.Def("llm_info", "llm_info() -> dict", "the default configuration, the mock state and this run's usage", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		cfg, err := configValue(th, "", "")
		configErr := vm.Nil
		if err != nil {
			// a bad HARN_LLM_PROVIDER: reported, not thrown
			configErr = vm.Str(vm.ToDisplay(vm.AsError(err).Caught()))
			cfg = vm.Of(lib.DictOf("provider", vm.Nil, "model", vm.Nil, "base_url", vm.Nil, "api_key_env", vm.Nil, "api_key_set", vm.False,
				"mock", vm.BoolOf(stateOf(th).armed())))
		}
		s := stateOf(th)
		queue, patterns := s.queued()
		armed := s.armed()
		s.mu.Lock()
		calls := s.calls
		s.mu.Unlock()
		cd, _ := cfg.AsDict()
		return vm.Of(cd.Merge(lib.DictOf("mock_armed", vm.BoolOf(armed), "mock_queued", lib.IntOf(queue),
			"mock_patterns", lib.IntOf(patterns), "calls", vm.IntOf(calls), "config_error", configErr))), nil
	})
	lib.Def("llm_providers", "llm_providers() -> list<dict>", "the known providers, built-in then registered: [{name, api, base_url, api_key_env, api_key_set, default_model}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		all := allProviders(th)
		out := make([]vm.Value, len(all))
		for i, p := range all {
			base := env(p.baseEnv)
			if base == "" {
				base = p.defBase
			}
			out[i] = vm.Of(lib.DictOf("name", vm.Str(p.name), "api", vm.Str(p.api), "base_url", strOrNil(base),
				"api_key_env", strOrNil(p.keyEnv), "api_key_set", vm.BoolOf(env(p.keyEnv) != ""),
				"default_model", vm.Str(p.defModel)))
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("llm_infer_provider", "llm_infer_provider(model) -> string?", "the provider that serves a model id or alias (a registered provider's models included), or nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if p, ok := customModel(customProviders(th), a.Text(0)); ok {
			return vm.Str(p), nil
		}
		_, p := resolveModel(a.Text(0))
		return strOrNil(p), nil
	})
	lib.Def("llm_resolve_model", "llm_resolve_model(name) -> dict", "{id, provider} of a model alias (sonnet, haiku, gpt-4o-mini, …) or id", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name, ok := a.Str(0)
		if !ok || strings.TrimSpace(name) == "" {
			return vm.Value{}, vm.Throwf("llm_resolve_model: expected a model name, got %s", lib.Shown(a.At(0)))
		}
		if p, ok := customModel(customProviders(th), name); ok {
			return vm.Of(lib.DictOf("id", vm.Str(name), "provider", vm.Str(p))), nil
		}
		id, p := resolveModel(name)
		return vm.Of(lib.DictOf("id", vm.Str(id), "provider", strOrNil(p))), nil
	})
	lib.Def("estimate_tokens", "estimate_tokens(text) -> int", "estimated tokens of a text (or of a list of messages): one per 4 characters, rounded up", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.IntOf(tokensOf(a.At(0))), nil
	})
}

func strOrNil(s string) vm.Value {
	if s == "" {
		return vm.Nil
	}
	return vm.Str(s)
}

// tokensOf estimates a text, a message dict (its content) or a list of
// either.
func tokensOf(v vm.Value) int64 {
	if v.IsNil() {
		return 0
	}
	switch x := v.Object().(type) {
	case *vm.List:
		var n int64
		for _, it := range x.Items() {
			n += tokensOf(it)
		}
		return n
	case *vm.Dict:
		if c, ok := x.Get("content"); ok {
			return tokensOf(c)
		}
		return estimateTokens(hjson.Stringify(v))
	}
	return estimateTokens(vm.ToDisplay(v))
}

// configValue is llm_config's dict.
func configValue(th *vm.Thread, prov, mdl string) (vm.Value, error) {
	c, ok, err := resolve("llm_config", prov, mdl, customProviders(th)...)
	if err != nil {
		return vm.Value{}, err
	}
	armed := stateOf(th).armed()
	if !ok {
		return vm.Of(lib.DictOf("provider", vm.Nil, "model", vm.Nil, "base_url", vm.Nil, "api_key_env", vm.Nil,
			"api_key_set", vm.False, "mock", vm.BoolOf(armed))), nil
	}
	return vm.Of(lib.DictOf("provider", vm.Str(c.provider.name), "model", vm.Str(c.model), "base_url", strOrNil(c.baseURL),
		"api_key_env", strOrNil(c.provider.keyEnv), "api_key_set", vm.BoolOf(c.apiKey != ""),
		"mock", vm.BoolOf(armed || c.provider.api == "mock"))), nil
}

// call answers r from the mocks (an armed scope, or provider "mock") or
// from the configured provider, and counts the usage.
func call(th *vm.Thread, r *request) (*response, []string, error) {
	st := stateOf(th)
	if err := st.checkBudget(r.fn); err != nil {
		return nil, nil, err
	}
	m := meterOf(th)
	if m != nil {
		if err := m.Err(); err != nil {
			return nil, nil, err
		}
	}
	st.inFlight.Add(1)
	defer st.inFlight.Add(-1)
	if err := admit(th, r); err != nil {
		return nil, nil, err
	}
	var resp *response
	var chunks []string
	var err error
	if st.armed() || r.provider == "mock" {
		resp, chunks, err = st.mockAnswer(th, r)
	} else {
		var c config
		c, err = configFor(r)
		if err == nil {
			if c.provider.api == "mock" {
				resp, chunks, err = st.mockAnswer(th, r)
			} else {
				resp, err = c.send(th, r)
			}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	st.addUsage(resp)
	if m != nil {
		if err := meterAdd(m, r.fn, resp); err != nil {
			return nil, nil, err
		}
	}
	return resp, chunks, nil
}

// errorValue is the error dict a safe variant reports for err: a thrown
// dict as it is, a thrown string or a runtime error as {category,
// message}. ok is false for failures no catch sees (exit, cancellation).
func errorValue(err error) (vm.Value, bool) {
	e, ok := err.(*vm.Error)
	if !ok {
		return vm.Of(lib.DictOf("category", vm.Str("generic"), "message", vm.Str(err.Error()))), true
	}
	switch e.Kind {
	case vm.KindExit, vm.KindCancelled:
		return vm.Value{}, false
	}
	v := e.Caught()
	if d, ok := v.AsDict(); ok {
		if d.Has("category") && d.Has("message") {
			return v, true
		}
	}
	msg := vm.ToDisplay(v)
	return vm.Of(lib.DictOf("category", vm.Str(errcat.OfText(msg)), "message", vm.Str(msg))), true
}

// structured runs llm_call_structured(prompt, schema, options?): the
// schema is described in the system prompt, the reply parsed as JSON
// (code fences and surrounding prose tolerated) and validated; an invalid
// reply is sent back with the violations for another attempt, up to
// options.retries (default 1) more times.
func structured(th *vm.Thread, fn string, a vm.Args) (vm.Value, error) {
	sch := a.At(1)
	if _, ok := sch.AsDict(); !ok {
		return vm.Value{}, vm.Throwf("%s: schema must be a schema dict or a type alias, got %s", fn, sch.Type())
	}
	checked, err := schema.Check(th, fn, sch)
	if err != nil {
		return vm.Value{}, err // before a call that could never be validated
	}
	r, err := newRequest(th, fn, a.At(0), vm.Nil, a.At(2))
	if err != nil {
		return vm.Value{}, err
	}
	if t, ok := sch.AsDict(); ok {
		if typ, ok := t.Get("type"); ok && vm.ToDisplay(typ) == "object" {
			r.jsonMode = true // OpenAI-compatible providers: response_format json_object
		}
	}
	retries := int64(1)
	if v, ok := r.options.Get("retries"); ok && !v.IsNil() {
		retries = r.retries
	}
	r.system = withSchemaInstruction(r.system, sch)
	var last string
	var errs []string
	for attempt := int64(0); attempt <= retries; attempt++ {
		if attempt > 0 {
			fix := "Your reply did not match the schema: " + strings.Join(errs, "; ") + ". Reply again with only the corrected JSON."
			r.messages = append(r.messages, message{Role: "assistant", Content: last}, message{Role: "user", Content: fix})
			r.prompt = fix
		}
		resp, _, err := call(th, r)
		if err != nil {
			return vm.Value{}, err
		}
		last = resp.Text
		v, perr := extractJSON(resp.Text)
		if perr != nil {
			errs = []string{"the reply is not JSON (" + perr.Error() + ")"}
			continue
		}
		if errs = checked.Validate(th, v); len(errs) == 0 {
			return v, nil
		}
	}
	n := retries + 1
	plural := "s"
	if n == 1 {
		plural = ""
	}
	d := lib.DictOf("category", vm.Str("schema_validation"),
		"message", vm.Str(fmt.Sprintf("%s: the reply did not match the schema after %d attempt%s: %s", fn, n, plural, strings.Join(errs, "; "))),
		"errors", lib.StrList(errs), "raw", vm.Str(last))
	return vm.Value{}, vm.Throw(vm.Of(d))
}

// withSchemaInstruction appends to a system prompt the instruction to
// reply with JSON matching sch.
func withSchemaInstruction(system string, sch vm.Value) string {
	instr := "Reply with only a JSON value (no prose, no code fence) that matches this JSON Schema:\n" + hjson.Stringify(sch)
	if system != "" {
		return system + "\n\n" + instr
	}
	return instr
}

// extractJSON reads the JSON value of a reply: the whole text, else the
// inside of a ``` fence, else the span from the first { or [ to the last
// } or ].
func extractJSON(text string) (vm.Value, error) {
	t := strings.TrimSpace(text)
	v, err := hjson.Parse(t)
	if err == nil {
		return v, nil
	}
	if i := strings.Index(t, "```"); i >= 0 {
		rest := t[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			if v, e := hjson.Parse(strings.TrimSpace(rest[:j])); e == nil {
				return v, nil
			}
		}
	}
	start := strings.IndexAny(t, "{[")
	if start >= 0 {
		end := strings.LastIndexAny(t, "}]")
		if end > start {
			if v, e := hjson.Parse(t[start : end+1]); e == nil {
				return v, nil
			}
		}
	}
	return vm.Value{}, err
}

// stream runs llm_stream: mocks stream their chunks (or the text split
// after each space), providers stream over server-sent events. The usage
// is counted when the stream ends.
func stream(th *vm.Thread, r *request) (vm.Value, error) {
	st := stateOf(th)
	if err := st.checkBudget(r.fn); err != nil {
		return vm.Value{}, err
	}
	m := meterOf(th)
	if m != nil {
		if err := m.Err(); err != nil {
			return vm.Value{}, err
		}
	}
	if err := admitStream(th, r); err != nil {
		return vm.Value{}, err
	}
	if st.armed() || r.provider == "mock" {
		return mockStream(th, r)
	}
	c, err := configFor(r)
	if err != nil {
		return vm.Value{}, err
	}
	if c.provider.api == "mock" {
		return mockStream(th, r)
	}
	// A provider stream is in flight until it ends or fails.
	st.inFlight.Add(1)
	var once sync.Once
	settle := func() { once.Do(func() { st.inFlight.Add(-1) }) }
	if err := admit(th, r); err != nil {
		settle()
		return vm.Value{}, err
	}
	s, err := c.open(th, r)
	if err != nil {
		settle()
		return vm.Value{}, err
	}
	return concurrency.NewStream(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
		delta, ok, err := s.next(th)
		if err != nil {
			settle()
			return vm.Value{}, false, err
		}
		if !ok {
			settle()
			resp, err := s.final()
			if err != nil {
				return vm.Value{}, false, err
			}
			st.addUsage(resp)
			if m != nil {
				if err := meterAdd(m, r.fn, resp); err != nil {
					return vm.Value{}, false, err
				}
			}
			return vm.Value{}, false, nil
		}
		return vm.Str(delta), true, nil
	}), nil
}

func mockStream(th *vm.Thread, r *request) (vm.Value, error) {
	resp, chunks, err := call(th, r)
	if err != nil {
		return vm.Value{}, err
	}
	if chunks == nil {
		chunks = splitChunks(resp.Text)
	}
	i := 0
	return concurrency.NewStream(th.VM(), func(th *vm.Thread) (vm.Value, bool, error) {
		if i >= len(chunks) {
			return vm.Value{}, false, nil
		}
		i++
		return vm.Str(chunks[i-1]), true, nil
	}), nil
}

// splitChunks splits text after each run of spaces: "a b  c" → "a ", "b  ", "c".
func splitChunks(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' && (i+1 == len(text) || text[i+1] != ' ') {
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// checkBudget refuses a call once the run's cost has reached the budget
// llm_budget set: {category: "budget_exceeded", …}.
func (s *state) checkBudget(fn string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.budget < 0 || s.cost < s.budget {
		return nil
	}
	return callError("budget_exceeded", fmt.Sprintf("%s: the LLM budget of %s USD is spent (%s USD used)", fn,
		vm.FormatFloat(llmmeter.RoundCost(s.budget)), vm.FormatFloat(llmmeter.RoundCost(s.cost))), "", 0)
}

// budgetValue is llm_budget's status dict.
func (s *state) budgetValue() vm.Value {
	s.mu.Lock()
	defer s.mu.Unlock()
	limit, remaining := vm.Nil, vm.Nil
	if s.budget >= 0 {
		limit = vm.FloatOf(llmmeter.RoundCost(s.budget))
		remaining = vm.FloatOf(llmmeter.RoundCost(max(s.budget-s.cost, 0)))
	}
	return vm.Of(lib.DictOf("limit_usd", limit, "spent_usd", vm.FloatOf(llmmeter.RoundCost(s.cost)), "remaining_usd", remaining))
}

func init() {
	lib.Def("llm_budget", "llm_budget(usd?) -> dict", "set (a number), clear (nil) or read the run's LLM budget: {limit_usd, spent_usd, remaining_usd}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s := stateOf(th)
		if a.Has(0) {
			limit := float64(-1)
			if !a.At(0).IsNil() {
				f, ok := lib.ToFloat(a.At(0))
				if !ok || f < 0 {
					return vm.Value{}, vm.Throwf("llm_budget: expected a non-negative number of USD or nil, got %s", lib.Shown(a.At(0)))
				}
				limit = f
			}
			s.mu.Lock()
			s.budget = limit
			s.mu.Unlock()
		}
		return s.budgetValue(), nil
	})
	lib.Def("llm_budget_remaining", "llm_budget_remaining() -> float?", "USD left of the budget llm_budget set, or nil when none is set", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		v, _ := stateOf(th).budgetValue().AsDict()
		r, _ := v.Get("remaining_usd")
		return r, nil
	})
}

// ocrInstruction is what vision_ocr asks the model, unless options.prompt
// says otherwise.
const ocrInstruction = "Transcribe all of the text in this image exactly as it appears, keeping its line breaks. " +
	"Reply with the text only, without commentary; reply with nothing if the image has no text."

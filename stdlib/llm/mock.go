package llm

// The llm_mock test doubles. Mocks live in scopes: llm_mock_push_scope
// starts an empty one over the current, llm_mock_pop_scope drops it and
// the outer scope's mocks and recorded calls are back. Once llm_mock has
// been called in a scope the scope is armed: every call is answered from
// its mocks (whatever provider the options name) and a call no mock
// answers fails instead of reaching the network, until llm_mock_clear.

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/harnlang/harn/stdlib/internal/errcat"
	"github.com/harnlang/harn/stdlib/internal/lib"
	hjson "github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/vm"
)

// mockResp is one canned response.
type mockResp struct {
	text       string
	toolCalls  []toolCall
	in, out    int64 // -1: estimate
	model      string
	provider   string
	stopReason string
	thinking   string
	chunks     []string // llm_stream's pieces; nil: split text
	match      *regexp.Regexp
	pattern    string
	when       vm.Value // predicate over the request dict, or invalid
	errV       vm.Value // thrown instead of answering, or invalid
	consume    bool     // a pattern mock that answers once
	used       bool
}

func (m *mockResp) isPattern() bool { return m.match != nil || m.when.IsValid() }

type mockScope struct {
	armed    bool
	patterns []*mockResp
	queue    []*mockResp
	calls    []vm.Value
}

// state is the LLM state of one VM: mock scopes, usage totals, the
// numbering of generated tool call ids and the calls in flight.
type state struct {
	// inFlight counts the calls begun and not yet answered, waiting for
	// an llm_rate_limit token included (std/lifecycle.unsettled_state).
	inFlight atomic.Int64
	mu       sync.Mutex
	scopes   []*mockScope
	calls    int64
	in       int64
	out      int64
	cost     float64
	nextID   int64
	budget   float64 // USD; < 0: none
}

type stateKey struct{}

func stateOf(th *vm.Thread) *state { return stateOfVM(th.VM()) }

func stateOfVM(v *vm.VM) *state {
	return v.Local(stateKey{}, func() any { return &state{scopes: []*mockScope{{}}, budget: -1} }).(*state)
}

// The calls in flight are std/lifecycle's in_flight count.
func init() {
	process.AddUnsettledSource(func(v *vm.VM, u *process.Unsettled) {
		u.InFlight += stateOfVM(v).inFlight.Load()
	})
}

func (s *state) top() *mockScope { return s.scopes[len(s.scopes)-1] }

func (s *state) newCallID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return fmt.Sprintf("call_%d", s.nextID)
}

// readMock reads llm_mock's argument: a string (the text) or a dict.
func readMock(v vm.Value) (*mockResp, error) {
	m := &mockResp{in: -1, out: -1}
	if s, ok := v.AsString(); ok {
		m.text = s.Go()
		return m, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Throwf("llm_mock: expected a response string or a dict {text, tool_calls, usage, match, error, …}, got %s", v.Type())
	}
	for _, k := range d.Keys() {
		if !knownMockKey(k) {
			return nil, vm.Throwf("llm_mock: unknown key %q%s (known: %s)", k, lib.DidYouMean(k, mockKeys), strings.Join(mockKeys, ", "))
		}
	}
	get := func(k string) (vm.Value, bool) {
		x, ok := d.Get(k)
		if !ok || x.IsNil() {
			return vm.Value{}, false
		}
		return x, true
	}
	if x, ok := get("text"); ok {
		m.text = ContentText(x)
	} else if x, ok := get("data"); ok {
		// a structured reply: its JSON text
		m.text = hjson.Stringify(x)
	}
	if x, ok := get("tool_calls"); ok {
		if l, isList := x.AsList(); isList {
			for i, it := range l.Items() {
				if cd, isDict := it.AsDict(); isDict {
					if err := lib.CheckKeys(fmt.Sprintf("llm_mock: tool_calls[%d]", i), cd, ToolCallKeys); err != nil {
						return nil, err
					}
				}
			}
		}
		calls, err := readToolCalls("llm_mock: tool_calls", x, true)
		if err != nil {
			return nil, err
		}
		m.toolCalls = calls
	}
	tokens := func(where string, x vm.Value) (int64, error) {
		n, ok := x.AsInt()
		if !ok || n < 0 {
			return 0, vm.Throwf("llm_mock: %s must be a non-negative int, got %s", where, lib.Shown(x))
		}
		return int64(n), nil
	}
	if u, ok := get("usage"); ok {
		ud, ok := u.AsDict()
		if !ok {
			return nil, vm.Throwf("llm_mock: usage must be a dict {input_tokens, output_tokens}, got %s", u.Type())
		}
		for _, k := range []string{"input_tokens", "output_tokens"} {
			if x, ok := ud.Get(k); ok && !x.IsNil() {
				n, err := tokens("usage."+k, x)
				if err != nil {
					return nil, err
				}
				if k == "input_tokens" {
					m.in = n
				} else {
					m.out = n
				}
			}
		}
	}
	for _, k := range []string{"input_tokens", "output_tokens"} {
		if x, ok := get(k); ok {
			n, err := tokens(k, x)
			if err != nil {
				return nil, err
			}
			if k == "input_tokens" {
				m.in = n
			} else {
				m.out = n
			}
		}
	}
	if x, ok := get("model"); ok {
		m.model = vm.ToDisplay(x)
	}
	if x, ok := get("provider"); ok {
		m.provider = vm.ToDisplay(x)
	}
	if x, ok := get("stop_reason"); ok {
		m.stopReason = vm.ToDisplay(x)
	}
	if x, ok := get("thinking"); ok {
		s, ok := x.AsString()
		if !ok {
			return nil, vm.Throwf("llm_mock: thinking must be a string, got %s", x.Type())
		}
		m.thinking = s.Go()
	}
	if x, ok := get("chunks"); ok {
		l, ok := x.AsList()
		if !ok {
			return nil, vm.Throwf("llm_mock: chunks must be a list of strings, got %s", x.Type())
		}
		m.chunks = []string{}
		for _, it := range l.Items() {
			m.chunks = append(m.chunks, vm.ToDisplay(it))
		}
		if _, ok := get("text"); !ok {
			m.text = strings.Join(m.chunks, "")
		}
	}
	if x, ok := get("match"); ok {
		s, ok := x.AsString()
		if !ok {
			return nil, vm.Throwf("llm_mock: match must be a glob string, got %s", x.Type())
		}
		m.pattern = s.Go()
		m.match = globRE(m.pattern)
	}
	if x, ok := get("when"); ok {
		if !vm.IsCallable(x) {
			return nil, vm.Throwf("llm_mock: when must be a function of the request, got %s", x.Type())
		}
		m.when = x
	}
	if x, ok := get("error"); ok {
		switch x.Object().(type) {
		case vm.String, *vm.Dict:
		default:
			return nil, vm.Throwf("llm_mock: error must be a message string or a dict {category, message}, got %s", x.Type())
		}
		m.errV = x
	}
	if x, ok := get("consume_match"); ok {
		m.consume = x.Truth()
	}
	return m, nil
}

var mockKeys = []string{"text", "data", "tool_calls", "usage", "input_tokens", "output_tokens", "model", "provider",
	"stop_reason", "thinking", "chunks", "match", "when", "error", "consume_match"}

func knownMockKey(k string) bool {
	for _, x := range mockKeys {
		if x == k {
			return true
		}
	}
	return false
}

// globRE compiles a match pattern: `*` is any run of characters (line
// breaks included); everything else matches itself; the whole prompt must
// match.
func globRE(p string) *regexp.Regexp {
	parts := strings.Split(p, "*")
	for i, s := range parts {
		parts[i] = regexp.QuoteMeta(s)
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(parts, ".*") + `\z`)
}

// addMocks queues v (one response, or a list of them) in the current scope.
func (s *state) addMocks(v vm.Value) error {
	var items []vm.Value
	if l, ok := v.AsList(); ok {
		items = l.Items()
	} else {
		items = []vm.Value{v}
	}
	var ms []*mockResp
	for _, it := range items {
		m, err := readMock(it)
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.top()
	sc.armed = true
	for _, m := range ms {
		if m.isPattern() {
			sc.patterns = append(sc.patterns, m)
		} else {
			sc.queue = append(sc.queue, m)
		}
	}
	return nil
}

// armed reports whether the current scope answers calls from its mocks.
func (s *state) armed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.top().armed
}

// requestValue is the request as llm_mock_calls records it and a `when`
// predicate sees it.
func (r *request) value() vm.Value {
	opt := func(s string) vm.Value {
		if s == "" {
			return vm.Nil
		}
		return vm.Str(s)
	}
	tools := vm.Nil
	if r.toolValue.IsValid() {
		names := make([]string, len(r.tools))
		for i, t := range r.tools {
			names[i] = t.Name
		}
		tools = vm.Of(lib.StrList(names))
	}
	return vm.Of(lib.DictOf(
		"prompt", vm.Str(r.prompt),
		"system", opt(r.system),
		"model", opt(r.model),
		"provider", opt(r.provider),
		"messages", messagesValue(r.messages),
		"tools", tools,
		"options", r.options,
	))
}

// mockAnswer answers r from the current scope: the first pattern mock
// whose match and when accept the request, else the next queued response.
func (s *state) mockAnswer(th *vm.Thread, r *request) (*response, []string, error) {
	s.mu.Lock()
	sc := s.top()
	candidates := make([]*mockResp, 0, len(sc.patterns))
	for _, m := range sc.patterns {
		if !m.used && (m.match == nil || m.match.MatchString(r.prompt)) {
			candidates = append(candidates, m)
		}
	}
	s.mu.Unlock()
	reqV := r.value()
	var found *mockResp
	for _, m := range candidates {
		if m.when.IsValid() {
			ok, err := lib.Truth(th, m.when, reqV)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				continue
			}
		}
		found = m
		break
	}
	s.mu.Lock()
	if found != nil && found.consume {
		found.used = true
	}
	if found == nil && len(sc.queue) > 0 {
		found = sc.queue[0]
		sc.queue = sc.queue[1:]
	}
	if found != nil {
		sc.calls = append(sc.calls, reqV)
	}
	s.mu.Unlock()
	if found == nil {
		return nil, nil, vm.Throwf("%s: no llm_mock response left for prompt %s (queue another with llm_mock, or add one with a match pattern)", r.fn, quoteShort(r.prompt))
	}
	if found.errV.IsValid() {
		return nil, nil, mockError(r, found)
	}
	resp := &response{Text: found.text, Model: found.model, Provider: found.provider, StopReason: found.stopReason,
		InTokens: found.in, OutTokens: found.out, Thinking: found.thinking}
	taken := map[string]bool{}
	for _, c := range found.toolCalls {
		taken[c.ID] = true
	}
	for _, c := range found.toolCalls {
		for c.ID == "" {
			// a generated id never repeats one the response gives
			if id := s.newCallID(); !taken[id] {
				c.ID = id
				taken[id] = true
			}
		}
		resp.ToolCalls = append(resp.ToolCalls, c)
	}
	if resp.Model == "" {
		resp.Model, _ = resolveModel(r.model)
		if resp.Model == "" {
			resp.Model = "mock"
		}
	}
	if resp.Provider == "" {
		resp.Provider = "mock"
		if r.explicit {
			resp.Provider = r.provider
		}
	}
	if resp.StopReason == "" {
		resp.StopReason = "end_turn"
		if len(resp.ToolCalls) > 0 {
			resp.StopReason = "tool_use"
		}
	}
	if resp.InTokens < 0 {
		resp.InTokens = r.estimateInput()
	}
	if resp.OutTokens < 0 {
		resp.OutTokens = estimateTokens(resp.Text)
	}
	return resp, found.chunks, nil
}

// estimateInput is the estimated input tokens of r (system and every
// message's content).
func (r *request) estimateInput() int64 {
	n := estimateTokens(r.system)
	for _, m := range r.messages {
		n += estimateTokens(m.Content)
	}
	return n
}

// mockError is the failure a mock with `error` raises: the dict
// {category, message, provider} that provider failures throw.
func mockError(r *request, m *mockResp) error {
	provider := m.provider
	if provider == "" {
		provider = "mock"
	}
	if s, ok := m.errV.AsString(); ok {
		return callError(errcat.OfText(s.Go()), s.Go(), provider, 0)
	}
	d, _ := m.errV.AsDict()
	msg, cat, status := "", "", int64(0)
	if x, ok := d.Get("message"); ok && !x.IsNil() {
		msg = vm.ToDisplay(x)
	}
	if x, ok := d.Get("status"); ok {
		if n, ok := x.AsInt(); ok {
			status = int64(n)
		}
	}
	if x, ok := d.Get("category"); ok && !x.IsNil() {
		cat = vm.ToDisplay(x)
	} else if status != 0 {
		cat = errcat.OfStatus(int(status))
	} else {
		cat = errcat.OfText(msg)
	}
	if msg == "" {
		msg = fmt.Sprintf("%s: mocked %s error", r.fn, cat)
	}
	return callError(cat, msg, provider, status)
}

// callError is the dict a failed call throws: {category, message,
// provider, status?}; error_category reads its category.
func callError(category, msg, provider string, status int64) error {
	d := lib.DictOf("category", vm.Str(category), "message", vm.Str(msg))
	if provider != "" {
		d = d.Set("provider", vm.Str(provider))
	}
	if status != 0 {
		d = d.Set("status", vm.IntOf(status))
	}
	return vm.Throw(vm.Of(d))
}

// quoteShort quotes a prompt for a message, cut at 60 characters.
func quoteShort(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return fmt.Sprintf("%q", s)
}

func (s *state) pushScope() {
	s.mu.Lock()
	s.scopes = append(s.scopes, &mockScope{})
	s.mu.Unlock()
}

func (s *state) popScope() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.scopes) == 1 {
		return false
	}
	s.scopes = s.scopes[:len(s.scopes)-1]
	return true
}

func (s *state) clear() {
	s.mu.Lock()
	*s.top() = mockScope{}
	s.mu.Unlock()
}

func (s *state) recorded() vm.Value {
	s.mu.Lock()
	defer s.mu.Unlock()
	return vm.Of(vm.NewList(append([]vm.Value(nil), s.top().calls...)))
}

func (s *state) queued() (queue, patterns int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.top()
	for _, m := range sc.patterns {
		if !m.used {
			patterns++
		}
	}
	return len(sc.queue), patterns
}

func (s *state) addUsage(r *response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.in += r.InTokens
	s.out += r.OutTokens
	if c, ok := modelCost(r.Model, r.InTokens, r.OutTokens); ok {
		s.cost += c
	}
}

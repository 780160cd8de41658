package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/internal/errcat"
	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// provider describes one provider: its wire API, where it is and which
// environment variables configure it.
type provider struct {
	name     string
	api      string // "openai" (chat completions), "anthropic" (messages) or "mock"
	baseEnv  string // overrides the base URL
	defBase  string
	keyEnv   string // "" when no key is needed
	defModel string
	models   []string // provider_register: the model ids it serves
}

var providers = []provider{
	{name: "anthropic", api: "anthropic", baseEnv: "ANTHROPIC_BASE_URL", defBase: "https://api.anthropic.com", keyEnv: "ANTHROPIC_API_KEY", defModel: "claude-sonnet-4-5"},
	{name: "mock", api: "mock", defModel: "mock"},
	{name: "ollama", api: "openai", baseEnv: "OLLAMA_BASE_URL", defBase: "http://localhost:11434/v1", defModel: "llama3.2"},
	{name: "openai", api: "openai", baseEnv: "OPENAI_BASE_URL", defBase: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY", defModel: "gpt-4o-mini"},
	{name: "openrouter", api: "openai", baseEnv: "OPENROUTER_BASE_URL", defBase: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY", defModel: "openai/gpt-4o-mini"},
}

func providerByName(name string) (provider, bool) {
	for _, p := range providers {
		if p.name == name {
			return p, true
		}
	}
	return provider{}, false
}

func providerNames(custom ...provider) string {
	names := make([]string, 0, len(providers)+len(custom))
	for _, p := range providers {
		names = append(names, p.name)
	}
	for _, p := range custom {
		names = append(names, p.name)
	}
	return strings.Join(names, ", ")
}

// lookupEnv reads the environment (a variable for the tests).
var lookupEnv = os.LookupEnv

func env(name string) string {
	if name == "" {
		return ""
	}
	v, _ := lookupEnv(name)
	return strings.TrimSpace(v)
}

// config is a resolved call configuration.
type config struct {
	provider provider
	model    string
	baseURL  string
	apiKey   string
}

// noProviderText is the part of noProvider's message IsNoProvider knows
// it by.
const noProviderText = ": no LLM provider is configured: "

// noProvider is the failure of a call with nothing configured.
func noProvider(fn string) error {
	return vm.Throwf("%s"+noProviderText+"set ANTHROPIC_API_KEY or OPENAI_API_KEY "+
		"(or HARN_LLM_PROVIDER, e.g. ollama), pass {provider: …, model: …} in the options, "+
		"or queue a response with llm_mock(…) in tests", fn)
}

// resolve picks the provider and model of r: options.provider, else the
// provider of options.model, else HARN_LLM_PROVIDER, else the provider of
// HARN_LLM_MODEL, else the first of ANTHROPIC_API_KEY, OPENAI_API_KEY,
// OPENROUTER_API_KEY that is set. ok is false when nothing is configured.
func resolve(fn string, providerName, modelName string, custom ...provider) (config, bool, error) {
	var c config
	name := providerName
	explicit := strings.TrimSpace(modelName)
	envModel := env("HARN_LLM_MODEL")
	var id, inferred, envID, envInferred string
	if explicit != "" {
		id, inferred = resolveModel(explicit)
		if cp, ok := customModel(custom, explicit); ok {
			id, inferred = explicit, cp
		}
	}
	if envModel != "" {
		envID, envInferred = resolveModel(envModel)
	}
	if name == "" {
		name = inferred
	}
	if name == "" {
		name = strings.ToLower(env("HARN_LLM_PROVIDER"))
	}
	if name == "" {
		name = envInferred
	}
	if name == "" {
		for _, p := range providers {
			if p.keyEnv != "" && env(p.keyEnv) != "" {
				name = p.name
				break
			}
		}
	}
	if name == "" {
		return c, false, nil
	}
	p, ok := customByName(custom, name)
	if !ok {
		p, ok = providerByName(name)
	}
	if !ok {
		return c, false, vm.Throwf("%s: unknown provider %q (known: %s)", fn, name, providerNames(custom...))
	}
	c.provider = p
	// OpenRouter names models "vendor/model": they are sent as written.
	switch {
	case explicit != "" && p.name == "openrouter":
		c.model = explicit
	case explicit != "":
		c.model = id
	case envModel != "" && p.name == "openrouter":
		c.model = envModel
	case envModel != "" && (envInferred == "" || envInferred == p.name):
		// HARN_LLM_MODEL names a model of another provider: not sent to this one
		c.model = envID
	default:
		c.model = p.defModel
	}
	c.baseURL = env(p.baseEnv)
	if c.baseURL == "" {
		c.baseURL = p.defBase
	}
	c.baseURL = strings.TrimRight(c.baseURL, "/")
	c.apiKey = env(p.keyEnv)
	return c, true, nil
}

// configFor resolves the configuration of r, with its base_url and
// api_key options applied.
func configFor(r *request) (config, error) {
	c, ok, err := resolve(r.fn, r.provider, r.model, r.custom...)
	if err != nil {
		return c, err
	}
	if !ok {
		return c, noProvider(r.fn)
	}
	if r.baseURL != "" {
		c.baseURL = strings.TrimRight(r.baseURL, "/")
	}
	if r.apiKey != "" {
		c.apiKey = r.apiKey
	}
	return c, nil
}

// ---- the wire formats ----

// body builds the JSON request body of r for c's API.
func (c config) body(r *request, stream bool) map[string]any {
	b := map[string]any{"model": c.model}
	if stream {
		b["stream"] = true
	}
	if r.temp != nil {
		b["temperature"] = *r.temp
	}
	if r.topP != nil {
		b["top_p"] = *r.topP
	}
	if c.provider.api == "anthropic" {
		if r.topK != nil {
			b["top_k"] = *r.topK
		}
		maxTokens := r.maxTokens
		if maxTokens == 0 {
			maxTokens = 4096 // the messages API requires it
		}
		b["max_tokens"] = maxTokens
		if r.system != "" {
			b["system"] = r.system
		}
		if len(r.stop) > 0 {
			b["stop_sequences"] = r.stop
		}
		b["messages"] = anthropicMessages(r.messages)
		if len(r.tools) > 0 {
			tools := make([]any, len(r.tools))
			for i, t := range r.tools {
				tools[i] = map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Schema}
			}
			b["tools"] = tools
		}
		if r.choice != nil {
			choice := r.choice
			if s, ok := choice.(string); ok {
				switch s {
				case "auto", "none", "any":
					choice = map[string]any{"type": s}
				case "required":
					choice = map[string]any{"type": "any"}
				default:
					choice = map[string]any{"type": "tool", "name": s}
				}
			}
			b["tool_choice"] = choice
		}
		return b
	}
	if r.maxTokens > 0 {
		if c.provider.name == "openai" && reasoningModel(c.model) {
			// OpenAI's reasoning models take only max_completion_tokens
			b["max_completion_tokens"] = r.maxTokens
		} else {
			b["max_tokens"] = r.maxTokens
		}
	}
	if len(r.stop) > 0 {
		b["stop"] = r.stop
	}
	if r.seed != nil {
		b["seed"] = *r.seed
	}
	if r.freqPen != nil {
		b["frequency_penalty"] = *r.freqPen
	}
	if r.presPen != nil {
		b["presence_penalty"] = *r.presPen
	}
	var msgs []any
	if r.system != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": r.system})
	}
	for _, m := range r.messages {
		om := map[string]any{"role": m.Role, "content": m.Content}
		if len(m.Images) > 0 {
			om["content"] = openAIContent(m.Content, m.Images)
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]any, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				calls[i] = map[string]any{"id": tc.ID, "type": "function",
					"function": map[string]any{"name": tc.Name, "arguments": argumentsText(tc.Args)}}
			}
			om["tool_calls"] = calls
			if m.Content == "" {
				om["content"] = nil
			}
		}
		if m.ToolCallID != "" {
			om["tool_call_id"] = m.ToolCallID
		}
		if m.Name != "" && m.Role != "tool" {
			om["name"] = m.Name
		}
		msgs = append(msgs, om)
	}
	b["messages"] = msgs
	if len(r.tools) > 0 {
		tools := make([]any, len(r.tools))
		for i, t := range r.tools {
			tools[i] = map[string]any{"type": "function",
				"function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Schema}}
		}
		b["tools"] = tools
	}
	if r.choice != nil {
		choice := r.choice
		if s, ok := choice.(string); ok && s != "none" && s != "auto" && s != "required" {
			choice = map[string]any{"type": "function", "function": map[string]any{"name": s}}
		}
		b["tool_choice"] = choice
	}
	if r.jsonMode {
		b["response_format"] = map[string]any{"type": "json_object"}
	}
	if stream {
		b["stream_options"] = map[string]any{"include_usage": true}
	}
	return b
}

// reasoningModel: OpenAI's o-series and gpt-5 models.
func reasoningModel(m string) bool {
	m = strings.ToLower(m)
	return isOSeries(m) || strings.HasPrefix(m, "gpt-5")
}

// anthropicMessages converts a conversation to the messages API: tool
// calls become tool_use blocks, tool results tool_result blocks of a user
// turn (consecutive results share one turn).
func anthropicMessages(ms []message) []any {
	var out []any
	var pending []any // tool_result blocks of the current user turn
	flush := func() {
		if len(pending) > 0 {
			out = append(out, map[string]any{"role": "user", "content": pending})
			pending = nil
		}
	}
	for _, m := range ms {
		switch {
		case m.Role == "tool":
			block := map[string]any{"type": "tool_result", "tool_use_id": m.ToolCallID, "content": m.Content}
			if m.IsError {
				block["is_error"] = true
			}
			pending = append(pending, block)
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			flush()
			var blocks []any
			if m.Content != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": m.Content})
			}
			for _, tc := range m.ToolCalls {
				args := tc.Args
				if _, raw := args.(rawArguments); raw || args == nil {
					args = map[string]any{}
				}
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": args})
			}
			out = append(out, map[string]any{"role": "assistant", "content": blocks})
		case len(m.Images) > 0:
			// tool results of the turn first, then the images, then the text
			blocks := append(pending, anthropicImages(m.Images)...)
			pending = nil
			if m.Content != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": m.Content})
			}
			out = append(out, map[string]any{"role": m.Role, "content": blocks})
		default:
			if m.Role == "user" && len(pending) > 0 {
				pending = append(pending, map[string]any{"type": "text", "text": m.Content})
				flush()
				continue
			}
			flush()
			out = append(out, map[string]any{"role": m.Role, "content": m.Content})
		}
	}
	flush()
	return out
}

// endpoint is the URL and headers of a call.
func (c config) endpoint() (string, map[string]string) {
	h := map[string]string{"content-type": "application/json"}
	if c.provider.api == "anthropic" {
		if c.apiKey != "" {
			h["x-api-key"] = c.apiKey
		}
		h["anthropic-version"] = "2023-06-01"
		url := c.baseURL + "/v1/messages"
		if strings.HasSuffix(c.baseURL, "/v1") {
			url = c.baseURL + "/messages"
		}
		return url, h
	}
	if c.apiKey != "" {
		h["authorization"] = "Bearer " + c.apiKey
	}
	return c.baseURL + "/chat/completions", h
}

// parse reads a provider's (non-streaming) response body.
func (c config) parse(raw []byte) (*response, error) {
	var w wire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("the response is not JSON: %v", err)
	}
	r := &response{Provider: c.provider.name, Model: w.Model}
	if r.Model == "" {
		r.Model = c.model
	}
	if c.provider.api == "anthropic" {
		var text strings.Builder
		for _, b := range w.Content {
			switch b.Type {
			case "text":
				text.WriteString(b.Text)
			case "thinking":
				r.Thinking += b.Thinking
			case "tool_use":
				args, err := argumentsAny(string(b.Input))
				if err != nil {
					return nil, fmt.Errorf("tool_use %s: %v", b.Name, err)
				}
				r.ToolCalls = append(r.ToolCalls, toolCall{ID: b.ID, Name: b.Name, Args: args})
			}
		}
		r.Text = text.String()
		r.StopReason = w.StopReason
		r.InTokens, r.OutTokens = w.Usage.InputTokens, w.Usage.OutputTokens
		return r, nil
	}
	if len(w.Choices) == 0 {
		return nil, errors.New("the response has no choices")
	}
	ch := w.Choices[0]
	r.Text = ch.Message.Content
	for _, tc := range ch.Message.ToolCalls {
		r.ToolCalls = append(r.ToolCalls, toolCall{ID: tc.ID, Name: tc.Function.Name, Args: argumentsOrRaw(tc.Function.Arguments)})
	}
	r.StopReason = normalStop(ch.FinishReason)
	r.InTokens, r.OutTokens = w.Usage.PromptTokens, w.Usage.CompletionTokens
	return r, nil
}

// argumentsText is a call's arguments as OpenAI's wire carries them:
// JSON text, or the model's own text when it was not JSON.
func argumentsText(a any) string {
	if r, ok := a.(rawArguments); ok {
		return string(r)
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// normalStop maps OpenAI's finish reasons to the Anthropic-style names
// llm_call reports: stop → end_turn, tool_calls → tool_use, length →
// max_tokens; others are kept.
func normalStop(s string) string {
	switch s {
	case "stop":
		return "end_turn"
	case "tool_calls", "function_call":
		return "tool_use"
	case "length":
		return "max_tokens"
	}
	return s
}

// wire is the union of the two APIs' response shapes.
type wire struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Content []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking string          `json:"thinking"`
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Input    json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens      int64 `json:"input_tokens"`
		OutputTokens     int64 `json:"output_tokens"`
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// httpError is the failure of a non-2xx answer: the provider's own error
// message when the body has one.
func (c config) httpError(fn string, status int, raw []byte) error {
	msg := strings.TrimSpace(string(raw))
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil {
		switch {
		case e.Error.Message != "":
			msg = e.Error.Message
		case e.Message != "":
			msg = e.Message
		}
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	cat := errcat.OfStatus(status)
	if status == 400 && strings.Contains(msg, "context") && strings.Contains(msg, "length") {
		cat = "generic"
	}
	return callError(cat, fmt.Sprintf("%s: %s returned HTTP %d: %s", fn, c.provider.name, status, msg), c.provider.name, int64(status))
}

// transportError is the failure of a request that got no answer.
func (c config) transportError(fn string, err error) error {
	cat := "transient_network"
	if isTimeout(err) {
		cat = "timeout"
	}
	return callError(cat, fmt.Sprintf("%s: %s request failed: %v", fn, c.provider.name, err), c.provider.name, 0)
}

// httpClient is shared by every call (a variable for the tests).
var httpClient = &http.Client{}

func timeoutOf(r *request) time.Duration {
	if r.timeoutMS > 0 {
		return time.Duration(r.timeoutMS) * time.Millisecond
	}
	return 120 * time.Second
}

// prepare checks r can be sent with c (an API key when the provider
// needs one, egress to its endpoint) and encodes its body, streamed or
// not.
func (c config) prepare(th *vm.Thread, r *request, stream bool) (payload []byte, url string, headers map[string]string, err error) {
	if c.provider.keyEnv != "" && c.apiKey == "" {
		return nil, "", nil, vm.Throwf("%s: provider %s needs an API key: set %s (or pass {api_key: …})", r.fn, c.provider.name, c.provider.keyEnv)
	}
	if payload, err = json.Marshal(c.body(r, stream)); err != nil {
		return nil, "", nil, vm.Throwf("%s: cannot encode the request: %v", r.fn, err)
	}
	url, headers = c.endpoint()
	if err := lib.CheckEgress(th, url); err != nil {
		return nil, "", nil, err
	}
	return payload, url, headers, nil
}

// newPost is the POST of payload to url with headers.
func newPost(ctx context.Context, url string, payload []byte, headers map[string]string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// send performs r against c's API and returns the parsed response.
func (c config) send(th *vm.Thread, r *request) (*response, error) {
	payload, url, headers, err := c.prepare(th, r, false)
	if err != nil {
		return nil, err
	}
	var status int
	var raw []byte
	for attempt := int64(0); ; attempt++ {
		var hdr http.Header
		var netErr error
		stop := htime.BlockingCtx(th, func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, timeoutOf(r))
			defer cancel()
			req, err := newPost(ctx, url, payload, headers)
			if err != nil {
				netErr = err
				return
			}
			resp, err := httpClient.Do(req)
			if err != nil {
				netErr = err
				return
			}
			defer resp.Body.Close()
			status, hdr = resp.StatusCode, resp.Header
			raw, netErr = io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		})
		if stop != nil {
			return nil, stop
		}
		if netErr != nil {
			if attempt < r.retriesFor() && !isTimeout(netErr) {
				if err := htime.Sleep(th, backoff(attempt, "")); err != nil {
					return nil, err
				}
				continue
			}
			return nil, c.transportError(r.fn, netErr)
		}
		if status < 200 || status > 299 {
			if attempt < r.retriesFor() && retryable(status) {
				if err := htime.Sleep(th, backoff(attempt, hdr.Get("Retry-After"))); err != nil {
					return nil, err
				}
				continue
			}
			return nil, c.httpError(r.fn, status, raw)
		}
		break
	}
	resp, err := c.parse(raw)
	if err != nil {
		return nil, callError("server_error", fmt.Sprintf("%s: %s sent a response this runtime cannot read: %v", r.fn, c.provider.name, err), c.provider.name, int64(status))
	}
	return resp, nil
}

// retryable: the statuses a request is sent again after (rate limits,
// overload and server failures).
func retryable(status int) bool {
	switch status {
	case 408, 409, 429, 500, 502, 503, 504, 529:
		return true
	}
	return false
}

func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout")
}

// backoff is the wait before the attempt after attempt: the provider's
// Retry-After (seconds, at most a minute) when it sends one, else half a
// second doubled per attempt.
func backoff(attempt int64, retryAfter string) time.Duration {
	if n, err := strconv.ParseFloat(strings.TrimSpace(retryAfter), 64); err == nil && n >= 0 {
		return min(time.Duration(n*float64(time.Second)), time.Minute)
	}
	return 500 * time.Millisecond << min(attempt, 6)
}

// ---- streaming ----

// sseStream reads a streaming response: each pull returns the next text
// delta; done carries the assembled response once the stream ends.
type sseStream struct {
	c      config
	fn     string
	body   io.ReadCloser
	sc     *bufio.Scanner
	cancel context.CancelFunc
	resp   response
	calls  map[int]*streamCall
	order  []int
	ended  bool
}

type streamCall struct {
	id, name string
	args     strings.Builder
}

// open starts a streaming request.
func (c config) open(th *vm.Thread, r *request) (*sseStream, error) {
	payload, url, headers, err := c.prepare(th, r, true)
	if err != nil {
		return nil, err
	}
	var resp *http.Response
	var cancel context.CancelFunc
	for attempt := int64(0); ; attempt++ {
		var ctx context.Context
		ctx, cancel = context.WithTimeout(context.Background(), timeoutOf(r))
		resp = nil
		var netErr error
		stop := htime.BlockingCtx(th, func(inner context.Context) {
			req, err := newPost(ctx, url, payload, headers)
			if err != nil {
				netErr = err
				return
			}
			req.Header.Set("accept", "text/event-stream")
			stopAfter := context.AfterFunc(inner, cancel)
			defer stopAfter()
			resp, netErr = httpClient.Do(req)
		})
		if stop != nil {
			cancel()
			if resp != nil {
				resp.Body.Close()
			}
			return nil, stop
		}
		if netErr != nil {
			cancel()
			if attempt < r.retriesFor() && !isTimeout(netErr) {
				if err := htime.Sleep(th, backoff(attempt, "")); err != nil {
					return nil, err
				}
				continue
			}
			return nil, c.transportError(r.fn, netErr)
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			cancel()
			if attempt < r.retriesFor() && retryable(resp.StatusCode) {
				if err := htime.Sleep(th, backoff(attempt, resp.Header.Get("Retry-After"))); err != nil {
					return nil, err
				}
				continue
			}
			return nil, c.httpError(r.fn, resp.StatusCode, raw)
		}
		break
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	s := &sseStream{c: c, fn: r.fn, body: resp.Body, sc: sc, cancel: cancel, calls: map[int]*streamCall{}}
	// a stream dropped before its end gives its connection back
	runtime.AddCleanup(s, func(cancel context.CancelFunc) { cancel() }, cancel)
	s.resp.Provider = c.provider.name
	s.resp.Model = c.model
	return s, nil
}

// next returns the next text delta; ok is false at the end of the stream.
func (s *sseStream) next(th *vm.Thread) (string, bool, error) {
	for !s.ended {
		var line string
		var more bool
		var readErr error
		stop := htime.BlockingCtx(th, func(ctx context.Context) {
			stopAfter := context.AfterFunc(ctx, s.cancel)
			defer stopAfter()
			more = s.sc.Scan()
			line = s.sc.Text()
			if !more {
				readErr = s.sc.Err()
			}
		})
		if stop != nil {
			s.close()
			return "", false, stop
		}
		if !more {
			s.close()
			if readErr != nil {
				return "", false, s.c.transportError(s.fn, readErr)
			}
			return "", false, nil
		}
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			s.close()
			return "", false, nil
		}
		delta, err := s.event([]byte(data))
		if err != nil {
			s.close()
			return "", false, err
		}
		if delta != "" {
			s.resp.Text += delta
			return delta, true, nil
		}
	}
	return "", false, nil
}

// event folds one SSE data payload into the response; it returns the
// text delta it carries.
func (s *sseStream) event(data []byte) (string, error) {
	if s.c.provider.api == "anthropic" {
		var e struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				Model string `json:"model"`
				Usage struct {
					InputTokens int64 `json:"input_tokens"`
				} `json:"usage"`
			} `json:"message"`
			ContentBlock struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Usage struct {
				OutputTokens int64 `json:"output_tokens"`
			} `json:"usage"`
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &e); err != nil {
			return "", nil // not an event this reader knows
		}
		switch e.Type {
		case "message_start":
			if e.Message.Model != "" {
				s.resp.Model = e.Message.Model
			}
			s.resp.InTokens = e.Message.Usage.InputTokens
		case "content_block_start":
			if e.ContentBlock.Type == "tool_use" {
				s.calls[e.Index] = &streamCall{id: e.ContentBlock.ID, name: e.ContentBlock.Name}
				s.order = append(s.order, e.Index)
			}
		case "content_block_delta":
			if e.Delta.Type == "input_json_delta" {
				if c := s.calls[e.Index]; c != nil {
					c.args.WriteString(e.Delta.PartialJSON)
				}
				return "", nil
			}
			return e.Delta.Text, nil
		case "message_delta":
			if e.Delta.StopReason != "" {
				s.resp.StopReason = e.Delta.StopReason
			}
			s.resp.OutTokens = e.Usage.OutputTokens
		case "message_stop":
			s.ended = true
		case "error":
			return "", callError(streamErrorCategory(e.Error.Type, e.Error.Message), fmt.Sprintf("%s: %s stream error: %s", s.fn, s.c.provider.name, e.Error.Message), s.c.provider.name, 0)
		}
		return "", nil
	}
	var e struct {
		Model   string `json:"model"`
		Choices []struct {
			Delta struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return "", nil
	}
	if e.Model != "" {
		s.resp.Model = e.Model
	}
	if e.Usage != nil {
		s.resp.InTokens, s.resp.OutTokens = e.Usage.PromptTokens, e.Usage.CompletionTokens
	}
	if len(e.Choices) == 0 {
		return "", nil
	}
	ch := e.Choices[0]
	for _, tc := range ch.Delta.ToolCalls {
		c := s.calls[tc.Index]
		if c == nil {
			c = &streamCall{}
			s.calls[tc.Index] = c
			s.order = append(s.order, tc.Index)
		}
		if tc.ID != "" {
			c.id = tc.ID
		}
		if tc.Function.Name != "" {
			c.name = tc.Function.Name
		}
		c.args.WriteString(tc.Function.Arguments)
	}
	if ch.FinishReason != "" {
		s.resp.StopReason = normalStop(ch.FinishReason)
	}
	return ch.Delta.Content, nil
}

func (s *sseStream) close() {
	if s.body != nil {
		s.body.Close()
		s.body = nil
		s.cancel()
	}
	s.ended = true
}

// final is the assembled response once the stream has ended.
func (s *sseStream) final() (*response, error) {
	r := s.resp
	sort.Ints(s.order)
	for _, i := range s.order {
		c := s.calls[i]
		r.ToolCalls = append(r.ToolCalls, toolCall{ID: c.id, Name: c.name, Args: argumentsOrRaw(c.args.String())})
	}
	return &r, nil
}

// streamErrorTypes maps the error types an Anthropic stream reports to
// categories; a type not listed is classified with its message by the
// text heuristic (docs/spec/builtins.md §3.3).
var streamErrorTypes = map[string]string{
	"rate_limit_error":     "rate_limit",
	"overloaded_error":     "overloaded",
	"api_error":            "server_error",
	"authentication_error": "auth",
	"permission_error":     "auth",
	"not_found_error":      "not_found",
	"timeout_error":        "timeout",
}

func streamErrorCategory(typ, msg string) string {
	if c, ok := streamErrorTypes[typ]; ok {
		return c
	}
	return errcat.OfText(typ + " " + msg)
}

package llm

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/internal/lib"
	hjson "github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// message is one turn of a conversation. Role is system, user, assistant
// or tool; an assistant turn may carry tool calls, a tool turn answers the
// call ToolCallID.
type message struct {
	Role       string
	Content    string
	Images     []image // user turns (images.go)
	ToolCalls  []toolCall
	ToolCallID string
	Name       string
	// IsError marks a tool result that reports a failure (Anthropic's
	// tool_result is_error; OpenAI-style APIs have no such field).
	IsError bool
}

// toolCall is a call the model asked for: Args is the generic Go JSON form
// of the arguments object.
type toolCall struct {
	ID   string
	Name string
	Args any // decoded JSON, or rawArguments
}

// rawArguments is arguments text a model wrote that is not JSON, kept as
// written: the call reaches the script with the text as its arguments
// (the agent loop answers it with an error the model reads) and goes
// back to the provider unchanged in the conversation.
type rawArguments string

// argumentsAny is a model's argument text read by the one rule
// (hjson.ParseArguments) in the generic Go JSON form a toolCall carries.
func argumentsAny(text string) (any, error) {
	v, err := hjson.ParseArguments(text)
	if err != nil {
		return nil, err
	}
	return jsonschema.ToAny(v)
}

// argumentsOrRaw is argumentsAny, or rawArguments when the text is not
// JSON: the call then fails as a tool call the model can retry, instead
// of failing the whole reply.
func argumentsOrRaw(text string) any {
	g, err := argumentsAny(text)
	if err != nil {
		return rawArguments(text)
	}
	return g
}

// argumentsValue is a call's arguments as a Harn value: the decoded
// object, or the text of rawArguments.
func argumentsValue(a any) vm.Value {
	if r, ok := a.(rawArguments); ok {
		return vm.Str(string(r))
	}
	return jsonschema.FromAny(a)
}

// toolSpec is a tool offered to the model; Schema is its input JSON Schema.
type toolSpec struct {
	Name, Description string
	Schema            any
}

// request is one LLM call after its options are read.
type request struct {
	fn        string // the builtin, for messages
	prompt    string // the last user text (mock matching, llm_mock_calls)
	system    string
	messages  []message // the conversation without the system prompt
	model     string
	provider  string
	explicit  bool // provider chosen by the options, not by defaults
	maxTokens int64
	temp      *float64
	topP      *float64
	topK      *int64   // options.top_k: Anthropic's sampling cut-off
	seed      *int64   // options.seed: OpenAI-compatible providers
	freqPen   *float64 // options.frequency_penalty: OpenAI-compatible providers
	presPen   *float64 // options.presence_penalty: OpenAI-compatible providers
	stop      []string
	tools     []toolSpec
	toolValue vm.Value // options.tools as given (llm_mock_calls)
	choice    any      // tool_choice, as given
	jsonMode  bool
	timeoutMS int64
	apiKey    string
	baseURL   string
	options   *vm.Dict   // as given, for llm_mock_calls
	retries   int64      // structured calls: extra attempts
	maxRetry  int64      // provider requests: extra attempts after a transient failure; -1: default
	custom    []provider // the providers provider_register added to this VM
}

// retriesFor is the number of times a failed provider request is sent
// again (options.max_retries, default 2).
func (r *request) retriesFor() int64 {
	if r.maxRetry < 0 {
		return 2
	}
	return r.maxRetry
}

// response is a provider's answer.
type response struct {
	Text       string
	Model      string
	Provider   string
	InTokens   int64
	OutTokens  int64
	ToolCalls  []toolCall
	StopReason string
	Thinking   string // the model's reasoning shown apart (Anthropic's thinking blocks, llm_mock's thinking); "" for none
}

// knownOptions are the option keys llm_call reads (docs/llm.md).
var knownOptions = []string{
	"provider", "model", "system", "messages", "temperature", "max_tokens", "top_p", "stop",
	"tools", "tool_choice", "json", "timeout_ms", "api_key", "base_url", "retries", "max_retries", "images",
	"schema", "output_schema", "json_schema", "response_format",
	"top_k", "seed", "frequency_penalty", "presence_penalty",
}

// schemaOptions are the option keys that state the JSON a reply must be
// (docs/llm.md, "Options"); strict types counts a call with one as
// schema-validated (lang/check's schemaLess).
var schemaOptions = []string{"schema", "output_schema", "json_schema"}

// newRequest reads the arguments of llm_call(prompt, system?, options?):
// system may be left out (llm_call(prompt, options)).
func newRequest(th *vm.Thread, fn string, promptV, systemV, optsV vm.Value) (*request, error) {
	if d, ok := systemV.AsDict(); ok && (!optsV.IsValid() || optsV.IsNil()) {
		systemV, optsV = vm.Nil, vm.Of(d)
	}
	r := &request{fn: fn, options: vm.NewDict(), maxRetry: -1, custom: customProviders(th)}
	if optsV.IsValid() && !optsV.IsNil() {
		d, ok := optsV.AsDict()
		if !ok {
			return nil, lib.BadOptions(fn, optsV)
		}
		r.options = d
	}
	opt := func(k string) (vm.Value, bool) {
		v, ok := r.options.Get(k)
		if !ok || v.IsNil() {
			return vm.Value{}, false
		}
		return v, true
	}
	if systemV.IsValid() && !systemV.IsNil() {
		s, ok := systemV.AsString()
		if !ok {
			return nil, vm.Throwf("%s: system must be a string, got %s", fn, systemV.Type())
		}
		r.system = s.Go()
	} else if v, ok := opt("system"); ok {
		r.system = vm.ToDisplay(v)
	}
	if v, ok := opt("messages"); ok {
		l, ok := v.AsList()
		if !ok {
			return nil, vm.Throwf("%s: options.messages must be a list, got %s", fn, v.Type())
		}
		for i, it := range l.Items() {
			m, err := readMessage(th, fn, i, it)
			if err != nil {
				return nil, err
			}
			if m.Role == "system" {
				if r.system != "" {
					r.system += "\n\n"
				}
				r.system += m.Content
				continue
			}
			r.messages = append(r.messages, m)
		}
	}
	if promptV.IsValid() && !promptV.IsNil() {
		s, ok := promptV.AsString()
		if !ok {
			return nil, vm.Throwf("%s: prompt must be a string, got %s", fn, promptV.Type())
		}
		r.messages = append(r.messages, message{Role: "user", Content: s.Go()})
	}
	if len(r.messages) == 0 {
		return nil, vm.Throwf("%s: nothing to send: give a prompt or options.messages", fn)
	}
	if v, ok := opt("images"); ok {
		images, err := readImages(th, fn, v)
		if err != nil {
			return nil, err
		}
		last := &r.messages[len(r.messages)-1]
		if last.Role != "user" {
			return nil, vm.Throwf("%s: options.images go with the prompt, but the conversation does not end with a user message", fn)
		}
		last.Images = append(last.Images, images...)
	}
	for i := len(r.messages) - 1; i >= 0; i-- {
		if r.messages[i].Role == "user" {
			r.prompt = r.messages[i].Content
			break
		}
	}
	if v, ok := opt("provider"); ok {
		r.provider = strings.ToLower(vm.ToDisplay(v))
		r.explicit = true
	}
	if v, ok := opt("model"); ok {
		r.model = vm.ToDisplay(v)
	}
	var err error
	num := func(k string) (*float64, error) {
		v, ok := opt(k)
		if !ok {
			return nil, nil
		}
		f, ok := lib.ToFloat(v)
		if !ok {
			return nil, vm.Throwf("%s: options.%s must be a number, got %s", fn, k, v.Type())
		}
		return &f, nil
	}
	if r.temp, err = num("temperature"); err != nil {
		return nil, err
	}
	if r.topP, err = num("top_p"); err != nil {
		return nil, err
	}
	if r.freqPen, err = num("frequency_penalty"); err != nil {
		return nil, err
	}
	if r.presPen, err = num("presence_penalty"); err != nil {
		return nil, err
	}
	for _, o := range []struct {
		key string
		dst **int64
		min int64
	}{{"top_k", &r.topK, 1}, {"seed", &r.seed, 0}} {
		if v, ok := opt(o.key); ok {
			n, isInt := v.AsInt()
			if !isInt || int64(n) < o.min {
				what := "a positive int"
				if o.min == 0 {
					what = "a non-negative int"
				}
				return nil, vm.Throwf("%s: options.%s must be %s, got %s", fn, o.key, what, lib.Shown(v))
			}
			i := int64(n)
			*o.dst = &i
		}
	}
	integer := func(k string) (int64, error) {
		v, ok := opt(k)
		if !ok {
			return 0, nil
		}
		n, ok := v.AsInt()
		if !ok || n < 0 {
			return 0, vm.Throwf("%s: options.%s must be a non-negative int, got %s", fn, k, lib.Shown(v))
		}
		return int64(n), nil
	}
	if r.maxTokens, err = integer("max_tokens"); err != nil {
		return nil, err
	}
	if r.timeoutMS, err = integer("timeout_ms"); err != nil {
		return nil, err
	}
	if r.retries, err = integer("retries"); err != nil {
		return nil, err
	}
	if _, ok := opt("max_retries"); ok {
		if r.maxRetry, err = integer("max_retries"); err != nil {
			return nil, err
		}
	}
	if v, ok := opt("stop"); ok {
		// docs/llm.md "Options": a string or a list of stop sequences; any
		// other value is refused rather than sent as its display text
		if l, ok := v.AsList(); ok {
			for i, it := range l.Items() {
				s, isStr := it.AsString()
				if !isStr {
					return nil, vm.Throwf("%s: options.stop[%d] must be a string, got %s", fn, i, lib.Shown(it))
				}
				r.stop = append(r.stop, s.Go())
			}
		} else if s, isStr := v.AsString(); isStr {
			r.stop = []string{s.Go()}
		} else {
			return nil, vm.Throwf("%s: options.stop must be a string or a list of strings, got %s", fn, lib.Shown(v))
		}
	}
	if v, ok := opt("tools"); ok {
		r.toolValue = v
		if r.tools, err = readTools(th, fn, v); err != nil {
			return nil, err
		}
	}
	if v, ok := opt("tool_choice"); ok {
		if _, isStr := v.AsString(); !isStr {
			if _, isDict := v.AsDict(); !isDict {
				return nil, vm.Throwf("%s: options.tool_choice must be \"auto\", \"none\", \"required\", a tool name or a dict, got %s", fn, lib.Shown(v))
			}
		}
		if r.choice, err = jsonschema.ToAny(v); err != nil {
			return nil, vm.Throwf("%s: options.tool_choice: %s", fn, err.Error())
		}
		if name, ok := choiceName(r.choice); ok && !slices.ContainsFunc(r.tools, func(t toolSpec) bool { return t.Name == name }) {
			// The same words whether the tool does not exist or is
			// reserved for another audience: an operator-only tool
			// cannot leak its name to the model (seed 001), nor its
			// existence to whoever reads this error; a suggestion is
			// drawn from the offered tools only.
			offered := make([]string, len(r.tools))
			for i, t := range r.tools {
				offered[i] = t.Name
			}
			return nil, vm.Throwf("%s: options.tool_choice: %q is not an available tool%s", fn, name, lib.DidYouMean(name, offered))
		}
	}
	if v, ok := opt("json"); ok {
		r.jsonMode = v.Truth()
	}
	if v, ok := opt("response_format"); ok {
		r.jsonMode = v.Truth()
	}
	for _, k := range schemaOptions {
		if v, ok := opt(k); ok {
			if _, isDict := v.AsDict(); !isDict {
				return nil, vm.Throwf("%s: options.%s must be a schema dict or a type alias, got %s", fn, k, v.Type())
			}
			r.jsonMode = true
			r.system = withSchemaInstruction(r.system, v)
		}
	}
	if v, ok := opt("api_key"); ok {
		r.apiKey = vm.ToDisplay(v)
	}
	if v, ok := opt("base_url"); ok {
		r.baseURL = vm.ToDisplay(v)
	}
	return r, nil
}

// readMessage reads one {role, content, tool_calls?, tool_call_id?} dict;
// a user turn's content may be a list of text and image parts.
func readMessage(th *vm.Thread, fn string, i int, v vm.Value) (message, error) {
	d, ok := v.AsDict()
	if !ok {
		return message{}, vm.Throwf("%s: options.messages[%d] must be a dict {role, content}, got %s", fn, i, v.Type())
	}
	get := func(k string) vm.Value {
		x, ok := d.Get(k)
		if !ok {
			return vm.Nil
		}
		return x
	}
	m := message{Role: strings.ToLower(vm.ToDisplay(get("role")))}
	switch m.Role {
	case "system", "user", "assistant", "tool":
	default:
		return message{}, vm.Throwf("%s: options.messages[%d].role must be system, user, assistant or tool, got %s", fn, i, lib.Display(get("role")))
	}
	if l, ok := get("content").AsList(); ok && m.Role == "user" {
		text, images, err := readContentParts(th, fn+": options.messages["+fmt.Sprint(i)+"].content", l)
		if err != nil {
			return message{}, err
		}
		m.Content, m.Images = text, images
	} else {
		m.Content = ContentText(get("content"))
	}
	if id := get("tool_call_id"); !id.IsNil() {
		m.ToolCallID = vm.ToDisplay(id)
	}
	if n := get("name"); !n.IsNil() {
		m.Name = vm.ToDisplay(n)
	}
	m.IsError = m.Role == "tool" && get("is_error").Truth()
	if tc := get("tool_calls"); !tc.IsNil() {
		calls, err := readToolCalls(fn+": options.messages["+fmt.Sprint(i)+"].tool_calls", tc, false)
		if err != nil {
			return message{}, err
		}
		m.ToolCalls = calls
	}
	if m.Role == "tool" && m.ToolCallID == "" {
		return message{}, vm.Throwf("%s: options.messages[%d] has role tool but no tool_call_id", fn, i)
	}
	return m, nil
}

// ContentText is the text a model reads for a message content or a tool
// result: a string as it is, nil as "", any other value as the portable
// JSON the CLI and MCP adapters send (docs/spec/registry.md §6), so an
// enum variant or a Result reads {"enum","variant","fields"} rather than
// json_stringify's null. A value with no portable form (a closure
// inside) falls back to json_stringify's lenient text. Every path that
// puts a value in front of a model (messages, add_tool_result, the agent
// loop's tool results) uses this one conversion.
func ContentText(v vm.Value) string { return ResultText(v, nil) }

// ResultText is ContentText of v, given portable, v's portable JSON when
// it is already made (a successful tool call's, tool.Outcome.Result), or
// nil to make it here.
func ResultText(v vm.Value, portable any) string {
	if !v.IsValid() || v.IsNil() {
		return ""
	}
	if s, ok := v.AsString(); ok {
		return s.Go()
	}
	if portable == nil {
		j, err := tool.ToJSON(v)
		if err != nil {
			return hjson.Stringify(v)
		}
		portable = j
	}
	return string(jsonv.Marshal(portable))
}

// readToolCalls reads [{id?, name, arguments}] (from a mock or from a
// conversation); a call without an id keeps "". A mock's arguments
// (strict) must be a dict or the model's text; a conversation's may also
// be what such text decoded to (a reply's message carries it).
func readToolCalls(where string, v vm.Value, strict bool) ([]toolCall, error) {
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Throwf("%s must be a list, got %s", where, v.Type())
	}
	var out []toolCall
	for i, it := range l.Items() {
		d, ok := it.AsDict()
		if !ok {
			return nil, vm.Throwf("%s[%d] must be a dict {name, arguments}, got %s", where, i, it.Type())
		}
		name, args, err := callShape(fmt.Sprintf("%s[%d]", where, i), d)
		if err != nil {
			return nil, err
		}
		c := toolCall{Name: name, Args: map[string]any{}}
		if id, ok := d.Get("id"); ok && !id.IsNil() {
			c.ID = vm.ToDisplay(id)
		}
		if args.IsValid() && !args.IsNil() {
			if s, isStr := args.AsString(); isStr {
				// text, as a model writes it: kept as written when it is
				// not JSON, for the loop to answer as a failed call
				c.Args = argumentsOrRaw(s.Go())
				out = append(out, c)
				continue
			}
			if _, isDict := args.AsDict(); !isDict && strict {
				// a provider's arguments are an object, or the text a
				// model wrote; any other value is a mistake in the mock
				key := firstArgs(d)
				if key == "" {
					key = "function.arguments"
				}
				return nil, vm.Throwf("%s[%d].%s must be a dict of arguments or a model's JSON text, got %s", where, i, key, lib.Shown(args))
			}
			g, err := jsonschema.ToAny(args)
			if err != nil {
				return nil, vm.Throwf("%s[%d].arguments: %s", where, i, err.Error())
			}
			c.Args = g
		}
		out = append(out, c)
	}
	return out, nil
}

// argumentKeys are the spellings of a tool call's arguments: ours and
// OpenAI's, Anthropic's input, and the args and parameters other
// toolchains write.
var argumentKeys = []string{"arguments", "input", "args", "parameters"}

// ToolCallKeys are the keys a tool call dict may have.
var ToolCallKeys = append([]string{"id", "name", "type", "function"}, argumentKeys...)

// callShape is the name and the arguments (invalid when none) of a tool
// call dict: {name, arguments} with arguments under any of argumentKeys,
// or OpenAI's {type: "function", function: {name, arguments}}.
func callShape(where string, d *vm.Dict) (string, vm.Value, error) {
	if f, ok := d.Get("function"); ok && !f.IsNil() {
		fd, isDict := f.AsDict()
		if !isDict {
			return "", vm.Value{}, vm.Throwf("%s.function must be a dict {name, arguments}, got %s", where, f.Type())
		}
		if t, ok := d.Get("type"); ok && !t.IsNil() && vm.ToDisplay(t) != "function" {
			return "", vm.Value{}, vm.Throwf("%s.type must be \"function\" beside function, got %s", where, lib.Display(t))
		}
		if d.Has("name") || firstArgs(d) != "" {
			return "", vm.Value{}, vm.Throwf("%s gives both function and its own name or arguments", where)
		}
		where, d = where+".function", fd
	}
	name, ok := d.Get("name")
	if !ok || name.IsNil() {
		return "", vm.Value{}, vm.Throwf("%s has no name", where)
	}
	key := firstArgs(d)
	if key == "" {
		return vm.ToDisplay(name), vm.Value{}, nil
	}
	for _, k := range argumentKeys {
		if k != key && d.Has(k) {
			return "", vm.Value{}, vm.Throwf("%s gives its arguments twice (%s and %s)", where, key, k)
		}
	}
	args, _ := d.Get(key)
	return vm.ToDisplay(name), args, nil
}

// firstArgs is the first of argumentKeys d has, or "".
func firstArgs(d *vm.Dict) string {
	for _, k := range argumentKeys {
		if d.Has(k) {
			return k
		}
	}
	return ""
}

// choiceName is the tool a tool_choice forces: a name other than the
// modes "auto", "none", "required" and "any", or the name in a
// provider's own dict ({type: "tool", name} or {type: "function",
// function: {name}}).
func choiceName(choice any) (string, bool) {
	switch c := choice.(type) {
	case string:
		switch c {
		case "auto", "none", "required", "any":
			return "", false
		}
		return c, true
	case map[string]any:
		if n, ok := c["name"].(string); ok {
			return n, true
		}
		if f, ok := c["function"].(map[string]any); ok {
			if n, ok := f["name"].(string); ok {
				return n, true
			}
		}
	}
	return "", false
}

// readTools reads options.tools: a tool registry (tool_registry) or a
// list of tool definitions, each normalized as the registry normalizes its
// entries, so `parameters` may use the registry's short forms.
func readTools(th *vm.Thread, fn string, v vm.Value) ([]toolSpec, error) {
	cache := tool.CacheFor(th.VM())
	var entries []*tool.Entry
	var comps []*tool.SchemaMap // the components each entry's references name
	if l, ok := v.AsList(); ok {
		items, from := tool.ExpandRegistries(l.Items())
		for k, it := range items {
			i := from[k]
			d, ok := it.AsDict()
			if !ok {
				return nil, vm.Throwf("%s: options.tools[%d] must be a tool definition dict, got %s", fn, i, it.Type())
			}
			if !d.Has("handler") && !d.Has("executor") {
				// a tool the caller runs itself (an agent loop): checked
				// as one the model's provider would run
				d = d.Set("executor", vm.Str("provider_native"))
			}
			t, err := tool.NormalizeEntry(d, i, cache)
			if err != nil {
				return nil, vm.Throwf("%s: options.tools[%d]: %s", fn, i, tool.Message(err, ""))
			}
			// a tool reserved for other surfaces is never offered to the
			// model, whatever form it comes in (docs/spec/registry.md §5)
			if !t.Entry.Governance.Allows(tool.AudienceAgent) {
				continue
			}
			// as agent_loop reads its list (docs/agents.md, "Tools")
			if slices.ContainsFunc(entries, func(e *tool.Entry) bool { return e.Name == t.Entry.Name }) {
				return nil, vm.Throwf("%s: two tools are named %q", fn, t.Entry.Name)
			}
			entries = append(entries, t.Entry)
			comps = append(comps, tool.CarriedComponents(d))
		}
	} else {
		if hint := tool.SingleDefinitionHint(v); hint != "" {
			return nil, vm.Throwf("%s: options.tools must be a tool registry or a list of tool definitions, %s", fn, hint)
		}
		if !tool.IsRegistry(v) {
			return nil, vm.Throwf("%s: options.tools must be a tool registry or a list of tool definitions, got %s", fn, v.Type())
		}
		reg, err := tool.Normalize(v, cache)
		if err != nil {
			return nil, vm.Throwf("%s: options.tools must be a tool registry or a list of tool definitions: %s", fn, tool.Message(err, ""))
		}
		cat := reg.CatalogFor(tool.AudienceAgent)
		entries = cat.Tools
		var shared *tool.SchemaMap // the registry's, for every tool
		if cat.Components != nil {
			shared = cat.Components.Schemas
		}
		for range entries {
			comps = append(comps, shared)
		}
	}
	out := make([]toolSpec, 0, len(entries))
	for i, t := range entries {
		var schema any = map[string]any{"type": "object", "properties": map[string]any{}}
		if !t.InputSchema.IsZero() {
			doc, err := tool.ProviderInputSchema(t, comps[i])
			if err != nil {
				return nil, vm.Throwf("%s: options.tools: %s", fn, err.Error())
			}
			var g any
			if json.Unmarshal(jsonv.Marshal(doc), &g) == nil {
				schema = g
			}
		}
		out = append(out, toolSpec{Name: t.Name, Description: t.Description, Schema: schema})
	}
	return out, nil
}

// ---- results as Harn values ----

func toolCallsValue(calls []toolCall) vm.Value {
	out := make([]vm.Value, len(calls))
	for i, c := range calls {
		out[i] = vm.Of(lib.DictOf("id", vm.Str(c.ID), "name", vm.Str(c.Name), "arguments", argumentsValue(c.Args)))
	}
	return vm.Of(vm.NewList(out))
}

func messageValue(m message) vm.Value {
	d := lib.DictOf("role", vm.Str(m.Role), "content", vm.Str(m.Content))
	if len(m.Images) > 0 {
		d = d.Set("images", imagesValue(m.Images))
	}
	if len(m.ToolCalls) > 0 {
		d = d.Set("tool_calls", toolCallsValue(m.ToolCalls))
	}
	if m.ToolCallID != "" {
		d = d.Set("tool_call_id", vm.Str(m.ToolCallID))
	}
	if m.Name != "" {
		d = d.Set("name", vm.Str(m.Name))
	}
	if m.IsError {
		d = d.Set("is_error", vm.True)
	}
	return vm.Of(d)
}

func messagesValue(ms []message) vm.Value {
	out := make([]vm.Value, len(ms))
	for i, m := range ms {
		out[i] = messageValue(m)
	}
	return vm.Of(vm.NewList(out))
}

// usage is the response's {input_tokens, output_tokens, total_tokens}.
func (r *response) usage() vm.Value {
	return vm.Of(lib.DictOf("input_tokens", vm.IntOf(r.InTokens), "output_tokens", vm.IntOf(r.OutTokens),
		"total_tokens", vm.IntOf(r.InTokens+r.OutTokens)))
}

// value is the response dict llm_call returns (docs/llm.md).
func (r *response) value() vm.Value {
	usage := r.usage()
	msg := messageValue(message{Role: "assistant", Content: r.Text, ToolCalls: r.ToolCalls})
	d := lib.DictOf(
		"text", vm.Str(r.Text),
		"model", vm.Str(r.Model),
		"provider", vm.Str(r.Provider),
		"usage", usage,
		"input_tokens", vm.IntOf(r.InTokens),
		"output_tokens", vm.IntOf(r.OutTokens),
		"tool_calls", toolCallsValue(r.ToolCalls),
		"stop_reason", vm.Str(r.StopReason),
		"message", msg,
	)
	if r.Thinking != "" {
		d = d.Set("thinking", vm.Str(r.Thinking))
	}
	return vm.Of(d)
}

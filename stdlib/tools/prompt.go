package tools

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// The text tool-calling protocol of the Tier 3 tools names
// (docs/spec/builtins.md §5 names them only; tool_format_result keeps
// upstream's envelope, the other forms are this implementation's): tool_schema gives the registry's harn-tools/2.0
// catalog as data, tool_prompt describes the agent-visible tools and the
// call format to a model, a model answers with
//
//	<tool_call>
//	{"name": "read", "arguments": {"path": "a.txt"}}
//	</tool_call>
//
// which tool_parse_call reads back, and tool_format_result wraps what the
// tool returned in upstream's envelope,
//
//	<tool_result>{"name": "read", "result": "file text"}</tool_result>

func init() {
	lib.Def("tool_schema", "tool_schema(registry, components?) -> dict", "the registry's harn-tools/2.0 catalog (catalog audience) as a dict, as `harn tool schema` prints it; components ({Name: schema} or {schemas: {...}}) adds named schemas the tools may $ref", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		reg, err := withComponents(a.At(0), a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		cat, err := audienceCatalog(th, "tool_schema", reg, tool.AudienceCatalog)
		if err != nil {
			return vm.Value{}, err
		}
		// the catalog reader's rules, as `harn tool schema` applies them
		// before printing (a blank parent title, a parent alias twice)
		if err := cat.Check(); err != nil {
			return vm.Value{}, toolErr(fmt.Errorf("tool_schema: %v", err))
		}
		return json.Parse(string(cat.Marshal()))
	})
	lib.Def("tool_prompt", "tool_prompt(tools) -> string", "a system-prompt text (upstream's layout): the <tool_call> format, then a ### section per agent-visible tool with its description and parameters; tools is a registry, a list of tools (as agent_loop's tools option takes them) or one tool definition", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		v, err := promptTools(th, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		reg, err := normalized(th, "tool_prompt", v)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(Prompt(reg.Project(tool.AudienceAgent).Tools)), nil
	})
	lib.Def("tool_parse_call", "tool_parse_call(text) -> list<dict>", "the [{name, arguments}] of the <tool_call> blocks in text, in order; arguments given as text are read as a model's (blank is {}); a block that is not a JSON object with a name and object arguments is skipped", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		text, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("tool_parse_call: text must be a string, got %s", a.At(0).Type())
		}
		return vm.Of(lib.List(ParseCalls(text))), nil
	})
	lib.Def("tool_surface_validate", "tool_surface_validate(registry) -> dict", "{valid, errors, warnings}: every check the adapters run (registry rules, then catalog preparation, then the local-handler check of harn tool run and harn serve mcp), reported instead of thrown", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var errs, warns []string
		if _, _, err := registryTools(a.At(0)); err != nil {
			errs = append(errs, notRegistry)
		} else if reg, err := tool.Normalize(a.At(0), toolCache(th)); err != nil {
			errs = append(errs, tool.Message(err, ""))
		} else {
			warns = reg.Warnings()
			if p, perrs := tool.PrepareAll(reg); len(perrs) > 0 {
				for _, e := range perrs {
					errs = append(errs, e.Error())
				}
			} else {
				// The adapters that run tools here (harn tool run, harn
				// serve mcp) refuse a tool they expose without a handler.
				for _, aud := range []tool.Audience{tool.AudienceCLI, tool.AudienceMCP} {
					for _, e := range p.HandlerErrors(aud) {
						errs = append(errs, e.Error())
					}
				}
			}
		}
		return vm.Of(lib.DictOf("valid", vm.BoolOf(len(errs) == 0), "errors", vm.Of(lib.StrList(errs)),
			"warnings", vm.Of(lib.StrList(warns)))), nil
	})
	lib.Def("tool_format_result", "tool_format_result(name, result) -> string", `a <tool_result> envelope: <tool_result>{"name": "NAME", "result": "TEXT"}</tool_result>, TEXT being the display form of result (as upstream writes it)`, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Value{}, vm.Typef("tool_format_result: requires name and result")
		}
		name, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("tool_format_result: name must be a string, got %s", a.At(0).Type())
		}
		return vm.Str(FormatResult(name, vm.ToDisplay(a.At(1)))), nil
	})
}

// withComponents is the registry with the named schemas of extra added
// to its components (upstream's second tool_schema argument; a name the
// registry already has keeps the registry's schema). extra is either the
// schemas map itself or a components record {schemas: {...}}.
func withComponents(v, extra vm.Value) (vm.Value, error) {
	if extra.IsNil() || !extra.IsValid() {
		return v, nil
	}
	reg, _, err := builtinTools("tool_schema", v)
	if err != nil {
		return vm.Value{}, err
	}
	add, ok := extra.AsDict()
	if !ok {
		return vm.Value{}, vm.Typef("tool_schema: components must be a dict of named JSON Schemas, got %s", extra.Type())
	}
	if inner, ok := add.Get("schemas"); ok && add.Len() == 1 {
		if d, ok := inner.AsDict(); ok {
			add = d
		}
	}
	schemas := vm.NewDict()
	own, _ := lib.Get(reg, "components").AsDict()
	if own != nil {
		if d, ok := lib.Get(own, "schemas").AsDict(); ok {
			schemas = d
		}
	} else {
		own = vm.NewDict()
	}
	for _, k := range add.Keys() {
		if !schemas.Has(k) {
			schemas = schemas.Set(k, lib.Get(add, k))
		}
	}
	return vm.Of(reg.Set("components", vm.Of(own.Set("schemas", vm.Of(schemas))))), nil
}

func audienceCatalog(th *vm.Thread, fn string, v vm.Value, aud tool.Audience) (*tool.Catalog, error) {
	reg, err := normalized(th, fn, v)
	if err != nil {
		return nil, err
	}
	return reg.CatalogFor(aud), nil
}

// promptTools is tool_prompt's argument as a registry: a registry as it
// is; a list of tools (definitions, tool_def, tool_ref and tool_bind
// values, registries standing for their tools, agents standing for the
// one-prompt tool that asks them, as agent_loop's tools option reads
// them) or one definition, gathered as tool_registry_from
// gathers them, so a duplicate name or a bad definition is refused in
// its words.
func promptTools(th *vm.Thread, v vm.Value) (vm.Value, error) {
	if tool.IsRegistry(v) {
		return v, nil
	}
	var items []vm.Value
	if l, ok := v.AsList(); ok {
		items, _ = tool.ExpandRegistries(l.Items())
	} else if _, ok := tool.SingleDefinition(v); ok {
		items = []vm.Value{v}
	} else {
		return vm.Value{}, vm.Throwf("tool_prompt: expected a tool registry created with tool_registry(), a list of tools or a tool definition, got %s", v.Type())
	}
	for i, it := range items {
		if d, ok := it.AsDict(); ok {
			if def, isAgent := tool.AgentDefinition(d, promptOnly); isAgent {
				items[i] = vm.Of(def)
			}
		}
	}
	reg, err := tool.RegistryFrom(vm.Of(vm.NewList(items)), vm.Nil, toolCache(th))
	if err != nil {
		msg := strings.Replace(err.Error(), "tool_registry_from: definitions", "tool_prompt: tools", 1)
		for _, fn := range []string{"tool_registry_from: ", "tool_define: "} {
			if rest, ok := strings.CutPrefix(msg, fn); ok {
				msg = "tool_prompt: " + rest
			}
		}
		return vm.Value{}, toolErr(fmt.Errorf("%s", msg))
	}
	return vm.Of(reg), nil
}

// promptOnly stands for an agent's handler in the registry promptTools
// gathers: the prompt describes the agent and never runs it.
var promptOnly = vm.Of(vm.NewBuiltin("tool_prompt:agent", "agent(args)", "an agent described by tool_prompt", func(*vm.Thread, vm.Args) (vm.Value, error) {
	return vm.Value{}, vm.Throwf("tool_prompt: an agent described by tool_prompt is run by agent_loop, not here")
}))

// normalized is the registry v normalized, for builtin fn.
func normalized(th *vm.Thread, fn string, v vm.Value) (*tool.Registry, error) {
	if _, _, err := registryTools(v); err != nil {
		return nil, vm.Throwf("%s: %s", fn, notRegistry)
	}
	reg, err := tool.Normalize(v, toolCache(th))
	if err != nil {
		return nil, toolErr(fmt.Errorf("%s", tool.Message(err, fn+": ")))
	}
	return reg, nil
}

// FormatResult is upstream's <tool_result> envelope: a JSON object with
// the name and the result's display form, both as JSON strings, and a
// space after each colon and comma as upstream writes it.
func FormatResult(name, result string) string {
	return fmt.Sprintf(`<tool_result>{"name": %s, "result": %s}</tool_result>`,
		json.Stringify(vm.Str(name)), json.Stringify(vm.Str(result)))
}

// The tags around a call block, and how many closing tags a block may
// span (an argument holding "</tool_call>"), so that text full of broken
// blocks costs a bounded number of parses each.
const (
	callOpen          = "<tool_call>"
	callClose         = "</tool_call>"
	maxBlockCloseTags = 8
)

// ParseCalls is tool_parse_call: the {name, arguments} of each
// <tool_call> block of a model's text, in order (also the calls of
// agent_loop's tool_format "text"). A block ends at the first closing
// tag after which its body is a call, so an argument holding the text
// "</tool_call>" does not cut it; a block that is no call up to any of
// its next maxBlockCloseTags closing tags is skipped.
func ParseCalls(text string) []vm.Value {
	var out []vm.Value
	for {
		start := strings.Index(text, callOpen)
		if start < 0 {
			return out
		}
		text = text[start+len(callOpen):]
		for end, tags := 0, 0; tags < maxBlockCloseTags; tags++ {
			i := strings.Index(text[end:], callClose)
			if i < 0 {
				break
			}
			end += i
			if call, ok := parseCall(text[:end]); ok {
				out = append(out, vm.Of(call))
				text = text[end+len(callClose):]
				break
			}
			end += len(callClose)
		}
	}
}

// parseCall reads one block body into {name, arguments, id?}; model
// output is often malformed, so a body that is not a JSON object with a
// string name and an object of arguments is no call (upstream skips such
// blocks too) rather than an error.
func parseCall(body string) (*vm.Dict, bool) {
	v, err := json.Parse(unfence(strings.TrimSpace(body)))
	if err != nil {
		return nil, false
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, false
	}
	name, ok := lib.Get(d, "name").AsString()
	if !ok || name.Go() == "" {
		return nil, false
	}
	args, ok := callArguments(d)
	if !ok {
		return nil, false
	}
	call := lib.DictOf("name", vm.Of(name), "arguments", args)
	if id, ok := lib.Get(d, "id").AsString(); ok && id.Go() != "" {
		call = call.Set("id", vm.Of(id))
	}
	return call, true
}

// callArguments is the arguments object of a call: "arguments", or
// "parameters" as Llama-style models write it; a text (as OpenAI-style
// providers send it) is read by json.ParseArguments's rule (blank is
// {}) and must hold an object; absent or null is {}. Anything else is
// not a call.
func callArguments(d *vm.Dict) (vm.Value, bool) {
	args := lib.Get(d, "arguments")
	if args.IsNil() {
		args = lib.Get(d, "parameters")
	}
	if args.IsNil() {
		return vm.Of(vm.NewDict()), true
	}
	if s, ok := args.AsString(); ok {
		parsed, err := json.ParseArguments(s.Go())
		if err != nil {
			return vm.Value{}, false
		}
		args = parsed
	}
	if _, ok := args.AsDict(); !ok {
		return vm.Value{}, false
	}
	return args, true
}

// unfence strips a Markdown code fence (```json … ```) around a block
// body, which models often add.
func unfence(body string) string {
	if !strings.HasPrefix(body, "```") || !strings.HasSuffix(body, "```") || len(body) < 6 {
		return body
	}
	inner := strings.TrimSuffix(body[3:], "```")
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 {
		inner = inner[nl+1:]
	} else {
		return body
	}
	return strings.TrimSpace(inner)
}

// promptHeader is upstream's tool_prompt preamble: the call format, then
// the tools.
const promptHeader = "# Available Tools\n\n" +
	"You have access to the following tools. To use a tool, output a tool call in this exact format:\n\n" +
	"<tool_call>{\"name\": \"tool_name\", \"arguments\": {\"param\": \"value\"}}</tool_call>\n\n" +
	"You may make multiple tool calls in a single response. Wait for tool results before proceeding.\n\n" +
	"## Tools\n\n"

// Prompt is tool_prompt's text for tools (also the system prompt
// addition of agent_loop's tool_format "text"), in upstream's layout: per
// tool a "### name" heading, its description (when it has one), and a
// "- param: type" line per parameter (paramList, as tool_describe shows
// them), the text trimmed at the end.
func Prompt(tools []*tool.Tool) string {
	var sb strings.Builder
	sb.WriteString(promptHeader)
	for _, t := range tools {
		sb.WriteString("### " + t.Entry.Name + "\n")
		if t.Entry.Description != "" {
			sb.WriteString(t.Entry.Description + "\n")
		}
		if params := paramList(t.Definition); len(params) > 0 {
			sb.WriteString("Parameters:\n- " + strings.Join(params, "\n- ") + "\n")
		}
		sb.WriteByte('\n')
	}
	return strings.TrimRight(sb.String(), " \t\n")
}

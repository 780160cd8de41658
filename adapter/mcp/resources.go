package mcp

import (
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/promptfile"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// Resources, resource templates, prompts and completion of the script
// surface, and of the exports surface's project context, whose files
// are static resources and whose prompt files follow the script's
// prompts (docs/spec/mcp-projection.md §14).

const cardURI = "well-known://mcp-card"

func setIf(o *jsonv.Object, k, v string) {
	if v != "" {
		o.Set(k, v)
	}
}

// Resources implements protocol.Provider: the card first (with
// --card), then the published resources.
func (p provider) Resources(*protocol.Request) ([]any, *protocol.Error) {
	sf := p.s.Surface()
	var items []any
	if p.s.opts.Card != nil {
		items = append(items, protocol.ResourceDocument(cardURI, "Server Card", "", "The MCP Server Card of this server.", "application/json"))
	}
	for _, res := range sf.Resources {
		items = append(items, protocol.ResourceDocument(res.URI, res.Name, res.Title, res.Description, res.MimeType))
	}
	return items, nil
}

// ResourceTemplates implements protocol.Provider.
func (p provider) ResourceTemplates(*protocol.Request) ([]any, *protocol.Error) {
	var items []any
	for _, t := range p.s.Surface().Templates {
		items = append(items, protocol.TemplateDocument(t.URITemplate, t.Name, t.Title, t.Description, t.MimeType))
	}
	return items, nil
}

// ReadResource implements protocol.Provider: the card and static
// resources are answered at once (static resources win over
// templates); a template match runs its handler on the executor.
func (p provider) ReadResource(_ *protocol.Request, uri string) any {
	sf := p.s.Surface()
	if uri == cardURI && p.s.opts.Card != nil {
		return protocol.ResourceContents(protocol.TextResource(cardURI, "application/json", string(jsonv.Marshal(p.s.opts.Card))))
	}
	for _, r := range sf.Resources {
		if r.URI == uri {
			if r.Blob == "" {
				return protocol.ResourceContents(protocol.TextResource(uri, r.MimeType, r.Text))
			}
			item := jsonv.NewObject(3)
			item.Set("uri", uri)
			setIf(item, "mimeType", r.MimeType)
			item.Set("blob", r.Blob)
			return protocol.ResourceContents(item)
		}
	}
	for _, t := range sf.Templates {
		if _, ok := matchTemplate(t.URITemplate, uri); ok {
			return protocol.Handler(func(x *protocol.Call) any { return p.readTemplate(x, uri) })
		}
	}
	return resourceNotFound(uri)
}

func resourceNotFound(uri string) *protocol.Error {
	return protocol.Errorf(protocol.CodeResourceNotFound, "Resource not found: "+uri)
}

// readTemplate runs a template handler (on the executor).
func (p provider) readTemplate(x *protocol.Call, uri string) any {
	sf := p.s.Surface()
	for _, t := range sf.Templates {
		vars, ok := matchTemplate(t.URITemplate, uri)
		if !ok {
			continue
		}
		arg := vm.NewDict()
		for k, v := range vars {
			arg = arg.Set(k, vm.Str(v))
		}
		v, res := p.callHandler(x, sf, t.Handler, vm.Of(arg), "resource template")
		if res != nil {
			return res
		}
		return protocol.ResourceContents(protocol.TextResource(uri, t.MimeType, vm.ToDisplay(v)))
	}
	return resourceNotFound(uri)
}

// callHandler calls a template or prompt handler; a non-nil second
// result is the answer to send instead (-32602 for bad input state,
// -32603 for a failure; the protocol layer turns an abandoned handler
// into input_required).
func (p provider) callHandler(x *protocol.Call, sf *Surface, fn vm.Value, arg vm.Value, what string) (vm.Value, any) {
	if rerr := x.ReadInputResponses(); rerr != nil {
		return vm.Value{}, rerr
	}
	var v vm.Value
	var err error
	if !p.s.exclusive(x, func(start func(*vm.Thread)) { v, err = sf.Runtime.Call(handler{x}, fn, []vm.Value{arg}, start) }) {
		return vm.Value{}, shuttingDown()
	}
	if err != nil {
		return vm.Value{}, protocol.Errorf(protocol.CodeInternalError, what+" handler failed: "+failureSummary(err))
	}
	return v, nil
}

// failureSummary describes a handler failure without rendering a
// thrown value (docs/spec/registry.md §6).
func failureSummary(err error) string {
	e := vm.AsError(err)
	if e.Kind == vm.KindThrown {
		return tool.SummaryUndeclaredThrow
	}
	return strings.TrimSuffix(e.ValueFreeText(), "\n")
}

// matchTemplate matches an RFC 6570 level-1 template against a URI.
func matchTemplate(tmpl, uri string) (map[string]string, bool) {
	vars := map[string]string{}
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return vars, tmpl == uri
		}
		if !strings.HasPrefix(uri, tmpl[:i]) {
			return nil, false
		}
		uri = uri[i:]
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return nil, false
		}
		name := tmpl[i+1 : i+j]
		tmpl = tmpl[i+j+1:]
		// The value runs to the next literal of the template (or the end),
		// and never across a '/'.
		next := len(uri)
		if k := strings.IndexByte(tmpl, '{'); k != 0 && tmpl != "" {
			lit := tmpl
			if k > 0 {
				lit = tmpl[:k]
			}
			p := strings.Index(uri, lit)
			if p < 0 {
				return nil, false
			}
			next = p
		}
		val := uri[:next]
		if val == "" || strings.Contains(val, "/") {
			return nil, false
		}
		vars[name] = val
		uri = uri[next:]
	}
}

// Prompts implements protocol.Provider.
func (p provider) Prompts(*protocol.Request) ([]any, *protocol.Error) {
	var items []any
	for _, pr := range p.s.Surface().Prompts {
		var args []protocol.PromptArgument
		for _, a := range pr.Arguments {
			args = append(args, protocol.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		items = append(items, protocol.PromptDocument(pr.Name, pr.Title, pr.Description, args))
	}
	for _, pf := range p.s.Surface().FilePrompts {
		items = append(items, pf.Document())
	}
	return items, nil
}

// requiredArgs names the prompt arguments declared required.
func requiredArgs(args []tool.PromptArgument) []string {
	var out []string
	for _, a := range args {
		if a.Required {
			out = append(out, a.Name)
		}
	}
	return out
}

func findPrompt(sf *Surface, name string) *tool.Prompt {
	for _, p := range sf.Prompts {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// GetPrompt implements protocol.Provider: the prompt handler runs on
// the executor.
func (p provider) GetPrompt(*protocol.Request) any {
	return protocol.Handler(p.promptsGet)
}

func (p provider) promptsGet(x *protocol.Call) any {
	sf := p.s.Surface()
	name, _ := jsonv.Member[string](x.Params(), "name")
	pr := findPrompt(sf, name)
	if pr == nil {
		if pf := promptfile.Find(sf.FilePrompts, name); pf != nil {
			return pf.Get(x.Params())
		}
		return protocol.UnknownPrompt(name)
	}
	// A null argument is missing, as on the orchestrator
	// (docs/spec/orchestrator.md §7): the handler never sees nil for an
	// argument it requires, nor a value that is not a string.
	args, bad := protocol.StringPromptArguments(x.Params(), requiredArgs(pr.Arguments))
	if bad != nil {
		return bad
	}
	v, res := p.callHandler(x, sf, pr.Handler, tool.FromJSON(args), "prompt")
	if res != nil {
		return res
	}
	msgs, ok := promptMessages(v)
	if !ok {
		return protocol.Errorf(protocol.CodeInternalError, "prompt handler failed: it must return a string or a list of {role, content}")
	}
	out := jsonv.NewObject(2)
	setIf(out, "description", pr.Description)
	out.Set("messages", msgs)
	return out
}

// promptMessages maps a prompt handler's value: a string is one user
// text message; a list holds {role, content} records whose content is a
// string or a content record (text, image, audio, resource).
func promptMessages(v vm.Value) ([]any, bool) {
	if s, ok := v.AsString(); ok {
		return []any{protocol.PromptMessage("user", protocol.TextContent(s.Go()))}, true
	}
	l, ok := v.AsList()
	if !ok {
		return nil, false
	}
	var out []any
	for _, it := range l.Items() {
		d, ok := it.AsDict()
		if !ok {
			return nil, false
		}
		role := "user"
		if r, ok := d.Get("role"); ok {
			role = vm.ToDisplay(r)
		}
		cv, ok := d.Get("content")
		if !ok {
			return nil, false
		}
		var block *jsonv.Object
		if s, ok := cv.AsString(); ok {
			block = protocol.TextContent(s.Go())
		} else {
			j, err := tool.ToJSON(cv)
			if err != nil {
				return nil, false
			}
			if block = contentBlock(j); block == nil {
				return nil, false
			}
		}
		out = append(out, protocol.PromptMessage(role, block))
	}
	return out, true
}

// Complete implements protocol.Provider: prompt arguments offer their
// declared completions; resource template variables have none.
func (p provider) Complete(_ *protocol.Request, ref protocol.CompletionRef, argName, _ string) ([]string, *protocol.Error) {
	sf := p.s.Surface()
	switch ref.Type {
	case "ref/prompt":
		pr := findPrompt(sf, ref.Name)
		if pr == nil {
			if pf := promptfile.Find(sf.FilePrompts, ref.Name); pf != nil {
				return pf.Complete(argName)
			}
			return nil, protocol.UnknownPrompt(ref.Name)
		}
		for _, a := range pr.Arguments {
			if a.Name == argName {
				return a.Completions, nil
			}
		}
		return nil, protocol.UnknownPromptArgument(argName)
	default: // ref/resource
		var tmpl *tool.ResourceTemplate
		for _, t := range sf.Templates {
			if t.URITemplate == ref.URI {
				tmpl = t
			}
		}
		if tmpl == nil {
			return nil, protocol.InvalidParams("Unknown resource template: " + ref.URI)
		}
		if !strings.Contains(tmpl.URITemplate, "{"+argName+"}") {
			return nil, protocol.InvalidParams("Unknown resource template argument: " + argName)
		}
		return nil, nil
	}
}

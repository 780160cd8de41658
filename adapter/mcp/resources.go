package mcp

import (
	"sort"
	"strings"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/jsonv"
	"github.com/harnlang/harn/vm"
)

// Resources, resource templates, prompts and completion of the script
// surface (mcp-projection.md §14).

const cardURI = "well-known://mcp-card"

func setIf(o *jsonv.Object, k, v string) {
	if v != "" {
		o.Set(k, v)
	}
}

func (c *conn) resourcesList(req *request) any {
	sf := c.srv.Surface()
	var items []any
	if c.srv.opts.Card != nil {
		r := jsonv.NewObject(4)
		r.Set("uri", cardURI)
		r.Set("name", "Server Card")
		r.Set("description", "The MCP Server Card of this server.")
		r.Set("mimeType", "application/json")
		items = append(items, r)
	}
	for _, res := range sf.Resources {
		r := jsonv.NewObject(5)
		r.Set("uri", res.URI)
		r.Set("name", res.Name)
		setIf(r, "title", res.Title)
		setIf(r, "description", res.Description)
		setIf(r, "mimeType", res.MimeType)
		items = append(items, r)
	}
	return c.listResult(req, "resources", items)
}

func (c *conn) listResult(req *request, key string, items []any) any {
	start, end, next, rerr := c.page(req, len(items))
	if rerr != nil {
		return rerr
	}
	res := jsonv.NewObject(2)
	page := make([]any, 0, end-start)
	page = append(page, items[start:end]...)
	res.Set(key, page)
	if next != "" {
		res.Set("nextCursor", next)
	}
	return res
}

func (c *conn) templatesList(req *request) any {
	var items []any
	for _, t := range c.srv.Surface().Templates {
		r := jsonv.NewObject(5)
		r.Set("uriTemplate", t.URITemplate)
		r.Set("name", t.Name)
		setIf(r, "title", t.Title)
		setIf(r, "description", t.Description)
		setIf(r, "mimeType", t.MimeType)
		items = append(items, r)
	}
	return c.listResult(req, "resourceTemplates", items)
}

func readURI(req *request) (string, *rpcError) {
	uv, _ := req.params.Get("uri")
	uri, ok := uv.(string)
	if !ok {
		return "", invalidParams("resources/read: uri must be a string")
	}
	return uri, nil
}

func contents(item *jsonv.Object) *jsonv.Object {
	res := jsonv.NewObject(1)
	res.Set("contents", []any{item})
	return res
}

// readStatic answers the card and static resources, and unknown URIs;
// handled is false for a template match, which runs a handler.
func (c *conn) readStatic(req *request) (any, bool) {
	uri, rerr := readURI(req)
	if rerr != nil {
		return rerr, true
	}
	sf := c.srv.Surface()
	if uri == cardURI && c.srv.opts.Card != nil {
		item := jsonv.NewObject(3)
		item.Set("uri", cardURI)
		item.Set("mimeType", "application/json")
		item.Set("text", string(jsonv.Marshal(c.srv.opts.Card)))
		return contents(item), true
	}
	for _, r := range sf.Resources {
		if r.URI == uri {
			item := jsonv.NewObject(3)
			item.Set("uri", uri)
			setIf(item, "mimeType", r.MimeType)
			if r.Blob != "" {
				item.Set("blob", r.Blob)
			} else {
				item.Set("text", r.Text)
			}
			return contents(item), true
		}
	}
	for _, t := range sf.Templates {
		if _, ok := matchTemplate(t.URITemplate, uri); ok {
			return nil, false
		}
	}
	return errorf(codeResourceNotFound, "Resource not found: "+uri), true
}

// readTemplate runs a template handler on the executor.
func (c *conn) readTemplate(req *request) any {
	uri, rerr := readURI(req)
	if rerr != nil {
		return rerr
	}
	sf := c.srv.Surface()
	for _, t := range sf.Templates {
		vars, ok := matchTemplate(t.URITemplate, uri)
		if !ok {
			continue
		}
		arg := vm.NewDict()
		for k, v := range vars {
			arg = arg.Set(k, vm.Str(v))
		}
		v, res := c.callHandler(req, sf, t.Handler, arg, "resource template")
		if res != nil {
			return res
		}
		item := jsonv.NewObject(3)
		item.Set("uri", uri)
		setIf(item, "mimeType", t.MimeType)
		item.Set("text", vm.ToDisplay(v))
		return contents(item)
	}
	return errorf(codeResourceNotFound, "Resource not found: "+uri)
}

// callHandler calls a template or prompt handler; a non-nil second
// result is the answer to send instead (input_required or -32603).
func (c *conn) callHandler(req *request, sf *Surface, fn vm.Value, arg vm.Value, what string) (vm.Value, any) {
	state, rerr := inputState(req.params)
	if rerr != nil {
		return nil, rerr
	}
	h := c.handlerFor(req, state, nil)
	c.srv.callMu.Lock()
	v, err := sf.Runtime.Call(h, fn, []vm.Value{arg}, req.start)
	c.srv.callMu.Unlock()
	if h.pending != nil {
		return nil, h.inputRequired()
	}
	if err != nil {
		return nil, errorf(codeInternalError, what+" handler failed: "+failureSummary(err))
	}
	return v, nil
}

// failureSummary describes a handler failure without rendering a
// thrown value (registry.md §6).
func failureSummary(err error) string {
	e := vm.AsError(err)
	if e.Kind == vm.KindThrown {
		return tool.SummaryUndeclaredThrow
	}
	return strings.TrimSuffix(vm.ToDisplay(e.Caught()), "\n")
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

func (c *conn) promptsList(req *request) any {
	var items []any
	for _, p := range c.srv.Surface().Prompts {
		r := jsonv.NewObject(4)
		r.Set("name", p.Name)
		setIf(r, "title", p.Title)
		setIf(r, "description", p.Description)
		if len(p.Arguments) > 0 {
			args := make([]any, len(p.Arguments))
			for i, a := range p.Arguments {
				ao := jsonv.NewObject(3)
				ao.Set("name", a.Name)
				ao.Set("required", a.Required)
				setIf(ao, "description", a.Description)
				args[i] = ao
			}
			r.Set("arguments", args)
		}
		items = append(items, r)
	}
	return c.listResult(req, "prompts", items)
}

func findPrompt(sf *Surface, name string) *tool.Prompt {
	for _, p := range sf.Prompts {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// promptsGet runs a prompt handler on the executor.
func (c *conn) promptsGet(req *request) any {
	sf := c.srv.Surface()
	nv, _ := req.params.Get("name")
	name, _ := nv.(string)
	p := findPrompt(sf, name)
	if p == nil {
		return invalidParams("Unknown prompt: " + name)
	}
	args := jsonv.NewObject(0)
	if av, ok := req.params.Get("arguments"); ok && av != nil {
		o, ok := av.(*jsonv.Object)
		if !ok {
			return invalidParams("prompts/get: arguments must be an object")
		}
		args = o
	}
	for _, a := range p.Arguments {
		if a.Required && !args.Has(a.Name) {
			return invalidParams("Missing required argument: " + a.Name)
		}
	}
	v, res := c.callHandler(req, sf, p.Handler, tool.FromJSON(args), "prompt")
	if res != nil {
		return res
	}
	msgs, ok := promptMessages(v)
	if !ok {
		return errorf(codeInternalError, "prompt handler failed: it must return a string or a list of {role, content}")
	}
	out := jsonv.NewObject(2)
	setIf(out, "description", p.Description)
	out.Set("messages", msgs)
	return out
}

// promptMessages maps a prompt handler's value: a string is one user
// text message; a list holds {role, content} records whose content is a
// string or a content record (text, image, audio, resource).
func promptMessages(v vm.Value) ([]any, bool) {
	if s, ok := v.(vm.String); ok {
		return []any{message1("user", textBlock(s.Go()))}, true
	}
	l, ok := v.(*vm.List)
	if !ok {
		return nil, false
	}
	var out []any
	for _, it := range l.Items() {
		d, ok := it.(*vm.Dict)
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
		if s, ok := cv.(vm.String); ok {
			block = textBlock(s.Go())
		} else {
			j, err := tool.ToJSON(cv)
			if err != nil {
				return nil, false
			}
			if block = contentBlock(j); block == nil {
				return nil, false
			}
		}
		out = append(out, message1(role, block))
	}
	return out, true
}

func message1(role string, content *jsonv.Object) *jsonv.Object {
	m := jsonv.NewObject(2)
	m.Set("role", role)
	m.Set("content", content)
	return m
}

// complete answers completion/complete from prompt argument candidates
// (resource template variables have none).
func (c *conn) complete(req *request) any {
	rv, _ := req.params.Get("ref")
	ref, _ := rv.(*jsonv.Object)
	var typ string
	if ref != nil {
		tv, _ := ref.Get("type")
		typ, _ = tv.(string)
	}
	if typ == "" {
		return invalidParams("completion ref.type is required")
	}
	av, _ := req.params.Get("argument")
	arg, _ := av.(*jsonv.Object)
	var argName, value string
	if arg != nil {
		nv, _ := arg.Get("name")
		argName, _ = nv.(string)
		vv, _ := arg.Get("value")
		value, _ = vv.(string)
	}
	if argName == "" {
		return invalidParams("completion argument.name is required")
	}
	sf := c.srv.Surface()
	var candidates []string
	switch typ {
	case "ref/prompt":
		nv, _ := ref.Get("name")
		name, _ := nv.(string)
		p := findPrompt(sf, name)
		if p == nil {
			return invalidParams("Unknown prompt: " + name)
		}
		found := false
		for _, a := range p.Arguments {
			if a.Name == argName {
				found, candidates = true, a.Completions
			}
		}
		if !found {
			return invalidParams("Unknown prompt argument: " + argName)
		}
	case "ref/resource":
		uv, _ := ref.Get("uri")
		uri, _ := uv.(string)
		var tmpl *tool.ResourceTemplate
		for _, t := range sf.Templates {
			if t.URITemplate == uri {
				tmpl = t
			}
		}
		if tmpl == nil {
			return invalidParams("Unknown resource template: " + uri)
		}
		if !strings.Contains(tmpl.URITemplate, "{"+argName+"}") {
			return invalidParams("Unknown resource template argument: " + argName)
		}
	default:
		return invalidParams("Unsupported completion ref.type: " + typ)
	}
	values := rankCompletions(candidates, value)
	total := len(values)
	if len(values) > 100 {
		values = values[:100]
	}
	items := make([]any, len(values))
	for i, v := range values {
		items[i] = v
	}
	comp := jsonv.NewObject(3)
	comp.Set("values", items)
	comp.Set("total", jsonv.Int(int64(total)))
	comp.Set("hasMore", total > 100)
	res := jsonv.NewObject(1)
	res.Set("completion", comp)
	return res
}

// rankCompletions trims, de-duplicates and filters candidates by a
// case-insensitive substring; prefix matches come first, then the rest,
// each sorted by lower-case text.
func rankCompletions(candidates []string, value string) []string {
	needle := strings.ToLower(value)
	seen := map[string]bool{}
	var out []string
	for _, c := range candidates {
		c = strings.TrimSpace(c)
		if c == "" || seen[c] || !strings.Contains(strings.ToLower(c), needle) {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := strings.ToLower(out[i]), strings.ToLower(out[j])
		pa, pb := strings.HasPrefix(a, needle), strings.HasPrefix(b, needle)
		if pa != pb {
			return pa
		}
		return a < b
	})
	return out
}

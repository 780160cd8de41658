package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// builtins are the MCP client builtins; each is also a method of
// harness.tools (docs/spec/language.md §5.4).
var builtins = []struct {
	name, sig, doc string
	fn             vm.BuiltinFunc
}{
	{"mcp_connect", "mcp_connect(server, args?, options?) -> mcp_client", "connect to an MCP server: a command line or URL (an args list and an options dict may follow), or a config dict {command, args?, env?, cwd?} / {url, headers?} with name?, timeout?, protocol_version?", mcpConnect},
	{"mcp_list_tools", "mcp_list_tools(client) -> list", "the server's tools (every page): dicts {name, description?, inputSchema, ...}", listBuiltin("mcp_list_tools", "tools", "tools/list", "tools")},
	{"mcp_call", "mcp_call(client, tool, args?, options?)", "call a tool: its structuredContent, else its text; a tool error is thrown", mcpCall},
	{"mcp_list_resources", "mcp_list_resources(client) -> list", "the server's resources (every page): dicts {uri, name, ...}", listBuiltin("mcp_list_resources", "resources", "resources/list", "resources")},
	{"mcp_list_resource_templates", "mcp_list_resource_templates(client) -> list", "the server's resource templates (every page): dicts {uriTemplate, name, ...}", listBuiltin("mcp_list_resource_templates", "resources", "resources/templates/list", "resourceTemplates")},
	{"mcp_read_resource", "mcp_read_resource(client, uri)", "read a resource: its text, or the list of its contents when some are binary", mcpReadResource},
	{"mcp_list_prompts", "mcp_list_prompts(client) -> list", "the server's prompts (every page): dicts {name, description?, arguments?}", listBuiltin("mcp_list_prompts", "prompts", "prompts/list", "prompts")},
	{"mcp_get_prompt", "mcp_get_prompt(client, name, args?) -> dict", "render a prompt: {description?, messages}", mcpGetPrompt},
	{"mcp_server_info", "mcp_server_info(client) -> dict", "what the handshake learned: {name, server_name, version, protocol_version, capabilities, instructions?, transport, connected, ...}", mcpServerInfo},
	{"mcp_disconnect", "mcp_disconnect(client)", "close the connection (a stdio server is asked to exit, then killed)", mcpDisconnect},
	{"mcp_ensure_active", "mcp_ensure_active(name, config?) -> mcp_client", "the registry's client for name, connecting it on first use; counts a reference", mcpEnsureActive},
	{"mcp_release", "mcp_release(name) -> int", "drop a reference taken by mcp_ensure_active; the last one disconnects (returns the references left)", mcpRelease},
	{"mcp_registry_status", "mcp_registry_status() -> list", "the named servers: dicts {name, active, ref_count, transport, server_name, last_error}", mcpRegistryStatus},
	{"mcp_server_card", "mcp_server_card(url_or_client, options?) -> dict", "fetch an HTTP MCP server's discovery document (/.well-known/mcp.json) or server card", mcpServerCard},
	{"mcp_bootstrap", "mcp_bootstrap(servers?) -> list", "register named servers (a list of configs with names, or a dict name -> config; default: harn.toml's) and connect those not lazy; returns their registry status", mcpBootstrap},
	{"mcp_reauth_expired", "mcp_reauth_expired() -> list", "refresh the credentials of the active named HTTP servers whose credentials expired or were refused (their auth function); returns the names refreshed", mcpReauthExpired},
	{"mcp_host_spawn", "mcp_host_spawn(name, config, options?) -> dict", "start a supervised stdio MCP server, restarted with backoff when its process exits (options {max_restarts?, backoff?}); returns its status", mcpHostSpawn},
	{"mcp_host_tools", "mcp_host_tools(name) -> list", "the tools of a supervised server (every page)", mcpHostTools},
	{"mcp_host_call", "mcp_host_call(name, tool, args?, options?)", "call a tool of a supervised server, waiting while it restarts (results as mcp_call)", mcpHostCall},
	{"mcp_host_stop", "mcp_host_stop(name)", "stop a supervised server and its supervision", mcpHostStop},
	{"mcp_host_reload", "mcp_host_reload(name) -> dict", "stop a supervised server and start it again with the same config (the restart count starts afresh); returns its status", mcpHostReload},
	{"mcp_host_discover", "mcp_host_discover(url?) -> list", "the MCP servers harn.toml declares, or the one an HTTP origin publishes: dicts {name, transport, config, source, error}", mcpHostDiscover},
	{"mcp_host_status", "mcp_host_status(name?)", "the status of a supervised server {name, state, pid, restarts, server_name, last_error}, or the list of all", mcpHostStatus},
}

func init() {
	methods := make([]harness.CapabilityMethod, 0, len(builtins))
	for _, b := range builtins {
		lib.Def(b.name, b.sig, b.doc, b.fn)
		fn := b.fn
		methods = append(methods, harness.CapabilityMethod{Name: b.name, Sig: "harness.tools." + b.sig, Doc: b.doc,
			Fn: func(th *vm.Thread, _ vm.Value, args vm.Args) (vm.Value, error) { return fn(th, args) }})
	}
	harness.AddMethods("tools", methods)
}

// blocking runs work without the VM lock; a stopped thread cancels it.
func blocking(th *vm.Thread, work func(ctx context.Context) error) error {
	var err error
	if stop := htime.BlockingCtx(th, func(ctx context.Context) { err = work(ctx) }); stop != nil {
		return stop
	}
	return err
}

// failure is the thrown string of a failed operation: "builtin: reason".
func failure(builtin string, c *Client, err error) error {
	var ve *vm.Error
	if errors.As(err, &ve) {
		return ve
	}
	if errors.Is(err, errClosed) && c != nil {
		return vm.Throwf("%s: the client <mcp_client:%s> is disconnected", builtin, c.name)
	}
	if errors.Is(err, context.Canceled) {
		return vm.Throwf("%s: cancelled", builtin)
	}
	return vm.Throwf("%s: %s", builtin, err.Error())
}

// clientArg reads the client argument: a client, or the name of a
// server the registry has active.
func clientArg(th *vm.Thread, builtin string, a vm.Args, i int) (*Client, error) {
	v := a.At(i)
	if c, ok := v.Object().(*Client); ok {
		if c.s.isClosed() {
			return nil, vm.Throwf("%s: the client <mcp_client:%s> is disconnected", builtin, c.name)
		}
		return c, nil
	}
	if s, ok := v.AsString(); ok {
		r := registryOf(th)
		r.mu.Lock()
		e := r.entries[s.Go()]
		r.mu.Unlock()
		if e == nil || e.client == nil {
			return nil, vm.Throwf("%s: no active MCP server named %q (mcp_ensure_active starts one)", builtin, s.Go())
		}
		return e.client, nil
	}
	return nil, argErr(builtin, "expected an MCP client (from mcp_connect), got %s", v.Type())
}

func mcpConnect(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_connect"
	cfg, err := parseConfig(builtin, a)
	if err != nil {
		return vm.Value{}, err
	}
	if err := cfg.checkEgress(th); err != nil {
		return vm.Value{}, err
	}
	var c *Client
	dir := cfg.dir(th)
	in := cfg.inputs(th)
	err = blocking(th, func(ctx context.Context) error {
		var cerr error
		c, cerr = connect(ctx, cfg, dir, in)
		return cerr
	})
	if err != nil {
		return vm.Value{}, failure(builtin, nil, err)
	}
	return vm.Of(c), nil
}

// capable reports whether the server advertised capability key (a
// server that advertised nothing is asked anyway).
func (c *Client) capable(key string) bool {
	caps := c.s.capabilities
	if caps == nil || caps.Len() == 0 {
		return true
	}
	return caps.Has(key)
}

// listBuiltin is a list method gathered over every page. A server that
// does not advertise the capability has none: the list is empty and the
// server is not asked.
func listBuiltin(builtin, capability, method, key string) vm.BuiltinFunc {
	return func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := clientArg(th, builtin, a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return listOn(th, builtin, c, capability, method, key)
	}
}

// listOn gathers c's items of a list method over every page.
func listOn(th *vm.Thread, builtin string, c *Client, capability, method, key string) (vm.Value, error) {
	if !c.capable(capability) {
		return vm.Of(vm.NewList(nil)), nil
	}
	var items []any
	err := blocking(th, func(ctx context.Context) error {
		var lerr error
		items, lerr = c.s.list(ctx, method, key)
		return lerr
	})
	if err != nil {
		return vm.Value{}, failure(builtin, c, err)
	}
	if method == "tools/list" {
		c.rememberTools(items)
	}
	return tool.FromJSON(items), nil
}

// toolsCache holds the output schemas of the tools last listed, to
// recognise the released profile's {"result": …} wrapper.
type toolsCache struct {
	mu     sync.Mutex
	listed bool
	output map[string]any // tool name → outputSchema
}

func (c *Client) cache() *toolsCache { return &c.s.tools }

func (c *Client) rememberTools(items []any) {
	tc := c.cache()
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.listed = true
	tc.output = map[string]any{}
	for _, it := range items {
		o, ok := it.(*jsonv.Object)
		if !ok {
			continue
		}
		name, _ := jsonv.Member[string](o, "name")
		if s, ok := o.Get("outputSchema"); ok {
			tc.output[name] = s
		}
	}
}

// isResultWrapper reports whether schema is the object wrapper released
// MCP versions put around a non-object output
// (docs/spec/mcp-projection.md §5).
func isResultWrapper(schema any) bool {
	o, ok := schema.(*jsonv.Object)
	if !ok {
		return false
	}
	if t, _ := jsonv.Member[string](o, "type"); t != "object" {
		return false
	}
	props, _ := jsonv.Member[*jsonv.Object](o, "properties")
	if props == nil || props.Len() != 1 || !props.Has("result") {
		return false
	}
	req, _ := jsonv.Member[[]any](o, "required")
	if len(req) != 1 || req[0] != "result" {
		return false
	}
	ap, ok := o.Get("additionalProperties")
	return ok && ap == false
}

// unwrap undoes the released profile's wrapper: structuredContent
// {"result": x} of a tool whose output schema is the wrapper is x. The
// tools are listed once per client when needed.
func (c *Client) unwrap(ctx context.Context, name string, sc any) any {
	o, ok := sc.(*jsonv.Object)
	if !ok || o.Len() != 1 || !o.Has("result") || c.s.sessionFree {
		return sc
	}
	tc := c.cache()
	tc.mu.Lock()
	listed := tc.listed
	tc.mu.Unlock()
	if !listed {
		items, err := c.s.list(ctx, "tools/list", "tools")
		if err != nil {
			return sc
		}
		c.rememberTools(items)
	}
	tc.mu.Lock()
	schema := tc.output[name]
	tc.mu.Unlock()
	if isResultWrapper(schema) {
		v, _ := o.Get("result")
		return v
	}
	return sc
}

// texts are the text blocks of content; all is false when a block is
// not text.
func texts(content []any) (out []string, all bool) {
	all = true
	for _, b := range content {
		o, ok := b.(*jsonv.Object)
		if !ok {
			all = false
			continue
		}
		if t, _ := jsonv.Member[string](o, "type"); t != "text" {
			all = false
			continue
		}
		s, _ := jsonv.Member[string](o, "text")
		out = append(out, s)
	}
	return out, all
}

func mcpCall(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_call"
	c, err := clientArg(th, builtin, a, 0)
	if err != nil {
		return vm.Value{}, err
	}
	return callTool(th, builtin, c, a[1:])
}

// callTool calls a tool of c; a is (tool, args?, options?).
func callTool(th *vm.Thread, builtin string, c *Client, a vm.Args) (vm.Value, error) {
	ts, err := textArg(builtin, "tool name", a, 0)
	if err != nil {
		return vm.Value{}, err
	}
	params := jsonv.NewObject(2)
	params.Set("name", ts)
	arguments := jsonv.NewObject(0)
	if a.Given(1) && !a.At(1).IsNil() {
		if _, ok := a.Dict(1); !ok {
			return vm.Value{}, argErr(builtin, "the arguments must be a dict, got %s", a.At(1).Type())
		}
		j, jerr := tool.ToJSON(a.At(1))
		if jerr != nil {
			return vm.Value{}, argErr(builtin, "the arguments must be JSON data: %v", jerr)
		}
		arguments = j.(*jsonv.Object)
	}
	params.Set("arguments", arguments)
	timeout := c.s.timeout
	if a.Given(2) && !a.At(2).IsNil() {
		opts, ok := a.Dict(2)
		if !ok {
			return vm.Value{}, lib.BadOptions(builtin, a.At(2))
		}
		if err := lib.CheckOptions(builtin, opts, []string{"timeout"}); err != nil {
			return vm.Value{}, err
		}
		if v, ok := opts.Get("timeout"); ok && !v.IsNil() {
			if timeout, err = timeoutOf(builtin, v); err != nil {
				return vm.Value{}, err
			}
		}
	}
	var out any
	var toolErr string
	err = blocking(th, func(ctx context.Context) error {
		var o *jsonv.Object
		for round := 0; ; round++ {
			res, cerr := c.s.requestWithin(ctx, "tools/call", params, ts, timeout)
			if cerr != nil {
				return cerr
			}
			var ok bool
			if o, ok = res.(*jsonv.Object); !ok {
				return fmt.Errorf("the answer to tools/call is not an object")
			}
			if rt, _ := jsonv.Member[string](o, "resultType"); rt != "input_required" {
				break
			}
			// The 2026-07-28 round trip: answer what the client can (its
			// roots) and call again with the server's request state.
			responses, ok, herr := c.s.inputResponses(ctx, o)
			if herr != nil {
				return herr
			}
			if !ok {
				return fmt.Errorf("tool %q asks the client for input it has no handler for (elicitation, sampling, or roots it was not given)", ts)
			}
			if round == maxInputRounds {
				return fmt.Errorf("tool %q still asks for input after %d rounds", ts, maxInputRounds)
			}
			params = params.Copy()
			state, _ := o.Get("requestState")
			params.Set("requestState", state)
			params.Set("inputResponses", responses)
		}
		content, _ := jsonv.Member[[]any](o, "content")
		txt, all := texts(content)
		if isErr, _ := jsonv.Member[bool](o, "isError"); isErr {
			toolErr = strings.Join(txt, "\n")
			if toolErr == "" {
				toolErr = fmt.Sprintf("tool %q reported an error", ts)
			}
			return nil
		}
		if sc, ok := o.Get("structuredContent"); ok {
			out = c.unwrap(ctx, ts, sc)
			return nil
		}
		if all {
			out = strings.Join(txt, "\n")
			return nil
		}
		out = content
		return nil
	})
	if err != nil {
		return vm.Value{}, failure(builtin, c, err)
	}
	if toolErr != "" {
		return vm.Value{}, vm.Throwf("%s: %s", builtin, toolErr)
	}
	return tool.FromJSON(out), nil
}

func mcpReadResource(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_read_resource"
	c, err := clientArg(th, builtin, a, 0)
	if err != nil {
		return vm.Value{}, err
	}
	uri, err := textArg(builtin, "uri", a, 1)
	if err != nil {
		return vm.Value{}, err
	}
	params := jsonv.NewObject(1)
	params.Set("uri", uri)
	var out any
	err = blocking(th, func(ctx context.Context) error {
		res, rerr := c.s.request(ctx, "resources/read", params, uri)
		if rerr != nil {
			return rerr
		}
		o, ok := res.(*jsonv.Object)
		if !ok {
			return fmt.Errorf("the answer to resources/read is not an object")
		}
		contents, _ := jsonv.Member[[]any](o, "contents")
		var txt []string
		for _, it := range contents {
			co, _ := it.(*jsonv.Object)
			s, ok := jsonv.Member[string](co, "text")
			if !ok {
				out = contents
				return nil
			}
			txt = append(txt, s)
		}
		out = strings.Join(txt, "\n")
		return nil
	})
	if err != nil {
		return vm.Value{}, failure(builtin, c, err)
	}
	return tool.FromJSON(out), nil
}

func mcpGetPrompt(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_get_prompt"
	c, err := clientArg(th, builtin, a, 0)
	if err != nil {
		return vm.Value{}, err
	}
	name, err := textArg(builtin, "prompt name", a, 1)
	if err != nil {
		return vm.Value{}, err
	}
	params := jsonv.NewObject(2)
	params.Set("name", name)
	if a.Given(2) && !a.At(2).IsNil() {
		d, ok := a.Dict(2)
		if !ok {
			return vm.Value{}, argErr(builtin, "the arguments must be a dict, got %s", a.At(2).Type())
		}
		// Prompt arguments are strings (MCP): other values are sent as
		// they display.
		args := jsonv.NewObject(d.Len())
		for _, k := range d.Keys() {
			v, _ := d.Get(k)
			args.Set(k, vm.ToDisplay(v))
		}
		params.Set("arguments", args)
	}
	var out any
	err = blocking(th, func(ctx context.Context) error {
		res, perr := c.s.request(ctx, "prompts/get", params, name)
		if perr != nil {
			return perr
		}
		if o, ok := res.(*jsonv.Object); ok {
			out = o.Without("resultType").Without("_meta")
			return nil
		}
		return fmt.Errorf("the answer to prompts/get is not an object")
	})
	if err != nil {
		return vm.Value{}, failure(builtin, c, err)
	}
	return tool.FromJSON(out), nil
}

func mcpServerInfo(th *vm.Thread, a vm.Args) (vm.Value, error) {
	v := a.At(0)
	c, ok := v.Object().(*Client)
	if !ok {
		cl, err := clientArg(th, "mcp_server_info", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		c = cl
	}
	return tool.FromJSON(c.info()), nil
}

func mcpDisconnect(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_disconnect"
	v := a.At(0)
	c, ok := v.Object().(*Client)
	if !ok {
		if _, isStr := v.AsString(); !isStr {
			return vm.Value{}, argErr(builtin, "expected an MCP client (from mcp_connect), got %s", v.Type())
		}
		cl, err := clientArg(th, builtin, a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		c = cl
	}
	if c.registry != "" {
		registryOf(th).forget(c)
	}
	closeOff(th, c)
	return vm.Nil, nil
}

// closeOff closes c's session off the VM lock (the server may take a
// while to exit); a nil c is nothing to close.
func closeOff(th *vm.Thread, c *Client) {
	if c == nil {
		return
	}
	blocking(th, func(context.Context) error {
		c.s.close()
		return nil
	})
}

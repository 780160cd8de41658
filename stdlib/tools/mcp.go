package tools

import (
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// The in-handler MCP builtins (docs/spec/mcp-projection.md §8, §13): they talk to
// the MCP request a served handler runs for. The MCP adapter
// (adapter/mcp) installs an MCPHandler on the VM around every handler
// call; outside one, each builtin reports that there is no active
// request (progress and logging just return false).
//
//	mcp_report_progress(progress, {total?, message?, token?}) -> bool
//	mcp_elicit({message, requestedSchema, mode?})             -> {action, content?}
//	mcp_client_roots(), mcp_roots()                           -> list of roots
//	mcp_sample({messages, maxTokens, ...})                    -> CreateMessageResult
//	mcp_log(level, data, {logger?})                           -> bool
//	mcp_resource_updated(uri)                                 -> bool
//
// Each is a free builtin and a method of harness.tools.

// MCPHandler is the served MCP request a handler runs for.
type MCPHandler interface {
	// ReportProgress emits notifications/progress for the request's
	// progress token (or token, when given); it reports false when there
	// is no token or progress does not strictly increase.
	ReportProgress(progress float64, total *float64, message *string, token any) bool
	// Input asks the client for input: method is elicitation/create,
	// roots/list or sampling/createMessage and params its JSON params.
	// The result is the client's JSON answer. An error either abandons
	// the handler (a *vm.Error of kind KindCancelled: the adapter then
	// answers input_required or fails the task) or is a message the
	// builtin raises.
	Input(th *vm.Thread, builtin, method string, params *jsonv.Object) (any, error)
	// Log emits notifications/message when the client's level admits it.
	Log(level, logger string, data any) bool
	// ResourceUpdated notifies subscribers of uri; false when none.
	ResourceUpdated(uri string) bool
}

type mcpSlot struct {
	mu sync.Mutex
	h  MCPHandler
}

type mcpKey struct{}

func mcpSlotFor(v *vm.VM) *mcpSlot {
	return v.Local(mcpKey{}, func() any { return &mcpSlot{} }).(*mcpSlot)
}

// SetMCPHandler makes h the active MCP request of v's handlers and
// returns a function restoring the previous one. Handlers of one VM are
// served one at a time, so one slot per VM is enough.
func SetMCPHandler(v *vm.VM, h MCPHandler) (restore func()) {
	s := mcpSlotFor(v)
	s.mu.Lock()
	prev := s.h
	s.h = h
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.h = prev
		s.mu.Unlock()
	}
}

func activeMCP(th *vm.Thread) MCPHandler {
	s := mcpSlotFor(th.VM())
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.h
}

func noActiveRequest(builtin string) error {
	return &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": no active MCP request; this builtin is only valid inside a served MCP handler"}
}

func mcpReportProgress(th *vm.Thread, a vm.Args) (vm.Value, error) {
	h := activeMCP(th)
	progress, ok := a.Num(0)
	if h == nil || !ok {
		return vm.False, nil
	}
	var total *float64
	var message *string
	var token any
	if opts, ok := a.Dict(1); ok {
		if v, ok := opts.Get("total"); ok && !v.IsNil() {
			if f, ok := vm.Args([]vm.Value{v}).Num(0); ok {
				total = &f
			}
		}
		if v, ok := opts.Get("message"); ok && !v.IsNil() {
			s := vm.ToDisplay(v)
			message = &s
		}
		if v, ok := opts.Get("token"); ok && !v.IsNil() {
			if j, err := tool.ToJSON(v); err == nil {
				token = j
			}
		}
	}
	return vm.BoolOf(h.ReportProgress(progress, total, message, token)), nil
}

// mcpInput converts a dict argument to JSON params and asks the client.
func mcpInput(th *vm.Thread, builtin, method string, arg vm.Value) (any, error) {
	h := activeMCP(th)
	if h == nil {
		return nil, noActiveRequest(builtin)
	}
	params := jsonv.NewObject(0)
	if arg.IsValid() && !arg.IsNil() {
		j, err := tool.ToJSON(arg)
		if err != nil {
			return nil, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": argument must be a dict of JSON values"}
		}
		o, ok := j.(*jsonv.Object)
		if !ok {
			return nil, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": argument must be a dict"}
		}
		params = o
	}
	return h.Input(th, builtin, method, params)
}

func mcpElicit(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_elicit"
	d, ok := a.Dict(0)
	if !ok {
		return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": argument must be a dict {message, requestedSchema, mode?}"}
	}
	if _, ok := d.Get("message"); !ok {
		return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": 'message' is required"}
	}
	if d.Has("requested_schema") && !d.Has("requestedSchema") {
		v, _ := d.Get("requested_schema")
		d = d.Delete("requested_schema").Set("requestedSchema", v)
	}
	mode := "form"
	if m, ok := d.Get("mode"); ok && !m.IsNil() {
		mode = vm.ToDisplay(m)
	} else {
		d = d.Set("mode", vm.Str("form"))
	}
	var schema any
	if mode == "form" {
		sv, ok := d.Get("requestedSchema")
		if !ok {
			return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": 'requestedSchema' is required in form mode"}
		}
		g, err := jsonschema.ToAny(sv)
		if err != nil {
			return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": 'requestedSchema' must be a JSON Schema dict"}
		}
		schema = g
	}
	res, err := mcpInput(th, builtin, "elicitation/create", vm.Of(d))
	if err != nil {
		return vm.Value{}, err
	}
	o, ok := res.(*jsonv.Object)
	if !ok {
		return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": the client's answer is not an object"}
	}
	action, _ := o.Get("action")
	out := jsonv.NewObject(2)
	switch action {
	case "accept":
		out.Set("action", "accept")
		content, _ := o.Get("content")
		if content == nil {
			content = jsonv.NewObject(0)
		}
		if schema != nil {
			v, err := jsonschema.Compile(schema)
			if err != nil {
				return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": invalid requestedSchema: " + err.Error()}
			}
			if err := v.Validate(jsonv.Plain(content)); err != nil {
				// The violations only: the library's own text names the
				// schema by its internal cache id.
				return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": the accepted content does not match requestedSchema: " + strings.Join(jsonschema.Violations(err), "; ")}
			}
		}
		out.Set("content", content)
	case "decline", "cancel":
		out.Set("action", action)
	default:
		return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": the client's answer has no valid action"}
	}
	return tool.FromJSON(out), nil
}

// clientRoots is mcp_client_roots and its alias mcp_roots: both names
// are in the harness.tools table (docs/spec/language.md §5.4), which
// says nothing to tell them apart, and the seeds use mcp_client_roots.
// Each reports errors under its own name.
func clientRoots(builtin string) vm.BuiltinFunc {
	return func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		res, err := mcpInput(th, builtin, "roots/list", vm.Value{})
		if err != nil {
			return vm.Value{}, err
		}
		if o, ok := res.(*jsonv.Object); ok {
			if roots, ok := o.Get("roots"); ok {
				if l, ok := roots.([]any); ok {
					return tool.FromJSON(l), nil
				}
			}
		}
		return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": the client's answer has no roots list"}
	}
}

func mcpSample(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_sample"
	d, ok := a.Dict(0)
	if !ok || !d.Has("messages") {
		return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": argument must be a dict {messages, maxTokens, ...}"}
	}
	if !d.Has("maxTokens") {
		d = d.Set("maxTokens", vm.IntOf(int64(1000)))
	}
	res, err := mcpInput(th, builtin, "sampling/createMessage", vm.Of(d))
	if err != nil {
		return vm.Value{}, err
	}
	return tool.FromJSON(res), nil
}

var logLevels = map[string]bool{"debug": true, "info": true, "notice": true, "warning": true, "error": true, "critical": true, "alert": true, "emergency": true}

func mcpLog(th *vm.Thread, a vm.Args) (vm.Value, error) {
	level, ok := a.Str(0)
	if !ok || !logLevels[level] {
		return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: "mcp_log: level must be one of debug, info, notice, warning, error, critical, alert, emergency"}
	}
	h := activeMCP(th)
	if h == nil {
		return vm.False, nil
	}
	data, err := tool.ToJSON(a.At(1))
	if err != nil {
		data = vm.ToDisplay(a.At(1))
	}
	logger := ""
	if opts, ok := a.Dict(2); ok {
		if v, ok := opts.Get("logger"); ok && !v.IsNil() {
			logger = vm.ToDisplay(v)
		}
	}
	return vm.BoolOf(h.Log(level, logger, data)), nil
}

func mcpResourceUpdated(th *vm.Thread, a vm.Args) (vm.Value, error) {
	uri, ok := a.Str(0)
	if !ok {
		return vm.Value{}, &vm.Error{Kind: vm.KindRuntime, Msg: "mcp_resource_updated: uri must be a string"}
	}
	h := activeMCP(th)
	if h == nil {
		return vm.False, nil
	}
	return vm.BoolOf(h.ResourceUpdated(uri)), nil
}

// mcpHandlerBuiltins are the in-handler builtins, shared by the free
// functions and the harness.tools methods.
var mcpHandlerBuiltins = []struct {
	name, sig, doc string
	fn             vm.BuiltinFunc
}{
	{"mcp_report_progress", "mcp_report_progress(progress, opts?) -> bool", "emit MCP progress for the served request (true when sent)", mcpReportProgress},
	{"mcp_elicit", "mcp_elicit({message, requestedSchema, mode?})", "ask the MCP client for structured input: {action, content?}", mcpElicit},
	{"mcp_client_roots", "mcp_client_roots()", "the MCP client's roots", clientRoots("mcp_client_roots")},
	{"mcp_roots", "mcp_roots()", "the MCP client's roots (another name of mcp_client_roots)", clientRoots("mcp_roots")},
	{"mcp_sample", "mcp_sample({messages, maxTokens, ...})", "ask the MCP client to sample a model message", mcpSample},
	{"mcp_log", "mcp_log(level, data, opts?) -> bool", "emit an MCP log notification (true when sent)", mcpLog},
	{"mcp_resource_updated", "mcp_resource_updated(uri: string) -> bool", "notify MCP clients subscribed to a resource (true when one is)", mcpResourceUpdated},
}

func mcpCapabilityMethods() []harness.CapabilityMethod {
	var out []harness.CapabilityMethod
	for _, b := range mcpHandlerBuiltins {
		fn := b.fn
		out = append(out, harness.CapabilityMethod{Name: b.name, Sig: "harness.tools." + b.sig, Doc: b.doc,
			Fn: func(th *vm.Thread, _ vm.Value, args vm.Args) (vm.Value, error) { return fn(th, args) }})
	}
	return out
}

func init() {
	for _, b := range mcpHandlerBuiltins {
		lib.Def(b.name, b.sig, b.doc, b.fn)
	}
}

package tool

import (
	"fmt"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool/internal/schema"
	"github.com/harnlang/harn/vm"
)

// Phase names the contract boundary a violation happened at.
type Phase string

// Contract phases.
const (
	PhaseInput            Phase = "input"
	PhaseOutput           Phase = "output"
	PhaseApplicationError Phase = "application error"
)

// ContractError is a value-free contract violation (docs/spec/registry.md §6):
// `tool "X" <phase> violates its declared schema: <details>`.
type ContractError struct {
	Tool    string
	Phase   Phase
	Details string
}

func (e *ContractError) Error() string {
	return fmt.Sprintf("tool %q %s violates its declared schema: %s", e.Tool, e.Phase, e.Details)
}

func contractError(tool string, phase Phase, fs []schema.Failure) *ContractError {
	return &ContractError{Tool: tool, Phase: phase, Details: schema.Summary(fs)}
}

func portableViolation(tool string, phase Phase, err error) *ContractError {
	path := "/"
	if np, ok := err.(*NonPortableError); ok {
		path = np.Path
	}
	return &ContractError{Tool: tool, Phase: phase, Details: path + " failed portableJson"}
}

// toArgs converts call arguments to the form validators and handlers
// use: a jsonv value; generic maps from encoding/json are accepted.
func toArgs(args any) any {
	switch a := args.(type) {
	case nil:
		return jsonv.NewObject(0)
	case map[string]any, float64, int, int64:
		return jsonv.FromPlain(a)
	case []any:
		return jsonv.FromPlain(a)
	}
	return args
}

// ValidateInput checks call arguments against the prepared input schema.
func (t *PreparedTool) ValidateInput(args any) error {
	if fs := t.input.Validate(toArgs(args)); fs != nil {
		return contractError(t.Name(), PhaseInput, fs)
	}
	return nil
}

// ValidateOutput checks a portable result against the output schema.
func (t *PreparedTool) ValidateOutput(result any) error {
	if t.output == nil {
		return nil
	}
	if fs := t.output.Validate(result); fs != nil {
		return contractError(t.Name(), PhaseOutput, fs)
	}
	return nil
}

// OutcomeKind classifies a tool call.
type OutcomeKind int

const (
	// Success: Result holds the portable, validated handler value.
	Success OutcomeKind = iota
	// ApplicationError: the handler threw a value matching errorSchema;
	// Data holds it.
	ApplicationError
	// RuntimeFailure: an undeclared throw or a VM failure; Summary is
	// value-free.
	RuntimeFailure
	// ContractViolation: a non-portable or schema-violating result, or a
	// declared throw of the wrong shape; Contract explains it.
	ContractViolation
	// InvalidInput: the arguments violate the input schema; the handler
	// was not called. Contract explains it.
	InvalidInput
)

// Outcome is a classified tool call. Adapters render it; none of its
// text fields ever contains a thrown value.
type Outcome struct {
	Kind OutcomeKind
	Tool string
	// Result is the portable handler result (Success).
	Result any
	// Value is the raw handler result (Success), e.g. for a display-form
	// text rendering.
	Value vm.Value
	// Data is the portable thrown value (ApplicationError).
	Data any
	// Thrown is the value the handler threw (ApplicationError), for a
	// script calling its own tool: it catches that value, not its JSON
	// form (docs/tools.md, Calling a tool value).
	Thrown vm.Value
	// Contract describes a ContractViolation or InvalidInput.
	Contract *ContractError
	// Summary is the value-free human summary of any failure
	// (docs/spec/registry.md §6): "declared application error", "tool threw an
	// undeclared value", the contract message, …
	Summary string
	// Err is the VM failure behind a RuntimeFailure (its Kind lets an
	// adapter honour exit() or cancellation). Never print a thrown value
	// it carries.
	Err *vm.Error
	// Cap is the max_output the hooks of a successful call applied (0
	// when none): a string Result is already cut to it; the agent loop
	// cuts the JSON text a model reads of any other result (CapRendered).
	Cap int
	// pendingCap is the max_output a successful call's hooks set that
	// is not applied yet (InvokeWithin); 0 when none.
	pendingCap int
}

// FailureText is "tool \"X\" failed: <summary>", the generic rendering
// of a failed call (CLI stderr, MCP text content).
func (o *Outcome) FailureText() string { return fmt.Sprintf("tool %q failed: %s", o.Tool, o.Summary) }

// Summaries of docs/spec/registry.md §6.
const (
	SummaryApplicationError = "declared application error"
	SummaryUndeclaredThrow  = "tool threw an undeclared value"
)

// Invoke validates the arguments, calls the tool's handler on th (a
// thread of the VM that owns the registry), or for a "host_bridge" tool
// the host capability it names, and classifies the outcome.
//
// The VM's tool hooks (hooks.go) apply first: a denying hook refuses the
// call, and a cap shortens a string result.
func (t *PreparedTool) Invoke(th *vm.Thread, args any) *Outcome {
	return applyCap(t.InvokeWithin(th, args))
}

// InvokeWithin is Invoke as part of a tool call already under way under
// another name (a renamed tool_bind value running the tool it binds):
// the hooks of t's name run, but their cap is left to the enclosing call,
// which applies the smallest cap of both names once.
func (t *PreparedTool) InvokeWithin(th *vm.Thread, args any) *Outcome {
	name := t.Name()
	return applyHooks(th, name, args, func(args any) *Outcome { return t.invoke(th, name, args) })
}

// InvokeWithoutHooks is Invoke without the hooks: for a tool value's
// handler run by a call of the same tool whose hooks have run.
func (t *PreparedTool) InvokeWithoutHooks(th *vm.Thread, args any) *Outcome {
	return t.invoke(th, t.Name(), args)
}

// A Delegate is the handler of a tool value (tool_ref, tool_bind) as a
// tool call runs it: the call of the tool it stands for, given the
// validated arguments, without the hooks of the value's own name.
type Delegate func(th *vm.Thread, args any) *Outcome

// DelegateHandler makes the handler of a tool value from fn, which a
// script calling it runs (the tool the way adapters run it, hooks
// included), and run, which a tool call of the value runs instead: that
// call has just applied the hooks of the name, and one call runs its
// hooks once (docs/tools.md, Tool hooks).
func DelegateHandler(name, sig, doc string, fn vm.BuiltinFunc, run Delegate) vm.Value {
	b := vm.NewBuiltin(name, sig, doc, fn)
	b.Host = run
	return vm.Of(b)
}

// delegateOf is the Delegate of a handler DelegateHandler made, or nil.
func delegateOf(handler vm.Value) Delegate {
	if b, ok := handler.AsBuiltin(); ok {
		if d, ok := b.Host.(Delegate); ok {
			return d
		}
	}
	return nil
}

func (t *PreparedTool) invoke(th *vm.Thread, name string, args any) *Outcome {
	args = toArgs(args)
	if err := t.ValidateInput(args); err != nil {
		ce := err.(*ContractError)
		return &Outcome{Kind: InvalidInput, Tool: name, Contract: ce, Summary: ce.Error()}
	}
	args = t.input.Integers(args)
	var v vm.Value
	var err error
	if run := delegateOf(t.Tool.Handler); run != nil {
		out := run(th, args)
		out.Tool = name
		return out
	}
	switch {
	case t.Tool.Handler.IsValid():
		v, err = th.CallPlain(t.Tool.Handler, []vm.Value{FromJSON(args)})
	case t.Tool.Executor == "host_bridge" && hostBridge != nil:
		var found bool
		v, found, err = hostBridge(th, t.Tool.HostCapability, FromJSON(args))
		if !found {
			return &Outcome{Kind: RuntimeFailure, Tool: name,
				Summary: fmt.Sprintf("no host provides capability %q (executor \"host_bridge\")", t.Tool.HostCapability)}
		}
	default:
		return &Outcome{Kind: RuntimeFailure, Tool: name,
			Summary: fmt.Sprintf("tool has no local handler (executor %q)", t.Tool.Executor)}
	}
	if err != nil {
		return t.classifyError(vm.AsError(err))
	}
	return t.classifyResult(v)
}

// HostBridge calls the host capability named capability with args, as
// host_call(capability, args) does; found is false when neither the
// host nor a host mock provides it.
type HostBridge func(th *vm.Thread, capability string, args vm.Value) (v vm.Value, found bool, err error)

// hostBridge runs the tools whose executor is "host_bridge": Invoke
// hands their validated arguments to the host capability the tool names
// (docs/spec/registry.md §2, `host_capability`) and classifies what it
// answers as a handler's result. Nil when the host bridge is not linked
// in.
var hostBridge HostBridge

// SetHostBridge installs the host bridge; the package implementing
// host_call calls it once, at init.
func SetHostBridge(b HostBridge) { hostBridge = b }

func (t *PreparedTool) classifyResult(v vm.Value) *Outcome {
	name := t.Name()
	j, err := ToJSON(v)
	if err != nil {
		ce := portableViolation(name, PhaseOutput, err)
		return &Outcome{Kind: ContractViolation, Tool: name, Contract: ce, Summary: ce.Error()}
	}
	if err := t.ValidateOutput(j); err != nil {
		ce := err.(*ContractError)
		return &Outcome{Kind: ContractViolation, Tool: name, Contract: ce, Summary: ce.Error()}
	}
	return &Outcome{Kind: Success, Tool: name, Result: j, Value: v}
}

// categorySummary is the value-free summary of each failure category a
// handler can end with; cancelled and budget_exceeded stay runtime
// failures whatever the error schema says.
var categorySummary = map[string]string{
	"auth":            "tool authentication_error",
	"budget_exceeded": "tool execution budget exceeded",
	"cancelled":       "tool execution cancelled",
	"rate_limit":      "tool execution was rate limited",
}

func (t *PreparedTool) classifyError(e *vm.Error) *Outcome {
	name := t.Name()
	runtime := func(summary string) *Outcome {
		return &Outcome{Kind: RuntimeFailure, Tool: name, Summary: summary, Err: e}
	}
	switch e.Kind {
	case vm.KindCancelled:
		return runtime(categorySummary["cancelled"])
	case vm.KindExit:
		return runtime(e.UncaughtText())
	case vm.KindCategorized:
		if s, ok := categorySummary[e.Category]; ok {
			return runtime(s)
		}
		return runtime(e.UncaughtText())
	case vm.KindThrown:
	default:
		return runtime(e.ValueFreeText())
	}
	// a raw throw
	category := ""
	if d, ok := e.Value.AsDict(); ok {
		if c, ok := d.Get("category"); ok {
			category, _ = str(c)
		}
	}
	if category == "cancelled" || category == "budget_exceeded" {
		return runtime(categorySummary[category])
	}
	if t.appErr == nil {
		if s, ok := categorySummary[category]; ok {
			return runtime(s)
		}
		return runtime(SummaryUndeclaredThrow)
	}
	j, err := ToJSON(e.Value)
	if err != nil {
		ce := portableViolation(name, PhaseApplicationError, err)
		return &Outcome{Kind: ContractViolation, Tool: name, Contract: ce, Summary: ce.Error()}
	}
	if fs := t.appErr.Validate(j); fs != nil {
		ce := contractError(name, PhaseApplicationError, fs)
		return &Outcome{Kind: ContractViolation, Tool: name, Contract: ce, Summary: ce.Error()}
	}
	return &Outcome{Kind: ApplicationError, Tool: name, Data: j, Thrown: e.Value, Summary: SummaryApplicationError}
}

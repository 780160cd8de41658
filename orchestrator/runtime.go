package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/orchestrator/manifest"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/stdlib/llm/llmmeter"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// Runtime holds the project's local handler and predicate functions:
// every module a binding names, loaded as a library (docs/spec/language.md §11.2:
// imports, top-level bindings and functions; never `main`) into one
// interpreter session. Calls from several dispatches run on threads of
// the one VM, which serializes Harn code and lets waiting handlers
// overlap (docs/concurrency.md).
type Runtime struct {
	sess *interp.Session
	// globals are the loaded modules' globals as initialised, by file +
	// "::" + name: what a handler reference resolves to. A binding
	// replayed as it was at an earlier instant resolves its handler here
	// too, after loading, so the map is never written once LoadRuntime
	// returns (handler threads may change a global later; a function
	// declaration is constant).
	globals map[string]vm.Value
	// loaded are the module files loaded.
	loaded map[string]bool
	root   string // the project root, errors name files from it
}

// LoadRuntime loads the modules of m's local handlers and predicates and
// resolves each reference; an unresolvable one is a manifest problem
// naming the binding and field. Handler output (print, log) goes to
// stderr: on stdio, stdout belongs to the protocol.
func LoadRuntime(m *manifest.Manifest, stderr io.Writer) (*Runtime, error) {
	r := &Runtime{
		sess:    interp.NewSession(interp.Options{Stdout: stderr, Stderr: stderr, Stdin: strings.NewReader("")}),
		globals: map[string]vm.Value{},
		loaded:  map[string]bool{},
		root:    m.Root,
	}
	failed := map[string]string{}
	var problems []manifest.Problem
	resolve := func(t *manifest.Trigger, field string, h manifest.Handler) {
		bad := func(msg string) {
			problems = append(problems, m.Problem(t, field, msg))
		}
		if !r.loaded[h.File] {
			if msg, ok := failed[h.File]; ok {
				bad(msg)
				return
			}
			if err := r.load(h.File); err != nil {
				failed[h.File] = err.Error()
				bad(err.Error())
				return
			}
		}
		if _, err := r.function(h); err != nil {
			bad(err.Error())
		}
	}
	for _, t := range m.Triggers {
		if t.Handler.Kind == "local" {
			resolve(t, "handler", t.Handler)
		}
		if t.WhenRef != nil {
			resolve(t, "when", *t.WhenRef)
		}
	}
	if len(problems) > 0 {
		return nil, &manifest.Error{Problems: problems}
	}
	return r, nil
}

// function is the function a local handler or predicate reference names
// in the modules loaded, callable with (event) or (event, secrets).
func (r *Runtime) function(h manifest.Handler) (*vm.Closure, error) {
	if !r.loaded[h.File] {
		return nil, fmt.Errorf("%s is not loaded: no binding of the project now served uses it", h.File)
	}
	v, ok := r.globals[h.File+"::"+h.Function]
	fn, isFn := v.AsClosure()
	switch {
	case !ok:
		return nil, fmt.Errorf("function %s is not defined in %s", h.Function, h.File)
	case !isFn:
		return nil, fmt.Errorf("%s in %s is not a function", h.Function, h.File)
	case requiredParams(fn) > 2:
		return nil, fmt.Errorf("%s in %s takes %d parameters; it is called with (event) or (event, secrets)", h.Function, h.File, requiredParams(fn))
	}
	return fn, nil
}

// Resolve checks that a local handler or predicate reference names a
// function of the code loaded now (a recorded binding's, on replay).
func (r *Runtime) Resolve(h manifest.Handler) error {
	_, err := r.function(h)
	return err
}

// requiredParams counts fn's parameters without a default (a rest
// parameter takes what is left, so it is not counted).
func requiredParams(fn *vm.Closure) int {
	n := 0
	for _, p := range fn.Proto.Params {
		if !p.HasDefault && !p.Rest {
			n++
		}
	}
	return n
}

// load loads and initialises a module file (relative to the root) and
// keeps its globals.
func (r *Runtime) load(file string) error {
	path := filepath.Join(r.root, file)
	mod, err := r.sess.LoadModule(path)
	if err != nil {
		return fmt.Errorf("cannot load %s:\n%s", path, strings.TrimRight(r.sess.RenderError(err), "\n"))
	}
	if err := r.sess.InitModule(mod); err != nil {
		return fmt.Errorf("initialising %s failed: %s", path, r.callError(err))
	}
	for _, g := range mod.Program.Globals {
		if v, ok := mod.VM.Global(g.Name); ok {
			r.globals[file+"::"+g.Name] = v
		}
	}
	r.loaded[file] = true
	return nil
}

// Call runs a local function with the event as a Harn dict and returns
// its result as JSON. A function with a second parameter receives the
// binding's secrets in it, as a dict (never in the event, which the log
// keeps). A function that throws, or returns Err(x), fails; ctx's end
// cancels the Harn thread.
func (r *Runtime) Call(ctx context.Context, h manifest.Handler, event any, secrets map[string]string) (any, error) {
	return r.call(ctx, h, event, secrets, nil)
}

// call is Call with the LLM calls of the run counted in meter (nil: not
// counted apart from the VM's totals).
func (r *Runtime) call(ctx context.Context, h manifest.Handler, event any, secrets map[string]string, meter *llmmeter.Meter) (any, error) {
	fn, err := r.function(h)
	if err != nil {
		return nil, fmt.Errorf("handler %s: %v", h.Reference, err)
	}
	args := []vm.Value{tool.FromJSON(event)}
	if len(fn.Proto.Params) >= 2 {
		s := make(map[string]any, len(secrets))
		for k, v := range secrets {
			s[k] = v
		}
		args = append(args, tool.FromJSON(s))
	}
	th := r.sess.VM.NewThread()
	if meter != nil {
		defer llmmeter.Attach(th, meter)()
	}
	stop := context.AfterFunc(ctx, th.Cancel)
	defer stop()
	res, err := th.CallPlain(vm.Of(fn), args)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, errors.New(r.callError(err))
	}
	if ok, isResult := vm.IsResult(res); isResult {
		inner := res.Object().(*vm.EnumValue).Fields[0]
		if !ok {
			return nil, errors.New(vm.ToDisplay(inner))
		}
		res = inner
	}
	out, err := jsonschema.ToAny(res)
	if err != nil {
		return nil, fmt.Errorf("handler result is not JSON data: %v", err)
	}
	return out, nil
}

// callError is the message of a failed call: a thrown value's text, or
// the runtime error without its stack trace, located at the file (from
// the project root) and line of its innermost frame in the project.
func (r *Runtime) callError(err error) string {
	e, ok := err.(*vm.Error)
	if !ok {
		return err.Error()
	}
	if e.Kind == vm.KindThrown && e.Value.IsValid() {
		return vm.ToDisplay(e.Value)
	}
	text := e.UncaughtText()
	for _, f := range e.Trace {
		if f.File == "" || f.Line == 0 || f.InStd() {
			continue
		}
		file := f.File
		if rel, err := filepath.Rel(r.root, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
		return strings.TrimSuffix(text, fmt.Sprintf(" (line %d)", e.Line)) + fmt.Sprintf(" (%s:%d)", file, f.Line)
	}
	return text
}

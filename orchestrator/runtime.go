package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/orchestrator/manifest"
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
//
// The VM detects deadlocks (vm.VM.DetectDeadlocks): a call that waits
// for something only the VM's threads could do, when none can, fails
// with the deadlock error. Which threads may still act is kept so:
//
//   - A dispatch (a Scope, from its start to its last Harn call) may
//     still run Harn code: between its calls it is stood for by a thread
//     of its own that the detector counts as one that may still act
//     (vm.VM.Expect), so no verdict is declared while it could yet end
//     a wait (a send of its handler's, after its predicate or a gate's
//     timer). During a call its own thread stands for it, and is judged.
//     A dispatch waiting for others to end (a concurrency gate, a batch
//     it joined) is set aside: it acts only once they have.
//   - While no dispatch is open, the runtime stands for the dispatches
//     still to come, as the last call does under `harn serve mcp`
//     (docs/mcp.md, Deadlocks): tasks an earlier dispatch left waiting,
//     for a later dispatch perhaps, are not reported while the
//     orchestrator is idle.
//   - Events not yet dispatched (queued, a retry not yet due, a cron
//     tick to come) do not count: a handler that waits, with no timeout,
//     for another event's handler is deadlocked unless that handler is
//     on its way.
//
// Calls are foreground threads (vm.VM.AddForeground): in a deadlock the
// oldest wait of a running call fails first, and the tasks left over
// survive it.
type Runtime struct {
	sess *interp.Session
	// mu guards open and the idle stand-in's presence.
	mu sync.Mutex
	// open counts the Scopes open and not set aside.
	open int
	// idle stands for the dispatches to come while no Scope is open.
	idle *vm.Thread
	// globals are the loaded modules' globals as initialised, by file +
	// "::" + name: what a handler reference resolves to. A binding
	// replayed as it was at an earlier instant resolves its handler here
	// too, after loading, so the map is never written once LoadRuntime
	// returns (handler threads may change a global later; a function
	// declaration is constant).
	globals map[string]vm.Value
	// private are the keys of globals not declared `pub`, which a
	// "module::fn" reference cannot name.
	private map[string]bool
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
		private: map[string]bool{},
		loaded:  map[string]bool{},
		root:    m.Root,
	}
	machine := r.sess.VM
	machine.DetectDeadlocks()
	r.idle = machine.NewThread()
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
	// Loading is judged as a call is (a module's top-level code that
	// deadlocks fails to load); from now on the runtime stands for the
	// dispatches to come.
	machine.Expect(r.idle)
	return r, nil
}

// Scope is a dispatch that may still run Harn code on a Runtime (see
// Runtime). The zero of *Scope (nil) is a scope of nothing.
type Scope struct {
	r     *Runtime
	stand *vm.Thread // counts as a thread that may still act
	open  bool       // open, not set aside nor ended
	// mu guards open: a Scope is used by its dispatch's goroutine, one
	// step after another, but a stray use must not tear its count.
	mu sync.Mutex
}

// Begin opens a dispatch's Scope; End closes it.
func (r *Runtime) Begin() *Scope {
	if r == nil {
		return nil
	}
	d := &Scope{r: r, stand: r.sess.VM.NewThread()}
	d.Resume()
	return d
}

// Aside sets d aside while its dispatch waits for others to end (a
// concurrency gate): it cannot act until they have, so it must not keep
// their waits from being judged. Resume undoes it.
func (d *Scope) Aside() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.open {
		return
	}
	d.open = false
	r := d.r
	r.mu.Lock()
	r.open--
	if r.open == 0 {
		r.sess.VM.Expect(r.idle)
	}
	r.sess.VM.Dismiss(d.stand)
	r.mu.Unlock()
}

// Resume reopens a Scope set aside.
func (d *Scope) Resume() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.open {
		return
	}
	d.open = true
	r := d.r
	r.mu.Lock()
	r.sess.VM.Expect(d.stand)
	if r.open == 0 {
		r.sess.VM.Forget(r.idle)
	}
	r.open++
	r.mu.Unlock()
}

// End closes d: its dispatch runs no more Harn code.
func (d *Scope) End() { d.Aside() }

// scopeKey carries a dispatch's Scope in the context of its calls.
type scopeKey struct{}

// WithScope returns ctx carrying d, for the Runtime's calls made in it.
func WithScope(ctx context.Context, d *Scope) context.Context {
	if d == nil {
		return ctx
	}
	return context.WithValue(ctx, scopeKey{}, d)
}

func scopeOf(ctx context.Context) *Scope {
	d, _ := ctx.Value(scopeKey{}).(*Scope)
	return d
}

// function is the function a local handler or predicate reference names
// in the modules loaded, callable with (event) or (event, secrets).
func (r *Runtime) function(h manifest.Handler) (*vm.Closure, error) {
	if !r.loaded[h.File] {
		return nil, fmt.Errorf("%s is not loaded: no binding of the project now served uses it", h.File)
	}
	key := h.File + "::" + h.Function
	v, ok := r.globals[key]
	fn, isFn := v.AsClosure()
	switch {
	case !ok:
		return nil, fmt.Errorf("function %s is not defined in %s", h.Function, h.File)
	case !isFn:
		return nil, fmt.Errorf("%s in %s is not a function", h.Function, h.File)
	case h.Module != "" && r.private[key]:
		// An [exports] module is used as modules are, through what it
		// exports (docs/modules.md): a module::fn reference names a
		// public function.
		return nil, fmt.Errorf("function %s in %s is not public: a %s::%s handler names a `pub fn` of the [exports] module %s (declare it `pub fn %s`)", h.Function, h.File, h.Module, h.Function, h.Module, h.Function)
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
	pub := map[string]bool{}
	for _, n := range mod.Exports() {
		pub[n] = true
	}
	for _, g := range mod.Program.Globals {
		if v, ok := mod.VM.Global(g.Name); ok {
			r.globals[file+"::"+g.Name] = v
			r.private[file+"::"+g.Name] = !pub[g.Name]
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
	d := scopeOf(ctx)
	if d == nil { // a call of its own: its own dispatch
		d = r.Begin()
		defer d.End()
	}
	th := r.sess.VM.NewThread()
	if meter != nil {
		defer llmmeter.Attach(th, meter)()
	}
	stop := context.AfterFunc(ctx, th.Cancel)
	defer stop()
	res, err := r.run(d, th, fn, args)
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
	// Strictly, as a tool's result (docs/spec/registry.md §6): a closure,
	// builtin or handle anywhere in the result fails the attempt rather
	// than being recorded as null.
	out, err := tool.ToJSON(res)
	if err != nil {
		return nil, fmt.Errorf("%s returned a value that is not JSON data: %v", h.Reference, err)
	}
	return jsonv.Plain(out), nil
}

// run calls fn on th for d's dispatch: th takes the VM lock before d's
// stand-in stops standing for the dispatch, and the stand-in is back
// before th lets the lock go, so the detector never sees the dispatch
// gone in between; meanwhile th itself is judged, in the foreground.
func (r *Runtime) run(d *Scope, th *vm.Thread, fn *vm.Closure, args []vm.Value) (vm.Value, error) {
	machine := r.sess.VM
	th.Lock()
	machine.Forget(d.stand)
	machine.AddForeground(th)
	res, err := th.CallPlain(vm.Of(fn), args)
	machine.RemoveForeground(th)
	d.mu.Lock()
	if d.open {
		machine.Expect(d.stand)
	}
	d.mu.Unlock()
	th.Unlock()
	machine.Dismiss(th) // its call has ended
	return res, err
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

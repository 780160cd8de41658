// Package vm executes compiled Harn programs.
//
// Values (value.go and friends) are immutable; the interpreter
// (interp.go) runs one Thread per task. A Thread owns a value stack and a
// stack of frames; each frame is a function prototype, a program counter,
// the base of its window on the value stack (local slots first, operands
// above) and the try handlers it has installed. Calls between Harn
// functions push frames without recursing in Go, and so do impl method
// calls (frame.method: its window starts at the receiver, with no callee
// slot; inline caches in cache.go); a builtin that calls
// back into Harn (the callback of `.map`, a dict member) runs a nested
// interpreter loop, and failures leaving such a nested execution or an
// impl method are relabelled (docs/spec/language.md §8.2). At most MaxFrames frames
// exist per thread.
//
// A VM holds what threads share: the universe of builtins and methods, the
// impl method tables, standard streams and per-VM state for the standard
// library. Only one thread executes Harn code at a time (the VM lock);
// blocking builtins release it, so no Harn value is ever touched by two
// goroutines at once.
//
// Concurrency (sched.go). The VM lock is handed over rather than competed
// for: a releasing thread passes it to the longest-waiting thread, or starts
// the next task queued by VM.Start on a goroutine that owns it; long-running
// code yields it every 1024 backward jumps, loop iterations or calls
// (checkInterrupt). Blocking builtins wait with Thread.Wait, which releases
// the lock and wakes on cancellation (Thread.Cancel), the innermost
// deadline (PushDeadline), a VM interrupt or exit (ExitAll) and a timeout.
// A thread records the tasks it started (AddChild); RunModule cancels those
// still running when the module's code ends (EndChildren). A generator's
// thread runs on its consumer's hold of the lock (Lend/Unlend), sharing its
// cancellation and deadline. Calling a function that contains yield or emit
// makes a generator through VM.GeneratorFactory or the `__generator` hook;
// for loops pass their thread to ThreadIterator sources (channels,
// generators).
package vm

import (
	"github.com/harnlang/harn/compiler"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxFrames is the default call depth limit (docs/run.md,
// "Call depth"). The reference implementation stopped at 512; deep
// recursion over real data needs more, and frames live on the heap, so
// only nested native calls (callbacks) use the Go stack.
const DefaultMaxFrames = 10000

// MaxFrames bounds call depth, the top level counting as one: the call
// that would push frame MaxFrames+1 raises `Stack overflow: too many
// nested calls`. It is read once from HARN_MAX_DEPTH (a positive int, at
// most MaxMaxFrames).
var MaxFrames = maxFramesFromEnv()

// MaxMaxFrames caps HARN_MAX_DEPTH: every frame may be a callback run by
// a nested interpreter loop on the Go stack (about 2.5 KB per level
// measured), and 100,000 levels stay far below Go's 1 GB stack limit, so
// deep recursion is always a Harn error, never a Go crash.
const MaxMaxFrames = 100000

func maxFramesFromEnv() int {
	if s := os.Getenv("HARN_MAX_DEPTH"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return min(n, MaxMaxFrames)
		}
	}
	return DefaultMaxFrames
}

// VM is one interpreter instance.
type VM struct {
	Universe *Universe
	Stdout   io.Writer
	Stderr   io.Writer
	Stdin    io.Reader
	// ScriptDir is the directory of the file being run (templates and
	// relative imports resolve against it).
	ScriptDir string

	implMu sync.RWMutex
	impls  map[string]map[string]*Closure // the last impl run for each struct name
	// bySite holds the methods each impl block registered when it last
	// ran, for the call sites that see that block (siteImpl).
	bySite map[*compiler.ImplSite]map[string]*Closure
	// implEpoch counts impl blocks run: inline caches remember the epoch
	// of the impl methods they hold (cache.go).
	implEpoch atomic.Uint64

	localMu sync.Mutex
	local   map[any]any
	closers []func() // OnClose functions, run once by Close
	closed  bool

	// GeneratorFactory makes the value a generator function returns when
	// called; installed by the concurrency runtime.
	GeneratorFactory func(th *Thread, f *Closure, args []Value) (Value, error)

	sched     sched
	sleeps    sleepQueue // the order sleeping threads wake in
	turns     turns      // the order woken and cancelled threads retake the lock
	clock     mockClock  // mock_time's clock (clock.go)
	interrupt atomic.Bool
	stop      chan struct{} // closed by Interrupt: wakes every Wait
	stopOnce  sync.Once
	exitErr   atomic.Pointer[Error] // the exit() of a task that ends the VM
	threadIDs atomic.Int64
}

// New returns a VM using universe u and the process's standard streams.
func New(u *Universe) *VM {
	v := &VM{
		Universe: u,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Stdin:    os.Stdin,
		impls:    map[string]map[string]*Closure{},
		bySite:   map[*compiler.ImplSite]map[string]*Closure{},
		local:    map[any]any{},
		stop:     make(chan struct{}),
	}
	v.sched.vm = v
	return v
}

// Local returns per-VM state stored under key, creating it with mk on
// first use. The standard library keeps its mocks and caches here.
func (v *VM) Local(key any, mk func() any) any {
	v.localMu.Lock()
	defer v.localMu.Unlock()
	x, ok := v.local[key]
	if !ok && mk != nil {
		x = mk()
		v.local[key] = x
	}
	return x
}

// OnClose registers fn to run when the host closes the VM (Close): the
// standard library stops there what a run started and would otherwise
// outlive it, such as the MCP server processes it supervises. On a
// closed VM fn runs at once.
func (v *VM) OnClose(fn func()) {
	v.localMu.Lock()
	if v.closed {
		v.localMu.Unlock()
		fn()
		return
	}
	v.closers = append(v.closers, fn)
	v.localMu.Unlock()
}

// Close runs the OnClose functions, the last registered first, once.
// Hosts call it when the run is over (interp.RunProgram does).
func (v *VM) Close() {
	v.localMu.Lock()
	fns := v.closers
	v.closers, v.closed = nil, true
	v.localMu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// Interrupt asks running code to stop at the next check (Ctrl-C).
func (v *VM) Interrupt() {
	v.interrupt.Store(true)
	v.stopOnce.Do(func() { close(v.stop) })
}

// Stopping reports whether the run is ending (Interrupt: Ctrl-C, or exit
// in a task): code that is about to start work checks it and does not
// begin.
func (v *VM) Stopping() bool { return v.interrupt.Load() }

func (v *VM) impl(structName, method string) *Closure {
	v.implMu.RLock()
	defer v.implMu.RUnlock()
	if t := v.impls[structName]; t != nil {
		return t[method]
	}
	return nil
}

// hasImplFor reports whether an impl block for the type name has run.
func (v *VM) hasImplFor(typeName string) bool {
	v.implMu.RLock()
	defer v.implMu.RUnlock()
	return v.impls[typeName] != nil
}

// HasImpl reports whether an impl for the struct defines method.
func (v *VM) HasImpl(structName, method string) bool { return v.impl(structName, method) != nil }

func (v *VM) setImpl(site *compiler.ImplSite, methods map[string]*Closure) {
	v.implMu.Lock()
	defer v.implMu.Unlock()
	v.impls[site.Struct] = methods
	v.bySite[site] = methods
	v.implEpoch.Add(1)
}

// siteImpl returns the methods that the method call site with cache slot
// c of fn finds for a struct (docs/spec/language.md §10.3): those of the impl
// block the site sees, else the struct's last impl run anywhere (an impl
// of another module, or of an earlier REPL entry). hidden reports that
// the program's impl blocks for the struct are all out of the site's
// scope, so the call yields nil.
func (v *VM) siteImpl(fn *compiler.Func, c int, structName string) (methods map[string]*Closure, hidden bool) {
	v.implMu.RLock()
	defer v.implMu.RUnlock()
	if c < len(fn.ImplScopes) {
		for _, r := range fn.ImplScopes[c] {
			if r.Struct == structName {
				if r.Site == nil {
					return nil, true
				}
				m := v.bySite[r.Site]
				return m, m == nil
			}
		}
	}
	return v.impls[structName], false
}

// Thread executes Harn code: one per task.
type Thread struct {
	vm     *VM
	ID     int64
	stack  []Value
	sp     int
	frames []frame
	// Cancelled is set to cancel the task; checked at backward jumps and calls.
	cancelled atomic.Bool
	doneMu    sync.Mutex
	done      chan struct{} // closed by Cancel: wakes the thread's Wait (made on demand)
	// parkedHeld, parkedWake and reserved belong to turns.go (under
	// turns.mu): a thread waiting with the VM lock let go is queued for
	// it by the thread that wakes or cancels it.
	parkedHeld bool
	parkedWake <-chan struct{}
	reserved   bool
	// cleanupGrace bounds, in ms, how long a cancelled thread's cleanup
	// (finally and defer blocks, the bracket code of mutex and deadline
	// blocks) may wait; cleanupUntil is that bound once the unwinding
	// has reached its first cleanup (0 before). Until it passes the
	// cancellation is masked, so cleanup that sleeps, sends or awaits
	// can finish.
	cleanupGrace atomic.Int64
	cleanupUntil atomic.Int64
	// Deadlines pushed by `deadline` blocks, innermost last.
	deadlines []deadlineScope
	// Task is task-local state owned by the runtime hooks (spawned tasks,
	// generators, served MCP requests …).
	Task any
	held bool // holds the VM lock
	// ticks counts instructions between interrupt checks.
	ticks int

	wake chan struct{} // lock hand-over signal (sched.go)
	// lag is how long the lock, last handed to this thread, took to
	// reach its goroutine (sched.handedAt); sleeps discount it.
	lag    time.Duration
	lender *Thread // the consumer this (generator) thread runs for
	// lentDepth is the call depth of the consumers this thread runs for,
	// set by Lend: the frames of the lender and of the threads it runs
	// for in turn (ChainDepth).
	lentDepth int
	lentTo    atomic.Pointer[Thread]
	childMu   sync.Mutex
	children  map[Child]int64 // running tasks this thread started
	childSeq  int64

	hit keyHit // the last `k in d` that found k (dicttable.go)

	// openIters are the for loops of this thread's frames that iterate a
	// source that must be closed when they stop early (IterCloser),
	// innermost last; closing marks a generator's thread whose consumer
	// is closing it (JUMP_OPEN).
	openIters []openIter
	closing   bool

	stackBuf [16]Value
	frameBuf [1]frame
}

// openIter is a for loop over an IterCloser: its iterator slot, the
// depth of its frame, and how many of that frame's handlers enclose it.
type openIter struct {
	slot     *iterSlot
	depth    int
	handlers int
}

type handler struct {
	pc int
	sp int
}

type frame struct {
	cl       *Closure // its funcRT and code are cl.rt and cl.Proto.Code
	pc       int
	base     int
	argc     int
	handlers []handler
	// nested marks the first frame of a nested execution: when it returns,
	// the nested run loop returns to its Go caller.
	nested bool
	// callback marks a nested execution whose failures are relabelled.
	callback bool
	// method marks an impl method called by CALL_METHOD without a nested
	// run: a failure leaving it is relabelled as a callback's would be.
	// Its window starts at the receiver, with no callee slot below.
	method bool
	// tails are the callers this frame replaced by tail calls, outermost
	// first, so that a stack trace still names them (docs/run.md).
	tails []tailCaller
}

// tailCaller is a frame a tail call replaced: the function and the pc
// of its call, and how many times in a row it was replaced (self
// recursion folds into one entry).
type tailCaller struct {
	fn *compiler.Func
	pc int
	n  int
}

// maxTails bounds the distinct callers a frame remembers (mutual tail
// recursion would otherwise grow the list without end); later ones are
// not recorded.
const maxTails = 256

// addTail records that fr's function, at pc, is being replaced by a
// tail call; it returns the list the new frame inherits.
func addTail(tails []tailCaller, fn *compiler.Func, pc int) []tailCaller {
	if k := len(tails) - 1; k >= 0 && tails[k].fn == fn && tails[k].pc == pc {
		tails[k].n++
		return tails
	}
	if len(tails) >= maxTails {
		return tails
	}
	return append(tails, tailCaller{fn: fn, pc: pc, n: 1})
}

// result is the stack index where the frame's result goes when it
// returns, the start of what it leaves behind: the callee slot below its
// arguments, or for a method frame the receiver.
func (fr *frame) result() int {
	if fr.method {
		return fr.base
	}
	return fr.base - 1
}

// NewThread makes a thread on v.
func (v *VM) NewThread() *Thread {
	th := &Thread{vm: v, ID: v.threadIDs.Add(1)}
	// A task's first stack and frame live in the thread itself: spawning
	// many small tasks costs one allocation each, and the stack grows on
	// demand (ensure).
	th.stack = th.stackBuf[:]
	th.frames = th.frameBuf[:0]
	return th
}

// VM returns the thread's machine.
func (th *Thread) VM() *VM { return th.vm }

// Cancel requests cancellation of the thread's work: running code stops
// at its next check, a Wait returns at once, and a generator the thread
// is running (Lend) is cancelled too.
func (th *Thread) Cancel() { th.CancelWithCleanup(DefaultCleanupGrace) }

// DefaultCleanupGrace is how long the cleanup of a thread cancelled by
// Cancel may wait (docs/concurrency.md, Cancellation and cleanup).
const DefaultCleanupGrace = time.Second

// CancelWithCleanup is Cancel, giving the thread's cleanup up to grace
// to finish its waits (cancel_graceful passes its own grace).
func (th *Thread) CancelWithCleanup(grace time.Duration) {
	if th.cancelled.CompareAndSwap(false, true) {
		th.cleanupGrace.Store(max(grace.Milliseconds(), 1))
		th.vm.turns.give(th)
		th.doneMu.Lock()
		if th.done == nil {
			th.done = closedChan
		} else {
			RawWake() // threads lent to th watch it too (lenderDone)
			close(th.done)
		}
		th.doneMu.Unlock()
	}
	if t := th.lentTo.Load(); t != nil {
		t.Cancel()
	}
}

// maskCancel starts the cleanup period of a cancelled thread whose
// unwinding reached a cleanup handler; later handlers share the period.
func (th *Thread) maskCancel() {
	if th.cancelled.Load() && th.cleanupUntil.Load() == 0 {
		th.cleanupUntil.Store(time.Now().UnixMilli() + th.cleanupGrace.Load())
	}
}

// cleaningUp reports whether th is cancelled but its cleanup period is
// running, so that its waits wait.
func (th *Thread) cleaningUp() bool {
	at := th.cleanupUntil.Load()
	return at != 0 && time.Now().UnixMilli() < at
}

// IsCancelled reports whether the thread was cancelled.
func (th *Thread) IsCancelled() bool { return th.cancelled.Load() }

// Unlock releases the VM lock around a blocking operation; Lock takes it
// back. Builtins that wait (sleep, channel receive, process execution)
// bracket the wait with them so other tasks can run.
func (th *Thread) Unlock() {
	if th.held {
		th.held = false
		th.vm.sched.release()
	}
}

// Lock re-acquires the VM lock after Unlock.
func (th *Thread) Lock() {
	if !th.held {
		th.vm.sched.acquire(th)
		th.held = true
	}
}

// Depth is the number of active frames.
func (th *Thread) Depth() int { return len(th.frames) }

// CallerFile is the source file of the innermost Harn frame ("" when
// none): builtins that resolve paths relative to the calling module (a
// template rendered from an imported module) read it.
func (th *Thread) CallerFile() string {
	if n := len(th.frames); n > 0 && th.frames[n-1].cl != nil {
		return th.frames[n-1].cl.Proto.File
	}
	return ""
}

// CallSite is where the script called the builtin running now: the file,
// line and column of the call in the innermost frame outside the
// embedded std/* modules (a std wrapper's own call is not the script's),
// as a stack trace would name it. ok is false when no such frame exists.
// Builtins that record where a value was made (the tool registry keeps
// where each tool was registered, to locate preparation errors) read it.
func (th *Thread) CallSite() (f TraceFrame, ok bool) {
	for i := len(th.frames) - 1; i >= 0; i-- {
		fr := &th.frames[i]
		if fr.cl == nil || fr.cl.Proto == nil {
			continue
		}
		if IsStdFile(fr.cl.Proto.File) {
			// a script function whose `return std_fn(…)` this frame
			// replaced by a tail call made the call
			for k := len(fr.tails) - 1; k >= 0; k-- {
				if t := fr.tails[k]; !IsStdFile(t.fn.File) {
					line, col := t.fn.PosAt(t.pc)
					return TraceFrame{Func: traceName(t.fn), File: t.fn.File, Line: line, Col: col}, line > 0
				}
			}
			continue
		}
		// fr.pc is saved past the call instruction before anything is
		// called; the instruction itself starts before it.
		line, col := fr.cl.Proto.PosAt(fr.pc - 1)
		if line <= 0 {
			return TraceFrame{}, false
		}
		return TraceFrame{Func: traceName(fr.cl.Proto), File: fr.cl.Proto.File, Line: line, Col: col}, true
	}
	return TraceFrame{}, false
}

// RunModule runs a module's top-level code and returns the program result
// (a top-level return value, main's result, or the entry pipeline's value).
// Tasks the module spawned and nobody awaited are cancelled when it ends.
// The lock is kept from the body's end to the cancellation: letting it go
// in between would start the tasks still queued, which the module never
// waited for, so they would run after its last statement instead of
// being dropped (docs/concurrency.md, "Choices where the references are
// silent").
func (th *Thread) RunModule(m *Module) (Value, error) {
	if !th.held {
		th.Lock()
		defer th.Unlock()
	}
	cl := &Closure{Proto: m.Prog.Main, Module: m, rt: m.rt}
	v, err := th.CallPlain(Of(cl), nil)
	th.EndChildren()
	return v, err
}

// CallPlain calls fn with args as an ordinary call (failures are not
// relabelled). Hosts use it to invoke tool handlers and entry points.
func (th *Thread) CallPlain(fn Value, args []Value) (Value, error) {
	acquired := false
	if !th.held {
		th.Lock()
		acquired = true
	}
	defer func() {
		if acquired {
			th.Unlock()
		}
	}()
	return th.call(fn, args, false)
}

// CallEntry calls pipeline fn as `harn run` calls the entry pipeline:
// its parameters are not bound, so a default or a `harness` parameter
// takes its value and reading any other is Undefined variable
// (docs/spec/language.md §5.5). Any other callee is called with no
// arguments.
func (th *Thread) CallEntry(fn Value) (Value, error) {
	var args []Value
	if f, ok := fn.AsClosure(); ok && f.Proto.Kind == compiler.FuncPipeline {
		args = make([]Value, len(f.Proto.Params)) // holding no value: ARGC_GT counts them as not passed
	}
	return th.CallPlain(fn, args)
}

// Call invokes fn as a callback on the script's behalf (the callbacks of
// `.map`, `.filter`, sort keys …): a non-thrown failure leaving it is
// relabelled with its line (docs/spec/language.md §8.2).
func (th *Thread) Call(fn Value, args ...Value) (Value, error) {
	return th.call(fn, args, true)
}

// RunBody runs the body of a generator function f on th (calling f
// anywhere else makes a generator instead); the generator runtime uses it
// on the generator's own thread.
func (th *Thread) RunBody(f *Closure, args []Value) (Value, error) {
	return th.callClosure(f, args, false)
}

func (th *Thread) call(fn Value, args []Value, callback bool) (Value, error) {
	switch f := fn.Object().(type) {
	case *Closure:
		if f.Proto.IsGen || f.Proto.IsStream {
			return th.makeGenerator(f, append([]Value(nil), args...))
		}
		return th.callClosure(f, args, callback)
	case *Builtin:
		return f.Fn(th, Args(args))
	case *BoundMethod:
		return f.Fn(th, f.Recv, Args(args))
	}
	if c, ok := fn.Object().(interface {
		CallWith(th *Thread, args []Value) (Value, error)
	}); ok {
		return c.CallWith(th, args)
	}
	return Value{}, Typef("cannot call %s", fn.Type())
}

func (th *Thread) callClosure(f *Closure, args []Value, callback bool) (Value, error) {
	th.ensure(len(args) + 1)
	th.stack[th.sp] = Of(f)
	copy(th.stack[th.sp+1:], args)
	th.sp += len(args) + 1
	return th.runPushed(f, len(args), callback)
}

// Call1 is Call with a single argument. Calling a closure this way
// allocates no argument slice: it is the hot path of .map, .filter and
// sort keys.
func (th *Thread) Call1(fn Value, arg Value) (Value, error) {
	if f, ok := fn.AsClosure(); ok && !f.Proto.IsGen && !f.Proto.IsStream {
		th.ensure(2)
		th.stack[th.sp], th.stack[th.sp+1] = Of(f), arg
		th.sp += 2
		return th.runPushed(f, 1, true)
	}
	return th.call(fn, []Value{arg}, true)
}

// Callback1 is a callee prepared for many calls with one argument each:
// the callback of .map, .filter, sort keys, lazy iterator stages and the
// like, called once per item. Call behaves exactly as Thread.Call1 (same
// frames, errors, relabelling, depth limit), but what depends only on
// the callee is checked once, and a plain closure's frame is set up in
// place and entered through runFast directly, without run's hand-over,
// which finishes small bodies such as `{ x -> x * 2 }` on its own.
type Callback1 struct{ prepared }

// Callback2 is Callback1 for callees called with two arguments each, such
// as reduce's `{ acc, x -> … }`: Call behaves exactly as Thread.Call with
// those two.
type Callback2 struct{ prepared }

// prepared is a callee and what Callback1 and Callback2 learn of it once.
type prepared struct {
	th   *Thread
	fn   Value
	cl   *Closure // a closure that binds its arguments as they are, or nil
	fast bool     // cl's first instruction is one of runFast's
}

// Prepare1 prepares fn for repeated calls with one argument.
func (th *Thread) Prepare1(fn Value) Callback1 { return Callback1{th.prepare(fn)} }

// Prepare2 prepares fn for repeated calls with two arguments.
func (th *Thread) Prepare2(fn Value) Callback2 { return Callback2{th.prepare(fn)} }

func (th *Thread) prepare(fn Value) prepared {
	c := prepared{th: th, fn: fn}
	f, ok := fn.AsClosure()
	if !ok || f.Proto.IsGen || f.Proto.IsStream {
		return c
	}
	proto := f.Proto
	if n := len(proto.Params); n > 0 && proto.Params[n-1].Rest && !proto.RestPlain {
		return c // collects a rest list: pushFrame's general case
	}
	if f.rt == nil {
		f.rt = newFuncRT(proto)
	}
	c.cl = f
	op := proto.Code[0]
	c.fast = uint32(op) < uint32(len(fastOps)) && fastOps[op]
	return c
}

// Thread is the thread the callee runs on.
func (c *prepared) Thread() *Thread { return c.th }

// Call calls the prepared callee with arg.
func (c *Callback1) Call(arg Value) (Value, error) {
	if c.cl == nil {
		return c.th.Call1(c.fn, arg)
	}
	return c.enter(arg, Value{}, 1)
}

// Call calls the prepared callee with a and b.
func (c *Callback2) Call(a, b Value) (Value, error) {
	if c.cl == nil {
		return c.th.Call(c.fn, a, b)
	}
	return c.enter(a, b, 2)
}

// enter runs the prepared closure with its argc (1 or 2) arguments a
// and b: pushFrame's simple case, entered as a nested callback frame.
func (c *prepared) enter(a, b Value, argc int) (Value, error) {
	f, th := c.cl, c.th
	if len(th.frames) >= MaxFrames {
		return Value{}, Plainf("Stack overflow: too many nested calls")
	}
	proto := f.Proto
	th.ensure(proto.NumLocals + proto.MaxStack + 4)
	stack := th.stack
	base := th.sp + 1
	stack[base-1], stack[base] = c.fn, a
	if argc == 2 {
		stack[base+1] = b
	}
	nparams := len(proto.Params)
	for i := argc; i < nparams; i++ {
		stack[base+i] = Nil
	}
	clear(stack[base+nparams : base+proto.NumLocals])
	th.sp = base + proto.NumLocals
	th.enterFrame(f, base, argc)
	fr := &th.frames[len(th.frames)-1]
	fr.nested, fr.callback = true, true
	depth := len(th.frames)
	if c.fast && !f.rt.slowEntry[0].Load() {
		// runFast may leave in a frame it entered: run goes on there
		if v, done := th.runFast(depth); done {
			return v, nil
		}
	}
	return th.runNested(depth, true)
}

// runPushed runs closure f whose callee slot and n arguments were just
// pushed, as a nested execution.
func (th *Thread) runPushed(f *Closure, n int, callback bool) (Value, error) {
	if len(th.frames) >= MaxFrames {
		th.sp -= n + 1
		return Value{}, Plainf("Stack overflow: too many nested calls")
	}
	if err := th.pushFrame(f, n, th.sp-n); err != nil {
		th.sp -= n + 1
		return Value{}, err
	}
	fr := &th.frames[len(th.frames)-1]
	fr.nested = true
	fr.callback = callback
	return th.runNested(len(th.frames), callback)
}

// runNested runs the nested frame at depth startDepth (pushed, and
// perhaps begun by runFast) to its return, relabelling a failure leaving
// a callback.
func (th *Thread) runNested(startDepth int, callback bool) (Value, error) {
	v, err := th.run(startDepth)
	if err != nil {
		e := AsError(err)
		if callback {
			e = e.Relabel()
		}
		return Value{}, e
	}
	return v, nil
}

// BoundMethod is a method value with its receiver (from universe tables).
type BoundMethod struct {
	Recv   Value
	Method string
	Fn     MethodFunc
}

func (b *BoundMethod) Name() string { return b.Method }
func (*BoundMethod) Type() string   { return "builtin" }
func (*BoundMethod) Truth() bool    { return true }
func (b *BoundMethod) Display(sb *strings.Builder) {
	sb.WriteString("<builtin " + b.Method + ">")
}

// ensure grows the value stack so n more values fit above sp.
func (th *Thread) ensure(n int) {
	if th.sp+n <= len(th.stack) {
		return
	}
	size := 2 * len(th.stack)
	for size < th.sp+n {
		size *= 2
	}
	s := make([]Value, size)
	copy(s, th.stack[:th.sp])
	th.stack = s
}

// pushFrame sets up a frame for closure f whose argc arguments start at
// stack index base (the callee value sits at base-1, except in a method
// frame).
func (th *Thread) pushFrame(f *Closure, argc, base int) error {
	proto := f.Proto
	if f.rt == nil {
		f.rt = newFuncRT(proto)
	}
	nparams := len(proto.Params)
	th.ensure(proto.NumLocals + proto.MaxStack + 2)
	stack := th.stack
	if nparams > 0 && proto.Params[nparams-1].Rest && !proto.RestPlain {
		// Collect surplus arguments into a list.
		var rest []Value
		if argc >= nparams {
			rest = make([]Value, argc-nparams+1)
			copy(rest, stack[base+nparams-1:base+argc])
		}
		if rest == nil {
			stack[base+nparams-1] = Of(EmptyList)
		} else {
			stack[base+nparams-1] = Of(NewList(rest))
		}
		for i := argc; i < nparams-1; i++ {
			stack[base+i] = Nil
		}
		for i := nparams; i < proto.NumLocals; i++ {
			stack[base+i] = Value{}
		}
	} else {
		// Missing arguments are nil (defaults are assigned by the code,
		// ARGC_GT), a pipeline's too when it is called like a function;
		// surplus ones and the other locals start unassigned. (The entry
		// pipeline's parameters are passed unassigned: CALL_ENTRY.)
		for i := argc; i < nparams; i++ {
			stack[base+i] = Nil
		}
		clear(stack[base+nparams : base+proto.NumLocals])
	}
	th.sp = base + proto.NumLocals
	th.enterFrame(f, base, argc)
	return nil
}

// enterFrame appends the frame record of a call of f. It reuses the slot
// (and its handler stack) when the slice has room: appending a whole frame
// literal zeroes and copies it each call.
func (th *Thread) enterFrame(f *Closure, base, argc int) {
	if n := len(th.frames); n < cap(th.frames) {
		th.frames = th.frames[:n+1]
		fr := &th.frames[n]
		fr.cl, fr.pc, fr.base, fr.argc = f, 0, base, argc
		fr.handlers = fr.handlers[:0]
		fr.tails = fr.tails[:0]
		fr.nested, fr.callback, fr.method = false, false, false
	} else {
		th.frames = append(th.frames, frame{cl: f, base: base, argc: argc})
	}
}

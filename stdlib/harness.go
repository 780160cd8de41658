package stdlib

import (
	"strings"

	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/vm"
)

// The `harness` host global (language.md §5.4): a capability handle of
// type Harness whose fields are typed sub-handles (harness.stdio is a
// HarnessStdio). A capability is available when its methods were
// registered with RegisterCapability; the other names of the newer
// specification's table are known but unavailable, and reading one is a
// type error rather than "no such capability".

// CapabilityMethod is one method of a capability handle.
type CapabilityMethod struct {
	Name string
	Sig  string
	Doc  string
	Fn   vm.MethodFunc
}

// capability is one field of the harness handle.
type capability struct {
	name     string
	typeName string // Harness + CamelCase(name)
	methods  map[string]*CapabilityMethod
}

var (
	capabilities     = map[string]*capability{}
	capabilityByType = map[string]*capability{}
)

// RegisterCapability makes harness.NAME available as a handle of type
// Harness<Name> (CamelCase) with the given methods; with no methods the
// name is only declared, and reading it reports that the capability is
// not available in this runtime. Call it at init time: universes built
// before the call do not see it.
func RegisterCapability(name string, methods []CapabilityMethod) {
	if _, exists := capabilities[name]; exists && len(methods) == 0 {
		return // declaring never hides an implementation registered first
	}
	c := &capability{name: name, typeName: types.HandleName(name)}
	if len(methods) > 0 {
		c.methods = map[string]*CapabilityMethod{}
		for i := range methods {
			m := methods[i]
			c.methods[m.Name] = &m
			method(c.typeName, m.Name, m.Sig, m.Doc, m.Fn)
		}
		typeName := c.typeName
		method(typeName, "*", typeName+".NAME(...)", "methods outside the capability are rejected", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
			return nil, vm.Typef("`%s` has no method `%s`", typeName, args.Text(0))
		})
	}
	capabilities[name] = c
	capabilityByType[c.typeName] = c
}

// Handle is the harness root or one of its capability handles.
type Handle struct {
	cap *capability // nil for the root
	sub map[string]*Handle
}

func (h *Handle) Type() string {
	if h.cap == nil {
		return "Harness"
	}
	return h.cap.typeName
}

func (*Handle) Truth() bool { return true }

func (h *Handle) Display(sb *strings.Builder) {
	sb.WriteByte('<')
	sb.WriteString(h.Type())
	sb.WriteByte('>')
}

// EqualTo: a handle equals only itself.
func (h *Handle) EqualTo(o vm.Value) bool {
	x, ok := o.(*Handle)
	return ok && x == h
}

// Attr is field access: capabilities on the root; on a capability handle
// only its methods, as bound method values.
func (h *Handle) Attr(name string) (vm.Value, error) {
	if h.cap == nil {
		if s, ok := h.sub[name]; ok {
			return s, nil
		}
		if _, known := capabilities[name]; known {
			return nil, vm.Typef("`harness.%s` is not available in this runtime", name)
		}
		return nil, vm.Typef("`Harness` has no capability `%s`", name)
	}
	if m, ok := h.cap.methods[name]; ok {
		return &vm.BoundMethod{Recv: h, Method: name, Fn: m.Fn}, nil
	}
	return nil, vm.Typef("cannot access property `%s` on %s", name, h.cap.typeName)
}

// newHarness builds the root handle with every available capability.
func newHarness() *Handle {
	root := &Handle{sub: map[string]*Handle{}}
	for name, c := range capabilities {
		if c.methods != nil {
			root.sub[name] = &Handle{cap: c}
		}
	}
	return root
}

func init() {
	// Every field of the handle (language.md §5.4, the list the checker
	// types it from) is declared; those without an implementation here
	// report that they are unavailable.
	for _, name := range types.Capabilities {
		if name != "stdio" {
			RegisterCapability(name, nil)
		}
	}
	RegisterCapability("stdio", stdioMethods())
	method("Harness", "*", "harness.NAME(...)", "methods outside the handle are rejected", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		return nil, vm.Typef("`Harness` has no method `%s`", args.Text(0))
	})
	globalHooks = append(globalHooks, func(u *vm.Universe) {
		u.AddGlobal("harness", newHarness())
	})
}

// stdioMethods are harness.stdio's methods: the output and stdin
// builtins, sharing their streams and buffers.
func stdioMethods() []CapabilityMethod {
	fn := func(b vm.BuiltinFunc) vm.MethodFunc {
		return func(th *vm.Thread, _ vm.Value, args vm.Args) (vm.Value, error) { return b(th, args) }
	}
	return []CapabilityMethod{
		{"print", "stdio.print(v?)", "write display(v) to stdout", fn(builtinPrint)},
		{"println", "stdio.println(v?)", "write display(v) and a newline to stdout", fn(builtinPrintln)},
		{"eprint", "stdio.eprint(v?)", "write display(v) to stderr", fn(builtinEprint)},
		{"eprintln", "stdio.eprintln(v?)", "write display(v) and a newline to stderr", fn(builtinEprintln)},
		{"log", "stdio.log(v)", "write `[harn] ` + display(v) and a newline to stdout", fn(builtinLog)},
		{"progress", "stdio.progress(phase, message, progress_or_options?, total?)", "write one progress line to stdout", fn(builtinProgress)},
		{"read_line", "stdio.read_line(options?)", "one line of stdin (nil at end); with options {ok, status, value?}", fn(stdioReadLine)},
		{"read_stdin", "stdio.read_stdin()", "the rest of stdin", fn(func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return readStdin(th)
		})},
		{"prompt", "stdio.prompt(message)", "write message, read one line", fn(builtinPromptUser)},
		{"is_stdin_tty", "stdio.is_stdin_tty()", "whether stdin is a terminal", fn(func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.BoolOf(isTerminal(th, "stdin")), nil
		})},
		{"is_stdout_tty", "stdio.is_stdout_tty()", "whether stdout is a terminal", fn(func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.BoolOf(isTerminal(th, "stdout")), nil
		})},
		{"is_stderr_tty", "stdio.is_stderr_tty()", "whether stderr is a terminal", fn(func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.BoolOf(isTerminal(th, "stderr")), nil
		})},
	}
}

// stdioReadLine is read_line; given an options dict it reports
// {ok, status, value?} with status "ok" or "eof" instead.
func stdioReadLine(th *vm.Thread, args vm.Args) (vm.Value, error) {
	line, ok, err := readLine(th)
	if err != nil {
		return nil, err
	}
	if _, withOptions := args.Dict(0); !withOptions {
		if !ok {
			return vm.Nil, nil
		}
		return str(line), nil
	}
	b := vm.NewDictBuilder(3)
	b.Set("ok", vm.BoolOf(ok))
	if ok {
		b.Set("status", str("ok"))
		b.Set("value", str(line))
	} else {
		b.Set("status", str("eof"))
	}
	return b.Build(), nil
}

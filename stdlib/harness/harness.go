package harness

import (
	"strings"

	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The `harness` host global (docs/spec/language.md §5.4): a capability handle of
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
	area     string // the stdlib package that registered it (docs group its methods there)
}

var (
	capabilities     = map[string]*capability{}
	capabilityByType = map[string]*capability{}
)

// RegisterCapability makes harness.NAME available as a handle of type
// Harness<Name> (CamelCase) with the given methods; with no methods the
// name is only declared, and reading it reports that the capability is
// not available in this runtime. area is the registering stdlib package
// ("math"), where the builtin reference lists the methods; it is given,
// not read from the call stack, because unwinding at init time costs
// start-up a measurable share. Call it at init time: universes built
// before the call do not see it.
func RegisterCapability(area, name string, methods []CapabilityMethod) {
	if _, exists := capabilities[name]; exists && len(methods) == 0 {
		return // declaring never hides an implementation registered first
	}
	c := &capability{name: name, typeName: types.HandleName(name), area: area}
	if len(methods) > 0 {
		methods = append(append([]CapabilityMethod(nil), methods...), pendingMethods[name]...)
		delete(pendingMethods, name)
		c.methods = map[string]*CapabilityMethod{}
		for i := range methods {
			m := methods[i]
			c.methods[m.Name] = &m
			lib.Method(c.typeName, m.Name, m.Sig, m.Doc, m.Fn)
		}
		typeName := c.typeName
		lib.Method(typeName, "*", typeName+".NAME(...)", "methods outside the capability are rejected", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
			return vm.Value{}, vm.Typef("value of type %s has no method `%s`", typeName, args.Text(0)) // docs/spec/newer.md §2.11
		})
	}
	capabilities[name] = c
	capabilityByType[c.typeName] = c
}

// pendingMethods are the methods AddMethods received for a capability
// not registered yet.
var pendingMethods = map[string][]CapabilityMethod{}

// AddMethods adds methods to the capability name, which another package
// registers with RegisterCapability, before or after this call (package
// init order decides). Call it at init time. The capability's area stays
// the registering package's.
func AddMethods(name string, methods []CapabilityMethod) {
	c := capabilities[name]
	if c == nil || c.methods == nil {
		pendingMethods[name] = append(pendingMethods[name], methods...)
		return
	}
	for i := range methods {
		m := methods[i]
		c.methods[m.Name] = &m
		lib.Method(c.typeName, m.Name, m.Sig, m.Doc, m.Fn)
	}
}

// CapabilityArea names the stdlib package that registered the capability
// whose handle type is typeName ("math" for HarnessRandom). The builtin
// reference groups a capability's methods under it, whichever package
// the method functions themselves were compiled in (Delegate's).
func CapabilityArea(typeName string) (string, bool) {
	c, ok := capabilityByType[typeName]
	if !ok {
		return "", false
	}
	return c.area, true
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
	x, ok := o.Object().(*Handle)
	return ok && x == h
}

// Attr is field access: capabilities on the root; on a capability handle
// only its methods, as bound method values.
func (h *Handle) Attr(name string) (vm.Value, error) {
	if h.cap == nil {
		if s, ok := h.sub[name]; ok {
			return vm.Of(s), nil
		}
		if _, known := capabilities[name]; known {
			return vm.Value{}, vm.Typef("`harness.%s` is not available in this runtime", name)
		}
		return vm.Value{}, vm.Typef("`Harness` has no capability `%s`", name)
	}
	if m, ok := h.cap.methods[name]; ok {
		return vm.Of(&vm.BoundMethod{Recv: vm.Of(h), Method: name, Fn: m.Fn}), nil
	}
	return vm.Value{}, vm.Typef("cannot access property `%s` on %s", name, h.cap.typeName)
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
	// Every field of the handle (docs/spec/language.md §5.4, the list the checker
	// types it from) is declared; those without an implementation here
	// report that they are unavailable.
	for _, name := range types.Capabilities {
		if name != "stdio" {
			RegisterCapability("harness", name, nil)
		}
	}
	lib.Method("Harness", "*", "harness.NAME(...)", "methods outside the handle are rejected", func(th *vm.Thread, recv vm.Value, args vm.Args) (vm.Value, error) {
		return vm.Value{}, vm.Typef("value of type Harness has no method `%s`", args.Text(0)) // docs/spec/newer.md §2.11
	})
	lib.AddGlobal(func(u *vm.Universe) {
		u.AddGlobal("harness", vm.Of(newHarness()))
	})
}

// Delegate is a capability method that calls the free builtin named
// builtin (looked up in the run's universe), after checking that each
// argument sig declares `name: string` is a string
// (`HarnessFs.read_text expects string argument 1, got int`).
func Delegate(capType, name, builtin, sig, doc string) CapabilityMethod {
	stringArgs := stringParams(sig)
	return CapabilityMethod{Name: name, Sig: sig, Doc: doc, Fn: func(th *vm.Thread, _ vm.Value, args vm.Args) (vm.Value, error) {
		for _, i := range stringArgs {
			if _, ok := args.Str(i); !ok {
				return vm.Value{}, vm.Typef("%s.%s expects string argument %d, got %s", capType, name, i+1, args.At(i).Type())
			}
		}
		b := th.VM().Universe.Builtin(builtin)
		if b == nil {
			return vm.Value{}, vm.Typef("%s.%s is not available in this runtime", capType, name)
		}
		return b.Fn(th, args)
	}}
}

// stringParams lists the indexes of the required parameters a method
// signature declares as `name: string` ("fs.copy(src: string, dst:
// string) -> nil" gives 0 and 1; optional and untyped ones are skipped).
func stringParams(sig string) []int {
	open, close := strings.IndexByte(sig, '('), strings.IndexByte(sig, ')')
	if open < 0 || close < open {
		return nil
	}
	var out []int
	for i, p := range strings.Split(sig[open+1:close], ",") {
		name, typ, ok := strings.Cut(strings.TrimSpace(p), ":")
		if ok && strings.TrimSpace(typ) == "string" && !strings.HasSuffix(name, "?") && !strings.HasPrefix(name, "...") {
			out = append(out, i)
		}
	}
	return out
}

// Injected is the value a host-injected parameter typed name receives (an
// export's or a tool declaration's leading authority parameter,
// docs/spec/registry.md §8.4): root itself for `Harness`, else root's
// capability handle of that type (`HarnessFs` is harness.fs).
func Injected(root vm.Value, name string) (vm.Value, error) {
	if name == "Harness" {
		return root, nil
	}
	for _, c := range types.Capabilities {
		if types.HandleName(c) == name {
			return vm.GetProp(root, c, false)
		}
	}
	return vm.Value{}, vm.Typef("unknown capability handle type %s", name)
}

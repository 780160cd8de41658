package vm

import (
	"sync/atomic"
	"unsafe"
)

// Inline caches. Every method call site (CALL_METHOD) and property read
// site (GET_PROP) owns a slot in its function's funcRT (the c operand;
// compiler.Func.NumCaches slots per function) where the VM remembers what
// the site found last time, so a site that keeps seeing the same kind of
// receiver skips the lookups:
//
//   - a method site remembers the receiver kind and the universe method it
//     resolved to (universes do not change once built, so this never goes
//     stale), or the struct name and the impl method, stamped with the
//     VM's impl epoch; running an impl block bumps the epoch, which
//     invalidates every impl entry at once.
//   - a property site remembers the index of the field in the last struct
//     it read. The index is only a guess, checked against the field name
//     before use: struct field names are unique, so the check is exact.
//
// A funcRT belongs to one module instance on one VM, and only one thread
// runs Harn code on a VM at a time; still, entries are immutable once
// published and slots are read and written atomically, so a cache can
// never be seen half-written whatever the scheduling.

// methodEntry is what a method call site found for one kind of receiver.
type methodEntry struct {
	kind   string   // receiver Type() (universe methods)
	native *Method  // the universe method, or nil
	strct  string   // struct name (impl methods)
	impl   *Closure // the impl method, or nil
	epoch  uint64   // VM.implEpoch when impl was looked up
}

// siteCaches holds a function's inline cache slots.
type siteCaches struct {
	methods []atomic.Pointer[methodEntry]
	fields  []atomic.Int32
}

func newSiteCaches(n int) siteCaches {
	if n == 0 {
		return siteCaches{}
	}
	return siteCaches{methods: make([]atomic.Pointer[methodEntry], n), fields: make([]atomic.Int32, n)}
}

// implMethod returns the impl method `recv.name` calls for a struct recv
// whose impl (the one the site with slot c sees, VM.siteImpl) defines
// name, when no universe method shadows it and the method is an ordinary
// function (not a generator); otherwise nil, with hidden set when the
// site sees no impl of the struct that the program has (the call yields
// nil). It looks past the run loop's own check of slot c (CALL_METHOD
// compares struct names by address; from another program they compare
// by text) and fills the slot.
func (th *Thread) implMethod(rt *funcRT, c int, s *StructValue, name string) (m *Closure, hidden bool) {
	slot := &rt.caches.methods[c]
	epoch := th.vm.implEpoch.Load()
	if e := slot.Load(); e != nil && e.impl != nil && e.strct == s.Name && e.epoch == epoch {
		return e.impl, false
	}
	if th.vm.Universe.Method("struct", name) != nil {
		return nil, false
	}
	methods, hidden := th.vm.siteImpl(rt.fn, c, s.Name)
	if m = methods[name]; m == nil || m.Proto.IsGen || m.Proto.IsStream {
		return nil, hidden
	}
	slot.Store(&methodEntry{strct: s.Name, impl: m, epoch: epoch})
	return m, false
}

// nativeMethod returns the universe method `recv.name` calls (nil when
// none, or when recv is a namespace, whose own members answer first),
// using and filling cache slot c.
func (th *Thread) nativeMethod(rt *funcRT, c int, recv Value, name string) *Method {
	slot := &rt.caches.methods[c]
	kind := recv.Type()
	if d, ok := recv.AsDict(); ok && d.namespace != nil {
		return nil // callMethod looks for the namespace's member first
	}
	if e := slot.Load(); e != nil && e.native != nil && e.kind == kind {
		return e.native
	}
	m := th.vm.Universe.Method(kind, name)
	if m != nil {
		slot.Store(&methodEntry{kind: kind, native: m})
	}
	return m
}

// structFieldMiss reads field name of s (nil when unset) when the guess
// in cache slot c was wrong, and fixes the guess. The guess is checked in
// the run loop (GET_PROP, LOCAL_GET_PROP): it answers when it names the
// right field and the field shares the name's string, which it does when
// both come from one program (the compiler interns names).
func structFieldMiss(rt *funcRT, c int, s *StructValue, name string) Value {
	if i := int(rt.caches.fields[c].Load()); i < len(s.Fields) && s.Fields[i].Name == name {
		return s.Fields[i].Value // a name from another program
	}
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			rt.caches.fields[c].Store(int32(i))
			return s.Fields[i].Value
		}
	}
	return Nil
}

// global is m.Global(name) for name index s, with the name's slot
// resolved once per module epoch: a REPL entry that declares new globals
// (Module.Extend) may give a name a slot it did not have, so the cached
// slot is only trusted while the epoch it was found in lasts. A funcRT
// always runs with the module it was made for.
func (rt *funcRT) global(m *Module, s int) (Value, bool) {
	epoch := m.epoch.Load()
	c := rt.slots[s].Load()
	if uint32(c>>32) != epoch {
		i, ok := m.byName[rt.fn.Names[s]]
		if !ok {
			i = -1
		}
		c = uint64(epoch)<<32 | uint64(uint32(i))
		rt.slots[s].Store(c)
	}
	if i := int32(uint32(c)); i >= 0 && m.Globals[i].IsValid() {
		return Share(m.Globals[i]), true
	}
	return Value{}, false
}

// sameString reports whether a and b are the same string header: the
// same bytes at the same address (a quick sufficient test of a == b).
func sameString(a, b string) bool {
	return *(*[2]uintptr)(unsafe.Pointer(&a)) == *(*[2]uintptr)(unsafe.Pointer(&b))
}

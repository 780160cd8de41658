package concurrency

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Keyed synchronisation, shared state and mailboxes (docs/spec/builtins.md §5, the
// Tier 3 concurrency names): sync_{mutex,semaphore,gate,rwlock}_acquire
// hand out permits (`<sync_permit:KIND:KEY>`) that sync_release gives
// back; shared cells and maps are mutable slots tasks share (one scope per
// VM, shared_scope_id; operation counts in shared_metrics; a named map
// is registered under its name); a mailbox is a channel registered under
// a name. All of it lives per VM. Blocking acquires release the VM lock
// while they wait, honour cancellation and deadlines, and give nil when
// their timeout (given plainly or as the `timeout` option) passes.

func init() {
	lib.Def("sync_mutex_acquire", "sync_mutex_acquire(key, options?: dict | duration | int | float | nil)", "a permit for the mutex key (one holder at a time); options {timeout} (or {timeout_ms}) or the timeout itself; nil on timeout", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		key, err := lockKey("sync_mutex_acquire", a)
		if err != nil {
			return vm.Value{}, err
		}
		return acquire(th, "sync_mutex_acquire", "mutex", key, 1, modeExclusive, a.At(1))
	})
	lib.Def("sync_semaphore_acquire", "sync_semaphore_acquire(key, capacity: int, options?: dict | duration | int | float | nil)", "a permit for the semaphore key (up to capacity holders); options {timeout} (or {timeout_ms}) or the timeout itself; nil on timeout", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		key, err := lockKey("sync_semaphore_acquire", a)
		if err != nil {
			return vm.Value{}, err
		}
		n, ok := a.Int(1)
		if !ok || n < 1 {
			return vm.Value{}, vm.Typef("sync_semaphore_acquire: capacity must be a positive int, got %s", positiveIntGot(a.At(1)))
		}
		return acquire(th, "sync_semaphore_acquire", "semaphore", key, int(n), modeExclusive, a.At(2))
	})
	lib.Def("sync_gate_acquire", "sync_gate_acquire(key, limit: int | nil = 1, options?: dict | duration | int | float | nil)", "a permit to pass the gate key (up to limit at once); options {timeout} (or {timeout_ms}) or the timeout itself; nil on timeout", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		key, err := lockKey("sync_gate_acquire", a)
		if err != nil {
			return vm.Value{}, err
		}
		n := int64(1)
		if a.Given(1) {
			var ok bool
			if n, ok = a.Int(1); !ok || n < 1 {
				return vm.Value{}, vm.Typef("sync_gate_acquire: limit must be a positive int, got %s", positiveIntGot(a.At(1)))
			}
		}
		return acquire(th, "sync_gate_acquire", "gate", key, int(n), modeExclusive, a.At(2))
	})
	lib.Def("sync_rwlock_acquire", "sync_rwlock_acquire(key, mode: string, options?: dict | duration | int | float | nil)", `a "read" (shared) or "write" (exclusive) permit for the rwlock key; options {timeout} (or {timeout_ms}) or the timeout itself; nil on timeout`, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		key, err := lockKey("sync_rwlock_acquire", a)
		if err != nil {
			return vm.Value{}, err
		}
		mode := modeExclusive
		switch m, _ := a.Str(1); m {
		case "read":
			mode = modeShared
		case "write":
		default:
			return vm.Value{}, vm.Typef(`sync_rwlock_acquire: mode must be "read" or "write", got %s`, choiceGot(a, 1))
		}
		return acquire(th, "sync_rwlock_acquire", "rwlock", key, 1, mode, a.At(2))
	})
	lib.Def("sync_release", "sync_release(permit) -> bool", "give a permit back; false when it was already released", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		p, ok := a.At(0).Object().(*Permit)
		if !ok {
			return vm.Value{}, vm.Typef("sync_release: expected a sync_permit, got %s", a.At(0).Type())
		}
		return vm.BoolOf(p.release()), nil
	})
	lib.Def("sync_metrics", "sync_metrics(key?) -> dict", "{acquired, released, held, waiting, timeouts} for a key, or a dict of them by key", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		reg := syncRegistryOf(th.VM())
		reg.mu.Lock()
		defer reg.mu.Unlock()
		if a.Given(0) {
			return vm.Of(reg.metricsOf(a.Text(0))), nil
		}
		out := vm.NewDict()
		for _, l := range reg.locks {
			out = out.Set(l.kind+":"+l.key, vm.Of(l.metrics()))
		}
		return vm.Of(out), nil
	})

	lib.Def("shared_cell", "shared_cell(initial = nil)", "a mutable slot tasks share", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(&SharedCell{v: a.At(0)}), nil
	})
	lib.Def("shared_get", "shared_get(cell)", "the cell's current value", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := cellArg("shared_get", a)
		if err != nil {
			return vm.Value{}, err
		}
		c.stats.reads.Add(1)
		return c.load(), nil
	})
	lib.Def("shared_snapshot", "shared_snapshot(target)", "the current value of a shared_cell, or the contents of a shared_map as a dict (as shared_map_snapshot)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		// either kind, as shared_metrics takes either
		if m, ok := a.At(0).Object().(*SharedMap); ok {
			m.stats.reads.Add(1)
			return vm.Of(m.snapshot()), nil
		}
		c, ok := a.At(0).Object().(*SharedCell)
		if !ok {
			return vm.Value{}, vm.Typef("shared_snapshot: expected a shared_cell or shared_map, got %s", a.At(0).Type())
		}
		c.stats.reads.Add(1)
		return c.load(), nil
	})
	lib.Def("shared_set", "shared_set(cell, v)", "store v; returns the previous value", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := cellArg("shared_set", a)
		if err != nil {
			return vm.Value{}, err
		}
		c.stats.writes.Add(1)
		c.mu.Lock()
		defer c.mu.Unlock()
		old := c.v
		c.v = a.At(1)
		return old, nil
	})
	lib.Def("shared_cas", "shared_cas(cell, expected, new) -> bool", "store new if the value equals expected; whether it did", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := cellArg("shared_cas", a)
		if err != nil {
			return vm.Value{}, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if !vm.Equal(c.v, a.At(1)) {
			c.stats.casFailed.Add(1)
			return vm.False, nil
		}
		c.v = a.At(2)
		c.stats.casSucceeded.Add(1)
		c.stats.writes.Add(1)
		return vm.True, nil
	})
	lib.Def("shared_map", "shared_map(name_or_initial = {}, initial = {})", "a mutable dict tasks share; given a name, the one map registered under it (made from initial by the first call)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if name, ok := a.Str(0); ok {
			init, err := initialDict(a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(namedSharedMap(th.VM(), name, init)), nil
		}
		d, err := initialDict(a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(&SharedMap{d: d}), nil
	})
	lib.Def("shared_map_get", "shared_map_get(m, key, default = nil)", "the value at key, or default", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m, err := mapArg("shared_map_get", a)
		if err != nil {
			return vm.Value{}, err
		}
		m.stats.reads.Add(1)
		if v, ok := m.snapshot().Get(a.Text(1)); ok {
			return v, nil
		}
		return a.At(2), nil
	})
	lib.Def("shared_map_set", "shared_map_set(m, key, v)", "store v at key; returns the previous value (nil when none)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m, err := mapArg("shared_map_set", a)
		if err != nil {
			return vm.Value{}, err
		}
		m.stats.writes.Add(1)
		m.mu.Lock()
		defer m.mu.Unlock()
		old, _ := m.d.Get(a.Text(1))
		m.d = m.d.Set(a.Text(1), a.At(2))
		if !old.IsValid() {
			old = vm.Nil
		}
		return old, nil
	})
	lib.Def("shared_map_delete", "shared_map_delete(m, key) -> bool", "remove key; whether it was present", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m, err := mapArg("shared_map_delete", a)
		if err != nil {
			return vm.Value{}, err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if !m.d.Has(a.Text(1)) {
			return vm.False, nil
		}
		m.stats.writes.Add(1)
		m.d = m.d.Delete(a.Text(1))
		return vm.True, nil
	})
	lib.Def("shared_map_cas", "shared_map_cas(m, key, expected, new) -> bool", "store new at key if its value equals expected (nil for absent); whether it did", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m, err := mapArg("shared_map_cas", a)
		if err != nil {
			return vm.Value{}, err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		cur, ok := m.d.Get(a.Text(1))
		if !ok {
			cur = vm.Nil
		}
		if !vm.Equal(cur, a.At(2)) {
			m.stats.casFailed.Add(1)
			return vm.False, nil
		}
		m.d = m.d.Set(a.Text(1), a.At(3))
		m.stats.casSucceeded.Add(1)
		m.stats.writes.Add(1)
		return vm.True, nil
	})
	lib.Def("shared_map_snapshot", "shared_map_snapshot(m) -> dict", "the map's current contents as a dict", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m, err := mapArg("shared_map_snapshot", a)
		if err != nil {
			return vm.Value{}, err
		}
		m.stats.reads.Add(1)
		return vm.Of(m.snapshot()), nil
	})
	lib.Def("shared_map_entries", "shared_map_entries(m) -> list", "the map's entries as {key, value} dicts, sorted by key", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m, err := mapArg("shared_map_entries", a)
		if err != nil {
			return vm.Value{}, err
		}
		m.stats.reads.Add(1)
		var out []vm.Value
		m.snapshot().Range(func(k string, v vm.Value) bool {
			out = append(out, vm.Of(lib.DictOf("key", vm.Str(k), "value", v)))
			return true
		})
		return vm.Of(lib.List(out)), nil
	})

	lib.Def("shared_metrics", "shared_metrics(target) -> dict", "{kind, reads, writes, cas_succeeded, cas_failed} of a shared_cell, plus size for a shared_map; writes count the operations that store (every set, a delete that removed a key, a compare-and-set that succeeded)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		switch x := a.At(0).Object().(type) {
		case *SharedCell:
			return vm.Of(x.stats.dict("cell", -1)), nil
		case *SharedMap:
			return vm.Of(x.stats.dict("map", x.snapshot().Len())), nil
		}
		return vm.Value{}, vm.Typef("shared_metrics: expected a shared_cell or shared_map, got %s", a.At(0).Type())
	})
	lib.Def("shared_scope_id", "shared_scope_id() -> string", "the id of the scope shared cells and maps live in (one per run: every task sees the same id)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(th.VM().Local(sharedScopeKey{}, func() any {
			b := make([]byte, 8)
			rand.Read(b)
			return "scope_" + hex.EncodeToString(b)
		}).(string)), nil
	})
	lib.Def("mailbox_open", "mailbox_open(name: string, capacity: int | nil = 256)", "the mailbox registered under name, opened if needed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		capacity, err := capacityArg("mailbox_open", a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		name, err := mailboxName("mailbox_open", a)
		if err != nil {
			return vm.Value{}, err
		}
		reg := mailboxesOf(th.VM())
		reg.mu.Lock()
		defer reg.mu.Unlock()
		if mb, ok := reg.byName[name]; ok && !mb.ch.isClosed() {
			return vm.Of(mb), nil
		}
		mb := &Mailbox{ch: NewChannel(th.VM(), name, capacity)}
		reg.byName[name] = mb
		return vm.Of(mb), nil
	})
	lib.Def("mailbox_lookup", "mailbox_lookup(name: string)", "the open mailbox registered under name, or nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name, err := mailboxName("mailbox_lookup", a)
		if err != nil {
			return vm.Value{}, err
		}
		reg := mailboxesOf(th.VM())
		reg.mu.Lock()
		defer reg.mu.Unlock()
		if mb, ok := reg.byName[name]; ok && !mb.ch.isClosed() {
			return vm.Of(mb), nil
		}
		return vm.Nil, nil
	})
	lib.Def("mailbox_send", "mailbox_send(mailbox_or_name, v) -> bool", "queue v, waiting while the mailbox is full; false when it is closed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		mb, err := mailboxArg(th, "mailbox_send", a)
		if err != nil {
			return vm.Value{}, err
		}
		ok, err := mb.ch.Send(th, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		if ok {
			mb.sent.Add(1)
		}
		return vm.BoolOf(ok), nil
	})
	lib.Def("mailbox_receive", "mailbox_receive(mailbox_or_name)", "the next message, waiting for one; nil once closed and empty", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		mb, err := mailboxArg(th, "mailbox_receive", a)
		if err != nil {
			return vm.Value{}, err
		}
		v, ok, err := mb.ch.Receive(th)
		if err != nil {
			return vm.Value{}, err
		}
		if ok {
			mb.received.Add(1)
		}
		return v, nil
	})
	lib.Def("mailbox_try_receive", "mailbox_try_receive(mailbox_or_name)", "the next message if one is queued, else nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		mb, err := mailboxArg(th, "mailbox_try_receive", a)
		if err != nil {
			return vm.Value{}, err
		}
		v, ok := mb.ch.TryReceive()
		if ok {
			mb.received.Add(1)
		}
		return v, nil
	})
	lib.Def("mailbox_close", "mailbox_close(mailbox_or_name) -> nil", "close the mailbox; queued messages can still be received", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		mb, err := mailboxArg(th, "mailbox_close", a)
		if err != nil {
			return vm.Value{}, err
		}
		mb.ch.Close()
		return vm.Nil, nil
	})
	lib.Def("mailbox_metrics", "mailbox_metrics(mailbox_or_name) -> dict", "{name, sent, received, queued, closed}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		mb, err := mailboxArg(th, "mailbox_metrics", a)
		if err != nil {
			return vm.Value{}, err
		}
		mb.ch.mu.Lock()
		queued, closed := mb.ch.size(), mb.ch.closed
		mb.ch.mu.Unlock()
		return vm.Of(lib.DictOf("name", vm.Str(mb.ch.name), "sent", vm.IntOf(mb.sent.Load()), "received", vm.IntOf(mb.received.Load()),
			"queued", lib.IntOf(queued), "closed", vm.BoolOf(closed))), nil
	})
}

// ---- permits ----

type lockMode int

const (
	modeExclusive lockMode = iota // counts against the capacity
	modeShared                    // rwlock readers
)

// keyedLock is the state of one KIND:KEY.
type keyedLock struct {
	vm        *vm.VM
	kind, key string
	capacity  int
	held      int // exclusive holders
	readers   int
	waiters   []*lockWaiter

	acquired, released, timeouts int64
}

type lockWaiter struct {
	mode    lockMode
	wake    chan struct{}
	granted bool
}

func (l *keyedLock) canGrant(mode lockMode) bool {
	if mode == modeShared {
		return l.held == 0
	}
	if l.kind == "rwlock" {
		return l.held == 0 && l.readers == 0
	}
	return l.held < l.capacity
}

// resize gives the lock the capacity an acquire asks for (docs/concurrency.md,
// "Sync permits"): an idle semaphore or gate takes the new one, while one
// in use (held or waited for) refuses a different one rather than letting
// a caller that asks for fewer holders in while more hold it.
func (l *keyedLock) resize(name string, capacity int) error {
	if l.capacity == capacity {
		return nil
	}
	if l.held == 0 && l.readers == 0 && len(l.waiters) == 0 {
		l.capacity = capacity
		return nil
	}
	what := "capacity"
	if l.kind == "gate" {
		what = "limit"
	}
	return vm.Runtimef("%s: %s '%s' is in use with %s %d, got %d", name, l.kind, l.key, what, l.capacity, capacity)
}

func (l *keyedLock) grant(mode lockMode) {
	if mode == modeShared {
		l.readers++
	} else {
		l.held++
	}
	l.acquired++
}

// wakeWaiters grants queued waiters in arrival order while they fit.
func (l *keyedLock) wakeWaiters() {
	for len(l.waiters) > 0 && l.canGrant(l.waiters[0].mode) {
		w := l.waiters[0]
		l.waiters = l.waiters[1:]
		l.grant(w.mode)
		w.granted = true
		l.vm.Wake(w.wake)
	}
}

func (l *keyedLock) metrics() *vm.Dict {
	return lib.DictOf("acquired", vm.IntOf(l.acquired), "released", vm.IntOf(l.released),
		"held", lib.IntOf(l.held+l.readers), "waiting", lib.IntOf(len(l.waiters)), "timeouts", vm.IntOf(l.timeouts))
}

// metricsOf is sync_metrics(k) (reg.mu held): the lock named k, whatever
// its kind; when several kinds use the name (a mutex and a semaphore both
// "db"), their counts added up, so the answer does not depend on map
// order; else the lock the dict of sync_metrics() lists as k ("mutex:db");
// else zeros.
func (reg *syncRegistry) metricsOf(k string) *vm.Dict {
	var sum keyedLock
	found := false
	for _, l := range reg.locks {
		if l.key == k {
			found = true
			sum.acquired += l.acquired
			sum.released += l.released
			sum.held += l.held + l.readers
			sum.waiters = append(sum.waiters, l.waiters...)
			sum.timeouts += l.timeouts
		}
	}
	if !found {
		if l := reg.locks[k]; l != nil {
			return l.metrics()
		}
	}
	return sum.metrics()
}

type syncRegistry struct {
	mu    sync.Mutex
	locks map[string]*keyedLock
	// held lists the permits each running thread acquired, so that a task
	// that fails or is cancelled, or a deadline block that runs out, gives
	// back what it still holds.
	held map[*vm.Thread][]*Permit
	// seq numbers the permits in the order they were granted.
	seq int64
}

type syncKey struct{}

func syncRegistryOf(v *vm.VM) *syncRegistry {
	return v.Local(syncKey{}, func() any {
		return &syncRegistry{locks: map[string]*keyedLock{}, held: map[*vm.Thread][]*Permit{}}
	}).(*syncRegistry)
}

// registryIfAny is v's sync registry, nil before the program's first
// sync_* call.
func registryIfAny(v *vm.VM) *syncRegistry {
	reg, _ := v.Local(syncKey{}, nil).(*syncRegistry)
	return reg
}

// releasePermitsOf forgets the permits a task acquired when it ends and,
// when it ended by failing or being cancelled, releases those it still
// holds: unwinding drops them, as it leaves a `mutex` block. A task that
// returns normally keeps its permits held, since it may have handed them
// to other code that releases them.
func releasePermitsOf(th *vm.Thread, unwound bool) {
	reg := registryIfAny(th.VM())
	if reg == nil {
		return
	}
	reg.mu.Lock()
	ps := reg.held[th]
	delete(reg.held, th)
	for _, p := range ps {
		p.owner = nil
	}
	reg.mu.Unlock()
	if unwound {
		for _, p := range ps {
			p.release()
		}
	}
}

// permitMark is the number of permits granted so far in th's program:
// those granted later follow it (releasePermitsSince).
func permitMark(th *vm.Thread) int64 {
	reg := registryIfAny(th.VM())
	if reg == nil {
		return 0
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return reg.seq
}

// releasePermitsSince releases the permits th took after mark and still
// holds: a `deadline` block that runs out unwinds like a failing task,
// and a permit taken inside it would otherwise stay held for good when
// the code that was to release it is the code the deadline cut short.
func releasePermitsSince(th *vm.Thread, mark int64) {
	reg := registryIfAny(th.VM())
	if reg == nil {
		return
	}
	reg.mu.Lock()
	var late []*Permit
	for _, p := range reg.held[th] {
		if p.seq > mark {
			late = append(late, p)
		}
	}
	reg.mu.Unlock()
	for _, p := range late {
		p.release()
	}
}

// Permit is a held sync_* acquisition (`<sync_permit:KIND:KEY>`). It has
// no EqualTo: docs/spec/builtins.md §1.5 makes sync permits never equal,
// not even to themselves.
type Permit struct {
	reg      *syncRegistry
	lock     *keyedLock
	mode     lockMode
	owner    *vm.Thread // the thread that acquired it, while it runs (reg.held)
	seq      int64      // its place in the order permits were granted
	released atomic.Bool
}

func (*Permit) Type() string { return "sync_permit" }
func (*Permit) Truth() bool  { return true }
func (p *Permit) Display(sb *strings.Builder) {
	sb.WriteString("<sync_permit:")
	sb.WriteString(p.lock.kind)
	sb.WriteByte(':')
	sb.WriteString(p.lock.key)
	sb.WriteByte('>')
}

// Drop is drop(permit) (docs/spec/newer.md §2.25): the permit is given
// back, as sync_release does and as dropping a lock guard releases the
// lock in Rust; a permit already released is left alone.
func (p *Permit) Drop() { p.release() }

func (p *Permit) release() bool {
	if !p.released.CompareAndSwap(false, true) {
		return false
	}
	p.reg.mu.Lock()
	defer p.reg.mu.Unlock()
	if p.owner != nil {
		ps := p.reg.held[p.owner]
		for i := len(ps) - 1; i >= 0; i-- {
			if ps[i] == p {
				p.reg.held[p.owner] = append(ps[:i], ps[i+1:]...)
				break
			}
		}
	}
	if p.mode == modeShared {
		p.lock.readers--
	} else {
		p.lock.held--
	}
	p.lock.released++
	p.lock.wakeWaiters()
	return true
}

// selfBlock is the error of an acquire of l in mode that only th's own
// permits hold back: th (or the task it runs for, when it is lent to a
// generator's consumer) holds every permit standing in its way. Taking
// it without a timeout, when no other task could release a permit
// (VM.Alone: a permit may have been handed to a task that releases it),
// is the re-entrant acquire of docs/spec/newer.md §1.7, reported at once
// as a `mutex` block reports it, where it used to wait until the
// deadlock detector gave up (docs/concurrency.md, Sync permits): a mutex
// taken again, an rwlock taken again while this task writes, an rwlock
// taken for writing while this task is its only reader, a semaphore or
// gate whose every permit this task holds. With a timeout the acquire
// waits and gives nil as before (a program may be probing the lock), and
// inside a `deadline` block it waits for the deadline, which ends it.
// "" when the acquire may be granted or waits for another holder.
// Called with reg.mu held.
func (reg *syncRegistry) selfBlock(th *vm.Thread, l *keyedLock, mode lockMode) string {
	if l.canGrant(mode) {
		return ""
	}
	var writes, reads int // th's permits of l
	for o := th; o != nil; o = o.Lender() {
		for _, p := range reg.held[o] {
			if p.lock != l || p.released.Load() {
				continue
			}
			if p.mode == modeShared {
				reads++
			} else {
				writes++
			}
		}
	}
	switch {
	case l.kind == "mutex" && writes > 0:
		return reentrantMsg
	case l.kind != "rwlock":
		if writes == l.held {
			return "acquire of a " + l.kind + " whose every permit is already held by this task (HARN-ORC-011)"
		}
	case writes > 0 && writes == l.held && (mode == modeShared || reads == l.readers):
		return reentrantRWMsg
	case mode == modeExclusive && l.held == 0 && reads == l.readers:
		return "write acquire of an rwlock this task holds for reading: release the read permit first (HARN-ORC-011)"
	}
	return ""
}

// reentrantRWMsg is reentrantMsg for an rwlock taken again by the task
// that holds it for writing.
const reentrantRWMsg = "re-entrant acquire of a non-reentrant rwlock already held for writing by this task (HARN-ORC-011)"

// hold records that th acquired p (reg.mu held). The program's own
// thread is tracked too, for its deadline blocks; it ends with the
// program, so its list is never dropped.
func (reg *syncRegistry) hold(th *vm.Thread, p *Permit) {
	reg.seq++
	p.seq = reg.seq
	p.owner = th
	reg.held[th] = append(reg.held[th], p)
}

// lockKey is the key of a sync_* acquire: any value but nil, named by its
// display form. A missing or nil key would lock the key "nil" that every
// other such mistake shares.
func lockKey(name string, a vm.Args) (string, error) {
	if a.At(0).IsNil() {
		return "", vm.Typef("%s: expected a key, got nil", name)
	}
	return a.Text(0), nil
}

// positiveIntGot shows what a count that must be a positive int was: the
// number when it is an int, else its type.
func positiveIntGot(v vm.Value) string {
	if _, ok := v.AsInt(); ok {
		return vm.ToDisplay(v)
	}
	return v.Type()
}

// choiceGot shows a wrong choice among names (an rwlock mode, a restart
// policy): a string quoted, else its type.
func choiceGot(a vm.Args, i int) string {
	if s, ok := a.Str(i); ok {
		return strconv.Quote(s)
	}
	return a.At(i).Type()
}

// acquire waits for a permit of kind:key; nil when the timeout opts
// gives (acquireTimeout) passes first.
func acquire(th *vm.Thread, name, kind, key string, capacity int, mode lockMode, opts vm.Value) (vm.Value, error) {
	timeout, err := acquireTimeout(name, opts)
	if err != nil {
		return vm.Value{}, err
	}
	reg := syncRegistryOf(th.VM())
	reg.mu.Lock()
	l := reg.locks[kind+":"+key]
	if l == nil {
		l = &keyedLock{vm: th.VM(), kind: kind, key: key, capacity: capacity}
		reg.locks[kind+":"+key] = l
	}
	if err := l.resize(name, capacity); err != nil {
		reg.mu.Unlock()
		return vm.Value{}, err
	}
	if msg := reg.selfBlock(th, l, mode); msg != "" && timeout < 0 && th.Deadline() == 0 && th.MockDeadline() == 0 && th.VM().Alone() {
		reg.mu.Unlock()
		return vm.Value{}, vm.Categorized("deadlock", msg)
	}
	p := &Permit{reg: reg, lock: l, mode: mode}
	if len(l.waiters) == 0 && l.canGrant(mode) {
		l.grant(mode)
		reg.hold(th, p)
		reg.mu.Unlock()
		return vm.Of(p), nil
	}
	// buffered, so the scheduler sees a grant not yet taken (WaitOnThreads)
	w := &lockWaiter{mode: mode, wake: make(chan struct{}, 1)}
	l.waiters = append(l.waiters, w)
	reg.mu.Unlock()
	_, err = th.WaitOnThreadsClocked(w.wake, timeout)
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if w.granted {
		if err != nil {
			// granted while giving up: hand the permit on
			if mode == modeShared {
				l.readers--
			} else {
				l.held--
			}
			l.wakeWaiters()
			return vm.Value{}, err
		}
		reg.hold(th, p)
		return vm.Of(p), nil
	}
	for i, x := range l.waiters {
		if x == w {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			break
		}
	}
	// A waiter that gives up (timeout, cancellation, deadline) may have
	// been what held back the ones queued behind it: a writer first in
	// line keeps later readers waiting while the lock is only read-held.
	l.wakeWaiters()
	if err != nil {
		return vm.Value{}, err
	}
	l.timeouts++
	return vm.Nil, nil
}

// ---- shared state ----

// SharedCell is a mutable slot shared by tasks (type "shared_cell").
type SharedCell struct {
	mu    sync.Mutex
	v     vm.Value
	stats sharedStats
}

func (*SharedCell) Type() string { return "shared_cell" }
func (*SharedCell) Truth() bool  { return true }
func (c *SharedCell) Display(sb *strings.Builder) {
	sb.WriteString("<shared_cell:")
	c.load().Display(sb)
	sb.WriteByte('>')
}

// EqualTo: a cell equals only itself.
func (c *SharedCell) EqualTo(o vm.Value) bool { d, ok := o.Object().(*SharedCell); return ok && c == d }

func (c *SharedCell) load() vm.Value {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.v
}

func cellArg(name string, a vm.Args) (*SharedCell, error) {
	c, ok := a.At(0).Object().(*SharedCell)
	if !ok {
		return nil, vm.Typef("%s: expected a shared_cell, got %s", name, a.At(0).Type())
	}
	return c, nil
}

// SharedMap is a mutable dict shared by tasks (type "shared_map").
type SharedMap struct {
	mu    sync.Mutex
	d     *vm.Dict
	stats sharedStats
}

func (*SharedMap) Type() string { return "shared_map" }
func (*SharedMap) Truth() bool  { return true }
func (m *SharedMap) Display(sb *strings.Builder) {
	sb.WriteString("<shared_map:")
	m.snapshot().Display(sb)
	sb.WriteByte('>')
}

// EqualTo: a map equals only itself.
func (m *SharedMap) EqualTo(o vm.Value) bool { n, ok := o.Object().(*SharedMap); return ok && m == n }

func (m *SharedMap) snapshot() *vm.Dict {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.d
}

func mapArg(name string, a vm.Args) (*SharedMap, error) {
	m, ok := a.At(0).Object().(*SharedMap)
	if !ok {
		return nil, vm.Typef("%s: expected a shared_map, got %s", name, a.At(0).Type())
	}
	return m, nil
}

// initialDict is argument i of shared_map, its initial contents: a dict,
// or nothing (nil) for none.
func initialDict(a vm.Args, i int) (*vm.Dict, error) {
	if d, ok := a.Dict(i); ok {
		return d, nil
	}
	if a.At(i).IsNil() {
		return vm.NewDict(), nil
	}
	what := "an initial dict"
	if i == 0 {
		what = "a name or an initial dict"
	}
	return nil, vm.Typef("shared_map: expected %s, got %s", what, a.At(i).Type())
}

// sharedMapsKey keys a VM's registry of named shared maps.
type sharedMapsKey struct{}

// namedSharedMap is the map registered under name in v, registered from
// init if there is none yet: every task of the program that names it
// gets the same map, as mailbox_open does for a mailbox.
func namedSharedMap(v *vm.VM, name string, init *vm.Dict) *SharedMap {
	reg := namesOf[*SharedMap](v, sharedMapsKey{})
	reg.mu.Lock()
	defer reg.mu.Unlock()
	m, ok := reg.byName[name]
	if !ok {
		m = &SharedMap{d: init}
		reg.byName[name] = m
	}
	return m
}

// sharedStats counts the operations on a shared cell or map for
// shared_metrics: reads (get, snapshot, entries), writes (the operations
// that store: every set, a delete that removed a key, a compare-and-set
// that succeeded) and compare-and-sets by outcome. A delete of a missing
// key and a failed compare-and-set leave the contents as they were, so
// they are not writes.
type sharedStats struct {
	reads, writes, casSucceeded, casFailed atomic.Int64
}

func (s *sharedStats) dict(kind string, size int) *vm.Dict {
	d := lib.DictOf("kind", vm.Str(kind), "reads", vm.IntOf(s.reads.Load()), "writes", vm.IntOf(s.writes.Load()),
		"cas_succeeded", vm.IntOf(s.casSucceeded.Load()), "cas_failed", vm.IntOf(s.casFailed.Load()))
	if size >= 0 {
		d = d.Set("size", lib.IntOf(size))
	}
	return d
}

// sharedScopeKey keys the id of the scope shared values live in: every task of
// one VM shares them, so there is one scope per VM.
type sharedScopeKey struct{}

// ---- mailboxes ----

// Mailbox is a channel registered under a name (type "mailbox").
type Mailbox struct {
	ch             *Channel
	sent, received atomic.Int64
}

func (*Mailbox) Type() string { return "mailbox" }
func (*Mailbox) Truth() bool  { return true }
func (m *Mailbox) Display(sb *strings.Builder) {
	sb.WriteString("<mailbox:")
	sb.WriteString(m.ch.name)
	sb.WriteByte('>')
}

// EqualTo: a mailbox equals only itself.
func (m *Mailbox) EqualTo(o vm.Value) bool { n, ok := o.Object().(*Mailbox); return ok && m == n }

// nameRegistry holds what a VM registers under names: its mailboxes,
// its named shared maps.
type nameRegistry[T any] struct {
	mu     sync.Mutex
	byName map[string]T
}

// namesOf is v's registry under key, made on first use.
func namesOf[T any](v *vm.VM, key any) *nameRegistry[T] {
	return v.Local(key, func() any { return &nameRegistry[T]{byName: map[string]T{}} }).(*nameRegistry[T])
}

type mailboxKey struct{}

func mailboxesOf(v *vm.VM) *nameRegistry[*Mailbox] { return namesOf[*Mailbox](v, mailboxKey{}) }

// mailboxName is the name a mailbox is registered under: a string. A nil
// (a lookup that found nothing) would otherwise open a mailbox named "nil".
func mailboxName(name string, a vm.Args) (string, error) {
	s, ok := a.Str(0)
	if !ok {
		return "", vm.Typef("%s: name must be a string, got %s", name, a.At(0).Type())
	}
	return s, nil
}

// mailboxArg is a mailbox value or the name of a registered one.
func mailboxArg(th *vm.Thread, name string, a vm.Args) (*Mailbox, error) {
	if x, ok := a.At(0).AsString(); ok {
		reg := mailboxesOf(th.VM())
		reg.mu.Lock()
		defer reg.mu.Unlock()
		if mb, ok := reg.byName[x.Go()]; ok {
			return mb, nil
		}
		return nil, vm.Throwf("%s: no mailbox named '%s'", name, x.Go())
	}
	switch x := a.At(0).Object().(type) {
	case *Mailbox:
		return x, nil
	}
	return nil, vm.Typef("%s: expected a mailbox or a mailbox name, got %s", name, a.At(0).Type())
}

package concurrency

// Channels and `select` (docs/spec/language.md §13).
//
// A channel is a FIFO queue of at most its capacity values, shared by
// reference between tasks (the values in it are immutable). send waits
// while the channel is full; receive waits while it is empty. Closing
// wakes everyone: receivers drain what is left and then get nil, senders
// get false. `for x in ch` receives until the channel is closed and
// empty. `select` receives from the first of its channels that is ready
// (in source order, so programs are deterministic), waiting for one when
// none is; a closed and drained channel counts as ready with nil.
//
// Every blocked operation waits through vm.Thread.Wait, so it releases
// the VM lock and wakes for cancellation, deadlines and timeouts. A value
// is handed to a waiting receiver by the sender itself (claimed with a
// compare-and-swap, since one select waits on several channels), so a
// wake-up never loses or duplicates a value.
//
// Capacity counts as a buffered channel in upstream's runtime (a bounded
// queue whose receivers and senders take their turn when they run) does:
// a value handed to a receiver that has not run yet still takes its slot
// (inflight), and a slot freed for a waiting sender is only promised to
// it (reserved) until that sender runs and puts its value in (if the
// channel closed before it ran, the sender is refused). So a sender
// facing a waiting receiver on channel(1) can send one value, not two,
// before it waits, and a receiver does not find the value of a sender
// it just let in until that sender has run (docs/concurrency.md,
// Channels).

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// DefaultChannelCapacity is the capacity of `channel()` without one.
const DefaultChannelCapacity = 256

// Channel is a channel value (`<channel:NAME>`, type "channel", never
// equal to anything).
type Channel struct {
	vm   *vm.VM
	name string
	cap  int

	mu       sync.Mutex
	buf      []vm.Value
	head     int
	inflight int // values handed to receivers that have not run yet
	reserved int // slots promised to woken senders that have not run yet
	closed   bool
	recvq    []*recvWaiter
	sendq    []*sendWaiter
}

// selectWait is one blocked receive or select: whoever claims it first
// (a sender, a closer, or the waiter giving up) decides its outcome.
type selectWait struct {
	state  atomic.Bool
	wake   chan struct{}
	idx    int
	val    vm.Value
	closed bool
	from   *Channel // the sender's channel when a sender handed val over
}

func (w *selectWait) claim() bool { return w.state.CompareAndSwap(false, true) }

type recvWaiter struct {
	w   *selectWait
	idx int
}

type sendWaiter struct {
	state    atomic.Bool
	wake     chan struct{}
	reserved bool // woken with a slot kept for the sender's value
}

// NewChannel makes a channel (capacity at least 1).
func NewChannel(v *vm.VM, name string, capacity int) *Channel {
	return &Channel{vm: v, name: name, cap: max(capacity, 1)}
}

func (*Channel) Type() string   { return "channel" }
func (*Channel) Truth() bool    { return true }
func (c *Channel) Name() string { return c.name }
func (c *Channel) Display(sb *strings.Builder) {
	sb.WriteString("<channel:")
	sb.WriteString(c.name)
	sb.WriteByte('>')
}

func (c *Channel) size() int { return len(c.buf) - c.head }

func (c *Channel) pop() vm.Value {
	v := c.buf[c.head]
	c.buf[c.head] = vm.Value{}
	c.head++
	if c.head == len(c.buf) {
		c.buf, c.head = c.buf[:0], 0
	} else if c.head > 64 && c.head*2 > len(c.buf) {
		n := copy(c.buf, c.buf[c.head:])
		clear(c.buf[n:])
		c.buf, c.head = c.buf[:n], 0
	}
	return v
}

// used is the number of slots taken: buffered values, values handed to
// receivers that have not run yet, and slots kept for woken senders.
func (c *Channel) used() int { return c.size() + c.inflight + c.reserved }

// refill keeps a free slot for the oldest waiting sender and wakes it;
// its value goes in when it runs (c.mu held).
func (c *Channel) refill() {
	for len(c.sendq) > 0 && c.used() < c.cap {
		s := c.sendq[0]
		c.sendq = c.sendq[1:]
		if s.state.CompareAndSwap(false, true) {
			c.reserved++
			s.reserved = true
			c.vm.Wake(s.wake)
			return
		}
	}
}

// received gives back the slot of a value a sender handed to a receiver
// once that receiver runs.
func (c *Channel) received() {
	c.mu.Lock()
	c.inflight--
	c.refill()
	c.mu.Unlock()
}

// takeReady takes a value if one is available now (c.mu held): ok reports
// readiness, open is false when the channel is closed and drained.
func (c *Channel) takeReady() (v vm.Value, ok, open bool) {
	if c.size() > 0 {
		v = c.pop()
		c.refill()
		return v, true, true
	}
	if c.closed {
		return vm.Nil, true, false
	}
	return vm.Value{}, false, true
}

// Send puts v on the channel, waiting while it is full; it reports false
// when the channel is (or gets) closed.
func (c *Channel) Send(th *vm.Thread, v vm.Value) (bool, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false, nil
	}
	if c.placeAndUnlock(v) {
		return true, nil
	}
	s := &sendWaiter{wake: make(chan struct{}, 1)}
	c.sendq = append(c.sendq, s)
	c.mu.Unlock()
	fired, err := th.WaitOnThreads(s.wake, -1)
	if !fired {
		if s.state.CompareAndSwap(false, true) {
			c.mu.Lock()
			c.sendq = removeSender(c.sendq, s)
			c.mu.Unlock()
			return false, err
		}
		// Let in (or refused by a close) just as we stopped.
		<-s.wake
	}
	if !s.reserved {
		return false, err
	}
	// Our slot was kept: the value goes in, unless the channel was closed
	// before we ran, when receivers may already have found it drained (a
	// sender refused as if it were still waiting).
	c.mu.Lock()
	c.reserved--
	if c.closed {
		c.mu.Unlock()
		return false, err
	}
	c.place(v)
	return true, err
}

// TrySend puts v on the channel without waiting: to a waiting receiver,
// or into the buffer when there is room. sent is false when the channel
// is full or closed; open tells the two apart.
func (c *Channel) TrySend(v vm.Value) (sent, open bool) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false, false
	}
	if c.placeAndUnlock(v) {
		return true, true
	}
	c.mu.Unlock()
	return false, true
}

// placeAndUnlock hands v to a waiting receiver, or puts it in the
// buffer when there is room, and then unlocks c.mu and wakes the
// receiver. It reports false, with c.mu still held, when there is
// neither. The caller holds c.mu.
func (c *Channel) placeAndUnlock(v vm.Value) bool {
	if c.used() >= c.cap {
		return false
	}
	c.place(v)
	return true
}

// place hands v to a waiting receiver or buffers it, then unlocks c.mu
// (c.mu held, a slot free for v).
func (c *Channel) place(v vm.Value) {
	for len(c.recvq) > 0 {
		r := c.recvq[0]
		c.recvq = c.recvq[1:]
		if r.w.claim() {
			r.w.idx, r.w.val, r.w.from = r.idx, v, c
			c.inflight++
			c.mu.Unlock()
			c.vm.Wake(r.w.wake)
			return
		}
	}
	c.buf = append(c.buf, v)
	c.mu.Unlock()
}

func removeSender(q []*sendWaiter, s *sendWaiter) []*sendWaiter {
	for i, x := range q {
		if x == s {
			return append(q[:i:i], q[i+1:]...)
		}
	}
	return q
}

// TryReceive takes a value if one is ready.
func (c *Channel) TryReceive() (vm.Value, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.size() == 0 {
		return vm.Nil, false
	}
	v := c.pop()
	c.refill()
	return v, true
}

// Receive takes the next value, waiting while the channel is empty; ok is
// false once it is closed and drained.
func (c *Channel) Receive(th *vm.Thread) (v vm.Value, ok bool, err error) {
	_, v, closed, err := selectOn(th, []*Channel{c}, -1, false)
	if err != nil {
		return vm.Value{}, false, err
	}
	return v, !closed, nil
}

// Close closes the channel; waiting receivers get nil, senders false.
// isClosed reports whether Close ran.
func (c *Channel) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *Channel) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	rq, sq := c.recvq, c.sendq
	c.recvq, c.sendq = nil, nil
	c.mu.Unlock()
	for _, r := range rq {
		if r.w.claim() {
			r.w.idx, r.w.val, r.w.closed = r.idx, vm.Nil, true
			c.vm.Wake(r.w.wake)
		}
	}
	for _, s := range sq {
		if s.state.CompareAndSwap(false, true) {
			c.vm.Wake(s.wake)
		}
	}
}

// Drop is drop(ch) (docs/spec/newer.md §2.25, the release at the end of an
// owned<channel> binding's scope): the channel closes, as Rust's last
// Sender closes its channel when dropped; receivers drain what is left.
func (c *Channel) Drop() { c.Close() }

// selectOn receives from the first ready channel. It returns the index of
// that channel (closed reports that it was closed and drained, the value
// being nil), -1 when timeout passed (timeout < 0: wait forever), or -2
// when nothing was ready and withDefault is set.
func selectOn(th *vm.Thread, chans []*Channel, timeout time.Duration, withDefault bool) (idx int, v vm.Value, closed bool, err error) {
	for i, c := range chans {
		c.mu.Lock()
		v, ok, open := c.takeReady()
		c.mu.Unlock()
		if ok {
			return i, v, !open, nil
		}
	}
	if withDefault {
		return -2, vm.Nil, false, nil
	}
	if timeout == 0 {
		return -1, vm.Nil, false, nil
	}
	w := &selectWait{wake: make(chan struct{}, 1)}
	registered := 0
	for i, c := range chans {
		c.mu.Lock()
		if c.size() > 0 || c.closed {
			// Became ready while we were registering elsewhere.
			if w.claim() {
				v, _, open := c.takeReady()
				w.idx, w.val, w.closed = i, v, !open
				w.wake <- struct{}{}
			}
			c.mu.Unlock()
			break
		}
		c.recvq = append(c.recvq, &recvWaiter{w: w, idx: i})
		registered = i + 1
		c.mu.Unlock()
	}
	fired, err := th.WaitOnThreadsClocked(w.wake, timeout)
	if !fired && !w.claim() {
		// A value arrived as we gave up: keep it.
		<-w.wake
		fired, err = true, nil
	}
	for _, c := range chans[:registered] {
		c.mu.Lock()
		q := c.recvq[:0]
		for _, r := range c.recvq {
			if r.w != w {
				q = append(q, r)
			}
		}
		clear(c.recvq[len(q):])
		c.recvq = q
		c.mu.Unlock()
	}
	if !fired {
		return -1, vm.Nil, false, err
	}
	if w.from != nil {
		w.from.received()
	}
	return w.idx, w.val, w.closed, nil
}

// NextOn makes `for x in ch` receive until the channel is closed and empty.
func (c *Channel) NextOn(th *vm.Thread) (vm.Value, bool, error) { return c.Receive(th) }

// Next receives for the thread holding the VM lock.
func (c *Channel) Next() (vm.Value, bool, error) { return c.Receive(c.vm.Current()) }

// Iterate makes the channel a for-loop source (vm.Iterable).
func (c *Channel) Iterate() vm.Iterator { return c }

// capacityArg is argument i of builtin name, the capacity of a channel
// it makes: DefaultChannelCapacity when not given, at most 1<<30. A
// negative capacity is an error; 0 holds one value like 1
// (docs/concurrency.md).
func capacityArg(name string, a vm.Args, i int) (int, error) {
	if !a.Given(i) {
		return DefaultChannelCapacity, nil
	}
	n, ok := a.Int(i)
	if !ok {
		return 0, vm.Typef("%s: capacity must be an int, got %s", name, a.At(i).Type())
	}
	if n < 0 {
		return 0, vm.Typef("%s: capacity must be a non-negative int, got %d", name, n)
	}
	return int(min(n, 1<<30)), nil
}

func channelArg(name string, a vm.Args, i int) (*Channel, error) {
	c, ok := a.At(i).Object().(*Channel)
	if !ok {
		return nil, vm.Typef("%s: expected a channel, got %s", name, a.At(i).Type())
	}
	return c, nil
}

func init() {
	lib.Def("channel", "channel(name: string | int | nil = \"default\", capacity: int | nil = 256) -> channel", "a channel holding at most capacity values (capacity alone may be given)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name, at := "default", 1
		if _, ok := a.Int(0); ok && a.Len() == 1 {
			at = 0
		} else if a.Given(0) {
			s, ok := a.Str(0)
			if !ok {
				return vm.Value{}, vm.Typef("channel: name must be a string, got %s", a.At(0).Type())
			}
			name = s
		}
		capacity, err := capacityArg("channel", a, at)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(NewChannel(th.VM(), name, capacity)), nil
	})
	lib.Def("send", "send(ch: channel, value) -> bool", "put a value on a channel, waiting while it is full; false when it is closed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := channelArg("send", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		ok, err := c.Send(th, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(ok), nil
	})
	lib.Def("receive", "receive(ch: channel)", "the next value of a channel, waiting for one; nil once it is closed and empty", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := channelArg("receive", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		v, _, err := c.Receive(th)
		if err != nil {
			return vm.Value{}, err
		}
		return v, nil
	})
	lib.Def("try_receive", "try_receive(ch: channel)", "the next value of a channel if one is ready, else nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := channelArg("try_receive", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		v, _ := c.TryReceive()
		return v, nil
	})
	lib.Def("close_channel", "close_channel(ch: channel) -> nil", "close a channel", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := channelArg("close_channel", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		c.Close()
		return vm.Nil, nil
	})
	lib.Def("channel_close", "channel_close(ch: channel) -> nil", "close a channel", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := channelArg("channel_close", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		c.Close()
		return vm.Nil, nil
	})
	lib.Def("channel_is_closed", "channel_is_closed(ch: channel) -> bool", "whether the channel was closed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c, err := channelArg("channel_is_closed", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(c.isClosed()), nil
	})
	lib.Def("__wait_arg", "__wait_arg(value, form, is_timeout)", "runtime hook of `select` and `mutex(key, timeout)`: checks a case's channel, or a timeout, where it is written, so a bad one is reported at its own position", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		form := a.Text(1)
		if isTimeout, _ := a.Bool(2); isTimeout {
			read := waitTimeout
			if form == "mutex" { // also the options dict, as __mutex_enter reads it
				read = acquireTimeout
			}
			if _, err := read(form, a.At(0)); err != nil {
				return vm.Value{}, err
			}
			return a.At(0), nil
		}
		if _, err := channelArg(form, a, 0); err != nil {
			return vm.Value{}, err
		}
		return a.At(0), nil
	})
	lib.Def("__select", "__select(channels, timeout, has_default)", "runtime hook of `select`", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		chans, err := selectChannels("select", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		timeout, err := waitTimeout("select", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		withDefault, _ := a.Bool(2)
		idx, v, _, err := selectOn(th, chans, timeout, withDefault)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(vm.NewList([]vm.Value{vm.IntOf(int64(idx)), v})), nil
	})
	for _, name := range []string{"channel_select", "select"} {
		lib.Def(name, name+"(channels, ...more) -> dict", "receive from the first ready channel: {index, value} (index -1 on timeout); channels come as a list then an optional timeout, or one by one then an optional timeout", channelSelect(name))
	}
}

// selectArgs splits the arguments of `select(…)` into its channels and
// what follows them (the timeout, if any). A first argument that is a
// channel starts the one-by-one form, which takes every leading channel.
func selectArgs(name string, a vm.Args) ([]*Channel, []vm.Value, error) {
	if _, ok := a.At(0).Object().(*Channel); !ok {
		chans, err := selectChannels(name, a.At(0))
		return chans, a[min(1, len(a)):min(2, len(a))], err
	}
	args := []vm.Value(a)
	var chans []*Channel
	for len(args) > 0 {
		c, ok := args[0].Object().(*Channel)
		if !ok {
			break
		}
		chans = append(chans, c)
		args = args[1:]
	}
	return chans, args, nil
}

func selectChannels(name string, v vm.Value) ([]*Channel, error) {
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Typef("%s: expected a list of channels, got %s", name, v.Type())
	}
	chans := make([]*Channel, l.Len())
	for i, x := range l.Items() {
		c, ok := x.Object().(*Channel)
		if !ok {
			return nil, vm.Typef("%s: expected a channel, got %s", name, x.Type())
		}
		chans[i] = c
	}
	return chans, nil
}

// channelSelect is `channel_select` and its short name `select`. The
// channels come as a list (`select([a, b], 1s)`) or one by one
// (`select(a, b)`, `select(a, b, 1s)`), upstream's variadic habit; either
// way an optional timeout follows them.
func channelSelect(name string) vm.BuiltinFunc {
	return func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		chans, rest, err := selectArgs(name, a)
		if err != nil {
			return vm.Value{}, err
		}
		if len(rest) > 1 {
			return vm.Value{}, vm.Typef("%s: expected a channel, got %s", name, rest[0].Type())
		}
		timeout, err := waitTimeout(name, vm.Args(rest).At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if len(chans) == 0 && timeout < 0 {
			// Nothing could ever end the wait: refuse it now rather
			// than report a deadlock later.
			return vm.Value{}, vm.Typef("%s: expected at least one channel or a timeout, got an empty list", name)
		}
		idx, v, _, err := selectOn(th, chans, timeout, false)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.DictOf("index", vm.IntOf(int64(idx)), "value", v)), nil
	}
}

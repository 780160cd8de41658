package streams

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// queue is a FIFO filled by a network goroutine and drained by Harn
// threads. A waiter reads signal() and waits on it with vm.Thread.Wait;
// every push and the finish close the current signal channel, so waiting
// never holds the VM lock. A queue with a limit makes its filler wait
// while it is full (until an item is taken or the queue is finished), so
// a reader that falls behind slows the network down instead of the
// queue growing without bound.
type queue[T any] struct {
	mu      sync.Mutex
	items   []T
	limit   int // 0: none
	done    bool
	err     error
	signal  chan struct{}
	drained chan struct{} // closed when an item is taken or the queue finishes
}

// queueLimit is how many received events or messages a connection holds
// before its network goroutine stops reading.
const queueLimit = 1024

func newQueue[T any]() *queue[T] {
	return &queue[T]{signal: make(chan struct{}), drained: make(chan struct{}), limit: queueLimit}
}

func (q *queue[T]) wake() {
	close(q.signal)
	q.signal = make(chan struct{})
}

func (q *queue[T]) wakeFillers() {
	close(q.drained)
	q.drained = make(chan struct{})
}

// push appends x, waiting while the queue is full; it reports false when
// the queue was finished instead (x is dropped).
func (q *queue[T]) push(x T) bool {
	for {
		q.mu.Lock()
		if q.done {
			q.mu.Unlock()
			return false
		}
		if q.limit == 0 || len(q.items) < q.limit {
			q.items = append(q.items, x)
			q.wake()
			q.mu.Unlock()
			return true
		}
		drained := q.drained
		q.mu.Unlock()
		<-drained
	}
}

// finish marks the end of the items; err is the failure that ended them
// (nil at a clean end). Only the first finish counts.
func (q *queue[T]) finish(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.done {
		return
	}
	q.done, q.err = true, err
	q.wake()
	q.wakeFillers()
}

// poll takes the next item if there is one; otherwise it reports whether
// the queue is finished (and why) and the channel to wait on for a change.
func (q *queue[T]) poll() (x T, ok, done bool, err error, signal <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) > 0 {
		x = q.items[0]
		var zero T
		q.items[0] = zero
		q.items = q.items[1:]
		q.wakeFillers()
		return x, true, false, nil, nil
	}
	return x, false, q.done, q.err, q.signal
}

// errTimeout is the failure of a receive or accept whose timeout passed.
func errTimeout(name string, d time.Duration) error {
	return timeoutError(fmt.Sprintf("%s: timed out after %s", name, vm.FormatDuration(d.Milliseconds())))
}

// timeoutError throws {category: "timeout", message}, the value
// throw_error(message, "timeout") throws, so is_timeout(e) is true and
// e.message is the text.
func timeoutError(msg string) error {
	return vm.Throw(vm.Of(lib.DictOf("category", vm.Str("timeout"), "message", vm.Str(msg))))
}

// take waits for the next item of q: ok is false when the queue finished
// (err is why); a timeout below zero waits without a limit. The wait
// lets the VM's other threads run, and fails with the thread's
// cancellation or deadline.
func take[T any](th *vm.Thread, name string, q *queue[T], timeout time.Duration) (x T, ok bool, err error) {
	var until time.Time
	if timeout >= 0 {
		until = time.Now().Add(timeout)
	}
	for {
		x, ok, done, qerr, signal := q.poll()
		if ok {
			return x, true, nil
		}
		if done {
			return x, false, qerr
		}
		left := time.Duration(-1)
		if timeout >= 0 {
			left = time.Until(until)
			if left <= 0 {
				return x, false, errTimeout(name, timeout)
			}
		}
		if _, werr := th.Wait(signal, left); werr != nil {
			return x, false, werr
		}
	}
}

// timeoutArg reads an optional timeout argument: nil or missing waits
// without a limit (-1); otherwise a duration or a number of milliseconds,
// not negative.
func timeoutArg(name string, a vm.Args, i int) (time.Duration, error) {
	if !a.Given(i) {
		return -1, nil
	}
	return timeoutValue(name, "timeout", a.At(i))
}

func timeoutValue(name, what string, v vm.Value) (time.Duration, error) {
	if v.Kind() == vm.KBool {
		return 0, vm.Typef("%s: %s must be a duration or a number of milliseconds, got bool", name, what)
	}
	d, ok := lib.WaitDuration(v)
	if !ok {
		return 0, vm.Typef("%s: %s must be a duration or a number of milliseconds, got %s", name, what, v.Type())
	}
	if d < 0 {
		return 0, vm.Typef("%s: %s must not be negative", name, what)
	}
	return d, nil
}

// optionsArg reads an optional options dict (nil when missing or nil).
func optionsArg(name string, a vm.Args, i int) (*vm.Dict, error) {
	if !a.Given(i) {
		return nil, nil
	}
	d, ok := a.Dict(i)
	if !ok {
		return nil, lib.BadOptions(name, a.At(i))
	}
	return d, nil
}

// opt is an option that is present and not nil.
func opt(d *vm.Dict, key string) (vm.Value, bool) {
	if d == nil {
		return vm.Value{}, false
	}
	v, ok := d.Get(key)
	if !ok || v.IsNil() {
		return vm.Value{}, false
	}
	return v, true
}

// checkKeys rejects option names the builtin does not know, so a typo is
// an error instead of a silently ignored setting.
func checkKeys(name string, d *vm.Dict, known ...string) error {
	if d == nil {
		return nil
	}
	return lib.CheckOptions(name, d, known)
}

// headersOpt reads a `headers` option: a dict of names to values (nil
// values left out).
func headersOpt(name string, d *vm.Dict) (map[string]string, error) {
	out := map[string]string{}
	v, ok := opt(d, "headers")
	if !ok {
		return out, nil
	}
	hd, ok := v.AsDict()
	if !ok {
		return nil, vm.Typef("%s: headers must be a dict, got %s", name, v.Type())
	}
	hd.Range(func(k string, v vm.Value) bool {
		if !v.IsNil() {
			out[k] = vm.ToDisplay(v)
		}
		return true
	})
	return out, nil
}

// urlArg reads the URL argument: a non-empty string.
func urlArg(th *vm.Thread, name string, a vm.Args, schemes ...string) (string, error) {
	s, ok := a.Str(0)
	if !ok {
		return "", vm.Typef("%s: url must be a string, got %s", name, a.At(0).Type())
	}
	for _, sc := range schemes {
		if strings.HasPrefix(strings.ToLower(s), sc+"://") {
			// The run's egress policy decides before any mock or
			// connection (docs/policy.md, "Enforcement").
			if err := lib.CheckEgress(th, s); err != nil {
				return "", err
			}
			return s, nil
		}
	}
	return "", vm.Throwf("%s: unsupported URL %q (expected %s)", name, s, strings.Join(schemes, "://, ")+"://")
}

// globPattern compiles a mock URL pattern: `*` matches any run of
// characters, everything else itself, over the whole URL (as http_mock).
func globPattern(p string) *regexp.Regexp {
	quoted := regexp.QuoteMeta(p)
	return regexp.MustCompile("^" + strings.ReplaceAll(quoted, `\*`, ".*") + "$")
}

// mockTable is a VM's list of URL-pattern mocks of one kind; a later
// mock of the same pattern replaces the earlier one, and the first
// matching mock answers.
type mockTable[T any] struct {
	mu    sync.Mutex
	mocks []*urlMock[T]
}

type urlMock[T any] struct {
	pattern string
	re      *regexp.Regexp
	spec    T
}

func (t *mockTable[T]) add(pattern string, spec T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := &urlMock[T]{pattern: pattern, re: globPattern(pattern), spec: spec}
	for i, old := range t.mocks {
		if old.pattern == pattern {
			t.mocks[i] = m
			return
		}
	}
	t.mocks = append(t.mocks, m)
}

// find returns the first mock matching url and its pattern.
func (t *mockTable[T]) find(url string) (T, string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range t.mocks {
		if m.re.MatchString(url) {
			return m.spec, m.pattern, true
		}
	}
	var zero T
	return zero, "", false
}

// handle is the display and identity shared by the area's handle values.
func display(sb *strings.Builder, kind, detail string) {
	sb.WriteByte('<')
	sb.WriteString(kind)
	if detail != "" {
		sb.WriteByte(':')
		sb.WriteString(detail)
	}
	sb.WriteByte('>')
}

// headerDict is a response's headers as a dict of lower-case names to
// values (several values of one name joined with ", ").
func headerDict(h map[string][]string) *vm.Dict {
	b := vm.NewDictBuilder(len(h))
	for k, vs := range h {
		b.Set(strings.ToLower(k), vm.Str(strings.Join(vs, ", ")))
	}
	return b.Build()
}

// def registers a builtin of this area.
var def = lib.Def

package protocol

import (
	"context"
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/harnlang/harn/internal/jsonv"
)

// Request is one incoming request with its profile. The server fills
// it in before calling the provider; providers only read it.
type Request struct {
	id       any
	method   string
	params   *jsonv.Object
	modern   bool          // 2026-07-28 profile
	wire     any           // id as written back (see wireID)
	version  string        // the profile's protocol version
	identity string        // "<name>/<version>"
	caps     *jsonv.Object // client capabilities (nil when none)
	meta     *jsonv.Object
	logLevel string
	token    any // progress token
	// principal is the caller an HTTP authenticator established.
	principal string

	// batch collects the response of a request that came in a batch
	// (slot: its index there; settled: it has its response or none).
	batch   *batchReply
	slot    int
	settled bool

	cancel *canceller
	// answered is taken by whoever answers a queued call: its job (or
	// toolsCall, with a task's creation), or Drain cutting it short.
	answered atomic.Bool
	// ownCancel is what cancel points to for a request of the server's
	// reading (one allocation for both; see newRequest).
	ownCancel canceller
}

// newRequest is the Request for a decoded message, with a cancellation
// state of its own.
func newRequest(m *message, wire any, principal string) *Request {
	r := &Request{id: m.id, wire: wire, method: m.method, params: m.params, principal: principal, batch: m.batch, slot: m.slot}
	r.cancel = &r.ownCancel
	return r
}

// ID is the request id (a json.Number or a string).
func (r *Request) ID() any { return r.id }

// Method is the JSON-RPC method.
func (r *Request) Method() string { return r.method }

// Params are the request params ({} when absent).
func (r *Request) Params() *jsonv.Object { return r.params }

// Modern reports the 2026-07-28 profile (per-request _meta); false is
// the released profile of an initialized connection.
func (r *Request) Modern() bool { return r.modern }

// Version is the protocol version the request is answered in.
func (r *Request) Version() string { return r.version }

// Identity is the client identity "<clientInfo.name>/<clientInfo.version>"
// ("unknown" when the client sent none).
func (r *Request) Identity() string {
	if r.identity == "" {
		return "unknown"
	}
	return r.identity
}

// Principal is the identity an HTTP Authenticator returned ("" on
// stdio and without authentication).
func (r *Request) Principal() string { return r.principal }

// Capabilities are the client's capabilities (nil when unknown).
func (r *Request) Capabilities() *jsonv.Object { return r.caps }

// Meta is params._meta (nil when absent).
func (r *Request) Meta() *jsonv.Object { return r.meta }

// ProgressToken is _meta.progressToken (a string or an integer
// json.Number), or nil.
func (r *Request) ProgressToken() any { return r.token }

// taskOwner is who owns the tasks a request creates: the client
// identity, qualified by the authenticated principal on HTTP, so two
// callers with different credentials never see each other's tasks even
// when their clientInfo is the same.
func (r *Request) taskOwner() string {
	if r.principal == "" {
		return r.identity
	}
	return r.principal + "\x00" + r.identity
}

// TasksOptIn reports a 2026-07-28 request whose client capabilities
// list the tasks extension (docs/spec/mcp-projection.md §7).
func (r *Request) TasksOptIn() bool {
	if !r.modern || r.caps == nil {
		return false
	}
	ext, _ := r.caps.Get("extensions")
	eo, ok := ext.(*jsonv.Object)
	return ok && eo.Has(TasksExtension)
}

// modernRequest validates the per-request metadata of a 2026-07-28
// request (docs/spec/mcp-projection.md §3.2).
func (r *Request) modernRequest() *Error {
	names := []string{MetaProtocolVersion, MetaClientInfo, MetaClientCaps}
	malformed := func(keys ...string) *Error {
		return InvalidParams("request _meta is missing or has malformed required fields: " + strings.Join(keys, ", "))
	}
	r.identity = metaIdentity(r.params)
	mv, _ := r.params.Get("_meta")
	meta, ok := mv.(*jsonv.Object)
	if !ok {
		return malformed(names...)
	}
	pv, ok := meta.Get(MetaProtocolVersion)
	if !ok {
		return malformed(names...)
	}
	var bad []string
	version, isString := pv.(string)
	if !isString {
		bad = append(bad, MetaProtocolVersion)
	} else if version != Version20260728 {
		return unsupportedVersion(version)
	}
	if r.identity == "" {
		bad = append(bad, MetaClientInfo)
	}
	cv, _ := meta.Get(MetaClientCaps)
	caps, ok := cv.(*jsonv.Object)
	if !ok {
		bad = append(bad, MetaClientCaps)
	}
	if len(bad) > 0 {
		return malformed(bad...)
	}
	r.modern, r.version, r.caps = true, Version20260728, caps
	// A level that is not one of the eight (not a string, "verbose",
	// "INFO") names no level: no logging, rather than every message.
	lv, _ := meta.Get(MetaLogLevel)
	if level, _ := lv.(string); levelKnown(level) {
		r.logLevel = level
	}
	return nil
}

// metaIdentity is the client identity of a 2026-07-28 request's
// params: "<name>/<version>" of a well-formed _meta clientInfo, else "".
// It is read before anything else in the request is judged, so that a
// request refused for its version, its other metadata or its routing
// headers is still recorded under the client that sent it
// (docs/spec/orchestrator.md §12).
func metaIdentity(params *jsonv.Object) string {
	mv, _ := params.Get("_meta")
	meta, ok := mv.(*jsonv.Object)
	if !ok {
		return ""
	}
	ci, _ := meta.Get(MetaClientInfo)
	if identity, ok := clientIdentity(ci); ok {
		return identity
	}
	return ""
}

// clientIdentity is "<name>/<version>" of a clientInfo object.
func clientIdentity(v any) (string, bool) {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return "unknown", false
	}
	name, ok1 := o.Get("name")
	version, ok2 := o.Get("version")
	ns, ok3 := name.(string)
	vs, ok4 := version.(string)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return "unknown", false
	}
	return ns + "/" + vs, true
}

// canceller is the cancellation state of a request or a task: hooks
// registered before cancellation run when it happens, hooks registered
// after it run at once.
type canceller struct {
	mu        sync.Mutex
	cancelled bool
	// first is the first hook, kept apart so that a request's one hook
	// (its handler's interrupt) needs no slice; more are in hooks.
	first func()
	hooks []func()
}

func (c *canceller) cancel() {
	c.mu.Lock()
	if c.cancelled {
		c.mu.Unlock()
		return
	}
	c.cancelled = true
	first, hooks := c.first, c.hooks
	c.first, c.hooks = nil, nil
	c.mu.Unlock()
	if first != nil {
		first()
	}
	for _, h := range hooks {
		h()
	}
}

func (c *canceller) isCancelled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelled
}

func (c *canceller) onCancel(f func()) {
	c.mu.Lock()
	if c.cancelled {
		c.mu.Unlock()
		f()
		return
	}
	if c.first == nil {
		c.first = f
	} else {
		c.hooks = append(c.hooks, f)
	}
	c.mu.Unlock()
}

// EncodeCursor is the cursor of list offset off: the standard base64
// encoding of its decimal form (docs/spec/mcp-projection.md §9).
func EncodeCursor(off int) string {
	return base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(off)))
}

// DecodeCursor is the inverse of EncodeCursor.
func DecodeCursor(s string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		// Only digits: too large for an int, so past the end of any
		// list (an empty page, docs/spec/mcp-projection.md §9).
		return math.MaxInt, true
	}
	return n, true
}

// page slices a list of n items per the request's cursor.
func (c *conn) page(req *Request, n int) (start, end int, next string, rerr *Error) {
	bad := InvalidParams("invalid " + req.method + " cursor")
	if cv, ok := req.params.Get("cursor"); ok && cv != nil {
		s, ok := cv.(string)
		if !ok {
			return 0, 0, "", bad
		}
		off, ok := DecodeCursor(s)
		if !ok {
			return 0, 0, "", bad
		}
		start = off
	}
	if start > n {
		start = n
	}
	size := c.srv.opts.PageSize
	end = n
	if n-start > size {
		end = start + size
		next = EncodeCursor(end)
	}
	return start, end, next, nil
}

// contextFor is a context cancelled with c, or with parent.
func contextFor(parent context.Context, c *canceller) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	c.onCancel(cancel)
	return ctx, cancel
}

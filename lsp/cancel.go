package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tliron/glsp"
)

// Cancellation ($/cancelRequest). The protocol library handles one
// message at a time, in order, and reads the next only when a handler
// has returned, so it could never see a cancellation while the request
// it cancels runs or waits. copyFrames reads ahead of it, though: it
// notes every message it passes on (arrive), and a $/cancelRequest as
// soon as it is read. The library's handler is wrapped (tracked) so that
// it knows which request each call is: the requests reach it in the
// order copyFrames passed them on. A request cancelled before its
// handler starts is not run; a long handler (workspace symbols,
// references, rename, formatting, completion) asks the server between
// steps whether its request is cancelled and then stops with
// errCancelled. The library would answer any error -32600, so
// copyReplies rewrites the answer of a request that ended cancelled to
// the LSP error RequestCancelled (-32800).

// codeRequestCancelled is LSP's RequestCancelled error code.
const codeRequestCancelled = -32800

// errCancelled ends a handler whose request the client cancelled.
var errCancelled = errors.New("request cancelled")

// arrival is one message passed to the library: its method and the key
// of its id ("" for a notification).
type arrival struct{ method, key string }

// requests is the cancellation state of a session.
type requests struct {
	mu        sync.Mutex
	arrivals  []arrival          // passed on, not yet handled, in order
	cancelled map[string]bool    // ids the client cancelled, not yet answered
	running   string             // key of the request being handled ("" when none)
	refused   map[string]refusal // ids to answer with an error of their own
}

// idKey is a request id as a map key: its JSON text, so that 1 and "1"
// differ.
func idKey(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// arrive notes a message copyFrames passes on to the library: a request
// or notification queues an arrival, and $/cancelRequest marks its id.
func (r *requests) arrive(body []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params struct {
			ID json.RawMessage `json:"id"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == nil {
		return // a response: the library does not hand it to a handler
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := ""
	if len(m.ID) > 0 && string(m.ID) != "null" {
		key = idKey(m.ID)
	}
	r.arrivals = append(r.arrivals, arrival{*m.Method, key})
	if *m.Method == "$/cancelRequest" && len(m.Params.ID) > 0 {
		r.cancel(idKey(m.Params.ID))
	}
}

// cancel marks the request of key cancelled when it is running or
// waiting; an answered or unknown one is forgotten at once. Call with
// r.mu held.
func (r *requests) cancel(key string) {
	if key != r.running && !slices.ContainsFunc(r.arrivals, func(a arrival) bool { return a.key == key }) {
		return
	}
	if r.cancelled == nil {
		r.cancelled = map[string]bool{}
	}
	r.cancelled[key] = true
}

// start takes the arrival of a message of method the library hands
// over, and reports whether it is a request cancelled already. Arrivals
// of another method before it are messages the library dropped without
// handing them over; they are skipped, so one such message cannot make
// every later request be taken for the one before it.
func (r *requests) start(method string) (key string, cancelled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.IndexFunc(r.arrivals, func(a arrival) bool { return a.method == method })
	if i < 0 {
		return "", false // not read through copyFrames (tests in process)
	}
	key = r.arrivals[i].key
	r.arrivals = r.arrivals[i+1:]
	r.running = key
	return key, key != "" && r.cancelled[key]
}

// finish ends the request of key; one the client cancelled that did not
// produce a result is answered RequestCancelled.
func (r *requests) finish(key string, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = ""
	if key == "" {
		return
	}
	if r.cancelled[key] && failed {
		r.refuse(key, refusal{codeRequestCancelled, "Request cancelled"})
	}
	delete(r.cancelled, key)
}

// isCancelled reports whether the client cancelled the running request.
func (r *requests) isCancelled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running != "" && r.cancelled[r.running]
}

// rewrite is the body to send for a library answer: RequestCancelled
// for a request that ended cancelled, else body itself.
func (r *requests) rewrite(body []byte) []byte {
	r.mu.Lock()
	pending := len(r.refused) > 0
	r.mu.Unlock()
	if !pending {
		return body
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != nil || len(m.ID) == 0 {
		return body
	}
	key := idKey(m.ID)
	r.mu.Lock()
	refused, ok := r.refused[key]
	delete(r.refused, key)
	r.mu.Unlock()
	if !ok {
		return body
	}
	msg, _ := json.Marshal(refused.message)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, key, refused.code, msg)
}

// refusal is the error a request is answered with in place of the
// library's answer: its JSON-RPC code and message.
type refusal struct {
	code    int
	message string
}

// refuse makes the answer to request key the error f (r.mu held).
func (r *requests) refuse(key string, f refusal) {
	if r.refused == nil {
		r.refused = map[string]refusal{}
	}
	r.refused[key] = f
}

// tracked is the library's handler: the server's, with each request
// known by its id for cancellation.
type tracked struct{ s *Server }

func (t tracked) Handle(ctx *glsp.Context) (any, bool, bool, error) {
	key, cancelled := t.s.reqs.start(ctx.Method)
	if cancelled {
		t.s.reqs.finish(key, true)
		return nil, true, true, errCancelled
	}
	if f, refused := t.s.lifecycle(ctx.Method); refused {
		t.s.reqs.mu.Lock()
		if key != "" {
			t.s.reqs.refuse(key, f)
		}
		t.s.reqs.mu.Unlock()
		t.s.reqs.finish(key, false)
		return nil, true, true, errors.New(f.message)
	}
	r, validMethod, validParams, err := t.s.handler.Handle(ctx)
	t.s.reqs.finish(key, err != nil || !validMethod || !validParams)
	return r, validMethod, validParams, err
}

// cancelled reports whether the client cancelled the request being
// handled; long handlers ask between steps.
func (s *Server) cancelled() bool { return s.reqs.isCancelled() }

// codeServerNotInitialized is LSP's ServerNotInitialized error code.
const codeServerNotInitialized = -32002

// lifecycle refuses a message the protocol does not allow at this point
// of the session (docs/lsp.md): anything but initialize (and exit) before
// initialize, a second initialize, anything but exit after shutdown.
// Refused notifications are dropped.
func (s *Server) lifecycle(method string) (refusal, bool) {
	s.mu.Lock()
	shutdown := s.shutdown
	s.mu.Unlock()
	initialized := s.handler.IsInitialized()
	switch {
	case method == "exit":
	case shutdown:
		return refusal{codeInvalidRequest, "the server is shutting down: only exit may follow shutdown"}, true
	case !initialized && method != "initialize":
		return refusal{codeServerNotInitialized, "server not initialized: initialize comes first"}, true
	case initialized && method == "initialize":
		return refusal{codeInvalidRequest, "initialize may be sent only once"}, true
	}
	return refusal{}, false
}

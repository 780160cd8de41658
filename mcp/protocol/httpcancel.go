package protocol

import (
	"encoding/json"
	"hash/maphash"
	"sync"
)

// httpCalls are the requests in progress on the session-free HTTP
// transport, so that a notifications/cancelled POST can reach one: each
// POST is a connection of its own, so the connection that reads the
// notification is never the one running the request. A request is found
// by its id among those of the same principal (the credential the
// Authenticator established; "" without authentication) and, when the
// notification names a client in _meta, of the same client identity
// (docs/mcp.md, Cancellation).
//
// Every HTTP call adds itself and removes itself, so the table is cut
// in shards by key, each with its own lock: with one lock, the calls of
// a busy server queued there behind a holder the OS had descheduled.
type httpCalls struct {
	shards [httpCallShards]httpCallShard
}

// httpCallShards is the number of shards of httpCalls.
const httpCallShards = 32

// httpCallShard is the part of httpCalls that holds some of the keys.
type httpCallShard struct {
	mu sync.Mutex
	by map[httpCallKey]*httpExchange // each the head of a list (next)
}

var httpCallSeed = maphash.MakeSeed()

// shard is the shard that holds key.
func (t *httpCalls) shard(key httpCallKey) *httpCallShard {
	return &t.shards[maphash.Comparable(httpCallSeed, key)%httpCallShards]
}

// httpCallKey is who sent a request and its id; a numeric id never
// matches the same digits as a string.
type httpCallKey struct {
	principal, id string
	number        bool
}

// callKey is the key of a request id, false for an id that is neither a
// number nor a string (none a request can have).
func callKey(principal string, id any) (httpCallKey, bool) {
	switch x := id.(type) {
	case json.Number:
		return httpCallKey{principal, string(x), true}, true
	case string:
		return httpCallKey{principal, x, false}, true
	}
	return httpCallKey{}, false
}

// add registers ex, in progress for key.
func (t *httpCalls) add(key httpCallKey, ex *httpExchange) {
	sh := t.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.by == nil {
		sh.by = map[httpCallKey]*httpExchange{}
	}
	ex.next = sh.by[key]
	sh.by[key] = ex
}

// remove takes ex out once its POST is answered.
func (t *httpCalls) remove(key httpCallKey, ex *httpExchange) {
	sh := t.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	head := sh.by[key]
	if head == ex {
		if ex.next == nil {
			delete(sh.by, key)
		} else {
			sh.by[key] = ex.next
		}
		return
	}
	for p := head; p != nil; p = p.next {
		if p.next == ex {
			p.next = ex.next
			return
		}
	}
}

// cancel cancels the requests in progress for key whose client identity
// is identity ("" matches any), as notifications/cancelled does on
// stdio. Two requests that match (one client reusing an id while the
// first still runs) are both cancelled.
func (t *httpCalls) cancel(key httpCallKey, identity string) {
	sh := t.shard(key)
	sh.mu.Lock()
	var hit []*httpExchange
	for ex := sh.by[key]; ex != nil; ex = ex.next {
		if identity == "" || metaIdentity(ex.params) == identity {
			hit = append(hit, ex)
		}
	}
	sh.mu.Unlock()
	for _, ex := range hit {
		ex.cancel()
	}
}

// cancel cancels ex's request as notifications/cancelled would on
// stdio: its handler's cancellation is set, and its answer is
// suppressed. The POST still ends once the handler returns: with 204
// No Content, or, when an SSE stream has begun (progress), with the end
// of the stream, no message closing it.
func (ex *httpExchange) cancel() {
	rt := &ex.rt
	ex.w.mu.Lock()
	if !rt.done {
		rt.done, rt.cancelled = true, true
		if rt.answered != nil {
			close(rt.answered)
		}
	}
	ex.w.mu.Unlock()
	ex.c.cancelRequest(ex.id)
}

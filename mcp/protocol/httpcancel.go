package protocol

import "sync"

// httpCalls are the requests in progress on the session-free HTTP
// transport, so that a notifications/cancelled POST can reach one: each
// POST is a connection of its own, so the connection that reads the
// notification is never the one running the request. A request is found
// by its id among those of the same principal (the credential the
// Authenticator established; "" without authentication) and, when the
// notification names a client in _meta, of the same client identity
// (docs/mcp.md, Cancellation).
type httpCalls struct {
	mu sync.Mutex
	by map[string][]*httpExchange
}

// httpCallKey is who sent a request and its id.
func httpCallKey(principal string, id any) string { return principal + "\x00" + idKey(id) }

// add registers ex, in progress for key.
func (t *httpCalls) add(key string, ex *httpExchange) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.by == nil {
		t.by = map[string][]*httpExchange{}
	}
	t.by[key] = append(t.by[key], ex)
}

// remove takes ex out once its POST is answered.
func (t *httpCalls) remove(key string, ex *httpExchange) {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.by[key]
	for i, e := range list {
		if e == ex {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(t.by, key)
	} else {
		t.by[key] = list
	}
}

// cancel cancels the requests in progress for key whose client identity
// is identity ("" matches any), as notifications/cancelled does on
// stdio. Two requests that match (one client reusing an id while the
// first still runs) are both cancelled.
func (t *httpCalls) cancel(key, identity string) {
	t.mu.Lock()
	var hit []*httpExchange
	for _, ex := range t.by[key] {
		if identity == "" || ex.identity == identity {
			hit = append(hit, ex)
		}
	}
	t.mu.Unlock()
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

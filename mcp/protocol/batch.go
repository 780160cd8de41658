package protocol

import "sync"

// JSON-RPC batches. MCP 2025-03-26 is the one protocol version with
// them: its Base Protocol says implementations "MUST support receiving
// JSON-RPC batches". 2024-11-05 has no batch message in its schema, and
// 2025-06-18 dropped batching again; docs/spec/mcp-projection.md §2 and
// docs/spec/orchestrator.md §8 (2026-07-28) know one message per line or
// POST. So a stdio connection initialized at 2025-03-26 takes a JSON
// array of messages and answers it with one array of the responses
// (docs/mcp.md); every other connection refuses a batch with -32600.
const batchVersion = "2025-03-26"

var errBatch = Errorf(CodeInvalidRequest, "Invalid Request: batches are not supported; send one JSON-RPC message at a time")

// acceptsBatches reports a connection whose initialize negotiated
// 2025-03-26.
func (c *conn) acceptsBatches() bool {
	if !c.initialized.Load() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version == batchVersion
}

// batch handles the messages of a batch line. Each is handled as if it
// came on a line of its own; the responses to its requests are collected
// and written as one array, in the order of the requests, once every
// request has been answered or has ended without an answer (cancelled).
// Notifications and the client's responses get no response, so a batch
// of nothing else writes nothing; an empty batch is one -32600, as
// JSON-RPC 2.0 answers it.
func (c *conn) batch(line []byte, elems []any) {
	if len(elems) == 0 {
		c.w.line(errorResponse(nil, Errorf(CodeInvalidRequest, "Invalid Request: empty batch")))
		return
	}
	texts := arrayElements(line)
	b := &batchReply{c: c, slots: make([]any, len(elems)), pending: 1}
	for i, v := range elems {
		var text []byte
		if len(texts) == len(elems) {
			text = texts[i]
		}
		m, id, rerr := decode(v)
		if rerr != nil {
			c.recordUndecoded(m, wireID(id, text), rerr)
			b.mu.Lock()
			b.slots[i] = errorResponse(wireID(id, text), rerr)
			b.mu.Unlock()
			continue
		}
		m.wire = wireID(m.id, text)
		if m.hasID && !m.isResponse {
			m.batch, m.slot = b, i
			b.mu.Lock()
			b.pending++
			b.mu.Unlock()
		}
		c.handle(m)
	}
	b.release()
}

// batchReply collects the responses of one batch.
type batchReply struct {
	c  *conn
	mu sync.Mutex
	// slots holds each element's response, in batch order (nil: none).
	slots []any
	// pending counts the requests not settled yet, plus one while the
	// batch is still being read.
	pending int
}

// settle records req's response (nil: it ends unanswered). A request
// settles once: a task's create answer settles it, and the job that
// created the task ends without another.
func (b *batchReply) settle(req *Request, resp any) {
	b.mu.Lock()
	if req.settled {
		b.mu.Unlock()
		return
	}
	req.settled = true
	if resp != nil {
		b.slots[req.slot] = resp
	}
	b.mu.Unlock()
	b.release()
}

// release drops one pending count and writes the array when none is
// left.
func (b *batchReply) release() {
	b.mu.Lock()
	b.pending--
	done := b.pending == 0
	b.mu.Unlock()
	if !done {
		return
	}
	var out []any
	for _, r := range b.slots {
		if r != nil {
			out = append(out, r)
		}
	}
	if len(out) > 0 {
		b.c.w.line(out)
	}
}

// arrayElements returns the text of each element of the JSON array in
// data (parsed already), or nil when it cannot be split: the ids of a
// batch's messages are read from their own text, as a line's are.
func arrayElements(data []byte) [][]byte {
	s := idScanner{data: data}
	s.space()
	if !s.byte('[') {
		return nil
	}
	var out [][]byte
	s.space()
	if s.byte(']') {
		return out
	}
	for {
		s.space()
		start := s.pos
		if !s.skipValue() {
			return nil
		}
		out = append(out, data[start:s.pos])
		s.space()
		if s.byte(']') {
			return out
		}
		if !s.byte(',') {
			return nil
		}
	}
}

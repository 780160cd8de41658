package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/orchestrator"
)

// trustCache holds the trust topic's records decoded, oldest first, so
// that harn.trust.query decodes each record once rather than the whole
// topic on every call. Before each query it asks the log for the topic's
// head (Count: a topic's ids are 1…n, so its count is its last id), a
// one-row read that sees every writer of the log, other processes on the
// same file or database included, and reads only the records past the
// ones it holds. A log that implements eventlog.Generations (SQLite) can
// spare even that read while nothing was committed.
//
// Concurrent queries share that head read (see head): under load one
// read serves every query that arrived while the previous one ran,
// instead of each query taking a connection of its own and queueing for
// it behind the others.
type trustCache struct {
	mu   sync.Mutex
	last int64         // id of the last record held
	recs []trustRecord // ids 1…last; only ever appended to, so a caller may keep a prefix
	// gen is a log generation (eventlog.Generations) taken when the
	// records held were complete: while the log reports it unchanged,
	// they still are.
	gen      uint64
	genKnown bool

	hmu     sync.Mutex
	gather  *headRead // the next head read, not started yet: arriving queries join it
	reading *headRead // the head read in flight, if any
}

// headRead is one read of the trust topic's head, shared by the queries
// that joined it.
type headRead struct {
	done   chan struct{} // closed when head and err are set
	head   int64
	err    error
	joined int // queries waiting for it besides the one that runs it (tests read it)
}

// trustRecord is a trust record as the queries filter it.
type trustRecord struct {
	at      time.Time
	payload map[string]any
	ok      bool // the payload decoded (a JSON object or null); no query returns the others
}

// trustPage is how many trust records one read of the log takes.
const trustPage = 1000

// records is every trust record in the log, oldest first. The caller
// must not modify the slice or the payloads.
func (c *trustCache) records(ctx context.Context, log eventlog.Log) ([]trustRecord, error) {
	// A generation taken before the head read and unchanged at the next
	// query means nothing was committed in between: that query needs no
	// read at all.
	gen, known := uint64(0), false
	if g, ok := log.(eventlog.Generations); ok {
		gen, known = g.Generation(orchestrator.TopicTrust)
	}
	if known {
		c.mu.Lock()
		fresh, recs := c.genKnown && c.gen == gen, c.recs[:len(c.recs):len(c.recs)]
		c.mu.Unlock()
		if fresh {
			return recs, nil
		}
	}
	head, err := c.head(ctx, log)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if head < c.last { // not the log the records came from
		c.last, c.recs, c.genKnown = 0, nil, false
	}
	for c.last < head {
		recs, err := log.Read(ctx, orchestrator.TopicTrust, c.last, trustPage)
		if err != nil {
			return nil, err
		}
		if len(recs) == 0 {
			break
		}
		for _, r := range recs {
			c.recs = append(c.recs, decodeTrust(r))
			c.last = r.ID
		}
	}
	if known && c.last >= head {
		// Every record committed before gen was taken is held.
		c.gen, c.genKnown = gen, true
	}
	return c.recs[:len(c.recs):len(c.recs)], nil
}

// head reads the trust topic's head for a query, sharing the read with
// concurrent queries. A query never takes the result of a read that
// started before it arrived: that read may have missed an append which
// returned just before the query came (another process's included). So
// a query joins the read that has not started yet, and the first to
// join it runs it once the read in flight, if any, has finished; every
// read is one Count through the log's interface, so this holds on any
// backend.
func (c *trustCache) head(ctx context.Context, log eventlog.Log) (int64, error) {
	for {
		c.hmu.Lock()
		r, prev := c.gather, c.reading
		runs := r == nil
		if runs {
			r = &headRead{done: make(chan struct{})}
			c.gather = r
		} else {
			r.joined++
		}
		c.hmu.Unlock()
		if runs {
			// Joiners wait for this read, so it is run even if ctx ends
			// meanwhile; prev is a Count under its own caller's context.
			if prev != nil {
				<-prev.done
			}
			c.hmu.Lock()
			c.gather, c.reading = nil, r
			c.hmu.Unlock()
			r.head, r.err = log.Count(ctx, orchestrator.TopicTrust)
			c.hmu.Lock()
			c.reading = nil
			c.hmu.Unlock()
			close(r.done)
			return r.head, r.err
		}
		select {
		case <-r.done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		// The read failed because the query that ran it went away, not
		// because of the log: this query reads again.
		if (errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded)) && ctx.Err() == nil {
			continue
		}
		return r.head, r.err
	}
}

func decodeTrust(r eventlog.Record) trustRecord {
	var p map[string]any
	err := json.NewDecoder(bytes.NewReader(r.Payload)).Decode(&p)
	return trustRecord{at: time.UnixMilli(r.OccurredAtMs), payload: p, ok: err == nil}
}

// trustFilter is what a harn.trust.query selects: payload fields that
// must equal the given values, and an occurrence window.
type trustFilter struct {
	fields       []trustField
	since, until time.Time
}

// A trustField is a payload field a trustFilter wants, with its value.
type trustField struct {
	name  string
	value any
}

func (f trustFilter) match(r trustRecord) bool {
	if !r.ok {
		return false
	}
	if (!f.since.IsZero() && r.at.Before(f.since)) || (!f.until.IsZero() && r.at.After(f.until)) {
		return false
	}
	for _, want := range f.fields {
		if r.payload[want.name] != want.value {
			return false
		}
	}
	return true
}

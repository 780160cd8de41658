package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
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
// ones it holds.
type trustCache struct {
	mu   sync.Mutex
	last int64         // id of the last record held
	recs []trustRecord // ids 1…last; only ever appended to, so a caller may keep a prefix
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
	head, err := log.Count(ctx, orchestrator.TopicTrust)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if head < c.last { // not the log the records came from
		c.last, c.recs = 0, nil
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
	return c.recs[:len(c.recs):len(c.recs)], nil
}

func decodeTrust(r eventlog.Record) trustRecord {
	var p map[string]any
	err := json.NewDecoder(bytes.NewReader(r.Payload)).Decode(&p)
	return trustRecord{at: time.UnixMilli(r.OccurredAtMs), payload: p, ok: err == nil}
}

// trustFilter is what a harn.trust.query selects: payload fields that
// must equal the given values, and an occurrence window.
type trustFilter struct {
	fields       map[string]any
	since, until time.Time
}

func (f trustFilter) match(r trustRecord) bool {
	if !r.ok {
		return false
	}
	if (!f.since.IsZero() && r.at.Before(f.since)) || (!f.until.IsZero() && r.at.After(f.until)) {
		return false
	}
	for k, want := range f.fields {
		if r.payload[k] != want {
			return false
		}
	}
	return true
}

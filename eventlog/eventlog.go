// Package eventlog is the orchestrator's durable, append-only event log
// (docs/spec/orchestrator.md §4): named topics of records, each with its own
// monotonically increasing id starting at 1, consumer cursors, and the
// dispatch inbox, whose deliveries are leased to one worker at a time.
//
// One interface, two backends: eventlog/sqlite (embedded default, a file
// in the state directory, WAL journal) and eventlog/postgres (several
// `harn mcp serve` processes on one database). Open picks one.
//
// The guarantees every backend keeps, and the tests of both prove:
//
//   - An Append or Accept that returned without error survives a crash
//     of the process at any later instant.
//   - Accept is idempotent on Delivery.ID: the same event accepted twice
//     is stored once.
//   - A delivery is leased to one owner at a time. A lease that is not
//     extended expires, and the delivery can then be claimed again, so a
//     worker that dies mid-dispatch loses nothing.
//   - Complete and Retry take effect only while the caller still holds
//     the lease (its fencing Token); otherwise they return ErrLeaseLost and
//     change nothing. The records they carry (attempts, outbox, DLQ) are
//     appended in the same transaction, so a completed delivery is never
//     handed out again and its records are written exactly once.
package eventlog

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Record is one entry of a topic.
type Record struct {
	ID           int64             `json:"id"` // assigned by Append; ignored on input
	Kind         string            `json:"kind"`
	Payload      json.RawMessage   `json:"payload"`
	Headers      map[string]string `json:"headers"`
	OccurredAtMs int64             `json:"occurred_at_ms"` // 0 on input means now
}

// TopicRecord is a record bound for a topic, for the appends that ride in
// the transaction of Complete and Retry.
type TopicRecord struct {
	Topic  string
	Record Record
}

// Log is the event log. Every method is safe for concurrent use.
type Log interface {
	// Append adds rec to topic and returns its id (1, 2, … per topic).
	Append(ctx context.Context, topic string, rec Record) (int64, error)
	// AppendAll appends records, in order, in one transaction: all of
	// them or none. It returns their ids. Writers of many small records
	// (observability) use it to pay for one commit instead of one each.
	AppendAll(ctx context.Context, records ...TopicRecord) ([]int64, error)
	// Read returns up to limit records of topic whose id is > after, in
	// ascending id order. limit <= 0 means no limit.
	Read(ctx context.Context, topic string, after int64, limit int) ([]Record, error)
	// Tail returns the last n records of topic in ascending id order.
	Tail(ctx context.Context, topic string, n int) ([]Record, error)
	// Count returns the number of records in topic (0 for an unknown topic).
	Count(ctx context.Context, topic string) (int64, error)
	// Topics lists the topics that hold at least one record, sorted.
	Topics(ctx context.Context) ([]string, error)

	// Cursor returns a consumer's position in a topic (0 when unset).
	Cursor(ctx context.Context, topic, consumer string) (int64, error)
	// SetCursor stores a consumer's position in a topic.
	SetCursor(ctx context.Context, topic, consumer string, cursor int64) error

	// Inbox is the dispatch inbox kept in the same store.
	Inbox() Inbox

	// Backend names the implementation ("sqlite", "postgres").
	Backend() string
	Close() error
}

// Generations is implemented by logs that can tell, without a read, that
// a topic gained no records since an earlier moment.
type Generations interface {
	// Generation returns a number that stays the same between two calls
	// for topic only if no record was committed to topic, by this process
	// or any other, between the start of the first and the end of the
	// second (it may also change when none was). ok is false when the
	// log cannot tell; the number then means nothing.
	Generation(topic string) (gen uint64, ok bool)
}

// DeliveryState is where a delivery is in its life.
type DeliveryState string

const (
	Pending DeliveryState = "pending" // waiting until DueAtMs, or for a lease to expire
	Leased  DeliveryState = "leased"  // held by Lease.Owner until Lease.ExpiresAtMs
	Done    DeliveryState = "done"    // completed; never handed out again
	Dead    DeliveryState = "dead"    // dead-lettered; only a DLQ retry (a new delivery) runs it again
)

// Delivery is one accepted event waiting for, or past, dispatch.
type Delivery struct {
	// ID is the idempotency key: the trigger event id (trigger_evt_<uuidv7>)
	// or a caller-chosen key.
	ID        string          `json:"id"`
	BindingID string          `json:"binding_id"`
	Envelope  json.RawMessage `json:"envelope"` // the event and dispatch metadata; opaque to the log
	State     DeliveryState   `json:"state"`
	Attempts  int             `json:"attempts"`   // leases granted so far
	DueAtMs   int64           `json:"due_at_ms"`  // not claimable before this instant
	CreatedMs int64           `json:"created_ms"` // when it was accepted
	LastError string          `json:"last_error,omitempty"`
}

// Lease is a claimed delivery. Token fences the holder: a later claim of
// the same delivery gets a larger token, and the older one stops working.
type Lease struct {
	Delivery
	Owner       string `json:"owner"`
	Token       int64  `json:"token"`
	ExpiresAtMs int64  `json:"expires_at_ms"`
}

// InboxStats counts deliveries by state.
type InboxStats struct {
	Pending int64 `json:"pending"`
	Leased  int64 `json:"leased"`
	Done    int64 `json:"done"`
	Dead    int64 `json:"dead"`
}

// Inbox is the durable dispatch queue.
type Inbox interface {
	// Accept stores d as Pending (State, Attempts and CreatedMs are set by
	// the inbox; DueAtMs 0 means now), together with records appended in
	// the same transaction. When a delivery with d.ID already exists it
	// changes nothing and returns the stored delivery and false.
	Accept(ctx context.Context, d Delivery, records ...TopicRecord) (Delivery, bool, error)
	// AcceptLeased is Accept for a delivery due now that the caller runs
	// itself: a new delivery is stored already leased to owner for ttl
	// (Attempts 1, the first fencing token) in the same transaction, so
	// the node that accepts an event need not Claim it; d.DueAtMs is
	// ignored. A known idempotency key changes nothing, as with Accept:
	// the Lease then holds the stored delivery and no owner, and the bool
	// is false. Crash-wise the lease is like any other: if the caller
	// dies, it expires and the delivery is claimed again.
	AcceptLeased(ctx context.Context, d Delivery, owner string, ttl time.Duration, records ...TopicRecord) (Lease, bool, error)
	// Claim leases to owner, for ttl, up to n deliveries that are Pending
	// and due, or Leased with an expired lease, oldest due first. Each
	// claim increments Attempts.
	Claim(ctx context.Context, owner string, n int, ttl time.Duration) ([]Lease, error)
	// Extend renews a lease held by l.Owner with l.Token.
	Extend(ctx context.Context, l *Lease, ttl time.Duration) error
	// Complete ends the delivery in state final (Done or Dead) and appends
	// records, atomically, if l is still the current lease.
	Complete(ctx context.Context, l Lease, final DeliveryState, errMsg string, records ...TopicRecord) error
	// Retry returns the delivery to Pending, due at dueAtMs, and appends
	// records, atomically, if l is still the current lease.
	Retry(ctx context.Context, l Lease, dueAtMs int64, errMsg string, records ...TopicRecord) error
	// Get returns a delivery by id, or ErrNotFound.
	Get(ctx context.Context, id string) (Delivery, error)
	// Stats counts deliveries by state.
	Stats(ctx context.Context) (InboxStats, error)
	// LeasedByBinding counts the Leased deliveries (expired leases
	// included) by binding id; a binding with none is absent.
	LeasedByBinding(ctx context.Context) (map[string]int64, error)
}

var (
	// ErrLeaseLost: the lease expired and another owner claimed the delivery,
	// or it is no longer leased.
	ErrLeaseLost = errors.New("eventlog: lease lost")
	// ErrNotFound: no delivery with that id.
	ErrNotFound = errors.New("eventlog: not found")
)

// Package uuids makes the project's time-ordered UUIDs (RFC 9562
// version 7) — the `uuid_v7` builtin's, the trigger event, dead-letter,
// job and trace ids of the orchestrator and of std/triggers, and MCP
// task ids — and spells UUIDs. It is a leaf: every stage may import it.
//
// A v7 id is the Unix time in milliseconds (48 bits), a 12-bit
// sub-millisecond sequence and 62 random bits. The clock behind the
// first 60 bits never repeats or goes back within a process, so the ids
// a process makes sort in the order they were made, even within a
// millisecond, on many goroutines, or after the system clock steps
// back. Ids made faster than 4,096 a millisecond run ahead of the clock
// until it catches up.
package uuids

import (
	"crypto/rand"
	"encoding/hex"
	"sync/atomic"
	"time"
)

// V7 is a fresh version 7 id.
//
// It takes its turn on the clock with a compare-and-swap instead of a
// process-wide mutex, which every MCP tool call (its trace id) and
// every fire took: under load a holder that the OS descheduled held up
// every call of the server.
func V7() [16]byte { return at(time.Now().UnixNano()) }

// V7String is a fresh version 7 id as Format spells it.
func V7String() string { return Format(V7()) }

// Format spells a UUID of any version in its usual form: 36
// characters, lowercase hex digits in groups of 8-4-4-4-12.
func Format(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:36], u[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}

// at is the id for a clock that reads nano (Unix nanoseconds).
func at(nano int64) [16]byte {
	var u [16]byte
	rand.Read(u[8:]) // never fails: it crashes the program instead (Go 1.24)
	t := tick(nano)
	ms, seq := t>>12, t&0xfff
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	u[6], u[7] = 0x70|byte(seq>>8), byte(seq)
	u[8] = 0x80 | u[8]&0x3f // the RFC 9562 variant
	return u
}

// last is the last tick handed out.
var last atomic.Int64

// tick is nano as a v7 clock reads it — milliseconds shifted left by
// 12, plus the nanoseconds within the millisecond divided by 256
// (0…3906) — made larger than every tick handed out before.
func tick(nano int64) int64 {
	milli := nano / int64(time.Millisecond)
	now := milli<<12 + (nano-milli*int64(time.Millisecond))>>8
	for {
		prev := last.Load()
		next := max(now, prev+1)
		if last.CompareAndSwap(prev, next) {
			return next
		}
	}
}

package process

import (
	"crypto/rand"
	"encoding/binary"
	"sync"
	"time"
)

// uuidV7 makes time-ordered UUIDs (docs/spec/builtins.md §3.15): a
// 48-bit Unix millisecond prefix, then 74 bits that are random for the
// first UUID of a millisecond and one more than the previous UUID's for
// the others (RFC 9562 §6.2, method 2), so the UUIDs of one process sort
// in the order they were made even within a millisecond. When the 74
// bits run out within a millisecond, or the clock steps back, the prefix
// stays one step ahead of the clock until the clock catches up.
var uuidV7 struct {
	sync.Mutex
	ms     uint64 // the prefix of the last UUID made
	hi, lo uint64 // its 12-bit rand_a and 62-bit rand_b
}

func newUUIDv7(now time.Time) [16]byte {
	ms := uint64(now.UnixMilli())
	g := &uuidV7
	g.Lock()
	if ms > g.ms {
		var r [16]byte
		rand.Read(r[:])
		g.ms = ms
		g.hi = uint64(binary.BigEndian.Uint16(r[:2])) & 0xfff
		g.lo = binary.BigEndian.Uint64(r[8:]) & (1<<62 - 1)
	} else {
		g.lo++
		if g.lo == 1<<62 {
			g.lo = 0
			g.hi++
			if g.hi == 1<<12 {
				g.hi = 0
				g.ms++
			}
		}
	}
	var u [16]byte
	binary.BigEndian.PutUint64(u[8:], g.lo|0x80<<56) // variant 10
	binary.BigEndian.PutUint16(u[6:8], uint16(g.hi)|7<<12)
	var p [8]byte
	binary.BigEndian.PutUint64(p[:], g.ms)
	copy(u[:6], p[2:])
	g.Unlock()
	return u
}

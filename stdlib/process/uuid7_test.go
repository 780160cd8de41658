package process

import (
	"testing"
	"time"
)

// UUIDs made in the same millisecond, and after the clock steps back,
// still sort in the order they were made; version and variant stay set.
func TestUUIDv7Monotonic(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	prev := ""
	check := func(at time.Time) {
		t.Helper()
		u := newUUIDv7(at)
		s := formatUUID(u)
		if s <= prev {
			t.Fatalf("%s after %s: not increasing", s, prev)
		}
		if u[6]>>4 != 7 || u[8]>>6 != 2 {
			t.Fatalf("%s: version %d, variant bits %b", s, u[6]>>4, u[8]>>6)
		}
		prev = s
	}
	for range 1000 {
		check(now)
	}
	check(now.Add(-time.Second)) // the clock stepped back
	uuidV7.Lock()
	uuidV7.lo, uuidV7.hi = 1<<62-1, 1<<12-1 // the 74 bits run out
	uuidV7.Unlock()
	check(now)
	if prev[:13] != formatUUID(newUUIDv7(now.Add(time.Millisecond)))[:13] {
		t.Errorf("after the 74 bits ran out, the prefix did not move one millisecond ahead")
	}
	check(now.Add(time.Millisecond))
	check(now.Add(time.Hour))
}

package uuids

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// ids made at the same moment on many goroutines are valid v7 ids
// (version 7, RFC 9562 variant, the current time or just after it), all
// distinct, and each goroutine's come in increasing order.
func TestV7ConcurrentlyUniqueAndOrdered(t *testing.T) {
	const workers, each = 8, 2000
	before := time.Now().UnixMilli()
	lists := make([][][16]byte, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				lists[w] = append(lists[w], V7())
			}
		}()
	}
	wg.Wait()
	// ids made faster than 4,096 a millisecond run ahead of the clock
	// (the sequence spills into the next millisecond), by at most one
	// millisecond per 4,096
	after := time.Now().UnixMilli() + workers*each/4096 + 1
	seen := map[[16]byte]bool{}
	for _, list := range lists {
		for i, id := range list {
			u := uuid.UUID(id)
			if u.Version() != 7 || u.Variant() != uuid.RFC4122 {
				t.Fatalf("%s: version %d, variant %v", u, u.Version(), u.Variant())
			}
			sec, nsec := u.Time().UnixTime()
			if ms := sec*1000 + nsec/1e6; ms < before || ms > after {
				t.Fatalf("%s: time %d not within %d…%d", u, ms, before, after)
			}
			if seen[id] {
				t.Fatalf("%s made twice", u)
			}
			seen[id] = true
			if i > 0 && bytes.Compare(list[i-1][:8], id[:8]) >= 0 {
				t.Fatalf("%s does not follow %s", u, uuid.UUID(list[i-1]))
			}
		}
	}
}

// ids made in the same millisecond, after the clock steps back, and
// more than 4,096 within one millisecond still sort in the order they
// were made; the millisecond prefix is the clock's until ids outrun it.
func TestAtOrderedWhenTheClockStallsOrStepsBack(t *testing.T) {
	now := time.Now().Add(time.Hour).UnixNano() // ahead of every id made so far
	prev := ""
	check := func(nano int64) [16]byte {
		t.Helper()
		u := at(nano)
		s := Format(u)
		if s <= prev {
			t.Fatalf("%s after %s: not increasing", s, prev)
		}
		if u[6]>>4 != 7 || u[8]>>6 != 2 {
			t.Fatalf("%s: version %d, variant bits %b", s, u[6]>>4, u[8]>>6)
		}
		prev = s
		return u
	}
	msOf := func(u [16]byte) int64 {
		var p [8]byte
		copy(p[2:], u[:6])
		return int64(binary.BigEndian.Uint64(p[:]))
	}
	if got, want := msOf(check(now)), now/1e6; got != want {
		t.Errorf("millisecond prefix %d, want the clock's %d", got, want)
	}
	for range 4200 { // more than the 4,096 a millisecond holds, fewer than two milliseconds' worth
		check(now)
	}
	if got := msOf(check(now - int64(time.Second))); got != now/1e6+1 { // the clock stepped back
		t.Errorf("after 4,200 ids in one millisecond and a step back, prefix %d, want one millisecond ahead (%d)", got, now/1e6+1)
	}
	later := now + int64(time.Minute)
	if got := msOf(check(later)); got != later/1e6 {
		t.Errorf("once the clock caught up, prefix %d, want %d", got, later/1e6)
	}
}

// Format spells a UUID as google/uuid and RFC 9562 do.
func TestFormat(t *testing.T) {
	for range 100 {
		u := V7()
		if got, want := Format(u), uuid.UUID(u).String(); got != want {
			t.Fatalf("Format = %s, want %s", got, want)
		}
	}
	s := V7String()
	if len(s) != 36 || s[14] != '7' || strings.Count(s, "-") != 4 {
		t.Errorf("V7String() = %q, not a hyphenated v7 id", s)
	}
}

func BenchmarkV7(b *testing.B) {
	for range b.N {
		V7()
	}
}

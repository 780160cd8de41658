package vm

import (
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"
)

// String is a Harn string: Unicode text, indexed by scalar values.
//
// Strings built by repeated concatenation (`s = s + t` in a loop) share a
// growable byte buffer: the bytes of every string viewing the buffer are
// never overwritten, and a concatenation whose left operand ends exactly
// where the buffer's used part ends claims the next bytes with a
// compare-and-swap and writes there. That keeps such loops linear, like
// CPython's in-place string append, while every String stays immutable.
type String struct {
	s   string  // the text
	buf *strBuf // non-nil when s is a prefix view of buf.b
}

type strBuf struct {
	b    []byte       // capacity fixed at allocation
	used atomic.Int64 // bytes claimed so far
}

func (String) Type() string                  { return "string" }
func (s String) Truth() bool                 { return s.s != "" }
func (s String) Display(sb *strings.Builder) { sb.WriteString(s.s) }

// Go returns the text as a Go string.
func (s String) Go() string { return s.s }

// Len is the number of Unicode scalar values.
func (s String) Len() int { return RuneCount(s.s) }

// RuneCount is utf8.RuneCountInString (an invalid byte counts as one),
// 32 bytes at a time through ASCII: `len` of a long string was a
// byte-by-byte walk.
func RuneCount(s string) int {
	const hi = 0x8080808080808080
	n := 0
	for len(s) >= 32 {
		if (word(s)|word(s[8:])|word(s[16:])|word(s[24:]))&hi == 0 {
			n += 32
			s = s[32:]
			continue
		}
		// the next 32 bytes or so rune by rune (a range loop decodes as
		// RuneCountInString does)
		rest := ""
		for i := range s {
			if i >= 32 {
				rest = s[i:]
				break
			}
			n++
		}
		s = rest
	}
	for range s {
		n++
	}
	return n
}

// word is the first eight bytes of s (len(s) >= 8), little-endian: one
// load.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Concat returns s + t, appending in place when s is the tip of a shared
// buffer (see the type comment).
func (s String) Concat(t string) String {
	if len(t) == 0 {
		return s
	}
	n := len(s.s)
	if b := s.buf; b != nil && n+len(t) <= cap(b.b) && b.used.CompareAndSwap(int64(n), int64(n+len(t))) {
		full := b.b[:n+len(t)]
		copy(full[n:], t)
		return String{s: unsafe.String(&full[0], n+len(t)), buf: b}
	}
	if n+len(t) < 64 {
		return String{s: s.s + t}
	}
	// Start a new growable buffer with room to double.
	c := 2 * (n + len(t))
	noteGrowth(int64(c))
	b := &strBuf{b: make([]byte, n+len(t), c)}
	copy(b.b, s.s)
	copy(b.b[n:], t)
	b.used.Store(int64(n + len(t)))
	b.b = b.b[:c]
	return String{s: unsafe.String(&b.b[0], n+len(t)), buf: b}
}

// intText is the decimal text of i as a string value (to_string of an
// int).
func intText(i int64) Value {
	return Str(strconv.FormatInt(i, 10))
}

// concatIntText is x + to_string(i) for a string x, made in one
// allocation; ok is false unless that is what Concat would make with a
// plain Go concatenation (x unboxed, and the result shorter than a
// growable buffer's start).
func concatIntText(x Value, i int64) (v Value, ok bool) {
	if x.n < strMark || x.isScalar() {
		return Value{}, false
	}
	k := intLen(i)
	if int(x.n&^strMark)+k >= 64 {
		return Value{}, false
	}
	s := x.str()
	b := make([]byte, len(s), len(s)+k)
	copy(b, s)
	b = strconv.AppendInt(b, i, 10)
	return Str(unsafe.String(&b[0], len(b))), true
}

// intLen is the length of i's decimal text.
func intLen(i int64) int {
	n, u := 1, uint64(i)
	if i < 0 {
		n, u = 2, -uint64(i)
	}
	for ; u >= 100; u /= 100 {
		n += 2
	}
	if u >= 10 {
		n++
	}
	return n
}

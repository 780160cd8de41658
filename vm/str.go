package vm

import (
	"strings"
	"sync/atomic"
	"unicode/utf8"
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
func (s String) Len() int { return utf8.RuneCountInString(s.s) }

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

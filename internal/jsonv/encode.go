package jsonv

import (
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Marshal returns the compact encoding of v.
func Marshal(v any) []byte { return encode(v, false) }

// MarshalIndent returns v indented with two spaces per level, members
// separated by ": ", empty containers written as {} and [].
func MarshalIndent(v any) []byte { return encode(v, true) }

// scratch holds encoding buffers between calls. Encoding into a fresh
// slice grows it a step at a time (a 1 KiB answer took about eight
// allocations); encoding into a used buffer and copying out the result
// takes one.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// maxScratch is the largest buffer kept for reuse, so one huge document
// does not stay pinned in the pool.
const maxScratch = 64 << 10

func encode(v any, indent bool) []byte {
	bp := scratch.Get().(*[]byte)
	e := encoder{buf: (*bp)[:0], indent: indent}
	e.value(v, 0)
	out := append([]byte(nil), e.buf...)
	if cap(e.buf) <= maxScratch {
		*bp = e.buf
		scratch.Put(bp)
	}
	return out
}

// Append appends the compact encoding of v to buf.
func Append(buf []byte, v any) []byte {
	e := encoder{buf: buf}
	e.value(v, 0)
	return e.buf
}

type encoder struct {
	buf    []byte
	indent bool
}

func (e *encoder) newline(depth int) {
	if !e.indent {
		return
	}
	e.buf = append(e.buf, '\n')
	for i := 0; i < depth; i++ {
		e.buf = append(e.buf, ' ', ' ')
	}
}

func (e *encoder) value(v any, depth int) {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case json.Number:
		if x == "" {
			e.buf = append(e.buf, '0')
		} else {
			e.buf = append(e.buf, x...)
		}
	case string:
		e.buf = AppendString(e.buf, x)
	case json.RawMessage:
		// Written as is: the caller holds JSON text it must echo byte for
		// byte (a request id whose escapes decoding would not preserve).
		e.buf = append(e.buf, x...)
	case []any:
		if len(x) == 0 {
			e.buf = append(e.buf, "[]"...)
			return
		}
		e.buf = append(e.buf, '[')
		for i, it := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(depth + 1)
			e.value(it, depth+1)
		}
		e.newline(depth)
		e.buf = append(e.buf, ']')
	case []string:
		if len(x) == 0 {
			e.buf = append(e.buf, "[]"...)
			return
		}
		e.buf = append(e.buf, '[')
		for i, it := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(depth + 1)
			e.buf = AppendString(e.buf, it)
		}
		e.newline(depth)
		e.buf = append(e.buf, ']')
	case *Object:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		if x.Len() == 0 {
			e.buf = append(e.buf, "{}"...)
			return
		}
		e.buf = append(e.buf, '{')
		for i, k := range x.keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(depth + 1)
			e.buf = AppendString(e.buf, k)
			e.buf = append(e.buf, ':')
			if e.indent {
				e.buf = append(e.buf, ' ')
			}
			e.value(x.vals[i], depth+1)
		}
		e.newline(depth)
		e.buf = append(e.buf, '}')
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case float64:
		e.buf = strconv.AppendFloat(e.buf, x, 'f', -1, 64)
	default:
		// Any other Go value (a DTO, a map) goes through encoding/json and
		// is re-read so that indentation stays uniform.
		b, err := json.Marshal(x)
		if err != nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		if !e.indent {
			e.buf = append(e.buf, b...)
			return
		}
		if pv, err := Parse(b); err == nil {
			e.value(pv, depth)
		} else {
			e.buf = append(e.buf, b...)
		}
	}
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string literal. Only the quote, the
// backslash and control characters are escaped; invalid UTF-8 becomes
// U+FFFD.
func AppendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

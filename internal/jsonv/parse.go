package jsonv

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// SyntaxError is a malformed JSON text.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset)
}

// Parse reads one JSON value (surrounding white space allowed), keeping
// object key order and number literals. A key given twice keeps its
// first position and its last value.
func Parse(data []byte) (any, error) {
	return parse(data, maxDepth)
}

// SerdeDepth is serde_json's recursion limit: the 128th container nested
// in another fails, as upstream's readers of command-line JSON do
// (`recursion limit exceeded`).
const SerdeDepth = 128

// ParseLimit is Parse refusing a container that opens when limit-1
// containers are already open around it (limit SerdeDepth reads as
// serde_json reads). The refusal is a *SyntaxError.
func ParseLimit(data []byte, limit int) (any, error) {
	return parse(data, limit-2)
}

func parse(data []byte, max int) (any, error) {
	p := parser{data: data, max: max}
	if len(data) <= sharedTextLimit {
		p.text = string(data)
	}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.data) {
		return nil, p.errorf("unexpected trailing data")
	}
	return v, nil
}

const maxDepth = 10000

// sharedTextLimit is the largest input whose strings and numbers are
// cut from one copy of the whole text: one allocation instead of one per
// key, string and number (a dozen in an MCP request). A value kept from
// such a parse keeps the whole text alive, so long inputs, where that
// could pin far more than is kept, copy each string on its own.
const sharedTextLimit = 4096

type parser struct {
	data []byte
	text string // data as a string, when it is short enough to share
	pos  int
	max  int // the deepest value a container may open at
}

// cut returns data[start:end] as a string.
func (p *parser) cut(start, end int) string {
	if p.text != "" {
		return p.text[start:end]
	}
	return string(p.data[start:end])
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

// more reads the separator after an object member or array element: true
// after a comma, false after the closing byte, an error otherwise.
func (p *parser) more(closer byte, container string) (bool, error) {
	p.space()
	if p.pos >= len(p.data) {
		return false, p.errorf("unexpected end of JSON input")
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return true, nil
	case closer:
		p.pos++
		return false, nil
	}
	return false, p.errorf("expected ',' or '%c' in %s", closer, container)
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of JSON input")
	}
	if c := p.data[p.pos]; depth > p.max && (c == '{' || c == '[') {
		return nil, p.errorf("nesting too deep")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		p.pos++
		o := NewObject(4)
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return o, nil
		}
		for {
			p.space()
			if p.pos >= len(p.data) || p.data[p.pos] != '"' {
				return nil, p.errorf("expected string key")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.pos >= len(p.data) || p.data[p.pos] != ':' {
				return nil, p.errorf("expected ':' after object key")
			}
			p.pos++
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
			more, err := p.more('}', "object")
			if err != nil {
				return nil, err
			}
			if !more {
				return o, nil
			}
		}
	case c == '[':
		p.pos++
		arr := []any{}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return arr, nil
		}
		for {
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			more, err := p.more(']', "array")
			if err != nil {
				return nil, err
			}
			if !more {
				return arr, nil
			}
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.errorf("invalid character %q looking for beginning of value", p.data[p.pos])
}

func (p *parser) literal(word string, v any) (any, error) {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return v, nil
	}
	return nil, p.errorf("invalid literal")
}

func (p *parser) number() (any, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.errorf("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	return json.Number(p.cut(start, p.pos)), nil
}

func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// fast path: no escapes
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.cut(start, p.pos)
			p.pos++
			if !utf8.ValidString(s) {
				return toValidUTF8(s), nil
			}
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return toValidUTF8(string(buf)), nil
		case c < 0x20:
			return "", p.errorf("invalid control character in string")
		case c == '\\':
			p.pos++
			if p.pos >= len(p.data) {
				return "", p.errorf("unexpected end of JSON input")
			}
			e := p.data[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.errorf("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						if x, ok := p.hex4(); ok {
							r2 = x
						} else {
							p.pos = save
						}
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.errorf("invalid escape character %q", e)
			}
		default:
			buf = append(buf, c)
			p.pos++
		}
	}
	return "", p.errorf("unexpected end of JSON input")
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(n), true
}

func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		out = append(out, r)
	}
	return string(out)
}

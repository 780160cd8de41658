package json

// JSON (docs/spec/builtins.md §3.12): a strict parser whose error messages and
// positions follow serde_json, a custom encoder (compact, sorted keys, the
// JSON float form), and the one value↔JSON mapping every other part of
// the interpreter reuses (ToJSON, FromJSON, JSONStringify).

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/vm"
)

// ---- parsing ----

// jsonSyntaxError is a serde_json-style syntax error: message plus a
// 1-based line and a byte column (0 only for an empty input).
type jsonSyntaxError struct {
	msg          string
	line, column int
}

func (e *jsonSyntaxError) Error() string {
	return e.msg + " at line " + strconv.Itoa(e.line) + " column " + strconv.Itoa(e.column)
}

// jsonMaxDepth is serde_json's recursion limit.
const jsonMaxDepth = 128

type jsonParser struct {
	s     string
	i     int
	depth int
	pace  lib.Pacer // checks the calling thread for interrupts (nil Th: none)
}

// Parse parses strict JSON text into a Harn value: objects become
// dicts, arrays lists, integers that fit in 64 bits ints and every other
// number a float. The error reads like serde_json's ("expected value at
// line 1 column 1").
func Parse(text string) (vm.Value, error) { return ParseOn(nil, text) }

// ErrorText words err, another JSON reader's failure on data, as Parse
// does (`expected value at line 1 column 1`), so every command describes
// JSON that does not parse the way json_parse does; err's own text when
// Parse accepts data (a limit only the other reader has).
func ErrorText(data []byte, err error) string {
	if _, perr := Parse(string(data)); perr != nil {
		return perr.Error()
	}
	return err.Error()
}

// ParseArguments reads the arguments of a tool call as a model writes
// them, JSON text: blank text is no arguments, the empty object; other
// text is read as Parse reads it, and text that is not JSON is an error
// saying where it broke ("arguments are not JSON: …"). It is the one
// rule for every reader of a model's argument text: the LLM providers'
// replies, llm_mock's and a conversation's tool calls, the agent loop,
// dispatch_agent_call and tool_parse_call's blocks.
func ParseArguments(text string) (vm.Value, error) {
	if strings.TrimSpace(text) == "" {
		return vm.Of(vm.NewDict()), nil
	}
	v, err := Parse(text)
	if err != nil {
		return vm.Value{}, fmt.Errorf("arguments are not JSON: %w", err)
	}
	return v, nil
}

// ParseOn is Parse for a builtin running on th: a long parse stops at
// th's deadline, cancellation or Ctrl-C with th's error (a *vm.Error),
// which callers pass on as it is.
func ParseOn(th *vm.Thread, text string) (vm.Value, error) {
	p := &jsonParser{s: text, pace: lib.Pacer{Th: th}}
	v, err := p.value()
	if err != nil {
		return vm.Value{}, err
	}
	if _, ok := p.skipWS(); ok {
		return vm.Value{}, p.peekErr("trailing characters")
	}
	return v, nil
}

// posAt is serde_json's position_of_index: the line of byte i and the
// number of bytes between the line start and i.
func (p *jsonParser) posAt(i int) (int, int) {
	start := strings.LastIndexByte(p.s[:i], '\n') + 1
	return 1 + strings.Count(p.s[:start], "\n"), i - start
}

// err reports at the current index (the column of the last consumed byte).
func (p *jsonParser) err(msg string) error {
	l, c := p.posAt(p.i)
	return &jsonSyntaxError{msg, l, c}
}

// peekErr reports one past the current index (the column of the byte
// being looked at), capped at the input length.
func (p *jsonParser) peekErr(msg string) error {
	l, c := p.posAt(min(len(p.s), p.i+1))
	return &jsonSyntaxError{msg, l, c}
}

func (p *jsonParser) skipWS() (byte, bool) {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; c {
		case ' ', '\n', '\t', '\r':
			p.i++
		default:
			return c, true
		}
	}
	return 0, false
}

func (p *jsonParser) value() (vm.Value, error) {
	if err := p.pace.Step(); err != nil {
		return vm.Value{}, err
	}
	c, ok := p.skipWS()
	if !ok {
		return vm.Value{}, p.peekErr("EOF while parsing a value")
	}
	switch c {
	case 'n':
		p.i++
		return vm.Nil, p.ident("ull")
	case 't':
		p.i++
		return vm.True, p.ident("rue")
	case 'f':
		p.i++
		return vm.False, p.ident("alse")
	case '-':
		p.i++
		return p.number(false)
	case '"':
		p.i++
		s, err := p.str()
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(s), nil
	case '[':
		if p.depth+1 >= jsonMaxDepth {
			return vm.Value{}, p.peekErr("recursion limit exceeded")
		}
		p.depth++
		p.i++
		v, err := p.array()
		p.depth--
		return v, err
	case '{':
		if p.depth+1 >= jsonMaxDepth {
			return vm.Value{}, p.peekErr("recursion limit exceeded")
		}
		p.depth++
		p.i++
		v, err := p.object()
		p.depth--
		return v, err
	}
	if c >= '0' && c <= '9' {
		return p.number(true)
	}
	return vm.Value{}, p.peekErr("expected value")
}

func (p *jsonParser) ident(rest string) error {
	for j := 0; j < len(rest); j++ {
		if p.i >= len(p.s) {
			return p.err("EOF while parsing a value")
		}
		c := p.s[p.i]
		p.i++
		if c != rest[j] {
			return p.err("expected ident")
		}
	}
	return nil
}

func (p *jsonParser) peekByte() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// number parses the rest of a number whose sign (if any) was consumed.
func (p *jsonParser) number(positive bool) (vm.Value, error) {
	start := p.i
	if p.i >= len(p.s) {
		return vm.Value{}, p.err("EOF while parsing a value")
	}
	c := p.s[p.i]
	p.i++
	switch {
	case c == '0':
		if lib.ASCIIDigit(p.peekByte()) {
			return vm.Value{}, p.peekErr("invalid number")
		}
	case c >= '1' && c <= '9':
		for lib.ASCIIDigit(p.peekByte()) {
			p.i++
		}
	default:
		return vm.Value{}, p.err("invalid number")
	}
	isFloat := false
	if p.peekByte() == '.' {
		isFloat = true
		p.i++
		if !lib.ASCIIDigit(p.peekByte()) {
			if p.i < len(p.s) {
				return vm.Value{}, p.peekErr("invalid number")
			}
			return vm.Value{}, p.peekErr("EOF while parsing a value")
		}
		for lib.ASCIIDigit(p.peekByte()) {
			p.i++
		}
	}
	if b := p.peekByte(); b == 'e' || b == 'E' {
		isFloat = true
		p.i++
		if b := p.peekByte(); b == '+' || b == '-' {
			p.i++
		}
		if p.i >= len(p.s) {
			return vm.Value{}, p.err("EOF while parsing a value")
		}
		d := p.s[p.i]
		p.i++
		if !lib.ASCIIDigit(d) {
			return vm.Value{}, p.err("invalid number")
		}
		for lib.ASCIIDigit(p.peekByte()) {
			p.i++
		}
	}
	text := p.s[start:p.i]
	if !positive {
		text = "-" + text
	}
	if !isFloat {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			if n == 0 && !positive {
				// serde_json reads -0 as the float -0.0
				return vm.FloatOf(math.Copysign(0, -1)), nil
			}
			return vm.IntOf(n), nil
		}
	}
	f, _ := strconv.ParseFloat(text, 64)
	if math.IsInf(f, 0) {
		return vm.Value{}, p.err("number out of range")
	}
	return vm.FloatOf(f), nil
}

// str parses a string body after the opening quote.
func (p *jsonParser) str() (string, error) {
	var sb strings.Builder
	start := p.i
	for {
		for p.i < len(p.s) {
			c := p.s[p.i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			p.i++
		}
		if p.i >= len(p.s) {
			return "", p.err("EOF while parsing a string")
		}
		switch c := p.s[p.i]; c {
		case '"':
			sb.WriteString(p.s[start:p.i])
			p.i++
			return sb.String(), nil
		case '\\':
			sb.WriteString(p.s[start:p.i])
			p.i++
			if err := p.escape(&sb); err != nil {
				return "", err
			}
			start = p.i
		default:
			p.i++
			return "", p.err("control character (\\u0000-\\u001F) found while parsing a string")
		}
	}
}

func (p *jsonParser) escape(sb *strings.Builder) error {
	if p.i >= len(p.s) {
		return p.err("EOF while parsing a string")
	}
	c := p.s[p.i]
	p.i++
	switch c {
	case '"', '\\', '/':
		sb.WriteByte(c)
	case 'b':
		sb.WriteByte('\b')
	case 'f':
		sb.WriteByte('\f')
	case 'n':
		sb.WriteByte('\n')
	case 'r':
		sb.WriteByte('\r')
	case 't':
		sb.WriteByte('\t')
	case 'u':
		return p.unicodeEscape(sb)
	default:
		return p.err("invalid escape")
	}
	return nil
}

func (p *jsonParser) hex4() (rune, error) {
	if p.i+4 > len(p.s) {
		p.i = len(p.s)
		return 0, p.err("EOF while parsing a string")
	}
	h := p.s[p.i : p.i+4]
	p.i += 4
	n, err := strconv.ParseUint(h, 16, 16)
	if err != nil || strings.ContainsAny(h, "+-_") {
		return 0, p.err("invalid escape")
	}
	return rune(n), nil
}

func (p *jsonParser) unicodeEscape(sb *strings.Builder) error {
	n, err := p.hex4()
	if err != nil {
		return err
	}
	if n >= 0xDC00 && n <= 0xDFFF {
		return p.err("lone leading surrogate in hex escape")
	}
	if n < 0xD800 || n > 0xDBFF {
		sb.WriteRune(n)
		return nil
	}
	if p.i >= len(p.s) {
		return p.err("EOF while parsing a string")
	}
	if p.s[p.i] != '\\' {
		p.i++
		return p.err("unexpected end of hex escape")
	}
	p.i++
	if p.i >= len(p.s) {
		return p.err("EOF while parsing a string")
	}
	if p.s[p.i] != 'u' {
		p.i++
		return p.err("unexpected end of hex escape")
	}
	p.i++
	n2, err := p.hex4()
	if err != nil {
		return err
	}
	if n2 < 0xDC00 || n2 > 0xDFFF {
		return p.err("lone leading surrogate in hex escape")
	}
	sb.WriteRune((((n - 0xD800) << 10) | (n2 - 0xDC00)) + 0x10000)
	return nil
}

func (p *jsonParser) array() (vm.Value, error) {
	var items []vm.Value
	first := true
	for {
		c, ok := p.skipWS()
		if !ok {
			return vm.Value{}, p.peekErr("EOF while parsing a list")
		}
		if c == ']' {
			p.i++
			return vm.Of(vm.NewList(items)), nil
		}
		if !first {
			if c != ',' {
				return vm.Value{}, p.peekErr("expected `,` or `]`")
			}
			p.i++
			c, ok = p.skipWS()
			if !ok {
				return vm.Value{}, p.peekErr("EOF while parsing a value")
			}
			if c == ']' {
				return vm.Value{}, p.peekErr("trailing comma")
			}
		}
		first = false
		v, err := p.value()
		if err != nil {
			return vm.Value{}, err
		}
		items = append(items, v)
	}
}

func (p *jsonParser) object() (vm.Value, error) {
	b := vm.NewDictBuilder(4)
	first := true
	for {
		c, ok := p.skipWS()
		if !ok {
			return vm.Value{}, p.peekErr("EOF while parsing an object")
		}
		if c == '}' {
			p.i++
			return vm.Of(b.Build()), nil
		}
		if !first {
			if c != ',' {
				return vm.Value{}, p.peekErr("expected `,` or `}`")
			}
			p.i++
			c, ok = p.skipWS()
			if !ok {
				return vm.Value{}, p.peekErr("EOF while parsing a value")
			}
		}
		first = false
		switch c {
		case '"':
		case '}':
			return vm.Value{}, p.peekErr("trailing comma")
		default:
			return vm.Value{}, p.peekErr("key must be a string")
		}
		p.i++
		key, err := p.str()
		if err != nil {
			return vm.Value{}, err
		}
		c, ok = p.skipWS()
		if !ok {
			return vm.Value{}, p.peekErr("EOF while parsing an object")
		}
		if c != ':' {
			return vm.Value{}, p.peekErr("expected `:`")
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return vm.Value{}, err
		}
		b.Set(key, v)
	}
}

// ---- encoding ----

// jsonEncoder writes values as compact JSON.
type jsonEncoder struct {
	sb    strings.Builder
	depth int // containers open around the current value
	// handle is the first harness handle met (written as null), for
	// json_stringify's error.
	handle *harness.Handle
	// other is the first other non-data value met (a channel, a task, a
	// closure, …; written as null), for RefuseNonData's error; the zero
	// Value until one is met.
	other vm.Value
	// walk names the walk in the too-deep error ("encode as JSON" when
	// empty); RefuseHandle's walk serves other encoders.
	walk string
}

// Stringify is json_stringify: compact JSON, keys sorted, floats in
// the JSON float form, non-data values as null (docs/spec/builtins.md §3.12).
// A value nested past vm.MaxValueDepth panics with vm.TooDeep, which a
// builtin's caller turns into a catchable error.
func Stringify(v vm.Value) string {
	var e jsonEncoder
	e.value(v)
	return e.sb.String()
}

// stringifyData is json_stringify's Stringify: a harness handle (the root
// or a capability) anywhere in v is an error, not null. docs/spec/language.md
// §5.4 says a handle is authority, not data, and cannot be serialized;
// that statement about this one kind is more specific than the
// non-data-to-null rule of docs/spec/builtins.md §3.12, which keeps
// applying to every other handle (tasks, channels, …).
func stringifyData(v vm.Value) (string, error) {
	var e jsonEncoder
	e.value(v)
	if e.handle != nil {
		return "", handleError("json_stringify", e.handle)
	}
	return e.sb.String(), nil
}

// RefuseHandle is the error a serializer named name raises when v holds a
// harness handle anywhere (nil when it holds none): yaml_stringify and
// toml_stringify refuse handles as json_stringify does.
func RefuseHandle(name string, v vm.Value) error { return refuse(name, v, false) }

// RefuseNonData is the error a builtin named name raises when v holds,
// anywhere, a value JSON cannot carry: a harness handle, or another
// non-data value json_stringify would write as null (a channel, a task, a
// generator, a closure, …; docs/spec/builtins.md §3.12). nil when v is
// plain data. Artifacts use it (docs/artifacts.md).
func RefuseNonData(name string, v vm.Value) error { return refuse(name, v, true) }

// refuse encodes v to find a harness handle, and with nonData any other
// value JSON cannot carry, and returns the error naming the first.
func refuse(name string, v vm.Value, nonData bool) error {
	e := jsonEncoder{walk: "encode"}
	e.value(v)
	if e.handle != nil {
		return handleError(name, e.handle)
	}
	if nonData && e.other.IsValid() {
		return vm.Typef("%s: cannot hold a %s: the data must be plain data (no handles such as channels, tasks or closures)", name, e.other.Type())
	}
	return nil
}

func handleError(name string, h *harness.Handle) error {
	return vm.Typef("%s: cannot serialize a %s handle: it is authority, not data (pass the values it reads instead)", name, h.Type())
}

func (e *jsonEncoder) value(v vm.Value) {
	// Scalars are read through their kind: Object would box them.
	switch v.Kind() {
	case vm.KBool:
		if v.Truth() {
			e.sb.WriteString("true")
		} else {
			e.sb.WriteString("false")
		}
		return
	case vm.KInt:
		n, _ := v.AsInt()
		var buf [24]byte
		e.sb.Write(strconv.AppendInt(buf[:0], int64(n), 10))
		return
	case vm.KFloat:
		f, _ := v.AsFloat()
		e.sb.WriteString(vm.FormatJSONFloat(float64(f)))
		return
	case vm.KString:
		s, _ := v.AsString()
		WriteString(&e.sb, s.Go())
		return
	}
	switch x := v.Object().(type) {
	case *vm.List:
		e.array(x.Items())
	case *vm.Set:
		e.array(x.Items())
	case *vm.Dict:
		keys := x.Keys()
		e.object(len(keys), func(i int) (string, vm.Value) {
			val, _ := x.Get(keys[i])
			return keys[i], val
		})
	case *vm.StructValue:
		e.object(len(x.Fields), func(i int) (string, vm.Value) {
			return x.Fields[i].Name, x.Fields[i].Value
		})
	case *vm.Range:
		WriteString(&e.sb, vm.ToDisplay(v))
	case *lib.Bytes:
		e.object(1, func(int) (string, vm.Value) {
			return "$bytes_b64", vm.Str(base64.StdEncoding.EncodeToString(x.Data()))
		})
	case *harness.Handle:
		if e.handle == nil {
			e.handle = x
		}
		e.sb.WriteString("null")
	case *decimal.Decimal:
		e.sb.WriteString(x.Text()) // the exact number at its stored scale
	default:
		if !e.other.IsValid() && !v.IsNil() {
			e.other = v
		}
		e.sb.WriteString("null")
	}
}

// enter and leave bracket each container so the walk stays within
// vm.MaxValueDepth.
func (e *jsonEncoder) enter() {
	if e.depth >= vm.MaxValueDepth {
		if e.walk != "" {
			panic(vm.TooDeep(e.walk))
		}
		panic(vm.TooDeep("encode as JSON"))
	}
	e.depth++
}

func (e *jsonEncoder) leave() { e.depth-- }

func (e *jsonEncoder) array(items []vm.Value) {
	e.enter()
	defer e.leave()
	e.sb.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			e.sb.WriteByte(',')
		}
		e.value(it)
	}
	e.sb.WriteByte(']')
}

func (e *jsonEncoder) object(n int, entry func(int) (string, vm.Value)) {
	e.enter()
	defer e.leave()
	e.sb.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			e.sb.WriteByte(',')
		}
		k, v := entry(i)
		WriteString(&e.sb, k)
		e.sb.WriteByte(':')
		e.value(v)
	}
	e.sb.WriteByte('}')
}

// WriteString quotes s: `"` `\` and the control characters U+0000–
// U+001F and U+007F–U+009F are escaped, everything else stays literal.
func WriteString(sb *strings.Builder, s string) {
	const hexDigits = "0123456789abcdef"
	sb.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == '"':
			esc = `\"`
		case r == '\\':
			esc = `\\`
		case r == '\n':
			esc = `\n`
		case r == '\r':
			esc = `\r`
		case r == '\t':
			esc = `\t`
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			esc = `\u00` + string(hexDigits[r>>4]) + string(hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		sb.WriteString(s[start:i])
		sb.WriteString(esc)
		i += size
		start = i
	}
	sb.WriteString(s[start:])
	sb.WriteByte('"')
}

// Data is v reduced to the JSON data model as json_stringify sees it.
// The value↔JSON mapping of the library (this reduction, and the generic
// Go form YAML and TOML decode to) is package jsonschema's.
func Data(v vm.Value) vm.Value { return jsonschema.Normalize(v) }

// ---- builtins ----

func init() {
	lib.Def("json_parse", "json_parse(text) -> any", "parse strict JSON into a value", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 1 {
			return vm.Value{}, lib.ArgCountError("json_parse", 1)
		}
		v, err := ParseOn(th, a.Text(0))
		if e, stopped := err.(*vm.Error); stopped {
			return vm.Value{}, e
		}
		if err != nil {
			return vm.Value{}, vm.Throwf("JSON parse error: %s", err.Error())
		}
		return v, nil
	})
	lib.Def("json_stringify", "json_stringify(v) -> string", "compact JSON text with sorted keys", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 1 {
			return vm.Value{}, lib.ArgCountError("json_stringify", 1)
		}
		s, err := stringifyData(a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(s), nil
	})
	lib.Def("json_extract", "json_extract(text, key?) -> any", "parse the JSON embedded in free text (code fence, {…} or […])", jsonExtract)
	lib.Def("json_pointer", "json_pointer(v, ptr: string) -> any", "RFC 6901 lookup; missing → nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Value{}, lib.ArgCountError("json_pointer", 2)
		}
		toks, err := ParsePointer("json_pointer", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		cur := a.At(0)
		for _, t := range toks {
			next, ok := PointerStep(cur, t)
			if !ok {
				return vm.Nil, nil
			}
			cur = next
		}
		return cur, nil
	})
	lib.Def("json_pointer_set", "json_pointer_set(v, ptr: string, new) -> any", "copy of v with the pointer target replaced or inserted", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 3 {
			return vm.Value{}, lib.ArgCountError("json_pointer_set", 3)
		}
		toks, err := ParsePointer("json_pointer_set", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		return pointerSet(a.At(0), toks, a.At(2), false), nil
	})
	lib.Def("json_pointer_delete", "json_pointer_delete(v, ptr: string) -> any", "copy of v without the pointer target", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Value{}, lib.ArgCountError("json_pointer_delete", 2)
		}
		toks, err := ParsePointer("json_pointer_delete", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		if len(toks) == 0 {
			return vm.Nil, nil
		}
		return pointerSet(a.At(0), toks, vm.Value{}, true), nil
	})
}

func jsonExtract(th *vm.Thread, a vm.Args) (vm.Value, error) {
	if a.Len() < 1 {
		return vm.Value{}, vm.Throwf("json_extract requires at least 1 argument: text")
	}
	body := extractJSONText(a.Text(0))
	v, err := ParseOn(th, body)
	if e, stopped := err.(*vm.Error); stopped {
		return vm.Value{}, e
	}
	if err != nil {
		return vm.Value{}, vm.Throwf("json_extract: failed to parse JSON: %s", err.Error())
	}
	if !a.Given(1) {
		return v, nil
	}
	key := a.Text(1)
	d, ok := v.AsDict()
	if !ok {
		return vm.Value{}, vm.Throwf("json_extract: parsed value is not a dict, cannot extract key")
	}
	val, ok := d.Get(key)
	if !ok {
		return vm.Value{}, vm.Throwf("json_extract: key '%s' not found", key)
	}
	return val, nil
}

// extractJSONText finds the JSON inside free text: the body of the first
// code fence, else the first balanced {…}, else the first balanced […],
// else the whole text, trimmed.
func extractJSONText(text string) string {
	if i := strings.Index(text, "```"); i >= 0 {
		rest := text[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
			if j := strings.Index(rest, "```"); j >= 0 {
				rest = rest[:j]
			}
			return strings.TrimSpace(rest)
		}
	}
	if s, ok := balancedSpan(text, '{', '}'); ok {
		return s
	}
	if s, ok := balancedSpan(text, '[', ']'); ok {
		return s
	}
	return strings.TrimSpace(text)
}

// balancedSpan returns the first open…close span whose brackets balance,
// ignoring brackets inside JSON strings.
func balancedSpan(text string, open, close byte) (string, bool) {
	start := strings.IndexByte(text, open)
	if start < 0 {
		return "", false
	}
	depth := 0
	inStr, esc := false, false
	for i := start; i < len(text); i++ {
		c := text[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return text[start : i+1], true
			}
		}
	}
	return "", false
}

// ParsePointer splits an RFC 6901 pointer into unescaped reference tokens.
func ParsePointer(name string, p vm.Value) ([]string, error) {
	if _, ok := p.AsString(); !ok {
		// a number is most often an index or key meant as a pointer to it;
		// its display form "5" would only be refused for lacking the '/'
		hint := ""
		if _, isInt := p.AsInt(); isInt {
			hint = fmt.Sprintf(` (the pointer to index or key %s is "/%s")`, vm.ToDisplay(p), vm.ToDisplay(p))
		}
		return nil, vm.Throwf("%s: pointer must be a string, got %s%s", name, p.Type(), hint)
	}
	s := vm.ToDisplay(p)
	if s == "" {
		return nil, nil
	}
	if s[0] != '/' {
		return nil, vm.Throwf("%s: pointer must be empty or start with '/'", name)
	}
	parts := strings.Split(s[1:], "/")
	for i, part := range parts {
		if !strings.Contains(part, "~") {
			continue
		}
		var sb strings.Builder
		for j := 0; j < len(part); j++ {
			if part[j] != '~' {
				sb.WriteByte(part[j])
				continue
			}
			if j+1 >= len(part) {
				return nil, vm.Throwf("%s: dangling '~' in pointer", name)
			}
			switch part[j+1] {
			case '0':
				sb.WriteByte('~')
			case '1':
				sb.WriteByte('/')
			default:
				r, _ := utf8.DecodeRuneInString(part[j+1:])
				return nil, vm.Throwf("%s: invalid escape '~%c' in pointer", name, r)
			}
			j++
		}
		parts[i] = sb.String()
	}
	return parts, nil
}

// pointerIndex parses a list index token: decimal, no leading zeros.
func pointerIndex(tok string) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if !lib.ASCIIDigit(tok[i]) {
			return 0, false
		}
	}
	n, err := strconv.Atoi(tok)
	return n, err == nil
}

func PointerStep(cur vm.Value, tok string) (vm.Value, bool) {
	switch c := cur.Object().(type) {
	case *vm.Dict:
		return c.Get(tok)
	case *vm.StructValue:
		return c.Get(tok)
	case *vm.List:
		i, ok := pointerIndex(tok)
		if !ok || i >= c.Len() {
			return vm.Value{}, false
		}
		return c.At(i), true
	}
	return vm.Value{}, false
}

// pointerSet returns cur with the value at toks replaced by v (or removed
// when del); a path that cannot be followed leaves cur unchanged.
func pointerSet(cur vm.Value, toks []string, v vm.Value, del bool) vm.Value {
	if len(toks) == 0 {
		return v
	}
	tok, last := toks[0], len(toks) == 1
	switch c := cur.Object().(type) {
	case *vm.Dict:
		if last {
			if del {
				return vm.Of(c.Delete(tok))
			}
			return vm.Of(c.Set(tok, v))
		}
		child, ok := c.Get(tok)
		if !ok {
			return cur
		}
		return vm.Of(c.Set(tok, pointerSet(child, toks[1:], v, del)))
	case *vm.StructValue:
		child, ok := c.Get(tok)
		if last {
			if del {
				if !ok {
					return cur
				}
				out := &vm.StructValue{Name: c.Name}
				for _, f := range c.Fields {
					if f.Name != tok {
						out.Fields = append(out.Fields, f)
					}
				}
				return vm.Of(out)
			}
			return vm.Of(c.With(tok, v))
		}
		if !ok {
			return cur
		}
		return vm.Of(c.With(tok, pointerSet(child, toks[1:], v, del)))
	case *vm.List:
		n := c.Len()
		if last && !del && (tok == "-" || tok == strconv.Itoa(n)) {
			return vm.Of(c.Push(v))
		}
		i, ok := pointerIndex(tok)
		if !ok || i >= n {
			return cur
		}
		if last {
			if del {
				items := make([]vm.Value, 0, n-1)
				items = append(items, c.Items()[:i]...)
				items = append(items, c.Items()[i+1:]...)
				return vm.Of(vm.NewList(items))
			}
			return vm.Of(c.With(i, v))
		}
		return vm.Of(c.With(i, pointerSet(c.At(i), toks[1:], v, del)))
	}
	return cur
}

package streams

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/vm"
)

// The event-stream format of the WHATWG HTML standard ("Server-sent
// events"): lines end in CRLF, LF or CR; a line starting with ":" is a
// comment; `field: value` lines set event, data, id or retry; a blank
// line dispatches the event.

// sseEvent is one dispatched event. id is the last event ID in force
// (it carries over from earlier events, as in a browser); retry is set
// only when the event's own block held a valid retry field.
type sseEvent struct {
	event, data, id string
	retry           int64 // -1: none
}

func (e sseEvent) value() vm.Value {
	retry := vm.Nil
	if e.retry >= 0 {
		retry = vm.IntOf(e.retry)
	}
	return vm.Of(lib.DictOf("event", vm.Str(e.event), "data", vm.Str(e.data), "id", vm.Str(e.id), "retry", retry))
}

// sseParser turns event-stream text into events.
type sseParser struct {
	data      strings.Builder
	hasData   bool
	event     string
	lastID    string
	retry     int64
	started   bool
	pendingCR bool
	line      strings.Builder
}

func newSSEParser() *sseParser { return &sseParser{retry: -1} }

// feed reads r to its end, calling emit for every dispatched event. An
// unterminated last block is dropped, as the standard says.
func (p *sseParser) feed(r io.Reader, emit func(sseEvent)) error {
	br := bufio.NewReader(r)
	for {
		c, err := br.ReadByte()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		p.byte(c, emit)
	}
}

// parseText is feed over a string.
func (p *sseParser) parseText(s string, emit func(sseEvent)) {
	for i := 0; i < len(s); i++ {
		p.byte(s[i], emit)
	}
}

func (p *sseParser) byte(c byte, emit func(sseEvent)) {
	if p.pendingCR {
		p.pendingCR = false
		if c == '\n' {
			return
		}
	}
	switch c {
	case '\r':
		p.pendingCR = true
		p.endLine(emit)
	case '\n':
		p.endLine(emit)
	default:
		p.line.WriteByte(c)
	}
}

func (p *sseParser) endLine(emit func(sseEvent)) {
	line := p.line.String()
	p.line.Reset()
	if !p.started {
		p.started = true
		line = strings.TrimPrefix(line, "\uFEFF")
	}
	if line == "" {
		p.dispatch(emit)
		return
	}
	if line[0] == ':' {
		return
	}
	field, value := line, ""
	if i := strings.IndexByte(line, ':'); i >= 0 {
		field, value = line[:i], line[i+1:]
		value = strings.TrimPrefix(value, " ")
	}
	switch field {
	case "event":
		p.event = value
	case "data":
		if p.hasData {
			p.data.WriteByte('\n')
		}
		p.data.WriteString(value)
		p.hasData = true
	case "id":
		if !strings.ContainsRune(value, 0) {
			p.lastID = value
		}
	case "retry":
		if n, err := strconv.ParseInt(value, 10, 64); err == nil && n >= 0 && value != "" && value[0] != '+' {
			p.retry = n
		}
	}
}

func (p *sseParser) dispatch(emit func(sseEvent)) {
	if p.hasData {
		ev := p.event
		if ev == "" {
			ev = "message"
		}
		emit(sseEvent{event: ev, data: p.data.String(), id: p.lastID, retry: p.retry})
	} else if p.retry >= 0 {
		// a block with only a retry field changes the reconnection delay
		emit(sseEvent{retry: p.retry, event: ""})
	}
	p.data.Reset()
	p.hasData = false
	p.event = ""
	p.retry = -1
}

// formatEvent writes one event as event-stream text, ending in the blank
// line that dispatches it. fields is a dict of data, event, id, retry
// and comment, or a string (the data).
func formatEvent(name string, v vm.Value) (string, error) {
	var sb strings.Builder
	if s, ok := v.AsString(); ok {
		writeData(&sb, s.Go())
		sb.WriteByte('\n')
		return sb.String(), nil
	}
	d, ok := v.AsDict()
	if !ok {
		return "", vm.Typef("%s: event must be a dict or a string, got %s", name, v.Type())
	}
	if err := checkKeys(name, d, "data", "event", "id", "retry", "comment"); err != nil {
		return "", err
	}
	wrote := false
	if c, ok := opt(d, "comment"); ok {
		for _, l := range splitLines(vm.ToDisplay(c)) {
			sb.WriteString(":")
			if l != "" {
				sb.WriteString(" ")
				sb.WriteString(l)
			}
			sb.WriteByte('\n')
		}
		wrote = true
	}
	for _, f := range []string{"id", "event"} {
		x, ok := opt(d, f)
		if !ok {
			continue
		}
		s := vm.ToDisplay(x)
		if strings.ContainsAny(s, "\r\n") {
			return "", vm.Throwf("%s: %s must not contain a line break", name, f)
		}
		if f == "id" && strings.ContainsRune(s, 0) {
			return "", vm.Throwf("%s: id must not contain a NUL character", name)
		}
		sb.WriteString(f)
		sb.WriteString(": ")
		sb.WriteString(s)
		sb.WriteByte('\n')
		wrote = true
	}
	if r, ok := opt(d, "retry"); ok {
		n, isInt := r.AsInt()
		if !isInt {
			if dur, isDur := r.AsDuration(); isDur {
				n, isInt = vm.Int(dur), true
			}
		}
		if !isInt {
			return "", vm.Typef("%s: retry must be an int (milliseconds) or a duration, got %s", name, r.Type())
		}
		if n < 0 {
			return "", vm.Throwf("%s: retry must not be negative, got %d", name, n)
		}
		sb.WriteString("retry: ")
		sb.WriteString(strconv.FormatInt(int64(n), 10))
		sb.WriteByte('\n')
		wrote = true
	}
	if x, ok := d.Get("data"); ok {
		var s string
		switch {
		case x.IsNil():
			s = ""
		case x.Kind() == vm.KString:
			s = vm.ToDisplay(x)
		case x.Kind() == vm.KDict || x.Kind() == vm.KList:
			s = json.Stringify(x)
		default:
			s = vm.ToDisplay(x)
		}
		writeData(&sb, s)
		wrote = true
	}
	if !wrote {
		return "", vm.Throwf("%s: an event needs at least one of data, event, id, retry, comment", name)
	}
	sb.WriteByte('\n')
	return sb.String(), nil
}

func writeData(sb *strings.Builder, s string) {
	for _, l := range splitLines(s) {
		sb.WriteString("data: ")
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
}

// splitLines splits at CRLF, LF and CR (a field value cannot hold one).
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}

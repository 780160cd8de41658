package orchestrator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
)

// Event payloads keep their numbers as received (docs/orchestrator.md,
// "Numbers in events"): every event, envelope, DLQ entry and outbox
// record is read back with its numbers as json.Number, whose text
// encoding/json writes again unchanged. Read as float64, 9007199254740993
// came back as 9007199254740992 and 123.0 as 123, in the log and in the
// handler. A handler reads a json.Number by json_parse's rule
// (docs/spec/builtins.md §3.12): an int when it has no fraction or
// exponent and fits in 64 bits, a float otherwise.

// decodeJSON reads one JSON document (nothing but white space may
// follow it) into v, numbers as json.Number.
func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("invalid character after top-level value")
		}
		return err
	}
	return nil
}

// ParseJSON parses a JSON document with its numbers as json.Number: how
// a payload that comes in as text (a webhook body, `harn orchestrator
// fire --payload`) becomes part of an event.
func ParseJSON(text []byte) (any, error) {
	var v any
	if err := decodeJSON(text, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// A NumberRangeError refuses an event holding a number that no Harn
// value holds: json_parse refuses it ("number out of range"), and a
// handler could never be handed the event. It is refused when the event
// is accepted, before it has an id, rather than dead-lettered on every
// attempt.
type NumberRangeError struct {
	Path   string // where in the event, e.g. payload.ms
	Number string // the number's text
}

func (e *NumberRangeError) Error() string {
	return fmt.Sprintf("event not accepted: %s: number %s is out of range (a handler reads a JSON number as a 64-bit int or a finite float)", e.Path, e.Number)
}

// checkNumbers reports the first number of an event (in key order) that
// is out of a float's range.
func checkNumbers(event map[string]any) error { return checkNumber(event, "") }

func checkNumber(v any, path string) error {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return nil
		}
		if f, _ := strconv.ParseFloat(string(x), 64); math.IsInf(f, 0) {
			return &NumberRangeError{Path: path, Number: string(x)}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if err := checkNumber(x[k], sub); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := checkNumber(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

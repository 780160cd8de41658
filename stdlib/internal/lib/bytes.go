package lib

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/harnlang/harn/vm"
)

// Bytes is the library's byte-string value kind (docs/spec/builtins.md §1); every
// area that reads or returns binary data shares it.

// Bytes is an immutable byte string (type_of "bytes").
type Bytes struct {
	data []byte
}

// NewBytes wraps b; the caller must not modify it afterwards.
func NewBytes(b []byte) *Bytes { return &Bytes{data: b} }

// Data returns the bytes. The slice must not be modified.
func (b *Bytes) Data() []byte { return b.data }

func (*Bytes) Type() string  { return "bytes" }
func (b *Bytes) Truth() bool { return len(b.data) > 0 }

// Display is `b"` + hex of the first 32 bytes + `...+N` for the rest + `"`.
func (b *Bytes) Display(sb *strings.Builder) {
	sb.WriteString(`b"`)
	head := b.data
	if len(head) > 32 {
		head = head[:32]
	}
	sb.WriteString(hex.EncodeToString(head))
	if n := len(b.data) - len(head); n > 0 {
		sb.WriteString("...+")
		sb.WriteString(strconv.Itoa(n))
	}
	sb.WriteByte('"')
}

// EqualTo compares content.
func (b *Bytes) EqualTo(o vm.Value) bool {
	c, ok := o.Object().(*Bytes)
	return ok && string(b.data) == string(c.data)
}

// KeyBytes is the structural key `b<lower hex>;`.
func (b *Bytes) KeyBytes() string { return "b" + hex.EncodeToString(b.data) + ";" }

// IsBytes reports whether v is a bytes value.
func IsBytes(v vm.Value) bool {
	_, ok := v.Object().(*Bytes)
	return ok
}

// BytesOf is the content of a bytes value or a string; ok is false for
// any other kind.
func BytesOf(v vm.Value) ([]byte, bool) {
	if b, ok := v.Object().(*Bytes); ok {
		return b.Data(), true
	}
	if s, ok := v.AsString(); ok {
		return []byte(s.Go()), true
	}
	return nil, false
}

// Secret is the key argument of a signing or verifying builtin: a
// non-empty string or bytes. Display coercion (docs/spec/builtins.md §0)
// would turn a nil secret (an unset env var) into the key "nil", which
// anyone can guess, so anything else is a type error.
func Secret(fn, what string, v vm.Value) ([]byte, error) {
	b, ok := BytesOf(v)
	if !ok || len(b) == 0 {
		return nil, vm.Typef("%s: %s must be a non-empty string or bytes, got %s", fn, what, describe(v))
	}
	return b, nil
}

// Message is the signed data argument of a signing or verifying builtin:
// a string or bytes (empty allowed), never the display form of nil.
func Message(fn, what string, v vm.Value) ([]byte, error) {
	b, ok := BytesOf(v)
	if !ok {
		return nil, vm.Typef("%s: %s must be a string or bytes, got %s", fn, what, v.Type())
	}
	return b, nil
}

// describe names a bad secret's type, or "empty string"/"empty bytes".
func describe(v vm.Value) string {
	if b, ok := BytesOf(v); ok && len(b) == 0 {
		return "empty " + v.Type()
	}
	return v.Type()
}

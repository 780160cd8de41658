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

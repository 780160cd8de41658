//go:build !harnlite

package encoding

import (
	"hash"

	"github.com/zeebo/blake3"
)

// blake3 is the one digest the lite harn leaves out: its library detects
// the CPU's features when the process starts (docs/architecture.md,
// "Start-up").
func init() {
	digest("blake3", func() hash.Hash { return blake3.New() })
}

//go:build !unix

package sqlite

// walIndex is not mapped on this system: Generation reports that the
// log cannot tell, and callers read.
type walIndex struct{}

const walHeaderWords = 24

func openWALIndex(string) *walIndex                { return nil }
func (*walIndex) header(h *[walHeaderWords]uint32) {}
func (*walIndex) mapped() bool                     { return false }
func (*walIndex) frames() (max, backfilled uint32) { return 0, 0 }
func (*walIndex) close() error                     { return nil }

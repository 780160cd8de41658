//go:build !linux

package console

import "os"

// fileIsTerminal reports whether f is a character device, the portable
// approximation of isatty.
func fileIsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

package console

import (
	"os"

	"golang.org/x/sys/unix"
)

// fileIsTerminal reports whether f is a terminal (the termios query
// succeeds only on terminals, unlike a character-device check, which
// /dev/null would pass).
func fileIsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

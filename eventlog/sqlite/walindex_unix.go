//go:build unix

package sqlite

import (
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// walIndex is a read-only mapping of the log's WAL-index (the -shm file
// next to it; https://www.sqlite.org/walformat.html). Its first 96 bytes
// are the index header, twice; every commit, by any connection of any
// process, rewrites it (the frame count, frame checksum and change
// counter move; a WAL restart changes the salts) before the commit
// returns. Comparing the header with an earlier copy therefore tells
// whether anything was committed since, without a query.
//
// The mapping is made once the log's own connections have the WAL-index
// open: SQLite only truncates the file when it opens it as its first
// user, which cannot happen while those connections live.
type walIndex struct{ mem []byte }

// walHeaderWords is the two copies of the index header, in 32-bit words.
const walHeaderWords = 24

func openWALIndex(dbPath string) *walIndex {
	f, err := os.Open(dbPath + "-shm")
	if err != nil {
		return nil
	}
	defer f.Close()
	const size = 4096
	if st, err := f.Stat(); err != nil || st.Size() < size {
		return nil
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return &walIndex{mem: mem}
}

// header copies the index header. A copy taken while a commit rewrites
// it may mix old and new words; it then differs from both, which only
// costs the caller a read.
func (w *walIndex) header(h *[walHeaderWords]uint32) {
	for i := range h {
		h[i] = atomic.LoadUint32((*uint32)(unsafe.Pointer(&w.mem[4*i])))
	}
}

func (w *walIndex) close() error { return syscall.Munmap(w.mem) }

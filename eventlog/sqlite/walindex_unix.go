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
// user, which cannot happen while those connections live. Those
// connections' claim is a POSIX record lock, and POSIX drops every lock
// a process holds on a file when any of its descriptors for that file is
// closed: the descriptor opened here therefore stays open until the
// connections have closed (Log.Close). Closing it at once let another
// process, starting up, find the WAL-index unclaimed and truncate it
// under this process's connections, whose next commit then failed with
// SQLITE_IOERR_IN_PAGE.
type walIndex struct {
	mem []byte
	f   *os.File
}

// walHeaderWords is the two copies of the index header, in 32-bit words.
const walHeaderWords = 24

func openWALIndex(dbPath string) *walIndex {
	f, err := os.Open(dbPath + "-shm")
	if err != nil {
		return nil
	}
	const size = 4096
	var mem []byte
	if st, err := f.Stat(); err == nil && st.Size() >= size {
		mem, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			mem = nil
		}
	}
	// f stays open even when nothing was mapped: its close would drop
	// the connections' locks (see walIndex)
	return &walIndex{mem: mem, f: f}
}

// header copies the index header. A copy taken while a commit rewrites
// it may mix old and new words; it then differs from both, which only
// costs the caller a read.
// mapped reports whether the index header can be read.
func (w *walIndex) mapped() bool { return w.mem != nil }

func (w *walIndex) header(h *[walHeaderWords]uint32) {
	for i := range h {
		h[i] = atomic.LoadUint32((*uint32)(unsafe.Pointer(&w.mem[4*i])))
	}
}

// The WAL's size and progress, as 32-bit words of the WAL-index: the
// header's mxFrame (frames in the WAL since it last started over) and,
// after the header's two copies, the checkpoint information's nBackfill
// (how many of those frames a checkpoint has copied into the database).
const (
	walMaxFrameWord = 4
	walBackfillWord = walHeaderWords
)

// frames reads the WAL's frame count and how many of them were
// checkpointed. They are read apart, so they may belong to different
// moments: callers only use them to decide when to checkpoint.
func (w *walIndex) frames() (max, backfilled uint32) {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&w.mem[4*walMaxFrameWord]))),
		atomic.LoadUint32((*uint32)(unsafe.Pointer(&w.mem[4*walBackfillWord])))
}

// close unmaps the index and closes its descriptor: call it after the
// log's connections have closed.
func (w *walIndex) close() error {
	var err error
	if w.mem != nil {
		err = syscall.Munmap(w.mem)
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Package atomicfile owns the file operations the library's small
// persistent stores share (stdlib/checkpoints, stdlib/project's metadata,
// stdlib/evals' run records): replacing a file atomically and holding an
// exclusive lock on its directory across processes (and, with
// CreateAndLockDir, across this process's goroutines too).
package atomicfile

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// dirMutexes serialises the writers of one directory within this
// process (VMs of one process may share a state root); each takes the
// directory's mutex before its flock.
var dirMutexes sync.Map // dir → *sync.Mutex

// CreateAndLockDir creates dir (and its parents) and holds it for one
// writer: the other goroutines of this process wait on a mutex, other
// processes on LockDir's flock. unlock releases both.
func CreateAndLockDir(dir string) (unlock func(), err error) {
	m, _ := dirMutexes.LoadOrStore(dir, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		mu.Unlock()
		return nil, err
	}
	release, err := LockDir(dir)
	if err != nil {
		mu.Unlock()
		return nil, err
	}
	return func() {
		release()
		mu.Unlock()
	}, nil
}

// LockDir takes an exclusive flock on dir, waiting for other processes.
func LockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Write replaces path with data: a temporary file in the same
// directory, synced, then renamed over path, and the directory synced so
// the rename survives a crash.
func Write(path string, data []byte) error {
	return WriteMode(path, data, 0o644)
}

// WriteMode is Write giving the new file permissions mode.
func WriteMode(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		done = true
		return err
	}
	done = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

//go:build unix

package vm_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) the process has used: on a
// loaded machine it measures work where wall-clock time measures waiting.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

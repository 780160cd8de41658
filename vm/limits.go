package vm

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// maxMemory is the ceiling on one allocation a script asks for (a string
// repeated or padded, a list or range materialised, the slots of a
// `parallel N`). Builtins check a size against it before allocating, so a
// huge count is a catchable "out of memory" error instead of a Go crash.
// HARN_MAX_MEMORY (bytes, or with a K/M/G suffix) sets it; SetMaxMemory
// overrides it for `--max-memory`.
var maxMemory atomic.Int64

// defaultMaxMemory is used when HARN_MAX_MEMORY is unset: 4 GiB, well
// below what a 64-bit process can address and above any ordinary script.
const defaultMaxMemory = 4 << 30

func init() {
	n := int64(defaultMaxMemory)
	if s := os.Getenv("HARN_MAX_MEMORY"); s != "" {
		if v, err := ParseByteSize(s); err == nil && v > 0 {
			n = v
		}
	}
	maxMemory.Store(n)
}

// SetMaxMemory sets the allocation ceiling (bytes); n <= 0 restores the default.
func SetMaxMemory(n int64) {
	if n <= 0 {
		n = defaultMaxMemory
	}
	maxMemory.Store(n)
}

// MaxMemory returns the allocation ceiling in bytes.
func MaxMemory() int64 { return maxMemory.Load() }

// ParseByteSize reads "1048576", "512K", "64M", "2G" (powers of 1024).
func ParseByteSize(s string) (int64, error) {
	s = strings.TrimSuffix(strings.TrimSpace(strings.ToUpper(s)), "B")
	mult := int64(1)
	if s != "" {
		if i := strings.IndexByte("KMGT", s[len(s)-1]); i >= 0 {
			s, mult = s[:len(s)-1], int64(1)<<(10*(i+1))
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	if v > (1<<62)/mult {
		return 1 << 62, nil
	}
	return v * mult, nil
}

// CheckAlloc returns a catchable error when count items of size bytes
// each (count may be any int64, negative counts are fine: they allocate
// nothing) would exceed the allocation ceiling. what names the operation
// for the message, e.g. "repeat".
func CheckAlloc(what string, count, size int64) error {
	if count <= 0 || size <= 0 {
		return nil
	}
	limit := maxMemory.Load()
	if count > limit/size {
		return Runtimef("out of memory: %s would need %s, over the limit of %s (HARN_MAX_MEMORY)",
			what, byteSize(count, size), FormatByteSize(limit))
	}
	return nil
}

func byteSize(count, size int64) string {
	if count > (1<<62)/size {
		return "more than 4 EiB"
	}
	return FormatByteSize(count * size)
}

// FormatByteSize prints a size in the largest whole binary unit.
func FormatByteSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + units[i]
}

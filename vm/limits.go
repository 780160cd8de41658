package vm

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// maxMemory is the memory ceiling, in two parts:
//
//   - one allocation a script asks for (a string repeated or padded, a list
//     or range materialised, the slots of a `parallel N`): builtins check
//     its size first (CheckAlloc), so a huge count is a catchable "out of
//     memory" error instead of a Go crash;
//   - the heap as a whole, grown by many small steps (`xs = xs.push(x)`,
//     `s += t`, `d[k] = v` in a loop): the collection types report their
//     growth (noteGrowth), every so many bytes the heap is sampled, and
//     once it is over the ceiling the next interrupt check of a running
//     thread raises the same catchable error (checkMemory).
//
// HARN_MAX_MEMORY (bytes, or with a K/M/G suffix) sets it; SetMaxMemory
// overrides it for `--max-memory`. The ceiling is per process: the heap is.
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
	noteGrowth(count * size)
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

// Growth accounting for the heap ceiling. The counter only decides when to
// look: the figure compared with the ceiling is the Go heap itself, read
// with runtime.ReadMemStats. That stops the world for some microseconds,
// once per sampleEvery bytes grown; runtime/metrics would read it more
// cheaply, but its package init costs every start of harn more than the
// samples of a whole run (docs/architecture.md, Start-up).
var (
	grown    atomic.Int64 // bytes of growth reported since the last sample
	heapOver atomic.Bool  // the last sample found the heap over the ceiling
	sampling sync.Mutex
)

// noteGrowth records that a list, dict, set or string is about to grow by
// n bytes. It is one atomic add on the growth paths that allocate (not on
// an append that fits the spare capacity), and a heap sample every
// sampleEvery bytes.
func noteGrowth(n int64) {
	if grown.Add(n) >= sampleEvery() {
		sampleHeap()
	}
}

// sampleEvery is a 32nd of the ceiling, between 256 KiB and 64 MiB: at the
// 4 GiB default one sample per 64 MiB grown.
func sampleEvery() int64 {
	return min(max(maxMemory.Load()>>5, 256<<10), 64<<20)
}

func sampleHeap() {
	if !sampling.TryLock() {
		return // another thread is looking right now
	}
	defer sampling.Unlock()
	grown.Store(0)
	if heapBytes() > maxMemory.Load() {
		heapOver.Store(true)
	}
}

// heapBytes is the heap held by objects, live or not yet swept.
// The caller holds sampling.
func heapBytes() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// largeValue is the size from which building one value out of others
// checks the ceiling at once (checkJoin).
const largeValue = 1 << 20

// checkJoin is the ceiling's check for an operation that builds a value
// of count items of size bytes out of others (s + t, xs + ys, [...xs,
// ...ys]). A loop that doubles a value (s = s + s) passes any ceiling in a
// few dozen iterations, too few to reach the interrupt check, which runs
// every 1024 jumps or calls; a small value is left to that check.
func checkJoin(what string, count, size int64) error {
	if count*size < largeValue {
		return nil
	}
	// Not CheckAlloc: the growth is counted where the value reallocates,
	// and an append that fits its spare capacity allocates nothing.
	if limit := maxMemory.Load(); count > limit/size {
		return Runtimef("out of memory: %s would need %s, over the limit of %s (HARN_MAX_MEMORY)",
			what, byteSize(count, size), FormatByteSize(limit))
	}
	return checkMemory()
}

// checkMemory is the ceiling's part of the interrupt check (stopErr): one
// atomic load while the heap is under it. After a sample found it over, the
// first thread to check collects garbage and, if the heap is still over,
// gets the error; catching it lets the thread drop what it built.
func checkMemory() error {
	if !heapOver.Load() || !heapOver.CompareAndSwap(true, false) {
		return nil
	}
	sampling.Lock()
	defer sampling.Unlock()
	runtime.GC()
	n, limit := heapBytes(), maxMemory.Load()
	if n <= limit {
		return nil
	}
	return Runtimef("out of memory: the heap holds %s, over the limit of %s (HARN_MAX_MEMORY)", FormatByteSize(n), FormatByteSize(limit))
}

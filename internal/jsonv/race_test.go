//go:build race

package jsonv

// raceEnabled: the race detector makes sync.Pool drop items at random,
// so allocation counts that rely on the pool do not hold.
const raceEnabled = true

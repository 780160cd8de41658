//go:build race

package vm

// raceEnabled: the race detector instruments allocations, so tests that
// count them skip.
const raceEnabled = true

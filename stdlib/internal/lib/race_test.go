//go:build race

package lib

// raceEnabled: the race detector instruments allocations, so allocation
// counts do not hold under it.
const raceEnabled = true

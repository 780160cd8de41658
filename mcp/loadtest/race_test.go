//go:build race

package loadtest

// raceEnabled: the race detector makes sync.Pool drop items at random
// (encoding/json keeps its scanners in one), so allocation counts do not
// hold under it.
const raceEnabled = true

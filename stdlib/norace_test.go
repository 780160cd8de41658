//go:build !race

package stdlib

const raceEnabled = false

//go:build race

package stdlib

const raceEnabled = true

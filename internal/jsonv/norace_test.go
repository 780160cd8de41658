//go:build !race

package jsonv

const raceEnabled = false

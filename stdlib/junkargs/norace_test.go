//go:build !race

package junkargs_test

const raceEnabled = false

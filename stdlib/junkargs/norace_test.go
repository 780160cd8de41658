//go:build !race

package junkargs_test

const raceEnabled = false

// raceSlowdown scales confirmBudget.
const raceSlowdown = 1

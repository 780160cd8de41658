//go:build race

package junkargs_test

// raceEnabled: the race detector slows every call several times, so the
// sweeps sample their matrices (see argLists, TestBuiltinsWithMutatedExamples).
const raceEnabled = true

// raceSlowdown scales confirmBudget.
const raceSlowdown = 3

//go:build race

package junkargs_test

// raceEnabled: the race detector slows every call several times, so the
// sweeps sample their matrices (see argLists, TestBuiltinsWithMutatedExamples).
const raceEnabled = true

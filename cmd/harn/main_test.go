package main

import (
	"os"
	"testing"

	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
)

// TestMain lets tests run the harn command as a subprocess: the test
// binary re-executed with HARN_TEST_MAIN=1 behaves as `harn`. The tests
// of several `harn mcp serve` nodes get a throwaway PostgreSQL from
// pgtest (they skip without one, and fail under CI).
func TestMain(m *testing.M) {
	if os.Getenv("HARN_TEST_MAIN") == "1" {
		if path := os.Getenv(soakStatsEnv); path != "" {
			go writeSoakStats(path)
		}
		main()
		return
	}
	os.Exit(pgtest.Main(m))
}

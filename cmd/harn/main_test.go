package main

import (
	"os"
	"testing"
)

// TestMain lets tests run the harn command as a subprocess: the test
// binary re-executed with HARN_TEST_MAIN=1 behaves as `harn`.
func TestMain(m *testing.M) {
	if os.Getenv("HARN_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

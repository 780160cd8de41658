package vm

import (
	"math"
	"testing"
)

// A duration shows in the largest unit that divides it exactly.
func TestFormatDuration(t *testing.T) {
	for ms, want := range map[int64]string{
		0: "0ms", 1: "1ms", 1500: "1500ms", 2000: "2s", 90_000: "90s", 120_000: "2m",
		3_600_000: "1h", 86_400_000: "1d", 90_000_000: "25h", 1_209_600_000: "2w", -60_000: "-1m",
		math.MinInt64: "-9223372036854775808ms", math.MaxInt64: "9223372036854775807ms",
	} {
		if got := FormatDuration(ms); got != want {
			t.Errorf("FormatDuration(%d) = %s, want %s", ms, got, want)
		}
	}
}

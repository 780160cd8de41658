package time

import (
	"testing"
	"time"
)

// naiveBusinessDaysAhead walks one day at a time, as std/calendar's
// add_business_days did before whole cycles were skipped.
func naiveBusinessDaysAhead(day, n int64) int64 {
	if n < 0 {
		return walkBusinessDays(day, -1, -n)
	}
	return walkBusinessDays(day, 1, n)
}

func TestBusinessDaysAheadMatchesWalk(t *testing.T) {
	start := civilDay(time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC))
	c := cycleBusinessDays()
	for _, n := range []int64{0, 1, 4, 5, 6, 10, 250, 261, -1, -5, -261, c - 1, c, c + 1, 2*c + 7, -c, -c - 3} {
		for _, d := range []int64{start, start + 5, start + 6, -800000} {
			if got, want := businessDaysAhead(d, n), naiveBusinessDaysAhead(d, n); got != want {
				t.Errorf("businessDaysAhead(%d, %d) = %d, want %d", d, n, got, want)
			}
		}
	}
}

func TestCycleBusinessDaysIsPeriodic(t *testing.T) {
	// any cycleDays consecutive days hold the same number of business days
	hols := map[int]map[int64]bool{}
	for _, from := range []int64{0, -12345, 987654} {
		var n int64
		for d := from; d < from+cycleDays; d++ {
			if isBusinessDay(d, hols) {
				n++
			}
		}
		if n != cycleBusinessDays() {
			t.Errorf("business days in the cycle from day %d = %d, want %d", from, n, cycleBusinessDays())
		}
	}
}

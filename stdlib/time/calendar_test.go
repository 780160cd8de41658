package time

import (
	"testing"
	"time"
)

// naiveBusinessDaysAhead walks one day at a time, as std/calendar's
// add_business_days did before whole cycles were skipped.
func naiveBusinessDaysAhead(day, n int64) int64 {
	step, left := int64(1), n
	if n < 0 {
		step, left = -1, -n
	}
	hols := map[int]map[int64]bool{}
	for left > 0 {
		day += step
		if isBusinessDay(day, hols) {
			left--
		}
	}
	return day
}

func TestBusinessDaysAheadMatchesWalk(t *testing.T) {
	start := civilDay(time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC))
	c := cycleBusinessDays()[2]
	old := cycleBusinessDays()[0]
	for _, n := range []int64{0, 1, 4, 5, 6, 10, 250, 261, -1, -5, -261, c - 1, c, c + 1, 2*c + 7, -c, -c - 3, -2*c - 11, old + 5, -old - 5} {
		// 2024, the eras' boundaries, and days far before them (the walk
		// crosses the 1986 and 2021 rule changes both ways)
		for _, d := range []int64{start, start + 5, start + 6, eraStarts[0], eraStarts[1] - 1, -800000, -200000} {
			if got, want := businessDaysAhead(d, n), naiveBusinessDaysAhead(d, n); got != want {
				t.Errorf("businessDaysAhead(%d, %d) = %d, want %d", d, n, got, want)
			}
		}
	}
}

func TestCycleBusinessDaysIsPeriodic(t *testing.T) {
	// any cycleDays consecutive days of one era hold the same number of
	// business days
	hols := map[int]map[int64]bool{}
	for _, from := range []int64{-12345 - cycleDays, -800000, eraStarts[1], eraStarts[1] + 987654} {
		var n int64
		for d := from; d < from+cycleDays; d++ {
			if isBusinessDay(d, hols) {
				n++
			}
		}
		if want := cycleBusinessDays()[eraOf(from)]; n != want {
			t.Errorf("business days in the cycle from day %d = %d, want %d", from, n, want)
		}
	}
}

func TestHolidayEras(t *testing.T) {
	names := func(y int) map[string]bool {
		out := map[string]bool{}
		for _, h := range usFederal(y) {
			out[h.name] = true
		}
		return out
	}
	if names(2020)["Juneteenth National Independence Day"] || !names(2021)["Juneteenth National Independence Day"] {
		t.Error("Juneteenth is a federal holiday from 2021")
	}
	if names(1985)["Martin Luther King Jr. Day"] || !names(1986)["Martin Luther King Jr. Day"] {
		t.Error("Martin Luther King Jr. Day is a federal holiday from 1986")
	}
}

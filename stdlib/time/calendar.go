package time

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The calendar primitives behind std/calendar (docs/spec/newer.md §2.17). Instants
// are Unix seconds; calendar fields are read in a zone (UTC by default).
// Weeks start on Monday and ranges are half-open: end_of_X is the first
// instant of the next X. The only holiday calendar is US-FEDERAL (the
// actual dates, not the observed ones; Martin Luther King Jr. Day from
// 1986 and Juneteenth from 2021).

func init() {
	lib.Def("__calendar_parts", "__calendar_parts(ts, tz?)", "std/calendar parts", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := calTime("parts", a, 0, 1)
		if err != nil {
			return vm.Value{}, err
		}
		y, w := t.ISOWeek()
		return vm.Of(lib.DictOf("year", lib.IntOf(t.Year()), "month", lib.IntOf(int(t.Month())), "day", lib.IntOf(t.Day()),
			"hour", lib.IntOf(t.Hour()), "minute", lib.IntOf(t.Minute()), "second", lib.IntOf(t.Second()),
			"weekday", vm.Str(t.Weekday().String()), "iso_weekday", lib.IntOf(isoWeekday(t)),
			"day_of_year", lib.IntOf(t.YearDay()), "iso_year", lib.IntOf(y), "iso_week", lib.IntOf(w),
			"quarter", lib.IntOf(quarterOf(t)), "timezone", vm.Str(t.Location().String()))), nil
	})
	lib.Def("__calendar_boundary", "__calendar_boundary(ts, unit, end, tz?)", "std/calendar start_of_*/end_of_*", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := calTime("boundary", a, 0, 3)
		if err != nil {
			return vm.Value{}, err
		}
		unit := a.Text(1)
		s, ok := startOf(t, unit)
		if !ok {
			return vm.Value{}, vm.Throwf("std/calendar: unknown unit '%s' (expected day, week, month, quarter or year)", unit)
		}
		if a.At(2).Truth() {
			s, _ = addUnits(s, 1, unit)
		}
		return calResult("boundary", s)
	})
	lib.Def("__calendar_add", "__calendar_add(ts, n, unit, tz?)", "std/calendar add_calendar_units", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := calTime("add_calendar_units", a, 0, 3)
		if err != nil {
			return vm.Value{}, err
		}
		n, ok := a.Int(1)
		if !ok {
			return vm.Value{}, vm.Typef("std/calendar: add_calendar_units: n must be an int, got %s", a.At(1).Type())
		}
		unit := a.Text(2)
		least, ok := unitSeconds[unit]
		if !ok {
			return vm.Value{}, vm.Throwf("std/calendar: unknown unit '%s' (expected minute, hour, day, week, month, quarter or year)", unit)
		}
		// n units span at least n*least seconds: beyond the whole range
		// the result cannot fit, and the arithmetic below could overflow
		if n > 2*calMaxSecs/least || n < -2*calMaxSecs/least {
			return vm.Value{}, calRangeError("add_calendar_units", "the result")
		}
		r, _ := addUnits(t, int(n), unit)
		return calResult("add_calendar_units", r)
	})
	lib.Def("__calendar_holidays", "__calendar_holidays(year, calendar)", "std/calendar holidays", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		y, ok := a.Int(0)
		if !ok {
			return vm.Value{}, vm.Typef("std/calendar: holidays: year must be an int, got %s", a.At(0).Type())
		}
		if cal := a.Text(1); cal != "US-FEDERAL" {
			return vm.Value{}, vm.Throwf("std/calendar: unsupported holiday calendar '%s'", cal)
		}
		if y <= calMinYear || y >= calMaxYear {
			return vm.Value{}, vm.Throwf("std/calendar: holidays: year %d is out of range (%d to %d)", y, calMinYear+1, calMaxYear-1)
		}
		var out []vm.Value
		for _, h := range usFederal(int(y)) {
			out = append(out, vm.Of(lib.DictOf("date", vm.Str(h.date.Format("2006-01-02")), "name", vm.Str(h.name))))
		}
		return vm.Of(lib.List(out)), nil
	})
	lib.Def("__calendar_add_business_days", "__calendar_add_business_days(ts, n, calendar, tz?)", "std/calendar add_business_days", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := calTime("add_business_days", a, 0, 3)
		if err != nil {
			return vm.Value{}, err
		}
		n, ok := a.Int(1)
		if !ok {
			return vm.Value{}, vm.Typef("std/calendar: add_business_days: n must be an int, got %s", a.At(1).Type())
		}
		if cal := a.Text(2); cal != "US-FEDERAL" {
			return vm.Value{}, vm.Throwf("std/calendar: unsupported holiday calendar '%s'", cal)
		}
		if n == 0 {
			return a.At(0), nil
		}
		// n business days are at least n days
		if n > 2*calMaxSecs/86400 || n < -2*calMaxSecs/86400 {
			return vm.Value{}, calRangeError("add_business_days", "the result")
		}
		day := civilDay(t)
		days := businessDaysAhead(day, n) - day
		return calResult("add_business_days", t.AddDate(0, 0, int(days)))
	})
	lib.Def("__calendar_local", "__calendar_local(parts, tz, fn)", "std/calendar local_datetime and business_window: date_from_components whose errors name std/calendar's fn", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return fromComponents("std/calendar: "+a.Text(2), a)
	})
	lib.Def("__calendar_valid_cron", "__calendar_valid_cron(expr)", "std/calendar is_valid_cron", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		s, ok := a.Str(0)
		return vm.BoolOf(ok && cronOK(s)), nil
	})
}

// calMaxSecs bounds the instants the calendar reads and returns: those
// whose Unix milliseconds fit in 64 bits, the resolution of a float
// timestamp (about 292 million years either side of 1970). Inside it
// Go's calendar arithmetic cannot overflow; outside it the result would
// wrap to a date hundreds of millions of years away.
const calMaxSecs = math.MaxInt64 / 1000

// calTime reads the instant at argument i in the zone at argument z.
func calTime(fn string, a vm.Args, i, z int) (time.Time, error) {
	var t time.Time
	switch n := a.At(i).Object().(type) {
	case vm.Int:
		if n < -calMaxSecs || n > calMaxSecs {
			return time.Time{}, calRangeError(fn, "timestamp "+a.Text(i))
		}
		t = time.Unix(int64(n), 0)
	case vm.Float:
		f := float64(n)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return time.Time{}, vm.Throwf("std/calendar: %s: timestamp must be a finite number, got %s", fn, a.Text(i))
		}
		if f < -calMaxSecs || f > calMaxSecs {
			return time.Time{}, calRangeError(fn, "timestamp "+strconv.FormatFloat(f, 'g', -1, 64))
		}
		t = floatInstant(f)
	default:
		return time.Time{}, vm.Typef("std/calendar: %s: expected a timestamp (seconds), got %s", fn, a.At(i).Type())
	}
	loc := time.UTC
	if a.Given(z) {
		l, err := loadZone(a.Text(z))
		if err != nil {
			return time.Time{}, vm.Throwf("std/calendar: %s: unknown timezone '%s'", fn, a.Text(z))
		}
		loc = l
	}
	return t.In(loc), nil
}

// calRangeError is the error for a timestamp (what) outside calMaxSecs.
func calRangeError(fn, what string) error {
	return vm.Throwf("std/calendar: %s: %s is out of range (timestamps are limited to ±%d seconds, about 292 million years from 1970)", fn, what, calMaxSecs)
}

// calResult is the Unix seconds of a computed instant, or a range error:
// an int for a whole second, else a float keeping the milliseconds of a
// float timestamp the instant was computed from (as date_add does).
func calResult(fn string, t time.Time) (vm.Value, error) {
	if s := t.Unix(); s < -calMaxSecs || s > calMaxSecs {
		return vm.Value{}, calRangeError(fn, "the result")
	}
	if ms := t.UnixMilli(); ms%1000 != 0 {
		return vm.FloatOf(float64(ms) / 1000), nil
	}
	return vm.IntOf(t.Unix()), nil
}

func isoWeekday(t time.Time) int {
	if t.Weekday() == time.Sunday {
		return 7
	}
	return int(t.Weekday())
}

func quarterOf(t time.Time) int { return (int(t.Month())-1)/3 + 1 }

func startOf(t time.Time, unit string) (time.Time, bool) {
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
	switch unit {
	case "day":
		return day, true
	case "week":
		return day.AddDate(0, 0, -(isoWeekday(t) - 1)), true
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location()), true
	case "quarter":
		return time.Date(t.Year(), time.Month((quarterOf(t)-1)*3+1), 1, 0, 0, 0, 0, t.Location()), true
	case "year":
		return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, t.Location()), true
	}
	return t, false
}

// unitSeconds is the shortest length of each unit of addUnits, in
// seconds (a day may lose an hour to a DST change).
var unitSeconds = map[string]int64{"minute": 60, "hour": 3600, "day": 23 * 3600, "week": 7*24*3600 - 3600,
	"month": 28*24*3600 - 3600, "quarter": 89*24*3600 - 3600, "year": 365*24*3600 - 3600}

// addUnits moves t by n units; months clamp to the last day of the month.
// Minutes and hours are added to the Unix seconds: a time.Duration holds
// only 292 years.
func addUnits(t time.Time, n int, unit string) (time.Time, bool) {
	switch unit {
	case "minute":
		return time.Unix(t.Unix()+int64(n)*60, int64(t.Nanosecond())).In(t.Location()), true
	case "hour":
		return time.Unix(t.Unix()+int64(n)*3600, int64(t.Nanosecond())).In(t.Location()), true
	case "day":
		return t.AddDate(0, 0, n), true
	case "week":
		return t.AddDate(0, 0, 7*n), true
	case "month", "quarter", "year":
		months := n
		if unit == "quarter" {
			months = 3 * n
		} else if unit == "year" {
			months = 12 * n
		}
		first := time.Date(t.Year(), t.Month(), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()).AddDate(0, months, 0)
		last := first.AddDate(0, 1, -1).Day()
		return time.Date(first.Year(), first.Month(), min(t.Day(), last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()), true
	}
	return t, false
}

// The years whose every instant lies inside ±calMaxSecs are those
// strictly between calMinYear and calMaxYear.
var (
	calMinYear = int64(time.Unix(-calMaxSecs, 0).UTC().Year())
	calMaxYear = int64(time.Unix(calMaxSecs, 0).UTC().Year())
)

// civilDay numbers the local date of t: days since 1970-01-01.
func civilDay(t time.Time) int64 {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// cycleDays is the length of the Gregorian cycle: 400 years, a whole
// number of weeks, after which dates, weekdays and so US-FEDERAL
// holidays repeat.
const cycleDays = 146097

// The US-FEDERAL holiday rules change in 1986 (Martin Luther King Jr. Day
// begins) and 2021 (Juneteenth begins); inside each era they repeat with
// the Gregorian cycle. eraStarts are the civil days the later eras begin.
var eraStarts = [2]int64{
	time.Date(1986, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400,
	time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400,
}

// eraOf is the holiday-rule era (0, 1 or 2) of civil day.
func eraOf(day int64) int {
	switch {
	case day >= eraStarts[1]:
		return 2
	case day >= eraStarts[0]:
		return 1
	}
	return 0
}

// eraYears is a run of 400 years under each era's rules.
var eraYears = [3]int{1400, 1986, 2021}

// cycleBusinessDays is the number of business days in any cycleDays
// consecutive days of one era.
var cycleBusinessDays = sync.OnceValue(func() [3]int64 {
	var out [3]int64
	for era, start := range eraYears {
		n := int64(cycleDays / 7 * 5)
		for y := start; y < start+400; y++ {
			for _, h := range usFederalRules(y, era) {
				if h.date.Weekday() != time.Saturday && h.date.Weekday() != time.Sunday {
					n--
				}
			}
		}
		out[era] = n
	}
	return out
})

// businessDaysAhead is the day n business days after day (before it when
// n < 0), counting neither day itself unless it is reached. Whole cycles
// inside one holiday-rule era are skipped arithmetically, so the walk is
// at most about one cycle per era boundary crossed.
func businessDaysAhead(day, n int64) int64 {
	step, left := int64(1), n
	if n < 0 {
		step, left = -1, -n
	}
	hols := map[int]map[int64]bool{}
	for left > 0 {
		era := eraOf(day)
		per := cycleBusinessDays()[era]
		// the cycles whose days (day, day ± c*cycleDays] stay in the era
		limit := int64(math.MaxInt64)
		if step > 0 && era < 2 {
			limit = (eraStarts[era] - 1 - day) / cycleDays
		} else if step < 0 && era > 0 {
			limit = (day - eraStarts[era-1]) / cycleDays
		}
		if c := min((left-1)/per, limit); c > 0 {
			day += step * c * cycleDays
			left -= c * per
			continue
		}
		day += step
		if isBusinessDay(day, hols) {
			left--
		}
	}
	return day
}

// isBusinessDay reports whether civil day is a weekday that is not a
// US-FEDERAL holiday; hols caches each year's holidays.
func isBusinessDay(day int64, hols map[int]map[int64]bool) bool {
	// 1970-01-01 was a Thursday (ISO weekday 4)
	if wd := ((day+3)%7+7)%7 + 1; wd >= 6 {
		return false
	}
	y := time.Unix(day*86400, 0).UTC().Year()
	set, ok := hols[y]
	if !ok {
		set = map[int64]bool{}
		for _, h := range usFederal(y) {
			set[h.date.Unix()/86400] = true
		}
		hols[y] = set
	}
	return !set[day]
}

type holiday struct {
	date time.Time
	name string
}

// nthWeekday is the n-th (1-based; -1 = last) weekday wd of a month.
func nthWeekday(y int, m time.Month, wd time.Weekday, n int) time.Time {
	if n < 0 {
		last := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC)
		return last.AddDate(0, 0, -((int(last.Weekday()) - int(wd) + 7) % 7))
	}
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	return first.AddDate(0, 0, (int(wd)-int(first.Weekday())+7)%7+7*(n-1))
}

// usFederal is the US-FEDERAL holidays of year y: Martin Luther King Jr.
// Day from 1986 and Juneteenth from 2021, when they became federal
// holidays; the others by today's rules in every year.
func usFederal(y int) []holiday {
	era := 0
	if y >= 2021 {
		era = 2
	} else if y >= 1986 {
		era = 1
	}
	return usFederalRules(y, era)
}

// usFederalRules is the holidays of year y under the rules of era.
func usFederalRules(y, era int) []holiday {
	d := func(m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	out := []holiday{{d(time.January, 1), "New Year's Day"}}
	if era >= 1 {
		out = append(out, holiday{nthWeekday(y, time.January, time.Monday, 3), "Martin Luther King Jr. Day"})
	}
	out = append(out,
		holiday{nthWeekday(y, time.February, time.Monday, 3), "Washington's Birthday"},
		holiday{nthWeekday(y, time.May, time.Monday, -1), "Memorial Day"})
	if era >= 2 {
		out = append(out, holiday{d(time.June, 19), "Juneteenth National Independence Day"})
	}
	return append(out, []holiday{
		{d(time.July, 4), "Independence Day"},
		{nthWeekday(y, time.September, time.Monday, 1), "Labor Day"},
		{nthWeekday(y, time.October, time.Monday, 2), "Columbus Day"},
		{d(time.November, 11), "Veterans Day"},
		{nthWeekday(y, time.November, time.Thursday, 4), "Thanksgiving Day"},
		{d(time.December, 25), "Christmas Day"},
	}...)
}

// cronOK reports whether a cron trigger would accept expr as its schedule
// (a leading seconds field, a descriptor such as @daily, an @every
// interval, a TZ= prefix) or validCron reads it: is_valid_cron answers for
// the schedules this runtime runs, not a narrower dialect, and refuses one
// whose fields match no date (`0 9 30 2 *`), which a trigger refuses as
// never firing (docs/triggers.md).
func cronOK(expr string) bool {
	_, err := triggerspec.ParseSchedule(expr)
	return err == nil || validCron(expr) && !errors.Is(err, triggerspec.ErrNoDate)
}

// validCron checks a five-field cron expression (minute hour day month
// weekday) with *, lists, ranges, steps and month/day names.
func validCron(expr string) bool {
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return false
	}
	bounds := [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}}
	names := [5][]string{nil, nil, nil,
		{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"},
		{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}}
	value := func(s string, f int) (int, bool) {
		for i, n := range names[f] {
			if strings.EqualFold(s, n) {
				if f == 3 {
					return i + 1, true
				}
				return i, true
			}
		}
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= bounds[f][0] && n <= bounds[f][1]
	}
	for f, field := range fields {
		for _, part := range strings.Split(field, ",") {
			rng, step, hasStep := strings.Cut(part, "/")
			if hasStep {
				if n, err := strconv.Atoi(step); err != nil || n < 1 {
					return false
				}
			}
			if rng == "*" {
				continue
			}
			lo, hi, isRange := strings.Cut(rng, "-")
			a, ok := value(lo, f)
			if !ok {
				return false
			}
			if isRange {
				b, ok := value(hi, f)
				if !ok || b < a {
					return false
				}
			}
		}
	}
	return true
}

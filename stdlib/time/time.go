package time

// Time, dates and durations (docs/spec/builtins.md §3.14) and clock mocking (§4.9).
//
// Timestamps are Unix seconds: ints when whole, floats otherwise. Every
// reading of the wall or monotonic clock goes through the VM's clock,
// which mock_time can freeze; sleep_ms then advances it instead of
// waiting.

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones even on machines without a zoneinfo database

	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// processStart anchors the monotonic clock (the VM starts with the process).
var processStart = time.Now()

// vmClock is a VM's clock: real time, or the mock of mock_time (vm/clock.go).
type vmClock struct{ v *vm.VM }

func clockOf(th *vm.Thread) vmClock { return vmClock{th.VM()} }

// now is the VM's wall-clock time (mocked or real).
func (c vmClock) now() time.Time {
	if wall, _, on := c.v.MockNow(); on {
		return time.UnixMilli(wall).UTC()
	}
	return time.Now().UTC()
}

func (c vmClock) mono() int64 {
	if _, mono, on := c.v.MockNow(); on {
		return mono
	}
	return time.Since(processStart).Milliseconds()
}

// VMNow is the wall-clock time as the running script sees it (honours
// mock_time); other packages use it for timestamps.
func VMNow(th *vm.Thread) time.Time { return clockOf(th).now() }

// Sleep pauses the thread for d without holding the VM lock, or advances
// a mocked clock instead. It returns early with the thread's stop failure
// when it is cancelled, interrupted or passes its deadline.
func Sleep(th *vm.Thread, d time.Duration) error {
	if d <= 0 {
		return th.Yield()
	}
	if mocked, err := th.SleepMocked(d); mocked {
		return err
	}
	// what the program printed before pausing is visible during the pause
	if f, ok := th.VM().Stdout.(interface{ Flush() error }); ok {
		f.Flush()
	}
	_, err := th.Wait(nil, d)
	return err
}

// BlockingCtx runs work without the VM lock so other tasks can run. When the
// thread is stopped meanwhile, work's context is cancelled, blockingCtx waits
// for work to return and reports the stop failure.
func BlockingCtx(th *vm.Thread, work func(ctx context.Context)) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		work(ctx)
	}()
	fired, err := th.Wait(done, -1)
	if !fired {
		cancel()
		<-done
	}
	return err
}

var (
	weekdayNames = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	monthNames   = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

func init() {
	lib.Def("timestamp", "timestamp() -> float", "wall-clock Unix seconds as a float", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		// whole seconds plus the fraction: UnixNano (~2^60) does not fit a
		// float64 exactly, so a mocked 1700000000123 ms would print …1230001
		t := clockOf(th).now()
		return vm.FloatOf(float64(t.Unix()) + float64(t.Nanosecond())/1e9), nil
	})
	lib.Def("now_ms", "now_ms() -> int", "wall-clock Unix milliseconds", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.IntOf(clockOf(th).now().UnixMilli()), nil
	})
	mono := func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.IntOf(clockOf(th).mono()), nil
	}
	lib.Def("elapsed", "elapsed() -> int", "monotonic milliseconds since the VM started", mono)
	lib.Def("monotonic_ms", "monotonic_ms() -> int", "monotonic milliseconds since the VM started", mono)
	iso := func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Str(clockOf(th).now().Format("2006-01-02T15:04:05.000Z")), nil
	}
	lib.Def("date_iso", "date_iso() -> string", "current UTC time, RFC 3339 with milliseconds", iso)
	lib.Def("date_now_iso", "date_now_iso() -> string", "current UTC time, RFC 3339 with milliseconds", iso)
	lib.Def("date_now", "date_now() -> dict", "current UTC date fields", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t := clockOf(th).now()
		return vm.Of(lib.DictOf(
			"year", lib.IntOf(t.Year()), "month", lib.IntOf(int(t.Month())), "day", lib.IntOf(t.Day()),
			"hour", lib.IntOf(t.Hour()), "minute", lib.IntOf(t.Minute()), "second", lib.IntOf(t.Second()),
			"weekday", lib.IntOf(int(t.Weekday())),
			"timestamp", vm.Float(float64(t.UnixMilli())/1000),
			"iso8601", vm.Str(t.Format("2006-01-02T15:04:05.000Z")),
		)), nil
	})
	lib.Def("date_parse", "date_parse(s) -> int | float", "parse a date/time text into Unix seconds", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := parseDate(a.Text(0))
		if err != nil {
			return vm.Value{}, err
		}
		return timestampValue(t), nil
	})
	lib.Def("date_format", "date_format(t, fmt?, tz?) -> string", "strftime-style formatting (UTC by default)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := timeArg("date_format", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		layout := "%Y-%m-%d %H:%M:%S"
		if a.Given(1) {
			layout = a.Text(1)
		}
		loc, err := zoneArg("date_format", a, 2)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(strftime(t.In(loc), layout)), nil
	})
	lib.Def("date_in_zone", "date_in_zone(t, tz) -> dict", "local date fields in an IANA zone", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := timeArg("date_in_zone", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		loc, err := zoneArg("date_in_zone", a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		lt := t.In(loc)
		_, off := lt.Zone()
		return vm.Of(lib.DictOf(
			"year", lib.IntOf(lt.Year()), "month", lib.IntOf(int(lt.Month())), "day", lib.IntOf(lt.Day()),
			"hour", lib.IntOf(lt.Hour()), "minute", lib.IntOf(lt.Minute()), "second", lib.IntOf(lt.Second()),
			"weekday", lib.IntOf(int(lt.Weekday())), "offset_seconds", lib.IntOf(off),
			"timestamp", timestampValue(t), "iso8601", vm.Str(rfc3339(lt)), "zone", vm.Str(loc.String()),
		)), nil
	})
	lib.Def("date_to_zone", "date_to_zone(t, tz) -> string", "RFC 3339 text with the zone's offset", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := timeArg("date_to_zone", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		loc, err := zoneArg("date_to_zone", a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(rfc3339(t.In(loc))), nil
	})
	lib.Def("date_from_components", "date_from_components(parts, tz?) -> int | float", "Unix seconds from {year, month, day, hour?, minute?, second?}", dateFromComponents)
	lib.Def("date_add", "date_add(t, duration) -> int | float", "t plus a duration", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := timeArg("date_add", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		d, err := durationArg("date_add", a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		ms, ok := unixMillis(t)
		if ok {
			ms, ok = addInt64(ms, d)
		}
		if !ok {
			return vm.Value{}, vm.Throwf("date_add: the result is out of range")
		}
		if ms%1000 == 0 {
			return vm.IntOf(ms / 1000), nil
		}
		return vm.FloatOf(float64(ms) / 1000), nil
	})
	lib.Def("date_diff", "date_diff(a, b) -> duration", "a − b as a duration", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		x, err := timeArg("date_diff", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		y, err := timeArg("date_diff", a, 1)
		if err != nil {
			return vm.Value{}, err
		}
		xm, okx := unixMillis(x)
		ym, oky := unixMillis(y)
		d, ok := addInt64(xm, -ym)
		if !okx || !oky || !ok || ym == math.MinInt64 {
			return vm.Value{}, vm.Throwf("date_diff: the difference is out of range")
		}
		return vm.DurationOf(d), nil
	})
	lib.Def("weekday_name", "weekday_name(t, tz?) -> string", "English weekday name", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := zonedTimeArg("weekday_name", a)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(weekdayNames[t.Weekday()]), nil
	})
	lib.Def("month_name", "month_name(t, tz?) -> string", "English month name", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		t, err := zonedTimeArg("month_name", a)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(monthNames[t.Month()-1]), nil
	})
	for _, u := range []struct{ name, suffix string }{
		{"duration_ms", "ms"}, {"duration_seconds", "s"}, {"duration_minutes", "m"}, {"duration_hours", "h"}, {"duration_days", "d"},
	} {
		name := u.name
		ms, _ := syntax.DurationUnitMs(u.suffix)
		unit := float64(ms)
		lib.Def(name, name+"(n) -> duration", "a duration of n units", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			switch n := a.At(0).Object().(type) {
			case vm.Int:
				ms := int64(n) * int64(unit)
				if unit != 1 && ms/int64(unit) != int64(n) {
					ms = math.MaxInt64 // saturate, as a float count does
					if n < 0 {
						ms = math.MinInt64
					}
				}
				return vm.DurationOf(ms), nil
			case vm.Float:
				return vm.DurationOf(lib.SaturatingInt(math.Round(float64(n) * unit))), nil
			}
			return vm.Value{}, vm.Throwf("%s: expected number, got %s", name, a.At(0).Type())
		})
	}
	lib.Def("duration_to_seconds", "duration_to_seconds(d) -> int", "whole seconds, truncated", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d, err := durationArg("duration_to_seconds", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.IntOf(d / 1000), nil
	})
	lib.Def("duration_to_human", "duration_to_human(d) -> string", "e.g. 1h 2m 3s (at most three parts)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d, err := durationArg("duration_to_human", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(durationToHuman(d)), nil
	})
	lib.Def("sleep", "sleep(d)", "pause for a duration (or int milliseconds); zero lets the other ready tasks run first. Anything else (a string such as \"5\", nil) does not pause and is no error, as docs/spec/builtins.md §3.14 says; harness.clock.sleep_ms is the strict form", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var err error
		switch d := a.At(0).Object().(type) {
		case vm.Duration:
			err = Sleep(th, lib.Millis(int64(d)))
		case vm.Int:
			err = Sleep(th, lib.Millis(int64(d)))
		}
		return vm.Nil, err
	})
	lib.Def("sleep_ms", "sleep_ms(n)", "pause for n milliseconds; zero lets the other ready tasks run first", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var err error
		if d, ok := lib.WaitDuration(a.At(0)); ok {
			err = Sleep(th, d)
		}
		return vm.Nil, err
	})
	lib.Def("mock_time", "mock_time(ms)", "freeze the wall clock at ms, a number or a duration (monotonic restarts at 0)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		ms, err := mockMillis("mock_time", a)
		if err != nil {
			return vm.Value{}, err
		}
		th.VM().MockTime(ms)
		return vm.Nil, nil
	})
	lib.Def("advance_time", "advance_time(ms) -> int", "advance a mocked clock by ms, a non-negative number or duration; the new wall ms", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		ms, err := mockMillis("advance_time", a)
		if err != nil {
			return vm.Value{}, err
		}
		if ms < 0 {
			// A mocked clock only advances: going back would run the
			// monotonic clock backwards too (docs/builtins-areas.md).
			return vm.Value{}, vm.Typef("advance_time: the mocked clock only moves forward, got %d ms (mock_time sets it anywhere)", ms)
		}
		now, ok := th.VM().AdvanceTime(ms)
		if !ok {
			return vm.Value{}, vm.Throwf("advance_time: no mock active. Call mock_time(ms) first.")
		}
		return vm.IntOf(now), nil
	})
	lib.Def("unmock_time", "unmock_time()", "return to the real clock", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		th.VM().UnmockTime()
		return vm.Nil, nil
	})
}

// ---- arguments and results ----

// timeArg reads a "time" argument: int or float Unix seconds, or a dict
// with a numeric `timestamp` field.
// unixMillis is t in Unix milliseconds, rounded; false when that does
// not fit an int (t.UnixNano covers only the years 1678 to 2262).
func unixMillis(t time.Time) (int64, bool) {
	sec, ns := t.Unix(), int64(t.Nanosecond())
	if sec > math.MaxInt64/1000-1 || sec < math.MinInt64/1000+1 {
		return 0, false
	}
	return sec*1000 + (ns+500_000)/1_000_000, true
}

// addInt64 is a + b, false when it overflows.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	if (b > 0 && c < a) || (b < 0 && c > a) {
		return 0, false
	}
	return c, true
}

func timeArg(name string, a vm.Args, i int) (time.Time, error) {
	if !a.Has(i) {
		return time.Time{}, vm.Throwf("%s: missing timestamp argument", name)
	}
	return Instant(name, a.At(i))
}

// Instant reads a "time" value (docs/spec/builtins.md §3.14): int or float
// Unix seconds, or a dict with a numeric `timestamp` field.
func Instant(name string, arg vm.Value) (time.Time, error) {
	v := arg
	if d, ok := v.AsDict(); ok {
		if ts, ok := d.Get("timestamp"); ok {
			v = ts
		}
	}
	switch n := v.Object().(type) {
	case vm.Int:
		return time.Unix(int64(n), 0).UTC(), nil
	case vm.Float:
		f := float64(n)
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return floatInstant(f), nil
		}
	}
	return time.Time{}, vm.Throwf("%s: expected timestamp number or date dict, got %s", name, arg.Type())
}

// floatInstant reads fractional Unix seconds at millisecond precision,
// rounded: timestamps carry milliseconds, and the float nearest
// 1705314600.123 lies just below it, so the nanosecond reading would show
// .122999907 and a truncating one .122.
func floatInstant(f float64) time.Time {
	return time.UnixMilli(int64(math.Round(f * 1000))).UTC()
}

// zoneArg reads an optional IANA zone name (UTC when absent).
func zoneArg(name string, a vm.Args, i int) (*time.Location, error) {
	if !a.Given(i) {
		return time.UTC, nil
	}
	tz := a.Text(i)
	loc, err := loadZone(tz)
	if err != nil {
		return nil, vm.Throwf("%s: unknown timezone '%s'", name, tz)
	}
	return loc, nil
}

func loadZone(tz string) (*time.Location, error) {
	switch tz {
	case "UTC", "Etc/UTC", "utc":
		return time.UTC, nil
	case "", "Local":
		return nil, fmt.Errorf("unknown zone")
	}
	return time.LoadLocation(tz)
}

func zonedTimeArg(name string, a vm.Args) (time.Time, error) {
	t, err := timeArg(name, a, 0)
	if err != nil {
		return t, err
	}
	loc, err := zoneArg(name, a, 1)
	if err != nil {
		return t, err
	}
	return t.In(loc), nil
}

// durationArg reads a duration (or int milliseconds).
func durationArg(name string, a vm.Args, i int) (int64, error) {
	switch d := a.At(i).Object().(type) {
	case vm.Duration:
		return int64(d), nil
	case vm.Int:
		return int64(d), nil
	}
	return 0, vm.Throwf("%s: expected duration, got %s", name, a.At(i).Type())
}

// timestampValue is t as Unix seconds: an int when whole.
func timestampValue(t time.Time) vm.Value {
	if t.Nanosecond() == 0 {
		return vm.IntOf(t.Unix())
	}
	return vm.FloatOf(float64(t.Unix()) + float64(t.Nanosecond())/1e9)
}

// rfc3339 formats like chrono's to_rfc3339: offset always numeric, the
// fraction only when non-zero, in 3, 6 or 9 digits.
func rfc3339(t time.Time) string {
	return t.Format("2006-01-02T15:04:05") + autoFraction(t.Nanosecond(), true) + t.Format("-07:00")
}

// autoFraction renders nanoseconds in the shortest of 0, 3, 6 or 9 digits.
func autoFraction(ns int, dot bool) string {
	prefix := ""
	if dot {
		prefix = "."
	}
	switch {
	case ns == 0:
		return ""
	case ns%1000000 == 0:
		return prefix + fmt.Sprintf("%03d", ns/1000000)
	case ns%1000 == 0:
		return prefix + fmt.Sprintf("%06d", ns/1000)
	}
	return prefix + fmt.Sprintf("%09d", ns)
}

func durationToHuman(ms int64) string {
	if ms == 0 {
		return "0s"
	}
	sign := ""
	a := uint64(ms)
	if ms < 0 {
		sign = "-"
		a = uint64(-ms)
	}
	var parts []string
	for _, u := range syntax.DurationUnits {
		if u.Suffix == "w" { // a human duration counts days at most
			continue
		}
		if size := uint64(u.Ms); a >= size {
			parts = append(parts, strconv.FormatUint(a/size, 10)+u.Suffix)
			a %= size
		}
		if len(parts) == 3 {
			break
		}
	}
	return sign + strings.Join(parts, " ")
}

// ---- date_parse ----

// offsetLayouts are the date_parse forms with a UTC offset, tried in
// order: RFC 3339; YYYY-MM-DDTHH:MM with Z or ±HH:MM, a minute-precision
// time with an offset (docs/spec/newer.md §2.23); and ISO 8601's basic
// offset forms ±HHMM and ±HH (docs/builtins-areas.md), which the digit
// fallback would misread, as it would the minute-precision form.
var offsetLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04Z0700",
	"2006-01-02T15:04:05.999999999Z07", "2006-01-02T15:04Z07",
}

func parseDate(s string) (time.Time, error) {
	in := strings.TrimSpace(s)
	candidates := []string{in}
	if len(in) > 10 && (in[10] == ' ' || in[10] == 't') {
		candidates = append(candidates, in[:10]+"T"+in[11:])
	}
	for _, c := range candidates {
		c = strings.Replace(c, "z", "Z", 1)
		for _, layout := range offsetLayouts {
			if t, err := time.Parse(layout, c); err == nil {
				return t.UTC(), nil
			}
		}
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, in); err == nil {
			return t.UTC(), nil
		}
	}
	// Fallback: the first three to six digit runs are Y M D h m s.
	var nums []int64
	for j := 0; j < len(in) && len(nums) < 6; {
		if !lib.ASCIIDigit(in[j]) {
			j++
			continue
		}
		k := j
		for k < len(in) && lib.ASCIIDigit(in[k]) {
			k++
		}
		n, err := strconv.ParseInt(in[j:k], 10, 64)
		if err != nil {
			return time.Time{}, vm.Throwf("Cannot parse date: %s", s)
		}
		nums = append(nums, n)
		j = k
	}
	if len(nums) < 3 {
		return time.Time{}, vm.Throwf("Cannot parse date: %s", s)
	}
	for len(nums) < 6 {
		nums = append(nums, 0)
	}
	y, mo, d, h, mi, sec := nums[0], nums[1], nums[2], nums[3], nums[4], nums[5]
	switch {
	case mo < 1 || mo > 12:
		return time.Time{}, vm.Throwf("Invalid month: %d (must be 1-12)", mo)
	case d < 1 || d > 31:
		return time.Time{}, vm.Throwf("Invalid day: %d (must be 1-31)", d)
	case h > 23:
		return time.Time{}, vm.Throwf("Invalid hour: %d (must be 0-23)", h)
	case mi > 59:
		return time.Time{}, vm.Throwf("Invalid minute: %d (must be 0-59)", mi)
	case sec > 59:
		return time.Time{}, vm.Throwf("Invalid second: %d (must be 0-59)", sec)
	}
	t := time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(sec), 0, time.UTC)
	if t.Day() != int(d) || t.Month() != time.Month(mo) {
		return time.Time{}, vm.Throwf("Invalid date: %04d-%02d-%02d", y, mo, d)
	}
	return t, nil
}

// ---- date_from_components ----

func dateFromComponents(th *vm.Thread, a vm.Args) (vm.Value, error) {
	return fromComponents("date_from_components", a)
}

// fromComponents is date_from_components(parts, tz?) for the builtin or
// std function who: its errors name who (std/calendar's local_datetime
// reads its local time through it).
func fromComponents(who string, a vm.Args) (vm.Value, error) {
	parts, ok := a.Dict(0)
	if !ok {
		return vm.Value{}, vm.Throwf("%s: expected a dict of date parts, got %s", who, a.At(0).Type())
	}
	loc, err := zoneArg(who, a, 1)
	if err != nil {
		return vm.Value{}, err
	}
	field := func(name string, required bool) (int, error) {
		v, ok := parts.Get(name)
		if !ok || v.IsNil() {
			if required {
				return 0, vm.Throwf("%s: missing '%s'", who, name)
			}
			return 0, nil
		}
		switch n := v.Object().(type) {
		case vm.Int:
			return int(n), nil
		case vm.Float:
			if float64(n) == math.Trunc(float64(n)) {
				return int(n), nil
			}
		}
		return 0, vm.Throwf("%s: '%s' must be an integer, got %s", who, name, vm.ToDisplay(v))
	}
	var f [6]int
	for k, name := range []string{"year", "month", "day", "hour", "minute", "second"} {
		n, err := field(name, k < 3)
		if err != nil {
			return vm.Value{}, err
		}
		f[k] = n
	}
	if f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] < 0 || f[3] > 23 || f[4] < 0 || f[4] > 59 || f[5] < 0 || f[5] > 59 ||
		time.Date(f[0], time.Month(f[1]), f[2], 0, 0, 0, 0, time.UTC).Day() != f[2] {
		return vm.Value{}, vm.Throwf("%s: invalid date %04d-%02d-%02d %02d:%02d:%02d", who, f[0], f[1], f[2], f[3], f[4], f[5])
	}
	u, ok := localToUnix(f, loc)
	if !ok {
		return vm.Value{}, vm.Throwf("%s: local time does not exist in that timezone", who)
	}
	return vm.IntOf(u), nil
}

// localToUnix resolves local wall-clock fields in loc; an ambiguous time
// takes the earlier instant, a skipped one reports false.
func localToUnix(f [6]int, loc *time.Location) (int64, bool) {
	wall := time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], 0, time.UTC).Unix()
	best, found := int64(0), false
	for _, probe := range []int64{-86400, -43200, 0, 43200, 86400} {
		_, off := time.Unix(wall+probe, 0).In(loc).Zone()
		u := wall - int64(off)
		lt := time.Unix(u, 0).In(loc)
		if lt.Year() == f[0] && int(lt.Month()) == f[1] && lt.Day() == f[2] && lt.Hour() == f[3] && lt.Minute() == f[4] && lt.Second() == f[5] {
			if !found || u < best {
				best, found = u, true
			}
		}
	}
	return best, found
}

// ---- strftime (chrono's specifiers) ----

func strftime(t time.Time, layout string) string {
	var sb strings.Builder
	for i := 0; i < len(layout); i++ {
		c := layout[i]
		if c != '%' || i+1 >= len(layout) {
			sb.WriteByte(c)
			continue
		}
		start := i
		i++
		pad := byte(0) // 0 default, '-' none, '_' space, '0' zero
		if strings.IndexByte("-_0", layout[i]) >= 0 && i+1 < len(layout) {
			pad = layout[i]
			i++
		}
		num := func(n, width int, defPad byte) {
			p := defPad
			if pad != 0 {
				p = pad
			}
			s := strconv.Itoa(n)
			neg := n < 0
			if neg {
				s = s[1:]
			}
			if p != '-' {
				for len(s) < width {
					if p == '_' || p == ' ' {
						s = " " + s
					} else {
						s = "0" + s
					}
				}
			}
			if neg {
				s = "-" + s
			}
			sb.WriteString(s)
		}
		hour12 := t.Hour() % 12
		if hour12 == 0 {
			hour12 = 12
		}
		switch spec := layout[i]; spec {
		case 'Y':
			if y := t.Year(); y > 9999 {
				sb.WriteString("+" + strconv.Itoa(y))
			} else {
				num(y, 4, '0')
			}
		case 'C':
			num(floorDiv(t.Year(), 100), 2, '0')
		case 'y':
			num(((t.Year()%100)+100)%100, 2, '0')
		case 'm':
			num(int(t.Month()), 2, '0')
		case 'd':
			num(t.Day(), 2, '0')
		case 'e':
			num(t.Day(), 2, ' ')
		case 'H':
			num(t.Hour(), 2, '0')
		case 'k':
			num(t.Hour(), 2, ' ')
		case 'I':
			num(hour12, 2, '0')
		case 'l':
			num(hour12, 2, ' ')
		case 'M':
			num(t.Minute(), 2, '0')
		case 'S':
			num(t.Second(), 2, '0')
		case 'j':
			num(t.YearDay(), 3, '0')
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			num(wd, 1, '0')
		case 'w':
			num(int(t.Weekday()), 1, '0')
		case 'U':
			num((t.YearDay()+6-int(t.Weekday()))/7, 2, '0')
		case 'W':
			num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2, '0')
		case 'G':
			y, _ := t.ISOWeek()
			num(y, 4, '0')
		case 'g':
			y, _ := t.ISOWeek()
			num(((y%100)+100)%100, 2, '0')
		case 'V':
			_, w := t.ISOWeek()
			num(w, 2, '0')
		case 'b', 'h':
			sb.WriteString(monthNames[t.Month()-1][:3])
		case 'B':
			sb.WriteString(monthNames[t.Month()-1])
		case 'a':
			sb.WriteString(weekdayNames[t.Weekday()][:3])
		case 'A':
			sb.WriteString(weekdayNames[t.Weekday()])
		case 'p':
			if t.Hour() < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
		case 'P':
			if t.Hour() < 12 {
				sb.WriteString("am")
			} else {
				sb.WriteString("pm")
			}
		case 'Z':
			name, _ := t.Zone()
			sb.WriteString(name)
		case 'z':
			sb.WriteString(t.Format("-0700"))
		case ':':
			switch rest := layout[i+1:]; {
			case strings.HasPrefix(rest, "z"):
				i++
				sb.WriteString(t.Format("-07:00"))
			case strings.HasPrefix(rest, ":z"): // chrono: with seconds
				i += 2
				sb.WriteString(t.Format("-07:00:00"))
			case strings.HasPrefix(rest, "::z"): // chrono: the hours only
				i += 3
				sb.WriteString(t.Format("-07"))
			default:
				sb.WriteString(layout[start : i+1])
			}
		case 'f':
			fmt.Fprintf(&sb, "%09d", t.Nanosecond())
		case '3', '6', '9':
			if i+1 < len(layout) && layout[i+1] == 'f' {
				i++
				digits := int(spec - '0')
				sb.WriteString(fmt.Sprintf("%09d", t.Nanosecond())[:digits])
			} else {
				sb.WriteString(layout[start : i+1])
			}
		case '.':
			switch {
			case i+1 < len(layout) && layout[i+1] == 'f':
				i++
				sb.WriteString(autoFraction(t.Nanosecond(), true))
			case i+2 < len(layout) && strings.IndexByte("369", layout[i+1]) >= 0 && layout[i+2] == 'f':
				digits := int(layout[i+1] - '0')
				i += 2
				sb.WriteString("." + fmt.Sprintf("%09d", t.Nanosecond())[:digits])
			default:
				sb.WriteString(layout[start : i+1])
			}
		case 's':
			sb.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'D', 'x':
			sb.WriteString(strftime(t, "%m/%d/%y"))
		case 'F':
			sb.WriteString(strftime(t, "%Y-%m-%d"))
		case 'v':
			sb.WriteString(strftime(t, "%e-%b-%Y"))
		case 'R':
			sb.WriteString(strftime(t, "%H:%M"))
		case 'T', 'X':
			sb.WriteString(strftime(t, "%H:%M:%S"))
		case 'r':
			sb.WriteString(strftime(t, "%I:%M:%S %p"))
		case 'c':
			sb.WriteString(strftime(t, "%a %b %e %H:%M:%S %Y"))
		case '+':
			sb.WriteString(strftime(t, "%Y-%m-%dT%H:%M:%S%.f%:z"))
		case 't':
			sb.WriteByte('\t')
		case 'n':
			sb.WriteByte('\n')
		case '%':
			sb.WriteByte('%')
		default:
			sb.WriteString(layout[start : i+1])
		}
	}
	return sb.String()
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// mockMillis reads the milliseconds argument of mock_time and
// advance_time: a number or a duration; nil or no argument is 0.
func mockMillis(name string, a vm.Args) (int64, error) {
	switch d := a.At(0).Object().(type) {
	case vm.Int:
		return int64(d), nil
	case vm.Float:
		return int64(d), nil
	case vm.Duration:
		return int64(d), nil
	}
	if a.Given(0) && !a.At(0).IsNil() {
		return 0, vm.Typef("%s: expected milliseconds (a number or a duration), got %s", name, a.At(0).Type())
	}
	return 0, nil
}

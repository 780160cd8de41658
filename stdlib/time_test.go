package stdlib_test

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

func TestDates(t *testing.T) {
	runT2(t, []t2case{
		{"date_format", []vm.Value{iv(0)}, "1970-01-01 00:00:00"},
		{"date_format", []vm.Value{iv(1705314600), sv("%Y/%m/%d %H:%M")}, "2024/01/15 10:30"},
		{"date_format", []vm.Value{iv(0), sv("%a %b %d %j %A %B")}, "Thu Jan 01 001 Thursday January"},
		{"date_format", []vm.Value{iv(1705314600), sv("%H:%M %z %:z %Z"), sv("Europe/Paris")}, "11:30 +0100 +01:00 CET"},
		{"date_format", []vm.Value{iv(1705314600), sv("%::z %:::z|%::z %:::z"), sv("America/St_Johns")}, "-03:30:00 -03|-03:30:00 -03"},
		{"date_format", []vm.Value{dv("timestamp", iv(86400)), sv("%Y-%m-%d")}, "1970-01-02"},
		{"date_format", []vm.Value{fv(1.5), sv("%S.%3f %f %.f %s %e %p %I %y %%")}, "01.500 500000000 .500 1  1 AM 12 70 %"},
		{"date_format", []vm.Value{iv(1705314600), sv("%-d/%-m %k %F %T %u %w")}, "15/1 10 2024-01-15 10:30:00 1 1"},
		{"date_format", []vm.Value{sv("yesterday")}, "ERR: date_format: expected timestamp number or date dict, got string"},
		{"date_format", nil, "ERR: date_format: missing timestamp argument"},
		{"date_format", []vm.Value{iv(0), sv("%H"), sv("Mars/Olympus")}, "ERR: date_format: unknown timezone 'Mars/Olympus'"},
		{"date_parse", []vm.Value{sv("2024-01-15T10:30:00Z")}, "1705314600"},
		{"date_parse", []vm.Value{sv("2024-01-15T12:30:00+02:00")}, "1705314600"},
		{"date_parse", []vm.Value{sv("2024-01-15 10:30:00")}, "1705314600"},
		{"date_parse", []vm.Value{sv("2024-01-15 10:30:00.25")}, "1705314600.25"},
		{"date_parse", []vm.Value{sv("2024-01-15T10:30")}, "1705314600"},
		{"date_parse", []vm.Value{sv("2024-01-15")}, "1705276800"},
		{"date_parse", []vm.Value{sv("2024-01-15T10:30:00.5Z")}, "1705314600.5"},
		{"date_parse", []vm.Value{sv("15 Jan 2024")}, "ERR: Cannot parse date: 15 Jan 2024"},
		{"date_parse", []vm.Value{sv("10/12/2024")}, "ERR: Invalid day: 2024 (must be 1-31)"},
		{"date_parse", []vm.Value{sv("2024/1/15 10h30")}, "1705314600"},
		{"date_parse", []vm.Value{sv("2024-13-01")}, "ERR: Invalid month: 13 (must be 1-12)"},
		{"date_parse", []vm.Value{sv("2024-02-31")}, "ERR: Invalid date: 2024-02-31"},
		{"date_parse", []vm.Value{sv("2024-02-01 24:00")}, "ERR: Invalid hour: 24 (must be 0-23)"},
		{"date_parse", []vm.Value{sv("2024-02-01 10:60")}, "ERR: Invalid minute: 60 (must be 0-59)"},
		{"date_parse", []vm.Value{sv("2024-02-01 10:10:61")}, "ERR: Invalid second: 61 (must be 0-59)"},
		{"date_parse", []vm.Value{sv("not a date")}, "ERR: Cannot parse date: not a date"},
		{"date_from_components", []vm.Value{dv("year", iv(2024), "month", iv(1), "day", iv(15), "hour", iv(10), "minute", iv(30))}, "1705314600"},
		{"date_from_components", []vm.Value{dv("year", iv(2024), "month", iv(1), "day", iv(15), "hour", iv(11), "minute", fv(30)), sv("Europe/Paris")}, "1705314600"},
		{"date_from_components", []vm.Value{dv("year", iv(2024), "month", iv(3), "day", iv(31), "hour", iv(2), "minute", iv(30)), sv("Europe/Paris")}, "ERR: date_from_components: local time does not exist in that timezone"},
		{"date_from_components", []vm.Value{dv("year", iv(2024), "month", iv(10), "day", iv(27), "hour", iv(2), "minute", iv(30)), sv("Europe/Paris")}, "1729989000"},
		{"date_from_components", []vm.Value{dv("year", iv(2024))}, "ERR: date_from_components: missing 'month'"},
		{"date_to_zone", []vm.Value{iv(1705314600), sv("Europe/Paris")}, "2024-01-15T11:30:00+01:00"},
		{"date_to_zone", []vm.Value{fv(1705314600.25), sv("UTC")}, "2024-01-15T10:30:00.250+00:00"},
		{"date_in_zone", []vm.Value{iv(1705314600), sv("Europe/Paris")}, "{day: 15, hour: 11, iso8601: 2024-01-15T11:30:00+01:00, minute: 30, month: 1, offset_seconds: 3600, second: 0, timestamp: 1705314600, weekday: 1, year: 2024, zone: Europe/Paris}"},
		{"date_add", []vm.Value{iv(0), vm.DurationOf(int64(90000))}, "90"},
		{"date_add", []vm.Value{iv(1705314600), vm.DurationOf(int64(86400000))}, "1705401000"},
		{"date_add", []vm.Value{iv(0), vm.DurationOf(int64(1500))}, "1.5"},
		{"date_add", []vm.Value{iv(0), sv("x")}, "ERR: date_add: expected duration, got string"},
		{"date_diff", []vm.Value{iv(100), iv(40)}, "1m"},
		{"weekday_name", []vm.Value{iv(0)}, "Thursday"},
		{"month_name", []vm.Value{iv(0)}, "January"},
		{"weekday_name", []vm.Value{iv(1705314600)}, "Monday"},
		{"weekday_name", []vm.Value{iv(1705276800), sv("America/New_York")}, "Sunday"},
	})
}

func TestDurations(t *testing.T) {
	runT2(t, []t2case{
		{"duration_ms", []vm.Value{iv(1500)}, "1500ms"},
		{"duration_seconds", []vm.Value{iv(90)}, "90s"},
		{"duration_minutes", []vm.Value{iv(2)}, "2m"},
		{"duration_hours", []vm.Value{iv(24)}, "1d"}, // docs/spec/newer.md §2.13,
		{"duration_days", []vm.Value{iv(1)}, "1d"},   // docs/spec/newer.md §2.13,
		{"duration_seconds", []vm.Value{fv(1.5)}, "1500ms"},
		{"duration_ms", []vm.Value{sv("x")}, "ERR: duration_ms: expected number, got string"},
		{"duration_to_human", []vm.Value{vm.DurationOf(int64(90061001))}, "1d 1h 1m"},
		{"duration_to_human", []vm.Value{vm.DurationOf(int64(0))}, "0s"},
		{"duration_to_human", []vm.Value{vm.DurationOf(int64(-1500))}, "-1s 500ms"},
		{"duration_to_human", []vm.Value{vm.DurationOf(int64(3723004))}, "1h 2m 3s"},
		{"duration_to_human", []vm.Value{sv("x")}, "ERR: duration_to_human: expected duration, got string"},
		{"duration_to_seconds", []vm.Value{vm.DurationOf(int64(90500))}, "90"},
		{"duration_to_seconds", []vm.Value{vm.DurationOf(int64(-1500))}, "-1"},
	})
}

func TestClockMock(t *testing.T) {
	e := newT2(t)
	if got := e.show(t, "advance_time", iv(5)); got != "ERR: advance_time: no mock active. Call mock_time(ms) first." {
		t.Errorf("advance without mock: %s", got)
	}
	e.show(t, "mock_time", iv(1705314600000))
	checks := []struct {
		name string
		args []vm.Value
		want string
	}{
		{"now_ms", nil, "1705314600000"},
		{"monotonic_ms", nil, "0"},
		{"date_iso", nil, "2024-01-15T10:30:00.000Z"},
		{"timestamp", nil, "1705314600.0"},
		{"sleep_ms", []vm.Value{iv(1500)}, "nil"},
		{"now_ms", nil, "1705314601500"},
		{"elapsed", nil, "1500"},
		{"sleep", []vm.Value{vm.DurationOf(int64(500))}, "nil"},
		{"advance_time", []vm.Value{iv(1000)}, "1705314603000"},
		{"date_now", nil, "{day: 15, hour: 10, iso8601: 2024-01-15T10:30:03.000Z, minute: 30, month: 1, second: 3, timestamp: 1705314603.0, weekday: 1, year: 2024}"},
		{"mock_time", []vm.Value{iv(1700000000123)}, "nil"},
		{"timestamp", nil, "1700000000.123"},
		{"unmock_time", nil, "nil"},
	}
	for _, c := range checks {
		if got := e.show(t, c.name, c.args...); got != c.want {
			t.Errorf("%s: got %s want %s", c.name, got, c.want)
		}
	}
	if v, _ := e.call(t, "now_ms"); int64(v.Object().(vm.Int)) < 1705314603000+1e6 {
		t.Errorf("unmock did not restore the real clock: %v", v)
	}
}

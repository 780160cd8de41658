package syntax

// DurationUnit is a unit of duration literals (docs/spec/language.md
// §1.6, docs/spec/newer.md §1.13): the suffix written after the digits
// (`5s`) and the milliseconds in one.
type DurationUnit struct {
	Suffix string
	Ms     int64
}

// DurationUnits are the units, largest first. The scanner, the parse
// hints, the VM's display of a duration and std/time read this one
// table.
var DurationUnits = [...]DurationUnit{
	{"w", 604_800_000},
	{"d", 86_400_000},
	{"h", 3_600_000},
	{"m", 60_000},
	{"s", 1000},
	{"ms", 1},
}

// DurationUnitMs is the milliseconds in one unit spelled suffix, and
// whether suffix is a unit at all.
func DurationUnitMs(suffix string) (int64, bool) {
	for _, u := range DurationUnits {
		if u.Suffix == suffix {
			return u.Ms, true
		}
	}
	return 0, false
}

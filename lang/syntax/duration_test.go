package syntax

import (
	"strconv"
	"testing"
)

// Each unit is known by its suffix, in milliseconds, and a literal of it
// is that many milliseconds a unit; a word that is no unit is not.
func TestDurationUnits(t *testing.T) {
	want := map[string]int64{"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
	if len(DurationUnits) != len(want) {
		t.Fatalf("%d units, want %d", len(DurationUnits), len(want))
	}
	for i, u := range DurationUnits {
		if ms, ok := DurationUnitMs(u.Suffix); !ok || ms != want[u.Suffix] || u.Ms != ms {
			t.Errorf("DurationUnitMs(%q) = %d, %v; want %d", u.Suffix, ms, ok, want[u.Suffix])
		}
		if i > 0 && DurationUnits[i-1].Ms <= u.Ms {
			t.Errorf("%s after %s: not largest first", u.Suffix, DurationUnits[i-1].Suffix)
		}
		if got := durationMs("7" + u.Suffix); got != 7*u.Ms {
			t.Errorf("durationMs(7%s) = %d, want %d", u.Suffix, got, 7*u.Ms)
		}
	}
	for _, w := range []string{"", "sec", "min", "y", "M", "us"} {
		if _, ok := DurationUnitMs(w); ok {
			t.Errorf("DurationUnitMs(%q) is a unit", w)
		}
	}
	if got := durationMs(strconv.Itoa(1<<62) + "w"); got != 1<<63-1 {
		t.Errorf("an overflowing literal is %d, want the saturated maximum", got)
	}
}

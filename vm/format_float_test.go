package vm

import (
	"math"
	"testing"
)

// The JSON form differs from the display form only for integral values;
// both spell the values that are not finite alike.
func TestFormatJSONFloat(t *testing.T) {
	for f, want := range map[float64]string{
		1:            "1",
		2.5:          "2.5",
		1e15:         "1000000000000000",
		-0.125:       "-0.125",
		math.NaN():   "NaN",
		math.Inf(1):  "inf",
		math.Inf(-1): "-inf",
	} {
		if got := FormatJSONFloat(f); got != want {
			t.Errorf("FormatJSONFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

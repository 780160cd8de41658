package numtext

import (
	"math"
	"testing"
)

func TestIntAndFloat(t *testing.T) {
	for _, c := range []struct {
		s            string
		isInt, isNum bool
	}{
		{"12", true, true}, {" -7\n", true, true}, {"+3", true, true},
		{"1.5", false, true}, {"1e3", false, true}, {"inf", false, true}, {"-Infinity", false, true}, {"NaN", false, true},
		{"1e999", false, true}, {"0x10", false, false}, {"0x1p3", false, false}, {"1_000", false, false},
		{"", false, false}, {"big", false, false}, {"99999999999999999999", false, true},
	} {
		if _, ok := Int(c.s); ok != c.isInt {
			t.Errorf("Int(%q) ok = %v, want %v", c.s, ok, c.isInt)
		}
		if _, ok := Float(c.s); ok != c.isNum {
			t.Errorf("Float(%q) ok = %v, want %v", c.s, ok, c.isNum)
		}
	}
	if f, _ := Float("1e999"); !math.IsInf(f, 1) {
		t.Errorf("Float(1e999) = %v, want +inf", f)
	}
}

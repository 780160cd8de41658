package math

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestCRMathMatchesLibm pins values where Go's math package and the C
// library (glibc 2.36, through Python's math module) print different
// digits; the C library's are the correctly rounded ones, and for log10
// its own formula's.
func TestCRMathMatchesLibm(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(float64) float64
		x    float64
		want float64
	}{
		{"tan", crTan, 1, 1.5574077246549023},
		{"ln", crLog, 3, 1.0986122886681098},
		{"acos", crAcos, 0.5, 1.0471975511965979},
		{"sin", crSin, -3.3809 + 0.0001, math.Sin(-3.3808)}, // agreement where Go is right
		{"log10", crLog10, 57.9081, 1.7627393157009017},
		{"log10", crLog10, 1000, 3},
		{"log2", crLog2, 8, 3},
		{"log2", crLog2, 1, 0},
		{"ln", crLog, 1, 0},
		{"exp", crExp, 0, 1},
		{"exp", crExp, 1, math.E},
		{"sin", crSin, -7.68187e27, -0.7905194006751084},
		{"cos", crCos, -5.94153e22, 0.7187658066139774},
		{"atan", crAtan, 1, math.Pi / 4},
		{"asin", crAsin, 1, math.Pi / 2},
		{"acos", crAcos, 1, 0},
	} {
		if got := c.f(c.x); got != c.want {
			t.Errorf("%s(%v) = %v, want %v", c.name, c.x, got, c.want)
		}
	}
	if got := crAtan2(0.5, -1); got != math.Atan2(0.5, -1) && math.Abs(got-math.Atan2(0.5, -1)) > 1e-15 {
		t.Errorf("atan2(0.5, -1) = %v", got)
	}
}

// TestCRMathSpecialCases: zeros keep their sign and the C special cases
// (infinities, NaN, arguments outside the domain) are unchanged.
func TestCRMathSpecialCases(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"sin(-0)", crSin(negZero), negZero},
		{"atan(-0)", crAtan(negZero), negZero},
		{"asin(-0)", crAsin(negZero), negZero},
		{"tan(-0)", crTan(negZero), negZero},
		{"exp(710)", crExp(710), math.Inf(1)},
		{"exp(-inf)", crExp(math.Inf(-1)), 0},
		{"ln(0)", crLog(0), math.Inf(-1)},
		{"log10(0)", crLog10(0), math.Inf(-1)},
		{"log2(inf)", crLog2(math.Inf(1)), math.Inf(1)},
		{"atan(inf)", crAtan(math.Inf(1)), math.Pi / 2},
		{"atan2(0, -1)", crAtan2(0, -1), math.Pi},
	} {
		if math.Float64bits(c.got) != math.Float64bits(c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, v := range []float64{crLog(-1), crSin(math.Inf(1)), crAsin(2), crAcos(-1.5), crExp(math.NaN()), crLog10(-3)} {
		if !math.IsNaN(v) {
			t.Errorf("want NaN, got %v", v)
		}
	}
}

// TestCRMathAgainstGlibc compares with glibc's results for random
// arguments (testdata/libm.txt); glibc is correctly rounded but for rare
// near-ties, of which this sample has none.
func TestCRMathAgainstGlibc(t *testing.T) {
	fs := map[string]func(float64) float64{
		"sin": crSin, "cos": crCos, "tan": crTan, "exp": crExp, "atan": crAtan,
		"ln": crLog, "log2": crLog2, "log10": crLog10, "asin": crAsin, "acos": crAcos,
	}
	data, err := os.ReadFile("testdata/libm.txt")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		x, err1 := strconv.ParseUint(fields[1], 16, 64)
		want, err2 := strconv.ParseUint(fields[2], 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad line %q", line)
		}
		rows++
		arg := math.Float64frombits(x)
		if got := fs[fields[0]](arg); math.Float64bits(got) != want {
			t.Errorf("%s(%v) = %v, glibc %v", fields[0], arg, got, math.Float64frombits(want))
		}
	}
	if rows < 300 {
		t.Fatalf("only %d rows", rows)
	}
}

package vm

import (
	"bufio"
	"math"
	"math/big"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// glibcMisrounds are the oracle rows where glibc's pow is not correctly
// rounded, and Pow is: 0.9998265533668724 ** -35165.7869493445 is
// 445.82048362775785212958…, just below the midpoint 445.82048362775785221…
// between 445.8204836277578 and 445.8204836277579 (glibc says the latter).
var glibcMisrounds = map[[2]float64]bool{
	{0.9998265533668724, -35165.7869493445}: true,
}

// TestPowOracle checks Pow against results of the C library's pow (glibc,
// through python3's math.pow), which upstream Harn's f64::powf calls.
func TestPowOracle(t *testing.T) {
	f, err := os.Open("testdata/pow_oracle.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows, mismatches, goMismatches := 0, 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Fields(line)
		var v [3]float64
		for i := range v {
			b, err := strconv.ParseUint(fields[i], 16, 64)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			v[i] = math.Float64frombits(b)
		}
		x, y, want := v[0], v[1], v[2]
		rows++
		if got := Pow(x, y); math.Float64bits(got) != math.Float64bits(want) {
			mismatches++
			if exact, _ := refPow(x, y).Float64(); !glibcMisrounds[[2]float64{x, y}] || got != exact {
				t.Errorf("Pow(%v, %v) = %v, want %v", x, y, got, want)
			}
		}
		if math.Float64bits(math.Pow(x, y)) != math.Float64bits(want) {
			goMismatches++
		}
	}
	if rows < 500 {
		t.Fatalf("only %d rows", rows)
	}
	if mismatches != len(glibcMisrounds) {
		t.Errorf("%d mismatches, %d known glibc misroundings", mismatches, len(glibcMisrounds))
	}
	t.Logf("%d rows: Pow differs on %d (glibc misrounds), math.Pow on %d", rows, mismatches, goMismatches)
}

// TestPowSpecialCases: the special cases of C99 Annex F, as math.Pow has
// them too, and powers whose rounding is known.
func TestPowSpecialCases(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	negZero := math.Copysign(0, -1)
	special := []struct{ x, y, want float64 }{
		{nan, 0, 1}, {nan, negZero, 1}, {1, nan, 1}, {1, inf, 1}, {1, -inf, 1},
		{nan, 1, nan}, {2, nan, nan}, {nan, 2, nan}, {nan, 0.5, nan},
		{0, 3, 0}, {negZero, 3, negZero}, {negZero, 2, 0}, {negZero, 0.5, 0}, {0, inf, 0}, {negZero, inf, 0},
		{0, -3, inf}, {negZero, -3, -inf}, {negZero, -2, inf}, {negZero, -0.5, inf}, {0, -inf, inf}, {negZero, -inf, inf},
		{-1, inf, 1}, {-1, -inf, 1},
		{0.5, inf, 0}, {-0.5, inf, 0}, {2, inf, inf}, {-2, inf, inf},
		{0.5, -inf, inf}, {-0.5, -inf, inf}, {2, -inf, 0}, {-2, -inf, 0},
		{inf, 0.5, inf}, {inf, -0.5, 0}, {inf, 3, inf}, {inf, -3, 0},
		{-inf, 3, -inf}, {-inf, 2, inf}, {-inf, 0.5, inf}, {-inf, -3, negZero}, {-inf, -2, 0}, {-inf, -0.5, 0},
		{-2, 0.5, nan}, {-2, 1.5, nan}, {-8, 1.0 / 3, nan}, {-2, -0.5, nan},
		{-1, 0x1p60, 1}, {-1, 0x1p60 + 0x1p8, 1}, {-1, 1e300, 1}, {-2, 1e300, inf}, {-0.5, 1e300, 0}, {-2, -1e300, 0},
		{2, 1e308, inf}, {2, -1e308, 0}, {0.5, 1e308, 0}, {-0.5, -1e308, inf},
		{math.MaxFloat64, 2, inf}, {2, 1024, inf}, {-2, 1025, -inf}, {2, -1075, 0}, {-2, -1075, negZero},
		{math.SmallestNonzeroFloat64, -1, inf}, {math.SmallestNonzeroFloat64, 2, 0},
	}
	for _, c := range special {
		for _, impl := range []struct {
			name string
			pow  func(x, y float64) float64
		}{{"Pow", Pow}, {"math.Pow", math.Pow}} {
			got := impl.pow(c.x, c.y)
			if math.Float64bits(got) != math.Float64bits(c.want) && !(math.IsNaN(got) && math.IsNaN(c.want)) {
				t.Errorf("%s(%v, %v) = %v, want %v", impl.name, c.x, c.y, got, c.want)
			}
		}
	}
	known := []struct{ x, y, want float64 }{
		{-2, 3, -8}, {-2, -3, -0.125}, {-2, 2, 4}, {-2, -1, -0.5}, {-3, 35, -50031545098999707},
		{4, 0.5, 2}, {2, 0.5, math.Sqrt2}, {7, 1, 7}, {7, 0, 1}, {3, 2, 9}, {4, -1, 0.25},
		{4, 1.5, 8}, {9, 1.5, 27}, {16, 0.25, 2}, {16, -0.75, 0.125}, {0.25, -2.5, 32}, {10, 15, 1e15}, {10, 22, 1e22},
		{2, 1023, 0x1p1023}, {2, -1074, 0x1p-1074}, {2, -1022, 0x1p-1022}, {0.5, 1074, 0x1p-1074},
		{math.MaxFloat64, -1, 1 / math.MaxFloat64}, {math.SmallestNonzeroFloat64, 1, math.SmallestNonzeroFloat64},
		{math.SmallestNonzeroFloat64, 0.5, 0x1p-537}, {0x1p-1073, 1.5, 0}, {0x1p-1072, 0.5, 0x1p-536},
		{1e10, 0.1, 10.000000000000002}, // 0.1 is a little more than 1/10
	}
	for _, c := range known {
		if got := Pow(c.x, c.y); math.Float64bits(got) != math.Float64bits(c.want) {
			t.Errorf("Pow(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// TestPowTiesToEven: a power that is exactly halfway between two floats
// rounds to the even one (3^34 has 54 significant bits; so has s^3 for
// x = s^2 and y = 1.5).
func TestPowTiesToEven(t *testing.T) {
	checked := 0
	for n := int64(3); n <= 34; n++ {
		for odd := int64(3); ; odd += 2 {
			exact := new(big.Int).Exp(big.NewInt(odd), big.NewInt(n), nil)
			if exact.BitLen() > 54 {
				break
			}
			if exact.BitLen() < 54 {
				continue
			}
			for _, scale := range []int{0, -1100 / int(n), 900 / int(n)} {
				x := math.Ldexp(float64(odd), scale)
				want, _ := new(big.Float).SetMantExp(new(big.Float).SetInt(exact), scale*int(n)).Float64()
				if got := Pow(x, float64(n)); got != want {
					t.Errorf("Pow(%v, %d) = %v, want %v (ties to even)", x, n, got, want)
				}
				checked++
			}
			if odd > 1001 {
				break
			}
		}
	}
	for _, s := range []int64{208069, 208083, 230001, 262143} {
		exact := new(big.Int).Exp(big.NewInt(s), big.NewInt(3), nil)
		if exact.BitLen() != 54 || exact.Bit(0) != 1 {
			t.Fatalf("%d³ is not a 54-bit odd number", s)
		}
		want, _ := new(big.Float).SetInt(exact).Float64()
		if got := Pow(float64(s*s), 1.5); got != want {
			t.Errorf("Pow(%d, 1.5) = %v, want %v", s*s, got, want)
		}
		checked++
	}
	if got, want := Pow(3, 34), 16677181699666568.0; got != want {
		t.Errorf("Pow(3, 34) = %v, want %v", got, want)
	}
	if checked < 100 {
		t.Fatalf("only %d midpoints", checked)
	}
}

// TestPowCorrectlyRounded compares Pow on random arguments with the power
// computed in 320-bit arithmetic and rounded once, and checks the
// double-double core stays within the error bound Pow relies on.
func TestPowCorrectlyRounded(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	rng := rand.New(rand.NewSource(1))
	worst := 0.0
	for i := 0; i < n; i++ {
		var x, y float64
		switch i % 5 {
		case 0: // any positive float, any power in range
			x = math.Float64frombits(uint64(rng.Int63n(0x7fefffffffffffff)) + 1)
			y = (rng.Float64()*1455 - 745) / math.Log(x)
		case 1:
			x, y = rng.Float64()*100, rng.Float64()*60-30
		case 2:
			x, y = rng.Float64()*100, float64(rng.Intn(61)-30)
		case 3: // just around 1, where log x cancels
			x = 1 + (rng.Float64()-0.5)*math.Ldexp(1, -rng.Intn(50))
			y = (rng.Float64()*1455 - 745) / math.Log(x)
		case 4:
			x, y = rng.Float64()*2, rng.NormFloat64()*3
		}
		if x == 1 || x == 0 || math.IsInf(y, 0) || math.IsNaN(y) {
			continue
		}
		exact := refPow(x, y)
		want, _ := exact.Float64()
		if got := Pow(x, y); got != want {
			t.Errorf("Pow(%v, %v) = %v, want %v", x, y, got, want)
		}
		if math.Abs(math.Log(x)*y) < 709 {
			v, k := powTab().exp(powTab().log(x).MulF(y))
			approx := new(big.Float).SetPrec(320).SetFloat64(v.Hi)
			approx.Add(approx, big.NewFloat(v.Lo)).SetMantExp(approx, k)
			rel, _ := approx.Sub(approx, exact).Quo(approx, exact).Float64()
			worst = math.Max(worst, math.Abs(rel))
		}
	}
	if worst > 0x1p-88 {
		t.Errorf("double-double relative error %g > 2⁻⁸⁸", worst)
	}
	t.Logf("worst double-double relative error 2^%.1f", math.Log2(worst))
}

// TestPowRoundingSteps drives the rounding of a subnormal result and the
// exact decision between two floats with values whose answer is known.
func TestPowRoundingSteps(t *testing.T) {
	tiny := math.SmallestNonzeroFloat64
	for _, c := range []struct {
		v    dd
		k    int
		want float64
	}{
		{dd{Hi: 1.5, Lo: -0x1p-60}, -1074, tiny}, {dd{Hi: 1.5, Lo: 0}, -1074, 2 * tiny}, {dd{Hi: 1.5, Lo: 0x1p-60}, -1074, 2 * tiny},
		{dd{Hi: 1.25, Lo: 0}, -1073, 2 * tiny}, {dd{Hi: 1.25, Lo: 0x1p-60}, -1073, 3 * tiny}, {dd{Hi: 1.75, Lo: -0x1p-60}, -1073, 3 * tiny},
		{dd{Hi: 1, Lo: 0}, -1075, 0}, {dd{Hi: 1, Lo: 0x1p-60}, -1075, tiny}, {dd{Hi: 1.99, Lo: 0}, -1076, 0}, {dd{Hi: 1.99, Lo: 0}, -1077, 0},
		{dd{Hi: 1 - 0x1p-53, Lo: 0}, -1022, 0x1p-1022}, {dd{Hi: 1 - 0x1p-52, Lo: 0}, -1022, 0x1p-1022 - tiny},
		{dd{Hi: 1.5, Lo: 0}, 1023, 1.5 * 0x1p1023}, {dd{Hi: 1, Lo: 0}, 1024, math.Inf(1)}, {dd{Hi: 0.75, Lo: 0}, 1024, 1.5 * 0x1p1023},
	} {
		if got := roundScaled(c.v, c.k); got != c.want {
			t.Errorf("roundScaled(%v, %d) = %v, want %v", c.v, c.k, got, c.want)
		}
	}
	next := func(f float64) float64 { return math.Nextafter(f, math.Inf(1)) }
	prev := func(f float64) float64 { return math.Nextafter(f, 0) }
	for _, c := range []struct{ x, y, lower, upper, want float64 }{
		{3, 2, 9, next(9), 9}, {3, 2, prev(9), 9, 9}, {2, -3, prev(0.125), 0.125, 0.125},
		{2, -3, 0.125, next(0.125), 0.125}, {4, 1.5, prev(8), 8, 8}, {64, -0.5, 0.125, next(0.125), 0.125},
		{0x1p16, 64, math.MaxFloat64, math.Inf(1), math.Inf(1)}, {math.MaxFloat64, 1, math.MaxFloat64, math.Inf(1), math.MaxFloat64},
	} {
		if got, ok := powBoundary(c.x, c.y, c.lower, c.upper); !ok || got != c.want {
			t.Errorf("powBoundary(%v, %v, %v, %v) = %v, %v; want %v", c.x, c.y, c.lower, c.upper, got, ok, c.want)
		}
	}
	if _, ok := powBoundary(2, 1.1, 2.1435469250725863, next(2.1435469250725863)); ok {
		t.Error("powBoundary decided 2**1.1, which is never a midpoint")
	}
}

func TestPowTables(t *testing.T) {
	tab := powTab()
	if tab.logC[127] != tab.ln2 || tab.logC[0] != (dd{}) || tab.c[0] != 1 || tab.c[127] != 0.5 {
		t.Fatal("log x does not cancel exactly near x = 1")
	}
	for i, c := range tab.c {
		for _, m := range []float64{1 + float64(i)/128, math.Nextafter(1+float64(i+1)/128, 0)} {
			if r := math.Abs(m*c - 1); r >= 1.0/128 {
				t.Errorf("c[%d]: |m·c − 1| = %g for m = %v", i, r, m)
			}
		}
		want := bigLog(new(big.Float).SetPrec(320).Quo(big.NewFloat(1), big.NewFloat(c)))
		if rel := ddRelErr(tab.logC[i], want); rel > 0x1p-103 {
			t.Errorf("logC[%d] relative error %g", i, rel)
		}
	}
	for j, v := range tab.exp2 {
		want := bigExp(new(big.Float).SetPrec(320).Mul(bigLn2(), big.NewFloat(float64(j)/64)))
		if rel := ddRelErr(v, want); rel > 0x1p-103 {
			t.Errorf("exp2[%d] relative error %g", j, rel)
		}
	}
}

func ddRelErr(v dd, want *big.Float) float64 {
	got := new(big.Float).SetPrec(320).SetFloat64(v.Hi)
	got.Add(got, big.NewFloat(v.Lo))
	if want.Sign() == 0 {
		f, _ := got.Float64()
		return math.Abs(f)
	}
	rel, _ := got.Sub(got, want).Quo(got, want).Float64()
	return math.Abs(rel)
}

// refPow is |x|**y in 320-bit arithmetic (x ≠ 0, the result not
// overflowing the exponent range of big.Float).
func refPow(x, y float64) *big.Float {
	l := bigLog(new(big.Float).SetPrec(320).SetFloat64(math.Abs(x)))
	return bigExp(l.Mul(l, big.NewFloat(y)))
}

// bigLog is log x: x = m·2^k, m in [½, 1), log m = 2·atanh((m−1)/(m+1)).
func bigLog(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(320)
	k := x.MantExp(m)
	sum := bigAtanhTimes2(m)
	return sum.Add(sum, new(big.Float).Mul(bigLn2(), big.NewFloat(float64(k))))
}

var refLn2 = bigAtanhTimes2(new(big.Float).SetPrec(320).SetInt64(2))

func bigLn2() *big.Float { return new(big.Float).Set(refLn2) }

// bigAtanhTimes2 is 2·atanh((m−1)/(m+1)) = log m.
func bigAtanhTimes2(m *big.Float) *big.Float {
	one := big.NewFloat(1)
	s := new(big.Float).SetPrec(320).Sub(m, one)
	s.Quo(s, new(big.Float).SetPrec(320).Add(m, one))
	s2 := new(big.Float).SetPrec(320).Mul(s, s)
	sum := new(big.Float).SetPrec(320).Set(s)
	power := new(big.Float).SetPrec(320).Set(s)
	term := new(big.Float).SetPrec(320)
	for n := int64(3); power.Sign() != 0 && power.MantExp(nil)-sum.MantExp(nil) > -340; n += 2 {
		power.Mul(power, s2)
		sum.Add(sum, term.Quo(power, new(big.Float).SetInt64(n)))
	}
	return sum.Mul(sum, big.NewFloat(2))
}

// bigExp is e^z: z = k·log 2 + r, e^r = (e^(r/2²⁰))^(2²⁰).
func bigExp(z *big.Float) *big.Float {
	ln2 := bigLn2()
	kf, _ := new(big.Float).Quo(z, ln2).Float64()
	k := math.Round(kf)
	r := new(big.Float).SetPrec(320).Mul(ln2, big.NewFloat(k))
	r.Sub(z, r)
	r.SetMantExp(r, -20)
	sum := new(big.Float).SetPrec(320).SetInt64(1)
	term := new(big.Float).SetPrec(320).SetInt64(1)
	for n := int64(1); n < 30; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(n))
		sum.Add(sum, term)
	}
	for i := 0; i < 20; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

var powSink float64

func BenchmarkPow(b *testing.B) {
	xs, ys := benchPowArgs()
	for i := 0; i < b.N; i++ {
		powSink = Pow(xs[i&1023], ys[i&1023])
	}
}

func BenchmarkMathPow(b *testing.B) {
	xs, ys := benchPowArgs()
	for i := 0; i < b.N; i++ {
		powSink = math.Pow(xs[i&1023], ys[i&1023])
	}
}

func benchPowArgs() (xs, ys []float64) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 1024; i++ {
		xs = append(xs, rng.Float64()*100)
		ys = append(ys, rng.Float64()*60-30)
	}
	return xs, ys
}

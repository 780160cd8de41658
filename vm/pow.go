package vm

import (
	"github.com/harnlang/harn/internal/ddarith"
	"math"
	"math/big"
	"sync"
)

// Float powers, correctly rounded (docs/language.md §2).
//
// Upstream Harn raises floats with Rust's f64::powf, which is the C
// library's pow; glibc's returns the correctly rounded result in practice.
// Go's math.Pow is an ulp off in about a quarter of cases, which shows in
// printed digits (2 ** 1.5 printed 2.82842712474619 instead of
// 2.8284271247461903). Pow evaluates exp(y·log x) in double-double
// arithmetic (about 106 bits, so a relative error under 2⁻⁸⁸) and rounds
// once at the end. When the exact power lies so close to a rounding
// boundary that the error could matter, and y has the few-bit form for
// which the power can be a boundary exactly, powBoundary settles the
// rounding with exact arithmetic (ties go to even; glibc only gets a tie
// right half of the time, since its result there depends on the sign of
// its internal error).

// Pow is x**y for floats, correctly rounded to nearest (ties to even), with
// the special cases of C99 Annex F (the same as math.Pow's).
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1:
		return x
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case x == 0:
		odd := isOddInt(y)
		switch {
		case y < 0 && odd && math.Signbit(x):
			return math.Inf(-1)
		case y < 0:
			return math.Inf(1)
		case odd:
			return x
		}
		return 0
	case math.IsInf(y, 0):
		switch {
		case x == -1:
			return 1
		case (math.Abs(x) < 1) == (y > 0):
			return 0
		}
		return math.Inf(1)
	case math.IsInf(x, 0):
		if x < 0 {
			return Pow(1/x, -y) // (-∞)**y is (-0)**-y
		}
		if y < 0 {
			return 0
		}
		return math.Inf(1)
	case y == 0.5:
		return math.Sqrt(x) // one rounding; x is neither ±0 nor -∞ here
	case y == 2:
		return x * x
	case y == -1:
		return 1 / x
	}
	negate := false
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		negate = isOddInt(y)
		x = -x
	}
	r := powPositive(x, y)
	if negate {
		return -r
	}
	return r
}

// isOddInt reports whether y is an odd integer (every float of magnitude
// 2⁵³ or more is even).
func isOddInt(y float64) bool {
	if math.Abs(y) >= 1<<53 {
		return false
	}
	i := int64(y)
	return float64(i) == y && i&1 == 1
}

// powPositive is x**y for finite x > 0, x ≠ 1, and finite y ≠ 0.
func powPositive(x, y float64) float64 {
	tab := powTab()
	l := tab.log(x)
	switch z := l.Hi * y; {
	case z > 710: // past log(MaxFloat64) ≈ 709.78
		return math.Inf(1)
	case z < -746: // below log(2⁻¹⁰⁷⁵) ≈ -745.13
		return 0
	}
	v, k := tab.exp(l.MulF(y))
	// v·2^k is x**y with a relative error below 2⁻⁸⁸ (TestPowCorrectlyRounded
	// measures it); the rounding is certain unless the ends of a wider
	// interval, ±2⁻⁸⁰, round apart.
	slack := v.Hi * 0x1p-80
	lower := roundScaled(ddarith.FastTwoSum(v.Hi, v.Lo-slack), k)
	upper := roundScaled(ddarith.FastTwoSum(v.Hi, v.Lo+slack), k)
	if lower == upper {
		return lower
	}
	if r, ok := powBoundary(x, y, lower, upper); ok {
		return r
	}
	return roundScaled(v, k)
}

// roundScaled rounds v·2^k to the nearest float, v being a normalized
// double-double in [½, 2).
func roundScaled(v dd, k int) float64 {
	if k > -1022 || (k == -1022 && v.Hi >= 1) {
		return ldexp(v.Hi, k) // normal: v.Hi is already v rounded
	}
	if k < -1076 {
		return 0 // below 2⁻¹⁰⁷⁵, half the smallest subnormal
	}
	// A subnormal result is a multiple of 2⁻¹⁰⁷⁴: round a = v·2^(k+1074)
	// to an integer. v.Lo is at most half an ulp of v.Hi, so it only
	// decides a v.Hi that sits exactly halfway.
	s := pow2(k + 1074)
	a := v.Hi * s
	n := math.RoundToEven(a)
	switch rem := a - n; {
	case rem == 0.5 && v.Lo > 0:
		n++
	case rem == -0.5 && v.Lo < 0:
		n--
	}
	return n * 0x1p-1074
}

// ldexp is f·2^k, exact unless the result overflows (then ±Inf).
func ldexp(f float64, k int) float64 {
	if k >= -1022 && k <= 1023 {
		return f * pow2(k)
	}
	return math.Ldexp(f, k)
}

// pow2 is 2^k for -1022 ≤ k ≤ 1023.
func pow2(k int) float64 {
	return math.Float64frombits(uint64(k+1023) << 52)
}

// powBoundary decides x**y (x > 0) exactly between two adjacent floats lower and
// upper when x**y may be their midpoint: y = n/2^q with small n and q, the
// only exponents for which a power of a float can be a midpoint (a
// midpoint has 54 significant bits, and then n ≤ 34, 2^q ≤ 32). It
// compares x^n with m^(2^q), m being the midpoint.
func powBoundary(x, y, lower, upper float64) (float64, bool) {
	n, q, ok := dyadic(y)
	if !ok || math.Nextafter(lower, math.Inf(1)) != upper {
		return 0, false
	}
	const prec = 1 << 13 // x^64 has at most 64·53 bits, m^32 32·54
	mid := new(big.Float).SetPrec(prec).SetFloat64(lower)
	if math.IsInf(upper, 1) {
		// the midpoint between MaxFloat64 and 2^1024
		mid.Add(mid, new(big.Float).SetMantExp(big.NewFloat(1), 970))
	} else {
		mid.Add(mid, big.NewFloat(upper))
		mid.SetMantExp(mid, -1)
	}
	left := bigPow(big.NewFloat(x), abs64(n), prec) // x^|n|
	right := bigPow(mid, 1<<q, prec)                // m^(2^q)
	if n < 0 {
		// x^n ≷ m^(2^q)  ⇔  1 ≷ m^(2^q)·x^|n|
		right.Mul(right, left)
		left = big.NewFloat(1)
	}
	switch left.Cmp(right) {
	case 1:
		return upper, true
	case -1:
		return lower, true
	}
	if math.Float64bits(lower)&1 == 0 {
		return lower, true
	}
	return upper, true
}

// dyadic writes y as n/2^q with |n| ≤ 64 and q ≤ 5, when it can.
func dyadic(y float64) (n int64, q uint, ok bool) {
	for q = 0; q <= 5; q++ {
		t := math.Ldexp(y, int(q))
		if t == math.Trunc(t) && math.Abs(t) <= 64 {
			return int64(t), q, true
		}
	}
	return 0, 0, false
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// bigPow is b^e computed exactly (prec is enough for the result).
func bigPow(b *big.Float, e int64, prec uint) *big.Float {
	result := new(big.Float).SetPrec(prec).SetInt64(1)
	base := new(big.Float).SetPrec(prec).Set(b)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			result.Mul(result, base)
		}
		if e > 1 {
			base.Mul(base, base)
		}
	}
	return result
}

// powTab builds the tables on first use (some 50µs, which a program
// without float powers need not pay), from series rather than typed-in
// constants.
var powTab = sync.OnceValue(newPowTables)

type powTables struct {
	ln2, ln2by64 dd
	// logC[i] is log(1/c[i]), c[i] = C/256 ≈ 1/(1 + (i+½)/128) a reciprocal
	// with 8 significant bits, so that m·c[i] − 1 is exact for the m whose
	// top seven fraction bits are i. c[0] is 1 and c[127] is ½, so that
	// log x near x = 1 cancels exactly (powTables.log).
	c    [128]float64
	logC [128]dd
	exp2 [64]dd // 2^(j/64)
	fact [12]dd // 1/n!
	odd  [3]dd  // 1, 1/3, 1/5
}

func newPowTables() *powTables {
	t := new(powTables)
	t.ln2 = seriesLogRatio(256, 128)
	t.ln2by64 = dd{Hi: t.ln2.Hi / 64, Lo: t.ln2.Lo / 64}
	for i := range t.c {
		c := math.RoundToEven(65536 / float64(256+2*i+1))
		if i == 0 {
			c = 256
		}
		t.c[i] = c / 256
		t.logC[i] = seriesLogRatio(256, c)
	}
	for j := range t.exp2 {
		t.exp2[j] = seriesExp(t.ln2.MulF(float64(j) / 64))
	}
	t.fact[0] = dd{Hi: 1, Lo: 0}
	for n := 1; n < len(t.fact); n++ {
		t.fact[n] = t.fact[n-1].Div(dd{Hi: float64(n), Lo: 0})
	}
	for i := range t.odd {
		t.odd[i] = dd{Hi: 1, Lo: 0}.Div(dd{Hi: float64(2*i + 1), Lo: 0})
	}
	return t
}

// seriesLogRatio is log(a/b) for integers 0 < b ≤ a ≤ 2b, from
// log(a/b) = 2·atanh((a−b)/(a+b)) summed to full double-double precision.
func seriesLogRatio(a, b float64) dd {
	s := dd{Hi: a - b, Lo: 0}.Div(dd{Hi: a + b, Lo: 0})
	s2 := s.Mul(s)
	sum, power := s, s
	for n := 3.0; power.Hi != 0 && math.Abs(power.Hi) > 0x1p-120*math.Abs(sum.Hi); n += 2 {
		power = power.Mul(s2)
		sum = sum.Add(power.Div(dd{Hi: n, Lo: 0}))
	}
	return sum.MulF(2)
}

// seriesExp is e^a for 0 ≤ a < 1 from its Taylor series.
func seriesExp(a dd) dd {
	sum, term := dd{Hi: 1, Lo: 0}, dd{Hi: 1, Lo: 0}
	for n := 1.0; term.Hi > 0x1p-120; n++ {
		term = term.Mul(a).Div(dd{Hi: n, Lo: 0})
		sum = sum.Add(term)
	}
	return sum
}

// log is log x for finite x > 0 with a relative error of a few 2⁻¹⁰⁵
// (2⁻⁹⁹ at worst, just below x = 1 where k·log 2 and the table cancel).
// With x = 2^k·m, m in [1, 2), and c the table reciprocal for m,
// log x = k·log 2 + log(1/c) + log1p(r) with r = m·c − 1 exact and
// |r| < 2⁻⁷; log1p(r) = 2·atanh(s), s = r/(2+r), |s| < 2⁻⁸.
func (tab *powTables) log(x float64) dd {
	b := math.Float64bits(x)
	k := int(b>>52) - 1023
	if b>>52 == 0 { // subnormal
		b = math.Float64bits(x * 0x1p54)
		k = int(b>>52) - 1023 - 54
	}
	i := (b >> 45) & 127
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	c := tab.c[i]
	head := 1 + float64(i)/128
	// head·c has 16 bits and (m−head)·c 53: both products are exact.
	r := ddarith.TwoSum(head*c-1, (m-head)*c)
	s := r.Div(ddarith.FastTwoSum(2, r.Hi).AddF(r.Lo))
	u := s.Mul(s)
	// 2s·(1 + u/3 + u²/5 + u³/7 + …): past u², double precision is enough.
	tail := 1.0/7 + u.Hi*(1.0/9+u.Hi*(1.0/11+u.Hi*(1.0/13)))
	p := u.MulF(tail).AddNoCancel(tab.odd[2]).Mul(u).AddNoCancel(tab.odd[1]).Mul(u).AddNoCancel(tab.odd[0])
	log1p := s.Mul(p).MulF(2)
	return tab.ln2.MulF(float64(k)).Add(tab.logC[i]).Add(log1p)
}

// exp is e^z as v·2^k with v in [2^(−1/128), 2) for |z| ≤ 746:
// z = (64k + j)·log2/64 + r with |r| ≤ log2/128, e^z = 2^k·2^(j/64)·e^r,
// and e^r from its Taylor series to degree 11 (the terms past r⁵ need
// only double precision).
func (tab *powTables) exp(z dd) (dd, int) {
	t := math.RoundToEven(z.Hi * (64 / math.Ln2))
	r := z.Add(tab.ln2by64.MulF(-t))
	f := &tab.fact
	tail := f[6].Hi + r.Hi*(f[7].Hi+r.Hi*(f[8].Hi+r.Hi*(f[9].Hi+r.Hi*(f[10].Hi+r.Hi*f[11].Hi))))
	p := dd{Hi: tail, Lo: 0}
	for n := 5; n >= 0; n-- {
		p = p.Mul(r).AddNoCancel(f[n])
	}
	ti := int(t)
	return tab.exp2[ti&63].Mul(p), ti >> 6
}

// dd is a double-double (internal/ddarith).
type dd = ddarith.Num

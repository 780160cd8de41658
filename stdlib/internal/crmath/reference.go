package crmath

import (
	"math"
	"math/big"
	"sync"
)

// The reference path: correctly rounded elementary functions in big.Float.
//
// Upstream Harn calls the C library's sin, cos, exp, log, … through Rust's
// f64 methods; glibc returns the correctly rounded result in practice.
// Go's math package is an ulp off in a fifth to a third of the arguments,
// which shows in the printed digits (ln(3) printed 1.0986122886681096
// instead of 1.0986122886681098, tan(1) 1.557407724654902 instead of
// 1.5574077246549023). Each ref function here evaluates its series in
// big.Float arithmetic at crPrec bits and rounds once to the nearest
// float64. Special values (NaN, infinities, zeros, arguments outside the
// domain) and exp results that overflow or are subnormal keep Go's answer,
// which follows C's special cases.

// crPrec is the working precision: far more than the 53 bits of the result
// plus the cancellation of an argument reduction, so rounding the big
// result gives the correctly rounded float64.
const crPrec = 128

var crConsts = sync.OnceValue(func() (c struct{ pi, halfPi, ln2 *big.Float }) {
	// π = 16·atan(1/5) − 4·atan(1/239) (Machin) and ln 2 = 2·atanh(1/3),
	// at twice the working precision
	const p = 2 * crPrec
	a := atanSeries(newF(p).Quo(newF(p).SetInt64(1), newF(p).SetInt64(5)), p)
	b := atanSeries(newF(p).Quo(newF(p).SetInt64(1), newF(p).SetInt64(239)), p)
	c.pi = newF(p).Sub(a.Mul(a, newF(p).SetInt64(16)), b.Mul(b, newF(p).SetInt64(4)))
	c.halfPi = newF(p).Quo(c.pi, newF(p).SetInt64(2))
	l := atanhSeries(newF(p).Quo(newF(p).SetInt64(1), newF(p).SetInt64(3)), p)
	c.ln2 = l.Mul(l, newF(p).SetInt64(2))
	return c
})

func newF(prec uint) *big.Float { return new(big.Float).SetPrec(prec) }

func bigOf(x float64) *big.Float { return newF(crPrec).SetFloat64(x) }

func round64(x *big.Float) float64 {
	f, _ := x.Float64()
	return f
}

// atanhSeries is t + t³/3 + t⁵/5 + … for a small |t|.
func atanhSeries(t *big.Float, prec uint) *big.Float {
	return oddSeries(t, prec, false)
}

// atanSeries is t − t³/3 + t⁵/5 − … for a small |t|.
func atanSeries(t *big.Float, prec uint) *big.Float {
	return oddSeries(t, prec, true)
}

func oddSeries(t *big.Float, prec uint, alternate bool) *big.Float {
	sum := newF(prec).Set(t)
	t2 := newF(prec).Mul(t, t)
	pow := newF(prec).Set(t)
	term := newF(prec)
	for n := 3; ; n += 2 {
		pow.Mul(pow, t2)
		if alternate {
			pow.Neg(pow)
		}
		divide(term, pow, n, prec)
		if small(term, sum, prec) {
			return sum
		}
		sum.Add(sum, term)
	}
}

// reciprocals holds 1/n at the working precision for the series' small
// divisors: a multiplication costs a fraction of a division.
var reciprocals = sync.OnceValue(func() []*big.Float {
	r := make([]*big.Float, 256)
	for n := 1; n < len(r); n++ {
		r[n] = newF(crPrec).Quo(newF(crPrec).SetInt64(1), newF(crPrec).SetInt64(int64(n)))
	}
	return r
})

// divide sets z = x / n.
func divide(z, x *big.Float, n int, prec uint) {
	if r := reciprocals(); prec <= crPrec && n < len(r) {
		z.Mul(x, r[n])
		return
	}
	z.Quo(x, newF(prec).SetInt64(int64(n)))
}

// small reports whether term no longer changes sum at prec bits.
func small(term, sum *big.Float, prec uint) bool {
	return term.Sign() == 0 || sum.Sign() != 0 && term.MantExp(nil) < sum.MantExp(nil)-int(prec)-2
}

// expBig is e**r for a big r of moderate size: r is halved ten times, the
// series summed, and the result squared back.
func expBig(r *big.Float) *big.Float {
	const halvings = 10
	x := newF(crPrec).SetMantExp(r, -halvings)
	sum := newF(crPrec).SetInt64(1)
	term := newF(crPrec).SetInt64(1)
	for n := 1; ; n++ {
		term.Mul(term, x)
		divide(term, term, n, crPrec)
		if small(term, sum, crPrec) {
			break
		}
		sum.Add(sum, term)
	}
	for range halvings {
		sum.Mul(sum, sum)
	}
	return sum
}

// lnBig is the natural logarithm of a positive finite x as a big value:
// x = m·2^e with m scaled into [√½, √2), ln m = 2·atanh((m−1)/(m+1)).
func lnBig(x float64) *big.Float {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	bm := bigOf(m)
	one := newF(crPrec).SetInt64(1)
	t := newF(crPrec).Quo(newF(crPrec).Sub(bm, one), newF(crPrec).Add(bm, one))
	l := atanhSeries(t, crPrec)
	l.Mul(l, newF(crPrec).SetInt64(2))
	return l.Add(l, newF(crPrec).Mul(crConsts().ln2, newF(crPrec).SetInt64(int64(e))))
}

func refExp(x float64) float64 {
	g := math.Exp(x)
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 || g == 0 || math.IsInf(g, 0) || g < 0x1p-1022 {
		return g
	}
	c := crConsts()
	k := math.Round(x / math.Ln2)
	r := newF(crPrec).Sub(bigOf(x), newF(crPrec).Mul(c.ln2, bigOf(k)))
	v := expBig(r)
	return round64(v.SetMantExp(v, int(k)))
}

func refLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) || x == 1 {
		return math.Log(x)
	}
	return round64(lnBig(x))
}

func refLog2(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return math.Log2(x)
	}
	if m, e := math.Frexp(x); m == 0.5 {
		return float64(e - 1) // a power of two
	}
	return round64(newF(crPrec).Quo(lnBig(x), crConsts().ln2))
}

// log10 constants of the C library's formula: 1/ln 10, and log10(2) split
// into a high part with trailing zero bits and the rest.
var (
	invLn10   = math.Float64frombits(0x3FDBCB7B1526E50E)
	log10of2H = math.Float64frombits(0x3FD34413509F6000)
	log10of2L = math.Float64frombits(0x3D59FEF311F12B36)
)

// log10With is log10 as the C library computes it, which is not correctly
// rounded: x = m·2^k with m in [1, 2) (or [½, 1) when k < 0, taking one
// off k), then k·log10(2) in two parts plus ln(m)/ln(10), with ln the
// given correctly rounded natural logarithm.
func log10With(ln func(float64) float64, x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) || x == 1 {
		return math.Log10(x)
	}
	m, e := math.Frexp(x) // x = m·2^e, m in [½, 1)
	k := e - 1
	if k >= 0 {
		m *= 2
	} else {
		k++
	}
	y := float64(k)
	z := y*log10of2L + invLn10*ln(m)
	return z + y*log10of2H
}

// sinCosBig reduces x modulo π/2 and returns sin and cos of x. The
// reduction carries as many extra bits as x has integer bits, so that
// nothing of the remainder is lost however large x is.
func sinCosBig(x float64) (s, c *big.Float) {
	p := uint(2 * crPrec)
	if e := math.Ilogb(x); e > 0 {
		p += uint(e)
	}
	halfPi := crConsts().halfPi
	if p > halfPi.Prec() {
		halfPi = wideHalfPi()
	}
	bx := newF(p).SetFloat64(x)
	var k *big.Int
	if math.Abs(x) < 1<<50 {
		// a float quotient may pick the neighbouring k near a half, which
		// only leaves |r| a hair above π/4
		k = big.NewInt(int64(math.Round(x / (math.Pi / 2))))
	} else {
		k = nearestInt(newF(p).Quo(bx, halfPi))
	}
	r := newF(p).Sub(bx, newF(p).Mul(halfPi, newF(p).SetInt(k)))
	r.SetPrec(crPrec)
	rs, rc := sinSeries(r), cosSeries(r)
	switch new(big.Int).And(k, big.NewInt(3)).Int64() { // k mod 4, also for k < 0
	case 0:
		return rs, rc
	case 1:
		return rc, rs.Neg(rs)
	case 2:
		return rs.Neg(rs), rc.Neg(rc)
	}
	return rc.Neg(rc), rs
}

// wideHalfPi is π/2 with enough bits to reduce any finite float64.
var wideHalfPi = sync.OnceValue(func() *big.Float {
	const p = 1100 + 3*crPrec
	a := atanSeries(newF(p).Quo(newF(p).SetInt64(1), newF(p).SetInt64(5)), p)
	b := atanSeries(newF(p).Quo(newF(p).SetInt64(1), newF(p).SetInt64(239)), p)
	pi := newF(p).Sub(a.Mul(a, newF(p).SetInt64(16)), b.Mul(b, newF(p).SetInt64(4)))
	return pi.Quo(pi, newF(p).SetInt64(2))
})

// nearestInt rounds q to the nearest integer (halves away from zero).
func nearestInt(q *big.Float) *big.Int {
	half := newF(q.Prec()).SetFloat64(0.5)
	if q.Sign() < 0 {
		half.Neg(half)
	}
	k, _ := newF(q.Prec()).Add(q, half).Int(nil)
	return k
}

// sinSeries and cosSeries sum the Taylor series for |r| ≤ π/4.
func sinSeries(r *big.Float) *big.Float { return trigSeries(r, newF(crPrec).Set(r), 2) }

func cosSeries(r *big.Float) *big.Float {
	return trigSeries(r, newF(crPrec).SetInt64(1), 1)
}

func trigSeries(r, first *big.Float, n int) *big.Float {
	r2 := newF(crPrec).Mul(r, r)
	sum := newF(crPrec).Set(first)
	term := newF(crPrec).Set(first)
	for ; ; n += 2 {
		term.Mul(term, r2)
		divide(term, term, n, crPrec)
		divide(term, term, n+1, crPrec)
		term.Neg(term)
		if small(term, sum, crPrec) {
			return sum
		}
		sum.Add(sum, term)
	}
}

func trigArg(x float64) bool {
	return !math.IsNaN(x) && !math.IsInf(x, 0) && x != 0
}

func refSin(x float64) float64 {
	if !trigArg(x) {
		return math.Sin(x)
	}
	s, _ := sinCosBig(x)
	return round64(s)
}

func refCos(x float64) float64 {
	if !trigArg(x) {
		return math.Cos(x)
	}
	_, c := sinCosBig(x)
	return round64(c)
}

func refTan(x float64) float64 {
	if !trigArg(x) {
		return math.Tan(x)
	}
	s, c := sinCosBig(x)
	return round64(s.Quo(s, c))
}

// atanBig is atan of a big t: |t| > 1 uses π/2 − atan(1/|t|), then three
// halvings atan(t) = 2·atan(t / (1 + √(1 + t²))) make the series short.
func atanBig(t *big.Float) *big.Float {
	c := crConsts()
	neg := t.Sign() < 0
	a := newF(crPrec).Abs(t)
	inverted := a.Cmp(newF(crPrec).SetInt64(1)) > 0
	if inverted {
		a.Quo(newF(crPrec).SetInt64(1), a)
	}
	const halvings = 3
	one := newF(crPrec).SetInt64(1)
	for range halvings {
		root := newF(crPrec).Sqrt(newF(crPrec).Add(one, newF(crPrec).Mul(a, a)))
		a.Quo(a, root.Add(root, one))
	}
	v := atanSeries(a, crPrec)
	v.SetMantExp(v, halvings)
	if inverted {
		v.Sub(newF(crPrec).Set(c.halfPi), v)
	}
	if neg {
		v.Neg(v)
	}
	return v
}

func refAtan(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return math.Atan(x)
	}
	return round64(atanBig(bigOf(x)))
}

// asinBig is asin x = atan(x / √(1 − x²)) for |x| < 1.
func asinBig(x float64) *big.Float {
	b := bigOf(x)
	d := newF(crPrec).Sub(newF(crPrec).SetInt64(1), newF(crPrec).Mul(b, b))
	return atanBig(b.Quo(b, d.Sqrt(d)))
}

func refAsin(x float64) float64 {
	if math.IsNaN(x) || x == 0 || math.Abs(x) >= 1 {
		return math.Asin(x)
	}
	return round64(asinBig(x))
}

func refAcos(x float64) float64 {
	if math.IsNaN(x) || math.Abs(x) >= 1 {
		return math.Acos(x)
	}
	v := newF(crPrec).Set(crConsts().halfPi)
	return round64(v.Sub(v, asinBig(x)))
}

func refAtan2(y, x float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 {
		return math.Atan2(y, x)
	}
	v := atanBig(newF(crPrec).Quo(bigOf(y), bigOf(x)))
	if x < 0 {
		pi := newF(crPrec).Set(crConsts().pi)
		if y > 0 {
			v.Add(v, pi)
		} else {
			v.Sub(v, pi)
		}
	}
	return round64(v)
}

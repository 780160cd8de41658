package crmath

import (
	"math"
	"math/big"
)

// Double-double arithmetic: a value is the unevaluated sum hi + lo of two
// float64 with |lo| ≤ ulp(hi)/2, about 106 significant bits. The error
// bounds quoted are relative, in units of u² = 2⁻¹⁰⁶ (u = 2⁻⁵³, the
// float64 rounding unit), from Joldes, Muller and Popescu, "Tight and
// rigorous error bounds for basic building blocks of double-word
// arithmetic" (2017); the fast paths only rely on each operation being
// better than 16u² = 2⁻¹⁰².

type dd struct{ hi, lo float64 }

// twoSum is a + b exactly.
func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

// fastTwoSum is a + b exactly when |a| ≥ |b| (or a is zero).
func fastTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd is a·b exactly (barring underflow).
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

// add is a + b within 3u².
func add(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	v := fastTwoSum(s.hi, s.lo+t.hi)
	return fastTwoSum(v.hi, t.lo+v.lo)
}

// addF is a + b within 2u².
func addF(a dd, b float64) dd {
	s := twoSum(a.hi, b)
	return fastTwoSum(s.hi, a.lo+s.lo)
}

// mul is a·b within 4u².
func mul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	t := math.FMA(a.hi, b.lo, a.lo*b.lo)
	t = math.FMA(a.lo, b.hi, t)
	return fastTwoSum(p.hi, p.lo+t)
}

// mulF is a·b within 2u².
func mulF(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	return fastTwoSum(p.hi, math.FMA(a.lo, b, p.lo))
}

// div is a/b within 15u².
func div(a, b dd) dd {
	q := a.hi / b.hi
	r := mulF(b, q)
	d := (a.hi - r.hi) + (a.lo - r.lo)
	return fastTwoSum(q, d/b.hi)
}

// sqrtDD is √a for a > 0, within a few u²: one Newton correction of
// math.Sqrt with an exact residual.
func sqrtDD(a dd) dd {
	s := math.Sqrt(a.hi)
	p := twoProd(s, s)
	r := (a.hi - p.hi - p.lo) + a.lo
	return fastTwoSum(s, r/(2*s))
}

func neg(a dd) dd { return dd{-a.hi, -a.lo} }

// scale is a·p for a power of two p that keeps both parts normal.
func scale(a dd, p float64) dd { return dd{a.hi * p, a.lo * p} }

// split rounds a big value to the nearest double-double.
func split(v *big.Float) dd {
	hi := round64(v)
	return dd{hi, round64(newF(crPrec).Sub(v, bigOf(hi)))}
}

// recip is 1/n as a double-double, within u².
func recip(n float64) dd {
	q := 1 / n
	return dd{q, math.FMA(-q, n, 1) / n}
}

// horner is c[0]·h^(n−1) + c[1]·h^(n−2) + … + c[n−1] in float64.
func horner(h float64, c []float64) float64 {
	t := 0.0
	for _, ci := range c {
		t = math.FMA(t, h, ci)
	}
	return t
}

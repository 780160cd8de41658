package crmath

import (
	"math"

	"github.com/harnlang/harn/internal/ddarith"
)

const (
	// trigSteps is the number of table points per radian in sin and cos;
	// trigPoints covers [0, π/4] and a little more.
	trigSteps  = 64
	trigPoints = 52
	// trigLimit bounds the arguments reduced on the fast path; larger ones
	// take the reference path.
	trigLimit = 0x1p30
)

// trigReduced is x = k·π/2 + r with |r| ≤ π/4 + a hair, r within err
// absolutely, for 0 < |x| < trigLimit.
type trigReduced struct {
	r    dd
	quad int // k mod 4
	err  float64
}

// reduceHalfPi reduces x by Cody and Waite's method with π/2 in four
// parts: each k·Pᵢ is an exact product, x − k·P₁ is exact, and the five
// later additions err by 2u² each of partial sums below |r| + 2⁻⁵¹·|x|;
// the parts carry π/2 to 2⁻²¹², so with |k| < 2³⁰ that adds 2⁻¹⁸⁰.
func reduceHalfPi(x float64) trigReduced {
	if math.Abs(x) <= math.Pi/4 {
		return trigReduced{r: dd{Hi: x, Lo: 0}}
	}
	p := &consts().halfPi
	k := math.Round(x * (2 / math.Pi))
	a := ddarith.TwoProd(k, p[0])
	b := ddarith.TwoProd(k, p[1])
	c := ddarith.TwoProd(k, p[2])
	r := ddarith.TwoSum(x, -a.Hi).AddF(-a.Lo)
	r = r.AddF(-b.Hi)
	r = r.AddF(-b.Lo)
	r = r.AddF(-c.Hi)
	r = r.AddF(-c.Lo - k*p[3])
	return trigReduced{
		r:    r,
		quad: int(int64(k) & 3),
		err:  0x1p-100*(math.Abs(r.Hi)+0x1p-51*math.Abs(x)) + 0x1p-170,
	}
}

// relErr is the relative error of sin, cos or tan of x from the
// reduction plus fastErr: an absolute error ε in r changes f(r) by at most
// ε·max(|cot r|, |tan r|, 1/|sin r·cos r|) ≤ ε·2/|r| relatively.
func (t trigReduced) relErr() float64 {
	return fastErr + 2*t.err/math.Abs(t.r.Hi)
}

// sinCosDD is sin r and cos r for |r| ≤ π/4 + a hair, within 2⁻⁹⁶ relative.
//
// r = a + s with a = j/64 from the table and |s| ≤ 1/128, then
// sin r = sin a·cos s + cos a·sin s and cos r = cos a·cos s − sin a·sin s:
// the terms have the result's sign or are at most half the other, so the
// sums lose at most a factor 3 against the 2⁻⁹⁸ of the parts.
//
// w = s² ≤ 2⁻¹⁴. sin s = s·(1 − w/6 + w²/120 − w³·(1/7! − w/9! + w²/11!)):
// the bracket from w³ (below 2⁻⁵⁴) in float64, the terms from w⁶ (below
// 2⁻¹¹⁶) dropped. cos s = 1 − w/2 + w²/24 − w³·(1/6! − w/8! + w²/10!):
// the same way, dropping below 2⁻¹¹². The double-double steps (a
// product for w, then four or five products and sums) add below 2⁻⁹⁹.
func sinCosDD(r dd) (sin, cos dd) {
	negative := r.Hi < 0
	if negative {
		r = r.Neg()
	}
	j := int(r.Hi*trigSteps + 0.5)
	a := float64(j) / trigSteps
	s := ddarith.TwoSum(r.Hi-a, r.Lo) // r.Hi − a is exact (Sterbenz)
	w := s.Mul(s)

	ps := sinInv120.AddF(w.Hi * horner(w.Hi, sinTail[:]))
	ps = sinInv6.Add(w.Mul(ps))
	ss := s.Mul(w.Mul(ps).AddF(1))

	pc := cosInv24.AddF(w.Hi * horner(w.Hi, cosTail[:]))
	pc = w.Mul(pc).AddF(-0.5)
	cs := w.Mul(pc).AddF(1)

	if j == 0 {
		sin, cos = ss, cs
	} else {
		t := &consts().sinCos[j]
		sin = t.sin.Mul(cs).Add(t.cos.Mul(ss))
		cos = t.cos.Mul(cs).Add(t.sin.Mul(ss).Neg())
	}
	if negative {
		sin = sin.Neg()
	}
	return sin, cos
}

var (
	sinInv120, sinInv6, cosInv24 = ddarith.Recip(120), ddarith.Recip(6).Neg(), ddarith.Recip(24)

	// sinTail is 1/11!, −1/9!, 1/7! negated, cosTail 1/10!, −1/8!, 1/6!
	// negated: the series from w³ on, over w³ (w = s²).
	sinTail = [...]float64{-1.0 / 39916800, 1.0 / 362880, -1.0 / 5040}
	cosTail = [...]float64{-1.0 / 3628800, 1.0 / 40320, -1.0 / 720}
)

// trigArgs are the arguments of the fast sin, cos and tan.
func trigFast(x float64) bool {
	return x != 0 && math.Abs(x) < trigLimit
}

// sinCosOf is sin x and cos x (by the quadrant of the reduction) and the
// relative error to claim.
func sinCosOf(x float64) (sin, cos dd, relErr float64) {
	t := reduceHalfPi(x)
	s, c := sinCosDD(t.r)
	switch t.quad {
	case 1:
		s, c = c, s.Neg()
	case 2:
		s, c = s.Neg(), c.Neg()
	case 3:
		s, c = c.Neg(), s
	}
	return s, c, t.relErr()
}

func fastSin(x float64) (float64, bool) {
	if !trigFast(x) {
		return 0, false
	}
	s, _, e := sinCosOf(x)
	return roundDD(s, e)
}

func fastCos(x float64) (float64, bool) {
	if !trigFast(x) {
		return 0, false
	}
	_, c, e := sinCosOf(x)
	return roundDD(c, e)
}

// fastTan is sin/cos, the quotient within 15u² more.
func fastTan(x float64) (float64, bool) {
	if !trigFast(x) {
		return 0, false
	}
	s, c, e := sinCosOf(x)
	return roundDD(s.Div(c), e)
}

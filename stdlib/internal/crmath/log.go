package crmath

import (
	"math"

	"github.com/harnlang/harn/internal/ddarith"
)

// fastLog is ln x for positive finite x other than 1.
func fastLog(x float64) (float64, bool) {
	if !(x > 0) || math.IsInf(x, 0) || x == 1 {
		return 0, false
	}
	m, e := mantissa(x)
	v := lnMantissa(m)
	if e != 0 {
		// e·ln 2 in exact products of two parts and the third in float64;
		// |ln m| ≤ ln2/2 so the sum is at least half of either term and
		// its error below 2⁻⁹⁰ relative
		c := consts()
		fe := float64(e)
		v = ddarith.TwoProd(fe, c.ln2[0]).Add(v)
		v = v.Add(ddarith.TwoProd(fe, c.ln2[1]))
		v = v.AddF(fe * c.ln2[2])
	}
	return roundDD(v, fastErr)
}

// fastLog2 is log₂ x for positive finite x that are not powers of two
// (those are exact on the reference path).
func fastLog2(x float64) (float64, bool) {
	if !(x > 0) || math.IsInf(x, 0) {
		return 0, false
	}
	if f, _ := math.Frexp(x); f == 0.5 {
		return 0, false
	}
	m, e := mantissa(x)
	// e + ln m/ln 2, |ln m/ln 2| ≤ ½: as for fastLog
	v := lnMantissa(m).Mul(consts().invLn2).AddF(float64(e))
	return roundDD(v, fastErr)
}

// mantissa is x = m·2^e with m in [√½, √2).
func mantissa(x float64) (float64, int) {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	return m, e
}

// lnMantissa is ln m for m in [√½, √2), within 2⁻⁹² relative.
//
// Near 1 (|m − 1| < 1/32) it is 2·atanh(t), t = (m − 1)/(m + 1) (m − 1 and
// m + 1 exact, the quotient within 15u²), |t| < 2⁻⁶, w = t² < 2⁻¹¹·⁹:
// 2t·(1 + w/3 + w²/5 + w³/7 + w⁴·(1/9 + w/11 + … + w⁴/17)), the last
// bracket in float64 (error below 2⁻¹⁰²), the rest by Horner in
// double-double (errors below 2⁻¹⁰⁰ altogether), the dropped terms below
// 2⁻¹⁰⁷.
//
// Elsewhere it is one Newton step on exp from y = math.Log(m), which errs
// by less than an ulp: u = m·e**−y − 1 is within 2⁻⁹⁷ absolutely (expDD
// 2⁻⁹⁸ on a value near 1) and |u| < 2⁻⁵¹, so ln m = y + ln(1 + u) =
// y + u − u²/2 within 2⁻⁹⁷ + 2⁻¹⁵⁰, against |ln m| > 2⁻⁵·¹: 2⁻⁹² relative.
func lnMantissa(m float64) dd {
	if math.Abs(m-1) < 1.0/32 {
		return lnNearOne(m)
	}
	y := math.Log(m)
	em, q := expDD(-y)
	em = em.Scale(math.Ldexp(1, q))
	u := em.MulF(m).AddF(-1)
	v := ddarith.TwoSum(y, u.Hi)
	return ddarith.FastTwoSum(v.Hi, v.Lo+(u.Lo-0.5*u.Hi*u.Hi))
}

func lnNearOne(m float64) dd {
	t := dd{Hi: m - 1, Lo: 0}.Div(ddarith.TwoSum(m, 1))
	w := t.Mul(t)
	p := lnInv7.AddF(w.Hi * horner(w.Hi, lnTail[:]))
	p = lnInv5.Add(w.Mul(p))
	p = lnInv3.Add(w.Mul(p))
	p = w.Mul(p).AddF(1)
	return t.Mul(p).Scale(2)
}

var (
	lnInv7, lnInv5, lnInv3 = ddarith.Recip(7), ddarith.Recip(5), ddarith.Recip(3)

	// lnTail is 1/17, 1/15, …, 1/9: the series' terms from w⁴ on, over w⁴.
	lnTail = [...]float64{1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9}
)

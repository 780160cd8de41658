package crmath

import "math"

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
		v = add(twoProd(fe, c.ln2[0]), v)
		v = add(v, twoProd(fe, c.ln2[1]))
		v = addF(v, fe*c.ln2[2])
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
	v := addF(mul(lnMantissa(m), consts().invLn2), float64(e))
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
	em = scale(em, math.Ldexp(1, q))
	u := addF(mulF(em, m), -1)
	v := twoSum(y, u.hi)
	return fastTwoSum(v.hi, v.lo+(u.lo-0.5*u.hi*u.hi))
}

func lnNearOne(m float64) dd {
	t := div(dd{m - 1, 0}, twoSum(m, 1))
	w := mul(t, t)
	p := addF(lnInv7, w.hi*horner(w.hi, lnTail[:]))
	p = add(lnInv5, mul(w, p))
	p = add(lnInv3, mul(w, p))
	p = addF(mul(w, p), 1)
	return scale(mul(t, p), 2)
}

var (
	lnInv7, lnInv5, lnInv3 = recip(7), recip(5), recip(3)

	// lnTail is 1/17, 1/15, …, 1/9: the series' terms from w⁴ on, over w⁴.
	lnTail = [...]float64{1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9}
)

package crmath

import (
	"math"

	"github.com/harnlang/harn/internal/ddarith"
)

// atanSteps is the number of table points in [0, 1] for atan.
const atanSteps = 64

// atanDD is atan t for t ≥ 0 (a double-double), within 2⁻⁹⁵ relative,
// and within 2⁻¹⁰⁰·|atan t| + 2⁻¹⁰⁷⁰ when t is tiny.
//
// t > 1 uses π/2 − atan(1/t) (1/t within 15u², atan 1/t ≤ π/4 so the
// difference at least doubles no error). For t ≤ 1, c = j/64 from the
// table and atan t = atan c + atan u, u = (t − c)/(1 + t·c), |u| ≤ 1/128
// (t − c exact, the quotient within about 20u²); the sum has terms of
// the result's sign or at most half the other, losing a factor 3.
//
// w = u² ≤ 2⁻¹⁴, atan u = u·(1 − w/3 + w²/5 − w³/7 + w⁴·(1/9 − w/11 +
// w²/13 − w³/15)): the last bracket in float64 (error below 2⁻¹¹⁰), the
// dropped terms below 2⁻¹¹⁶, the double-double Horner steps below 2⁻¹⁰⁰.
func atanDD(t dd) dd {
	c := consts()
	if t.Hi > 1 {
		return c.halfPiDD.Add(atanSmall(dd{Hi: 1, Lo: 0}.Div(t)).Neg())
	}
	return atanSmall(t)
}

func atanSmall(t dd) dd {
	j := int(t.Hi*atanSteps + 0.5)
	u := t
	if j > 0 {
		a := float64(j) / atanSteps
		num := ddarith.TwoSum(t.Hi-a, t.Lo) // t.Hi − a is exact (Sterbenz)
		u = num.Div(t.MulF(a).AddF(1))
	}
	w := u.Mul(u)
	p := atanInv7.AddF(w.Hi * horner(w.Hi, atanTail[:]))
	p = atanInv5.Add(w.Mul(p))
	p = atanInv3.Add(w.Mul(p))
	v := u.Mul(w.Mul(p).AddF(1))
	if j > 0 {
		v = consts().atan[j].Add(v)
	}
	return v
}

var (
	atanInv7, atanInv5, atanInv3 = ddarith.Recip(7).Neg(), ddarith.Recip(5), ddarith.Recip(3).Neg()

	// atanTail is −1/15, 1/13, −1/11, 1/9: the series from w⁴ on, over
	// w⁴ (w = u²).
	atanTail = [...]float64{-1.0 / 15, 1.0 / 13, -1.0 / 11, 1.0 / 9}
)

// fastAtan is atan x for finite non-zero x.
func fastAtan(x float64) (float64, bool) {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return 0, false
	}
	v := atanDD(dd{Hi: math.Abs(x), Lo: 0})
	if x < 0 {
		v = v.Neg()
	}
	return roundDD(v, fastErr)
}

// oneMinusSquare is 1 − a² for |a| < 1 within 2u²: a² is an exact
// product and 1 − a²'s high part an exact difference.
func oneMinusSquare(a float64) dd {
	sq := ddarith.TwoProd(a, a)
	return ddarith.TwoSum(1, -sq.Hi).AddF(-sq.Lo)
}

// asinDD is asin a = atan(a/√(1 − a²)) for 0 ≤ a < 1: the root and the
// quotient add below 20u², and atan passes a relative error of its
// argument on at most as large.
func asinDD(a float64) dd {
	return atanDD(dd{Hi: a, Lo: 0}.Div(oneMinusSquare(a).Sqrt()))
}

// fastAsin is asin x for 0 < |x| < 1.
func fastAsin(x float64) (float64, bool) {
	if math.IsNaN(x) || x == 0 || math.Abs(x) >= 1 {
		return 0, false
	}
	v := asinDD(math.Abs(x))
	if x < 0 {
		v = v.Neg()
	}
	return roundDD(v, fastErr)
}

// fastAcos is acos x for |x| < 1: π/2 − asin x for |x| ≤ ½ (the
// difference is at least twice asin x), else atan(√(1 − x²)/|x|),
// subtracted from π for negative x, which avoids the cancellation near 1.
func fastAcos(x float64) (float64, bool) {
	if math.IsNaN(x) || math.Abs(x) >= 1 {
		return 0, false
	}
	c := consts()
	a := math.Abs(x)
	var v dd
	switch {
	case a <= 0.5:
		v = asinDD(a)
		if x < 0 {
			v = v.Neg()
		}
		v = c.halfPiDD.Add(v.Neg())
	case x > 0:
		v = atanDD(oneMinusSquare(a).Sqrt().Div(dd{Hi: a, Lo: 0}))
	default:
		v = c.piDD.Add(atanDD(oneMinusSquare(a).Sqrt().Div(dd{Hi: a, Lo: 0})).Neg())
	}
	return roundDD(v, fastErr)
}

// fastAtan2 is atan(|y/x|) placed in the quadrant of (x, y), for x and y
// of magnitudes in [2⁻⁹⁰⁰, 2⁹⁰⁰] (so that the division's exact residual
// does not underflow) whose quotient stays in that range too; for x < 0
// it is π − atan|y/x| ≥ π/2, no cancellation.
func fastAtan2(y, x float64) (float64, bool) {
	ay, ax := math.Abs(y), math.Abs(x)
	if !(inFastRange(ay) && inFastRange(ax)) {
		return 0, false // also NaN, infinities and zeros
	}
	q := dd{Hi: ay, Lo: 0}.Div(dd{Hi: ax, Lo: 0})
	if !inFastRange(q.Hi) {
		return 0, false
	}
	v := atanDD(q)
	if x < 0 {
		v = consts().piDD.Add(v.Neg())
	}
	if y < 0 {
		v = v.Neg()
	}
	return roundDD(v, fastErr)
}

package crmath

import (
	"math"

	"github.com/harnlang/harn/internal/ddarith"
)

// expSteps is the number of table points per power of two in exp.
const expSteps = 32

// fastExp is e**x for −708 ≤ x ≤ 709, where the result is a normal
// float64; everything else takes the reference path, which keeps Go's
// special cases.
func fastExp(x float64) (float64, bool) {
	if !(x >= -708 && x <= 709) {
		return 0, false
	}
	v, q := expDD(x)
	f, ok := roundDD(v, fastErr)
	// the scaled result is normal, so scaling the rounded value is exact
	return f * math.Float64frombits(uint64(q+1023)<<52), ok
}

// expDD is e**x = v·2^q with v in about [1, 2), for |x| ≤ 710, within
// 2⁻⁹⁸ relative.
//
// x = (32q + j)·ln2/32 + r with |r| ≤ ln2/64 + a hair, and
// e**x = 2^q · 2^(j/32) · e**r, the middle factor from the table.
//
// r: k·ln2/32 is taken in exact products of three parts of ln 2/32 (the
// parts carry ln 2 to 2⁻¹⁶⁰, |k| < 2¹⁵); x − k·C₁ is exact and the four
// later additions err by 2u² of partial sums below 0.02, so r is within
// 2⁻¹⁰⁸ absolutely, which is that relatively in e**r.
//
// e**r is its Taylor polynomial of degree 12 (the rest is below 2⁻¹¹⁶):
// the terms from r⁶ on, below 2⁻⁴⁸, are summed in float64 (error below
// 2⁻⁹⁹), the rest by Horner in double-double, 5 multiplications and 5
// additions of at most 4u² each on values near 1: 2⁻¹⁰⁰. The table entry
// is within u² and the last product 4u²: altogether below 2⁻⁹⁸.
func expDD(x float64) (v dd, q int) {
	c := consts()
	k := math.Round(x * (expSteps / math.Ln2))
	ki := int(k)
	const step = 1.0 / expSteps
	a := ddarith.TwoProd(k, c.ln2[0]*step)
	b := ddarith.TwoProd(k, c.ln2[1]*step)
	r := ddarith.TwoSum(x, -a.Hi).AddF(-a.Lo)
	r = r.AddF(-b.Hi)
	r = r.AddF(-b.Lo - k*(c.ln2[2]*step))

	h := r.Hi
	p := expInv120.AddF(h * horner(h, expTail[:]))
	p = expInv24.Add(r.Mul(p))
	p = expInv6.Add(r.Mul(p))
	p = r.Mul(p).AddF(0.5)
	p = r.Mul(p).AddF(1)
	p = r.Mul(p).AddF(1)
	return c.exp2[ki&(expSteps-1)].Mul(p), ki >> 5
}

var (
	expInv120, expInv24, expInv6 = ddarith.Recip(120), ddarith.Recip(24), ddarith.Recip(6)

	// expTail is 1/12!, 1/11!, …, 1/6!: e**r − (1 + … + r⁵/5!) = r⁶·Σ.
	expTail = [...]float64{1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
		1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720}
)

package crmath

import (
	"math/big"
	"sync"
)

// fastConsts are the constants of the fast paths, split from the
// reference path's 256-bit values: ln 2 and π/2 in several float64 parts
// (each part the rounding of what the earlier ones leave), and the
// tables of exp, sin, cos and atan at the reduction points.
type fastConsts struct {
	ln2      [3]float64 // ln 2 to about 2⁻¹⁶⁰
	halfPi   [4]float64 // π/2 to about 2⁻²¹²
	halfPiDD dd
	piDD     dd
	invLn2   dd
	exp2     [expSteps]dd                      // 2^(j/expSteps)
	sinCos   [trigPoints]struct{ sin, cos dd } // at j/trigSteps
	atan     [atanSteps + 1]dd                 // atan(j/atanSteps)
}

var consts = sync.OnceValue(func() *fastConsts {
	c := new(fastConsts)
	b := crConsts()
	parts(c.ln2[:], b.ln2)
	parts(c.halfPi[:], b.halfPi)
	c.halfPiDD = split(b.halfPi)
	c.piDD = split(b.pi)
	c.invLn2 = split(newF(crPrec).Quo(newF(crPrec).SetInt64(1), b.ln2))
	for j := range c.exp2 {
		r := newF(crPrec).Mul(b.ln2, newF(crPrec).SetFloat64(float64(j)/expSteps))
		c.exp2[j] = split(expBig(r))
	}
	for j := range c.sinCos {
		a := bigOf(float64(j) / trigSteps)
		c.sinCos[j].sin, c.sinCos[j].cos = split(sinSeries(a)), split(cosSeries(a))
	}
	for j := range c.atan {
		c.atan[j] = split(atanBig(bigOf(float64(j) / atanSteps)))
	}
	return c
})

// parts splits v into len(p) float64 whose sum is v to about 53·len(p)
// bits.
func parts(p []float64, v *big.Float) {
	rest := newF(v.Prec()).Set(v)
	for i := range p {
		p[i], _ = rest.Float64()
		rest.Sub(rest, newF(v.Prec()).SetFloat64(p[i]))
	}
}

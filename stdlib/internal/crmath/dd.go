package crmath

import (
	"math"
	"math/big"

	"github.com/harnlang/harn/internal/ddarith"
)

// dd is a double-double (internal/ddarith).
type dd = ddarith.Num

// split rounds a big value to the nearest double-double.
func split(v *big.Float) dd {
	hi := round64(v)
	return dd{Hi: hi, Lo: round64(newF(crPrec).Sub(v, bigOf(hi)))}
}

// recip is 1/n as a double-double, within u².
func recip(n float64) dd {
	q := 1 / n
	return dd{Hi: q, Lo: math.FMA(-q, n, 1) / n}
}

// horner is c[0]·h^(n−1) + c[1]·h^(n−2) + … + c[n−1] in float64.
func horner(h float64, c []float64) float64 {
	t := 0.0
	for _, ci := range c {
		t = math.FMA(t, h, ci)
	}
	return t
}

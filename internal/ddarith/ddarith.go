// Package ddarith is double-double arithmetic: a Num is the unevaluated
// sum Hi + Lo of two float64 with |Lo| ≤ ulp(Hi)/2, about 106 significant
// bits. The correctly rounded power (vm.Pow) and elementary functions
// (stdlib/internal/crmath) compute in it.
//
// The error bounds quoted are relative, in units of u² = 2⁻¹⁰⁶ (u = 2⁻⁵³,
// the float64 rounding unit), from Joldes, Muller and Popescu, "Tight and
// rigorous error bounds for basic building blocks of double-word
// arithmetic" (2017); the callers only rely on each operation being
// better than 16u² = 2⁻¹⁰².
package ddarith

import "math"

// Num is the double-double Hi + Lo.
type Num struct{ Hi, Lo float64 }

// TwoSum is a + b exactly.
func TwoSum(a, b float64) Num {
	s := a + b
	bb := s - a
	return Num{s, (a - (s - bb)) + (b - bb)}
}

// FastTwoSum is a + b exactly when |a| ≥ |b| (or a is zero).
func FastTwoSum(a, b float64) Num {
	s := a + b
	return Num{s, b - (s - a)}
}

// TwoProd is a·b exactly (barring underflow).
func TwoProd(a, b float64) Num {
	p := a * b
	return Num{p, math.FMA(a, b, -p)}
}

// Recip is 1/n within u².
func Recip(n float64) Num {
	q := 1 / n
	return Num{q, math.FMA(-q, n, 1) / n}
}

// Add is a + b within 3u².
func (a Num) Add(b Num) Num {
	s := TwoSum(a.Hi, b.Hi)
	t := TwoSum(a.Lo, b.Lo)
	v := FastTwoSum(s.Hi, s.Lo+t.Hi)
	return FastTwoSum(v.Hi, t.Lo+v.Lo)
}

// AddNoCancel is a + b for terms that do not cancel (same sign, or b far
// smaller than a): then the low parts need no exact sum of their own.
func (a Num) AddNoCancel(b Num) Num {
	s := TwoSum(a.Hi, b.Hi)
	return FastTwoSum(s.Hi, s.Lo+(a.Lo+b.Lo))
}

// AddF is a + b within 2u².
func (a Num) AddF(b float64) Num {
	s := TwoSum(a.Hi, b)
	return FastTwoSum(s.Hi, a.Lo+s.Lo)
}

// Mul is a·b within 4u².
func (a Num) Mul(b Num) Num {
	p := TwoProd(a.Hi, b.Hi)
	t := math.FMA(a.Hi, b.Lo, a.Lo*b.Lo)
	t = math.FMA(a.Lo, b.Hi, t)
	return FastTwoSum(p.Hi, p.Lo+t)
}

// MulF is a·b within 2u².
func (a Num) MulF(b float64) Num {
	p := TwoProd(a.Hi, b)
	return FastTwoSum(p.Hi, math.FMA(a.Lo, b, p.Lo))
}

// Div is a/b within 15u².
func (a Num) Div(b Num) Num {
	q := a.Hi / b.Hi
	r := b.MulF(q)
	d := (a.Hi - r.Hi) + (a.Lo - r.Lo)
	return FastTwoSum(q, d/b.Hi)
}

// Sqrt is √a for a > 0, within a few u²: one Newton correction of
// math.Sqrt with an exact residual.
func (a Num) Sqrt() Num {
	s := math.Sqrt(a.Hi)
	p := TwoProd(s, s)
	r := (a.Hi - p.Hi - p.Lo) + a.Lo
	return FastTwoSum(s, r/(2*s))
}

// Neg is −a.
func (a Num) Neg() Num { return Num{-a.Hi, -a.Lo} }

// Scale is a·p for a power of two p that keeps both parts normal.
func (a Num) Scale(p float64) Num { return Num{a.Hi * p, a.Lo * p} }

// Package decimal is the decimal value kind (docs/spec/newer.md §2.4):
// exact base-10 numbers built with decimal(v), no literal syntax. A
// decimal keeps the scale it was written with for display
// (decimal("1.50") prints 1.50) but compares and keys by value.
// Arithmetic with decimals and ints gives decimals; mixing with a float
// is a type error; comparing with an int or float is unordered. The
// builtins that take numbers read decimals through this package
// (docs/language.md §2).
package decimal

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// divScale is the number of fraction digits a division keeps at most.
const divScale = 28

// mantissaLimit is 2^96: a quotient's unscaled digits stay below it, as
// the 96-bit mantissa of upstream's decimal type holds them.
var mantissaLimit = new(big.Int).Lsh(big.NewInt(1), 96)

// Decimal is unscaled × 10^-scale (type_of "decimal").
type Decimal struct {
	unscaled *big.Int
	scale    int32
}

// Convert is decimal(v): a string (trimmed), int, float or decimal as a
// decimal; quote spells a string input in the parse error.
func Convert(v vm.Value, quote func(string) string) (*Decimal, error) {
	if x, ok := v.AsString(); ok {
		d, ok := parseDecimalText(strings.TrimSpace(x.Go()))
		if !ok {
			return nil, vm.Throwf("decimal: cannot parse %s as a decimal", quote(x.Go()))
		}
		return d, nil
	}
	switch x := v.Object().(type) {
	case *Decimal:
		return x, nil
	case vm.Int:
		return FromInt(int64(x)), nil
	case vm.Float:
		if f := float64(x); !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) < 7.9e28 {
			if d, ok := parseDecimalText(strconv.FormatFloat(f, 'f', -1, 64)); ok {
				return d, nil
			}
		}
		return nil, vm.Throwf("decimal: cannot represent %s as a decimal", vm.ToDisplay(v))
	}
	return nil, vm.Throwf("decimal: cannot convert %s to a decimal", v.Type())
}

// parseDecimalText reads [+-]digits[.digits] or [+-].digits.
func parseDecimalText(s string) (*Decimal, bool) {
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if !lib.ASCIIDigit(part[i]) {
				return nil, false
			}
		}
	}
	digits := intPart + frac
	if digits == "" {
		return nil, false
	}
	// upstream's 96-bit decimal keeps the leading digits that fit (at
	// most divScale after the point), rounding at the first digit it
	// drops (half up); an integer part that does not fit fails
	ten := big.NewInt(10)
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, false
	}
	scale := int32(len(frac))
	roundUp := false
	for scale > 0 && (scale > divScale || n.Cmp(mantissaLimit) >= 0) {
		q, r := new(big.Int).QuoRem(n, ten, new(big.Int))
		roundUp = r.Int64() >= 5
		n, scale = q, scale-1
	}
	if roundUp {
		n.Add(n, big.NewInt(1))
	}
	for scale > 0 && n.Cmp(mantissaLimit) >= 0 { // the rounding carried over
		q, r := new(big.Int).QuoRem(n, ten, new(big.Int))
		if r.Int64() >= 5 {
			q.Add(q, big.NewInt(1))
		}
		n, scale = q, scale-1
	}
	if n.Cmp(mantissaLimit) >= 0 {
		return nil, false
	}
	if sign == "-" {
		n.Neg(n)
	}
	return &Decimal{unscaled: n, scale: scale}, true
}

func (*Decimal) Type() string  { return "decimal" }
func (d *Decimal) Truth() bool { return d.unscaled.Sign() != 0 }

// Display writes the digits at the stored scale.
func (d *Decimal) Display(sb *strings.Builder) { sb.WriteString(d.Text()) }

// Text is the digits at the stored scale (the display form).
func (d *Decimal) Text() string {
	s := new(big.Int).Abs(d.unscaled).String()
	if d.scale > 0 {
		if len(s) <= int(d.scale) {
			s = strings.Repeat("0", int(d.scale)-len(s)+1) + s
		}
		s = s[:len(s)-int(d.scale)] + "." + s[len(s)-int(d.scale):]
	}
	if d.unscaled.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// normalized drops trailing fraction zeros (the value's canonical form).
func (d *Decimal) normalized() *Decimal {
	u, s := new(big.Int).Set(d.unscaled), d.scale
	ten, r := big.NewInt(10), new(big.Int)
	for s > 0 {
		q, m := new(big.Int).QuoRem(u, ten, r)
		if m.Sign() != 0 {
			break
		}
		u, s = q, s-1
	}
	return &Decimal{unscaled: u, scale: s}
}

// rescaled returns the unscaled value at the larger scale s (s >= d.scale).
func (d *Decimal) rescaled(s int32) *big.Int {
	if s == d.scale {
		return d.unscaled
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-d.scale)), nil)
	return new(big.Int).Mul(d.unscaled, p)
}

func (d *Decimal) cmp(e *Decimal) int {
	s := max(d.scale, e.scale)
	return d.rescaled(s).Cmp(e.rescaled(s))
}

// EqualTo: decimals are equal by value, ignoring scale; never equal to
// an int or float.
func (d *Decimal) EqualTo(o vm.Value) bool {
	e, ok := o.Object().(*Decimal)
	return ok && d.cmp(e) == 0
}

// KeyBytes is the structural key `M<normalized>;`.
func (d *Decimal) KeyBytes() string { return "M" + d.normalized().Text() + ";" }

// CompareTo orders decimals; other kinds are unordered.
func (d *Decimal) CompareTo(o vm.Value) (int, bool) {
	e, ok := o.Object().(*Decimal)
	if !ok {
		return 0, false
	}
	return d.cmp(e), true
}

// Arith is decimal arithmetic; an int operand is promoted exactly.
func (d *Decimal) Arith(op compiler.Opcode, other vm.Value, right bool) (vm.Value, bool, error) {
	e, ok := Exact(other)
	if !ok {
		return vm.Value{}, false, nil
	}
	a, b := d, e
	if right {
		a, b = e, d
	}
	s := max(a.scale, b.scale)
	switch op {
	case compiler.ADD:
		return vm.Of(a.Add(b)), true, nil
	case compiler.SUB:
		return vm.Of(&Decimal{unscaled: new(big.Int).Sub(a.rescaled(s), b.rescaled(s)), scale: s}), true, nil
	case compiler.MUL:
		return vm.Of((&Decimal{unscaled: new(big.Int).Mul(a.unscaled, b.unscaled), scale: a.scale + b.scale}).fitted()), true, nil
	case compiler.DIV:
		if b.unscaled.Sign() == 0 {
			return vm.Value{}, true, vm.DivisionByZero()
		}
		return vm.Of(quotient(a.rescaled(s), b.rescaled(s), max(a.scale-b.scale, 0), divScale)), true, nil
	case compiler.MOD:
		if b.unscaled.Sign() == 0 {
			return vm.Value{}, true, vm.DivisionByZero()
		}
		return vm.Of(&Decimal{unscaled: new(big.Int).Rem(a.rescaled(s), b.rescaled(s)), scale: s}), true, nil
	case compiler.POW:
		n, ok := other.AsInt()
		if right || !ok {
			return vm.Value{}, false, nil
		}
		if r, ok := d.Pow(int64(n)); ok {
			return vm.Of(r), true, nil
		}
		return vm.Value{}, false, nil
	}
	return vm.Value{}, false, nil
}

// ToInt truncates toward zero; nil outside the int range.
func (d *Decimal) ToInt() vm.Value {
	q := new(big.Int).Quo(d.unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.scale)), nil))
	if !q.IsInt64() {
		return vm.Nil
	}
	return vm.IntOf(q.Int64())
}

// ToFloat is the nearest float (lossy).
func (d *Decimal) ToFloat() vm.Value {
	f, _ := strconv.ParseFloat(d.Text(), 64)
	return vm.FloatOf(f)
}

// Of returns v's decimal, if v is one.
func Of(v vm.Value) (*Decimal, bool) {
	d, ok := v.Object().(*Decimal)
	return d, ok
}

// Text is v's text at its stored scale when v is a decimal: the exact
// number serializers write (json_stringify, yaml_stringify, …).
func Text(v vm.Value) (string, bool) {
	if d, ok := Of(v); ok {
		return d.Text(), true
	}
	return "", false
}

// FromInt is n as a decimal of scale 0.
func FromInt(n int64) *Decimal { return &Decimal{unscaled: big.NewInt(n)} }

// Exact returns v as a decimal when v is a decimal or an int (promoted
// exactly, as arithmetic does); floats and other kinds give false.
func Exact(v vm.Value) (*Decimal, bool) {
	if n, ok := v.AsInt(); ok {
		return FromInt(int64(n)), true
	}
	return Of(v)
}

// Cmp orders d and e by value (-1, 0, 1).
func (d *Decimal) Cmp(e *Decimal) int { return d.cmp(e) }

// Sign is -1, 0 or 1.
func (d *Decimal) Sign() int { return d.unscaled.Sign() }

// Abs keeps the scale: abs(decimal("-1.50")) is 1.50.
func (d *Decimal) Abs() *Decimal {
	return &Decimal{unscaled: new(big.Int).Abs(d.unscaled), scale: d.scale}
}

// Add is d + e at the larger scale.
func (d *Decimal) Add(e *Decimal) *Decimal {
	s := max(d.scale, e.scale)
	return &Decimal{unscaled: new(big.Int).Add(d.rescaled(s), e.rescaled(s)), scale: s}
}

// Rounding modes of Integral.
const (
	Floor      = iota // toward -inf
	Ceil              // toward +inf
	HalfAway          // to the nearest, a tie away from zero
	TowardZero        // truncate
)

// Integral rounds d to a whole number (scale 0) in the given mode.
func (d *Decimal) Integral(mode int) *Decimal {
	if d.scale <= 0 {
		return d
	}
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.scale)), nil)
	q, r := new(big.Int).QuoRem(d.unscaled, unit, new(big.Int))
	step := 0
	switch mode {
	case Floor:
		if r.Sign() < 0 {
			step = -1
		}
	case Ceil:
		if r.Sign() > 0 {
			step = 1
		}
	case HalfAway:
		twice := new(big.Int).Abs(r)
		twice.Lsh(twice, 1)
		if twice.Cmp(unit) >= 0 {
			step = r.Sign()
		}
	}
	if step != 0 {
		q.Add(q, big.NewInt(int64(step)))
	}
	return &Decimal{unscaled: q}
}

// Pow is d ** n for 0 <= n <= 1000 (exact, scale × n); ok is false
// outside that range.
func (d *Decimal) Pow(n int64) (*Decimal, bool) {
	if n < 0 || n > 1000 {
		return nil, false
	}
	u := new(big.Int).Exp(d.unscaled, big.NewInt(n), nil)
	return &Decimal{unscaled: u, scale: d.scale * int32(n)}, true
}

// FloatOnly is the type error of a builtin that computes in floats only
// (sqrt, exp, mean, …) given a decimal: converting would silently lose
// the exactness decimals exist for, so the caller converts explicitly.
func FloatOnly(name string) error {
	return vm.Typef("%s: expected int or float, got decimal (convert with to_float(d) first)", name)
}

// MixedFloat is the type error of combining a decimal with a float
// (docs/spec/newer.md §2.4: decimal mixed with float is a type error).
func MixedFloat(name string) error {
	return vm.Typef("%s: cannot mix decimal and float (convert one with decimal(x) or to_float(d))", name)
}

// quotient is num/den as upstream's decimal division gives it
// (docs/spec/newer.md §2.4, rust_decimal): an exact quotient at the
// smallest scale not below minScale; an inexact one with as many fraction
// digits as fit (at most divScale, the unscaled digits below 2^96), the
// last one rounded half to even (2/3 → 0.6666666666666666666666666667,
// 100/3 → 33.333333333333333333333333333).
func quotient(num, den *big.Int, minScale, maxScale int32) *Decimal {
	neg := num.Sign()*den.Sign() < 0
	n, d := new(big.Int).Abs(num), new(big.Int).Abs(den)
	ten := big.NewInt(10)
	at := func(f int32) (*big.Int, *big.Int) {
		scaled := new(big.Int).Mul(n, new(big.Int).Exp(ten, big.NewInt(int64(f)), nil))
		return new(big.Int).QuoRem(scaled, d, new(big.Int))
	}
	signed := func(q *big.Int, f int32) *Decimal {
		if neg {
			q = new(big.Int).Neg(q)
		}
		return &Decimal{unscaled: q, scale: f}
	}
	f := max(maxScale, minScale)
	q, r := at(f)
	for f > minScale && q.Cmp(mantissaLimit) >= 0 {
		f--
		q, r = at(f)
	}
	if r.Sign() == 0 {
		e := signed(q, f).normalized()
		if e.scale < minScale {
			e = &Decimal{unscaled: e.rescaled(minScale), scale: minScale}
		}
		return e
	}
	twice := new(big.Int).Lsh(r, 1)
	if c := twice.Cmp(d); c > 0 || (c == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(1))
	}
	if q.Cmp(mantissaLimit) >= 0 && f > minScale {
		// rounding carried past the limit: one digit fewer
		return quotient(num, den, minScale, f-1)
	}
	return signed(q, f)
}

// fitted is d with at most divScale fraction digits and its unscaled
// digits below 2^96 where dropping fraction digits gets them there, as
// upstream's 96-bit decimal rounds a product (half to even):
// decimal("1.1111111111111111") squared keeps 28 fraction digits.
func (d *Decimal) fitted() *Decimal {
	drop := int32(0)
	if d.scale > divScale {
		drop = d.scale - divScale
	}
	abs := new(big.Int).Abs(d.unscaled)
	ten := big.NewInt(10)
	for drop < d.scale && new(big.Int).Quo(abs, new(big.Int).Exp(ten, big.NewInt(int64(drop)), nil)).Cmp(mantissaLimit) >= 0 {
		drop++
	}
	if drop == 0 {
		return d
	}
	p := new(big.Int).Exp(ten, big.NewInt(int64(drop)), nil)
	q, r := new(big.Int).QuoRem(abs, p, new(big.Int))
	if c := new(big.Int).Lsh(r, 1).Cmp(p); c > 0 || (c == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(1))
	}
	if d.unscaled.Sign() < 0 {
		q.Neg(q)
	}
	return &Decimal{unscaled: q, scale: d.scale - drop}
}

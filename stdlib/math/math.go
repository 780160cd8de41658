package math

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/crmath"
	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Math, statistics and random numbers (docs/spec/builtins.md §3.11). Non-numeric
// arguments give nil unless an error is documented.

func init() {
	lib.Def("abs", "abs(n: int | float) -> int | float | nil", "absolute value, same kind", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		// Numbers are read with the As accessors: Object would box them.
		if n, ok := args.At(0).AsInt(); ok {
			if n == math.MinInt64 {
				return vm.FloatOf(-float64(n)), nil
			}
			if n < 0 {
				return vm.IntOf(-int64(n)), nil
			}
			return vm.IntOf(int64(n)), nil
		}
		if n, ok := args.At(0).AsFloat(); ok {
			return vm.FloatOf(math.Abs(float64(n))), nil
		}
		if d, ok := decimal.Of(args.At(0)); ok {
			return vm.Of(d.Abs()), nil
		}
		return vm.Nil, nil
	})
	// A decimal rounds exactly to an int, as a float does (a tie away
	// from zero, docs/language.md §2).
	rounding := func(name string, f func(float64) float64, mode int) {
		lib.Def(name, name+"(n: int | float) -> int?", name+" to an int", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			if n, ok := args.At(0).AsInt(); ok {
				return vm.IntOf(int64(n)), nil
			}
			if n, ok := args.At(0).AsFloat(); ok {
				return floatToInt(f(float64(n)))
			}
			if d, ok := decimal.Of(args.At(0)); ok {
				if n := d.Integral(mode).ToInt(); !n.IsNil() {
					return n, nil
				}
				return vm.Value{}, vm.Runtimef("decimal is outside the representable int range")
			}
			return vm.Nil, nil
		})
	}
	rounding("floor", math.Floor, decimal.Floor)
	rounding("ceil", math.Ceil, decimal.Ceil)
	rounding("round", math.Round, decimal.HalfAway)
	unary := func(name string, f func(float64) float64) {
		lib.Def(name, name+"(n: int | float) -> float?", name+" as a float", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			x, ok := args.Num(0)
			if !ok {
				return vm.Nil, decimalArg(name, args.At(0))
			}
			return vm.FloatOf(f(x)), nil
		})
	}
	unary("sqrt", math.Sqrt)
	unary("sin", crmath.Sin)
	unary("cos", crmath.Cos)
	unary("tan", crmath.Tan)
	unary("asin", crmath.Asin)
	unary("acos", crmath.Acos)
	unary("atan", crmath.Atan)
	unary("log2", crmath.Log2)
	unary("log10", crmath.Log10)
	unary("ln", crmath.Log)
	unary("exp", crmath.Exp)
	lib.Def("atan2", "atan2(y, x) -> float?", "the angle of (x, y)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		y, ok1 := args.Num(0)
		x, ok2 := args.Num(1)
		if !ok1 || !ok2 {
			return vm.Nil, decimalArg("atan2", args.At(0), args.At(1))
		}
		return vm.FloatOf(crmath.Atan2(y, x)), nil
	})
	lib.Def("pow", "pow(base, exp) -> int | float | nil", "base ** exp (a decimal base takes an int exponent: an exact decimal)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, aInt := args.Int(0)
		b, bInt := args.Int(1)
		if aInt && bInt {
			return vm.IntPow(a, b), nil
		}
		if d, ok := decimal.Of(args.At(0)); ok {
			return decimalPow(d, args.At(1))
		}
		x, ok1 := args.Num(0)
		y, ok2 := args.Num(1)
		if !ok1 || !ok2 {
			return vm.Nil, decimalArg("pow", args.At(1))
		}
		return vm.FloatOf(vm.Pow(x, y)), nil
	})
	minmax := func(name string, dir int) {
		lib.Def(name, name+"(a: int | float, b: int | float) -> int | float | nil", "the "+name+" of exactly two numbers", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			a, b := args.At(0), args.At(1)
			if v, done, err := decimalMinMax(name, dir, a, b); done {
				return v, err
			}
			if !lib.IsNumber(a) || !lib.IsNumber(b) {
				return vm.Nil, nil
			}
			_, aInt := a.AsInt()
			_, bInt := b.AsInt()
			if aInt && bInt {
				if vm.Compare(a, b)*dir >= 0 {
					return a, nil
				}
				return b, nil
			}
			// like Rust's f64::min/max: a NaN operand loses
			x, _ := lib.ToFloat(a)
			y, _ := lib.ToFloat(b)
			switch {
			case math.IsNaN(x):
				return vm.FloatOf(y), nil
			case math.IsNaN(y), dir > 0 && x >= y, dir < 0 && x <= y:
				return vm.FloatOf(x), nil
			}
			return vm.FloatOf(y), nil
		})
	}
	minmax("min", -1)
	minmax("max", 1)
	lib.Def("sign", "sign(n: int | float) -> int | float | nil", "-1, 0 or 1", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if n, ok := args.At(0).AsInt(); ok {
			return vm.IntOf(int64(vm.Compare(vm.IntOf(int64(n)), vm.IntOf(0)))), nil
		}
		if n, ok := args.At(0).AsFloat(); ok {
			if math.IsNaN(float64(n)) {
				return vm.FloatOf(float64(n)), nil
			}
			return vm.IntOf(int64(vm.Compare(vm.FloatOf(float64(n)), vm.FloatOf(float64(0))))), nil
		}
		if d, ok := decimal.Of(args.At(0)); ok {
			return vm.IntOf(int64(d.Sign())), nil
		}
		return vm.Nil, nil
	})
	lib.Def("is_nan", "is_nan(n) -> bool", "whether n is a NaN float", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		f, ok := args.At(0).AsFloat()
		return vm.BoolOf(ok && math.IsNaN(float64(f))), nil
	})
	lib.Def("is_infinite", "is_infinite(n) -> bool", "whether n is an infinite float", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		f, ok := args.At(0).AsFloat()
		return vm.BoolOf(ok && math.IsInf(float64(f), 0)), nil
	})

	lib.Def("mean", "mean(list) -> float", "arithmetic mean (0.0 when empty)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		xs, err := numbers("mean", args, true)
		if err != nil || len(xs) == 0 {
			return vm.FloatOf(float64(0)), err
		}
		return vm.FloatOf(mean(xs)), nil
	})
	lib.Def("median", "median(list) -> float", "the middle value (mean of the two middle ones)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		xs, err := numbers("median", args, false)
		if err != nil {
			return vm.Value{}, err
		}
		sort.Float64s(xs)
		n := len(xs)
		if n%2 == 1 {
			return vm.FloatOf(xs[n/2]), nil
		}
		return vm.FloatOf((xs[n/2-1] + xs[n/2]) / 2), nil
	})
	lib.Def("percentile", "percentile(list, p) -> float", "R-7 percentile, p in 0..100", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		xs, err := numbers("percentile", args, false)
		if err != nil {
			return vm.Value{}, err
		}
		p, ok := args.Num(1)
		if !ok {
			return vm.Value{}, vm.Typef("percentile must be numeric")
		}
		if !(p >= 0 && p <= 100) {
			return vm.Value{}, vm.Runtimef("percentile must be between 0 and 100")
		}
		sort.Float64s(xs)
		h := 1 + float64(len(xs)-1)*p/100
		lo, hi := math.Floor(h), math.Ceil(h)
		a, b := xs[int(lo)-1], xs[int(hi)-1]
		return vm.FloatOf(float64(a + (h-lo)*(b-a))), nil
	})
	spread := func(name string, root bool) {
		lib.Def(name, name+"(list, sample?) -> float", name+" (population unless sample is truthy)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			xs, err := numbers(name, args, false)
			if err != nil {
				return vm.Value{}, err
			}
			n := float64(len(xs))
			if args.At(1).Truth() {
				if len(xs) < 2 {
					return vm.Value{}, vm.Runtimef("sample variance requires at least 2 values")
				}
				n--
			}
			m := mean(xs)
			ss := 0.0
			for _, x := range xs {
				ss += (x - m) * (x - m)
			}
			v := ss / n
			if root {
				v = math.Sqrt(v)
			}
			return vm.FloatOf(v), nil
		})
	}
	spread("variance", false)
	spread("stddev", true)

	lib.Def("random", "random(rng?) -> float", "a uniform float in [0, 1)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		r, _ := rngArg(args)
		return vm.FloatOf(r.float()), nil
	})
	lib.Def("random_int", "random_int(rng?, min, max) -> int?", "a uniform int in [min, max]", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		r, args := rngArg(args)
		if !args.Given(0) || !args.Given(1) {
			return vm.Nil, nil
		}
		lo, ok := args.Int(0)
		if !ok {
			return vm.Value{}, vm.Typef("random_int: min must be an integer")
		}
		hi, ok := args.Int(1)
		if !ok {
			return vm.Value{}, vm.Typef("random_int: max must be an integer")
		}
		if lo > hi {
			return vm.Nil, nil
		}
		return vm.IntOf(r.between(lo, hi)), nil
	})
	lib.Def("random_choice", "random_choice(rng?, list) -> any", "a uniform element, nil for an empty list", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		r, args := rngArg(args)
		l, ok := args.List(0)
		if !ok || l.Len() == 0 {
			return vm.Nil, nil
		}
		return l.At(int(r.between(0, int64(l.Len()-1)))), nil
	})
	lib.Def("random_shuffle", "random_shuffle(rng?, list) -> list?", "a shuffled copy", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		r, args := rngArg(args)
		l, ok := args.List(0)
		if !ok {
			return vm.Nil, nil
		}
		items := lib.CopyItems(l.Items())
		for i := len(items) - 1; i > 0; i-- {
			j := r.between(0, int64(i))
			items[i], items[j] = items[j], items[i]
		}
		return vm.Of(lib.List(items)), nil
	})
	lib.Def("rng_seed", "rng_seed(seed)", "a deterministic generator for the random functions", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		seed, ok := args.Int(0)
		if !ok {
			return vm.Value{}, vm.Typef("rng_seed(seed): seed must be an integer")
		}
		var key [32]byte
		binary.LittleEndian.PutUint64(key[:], uint64(seed))
		return vm.Of(&Rng{r: rand.New(rand.NewChaCha8(key))}), nil
	})
}

// floatToInt converts an already rounded float, failing outside the int
// range.
func floatToInt(f float64) (vm.Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return vm.Value{}, vm.Runtimef("cannot convert non-finite float to int")
	}
	if f < -9223372036854775808 || f >= 9223372036854775808 {
		return vm.Value{}, vm.Runtimef("float is outside the representable int range")
	}
	return vm.IntOf(int64(f)), nil
}

// numbers reads the list argument of the statistics functions.
func numbers(name string, args vm.Args, allowEmpty bool) ([]float64, error) {
	l, ok := args.List(0)
	if !ok {
		return nil, vm.Typef("%s: items must be a list", name)
	}
	if l.Len() == 0 && !allowEmpty {
		return nil, vm.Runtimef("%s: items must not be empty", name)
	}
	xs := make([]float64, l.Len())
	for i, v := range l.Items() {
		f, ok := lib.ToFloat(v)
		if !ok {
			if _, dec := decimal.Of(v); dec {
				return nil, decimal.FloatOnly(name)
			}
			return nil, vm.Typef("%s must be numeric", name)
		}
		xs[i] = f
	}
	return xs, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Rng is a seeded random generator (type_of "rng"). Equal seeds give equal
// sequences.
type Rng struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (*Rng) Type() string                { return "rng" }
func (*Rng) Truth() bool                 { return true }
func (*Rng) Display(sb *strings.Builder) { sb.WriteString("<rng>") }

// EqualTo: generators are never equal, not even to themselves.
func (*Rng) EqualTo(vm.Value) bool { return false }

// rngArg splits off a leading rng argument; without one the process-wide
// generator is used.
func rngArg(args vm.Args) (*Rng, vm.Args) {
	if r, ok := args.At(0).Object().(*Rng); ok {
		return r, args[1:]
	}
	return globalRng, args
}

var globalRng = &Rng{}

func (g *Rng) float() float64 {
	if g.r == nil {
		return rand.Float64()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.r.Float64()
}

// between returns a uniform int in [lo, hi] (lo <= hi).
func (g *Rng) between(lo, hi int64) int64 {
	span := uint64(hi-lo) + 1
	var u uint64
	if g.r == nil {
		if span == 0 {
			u = rand.Uint64()
		} else {
			u = rand.Uint64N(span)
		}
	} else {
		g.mu.Lock()
		if span == 0 {
			u = g.r.Uint64()
		} else {
			u = g.r.Uint64N(span)
		}
		g.mu.Unlock()
	}
	return lo + int64(u)
}

// decimalArg is the error of a float-only builtin given a decimal among
// args (nil when there is none: other non-numbers give nil).
func decimalArg(name string, args ...vm.Value) error {
	for _, a := range args {
		if _, ok := decimal.Of(a); ok {
			return decimal.FloatOnly(name)
		}
	}
	return nil
}

// decimalPow is pow(d, n): exact for an int exponent 0..1000, as d ** n.
func decimalPow(d *decimal.Decimal, exp vm.Value) (vm.Value, error) {
	n, ok := exp.AsInt()
	if !ok {
		if _, isFloat := exp.AsFloat(); isFloat {
			return vm.Value{}, decimal.MixedFloat("pow")
		}
		return vm.Value{}, vm.Typef("pow: a decimal's exponent must be an int, got %s", exp.Type())
	}
	r, ok := d.Pow(int64(n))
	if !ok {
		return vm.Value{}, vm.Typef("pow: a decimal's exponent must be between 0 and 1000, got %d", n)
	}
	return vm.Of(r), nil
}

// decimalMinMax is min/max when an operand is a decimal (done): the
// other may be a decimal or an int, compared exactly, and the smaller
// (larger) operand is returned as it is; a float is a type error, as in
// arithmetic.
func decimalMinMax(name string, dir int, a, b vm.Value) (v vm.Value, done bool, err error) {
	_, aDec := decimal.Of(a)
	_, bDec := decimal.Of(b)
	if !aDec && !bDec {
		return vm.Value{}, false, nil
	}
	x, okA := decimal.Exact(a)
	y, okB := decimal.Exact(b)
	if !okA || !okB {
		if _, f := a.AsFloat(); f {
			return vm.Value{}, true, decimal.MixedFloat(name)
		}
		if _, f := b.AsFloat(); f {
			return vm.Value{}, true, decimal.MixedFloat(name)
		}
		return vm.Nil, true, nil
	}
	if x.Cmp(y)*dir >= 0 {
		return a, true, nil
	}
	return b, true, nil
}

package crmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The fast paths must give bit for bit the reference path's results:
// each function is compared on randomArgs arguments drawn from the
// ranges where its fast path works hardest, and the number of arguments
// it hands to the reference path (outside its domain, such as results
// below 2⁻⁹⁰⁰ or trig arguments above 2³⁰, or undecided) is logged
// (go test -v).

func randomArgs(t *testing.T) int {
	if testing.Short() {
		return 5000
	}
	return 200000
}

// argRange draws arguments for one test range.
type argRange struct {
	name string
	draw func(r *rand.Rand) float64
}

func uniform(lo, hi float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

// logUniform is ±2^e with e uniform in [lo, hi) and a random sign.
func logUniform(lo, hi float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 {
		v := math.Exp2(lo + (hi-lo)*r.Float64())
		if r.IntN(2) == 0 {
			return -v
		}
		return v
	}
}

// positive is the absolute value of another range.
func positive(f func(*rand.Rand) float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return math.Abs(f(r)) }
}

// nearMultiples is k·step plus a relative offset down to 2⁻⁵⁰, for
// arguments near multiples of π/2 (or near 1 for logarithms).
func nearMultiples(step float64, kMax int) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 {
		k := float64(r.IntN(2*kMax+1) - kMax)
		if k == 0 {
			k = 1
		}
		return k*step + k*step*math.Exp2(-50*r.Float64())*(r.Float64()-0.5)
	}
}

// randomBits is any float64 of a magnitude within [2^lo, 2^hi).
func randomBits(lo, hi float64) func(*rand.Rand) float64 {
	return logUniform(lo, hi)
}

var trigRanges = []argRange{
	{"uniform ±2π", uniform(-2*math.Pi, 2*math.Pi)},
	{"uniform ±1000", uniform(-1000, 1000)},
	{"log-uniform 2⁻³⁰..2³²", logUniform(-30, 32)},
	{"tiny", logUniform(-1000, -30)},
	{"near kπ/2", nearMultiples(math.Pi/2, 1000)},
}

var unitRanges = []argRange{
	{"uniform ±1", uniform(-1, 1)},
	{"near ±1", func(r *rand.Rand) float64 {
		v := 1 - math.Exp2(-53*r.Float64())
		if r.IntN(2) == 0 {
			return -v
		}
		return v
	}},
	{"near ±½", nearMultiples(0.5, 1)},
	{"log-uniform 2⁻⁴⁰..1", logUniform(-40, 0)},
	{"tiny", logUniform(-1070, -40)},
}

var logRanges = []argRange{
	{"uniform 0..10", uniform(0, 10)},
	{"near 1", positive(nearMultiples(1, 1))},
	{"log-uniform whole range", positive(randomBits(-1074, 1024))},
	{"uniform 0.9..1.1", uniform(0.9, 1.1)},
	{"near powers of two", func(r *rand.Rand) float64 {
		return math.Ldexp(positive(nearMultiples(1, 1))(r), r.IntN(200)-100)
	}},
}

var expRanges = []argRange{
	{"uniform ±1", uniform(-1, 1)},
	{"uniform ±745", uniform(-745, 745)},
	{"large", uniform(600, 710)},
	{"log-uniform 2⁻⁶⁰..2⁹", logUniform(-60, 9)},
	{"near multiples of ln2/32", nearMultiples(math.Ln2/32, 30000)},
}

var atanRanges = []argRange{
	{"uniform ±2", uniform(-2, 2)},
	{"log-uniform 2⁻⁶⁰..2⁶⁰", logUniform(-60, 60)},
	{"whole range", randomBits(-1074, 1024)},
	{"near ±1", nearMultiples(1, 1)},
	{"near table points", nearMultiples(1.0/64, 64)},
}

func TestFastMatchesReference(t *testing.T) {
	for _, c := range []struct {
		name   string
		fast   func(float64) (float64, bool)
		ref    func(float64) float64
		ranges []argRange
	}{
		{"sin", fastSin, refSin, trigRanges},
		{"cos", fastCos, refCos, trigRanges},
		{"tan", fastTan, refTan, trigRanges},
		{"exp", fastExp, refExp, expRanges},
		{"ln", fastLog, refLog, logRanges},
		{"log2", fastLog2, refLog2, logRanges},
		{"atan", fastAtan, refAtan, atanRanges},
		{"asin", fastAsin, refAsin, unitRanges},
		{"acos", fastAcos, refAcos, unitRanges},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			compareOnRanges(t, c.ranges, func(x float64) (float64, bool) { return c.fast(x) }, c.ref)
		})
	}
}

func TestFastAtan2MatchesReference(t *testing.T) {
	t.Parallel()
	n := randomArgs(t)
	r := rand.New(rand.NewPCG(2, 9))
	fallbacks := 0
	draws := []func(*rand.Rand) float64{uniform(-3, 3), logUniform(-40, 40), randomBits(-1074, 1024)}
	for i := range n {
		y, x := draws[i%3](r), draws[(i/3)%3](r)
		got, ok := fastAtan2(y, x)
		if !ok {
			fallbacks++
			continue
		}
		if want := refAtan2(y, x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("atan2(%v, %v): fast %v, reference %v", y, x, got, want)
		}
	}
	t.Logf("%d arguments, %d to the reference path", n, fallbacks)
}

func compareOnRanges(t *testing.T, ranges []argRange, fast func(float64) (float64, bool), ref func(float64) float64) {
	n := randomArgs(t) / len(ranges)
	for i, rg := range ranges {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		fallbacks := 0
		for range n {
			x := rg.draw(r)
			got, ok := fast(x)
			if !ok {
				fallbacks++
				continue
			}
			if want := ref(x); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s: f(%v) [%x]: fast %v, reference %v", rg.name, x, math.Float64bits(x), got, want)
			}
		}
		t.Logf("%s: %d arguments, %d to the reference path", rg.name, n, fallbacks)
	}
}

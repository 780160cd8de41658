package crmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The benchmarks compare, on ordinary arguments, the exported function
// (fast path with its rare fallback), the big.Float reference path and
// Go's math package: go test -bench . ./stdlib/internal/crmath

var sink float64

func benchUnary(b *testing.B, lo, hi float64, f, ref, gomath func(float64) float64) {
	r := rand.New(rand.NewPCG(1, 2))
	args := make([]float64, 1024)
	for i := range args {
		args[i] = lo + (hi-lo)*r.Float64()
	}
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{{"fast", f}, {"big", ref}, {"gomath", gomath}} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				sink = c.f(args[i&1023])
				i++
			}
		})
	}
}

func BenchmarkSin(b *testing.B)   { benchUnary(b, -10, 10, Sin, refSin, math.Sin) }
func BenchmarkCos(b *testing.B)   { benchUnary(b, -10, 10, Cos, refCos, math.Cos) }
func BenchmarkTan(b *testing.B)   { benchUnary(b, -10, 10, Tan, refTan, math.Tan) }
func BenchmarkAsin(b *testing.B)  { benchUnary(b, -1, 1, Asin, refAsin, math.Asin) }
func BenchmarkAcos(b *testing.B)  { benchUnary(b, -1, 1, Acos, refAcos, math.Acos) }
func BenchmarkAtan(b *testing.B)  { benchUnary(b, -10, 10, Atan, refAtan, math.Atan) }
func BenchmarkExp(b *testing.B)   { benchUnary(b, -20, 20, Exp, refExp, math.Exp) }
func BenchmarkLog(b *testing.B)   { benchUnary(b, 0, 1000, Log, refLog, math.Log) }
func BenchmarkLog2(b *testing.B)  { benchUnary(b, 0, 1000, Log2, refLog2, math.Log2) }
func BenchmarkLog10(b *testing.B) { benchUnary(b, 0, 1000, Log10, refLog10, math.Log10) }

func BenchmarkAtan2(b *testing.B) {
	atan2 := func(f func(y, x float64) float64) func(float64) float64 {
		return func(t float64) float64 { return f(t, 1.5-t) }
	}
	benchUnary(b, -10, 10, atan2(Atan2), atan2(refAtan2), atan2(math.Atan2))
}

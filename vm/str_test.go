package vm

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/harnlang/harn/compiler"
)

// TestConcatAllocatesOnlyTheText checks that `"key" + s` allocates the new
// string's bytes and nothing else (no box for the unboxed result).
func TestConcatAllocatesOnlyTheText(t *testing.T) {
	x, y := Str("key"), Str("12345")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Arith(compiler.ADD, x, y); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 {
		t.Fatalf("%v allocations, want 1", allocs)
	}
}

// BenchmarkConcatSmall is `"key" + to_string(i)`'s concatenation.
func BenchmarkConcatSmall(b *testing.B) {
	x, y := Str("key"), Str("12345")
	b.ReportAllocs()
	for b.Loop() {
		Arith(compiler.ADD, x, y)
	}
}

// TestSmallIntObject: Object gives every small int as its Int without
// allocating, and a larger one boxed.
func TestSmallIntObject(t *testing.T) {
	for _, n := range []int64{-257, -256, -1, 0, 1, 255, 256, 1023, 1024, 1 << 40} {
		if o := IntOf(n).Object(); o != Int(n) {
			t.Errorf("IntOf(%d).Object() = %#v", n, o)
		}
	}
	if raceEnabled {
		return
	}
	var o Object
	allocs := testing.AllocsPerRun(100, func() { o = IntOf(700).Object() })
	if allocs != 0 {
		t.Fatalf("%v allocations, want 0", allocs)
	}
	_ = o
}

// BenchmarkSmallIntObject is Object for an int the table holds.
func BenchmarkSmallIntObject(b *testing.B) {
	var o Object
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		o = IntOf(int64(i & 1023)).Object()
	}
	_ = o
}

// TestNativeMethodDoesNotBox: finding the universe method of a float or a
// string receiver (CALL_METHOD's lookup) allocates nothing; the namespace
// check must not box the receiver through Object.
func TestNativeMethodDoesNotBox(t *testing.T) {
	u := NewUniverse()
	u.AddMethod(&Method{Recv: "float", Name: "round", Fn: func(*Thread, Value, Args) (Value, error) { return Nil, nil }})
	u.AddMethod(&Method{Recv: "string", Name: "upper", Fn: func(*Thread, Value, Args) (Value, error) { return Nil, nil }})
	th := New(u).NewThread()
	rt := &funcRT{caches: newSiteCaches(1)}
	for _, c := range []struct {
		recv Value
		name string
	}{{FloatOf(1.5), "round"}, {Str("a longer string than fits inline"), "upper"}} {
		if th.nativeMethod(rt, 0, c.recv, c.name) == nil {
			t.Fatalf("no %s method", c.name)
		}
		if raceEnabled {
			continue
		}
		allocs := testing.AllocsPerRun(100, func() { th.nativeMethod(rt, 0, c.recv, c.name) })
		if allocs != 0 {
			t.Errorf("%s: %v allocations, want 0", c.name, allocs)
		}
	}
}

// TestConcatIntMatchesStrconv: the text the VM writes for to_string of an
// int, alone and after a string, is strconv's, at every digit count and
// both ends of the range.
func TestConcatIntMatchesStrconv(t *testing.T) {
	ns := []int64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p > 0 && p < math.MaxInt64/10; p *= 10 {
		ns = append(ns, p-1, p, p+1)
	}
	for _, n := range append(ns, negate(ns)...) {
		want := strconv.FormatInt(n, 10)
		if got := intText(n).str(); got != want {
			t.Errorf("intText(%d) = %q", n, got)
		}
		if got, ok := concatIntText(Str("item"), n); !ok || got.str() != "item"+want {
			t.Errorf("concatIntText(item, %d) = %q, %v", n, got.str(), ok)
		}
	}
}

func negate(ns []int64) []int64 {
	out := make([]int64, len(ns))
	for i, n := range ns {
		out[i] = -n
	}
	return out
}

// TestSmallIntTextAllocatesNothing: the text of 0 to 99 is a constant,
// as strconv.Itoa's is (to_string(i % 10) allocated nothing before the
// VM wrote the text itself).
func TestSmallIntTextAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under -race")
	}
	for _, n := range []int64{0, 7, 10, 99} {
		if a := testing.AllocsPerRun(10, func() { intText(n) }); a != 0 {
			t.Errorf("intText(%d): %v allocations", n, a)
		}
	}
}

// TestConcatIntTextLeavesBuffersToConcat: concatIntText makes only what
// Concat would make as a plain string; a boxed left operand (a growable
// buffer) or a result of 64 bytes or more is left to Concat, and a left
// operand that is not a string to the operator's error.
func TestConcatIntTextLeavesBuffersToConcat(t *testing.T) {
	long := Str(strings.Repeat("x", 59)) // + "12345" is 64 bytes
	grown := stringValue(String{s: "ab"}.Concat(strings.Repeat("y", 70)))
	for _, x := range []Value{long, grown, IntOf(1), Nil, FloatOf(1.5)} {
		if v, ok := concatIntText(x, 12345); ok {
			t.Errorf("concatIntText(%v) = %q, want it left to ADD", x, v.str())
		}
	}
	if v, ok := concatIntText(Str(strings.Repeat("x", 58)), 12345); !ok || len(v.str()) != 63 {
		t.Errorf("63 bytes: %q, %v", v.str(), ok)
	}
	if v, ok := concatIntText(Str(strings.Repeat("x", 43)), -1234567890123456789); !ok || len(v.str()) != 63 {
		t.Errorf("63 bytes, negative: %q, %v", v.str(), ok)
	}
}

// BenchmarkConcatInt is `"item" + to_string(i)` as the VM makes it.
func BenchmarkConcatInt(b *testing.B) {
	x := Str("item")
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		concatIntText(x, i)
		i++
	}
}

// TestRuneCountMatchesUTF8: RuneCount agrees with utf8.RuneCountInString
// on ASCII, multi-byte and invalid text, with the non-ASCII bytes at every
// offset around its 32-byte steps.
func TestRuneCountMatchesUTF8(t *testing.T) {
	pieces := []string{"é", "日本", "😀", "\xff", "\xe6\x97", "\xf0\x9f\x98", "a\x80b"}
	var cases []string
	for _, p := range pieces {
		for k := 0; k < 70; k++ {
			cases = append(cases, strings.Repeat("a", k)+p+strings.Repeat("b", 70-k), strings.Repeat(p, k))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(200))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = byte('a' + r.IntN(26))
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := RuneCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("RuneCount(%q) = %d, want %d", s, got, want)
		}
	}
}

// BenchmarkRuneCount is `len` of a 2 MB string: ASCII (the strings
// workload's join), CJK and mixed text.
func BenchmarkRuneCount(b *testing.B) {
	for _, c := range []struct{ name, s string }{{"ascii", "item12345,"}, {"cjk", "日本語テキスト"}, {"mixed", "héllo wörld, "}} {
		s := strings.Repeat(c.s, 2000000/len(c.s))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				RuneCount(s)
			}
		})
	}
}

package vm

import "testing"

// BenchmarkDisplayScalar is to_string and interpolation of the scalars
// whose display went through a boxing Object call.
func BenchmarkDisplayScalar(b *testing.B) {
	for _, c := range []struct {
		name string
		v    Value
	}{{"float", FloatOf(2.75)}, {"bool", True}, {"duration", DurationOf(90000)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ToDisplay(c.v)
			}
		})
	}
}

func TestDisplayScalar(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want string
	}{{FloatOf(2.75), "2.75"}, {FloatOf(2), "2.0"}, {True, "true"}, {False, "false"}, {DurationOf(90000), "90s"}, {Nil, "nil"}, {Value{}, "nil"}} {
		if got := ToDisplay(c.v); got != c.want {
			t.Errorf("ToDisplay(%s) = %q, want %q", c.v.Type(), got, c.want)
		}
	}
}

func TestStructuralKeyFloats(t *testing.T) {
	if StructuralKey(FloatOf(2)) != StructuralKey(IntOf(2)) {
		t.Error("2.0 and 2 have different keys")
	}
	if StructuralKey(FloatOf(2.5)) == StructuralKey(FloatOf(2.25)) {
		t.Error("2.5 and 2.25 share a key")
	}
	if StructuralKey(FloatOf(2.5)) == StructuralKey(IntOf(2)) {
		t.Error("2.5 and 2 share a key")
	}
}

func BenchmarkStructuralKeyFloat(b *testing.B) {
	v := FloatOf(2.75)
	b.ReportAllocs()
	for b.Loop() {
		StructuralKey(v)
	}
}

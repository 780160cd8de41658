package decimal

import (
	"strconv"
	"testing"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/vm"
)

func mustParse(t *testing.T, s string) *Decimal {
	t.Helper()
	d, err := Convert(vm.Str(s), strconv.Quote)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestIntegral(t *testing.T) {
	cases := []struct {
		in                       string
		floor, ceil, round, trnc string
	}{
		{"2.5", "2", "3", "3", "2"},
		{"-2.5", "-3", "-2", "-3", "-2"},
		{"2.49", "2", "3", "2", "2"},
		{"-2.51", "-3", "-2", "-3", "-2"},
		{"0.001", "0", "1", "0", "0"},
		{"-0.5", "-1", "0", "-1", "0"},
		{"7", "7", "7", "7", "7"},
		{"1.50", "1", "2", "2", "1"},
		{"99999999999999999999.5", "99999999999999999999", "100000000000000000000", "100000000000000000000", "99999999999999999999"},
	}
	for _, c := range cases {
		d := mustParse(t, c.in)
		for _, m := range []struct {
			mode int
			want string
		}{{Floor, c.floor}, {Ceil, c.ceil}, {HalfAway, c.round}, {TowardZero, c.trnc}} {
			if got := d.Integral(m.mode).Text(); got != m.want {
				t.Errorf("Integral(%s, mode %d) = %s, want %s", c.in, m.mode, got, m.want)
			}
		}
	}
}

func TestAbsSignAddPow(t *testing.T) {
	if got := mustParse(t, "-1.50").Abs().Text(); got != "1.50" {
		t.Errorf("abs = %s", got)
	}
	if s := mustParse(t, "-0.01").Sign(); s != -1 {
		t.Errorf("sign = %d", s)
	}
	if got := mustParse(t, "1.5").Add(FromInt(2)).Text(); got != "3.5" {
		t.Errorf("add = %s", got)
	}
	if p, ok := mustParse(t, "0.1").Pow(3); !ok || p.Text() != "0.001" {
		t.Errorf("pow = %v %v", p, ok)
	}
	if _, ok := mustParse(t, "2").Pow(-1); ok {
		t.Error("a negative exponent should be refused")
	}
}

func TestExactAndText(t *testing.T) {
	if d, ok := Exact(vm.IntOf(3)); !ok || d.Cmp(mustParse(t, "3.00")) != 0 {
		t.Errorf("Exact(3) = %v %v", d, ok)
	}
	if _, ok := Exact(vm.FloatOf(1.5)); ok {
		t.Error("a float is not exact")
	}
	if s, ok := Text(vm.Of(mustParse(t, "1.50"))); !ok || s != "1.50" {
		t.Errorf("Text = %q %v", s, ok)
	}
	if _, ok := Text(vm.IntOf(1)); ok {
		t.Error("an int has no decimal text")
	}
}

// TestQuotientAndProductLimits pins the 96-bit rules of division, products
// and parsing (docs/language.md decimals): the rounding carry cases too.
func TestQuotientAndProductLimits(t *testing.T) {
	div := func(a, b string) string {
		x, y := mustParse(t, a), mustParse(t, b)
		s := max(x.scale, y.scale)
		return quotient(x.rescaled(s), y.rescaled(s), max(x.scale-y.scale, 0), divScale).Text()
	}
	for _, c := range []struct{ a, b, want string }{
		{"2", "3", "0.6666666666666666666666666667"},
		{"-2", "3", "-0.6666666666666666666666666667"},
		{"100", "3", "33.333333333333333333333333333"},
		{"10.00", "4", "2.50"},
		{"5", "0.001", "5000"},
		{"0.0000000000000000000000000005", "2", "0.0000000000000000000000000002"},
		{"0.0000000000000000000000000015", "2", "0.0000000000000000000000000008"},
	} {
		if got := div(c.a, c.b); got != c.want {
			t.Errorf("%s / %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	mul := func(a, b string) string {
		x, y := mustParse(t, a), mustParse(t, b)
		v, _, err := x.Arith(compiler.MUL, vm.Of(y), false)
		if err != nil {
			t.Fatal(err)
		}
		return vm.ToDisplay(v)
	}
	if got := mul("1.1111111111111111", "1.1111111111111111"); got != "1.2345679012345678765432098765" {
		t.Errorf("product = %s", got)
	}
	for in, want := range map[string]string{
		"0.00000000000000000000000000015":  "0.0000000000000000000000000002",
		"-1.23456789012345678901234567895": "-1.2345678901234567890123456790",
		"7922816251426433759354395033.59":  "7922816251426433759354395034",
	} {
		if got := mustParse(t, in).Text(); got != want {
			t.Errorf("decimal(%q) = %s, want %s", in, got, want)
		}
	}
	if _, err := Convert(vm.Str("79228162514264337593543950336"), strconv.Quote); err == nil {
		t.Error("2^96 parsed")
	}
}

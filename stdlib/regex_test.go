package stdlib_test

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

func TestRegex(t *testing.T) {
	runT2(t, []t2case{
		{"regex_match", []vm.Value{sv(`\d+`), sv("a1b22c333")}, "[1, 22, 333]"},
		{"regex_match", []vm.Value{sv(`(\w)(\d)`), sv("a1 b2")}, "[a1, b2]"},
		{"regex_match", []vm.Value{sv(""), sv("abc")}, "[, , , ]"},
		{"regex_match", []vm.Value{sv("z"), sv("abc")}, "nil"},
		{"regex_match", []vm.Value{sv("a")}, "nil"},
		{"regex_match", []vm.Value{sv("abc"), sv("xABCx abc"), sv("i")}, "[ABC, abc]"},
		{"regex_match", []vm.Value{sv("^b"), sv("a\nb"), sv("m")}, "[b]"},
		{"regex_match", []vm.Value{sv("^b"), sv("a\nb")}, "nil"},
		{"regex_match", []vm.Value{sv("a.b"), sv("a\nb"), sv("s")}, "[a\nb]"},
		{"regex_match", []vm.Value{sv("a b # comment\n c"), sv("abc"), sv("x")}, "[abc]"},
		{"regex_match", []vm.Value{sv(`\w+`), sv("café au lait")}, "[café, au, lait]"},
		{"regex_match", []vm.Value{sv(`\d`), sv("x٣y")}, "[٣]"},
		{"regex_match", []vm.Value{sv(`\s+`), sv("a\u00a0\u3000b")}, "[\u00a0\u3000]"},
		{"regex_match", []vm.Value{sv(`[\w-]+`), sv("é-x y")}, "[é-x, y]"},
		{"regex_match", []vm.Value{sv(`\bcat\b`), sv("cat concat cat")}, "[cat, cat]"},
		{"regex_match", []vm.Value{sv(`\bé\w*`), sv("xé éte")}, "[éte]"},
		{"regex_match", []vm.Value{sv(`\B.`), sv("ab")}, "[b]"},
		{"regex_match", []vm.Value{sv(`\b`), sv("ab cd")}, "[, , , ]"},
		{"regex_match", []vm.Value{sv(`a*\b`), sv("baaa")}, "[, aaa]"},
		{"regex_match", []vm.Value{sv("a"), sv("a"), sv("c")}, "ERR: Invalid regex: unsupported regex flag 'c', expected one of i/m/s/x"},
		{"regex_match", []vm.Value{sv("("), sv("x")}, "ERR: Invalid regex: regex parse error:\n    (\n    ^\nerror: unclosed group"},
		{"regex_replace", []vm.Value{sv(`(\w+)@(\w+)`), sv("$2 at $1"), sv("bob@example")}, "example at bob"},
		{"regex_replace", []vm.Value{sv("a"), sv("$$"), sv("banana")}, "b$n$n$"},
		{"regex_replace", []vm.Value{sv("(b)"), sv("[${1}x]"), sv("abc")}, "a[bx]c"},
		{"regex_replace", []vm.Value{sv("(b)"), sv("[$1x]"), sv("abc")}, "a[]c"},
		{"regex_replace", []vm.Value{sv(`(?P<w>\w+)`), sv("<$w>"), sv("hi there")}, "<hi> <there>"},
		{"regex_replace", []vm.Value{sv(`\bo`), sv("0"), sv("oo boo")}, "0o boo"},
		{"regex_replace", []vm.Value{sv("o"), sv("0")}, "nil"},
		{"regex_replace_all", []vm.Value{sv("o"), sv("0"), sv("foo boo")}, "f00 b00"},
		{"regex_captures", []vm.Value{sv(`(\w)(\d)?`), sv("a1 b")}, "[{groups: [a, 1], match: a1}, {groups: [b, nil], match: b}]"},
		{"regex_captures", []vm.Value{sv(`(?P<key>\w+)=(?P<val>\w+)`), sv("x=1")}, "[{groups: [x, 1], key: x, match: x=1, val: 1}]"},
		{"regex_captures", []vm.Value{sv(`\b(?P<w>\w)(?P<n>\d)?`), sv("é")}, "[{groups: [é, nil], match: é, w: é}]"},
		{"regex_captures", []vm.Value{sv("z"), sv("abc")}, "[]"},
		{"regex_captures", []vm.Value{sv("z")}, "[]"},
		{"regex_split", []vm.Value{sv("a1b22c"), sv(`\d+`)}, "[a, b, c]"},
		{"regex_split", []vm.Value{sv("1a"), sv(`\d`)}, "[, a]"},
		{"regex_split", []vm.Value{sv("abc"), sv("")}, "[, a, b, c, ]"},
		{"regex_split", []vm.Value{sv("aXbxc"), sv("x"), sv("i")}, "[a, b, c]"},
		{"regex_split", []vm.Value{sv("a")}, "nil"},
	})
}

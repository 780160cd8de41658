package core

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The decimal builtin; the value kind is package decimal
// (docs/spec/newer.md §2.4).

func init() {
	lib.Def("decimal", "decimal(v) -> decimal", "an exact decimal from a string, int, float or decimal", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d, err := decimal.Convert(a.At(0), debugQuote)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(d), nil
	})
}

// debugQuote quotes s as upstream's error messages show a string (Rust's
// `{:?}`, docs/spec/newer.md §2.4): `\0 \t \r \n \\ \"` escaped, combining
// marks (Grapheme_Extend, which Rust's str Debug escapes even after a base
// letter) and other characters that do not print as `\u{hex}`, the rest as
// they are.
func debugQuote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case 0:
			sb.WriteString(`\0`)
		case '\t':
			sb.WriteString(`\t`)
		case '\r':
			sb.WriteString(`\r`)
		case '\n':
			sb.WriteString(`\n`)
		case '\\':
			sb.WriteString(`\\`)
		case '"':
			sb.WriteString(`\"`)
		default:
			if !graphemeExtend(r) && (unicode.IsPrint(r) || r == ' ') {
				sb.WriteRune(r)
			} else {
				sb.WriteString(`\u{` + strconv.FormatInt(int64(r), 16) + `}`)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// graphemeExtend is Unicode's Grapheme_Extend property: Mn, Me and
// Other_Grapheme_Extend (ZWNJ, some spacing marks, halfwidth katakana sound
// marks, emoji modifiers, tag characters).
func graphemeExtend(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Other_Grapheme_Extend)
}

package text

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzRegex compiles arbitrary patterns as the regex builtins do,
// wording any error as the crate would, and expands a template with the
// pattern's groups: none of it may panic, and a pattern the nest scan
// refuses is one whose tree is deeper than the limit; a pattern searched
// as a literal finds what regexp finds.
func FuzzRegex(f *testing.F) {
	for _, p := range []string{"a(b", `(?P<n>a)|[a-z&&[^q]]{2,3}?`, `(?x) a # c`, `[[:alpha:]-]`, `\x{41}\p{Greek}`,
		"((((a))))", `(?i:a)(?-u:b)*`, `[a--b~~c]`, `a{1}{2}`, `\b{start}x`, "(?:", "[", `\`} {
		f.Add(p, "", "$1${n}${")
	}
	f.Fuzz(func(t *testing.T, pattern, flags, tmpl string) {
		if len(pattern) > 4096 || len(tmpl) > 4096 {
			return
		}
		re, err := newHarnRegex(pattern, flags)
		if err != nil {
			rustRegexError(pattern, strings.ContainsRune(flags, 'x'), err)
			return
		}
		text := "abc" + pattern
		if re.literal != "" {
			if got, want := fmt.Sprint(re.findAllIn(text)), fmt.Sprint(re.re.FindAllStringSubmatchIndex(text, -1)); got != want {
				t.Fatalf("literal %q: found %s, regexp finds %s", re.literal, got, want)
			}
		}
		for _, m := range re.findAllIn(text) {
			var sb strings.Builder
			re.expand(&sb, tmpl, text, m)
		}
	})
}

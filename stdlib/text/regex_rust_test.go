package text

import (
	"strings"
	"testing"
)

// Forms the regex crate reads and Go's parser refuses or reads otherwise.
func TestRustFormsMatch(t *testing.T) {
	cases := []struct{ pattern, text, want string }{
		{"a**", "aaa b", "aaa||"},
		{"a{2}+", "aaaaa", "aaaa"},
		{"(ab)?*c", "ababc", "ababc"},
		{"a+*?b", "aab", "aab"},
		{"[a-z&&[^aeiou]]+", "hello", "h|ll"},
		{"[a-c--b]+", "abc", "a|c"},
		{"[a-z~~c-e]+", "abcdef", "ab|f"},
		{"[[ab][cd]]+", "abcde", "abcd"},
		{"[^[a-c]]+", "abcxyz", "xyz"},
		{"[\\w--\\d]+", "ab12cd", "ab|cd"},
		{"[a&&b]", "ab", ""},
		{"(?i)[a-z&&[^b]]+", "ABC", "A|C"},
		{"[]a]+", "]a", "]a"},
		{"x[&]y", "x&y", "x&y"},
		{"a(?x: b c )d", "abcd", "abcd"},
		{"x(?x)y z # note", "xyz", "xyz"},
		{"(?x)a b(?-x) c", "ab c", "ab c"},
		{"(?-u:\\w)+", "éa_1", "a_1"},
		{"(?-u)\\d+(?u)\\d", "12٣", "12٣"},
		{"[[:xyz:]]+", "zz:y", "zz:y"},
		{"\\U0001F600", "😀", "😀"},
		{"(?mR)^\\w+$", "ab\r\ncd\rEF\n", "ab|cd|EF"},
		{"(?R).+", "ab\r\ncd", "ab|cd"},
		{"b{2}a{0,1001}?b", "bbaab", "bbaab"},
		{"(?:xy){1001,}", strings.Repeat("xy", 1002), strings.Repeat("xy", 1002)},
	}
	for _, c := range cases {
		if got, err := matchTexts(c.pattern, "", c.text); err != nil {
			t.Errorf("%q: %v", c.pattern, err)
		} else if got != c.want {
			t.Errorf("%q on %q: got %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

// The counted repetitions the crate refuses, which Go reads as literals.
func TestRustCountedRepetitionErrors(t *testing.T) {
	cases := []struct{ pattern, want string }{
		{"a{2", "    a{2\n     ^^\nerror: unclosed counted repetition"},
		{"a{,3}", "    a{,3}\n      ^\nerror: repetition quantifier expects a valid decimal"},
		{"{2}", "    {2}\n    ^\nerror: repetition operator missing expression"},
		{"a{2,x}", "    a{2,x}\n        ^\nerror: repetition quantifier expects a valid decimal"},
		// whitespace around the counts is taken, but not in place of one
		{"a{2, }", "    a{2, }\n         ^\nerror: repetition quantifier expects a valid decimal"},
		{"a{1 0}", "    a{1 0}\n     ^^^\nerror: unclosed counted repetition"},
		{"a{ 2", "    a{ 2\n     ^^^\nerror: unclosed counted repetition"},
	}
	for _, c := range cases {
		_, err := newHarnRegex(c.pattern, "")
		if err == nil || err.Error() != "regex parse error:\n"+c.want {
			t.Errorf("%q: got %v, want %q", c.pattern, err, c.want)
		}
	}
}

// The crate takes whitespace around the numbers of a count, and in
// verbose mode anywhere in it.
func TestRustCountWhitespace(t *testing.T) {
	cases := []struct{ pattern, flags, text, want string }{
		{"a{ 2 , 3 }", "", "aaaa", "aaa"},
		{"a{ 2 }", "", "aaa", "aa"},
		{"a{2, }", "x", "aaa", "aaa"},
		{"a{1 0}", "x", strings.Repeat("a", 11), strings.Repeat("a", 10)},
		{`\{ 2 }`, "", "{ 2 }", "{ 2 }"},
	}
	for _, c := range cases {
		if got, err := matchTexts(c.pattern, c.flags, c.text); err != nil {
			t.Errorf("%q: %v", c.pattern, err)
		} else if got != c.want {
			t.Errorf("%q on %q: got %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

// Go refuses nested counts whose product passes 1,000; the crate does
// not, so the outer count is written as a run of smaller ones.
func TestRustNestedCountProduct(t *testing.T) {
	cases := []struct{ pattern, text, want string }{
		{`^([a-z0-9-]{1,63}\.){1,127}[a-z]{2,63}$`, "mail.example.com", "mail.example.com"},
		{`(?:a{100}){100}`, strings.Repeat("a", 10001), strings.Repeat("a", 10000)},
		{`(?:a{2}){0,600}?b`, "aaaab", "aaaab"},
		{`(?:ab{1,2}){600,}`, strings.Repeat("ab", 599), ""},
	}
	for _, c := range cases {
		if got, err := matchTexts(c.pattern, "", c.text); err != nil {
			t.Errorf("%q: %v", c.pattern, err)
		} else if got != c.want {
			t.Errorf("%q on %q: got %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

// An unclosed nested class is the crate's unclosed class error.
func TestRustNestedClassUnclosed(t *testing.T) {
	_, err := newHarnRegex("[a[b]", "")
	if err == nil {
		t.Fatal("[a[b] compiled")
	}
	if got := rustRegexError("[a[b]", false, err); !strings.Contains(got, "unclosed character class") {
		t.Errorf("got %q", got)
	}
}

// The property forms the crate reads beyond Go's category and script names.
func TestRustUnicodeProperties(t *testing.T) {
	cases := []struct{ pattern, text, want string }{
		{`\p{Script=Greek}+`, "abc αβγ", "αβγ"},
		{`\p{sc=greek}+`, "abc αβγ", "αβγ"},
		{`\p{gc=Lu}+`, "aBCd", "BC"},
		{`\p{IsGreek}+`, "xαy", "α"},
		{`\p{White_Space}+`, "a\u00a0\tb", "\u00a0\t"},
		{`\P{White_Space}+`, "a b", "a|b"},
		{`[\p{Alphabetic}\d]+`, "ab1 ǅ2", "ab1|ǅ2"},
		{`\p{Uppercase}+`, "aⅫb", "Ⅻ"},
		{`[^\p{Lowercase}]+`, "abCDe", "CD"},
		{`\p{sc:Greek}+`, "aαβ", "αβ"},
		{`\p{sc!=Greek}+`, "aαβb", "a|b"},
		{`[\P{gc!=Lu}x]+`, "aXBx", "XBx"},
		{`\p{Emoji}+`, "hi 😀🎉 7", "😀🎉|7"},
		{`\p{Emoji_Presentation}`, "© ✅", "✅"},
		{`\p{ExtPict}`, "© #", "©"},
		{`[\p{Emoji_Modifier}a]+`, "👍🏽a", "🏽a"},
		{`\P{Emoji}+`, "a😀b", "a|b"},
		// ASCII mode folds only ASCII letters
		{`(?i-u)k+`, "kK\u212a", "kK"},
		{`(?-u:(?i)é)`, "éÉ", "é"},
		// a capture repeated past 1,000 times reports its last repetition
		{`(a){1001}`, strings.Repeat("a", 1002), strings.Repeat("a", 1001)},
		{`(ab){0,1500}c`, strings.Repeat("ab", 3) + "c", "abababc"},
	}
	for _, c := range cases {
		if got, err := matchTexts(c.pattern, "", c.text); err != nil {
			t.Errorf("%q: %v", c.pattern, err)
		} else if got != c.want {
			t.Errorf("%q on %q: got %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

// The crate's start and end of word assertions, with Unicode words.
func TestRustWordAssertions(t *testing.T) {
	cases := []struct{ pattern, text, want string }{
		{`\<c\w+`, "cat concat écart", "cat|concat"},
		{`\w+t\>`, "cat concat écart", "cat|concat|écart"},
		{`\b{start}é`, "é xé", "é"},
		{`\b{end}`, "ab c", "|"},
		{`\b{start-half}x`, "x-x yx", "x|x"},
		{`x\b{end-half}`, "x-x xy", "x|x"},
	}
	for _, c := range cases {
		if got, err := matchTexts(c.pattern, "", c.text); err != nil {
			t.Errorf("%q: %v", c.pattern, err)
		} else if got != c.want {
			t.Errorf("%q on %q: got %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

// matchTexts compiles pattern with flags and joins with "|" the texts of
// its matches in text.
func matchTexts(pattern, flags, text string) (string, error) {
	re, err := newHarnRegex(pattern, flags)
	if err != nil {
		return "", err
	}
	var got []string
	for _, m := range re.findAllIn(text) {
		got = append(got, text[m[0]:m[1]])
	}
	return strings.Join(got, "|"), nil
}

package format

import (
	"strings"
	"testing"
)

// crlf writes s, written with LF line endings, with CRLF ones.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

func formatString(t *testing.T, src string) string {
	t.Helper()
	out, err := Source("t.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Source("t.harn", out)
	if err != nil || string(again) != string(out) {
		t.Fatalf("not idempotent (%v):\n%q\n%q", err, out, again)
	}
	return string(out)
}

func TestCRLFFileStaysCRLF(t *testing.T) {
	src := crlf("let x=1 // one\nfn f( a ){return a}\n/* a\n   b */\nprintln(f(x))\n")
	want := crlf("let x = 1 // one\n\nfn f(a) {\n  return a\n}\n\n/* a\n   b */\nprintln(f(x))\n")
	if got := formatString(t, src); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestByteOrderMarkIsKept(t *testing.T) {
	for _, src := range []string{"\uFEFFlet x=1\n", crlf("\uFEFFlet x=1\n")} {
		want := strings.Replace(src, "x=1", "x = 1", 1)
		if got := formatString(t, src); got != want {
			t.Errorf("%q: got %q, want %q", src, got, want)
		}
	}
}

func TestMixedLineEndingsBecomeLF(t *testing.T) {
	src := "let x=1\r\n/* a\r\n   b */\nprintln(x)\n"
	want := "let x = 1\n/* a\n   b */\nprintln(x)\n"
	if got := formatString(t, src); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestStringContentsKeepTheirLineEndings: a multi-line string is copied
// as written, whatever the file's convention.
func TestStringContentsKeepTheirLineEndings(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// a CRLF file: the string's CRLF stays, the code's too
		{crlf("let s=\"\"\"\n  a\n  \"\"\"\nprintln( s )\n"), crlf("let s = \"\"\"\n  a\n  \"\"\"\nprintln(s)\n")},
		// mixed: the string's CRLF stays, the code gets LF
		{"let s=\"\"\"\r\n  a\r\n  \"\"\"\nprintln( s )\r\n", "let s = \"\"\"\r\n  a\r\n  \"\"\"\nprintln(s)\n"},
		{"let s=\"x ${1 +\r\n 2} y\"\nprintln( s )\n", "let s = \"x ${1 +\r\n 2} y\"\nprintln(s)\n"},
	} {
		if got := formatString(t, c.src); got != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.src, got, c.want)
		}
	}
}

func TestLFFileHasNoCarriageReturn(t *testing.T) {
	if got := formatString(t, "let x=1\nprintln(x)"); got != "let x = 1\nprintln(x)\n" {
		t.Errorf("got %q", got)
	}
}

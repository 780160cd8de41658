//go:build !harnlite

package fs

import (
	"fmt"
	"testing"
)

func TestEscapesRoot(t *testing.T) {
	for name, want := range map[string]bool{
		"a.txt": false, "a/b/c": false, "./a": false, "a/../b": false, "a/b/../../c": false,
		"..": true, "../a": true, "a/../../b": true, "/etc/passwd": true, "C:/x": true,
		`..\x`: true, `\\host\share`: true, `a\..\..\x`: true,
	} {
		if got := escapesRoot(name); got != want {
			t.Errorf("escapesRoot(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLinkEscapes(t *testing.T) {
	for _, c := range []struct {
		name, target string
		want         bool
	}{
		{"link", "x.txt", false},
		{"a/link", "../b.txt", false},
		{"a/b/link", "../../c", false},
		{"link", "../x", true},
		{"a/link", "../../x", true},
		{"a/link", "/etc/passwd", true},
		{"a/link", `C:\x`, true},
	} {
		if got := linkEscapes(c.name, c.target); got != c.want {
			t.Errorf("linkEscapes(%q, %q) = %v, want %v", c.name, c.target, got, c.want)
		}
	}
}

// Output past maxDecoded is an error naming the limit, never a silent cut.
func TestCodecErrorTooLarge(t *testing.T) {
	err := codecError("gzip_decode", "gzip", fmt.Errorf("reading: %w", errTooLarge))
	if got, want := err.Error(), "Runtime error: gzip_decode: the decompressed data exceeds the 1 GiB limit"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

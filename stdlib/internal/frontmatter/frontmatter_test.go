package frontmatter

import "testing"

func TestClose(t *testing.T) {
	header, body, lines, ok := Close("a: 1\n---", "---", " \t")
	if !ok || header != "a: 1\n" || body != "" || lines != 2 {
		t.Errorf("closing line at end of file: %q %q %d %v", header, body, lines, ok)
	}
	header, body, lines, ok = Close("---  \nbody", "---", " \t")
	if !ok || header != "" || body != "body" || lines != 1 {
		t.Errorf("closing line first: %q %q %d %v", header, body, lines, ok)
	}
	if _, _, _, ok := Close("a\n--- x\n", "---", " \t"); ok {
		t.Error("a line that only starts with --- closed the front matter")
	}
	if _, _, _, ok := Close("a\n--- \n", "---", "\r"); ok {
		t.Error("a trailing space closed the front matter though the cutset has none")
	}
	if header, _, _, ok := Close("a\r\n---\r\nb", "---", "\r"); !ok || header != "a\r\n" {
		t.Errorf("a closing line ending in \\r: %q %v", header, ok)
	}
}

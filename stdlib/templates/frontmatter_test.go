package templates

import "testing"

func TestSplitFrontMatter(t *testing.T) {
	cases := []struct {
		text, header, body string
		line               int
		fm                 FrontMatter
	}{
		{"---\nid = 1\n---\nbody\n", "id = 1\n", "body\n", 4, ClosedFrontMatter},
		{"---\r\nid = 1\r\n---\r\nbody", "id = 1\r\n", "body", 4, ClosedFrontMatter},
		{"---\n---\nbody", "", "body", 3, ClosedFrontMatter},
		{"---\nid = 1\n---", "id = 1\n", "", 4, ClosedFrontMatter},
		{"---\nid = 1\n", "", "---\nid = 1\n", 1, UnclosedFrontMatter},
		{"--- \nx\n---\n", "", "--- \nx\n---\n", 1, NoFrontMatter},
		{"plain {{ x }}", "", "plain {{ x }}", 1, NoFrontMatter},
		{"---", "", "---", 1, NoFrontMatter},
	}
	for _, c := range cases {
		h, b, l, fm := SplitFrontMatter(c.text)
		if h != c.header || b != c.body || l != c.line || fm != c.fm {
			t.Errorf("%q: got (%q, %q, %d, %d), want (%q, %q, %d, %d)", c.text, h, b, l, fm, c.header, c.body, c.line, c.fm)
		}
	}
}

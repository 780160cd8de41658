// Package frontmatter finds where the front matter of a file ends: the
// header a delimiter line such as `---` opens runs to the next line that
// is the same delimiter. Prompt files (stdlib/templates) and skill files
// (stdlib/skills) both open with one; each decides for itself which
// delimiters open a header and how to parse it.
package frontmatter

import "strings"

// Close splits rest, the text after an opening delimiter line, at the
// first line that is delim once the trailing characters in cutset are
// trimmed from it: header is the text before that line, body the text
// after it, and lines the count of rest's lines up to and including the
// closing one. ok is false when no line closes the header.
func Close(rest, delim, cutset string) (header, body string, lines int, ok bool) {
	for off := 0; off <= len(rest); {
		ln, after, more := strings.Cut(rest[off:], "\n")
		lines++
		if strings.TrimRight(ln, cutset) == delim {
			if !more {
				after = ""
			}
			return rest[:off], after, lines, true
		}
		if !more {
			break
		}
		off += len(ln) + 1
	}
	return "", "", 0, false
}

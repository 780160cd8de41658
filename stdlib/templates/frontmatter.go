package templates

import (
	"strings"

	"github.com/harnlang/harn/stdlib/internal/frontmatter"
)

// PromptSuffix ends the name of a prompt file: optional TOML front
// matter, then the template body (docs/spec/orchestrator.md §7).
const PromptSuffix = ".harn.prompt"

// FrontMatter is how a text opens.
type FrontMatter int

const (
	NoFrontMatter       FrontMatter = iota // the first line is not ---
	ClosedFrontMatter                      // --- lines enclose the header
	UnclosedFrontMatter                    // a first line --- that no --- line closes
)

// SplitFrontMatter splits a text whose first line is `---` at the next
// line that is `---` (a trailing \r is allowed on both): header is the
// text between them, body everything after the closing line, bodyLine
// the 1-based line body starts on. Without closed front matter body is
// text and bodyLine 1.
func SplitFrontMatter(text string) (header, body string, bodyLine int, fm FrontMatter) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimSuffix(first, "\r") != "---" {
		return "", text, 1, NoFrontMatter
	}
	if header, body, lines, ok := frontmatter.Close(rest, "---", "\r"); ok {
		return header, body, lines + 2, ClosedFrontMatter
	}
	return "", text, 1, UnclosedFrontMatter
}

// templateBody is the template text of a file: a prompt file's body
// after its front matter, any other file whole; line is the line of
// the file the text starts on.
func templateBody(path, data string) (text string, line int) {
	if strings.HasSuffix(path, PromptSuffix) {
		if _, body, bodyLine, fm := SplitFrontMatter(data); fm == ClosedFrontMatter {
			return body, bodyLine
		}
	}
	return data, 1
}

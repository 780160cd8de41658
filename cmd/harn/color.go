package main

import (
	"io"
	"os"
	"strings"
)

// colorEnabled reports whether w is a terminal and NO_COLOR is unset
// (https://no-color.org is the convention; any non-empty value disables).
func colorEnabled(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// colorUsage highlights the top-level usage text: headings bold, each
// command's spelling cyan.
func colorUsage(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		switch {
		case strings.HasSuffix(l, ":") && !strings.HasPrefix(l, " "):
			lines[i] = "\x1b[1m" + l + "\x1b[0m"
		case strings.HasPrefix(l, "  harn "):
			spec, desc, found := strings.Cut(strings.TrimPrefix(l, "  "), "  ")
			if found {
				lines[i] = "  \x1b[36m" + spec + "\x1b[0m  " + desc
			} else {
				lines[i] = "  \x1b[36m" + spec + "\x1b[0m"
			}
		}
	}
	return strings.Join(lines, "\n")
}

// writeUsage prints the top-level usage, in colour on a terminal.
func writeUsage(w io.Writer) {
	if colorEnabled(w) {
		io.WriteString(w, colorUsage(usage))
		return
	}
	io.WriteString(w, usage)
}
